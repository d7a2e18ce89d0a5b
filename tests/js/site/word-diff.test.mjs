// site/lib/word-diff.js: the words two texts do not share (hand-worked examples).
import test from 'node:test';
import assert from 'node:assert/strict';
import { wordDiff } from '../../../site/lib/word-diff.js';

const marked = (text, spans) => spans.map(([a, b]) => text.slice(a, b));

test('one word differs: only it is marked, in each text', () => {
  const a = 'Which of the following is true?', b = 'Which of the following is false?';
  const d = wordDiff(a, b);
  assert.deepEqual(d, { a: [[26, 31]], b: [[26, 32]] }); // "Which of the following is " is 26 units
  assert.deepEqual(marked(a, d.a), ['true?']);
  assert.deepEqual(marked(b, d.b), ['false?']);
});

test('insertions and a changed middle; case is ignored; adjacent words make one span', () => {
  const a = 'How do I reset my password?', b = 'how do I quickly reset my old account password?';
  const d = wordDiff(a, b);
  assert.deepEqual(d.a, []);
  assert.deepEqual(marked(b, d.b), ['quickly', 'old account']);
  assert.deepEqual(wordDiff('same words here', 'same words here'), { a: [], b: [] });
  assert.deepEqual(marked('x y', wordDiff('x y', 'p q').a), ['x y']);
});

test('past the size limit the common ends are kept and the middles marked', () => {
  const mid = (k) => Array.from({ length: 800 }, (_, i) => `w${k}${i}`).join(' ');
  const a = `start here ${mid('a')} end`, b = `start here ${mid('b')} end`;
  const d = wordDiff(a, b);
  assert.equal(d.a.length, 1);
  assert.equal(marked(a, d.a)[0], mid('a'));
  assert.equal(marked(b, d.b)[0], mid('b'));
});
