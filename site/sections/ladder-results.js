// The ladder of a contamination result: rows per rung (exact -> ngram -> semantic), which
// rungs' rows left eval.clean, the semantic rung's figures and its measured quality, and each
// caught row with the rung that caught it first. `ladder` is Python's view
// (py/evalsieve/ladder.py via cont.view), so the page parses no CSV.

import { el, definitionRows } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';
import { textOf } from '../lib/table-rows.js';
import { markedText, renderDataTable } from '../ui/data-table.js';

// Numbers come as the CSV prints them ('' when absent): num columns sort them as numbers.
const COLUMNS = [
  { key: 'eval_row', label: 'eval row', num: true },
  { key: 'rung', label: 'rung' },
  { key: 'leaves_clean', label: 'leaves eval.clean', value: (r) => (r.leaves_clean ? 'yes' : 'no') },
  { key: 'containment', label: 'containment', num: true, value: (r) => r.containment_text },
  { key: 'training_record', label: 'training record', num: true },
  { key: 'semantic_score', label: 'semantic score', num: true },
  { key: 'semantic_cosine', label: 'semantic cosine', num: true },
  { key: 'semantic_training_record', label: 'semantic training record', num: true },
  { key: 'eval_text', label: 'eval row text (n-gram shared words marked)', cell: (r) => markedText(r.eval_text ?? '', r.eval_marks) },
  { key: 'training_window', label: 'training window' },
];

const ALWAYS = new Set(['eval_row', 'rung', 'leaves_clean', 'eval_text']);

/** Fill `root` (#ladder) with the ladder of one run. */
export function renderLadder(root, ladder) {
  if (!ladder) {
    root.replaceChildren();
    return;
  }
  const by = ladder.by_rung;
  const rungRows = ['exact', 'ngram', 'semantic'].map((k) => el('tr', { dataset: { rung: k } },
    el('th', { scope: 'row', text: k }),
    el('td', { class: 'num', text: by[k] === null ? 'did not run' : fmtInt(by[k]) }),
    el('td', { text: ladder.rungs.includes(k) ? (ladder.excluded.includes(k) ? 'yes' : 'no') : '' })));
  rungRows.push(el('tr', { dataset: { rung: 'none' } }, el('th', { scope: 'row', text: 'none (clean at these rungs)' }),
    el('td', { class: 'num', text: fmtInt(ladder.clean_at_these_rungs) }), el('td', { text: '' })));
  root.replaceChildren(
    el('h3', { text: 'The ladder: which rung caught each row first' }),
    el('p', { class: 'muted', text: 'Rungs run in order exact → ngram → semantic; a row counts under the first rung that caught it. A row no rung caught is clean at these rungs, not clean.' }),
    el('table', { id: 'ladder-rungs' },
      el('thead', {}, el('tr', {}, ...['rung', 'rows caught first here', 'rows leave eval.clean'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rungRows)),
    semanticPart(ladder.semantic),
    el('h3', { text: 'Rows caught, by rung' }),
    el('div', { class: 'table-wrap' }, el('table', { id: 'ladder-rows' })),
  );
  fillCaught(root.querySelector('#ladder-rows'), ladder);
}

/** The semantic rung's figures, rule and measured quality, or why it did not run. */
function semanticPart(sem) {
  if (!sem) {
    return el('p', { id: 'ladder-semantic', class: 'muted', text: 'Semantic rung: did not run. Reworded copies of eval rows that share no n-gram with the training data are not looked for.' });
  }
  const f = sem.figures || {};
  const share = f.windows ? ` (${(100 * f.windows_embedded / f.windows).toFixed(1)}%)` : '';
  const rows = [
    ['window', `${f.window_words} words (${f.window_how}), stride ${Math.ceil(f.window_words / 2)} words`],
    ['windows scanned', fmtInt(f.windows)],
    ['windows sharing a key term with some probe', fmtInt(f.windows_sharing_a_key_term)],
    ['probes (eval rows and their field values)', fmtInt(f.probes)],
    ['spans embedded (fitted in the candidate windows)', `${fmtInt(f.windows_embedded)}${share}`],
    ['(probe, span) pairs verified', fmtInt(f.pairs_verified)],
    ['candidate windows per probe', fmtInt(sem.candidates)],
    ['threshold', `verifier probability ≥ ${sem.threshold} (prose rows), ≥ ${sem.code_threshold} (code rows)`],
    ['IDF background of key terms', String(f.idf_background)],
  ];
  return el('div', { id: 'ladder-semantic' },
    el('h3', { text: 'Semantic rung' }),
    el('dl', { class: 'run-settings' }, ...definitionRows(rows)),
    el('p', { class: 'rule', id: 'semantic-quality', text: `Measured quality at these defaults: ${sem.quality_note}.` }),
    el('p', { class: 'muted', id: 'semantic-rule', text: sem.rule }));
}

/** The caught rows, sortable and searchable, each with its own text beside the training window. */
function fillCaught(table, ladder) {
  const { rows, rows_total: total } = ladder;
  // columns no row fills (the semantic ones when that rung did not run) are left out
  const columns = COLUMNS.filter((c) => ALWAYS.has(c.key) || rows.some((r) => textOf(c, r) !== ''));
  renderDataTable(table, {
    columns, rows, label: 'rows',
    caption: total === 0 ? 'No rung caught a row.' : total > rows.length ? `First ${rows.length} of ${total} rows; the CSV has them all.` : `${total} rows`,
    rowData: (r) => ({ row: String(r.eval_row), rung: r.rung }),
  });
}
