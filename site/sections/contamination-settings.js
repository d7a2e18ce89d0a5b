// The contamination settings a person typed, checked before anything runs. No DOM:
// Node-tested in tests/js/site/contamination-settings.test.mjs.

import { ERR } from '../worker/protocol.js';

/**
 * Read N and the threshold as typed ('' = auto / any overlap) and the boilerplate box.
 * Returns {n: int or null, boilerplate: bool, threshold: number or null}.
 * Throws a bad_input error object naming the setting and the range it takes.
 */
export function parseSettings({ n: nRaw, threshold: tRaw, boilerplate }, constants) { // eslint-disable-line no-unused-vars
  const n = nRaw.trim() === '' ? null : Number(nRaw);
  const threshold = tRaw.trim() === '' ? null : Number(tRaw);
  if (n !== null && (!Number.isInteger(n) || n < 1)) throw { code: ERR.BAD_INPUT, message: 'N must be a whole number ≥ 1, or empty for auto', expected: 'an integer ≥ 1' };
  if (threshold !== null && !(threshold >= 0 && threshold <= 1)) throw { code: ERR.BAD_INPUT, message: 'the threshold must be between 0 and 1, or empty for any overlap', expected: 'a number in [0, 1]' };
  return { n, boilerplate, threshold };
}
