// The paraphrase result on the page: figures, settings, histogram, export buttons, pairs and
// groups. `shown` is a held result (paraphrases-state.js); constants are the rule constants.

import { $, el, definitionRows } from '../lib/dom.js';
import { fmtBytes, fmtInt, plural } from '../lib/format.js';
import { renderDataTable } from '../ui/data-table.js';
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
  drawNnHistogram(f.nn_histogram, threshold);
  const exportNames = [...constants.export_names.paraphrases, ...(f.score_settings?.exports ?? []), // + score CSVs
    ...(data.eval_info?.skipped_lines ? [constants.export_names.skipped] : []), // + skipped-lines.csv
    constants.export_names.stamp]; // run-stamp.json, last (as ParaphraseJob.export_names)
  $('#para-downloads').replaceChildren(...exportNames.map((name) => {
    const b = el('button', { type: 'button', class: 'download', dataset: { export: name } }, `Download ${name}`);
    b.addEventListener('click', () => onDownload(name, b));
    return b;
  }));
  renderPairs($('#para-pairs'), f.view);
  renderGroups($('#para-groups'), f.view);
  results.hidden = false;
}

/**
 * Draw the nearest-neighbour histogram (20 bins of 0.05 from 0) over the slider's range
 * (#para-threshold min..max: Python's para_floor..para_threshold_max), the line at `threshold`.
 */
export function drawNnHistogram(hist, threshold) {
  const s = $('#para-threshold');
  const lo = Number(s.min), hi = Number(s.max);
  drawHistogram($('#para-histogram'), hist, threshold, {
    domain: s.min !== '' && s.max !== '' && hi > lo ? [lo, hi] : [0, 1],
    xTitle: 'cosine to the nearest other row', yTitle: 'rows', what: 'Nearest-neighbour cosine', unit: 'rows',
  });
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
  const col = (key, label, more = {}) => ({ key, label, ...more });
  const columns = [col('group', 'group', { num: true }), col('row_a', 'row a', { num: true }), col('row_b', 'row b', { num: true }),
    ...(labels ? [col('label_a', 'label a'), col('label_b', 'label b')] : []),
    col('cosine', 'cosine', { num: true }), col('text_a', 'text a'), col('text_b', 'text b')];
  renderDataTable(table, {
    columns, rows: pairs, label: 'pairs',
    caption: caption(view.pairs_total, pairs.length, { none: 'No pair at or above the threshold.', some: 'closest', word: 'pair' }),
    rowData: (p) => ({ rowA: String(p.row_a), rowB: String(p.row_b) }),
  });
  table.dataset.total = String(view.pairs_total);
}

/** A group's members as a list: row number, label (when the file has one) and the text. */
function memberList(g) {
  return el('ul', { class: 'members' }, ...g.members.map((m) => el('li', { dataset: { row: String(m.row) } },
    el('span', { class: 'member-row', text: `row ${m.row}` }),
    m.label ? el('span', { class: 'member-label', text: ` [${m.label}]` }) : null,
    el('span', { class: 'member-text', text: ` ${m.text}` }))),
  g.more ? el('li', { class: 'muted', text: `… and ${g.more} more (in the CSV)` }) : null);
}

function renderGroups(table, view) {
  const groups = view.groups;
  const columns = [
    { key: 'group', label: 'group', num: true },
    { key: 'size', label: 'size', num: true },
    { key: 'members', label: 'members (row, label, text)', value: (g) => g.members.length, sortable: false,
      text: (g) => g.members.map((m) => `${m.row} ${m.label} ${m.text}`).join('\n'), cell: memberList },
    { key: 'lowest', label: 'lowest cosine inside', num: true,
      text: (g) => (g.lowest_pair ? `${g.lowest} (rows ${g.lowest_pair[0]}–${g.lowest_pair[1]})` : 'large group: in the CSV') },
    { key: 'chained', label: 'chained', value: (g) => (g.chained ? 'chained' : 'no'),
      cell: (g) => (g.chained ? el('span', { class: 'chained', title: 'some members are below the threshold with each other and joined only through other members', text: 'chained' }) : el('span', { class: 'muted', text: 'no' })) },
  ];
  renderDataTable(table, {
    columns, rows: groups, label: 'groups',
    caption: caption(view.groups_total, groups.length, { none: 'No groups at this threshold.', some: 'largest', word: 'group' }),
    rowData: (g) => ({ group: String(g.group), chained: g.chained ? 'yes' : 'no', members: g.members.map((m) => m.row).join(' ') }),
  });
  table.dataset.total = String(view.groups_total);
}
