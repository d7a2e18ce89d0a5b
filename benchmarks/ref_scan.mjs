// Reference scanner for bench_contamination.py: a plain JavaScript rolling-hash scanner.
//
// Not evalsieve's rule engine: a straightforward scanner written the way one would write it
// by hand, to measure against. For each JSONL line: JSON.parse, take the field, lowercase,
// delete punctuation (\p{P}, NFKC only for non-ASCII text), split on white space, a rolling
// polynomial hash of every window of N words looked up in a Map of the eval n-grams'
// hashes, confirmed by comparing the words. Prints one JSON line: bytes, seconds, records,
// records with a match. ASCII text is read one character at a time (a class table, no
// regular expression); other text goes through String.normalize and a \p{P} replace.
//
//   node benchmarks/ref_scan.mjs EVAL.jsonl EVAL_FIELD TRAIN.jsonl TRAIN_FIELD N
import fs from 'node:fs';

const [evalPath, evalField, trainPath, trainField, nArg] = process.argv.slice(2);
const N = Number(nArg);
const PUNCT = /\p{P}/gu;
const norm = (s) => {
  if (!/^[\x00-\x7f]*$/.test(s)) s = s.normalize('NFKC');
  return s.toLowerCase().replace(PUNCT, '');
};
const wordHash = (w) => {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
  return h;
};
const MIX = 0x9e3779b1 | 0;
let top = 1;
for (let i = 0; i < N - 1; i++) top = Math.imul(top, MIX);

const grams = new Map(); // hash -> [joined n-gram]
for (const line of fs.readFileSync(evalPath, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const words = norm(String(JSON.parse(line)[evalField] ?? '')).split(/\s+/).filter(Boolean);
  for (let i = 0; i + N <= words.length; i++) {
    let h = 0;
    for (let k = 0; k < N; k++) h = (Math.imul(h, MIX) + wordHash(words[i + k])) | 0;
    const g = words.slice(i, i + N).join(' ');
    const list = grams.get(h);
    if (!list) grams.set(h, [g]); else if (!list.includes(g)) list.push(g);
  }
}

const t0 = process.hrtime.bigint();
const fd = fs.openSync(trainPath, 'r');
const buf = Buffer.alloc(4 << 20);
const dec = new TextDecoder('utf-8', {fatal: true});
let carry = '', bytes = 0, records = 0, hits = 0;
const CLASS = new Uint8Array(128); // 0 word, 1 space, 2 punctuation, 3 upper case
for (const c of '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ') CLASS[c.charCodeAt(0)] = 1;
for (const c of '!"#%&\'()*,-./:;?@[\\]_{}') CLASS[c.charCodeAt(0)] = 2;
for (let c = 65; c <= 90; c++) CLASS[c] = 3;
const NON_ASCII = /[^\x00-\x7f]/;
const wh = new Int32Array(1 << 16), ws = new Int32Array(1 << 16), we = new Int32Array(1 << 16);
function scanLine(line) {
  if (!line.trim()) return;
  records++;
  let v = JSON.parse(line)[trainField];
  if (typeof v !== 'string') return;
  if (NON_ASCII.test(v)) v = v.normalize('NFKC').toLowerCase().replace(PUNCT, '');
  // word hashes in one pass over the characters (punctuation deleted, A-Z lowered)
  let nw = 0, h = 0x811c9dc5 | 0, inWord = false, low = '';
  for (let i = 0; i < v.length; i++) {
    let c = v.charCodeAt(i);
    const k = c < 128 ? CLASS[c] : 0;
    if (k === 1) {
      if (inWord) { wh[nw] = h; we[nw++] = i; inWord = false; if (nw === wh.length) break; }
      continue;
    }
    if (k === 2) continue;
    if (k === 3) c += 32;
    if (!inWord) { inWord = true; h = 0x811c9dc5 | 0; ws[nw] = i; }
    h = Math.imul(h ^ c, 0x01000193);
  }
  if (inWord && nw < wh.length) { wh[nw] = h; we[nw++] = v.length; }
  if (nw < N) return;
  let r = 0;
  for (let k = 0; k < N; k++) r = (Math.imul(r, MIX) + wh[k]) | 0;
  for (let i = 0; ; i++) {
    const list = grams.get(r);
    if (list) {
      const words = [];
      for (let k = i; k < i + N; k++) words.push(norm(v.slice(ws[k], we[k])));
      if (list.includes(words.join(' '))) { hits++; return; }
    }
    if (i + N >= nw) return;
    r = (Math.imul((r - Math.imul(wh[i], top)) | 0, MIX) + wh[i + N]) | 0;
  }
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
console.log(JSON.stringify({bytes, seconds: secs, records, records_matched: hits}));
