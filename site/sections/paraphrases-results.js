// The paraphrase result on the page: figures, settings, histogram, export buttons, pairs and
// groups. `shown` is a held result (paraphrases-state.js); constants are the rule constants.

import { $, el, definitionRows } from '../lib/dom.js';
import { fmtBytes, fmtInt, plural } from '../lib/format.js';
import { drawHistogram } from '../ui/histogram.js';

const PARA_MODEL = 'all-MiniLM-L6-v2 (int8 weights, ONNX)';

/** Fill #para-results for `shown`; the histogram's line is at the slider's `threshold`. */
export function renderParaphraseResults(shown, threshold, constants, onDownload) {
  const { figures: f, data, args, label } = shown;
  $('#para-results-label').textContent = label;
  const results = $('#para-results');
  results.dataset.label = label;
  const cp = f.closest_pair;
  const figures = [
    ['rows_scanned', 'rows scanned', fmtInt(f.rows_scanned)],
    ['rows_empty', 'rows with an empty field (skipped)', fmtInt(f.rows_empty)],
    ['groups', 'groups', fmtInt(f.groups)],
    ['groups_chained', 'chained groups', fmtInt(f.groups_chained)],
    ['rows_in_groups', 'rows in groups', fmtInt(f.rows_in_groups)],
    ['duplicate_share', 'duplicate share', `${f.duplicate_share.toFixed(1)} %`],
    ['effective_rows', 'effective rows', fmtInt(f.effective_rows)],
    ['pairs', 'pairs at or above the threshold', fmtInt(f.pairs)],
    ['closest_pair', 'closest pair', cp ? `rows ${cp.row_a} and ${cp.row_b}, cosine ${cp.cosine.toFixed(3)}` : '–'],
    ['rows_truncated', `rows truncated to ${constants.para_window} word pieces`, fmtInt(f.rows_truncated)],
  ];
  $('#para-figures').replaceChildren(...definitionRows(figures.map(([key, k, v]) => [k, v, { figure: key }])));
  const input = data.input || {};
  const settings = [
    ['threshold', `cosine ≥ ${f.threshold.toFixed(2)}`],
    ['model', `${PARA_MODEL} · sha256 ${String(data.encoder?.model_sha256 || '').slice(0, 12)}…`],
    ['pooling', 'mean over the word pieces, L2-normalised (cosine = dot product)'],
    ['window', `${constants.para_window} word pieces incl. [CLS] and [SEP]`],
    ['field', args.eval.field + (args.eval.label_field ? ` (labels: ${args.eval.label_field})` : '')],
    ['input', `${label === 'pasted text' ? 'pasted text' : input.name} · ${fmtBytes(input.bytes)} · sha256 ${String(input.sha256).slice(0, 12)}…${input.gzip ? ' · gzip' : ''}`],
    ['encoder', `onnxruntime-web (${data.environment?.execution_provider ?? 'wasm'}), ${data.encoder?.threads ?? 1} thread${data.encoder?.threads === 1 ? '' : 's'} · ${data.timing ? `${data.timing.rows_per_s.toFixed(1)} rows/s` : ''}`],
    ['provider', `${data.environment?.execution_provider ?? 'wasm'}: ${data.environment?.provider_reason ?? ''}`],
    ['assets', ASSETS_FROM[data.environment?.assets_from] ?? 'from the network'],
  ];
  $('#para-settings').replaceChildren(...definitionRows(settings.map(([k, v]) => [k, v, { setting: k }])));
  renderThreadsNotice($('#para-threads-notice'), data.environment);
  results.dataset.threshold = f.threshold.toFixed(2);
  drawHistogram($('#para-histogram'), f.nn_histogram, threshold);
  const exportNames = [...constants.export_names.paraphrases, ...(f.score_settings?.exports ?? [])]; // + score CSVs
  $('#para-downloads').replaceChildren(...exportNames.map((name) => {
    const b = el('button', { type: 'button', class: 'download', dataset: { export: name } }, `Download ${name}`);
    b.addEventListener('click', () => onDownload(name, b));
    return b;
  }));
  renderPairs($('#para-pairs'), f.view);
  renderGroups($('#para-groups'), f.view);
  results.hidden = false;
}

const ASSETS_FROM = {
  cache: 'from the offline cache (service worker)',
  network: 'from the network',
  'cache+network': 'partly from the offline cache, partly from the network',
};

/** Say beside the result when the encoder could not use threads (no cross-origin isolation). */
function renderThreadsNotice(box, env) {
  const isolated = env?.cross_origin_isolated !== false;
  box.hidden = isolated;
  box.dataset.isolated = String(isolated);
  if (isolated) {
    box.textContent = '';
    return;
  }
  const cores = env.hardware_concurrency ?? 1;
  box.textContent = `Not cross-origin isolated: the encoder ran on ${env.threads ?? 1} thread, not ${cores} `
    + `(this computer's cores). The server sent no COOP/COEP headers, so the browser gives the page no `
    + `SharedArrayBuffer and onnxruntime-web cannot start threads. Serve the page with `
    + `"Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp" `
    + `(python3 build.py serve does) to embed faster.`;
}

function caption(total, shownCount, { none, some, word }) {
  if (total === 0) return none;
  if (total > shownCount) return `The ${shownCount} ${some} of ${fmtInt(total)} ${word}s; the CSV has them all.`;
  return plural(shownCount, word);
}

function renderPairs(table, view) {
  const pairs = view.pairs;
  const labels = pairs.some((p) => p.label_a || p.label_b);
  const cols = ['group', 'row_a', 'row_b', ...(labels ? ['label_a', 'label_b'] : []), 'cosine', 'text_a', 'text_b'];
  table.replaceChildren(
    el('caption', { text: caption(view.pairs_total, pairs.length, { none: 'No pair at or above the threshold.', some: 'closest', word: 'pair' }) }),
    el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', { scope: 'col', text: c.replace('_', ' ') })))),
    el('tbody', {}, ...pairs.map((p) => el('tr', { dataset: { rowA: p.row_a, rowB: p.row_b } }, ...cols.map((c) => el('td', { text: String(p[c]) }))))),
  );
  table.dataset.total = String(view.pairs_total);
}

function renderGroups(table, view) {
  const groups = view.groups;
  table.replaceChildren(
    el('caption', { text: caption(view.groups_total, groups.length, { none: 'No groups at this threshold.', some: 'largest', word: 'group' }) }),
    el('thead', {}, el('tr', {}, ...['group', 'size', 'members (row: label or text)', 'lowest cosine inside', 'chained'].map((c) => el('th', { scope: 'col', text: c })))),
    el('tbody', {}, ...groups.map((g) => el('tr', { dataset: { group: g.group, chained: g.chained ? 'yes' : 'no', members: g.members.map((m) => m.row).join(' ') } },
      el('td', { text: String(g.group) }),
      el('td', { text: String(g.size) }),
      el('td', {}, el('ul', { class: 'members' }, ...g.members.map((m) => el('li', { text: `${m.row}: ${m.label || m.text}`, title: m.text })),
        g.more ? el('li', { class: 'muted', text: `… and ${g.more} more` }) : null)),
      el('td', { text: g.lowest_pair ? `${g.lowest} (rows ${g.lowest_pair[0]}–${g.lowest_pair[1]})` : 'large group: in the CSV' }),
      el('td', {}, g.chained ? el('span', { class: 'chained', title: 'some members are below the threshold with each other and joined only through other members', text: 'chained' }) : el('span', { class: 'muted', text: 'no' }))))),
  );
  table.dataset.total = String(view.groups_total);
}
