// site/sections/contamination-settings.js parseSemanticCode: the semantic rung's code settings
// (site/sections/semantic-settings.js) take Python's range.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseSemanticCode } from '../../../site/sections/contamination-settings.js';
import { ruleConstants } from '../../../site/lib/constants.js';
import { CONSTANTS } from '../constants.mjs';

const C = ruleConstants(CONSTANTS);
const read = (code_ngram, docstring_cosine = true) => parseSemanticCode({ code_ngram, docstring_cosine }, C);
const refused = (fn) => { try { fn(); } catch (e) { return e; } return null; };

test('the range and default are Python\'s: 0 (off) .. 8, default 3', () => {
  assert.deepEqual(C.semantic_code_ngram, { min: 0, max: 8, default: 3 });
});

test('empty means the default; both keys are always sent', () => {
  assert.deepEqual(read(''), { code_ngram: 3, docstring_cosine: true, code_margin: 0.25, explain_away: true });
  assert.deepEqual(read(' 5 ', false), { code_ngram: 5, docstring_cosine: false, code_margin: 0.25, explain_away: true });
});

test('every whole number from 0 to 8 is taken, nothing else', () => {
  for (let n = 0; n <= 8; n += 1) assert.equal(read(String(n)).code_ngram, n);
  for (const bad of ['-1', '9', '2.5', 'abc', '1e9']) {
    const e = refused(() => read(bad));
    assert.ok(e, `code_ngram ${bad} was accepted`);
    assert.equal(e.code, 'bad_input');
    assert.equal(e.expected, 'an integer from 0 to 8');
    assert.match(e.message, /code shingles must be a whole number of tokens from 0 \(off\) to 8/);
  }
});

test('the range follows the constants (one source)', () => {
  const wider = { ...C, semantic_code_ngram: { min: 0, max: 12, default: 4 } };
  assert.equal(parseSemanticCode({ code_ngram: '12', docstring_cosine: true }, wider).code_ngram, 12);
  assert.equal(parseSemanticCode({ code_ngram: '', docstring_cosine: true }, wider).code_ngram, 4);
});

test('the code margin: Python\'s range 0 (off) .. 1, default 0.25; explain away passed as a boolean', () => {
  assert.deepEqual(C.semantic_code_margin, { min: 0, max: 1, default: 0.25 });
  const all = (code_margin, explain_away) => parseSemanticCode({ code_ngram: '', docstring_cosine: true, code_margin, explain_away }, C);
  assert.deepEqual(all('', true), { code_ngram: 3, docstring_cosine: true, code_margin: 0.25, explain_away: true });
  assert.deepEqual(all(' 0.5 ', false), { code_ngram: 3, docstring_cosine: true, code_margin: 0.5, explain_away: false });
  assert.equal(all('0', true).code_margin, 0);
  assert.equal(all('1', true).code_margin, 1);
  for (const bad of ['-0.1', '1.05', 'abc', 'not a number', 'NaN', 'Infinity']) {
    const e = refused(() => all(bad, true));
    assert.ok(e, `code_margin ${bad} was accepted`);
    assert.equal(e.code, 'bad_input');
    assert.equal(e.expected, 'a number from 0 to 1');
    assert.equal(e.message, 'the code margin must be a weight from 0 (off) to 1, or empty for 0.25');
  }
});
