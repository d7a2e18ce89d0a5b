// The contamination result on the page: counts, the run's settings, the export buttons and
// the table of contaminated rows. `data` is the worker's contamination result (worker.js):
// {summary (the CLI's --json summary), exports: [{name, mime, text}], view (Python's
// ContaminationJob.view: the contaminated rows, every row any rung caught, so the page parses
// no CSV), inputs, timing}.

import { $, el, definitionRows, downloadText } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { renderContaminationNotes } from './contamination-notes.js';
import { renderLadder } from './ladder-results.js';
import { markedText, renderDataTable } from '../ui/data-table.js';

// The columns a person reads: the eval row's own text with the words it shares with the
// training data marked (Python's eval_marks) beside the training excerpt, and the first rung
// that caught the row (every row a rung caught is listed: Python's view, evalsieve.verdict);
// the CSV download has every column.
const TABLE_COLUMNS = [
  { key: 'eval_row', label: 'eval row', num: true },
  { key: 'rung', label: 'caught by (first rung)' },
  { key: 'containment', label: 'containment', num: true, text: (r) => r.containment_text },
  { key: 'ngrams_matched', label: 'n-grams matched', num: true, text: (r) => `${r.ngrams_matched} of ${r.ngrams_total}` },
  { key: 'training_record', label: 'training record', num: true },
  { key: 'eval_text', label: 'eval row text (shared words marked)', cell: (r) => markedText(r.eval_text ?? '', r.eval_marks) },
  { key: 'training_excerpt', label: 'training excerpt ([n-gram])' },
];

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

/** view: {rows: [{eval_row, rung, containment_text, eval_text, eval_marks, ...}] (every caught row, at most Python's limit), rows_total}. */
function renderTable(table, view) {
  const { rows, rows_total: total } = view;
  renderDataTable(table, {
    columns: TABLE_COLUMNS, rows, label: 'rows',
    caption: total === 0 ? 'No contaminated rows.' : total > rows.length ? `First ${rows.length} of ${total} rows; the CSV has them all.` : `${total} rows`,
    rowData: (r) => ({ row: String(r.eval_row), rung: r.rung }),
  });
}
