// Reference scanner for bench_contamination.py: a plain JavaScript rolling-hash scanner.
//
// Not evalsieve's rule engine: a straightforward scanner written the way one would write it
// by hand, to measure against. For each JSONL line: JSON.parse, take the field; a value
// holding a non-ASCII character goes through the careful path first (String.normalize NFKC,
// toLowerCase, delete \p{P}); then one pass over its characters (an ASCII class table: white
// space, punctuation deleted, A-Z lowered) hashes each word (FNV-1a), a polynomial rolling
// hash of every window of N words is looked up in an open-addressing table (Int32Array) of
// the eval n-grams' hashes, and a hit is confirmed by comparing the window's words with the
// eval n-grams (a Set of strings). Every record is read to its end, so the counts of
// records per n-gram are exact and the boilerplate rule (GPT-3 App. C as evalsieve states
// it: an n-gram in more than max(10, ceil(0.001 x records)) records is dropped) can be
// applied. Prints one JSON line: bytes, seconds (wall, the scan), cpu_seconds (the scan),
// records, records_matched, contaminated (1-based eval rows with a matched n-gram).
//
//   node benchmarks/ref_scan.mjs EVAL.jsonl EVAL_FIELD TRAIN.jsonl TRAIN_FIELD N
import fs from 'node:fs';

const [evalPath, evalField, trainPath, trainField, nArg] = process.argv.slice(2);
const N = Number(nArg);
const PUNCT = /\p{P}/gu;
// Python's str.split() white space outside ASCII that NFKC leaves as it is
const WIDE_SPACE = new Set([0x85, 0x1680, 0x2028, 0x2029]);
const SPACE_RE = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const norm = (s) => s.normalize('NFKC').toLowerCase().replace(PUNCT, '');
const wordsOf = (s) => norm(s).split(SPACE_RE).filter(Boolean);
const wordHash = (w) => {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
  return h;
};
const MIX = 0x9e3779b1 | 0;
let top = 1;
for (let i = 0; i < N - 1; i++) top = Math.imul(top, MIX);

