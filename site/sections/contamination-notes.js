// @ts-check
// What the contamination result says beside its numbers: the warnings of the summary (too
// many rows too short to score at N), the containment histogram with axis titles, and the
// rule of eval.clean stated beside the downloads (which rows it keeps; for a Parquet eval
// file whose types the page cannot write, which type, and that the CLI writes the file).

import { $, el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';
import { drawHistogram } from '../ui/histogram.js';

const LOG_RATIO = 20; // a tallest bar this many times the lowest non-empty one: log counts

/**
 * Fill #warnings, #cont-histogram and #clean-rule for one run.
 *
 * Args: data: the worker's contamination result ({summary: {warnings: string[], clean_file,
 *   clean_rule, rows_kept}, view: {histogram: {bin_width, counts}}, parquet_kept?: {name,
 *   rows, reason}}); args: the request's settings (threshold: number or null); onBar: a
 *   clicked bar ({bin, lo, hi, count}: the rows table lists its rows).
 * The count axis is logarithmic when the #cont-histogram-log box is ticked; a new result
 * ticks it when its tallest bar is over LOG_RATIO times its lowest non-empty one.
 * @param {Partial<import('../worker/protocol.js').ContaminationResult>} data @param {{threshold: number | null, clean?: string}} args
 * @param {(bar: {bin: number, lo: number, hi: number, count: number}) => void} onBar
 */
export function renderContaminationNotes(data, args, onBar) {
  const s = data.summary || {};
  /** @type {string[]} */
  const warnings = s.warnings || [];
  const box = $('#warnings');
  box.replaceChildren(...warnings.map((w) => el('p', { class: 'warning', text: `Warning: ${w}` })));
  box.hidden = warnings.length === 0;

  const hist = data.view && data.view.histogram;
  if (hist) {
    const logBox = /** @type {HTMLInputElement} */ ($('#cont-histogram-log'));
    const full = hist.counts.filter((n) => n > 0);
    logBox.checked = full.length > 1 && Math.max(...full) > LOG_RATIO * Math.min(...full);
    const draw = () => drawHistogram($('#cont-histogram'), hist, args.threshold, {
      xTitle: 'containment (share of n-grams in training)', yTitle: logBox.checked ? 'eval rows (log scale)' : 'eval rows',
      what: 'Containment', unit: 'eval rows', log: logBox.checked, onBar,
    });
    logBox.onchange = draw;
    draw();
    $('#cont-histogram-caption').textContent = args.threshold === null
      ? `Containment of each scored eval row (${hist.counts.length} bins of ${hist.bin_width}, the last one closed). Threshold: any overlap, so every row above 0 is contaminated.`
      : `Containment of each scored eval row (${hist.counts.length} bins of ${hist.bin_width}, the last one closed); the red line is the threshold ${args.threshold}.`;
    $('#cont-histogram-caption').textContent += ' Click a bar to list its rows.';
  }

  const rule = `${s.clean_file} keeps ${fmtInt(s.rows_kept)} row${s.rows_kept === 1 ? '' : 's'}: ${s.clean_rule}. Change it under Settings → “eval.clean keeps”.`;
  const parquet = data.parquet_kept
    ? ` ${s.clean_file} is not offered: ${data.parquet_kept.reason}. ${data.parquet_kept.name} lists the ${fmtInt(data.parquet_kept.rows)} kept row numbers; the clean Parquet file itself (same schema, kept rows in order) is written by the CLI: evalsieve contamination … --clean ${args.clean || 'scored'}.`
    : '';
  $('#clean-rule').textContent = rule + parquet;
}
