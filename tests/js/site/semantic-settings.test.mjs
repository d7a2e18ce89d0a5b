// site/sections/contamination-settings.js parseSemanticCode: the semantic rung's code settings
// (site/sections/semantic-settings.js) take Python's range.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseSemanticCode } from '../../../site/sections/contamination-settings.js';
import { ruleConstants } from '../../../site/lib/constants.js';
import { CONSTANTS } from '../constants.mjs';

const C = ruleConstants(CONSTANTS);
const read = (code_ngram) => parseSemanticCode({ code_ngram }, C);
const refused = (fn) => { try { fn(); } catch (e) { return e; } return null; };

test('the range and default are Python\'s: 0 (off) .. 8, default 3', () => {
  assert.deepEqual(C.semantic_code_ngram, { min: 0, max: 8, default: 3 });
});

test('empty means the default; the key is always sent, and no other', () => {
  assert.deepEqual(read(''), { code_ngram: 3 });
  assert.deepEqual(read(' 5 '), { code_ngram: 5 });
  assert.ok(!('semantic_code_margin' in C), 'the code margin is a fitted weight, not a setting');
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
  assert.equal(parseSemanticCode({ code_ngram: '12' }, wider).code_ngram, 12);
  assert.equal(parseSemanticCode({ code_ngram: '' }, wider).code_ngram, 4);
});
