// @ts-check
// A conservative candidate filter for the training pass, in front of the Python rule.
//
// Python (evalsieve.contamination) owns the rule: it alone decides what matches. This
// filter only decides which training records can be skipped because they provably hold
// no eval n-gram, so that most of a large training file never crosses into Pyodide.
//
// For a record it can read exactly (JSONL whose chosen fields are JSON strings, or a line of
// a text file, made of ASCII and the non-ASCII characters of Python's text.char_table) it
// applies the rule itself (ASCII: lowercase A-Z, delete punctuation, split on Python's white
// space; the others: their normalised text from the table) and looks up a
// rolling hash of every window of N words in a table of the eval n-grams' hashes. A record
// with a hit, or one it cannot read exactly (non-ASCII text, a number or boolean leaf,
// malformed JSON, anything else), is a *candidate* and goes to Python whole, with its
// record and line numbers. A hash collision only adds a candidate; a record holding an eval
// n-gram always hits, since equal words give equal hashes. So the filter can cost time,
// never results (tests/py/test_prefilter.py checks this against the pure-Python pass).
// A segment whose words are an exact-rung probe (prefilter-exact.js) makes its record a
// candidate too. No DOM: it runs in the worker and under Node for the tests.

import { createExactProbes } from './prefilter-exact.js';
// The rule's ASCII classes (0 = part of a word, 1 = white space (str.split()), 2 =
// punctuation (Unicode category P*: deleted), 3 = upper case (lowercased)), Python's
// str.isspace() set, MAX_JSON_DEPTH and the hash constants: generated from Python's spec.
import { CLASS, FNV_OFFSET, FNV_PRIME, MAX_JSON_DEPTH, MIX, PROBE_MUL, PY_SPACE } from './prefilter-spec.js';

// a line made only of Python's white space is blank (not a record)
const PY_BLANK = new RegExp(`^${PY_SPACE}*$`);

const PY_SPACE_G = new RegExp(PY_SPACE, 'g');

const EXT_NONE = -1;
const EXT_GONE = -2;
const EXT_MANY = -3;


function powMix(/** @type {number} */ e) {
  let r = 1;
  for (let i = 0; i < e; i++) r = Math.imul(r, MIX);
  return r;
}

/** More than `limit` '{' and '[' in `s`? @param {string} s @param {number} limit */
function bracketsOver(s, limit) {
  let n = 0;
  for (const b of ['{', '[']) {
    for (let i = s.indexOf(b); i !== -1; i = s.indexOf(b, i + 1)) if (++n > limit) return true;
  }
  return false;
}

