// @ts-check
// The exact rung's probes in the prefilter (evalsieve.exact): a record is a candidate when a
// segment's words are a probe of an eval row's key (a copy may hold no n-gram: its words split
// over two fields or chat turns, or fewer than N). Python publishes the probes' hash values
// (spec.exact.probes) and their hash (spec.exact.hash: prefilter.js's word hash and n-gram
// polynomial over a whole segment, plus its word count times count_mix, 0 stored as 1);
// prefilter.js and the kernel compute each segment's in the pass that hashes its windows.

// The filter's hash (prefilter.js's and kernels/prefilter.c's), from Python's spec
// (prefilter-spec.js, generated); a spec's exact.hash must still name the same.
import { COUNT_MIX, FNV_OFFSET, FNV_PRIME, MIX, PROBE_MUL } from './prefilter-spec.js';

export { FNV_OFFSET, FNV_PRIME, MIX };

/**
 * The probe table of a spec's `exact`, built once.
 *
 * Args: exact: PrefilterExact (protocol.js).
 * Returns: {exact: Int32Array (open addressing, 0 = empty), exactMask, exactProbe(words, eh)
 *   -> bool: is a segment of `words` words whose polynomial is `eh` a probe?}.
 * Throws: Error when `exact` is missing or its hash is not the filter's (Python's probes would
 *   not be the values the filter computes: copies would be dropped).
 * @param {import('./protocol.js').PrefilterExact | undefined} exact
 */
export function createExactProbes(exact) {
  const hash = exact?.hash;
  const want = { fnv_offset: FNV_OFFSET, fnv_prime: FNV_PRIME, mix: MIX, count_mix: COUNT_MIX };
  for (const [k, v] of Object.entries(want)) {
    const got = hash ? /** @type {Record<string, number>} */ (hash)[k] : undefined;
    if ((got ?? 0) !== v >>> 0) throw new Error(`the prefilter spec's exact.hash.${k} is not the filter's (${got})`);
  }
  if (!exact) throw new Error('the prefilter spec has no exact'); // (for the type check)
  let size = 2; // at least twice the probes: one lookup per segment
  while (size < exact.probes.length * 2) size <<= 1;
  const table = new Int32Array(size);
  const mask = size - 1;
  for (const v of exact.probes) {
    const x = v | 0;
    let k = (Math.imul(x, PROBE_MUL) >>> 0) & mask;
    while (table[k] !== 0 && table[k] !== x) k = (k + 1) & mask;
    table[k] = x;
  }
  /** @param {number} words @param {number} eh */
  function exactProbe(words, eh) {
    if (words === 0) return false;
    const x = ((eh + Math.imul(words, COUNT_MIX)) | 0) || 1;
    for (let k = (Math.imul(x, PROBE_MUL) >>> 0) & mask; ; k = (k + 1) & mask) {
      const v = table[k];
      if (v === x) return true;
      if (v === 0) return false;
    }
  }
  return { exact: table, exactMask: mask, exactProbe };
}
