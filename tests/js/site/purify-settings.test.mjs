// site/sections/purify-settings.js: purify's choices, ranges and defaults are Python's
// (ready.constants.purify); a corpus or a Parquet training file is refused in words.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parsePurifySettings, purifyRefusal } from '../../../site/sections/purify-settings.js';
import { ruleConstants } from '../../../site/lib/constants.js';
import { CONSTANTS } from '../constants.mjs';

const C = ruleConstants(CONSTANTS);
const read = (raw) => parsePurifySettings(raw, C);
const refused = (fn) => { try { fn(); } catch (e) { return e; } return null; };

test('empty settings are Python\'s defaults: cut, R 200, pieces of 200, 10 splits, scored rows, changed-records self-check', () => {
  assert.deepEqual(read({ radius: '', min_piece: '', max_splits: '' }),
    { mode: 'cut', rows: 'scored', self_check: 'changed', radius: 200, min_piece: 200, max_splits: 10 });
});

test('every choice Python lists is taken, anything else is refused naming the choices', () => {
  assert.equal(read({ mode: 'drop' }).mode, 'drop');
  assert.equal(read({ rows: 'contaminated' }).rows, 'contaminated');
  assert.equal(read({ self_check: 'full' }).self_check, 'full');
  const e = refused(() => read({ mode: 'shred' }));
  assert.equal(e.code, 'bad_input');
  assert.match(e.message, /unknown mode "shred"/);
  assert.equal(e.expected, 'cut or drop');
  assert.equal(refused(() => read({ rows: 'all' })).expected, 'scored or contaminated');
});

test('the numbers take whole numbers from 0 to Python\'s maximum, nothing else', () => {
  assert.deepEqual(read({ radius: '0', min_piece: '0', max_splits: '0' }), { mode: 'cut', rows: 'scored', self_check: 'changed', radius: 0, min_piece: 0, max_splits: 0 });
  assert.equal(read({ radius: String(C.purify.radius.max) }).radius, 1e9);
  for (const [key, bad] of [['radius', '-1'], ['radius', '2.5'], ['min_piece', 'not a number'], ['max_splits', String(1e9 + 1)]]) {
    const e = refused(() => read({ [key]: bad }));
    assert.equal(e && e.code, 'bad_input', `${key} = ${bad}`);
    assert.equal(e.expected, 'an integer from 0 to 1000000000');
  }
  // one source: a range Python changes needs no page change
  const narrow = { ...C, purify: { ...C.purify, max_splits: { min: 1, max: 5, default: 3 } } };
  assert.equal(parsePurifySettings({ max_splits: '' }, narrow).max_splits, 3);
  assert.match(refused(() => parsePurifySettings({ max_splits: '0' }, narrow)).message, /from 1 to 5, or empty for 3/);
});

test('a corpus of several files and a Parquet training file are refused in words; one text file is not', () => {
  assert.equal(purifyRefusal({ corpus: 1, trainFormat: 'jsonl' }), null);
  assert.equal(purifyRefusal({ corpus: 1, trainFormat: 'csv' }), null);
  assert.match(purifyRefusal({ corpus: 3, trainFormat: 'jsonl' }), /3 training files; the page cleans one.*evalsieve purify/);
  assert.match(purifyRefusal({ corpus: 1, trainFormat: 'parquet' }), /does not clean Parquet.*evalsieve purify/);
});