/** FNV-1a of one already-normalised word's UTF-16 code units (32-bit). @param {string} word */
function wordHash(word) {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * Build a filter.
 *
 * Args: spec = {n, ngrams: [string] (normalised words joined by one space), format:
 *   'jsonl'|'text', paths: [[step, ...]] (field paths split into keys and '[]'),
 *   chars: {code: normalised text} (text.char_table), exact: PrefilterExact (protocol.js)}.
 * Returns: {scan(text, state) -> {candidates: [[record, line, raw]], records, lines},
 *   segmentHits, tables: {n, top, table, mask, bits, extCode, extText, exact, exactMask}
 *   (prefilter-wasm.js)}. Throws when spec.exact is missing or not this filter's hash. @param {import('./protocol.js').PrefilterSpec} spec
 */
export function createPrefilter(spec) {
  const n = spec.n | 0;
  const top = powMix(n - 1);
  const { exact, exactMask, exactProbe } = createExactProbes(spec.exact);
  // open-addressing table of n-gram hashes (0 marks empty; a real 0 is stored as 1)
  let size = 1;
  while (size < spec.ngrams.length * 4) size <<= 1;
  const table = new Int32Array(size);
  // A blocked Bloom filter (128 KiB, cache-resident; kernels/prefilter.c bloom_bits): a
  // 32-bit word by the top 15 bits of the probe hash, two bits of it by bits 12-16 and
  // 7-11. Most windows miss here and never touch the big table.
  const bits = new Int32Array(1 << 15);
  const bloom = (/** @type {number} */ p) => (1 << ((p >>> 12) & 31)) | (1 << ((p >>> 7) & 31));
  const mask = size - 1;
  const fix = (/** @type {number} */ h) => (h === 0 ? 1 : h);
  for (const g of spec.ngrams) {
    const words = g.split(' ');
    let h = 0;
    for (const w of words) h = (Math.imul(h, MIX) + wordHash(w)) | 0;
    h = fix(h);
    let k = (Math.imul(h, PROBE_MUL) >>> 0) & mask;
    while (table[k] !== 0 && table[k] !== h) k = (k + 1) & mask;
    table[k] = h;
    const p = Math.imul(h, PROBE_MUL);
    bits[p >>> 17] |= bloom(p);
  }
  const ring = new Int32Array(Math.max(n, 1));
  // Non-ASCII characters Python says can be normalised one by one (text.char_table), by
  // UTF-16 code unit: EXT_ONE[c] >= 0 is the one code unit it becomes, EXT_GONE deletes it,
  // EXT_MANY reads extText[c] (Python white space in it as ' '); EXT_NONE (any other
  // character, and every surrogate) defers the record to Python.
  const extCode = new Int32Array(0x10000).fill(EXT_NONE);
  const extText = new Map();
  for (const [k, v] of Object.entries(spec.chars || {})) {
    const c = Number(k);
    if (c < 128 || c > 0xffff) continue; // a code point above U+FFFF is never one code unit
    const r = v.replace(PY_SPACE_G, ' ');
    if (r.length === 0) extCode[c] = EXT_GONE;
    else if (r.length === 1) extCode[c] = r.charCodeAt(0);
    else { extCode[c] = EXT_MANY; extText.set(c, r); }
  }

  /** Is the window hash `roll` (of n words) in the table? @param {number} roll */
  function probe(roll) {
    const x = roll === 0 ? 1 : roll;
    const p = Math.imul(x, PROBE_MUL);
    const want = bloom(p);
    if ((bits[p >>> 17] & want) !== want) return false; // surely not there
    for (let k = (p >>> 0) & mask; ; k = (k + 1) & mask) {
      const v = table[k];
      if (v === x) return true;
      if (v === 0) return false;
    }
  }

  /** segmentHits for an all-ASCII segment (the common case): the same words, hashes and
   *  windows, without the replacement bookkeeping; at the first non-ASCII character the
   *  general loop goes on from there with this loop's state. @param {string} s @returns {boolean | null} */
  function segmentHits(s) {
    let words = 0;
    let slot = 0;
    let roll = 0;
    let eh = 0; // the whole segment's polynomial (the exact-key probe)
    let h = FNV_OFFSET;
    let inWord = false;
    const len = s.length;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 128) return segmentHitsAny(s, i, words, slot, roll, eh, h, inWord);
      const cls = CLASS[c];
      if (cls === 0) { h = Math.imul(h ^ c, FNV_PRIME); inWord = true; continue; }
      if (cls === 3) { h = Math.imul(h ^ (c + 32), FNV_PRIME); inWord = true; continue; }
      if (cls === 2 || !inWord) continue;
      if (words >= n) roll = (roll - Math.imul(ring[slot], top)) | 0;
      roll = (Math.imul(roll, MIX) + h) | 0;
      eh = (Math.imul(eh, MIX) + h) | 0;
      ring[slot] = h;
      slot = slot + 1 === n ? 0 : slot + 1;
      words++;
      inWord = false;
      h = FNV_OFFSET;
      if (words >= n && probe(roll)) return true;
    }
    if (!inWord) return exactProbe(words, eh);
    // the last word ends with the segment (the general loop's trailing ' ')
    if (words >= n) roll = (roll - Math.imul(ring[slot], top)) | 0;
    roll = (Math.imul(roll, MIX) + h) | 0;
    eh = (Math.imul(eh, MIX) + h) | 0;
    return (words + 1 >= n && probe(roll)) || exactProbe(words + 1, eh);
  }

  /** true when a segment has a window whose hash is in the table; null when it meets a
   *  character outside the table first (Python decides); else false. Goes on from index
   *  `i` with the state segmentHits reached there (all 0 / FNV_OFFSET / false: from the
   *  start; eh: the exact-key polynomial, a probe at the end is a hit too). @param {string} s @param {number} i @param {number} words @param {number} slot @param {number} roll @param {number} eh @param {number} h @param {boolean} inWord @returns {boolean | null} */
  function segmentHitsAny(s, i, words, slot, roll, eh, h, inWord) {
    // Per character one class lookup and, inside a word, one FNV-1a step; per word end one
    // rolling-hash update and one table probe. A non-ASCII character is read as its table
    // text, in the same pass (no copy of the segment).
    let rep = ''; // the rest of a many-unit replacement being read, from index j
    let j = 0;
    const len = s.length;
    for (; i <= len;) {
      let c;
      if (j < rep.length) {
        c = rep.charCodeAt(j++);
      } else {
        c = i < len ? s.charCodeAt(i) : 32;
        i++;
        if (c >= 128) {
          const m = extCode[c];
          if (m >= 0) c = m;
          else if (m === EXT_GONE) continue;
          else if (m === EXT_MANY) { rep = extText.get(c); j = 0; continue; }
          else return null; // a character outside the table: Python decides
        }
      }
      const cls = c < 128 ? CLASS[c] : 0; // table text beyond ASCII is word characters
      if (cls === 0) { h = Math.imul(h ^ c, FNV_PRIME); inWord = true; continue; }
      if (cls === 3) { h = Math.imul(h ^ (c + 32), FNV_PRIME); inWord = true; continue; }
      if (cls === 2 || !inWord) continue; // punctuation is deleted; repeated white space
      // a word ended: roll it into the window of the last n words
      if (words >= n) roll = (roll - Math.imul(ring[slot], top)) | 0;
      roll = (Math.imul(roll, MIX) + h) | 0;
      eh = (Math.imul(eh, MIX) + h) | 0;
      ring[slot] = h;
      slot = slot + 1 === n ? 0 : slot + 1;
      words++;
      inWord = false;
      h = FNV_OFFSET;
      if (words >= n && probe(roll)) return true;
    }
    return exactProbe(words, eh);
  }

  // Field walk, as evalsieve.fields._walk: strings are segments; any other leaf -> unsure.
  // A filter step (["=", key, value], from a path such as messages[role=user].content) reads
  // every element of the list, as '[]' does: a superset of the elements Python keeps.
  function collect(/** @type {any} */ v, /** @type {any[]} */ steps, /** @type {number} */ i, /** @type {string[]} */ out) {
    if (i === steps.length) {
      if (v === null || v === undefined) return true;
      if (typeof v === 'string') { if (v) out.push(v); return true; }
      if (typeof v === 'object') return true; // a dict or list at a leaf path: no text
      return false; // number/boolean: Python prints it its own way: let Python decide
    }
    const s = steps[i];
    if (s === '[]' || Array.isArray(s)) {
      if (Array.isArray(v)) for (const x of v) if (!collect(x, steps, i + 1, out)) return false;
      return true;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, s)) {
      return collect(v[s], steps, i + 1, out);
    }
    return true;
  }

  /** Is this record (one non-blank line) a candidate? @param {string} line */
  function isCandidate(line) {
    /** @type {string[]} */ let segs;
    if (spec.format === 'text') {
      segs = [line.replace(/[\r\n]+$/, '')]; // as Python's raw.rstrip("\r\n")
    } else {
      // Python refuses JSON nested deeper than records.MAX_JSON_DEPTH: let it see any line
      // with that many brackets (a cheap count: indexOf, stopping at one more)
      if (line.length > MAX_JSON_DEPTH && bracketsOver(line, MAX_JSON_DEPTH)) return true;
      let v;
      try { v = JSON.parse(line); } catch { return true; }
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return true;
      segs = [];
      for (const steps of spec.paths) if (!collect(v, steps, 0, segs)) return true;
    }
    for (const s of segs) {
      const hit = segmentHits(s);
      if (hit !== false) return true; // a hit, or not ASCII
    }
    return false;
  }

  /**
   * Filter one chunk of complete lines (the last may lack its newline only at the end of
   * the file). `state` = {records, lines} carried across chunks (both start at 0). @param {string} text @param {{records: number, lines: number}} state @returns {[number, number, string][]} */
  function scan(text, state) {
    const candidates = /** @type {[number, number, string][]} */ ([]);
    let records = state.records;
    let lines = state.lines;
    let start = 0;
    const len = text.length;
    while (start < len) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = len;
      const line = text.slice(start, end);
      lines++;
      start = end + 1;
      if (PY_BLANK.test(line)) continue;
      records++;
      if (isCandidate(line)) candidates.push([records, lines, line]);
    }
    state.records = records;
    state.lines = lines;
    return candidates;
  }

  // the tables, for the WebAssembly kernel (prefilter-wasm.js): one place builds them
  const tables = { n, top, table, mask, bits, extCode, extText, exact, exactMask };
  return { scan, segmentHits, tables };
}

/**
 * Filter one chunk on its own, numbering its records and lines from 1 (the pool's unit of
 * work: a chunk's answer does not depend on any other chunk; prefilter-client.js adds the
 * records and lines of the chunks before it, in the order they were read).
 *
 * Args: pf = createPrefilter(spec); text = complete lines (see scan).
 * Returns: ChunkScan (protocol.js): {records, lines} of the candidates (chunk-local, 1-based),
 *   text (their lines joined by '\n'), records_in / lines_in (the chunk's records and lines),
 *   chars (text.length), ms (time spent here).
 * @param {ReturnType<typeof createPrefilter>} pf @param {string} text @returns {import('./protocol.js').ChunkScan}
 */
export function scanChunk(pf, text) {
  const t0 = typeof performance === 'undefined' ? 0 : performance.now();
  const state = { records: 0, lines: 0 };
  const c = pf.scan(text, state);
  return {
    records: c.map((x) => x[0]),
    lines: c.map((x) => x[1]),
    text: c.map((x) => x[2]).join('\n'),
    records_in: state.records,
    lines_in: state.lines,
    chars: text.length,
    ms: typeof performance === 'undefined' ? 0 : performance.now() - t0,
  };
}
