// @ts-check
// purify's settings as a person typed them, checked before anything runs, and whether the
// page can clean a run's training file at all. No DOM: Node-tested in
// tests/js/site/purify-settings.test.mjs. The choices, ranges and defaults are Python's
// (ready.constants.purify, from py/evalsieve/purify.py); PurifyConfig refuses the same.

import { ERR } from '../worker/protocol.js';

/**
 * Read the purify settings.
 *
 * Args: raw {mode, rows, self_check: strings (choices), radius, min_piece, max_splits:
 *   strings as typed ('' = Python's default)}; c: the rule constants (c.purify: {modes,
 *   rows, self_checks, radius, min_piece, max_splits: {min, max, default}}).
 * Returns {mode, rows, self_check, radius, min_piece, max_splits}: purify.run's `purify`.
 * Throws a bad_input error object naming the setting and what it takes.
 * @param {Record<string, string | undefined>} raw @param {import('../worker/protocol.js').Constants} c @returns {Record<string, string | number>}
 */
export function parsePurifySettings(raw, c) {
  const p = c.purify;
  /** @type {Record<string, string | number>} */
  const out = {};
  for (const [key, choices, what] of /** @type {[string, string[], string][]} */ ([['mode', p.modes, 'mode'], ['rows', Object.keys(p.rows), 'rows that count'], ['self_check', p.self_checks, 'self-check']])) {
    const v = raw[key] ?? choices[0];
    if (!choices.includes(v)) throw { code: ERR.BAD_INPUT, message: `unknown ${what} ${JSON.stringify(v)}`, expected: choices.join(' or ') };
    out[key] = v;
  }
  for (const [key, what] of /** @type {['radius' | 'min_piece' | 'max_splits', string][]} */ ([['radius', 'R (characters each side of a match)'], ['min_piece', 'the minimum piece'], ['max_splits', 'the maximum splits']])) {
    const { min, max, default: dflt } = p[key];
    const text = String(raw[key] ?? '').trim();
    const n = text === '' ? dflt : Number(text);
    if (!(Number.isInteger(n) && n >= min && n <= max)) {
      throw { code: ERR.BAD_INPUT, message: `${what} must be a whole number from ${min} to ${max}, or empty for ${dflt}`, expected: `an integer from ${min} to ${max}` };
    }
    out[key] = n;
  }
  return out;
}

/**
 * Why the page cannot clean a run's training file, or null when it can.
 * run: {corpus: files in the run's training corpus, trainFormat: the sniffed format}.
 * @param {{corpus: number, trainFormat: string | undefined}} run
 */
export function purifyRefusal({ corpus, trainFormat }) {
  if (corpus > 1) return `The run read ${corpus} training files; the page cleans one. For a corpus: evalsieve purify EVAL TRAIN... --out DIR.`;
  if (trainFormat === 'parquet') return 'The page does not clean Parquet training files (it cannot write them back row group by row group). For Parquet: evalsieve purify EVAL TRAIN --out DIR.';
  return null;
}
