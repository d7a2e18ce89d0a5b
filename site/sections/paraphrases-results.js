// @ts-check
// The paraphrase result on the page: figures, settings, histogram, export buttons, pairs and
// groups. `shown` is a held result (paraphrases-state.js); constants are the rule constants.

import { $, el, definitionRows } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { drawHistogram } from '../ui/histogram.js';

const PARA_MODEL = 'all-MiniLM-L6-v2 (int8 weights, ONNX)';

/**
 * Fill #para-results for `shown`; the histogram's line is at the slider's `threshold`; rows:
 * the section's ParaphraseRows (para-rows.js), which pages the pairs and groups.
 * @param {import('./paraphrases-state.js').Shown} shown @param {number} threshold
 * @param {import('../worker/protocol.js').Constants} constants @param {(name: string, button: HTMLButtonElement) => void} onDownload
 * @param {import('./para-rows.js').ParaphraseRows} rows
 */
export function renderParaphraseResults(shown, threshold, constants, onDownload, rows) {
  const { figures: f, data, args, label } = shown;
  $('#para-results-label').textContent = label;
  const results = $('#para-results');
  results.dataset.label = label;
  const cp = f.closest_pair;
  /** @type {[string, string, string][]} */
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
  const input = /** @type {Partial<import('../worker/protocol.js').InputInfo>} */ (data.input || {});
  /** @type {[string, string][]} */
  const settings = [
    ['threshold', `cosine ≥ ${f.threshold.toFixed(2)}`],
    ['model', `${PARA_MODEL} · sha256 ${String(data.encoder?.model_sha256 || '').slice(0, 12)}…`],
    ['pooling', 'mean over the word pieces, L2-normalised (cosine = dot product)'],
    ['window', `${constants.para_window} word pieces incl. [CLS] and [SEP]`],
    ['field', (args.eval.fields || [args.eval.field]).join(' + ') + (args.eval.label_field ? ` (labels: ${args.eval.label_field})` : '')],
    ['input', `${label === 'pasted text' ? 'pasted text' : input.name} · ${fmtBytes(input.bytes)} · sha256 ${String(input.sha256).slice(0, 12)}…${input.gzip ? ' · gzip' : ''}`],
    ['encoder', `onnxruntime-web (${data.environment?.execution_provider ?? 'wasm'}), ${data.encoder?.threads ?? 1} thread${data.encoder?.threads === 1 ? '' : 's'} · ${data.timing ? `${data.timing.rows_per_s.toFixed(1)} rows/s` : ''}`],
    ['provider', `${data.environment?.execution_provider ?? 'wasm'}: ${data.environment?.provider_reason ?? ''}`],
    ['assets', ASSETS_FROM[String(data.environment?.assets_from)] ?? 'from the network'],
  ];
  $('#para-settings').replaceChildren(...definitionRows(settings.map(([k, v]) => [k, v, { setting: k }])));
  renderThreadsNotice($('#para-threads-notice'), data.environment);
  results.dataset.threshold = f.threshold.toFixed(2);
  drawNnHistogram(f.nn_histogram, threshold);
  const fmt = input.format === 'parquet' ? 'parquet' : String(input.format || args.eval.format).split('-')[0];
  const exportNames = [...constants.export_names.paraphrases,
    constants.export_names.dedup_by_format[fmt], constants.export_names.dedup_dropped, // one row per group, the rest
    ...(f.score_settings?.exports ?? []), // + score CSVs
    ...(data.eval_info?.skipped_lines ? [constants.export_names.skipped] : []), // + skipped-lines.csv
    constants.export_names.stamp]; // run-stamp.json, last (as ParaphraseJob.export_names)
  $('#para-downloads').replaceChildren(...exportNames.map((name) => {
    const b = el('button', { type: 'button', class: 'download', dataset: { export: name } }, `Download ${name}`);
    b.addEventListener('click', () => onDownload(name, b));
    return b;
  }));
  // what eval.deduplicated.* keeps (every row not in a group, one per group; the rows with an
  // empty field too, which are in no group), under the rule chosen beside the slider
  const keepRule = constants.dedup_keep_rules[/** @type {HTMLSelectElement} */ ($('#para-dedup-keep')).value] ?? '';
  let dedupNote = /** @type {HTMLElement | null} */ (document.querySelector('#para-dedup-rule')); // made on the first result
  if (!dedupNote) {
    dedupNote = el('p', { class: 'clean-rule', id: 'para-dedup-rule' });
    $('#para-downloads').after(dedupNote);
  }
  dedupNote.textContent = `${constants.export_names.dedup_by_format[fmt]} keeps ${fmtInt(f.effective_rows + f.rows_empty)} rows `
    + `(the effective rows${f.rows_empty ? `, and the ${fmtInt(f.rows_empty)} with an empty field` : ''}), one per group: ${keepRule}; `
    + `${constants.export_names.dedup_dropped} lists the ${fmtInt(f.rows_in_groups - f.groups)} rows left out, each with its group.`;
  results.hidden = false;
  return rows.show(shown.handle, f.threshold, Boolean(args.eval.label_field));
}

/**
 * Draw the nearest-neighbour histogram (20 bins of 0.05 from 0) over the slider's range
 * (#para-threshold min..max: Python's para_floor..para_threshold_max), the line at `threshold`.
 * @param {{bin_width: number, counts: number[]}} hist @param {number} threshold
 */
export function drawNnHistogram(hist, threshold) {
  const s = /** @type {HTMLInputElement} */ ($('#para-threshold'));
  const lo = Number(s.min), hi = Number(s.max);
  drawHistogram($('#para-histogram'), hist, threshold, {
    domain: s.min !== '' && s.max !== '' && hi > lo ? [lo, hi] : [0, 1],
    xTitle: 'cosine to the nearest other row', yTitle: 'rows', what: 'Nearest-neighbour cosine', unit: 'rows',
  });
}

/** @type {Record<string, string>} */
const ASSETS_FROM = {
  cache: 'from the offline cache (service worker)',
  network: 'from the network',
  'cache+network': 'partly from the offline cache, partly from the network',
};

/**
 * Say beside the result when the encoder could not use threads (no cross-origin isolation).
 * @param {HTMLElement} box @param {import('../worker/protocol.js').Environment | undefined} env
 */
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
