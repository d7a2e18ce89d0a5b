// @ts-check
// The contamination result on the page: counts, the run's settings, the export buttons, the
// histogram, the ladder and the rows. `data` is the worker's contamination result (worker.js):
// {handle, summary (the CLI's --json summary), exports: [{name, mime, text}], view (Python's
// ContaminationJob.view: the histogram and the ladder; the rows come page by page from
// cont.rows, sections/cont-rows.js, so the page parses no CSV), inputs, timing}.

import { $, el, definitionRows, downloadText } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { renderContaminationNotes } from './contamination-notes.js';
import { renderLadder } from './ladder-results.js';

/**
 * Fill #results (counts, settings, downloads, histogram, ladder, rows) for one run; args are
 * the request's; rows: the section's ContaminationRows (cont-rows.js).
 * @param {import('../worker/protocol.js').ContaminationResult} data @param {Record<string, any> & {threshold: number | null}} args  the cont.run request's
 * @param {string} label @param {import('./cont-rows.js').ContaminationRows} rows
 */
export function renderContaminationResults(data, args, label, rows) {
  const s = data.summary || {};
  $('#results-label').textContent = label;
  $('#results').dataset.label = label;
  const counts = [
    ['eval rows scanned', s.rows_scanned],
    ['scored', s.rows_scored],
    ['too short to score', s.rows_too_short],
    ['of which boilerplate only', s.rows_boilerplate_only],
    ['contaminated', s.rows_contaminated],
    ['kept', s.rows_kept],
    ['training records', s.training_records],
    ['training bytes', s.training_bytes],
  ];
  $('#counts').replaceChildren(...definitionRows(counts.map(([k, v]) => [
    k, k === 'training bytes' ? `${fmtInt(v)} (${fmtBytes(v)})` : fmtInt(v), { count: k }])));
  const settingRows = [
    ['N', `${s.n}${args.n === null ? ` (auto${s.n_how ? `: ${s.n_how}` : ''})` : ' (set)'}`],
    ['boilerplate n-grams', args.boilerplate ? `dropped${s.boilerplate_cutoff ? ` (in more than ${fmtInt(s.boilerplate_cutoff)} training records: ${fmtInt(s.ngrams_boilerplate)} n-grams)` : ''}` : 'kept'],
    ['threshold', args.threshold === null ? 'any overlap' : `containment ≥ ${args.threshold}`],
    ['eval.clean keeps', s.clean_rule],
    ['eval fields', args.eval.fields.join(', ')],
    ['training fields', args.train.fields.join(', ')],
    ['eval file', `${data.inputs?.eval?.name} · sha256 ${String(data.inputs?.eval?.sha256).slice(0, 12)}…`],
    data.inputs?.train_files
      ? ['training files', data.inputs.train_files.map((f) => `${f.name} · sha256 ${String(f.sha256).slice(0, 12)}…${f.gzip ? ' · gzip' : ''}`).join('; ')]
      : ['training file', `${data.inputs?.train?.name} · sha256 ${String(data.inputs?.train?.sha256).slice(0, 12)}…${data.inputs?.train?.gzip ? ' · gzip' : ''}`],
  ];
  if (data.timing?.train_mbps) settingRows.push(['training scan', `${data.timing.train_mbps.toFixed(1)} MB/s`]);
  $('#run-settings').replaceChildren(...definitionRows(settingRows.map(([k, v]) => [k, String(v)])));

  $('#downloads').replaceChildren(...(data.exports || []).map((x) => {
    const b = el('button', { type: 'button', class: 'download', dataset: { export: x.name } },
      `Download ${x.name}`, el('span', { class: 'muted', text: ` (${fmtBytes(new Blob([x.blob || x.text]).size)})` }));
    b.addEventListener('click', () => downloadText(x.name, x.mime, x.blob || x.text)); // blob: eval.clean.parquet
    return b;
  }));

  renderContaminationNotes(data, args, (bar) => {
    rows.setBin(bar);
    $('#rows-title').scrollIntoView({ block: 'start', behavior: 'smooth' });
  });
  renderLadder($('#ladder'), data.view.ladder, (rung) => rows.setRung(rung));
  return rows.show(data.handle, data.view.ladder);
}

/**
 * The one line at the top of the tab that says what the last run found (the worked example's
 * result is read there without scrolling), with a button to its rows.
 * @param {HTMLElement} line @param {import('../worker/protocol.js').ContaminationResult} data @param {string} label
 */
export function renderResultLine(line, data, label) {
  const s = data.summary || {};
  const by = s.rows_contaminated_by_rung || {};
  const rungs = Object.entries(by).filter(([, n]) => n).map(([k, n]) => `${k} ${fmtInt(n)}`).join(' · ');
  const who = label === 'example' ? 'Worked example' : label === 'your files' ? 'Your files' : 'Example + your file';
  const go = el('button', { type: 'button', class: 'link-button', text: 'see the rows ↓' });
  go.addEventListener('click', () => $('#results').scrollIntoView({ block: 'start', behavior: 'smooth' }));
  line.replaceChildren(`${who}: ${fmtInt(s.rows_contaminated)} of ${fmtInt(s.rows_scanned)} eval rows contaminated${rungs ? ` (first caught by ${rungs})` : ''}; ${s.clean_file} keeps ${fmtInt(s.rows_kept)}.`, go);
  line.dataset.label = label;
}
