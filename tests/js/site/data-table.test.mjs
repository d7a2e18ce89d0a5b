// site/lib/table-rows.js (ui/data-table.js's pure parts): sorting, filtering and highlight pieces (hand-worked values).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sortRows, filterRows, markPieces, textOf } from '../../../site/lib/table-rows.js';

const ROWS = [
  { eval_row: 3, containment: '0.8000', record: 7, text: 'TELEGRAPH operators could send' },
  { eval_row: 1, containment: '1.0000', record: 3, text: 'The angle of the run' },
  { eval_row: 10, containment: '', record: 0, text: 'a starter is fed' },
  { eval_row: 2, containment: '0.0900', record: 2, text: 'Why does a copper roof' },
];
const COLS = [
  { key: 'eval_row', label: 'eval row', num: true },
  { key: 'containment', label: 'containment', num: true },
  { key: 'record', label: 'training record', num: true, text: (r) => `record ${r.record}` },
  { key: 'text', label: 'text' },
];
const rowsOf = (rs) => rs.map((r) => r.eval_row);

test('numeric columns sort as numbers (10 after 3), both directions, missing values last', () => {
  assert.deepEqual(rowsOf(sortRows(ROWS, COLS[0], 'ascending')), [1, 2, 3, 10]);
  assert.deepEqual(rowsOf(sortRows(ROWS, COLS[0], 'descending')), [10, 3, 2, 1]);
  // '0.0900' < '0.8000' < '1.0000'; row 10 has '' and stays last either way
  assert.deepEqual(rowsOf(sortRows(ROWS, COLS[1], 'ascending')), [2, 3, 1, 10]);
  assert.deepEqual(rowsOf(sortRows(ROWS, COLS[1], 'descending')), [1, 3, 2, 10]);
  assert.deepEqual(rowsOf(ROWS), [3, 1, 10, 2], 'the input is not reordered');
});

test('text sorts case-insensitively and ties keep their order', () => {
  assert.deepEqual(rowsOf(sortRows(ROWS, COLS[3], 'ascending')), [10, 3, 1, 2]); // a, TELEGRAPH, The, Why
  const tied = [{ k: 'b', n: 1 }, { k: 'A', n: 2 }, { k: 'a', n: 3 }, { k: 'B', n: 4 }];
  assert.deepEqual(sortRows(tied, { key: 'k', label: 'k' }, 'ascending').map((r) => r.n), [2, 3, 1, 4]);
  assert.deepEqual(sortRows(tied, { key: 'k', label: 'k' }, 'descending').map((r) => r.n), [1, 4, 2, 3]);
});

test('the filter keeps rows holding every term, in any column, case-insensitive', () => {
  assert.deepEqual(rowsOf(filterRows(ROWS, '', COLS)), [3, 1, 10, 2]);
  assert.deepEqual(rowsOf(filterRows(ROWS, '  telegraph ', COLS)), [3]);
  assert.deepEqual(rowsOf(filterRows(ROWS, 'the run', COLS)), [1]); // both terms in row 1
  assert.deepEqual(rowsOf(filterRows(ROWS, 'the copper', COLS)), []); // "the" is not in row 2
  assert.deepEqual(rowsOf(filterRows(ROWS, 'record 7', COLS)), [3]); // a column's own text
  assert.deepEqual(rowsOf(filterRows(ROWS, 'a', COLS)), [3, 1, 10, 2]);
  assert.equal(textOf(COLS[1], ROWS[2]), '');
});

test('highlight pieces cut the text at UTF-16 spans and concatenate back to it', () => {
  const t = 'Q: how many Apples does Tom, the grocer, sell?';
  assert.deepEqual(markPieces(t, [[12, 27]]), [
    { text: 'Q: how many ', mark: false }, { text: 'Apples does Tom', mark: true }, { text: ', the grocer, sell?', mark: false }]);
  assert.deepEqual(markPieces('abc', []), [{ text: 'abc', mark: false }]);
  assert.deepEqual(markPieces('abc', [[0, 3]]), [{ text: 'abc', mark: true }]);
  assert.deepEqual(markPieces('', []), [{ text: '', mark: false }]);
  // unsorted, overlapping and out-of-range spans are clipped; empty ones dropped
  assert.deepEqual(markPieces('abcdef', [[4, 9], [1, 2], [1, 3], [5, 5]]), [
    { text: 'a', mark: false }, { text: 'b', mark: true }, { text: 'c', mark: true }, { text: 'd', mark: false }, { text: 'ef', mark: true }]);
  // Python's offsets for "🙂 ＡＢＣ def!\nghi" and the passage "abc def" (tests/py/test_highlight.py)
  const u = '🙂 ＡＢＣ def!\nghi';
  assert.deepEqual(markPieces(u, [[3, 11]]).filter((p) => p.mark).map((p) => p.text), ['ＡＢＣ def!']);
  for (const spans of [[[3, 11]], [[0, 2], [12, 15]]]) assert.equal(markPieces(u, spans).map((p) => p.text).join(''), u);
});
