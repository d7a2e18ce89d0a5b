// The contamination result on the page: counts, the run's settings, the export buttons and
// the table of contaminated rows. `data` is the worker's contamination result (worker.js):
// {summary (the CLI's --json summary), exports: [{name, mime, text}], view (Python's
// ContaminationJob.view: the contaminated rows, so the page parses no CSV), inputs, timing}.

import { $, el, definitionRows, downloadText } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { renderContaminationNotes } from './contamination-notes.js';
import { renderLadder } from './ladder-results.js';

// The columns a person reads (fields of view.rows; containment as the CSV prints it); the CSV
// download has every column.
const TABLE_COLUMNS = ['eval_row', 'containment', 'ngrams_matched', 'ngrams_total', 'training_record', 'shared_passage', 'training_excerpt'];
const CELL = { containment: (r) => r.containment_text };

/** Fill #results (counts, settings, downloads, table) for one run; args are the request's. */
export function renderContaminationResults(data, args, label) {
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

  renderContaminationNotes(data, args);
  renderTable($('#contaminated'), data.view);
  renderLadder($('#ladder'), data.view.ladder);
}

/** view: {rows: [{eval_row, containment_text, ...}] (at most Python's limit), rows_total}. */
function renderTable(table, view) {
  const { rows, rows_total: total } = view;
  table.replaceChildren(
    el('caption', { text: total === 0 ? 'No contaminated rows.' : total > rows.length ? `First ${rows.length} of ${total} rows; the CSV has them all.` : `${total} rows` }),
    el('thead', {}, el('tr', {}, ...TABLE_COLUMNS.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...rows.map((r) => el('tr', { dataset: { row: r.eval_row } },
      ...TABLE_COLUMNS.map((c) => el('td', { text: String((CELL[c] ? CELL[c](r) : r[c]) ?? '') }))))),
  );
}
