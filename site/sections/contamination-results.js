// The contamination result on the page: counts, the run's settings, the export buttons and
// the table of contaminated rows. `data` is the worker's contamination result (worker.js):
// {summary (the CLI's --json summary), exports: [{name, mime, text}], inputs, timing}.

import { $, el, definitionRows, downloadText } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { parseCSV } from '../lib/csv.js';

const MAX_TABLE_ROWS = 2000;
// The columns a person reads; the CSV download has every column.
const TABLE_COLUMNS = ['eval_row', 'containment', 'ngrams_matched', 'ngrams_total', 'training_record', 'shared_passage', 'training_excerpt'];

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
    ['eval fields', args.eval.fields.join(', ')],
    ['training fields', args.train.fields.join(', ')],
    ['eval file', `${data.inputs?.eval?.name} · sha256 ${String(data.inputs?.eval?.sha256).slice(0, 12)}…`],
    ['training file', `${data.inputs?.train?.name} · sha256 ${String(data.inputs?.train?.sha256).slice(0, 12)}…${data.inputs?.train?.gzip ? ' · gzip' : ''}`],
  ];
  if (data.timing?.train_mbps) settingRows.push(['training scan', `${data.timing.train_mbps.toFixed(1)} MB/s`]);
  $('#run-settings').replaceChildren(...definitionRows(settingRows.map(([k, v]) => [k, String(v)])));

  $('#downloads').replaceChildren(...(data.exports || []).map((x) => {
    const b = el('button', { type: 'button', class: 'download', dataset: { export: x.name } },
      `Download ${x.name}`, el('span', { class: 'muted', text: ` (${fmtBytes(new Blob([x.text]).size)})` }));
    b.addEventListener('click', () => downloadText(x.name, x.mime, x.text));
    return b;
  }));

  const report = (data.exports || []).find((x) => x.name === 'contamination-report.csv');
  renderTable($('#contaminated'), report ? contaminatedRows(report.text) : []);
}

function renderTable(table, rows) {
  if (rows.length === 0) {
    table.replaceChildren(el('caption', { text: 'no report' }));
    return;
  }
  const [header, ...body] = rows;
  const shown = body.slice(0, MAX_TABLE_ROWS);
  table.replaceChildren(
    el('caption', { text: body.length === 0 ? 'No contaminated rows.' : body.length > shown.length ? `First ${shown.length} of ${body.length} rows; the CSV has them all.` : `${body.length} rows` }),
    el('thead', {}, el('tr', {}, ...header.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...shown.map((r) => el('tr', {}, ...r.map((c) => el('td', { text: c }))))),
  );
}

/** Header + the rows whose status is 'contaminated', from contamination-report.csv. */
function contaminatedRows(text) {
  const rows = parseCSV(text).filter((r) => !(r.length >= 1 && r[0].startsWith('# ')));
  if (!rows.length) return [];
  const [header, ...body] = rows;
  const col = header.indexOf('status');
  const dirty = body.filter((r) => col === -1 || r[col] === 'contaminated');
  const keep = TABLE_COLUMNS.map((c) => header.indexOf(c)).filter((i) => i !== -1);
  const cols = keep.length >= 3 ? keep : header.map((_, i) => i);
  return [cols.map((i) => header[i]), ...dirty.map((r) => cols.map((i) => r[i] ?? ''))];
}
