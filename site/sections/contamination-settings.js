// @ts-check
// The contamination settings a person typed, checked before anything runs. No DOM:
// Node-tested in tests/js/site/contamination-settings.test.mjs.

import { ERR } from '../worker/protocol.js';

/**
 * Read N and the threshold as typed ('' = auto / any overlap), the boilerplate box and the
 * clean rule.
 *
 * Args: raw {n, threshold: strings, boilerplate: bool, clean?: a key of
 *   constants.clean_rules (default 'scored')}; constants: the rule constants from `ready`
 *   (n_min..n_max for N; the threshold in (threshold_min_exclusive, threshold_max]; the clean
 *   rules, Python's CLEAN_RULES).
 * Returns {n: int or null, boilerplate: bool, threshold: number or null, clean: string}.
 * Throws a bad_input error object naming the setting and the range it takes, so a bad value
 * fails here, before the training pass (ContaminationConfig refuses it too).
 * @param {{n: string, threshold: string, boilerplate: boolean, clean?: string}} raw @param {import('../worker/protocol.js').Constants} c
 */
export function parseSettings({ n: nRaw, threshold: tRaw, boilerplate, clean = 'scored' }, c) {
  const n = nRaw.trim() === '' ? null : Number(nRaw);
  const threshold = tRaw.trim() === '' ? null : Number(tRaw);
  if (n !== null && !(Number.isInteger(n) && n >= c.n_min && n <= c.n_max)) {
    throw { code: ERR.BAD_INPUT, message: `N must be a whole number from ${c.n_min} to ${c.n_max}, or empty for auto`, expected: `an integer from ${c.n_min} to ${c.n_max}` };
  }
  if (threshold !== null && !(threshold > c.threshold_min_exclusive && threshold <= c.threshold_max)) {
    throw { code: ERR.BAD_INPUT, message: `the threshold must be above ${c.threshold_min_exclusive} and at most ${c.threshold_max}, or empty for any overlap`, expected: `a number in (${c.threshold_min_exclusive}, ${c.threshold_max}]` };
  }
  const choices = Object.keys(c.clean_rules);
  if (!choices.includes(clean)) {
    throw { code: ERR.BAD_INPUT, message: `unknown clean rule ${JSON.stringify(clean)}`, expected: choices.join(' or ') };
  }
  return { n, boilerplate, threshold, clean };
}

/**
 * Read the semantic rung's code setting as typed.
 *
 * Args: raw {code_ngram: string ('' = Python's default)}; c: the rule constants from `ready`
 *   (semantic_code_ngram: {min, max, default}).
 * Returns {code_ngram: int}: the key of cont.start's `semantic` object (bridge.py
 *   _semantic_config), always sent, so the request says what runs (semantic.py
 *   SemanticConfig; the CLI's --semantic-code-ngram). The verifier has no other switch: its
 *   weights are fitted (semantic_verifier.py).
 * Throws a bad_input error object naming the setting and its range (SemanticConfig refuses
 *   the same values), so a bad value fails before the training pass.
 * @param {{code_ngram: string}} raw @param {import('../worker/protocol.js').Constants} c
 */
export function parseSemanticCode({ code_ngram: raw }, c) {
  const lo = c.semantic_code_ngram.min;
  const hi = c.semantic_code_ngram.max;
  const text = String(raw ?? '').trim();
  const n = text === '' ? c.semantic_code_ngram.default : Number(text);
  if (!(Number.isInteger(n) && n >= lo && n <= hi)) {
    throw { code: ERR.BAD_INPUT, message: `code shingles must be a whole number of tokens from ${lo} (off) to ${hi}, or empty for ${c.semantic_code_ngram.default}`, expected: `an integer from ${lo} to ${hi}` };
  }
  return { code_ngram: n };
}
