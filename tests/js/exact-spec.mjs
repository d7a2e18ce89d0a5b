// The prefilter spec's `exact` (the exact rung's probes) for hand-made specs in the tests: a
// test oracle of evalsieve.exact.prefilter_exact (Python defines it and publishes it in
// cont.prefilter_spec; prefilter-wasm.test.mjs checks this copy against Python's values).

/** evalsieve.exact.HASH */
export const HASH = Object.freeze({ fnv_offset: 0x811c9dc5, fnv_prime: 0x01000193, mix: 0x9e3779b1, count_mix: 0x85ebca6b });

/** No key: the spec of an eval set whose exact rung a test does not exercise. */
export const NO_EXACT = Object.freeze({ hash: HASH, probes: [], scalar_only: false });

const SCALAR = /^(?:[0-9]+(?:e\+?[0-9]+)?|true|false|nan|infinity)$/;

/** evalsieve.exact.word_hash: FNV-1a over UTF-16 code units (uint32). */
function wordHash(w) {
  let h = HASH.fnv_offset | 0;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), HASH.fnv_prime);
  return h;
}

/** evalsieve.exact.segment_probe of a list of normalised words (uint32). */
export function segmentProbe(words) {
  let h = 0;
  for (const w of words) h = (Math.imul(h, HASH.mix | 0) + wordHash(w)) | 0;
  return (((h + Math.imul(words.length, HASH.count_mix | 0)) | 0) >>> 0) || 1;
}

/** evalsieve.exact.prefilter_exact: keys are normalised words joined by one space. */
export function exactFor(keys, format) {
  const probes = new Set();
  for (const key of keys) {
    const words = key.split(' ').filter(Boolean);
    if (format === 'text') { probes.add(segmentProbe(words)); continue; }
    const starts = [0];
    for (let m = 1; m < words.length && SCALAR.test(words[m - 1]); m++) starts.push(m);
    for (const m of starts) for (let k = 1; k <= words.length - m; k++) probes.add(segmentProbe(words.slice(m, m + k)));
  }
  return { hash: HASH, probes: [...probes].sort((a, b) => a - b), scalar_only: keys.some((k) => k.split(' ').every((w) => SCALAR.test(w))) };
}
