// site/lib/table-rows.js (ui/data-table.js's pure parts): highlight pieces and cell text
// (hand-worked values). Sorting and filtering of result tables is Python's
// (py/evalsieve/result_table.py, tests/py/test_result_table.py).
import test from 'node:test';
import assert from 'node:assert/strict';
import { markPieces, textOf } from '../../../site/lib/table-rows.js';

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
