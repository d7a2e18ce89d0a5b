// worker/embed/window.js tokenizeWithWindow under Node with a stand-in tokenizer (a word of k
// letters is ceil(k / 4) pieces): a truncated row says where its window ended, at the end of
// the last word whose pieces all fit (hand-counted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenizeWithWindow, windowEnd } from '../../worker/embed/window.js';

const tok = {
  encode: (text) => ({ ids: text.split(/\s+/).filter(Boolean).flatMap((w) => Array.from({ length: Math.ceil(w.length / 4) }, () => 7)) }),
};

test('the window ends after the last word that fits, as a UTF-16 offset', () => {
  const text = 'aa bbbbbbb cc dddddddd ee';   // pieces 1, 2, 1, 2, 1 = 7 in all
  assert.equal(windowEnd(tok, text, 4), 13);  // "aa bbbbbbb cc": 4 pieces; "dddddddd" needs 2 more
  assert.equal(windowEnd(tok, text, 5), 13);  // 5: still not the whole of "dddddddd"
  assert.equal(windowEnd(tok, text, 6), 22);
  assert.equal(windowEnd(tok, 'bbbbbbbb', 1), 0); // not even the first word
  assert.equal(windowEnd(tok, '😀😀😀 aa', 1), 0); // an emoji is 2 UTF-16 units: 6 units, 2 pieces
  assert.equal(windowEnd(tok, '😀 aa bb', 2), 5);
});

test('tokenizeWithWindow lists each truncated row with its window end', () => {
  // window 6 = 4 pieces + [CLS] + [SEP]
  const r = tokenizeWithWindow(tok, ['aa bb', 'aa bbbbbbb cc dddddddd ee', 'x'], 6, 101, 102);
  assert.equal(r.truncated, 1);
  assert.deepEqual(r.cuts, [[1, 13]]);
  assert.deepEqual(r.ids[1], [101, 7, 7, 7, 7, 102]);
});