// eval n-grams: string -> id, id -> eval rows; window hashes in an open-addressing table
const gramId = new Map();
const gramRows = [];
const hashes = [];
let row = 0;
for (const line of fs.readFileSync(evalPath, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  row++;
  const v = JSON.parse(line)[evalField];
  const words = typeof v === 'string' ? wordsOf(v) : [];
  for (let i = 0; i + N <= words.length; i++) {
    let h = 0;
    for (let k = 0; k < N; k++) h = (Math.imul(h, MIX) + wordHash(words[i + k])) | 0;
    const g = words.slice(i, i + N).join(' ');
    let id = gramId.get(g);
    if (id === undefined) { id = gramRows.length; gramId.set(g, id); gramRows.push([]); hashes.push(h); }
    if (!gramRows[id].includes(row)) gramRows[id].push(row);
  }
}
let bits = 4;
while ((1 << bits) < 4 * hashes.length) bits++;
const MASK = (1 << bits) - 1;
const table = new Int32Array(1 << bits); // 0 = empty (a zero hash is stored as 1)
const key = (h) => (h === 0 ? 1 : h);
for (const h0 of hashes) {
  const h = key(h0);
  let at = Math.imul(h, 0x85ebca6b) >>> (32 - bits);
  while (table[at] !== 0 && table[at] !== h) at = (at + 1) & MASK;
  table[at] = h;
}
const probe = (h0) => {
  const h = key(h0);
  let at = Math.imul(h, 0x85ebca6b) >>> (32 - bits);
  for (;;) {
    const t = table[at];
    if (t === h) return true;
    if (t === 0) return false;
    at = (at + 1) & MASK;
  }
};

const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const fd = fs.openSync(trainPath, 'r');
const buf = Buffer.alloc(4 << 20);
const dec = new TextDecoder('utf-8', {fatal: true});
let carry = '', bytes = 0, records = 0, hits = 0;
// a class per UTF-16 code unit: 0 word, 1 white space (Python's str.split), 2 punctuation
// (\p{P}: deleted), 3 A-Z (lowered); astral characters (surrogate pairs) are words, and a
// value holding one gets the \p{P} regular expression instead
const CLASS = new Uint8Array(1 << 16);
for (const c of '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ') CLASS[c.charCodeAt(0)] = 1;
for (let c = 0x80; c < 0x10000; c++) {
  if (c >= 0xd800 && c < 0xe000) continue;
  const ch = String.fromCharCode(c);
  if (/\p{P}/u.test(ch)) CLASS[c] = 2;
  else if ((/\s/u.test(ch) && c !== 0xfeff) || WIDE_SPACE.has(c)) CLASS[c] = 1;
}
for (let c = 0; c < 0x80; c++) if (/\p{P}/u.test(String.fromCharCode(c))) CLASS[c] = 2;
for (let c = 65; c <= 90; c++) CLASS[c] = 3;
const NON_ASCII = /[^\x00-\x7f]/;
const ASTRAL = /[\ud800-\udfff]/;
const counts = new Int32Array(gramRows.length);
const seen = new Int32Array(gramRows.length); // record number that last counted each n-gram
let wh = new Int32Array(1 << 16), ws = new Int32Array(1 << 16), we = new Int32Array(1 << 16);
function scanLine(line) {
  if (!line.trim()) return;
  records++;
  let v = JSON.parse(line)[trainField];
  if (typeof v !== 'string') return;
  if (NON_ASCII.test(v)) {   // the careful path: NFKC and full lower case first
    v = v.normalize('NFKC').toLowerCase();
    if (ASTRAL.test(v)) v = v.replace(PUNCT, '');
  }
  if (v.length + 1 > wh.length) {
    wh = new Int32Array(2 * v.length + 2); ws = new Int32Array(wh.length); we = new Int32Array(wh.length);
  }
  // word hashes in one pass over the characters (punctuation deleted, A-Z lowered)
  let nw = 0, h = 0x811c9dc5 | 0, inWord = false;
  for (let i = 0; i < v.length; i++) {
    let c = v.charCodeAt(i);
    const k = CLASS[c];
    if (k === 1) {
      if (inWord) { wh[nw] = h; we[nw++] = i; inWord = false; }
      continue;
    }
    if (k === 2) continue;
    if (k === 3) c += 32;
    if (!inWord) { inWord = true; h = 0x811c9dc5 | 0; ws[nw] = i; }
    h = Math.imul(h ^ c, 0x01000193);
  }
  if (inWord) { wh[nw] = h; we[nw++] = v.length; }
  if (nw < N) return;
  let r = 0, matched = false;
  for (let k = 0; k < N; k++) r = (Math.imul(r, MIX) + wh[k]) | 0;
  for (let i = 0; ; i++) {
    if (probe(r)) {
      const words = [];
      for (let k = i; k < i + N; k++) words.push(norm(v.slice(ws[k], we[k])));
      const id = gramId.get(words.join(' '));
      if (id !== undefined && seen[id] !== records) { seen[id] = records; counts[id]++; matched = true; }
    }
    if (i + N >= nw) break;
    r = (Math.imul((r - Math.imul(wh[i], top)) | 0, MIX) + wh[i + N]) | 0;
  }
  if (matched) hits++;
}
for (;;) {
  const k = fs.readSync(fd, buf, 0, buf.length, null);
  if (!k) break;
  bytes += k;
  const text = carry + dec.decode(buf.subarray(0, k), {stream: true});
  const lines = text.split('\n');
  carry = lines.pop();
  for (const l of lines) scanLine(l);
}
scanLine(carry + dec.decode());
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const cu = process.cpuUsage(c0);
const cutoff = Math.max(10, Math.ceil(0.001 * records));
const dirty = new Set();
for (let id = 0; id < counts.length; id++) {
  if (counts[id] > 0 && counts[id] <= cutoff) for (const r of gramRows[id]) dirty.add(r);
}
console.log(JSON.stringify({bytes, seconds: secs, cpu_seconds: (cu.user + cu.system) / 1e6,
  records, records_matched: hits, contaminated: [...dirty].sort((a, b) => a - b)}));
