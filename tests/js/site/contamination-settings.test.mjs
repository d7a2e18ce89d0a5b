// site/sections/contamination-settings.js: N and the threshold take the ranges Python publishes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseSettings } from '../../../site/sections/contamination-settings.js';
import { ruleConstants } from '../../../site/lib/constants.js';
import { CONSTANTS } from '../constants.mjs';

const C = ruleConstants(CONSTANTS);
const read = (n, threshold = '') => parseSettings({ n, threshold, boilerplate: true }, C);
const refused = (fn) => { try { fn(); } catch (e) { return e; } return null; };

test('the ranges are Python\'s: N 1..1000, threshold in (0, 1]', () => {
  assert.deepEqual([C.n_min, C.n_max, C.threshold_min_exclusive, C.threshold_max], [1, 1000, 0, 1]);
});

test('the page refuses constants that lack a name it reads', () => {
  const { n_max, ...partial } = CONSTANTS; // eslint-disable-line no-unused-vars
  assert.throws(() => ruleConstants(partial), /lacks the rule constants n_max/);
});

test('empty means auto N and any overlap', () => {
  assert.deepEqual(read(''), { n: null, boilerplate: true, threshold: null, clean: 'scored' });
});

test('the clean rule is one of Python\'s CLEAN_RULES keys (ready.constants); anything else is refused', () => {
  assert.deepEqual(Object.keys(C.clean_rules), ['scored', 'not-contaminated']);
  const clean = (c) => parseSettings({ n: '', threshold: '', boilerplate: true, clean: c }, C).clean;
  assert.equal(clean('scored'), 'scored');
  assert.equal(clean('not-contaminated'), 'not-contaminated');
  const e = refused(() => clean('everything'));
  assert.equal(e.code, 'bad_input');
  assert.match(e.message, /unknown clean rule "everything"/);
  assert.equal(e.expected, 'scored or not-contaminated');
  // one source: a rule Python adds is accepted without a page change
  const more = { ...C, clean_rules: { ...C.clean_rules, everything: 'every row' } };
  assert.equal(parseSettings({ n: '', threshold: '', boilerplate: true, clean: 'everything' }, more).clean, 'everything');
});

test('N takes every whole number Python accepts (n_min..n_max), nothing else', () => {
  assert.equal(read('1').n, 1);
  assert.equal(read('64').n, 64);
  assert.equal(read('500').n, 500, 'Python accepts N up to 1000');
  assert.equal(read('1000').n, 1000);
  for (const bad of ['0', '1001', '2.5', 'abc', '-3']) {
    const e = refused(() => read(bad));
    assert.ok(e, `N=${bad} was accepted`);
    assert.equal(e.code, 'bad_input');
    assert.match(e.expected, /1\D+1000/);
  }
});

test('the threshold is in (threshold_min_exclusive, 1]: 0 is refused before any work starts', () => {
  assert.equal(read('', '0.5').threshold, 0.5);
  assert.equal(read('', '1').threshold, 1);
  for (const bad of ['0', '-0.1', '1.01', 'x']) {
    const e = refused(() => read('', bad));
    assert.ok(e, `threshold ${bad} was accepted`);
    assert.equal(e.code, 'bad_input');
  }
});
