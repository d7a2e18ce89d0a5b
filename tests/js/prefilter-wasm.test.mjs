// The WebAssembly scan kernel (kernels/prefilter.wasm via worker/prefilter-wasm.js) against
// the JavaScript scan (worker/prefilter.js) it replaces: the same candidates, record and line
// counts, candidate text and UTF-16 length, chunk by chunk, on the committed fixtures and on
// seeded random chunks (ASCII, table and non-table characters, JSON escapes, surrogates,
// numbers at a field path, malformed lines, CRLF, Unicode-blank lines, chunk boundaries); the
// same UTF-8 error; and duplicate keys, where the kernel may only add candidates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createPrefilter, scanChunk } from '../../worker/prefilter.js';
import { scanData } from '../../worker/prefilter-bytes.js';
import { createKernelScanner, loadKernel } from '../../worker/prefilter-wasm.js';
import { startPrefilter } from '../../worker/prefilter-client.js';
import { HASH, NO_EXACT, exactFor, segmentProbe } from './exact-spec.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mod = await loadKernel(readFileSync(path.join(ROOT, 'kernels/prefilter.wasm')));
// Python's text.char_table, as the spec carries it (the kernel must read it as prefilter.js)
const CHARS = JSON.parse(execFileSync(process.env.EVALSIEVE_PYTHON || 'python3', ['-c',
  'import json; from evalsieve.text import char_table; print(json.dumps({str(c): r for c, r in char_table().items()}))'],
{ env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8' }));
const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Both scanners of a spec: {js, w}. */
function scanners(spec) {
  const js = createPrefilter(spec);
  return { js, w: createKernelScanner(spec, mod, js) };
}

/** Both scanners on one chunk of bytes: [JS (decoded, then scanChunk), kernel]. */
function both(spec, bytes, { js, w } = scanners(spec)) {
  const a = scanChunk(js, dec.decode(bytes));
  const b = w.scanBytes(bytes);
  for (const r of [a, b]) delete r.ms;
  return [a, b];
}

/** A seeded generator (mulberry32), so that a failure can be replayed. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
const tableChars = Object.keys(CHARS).map(Number).filter((c) => c > 127 && c < 0x10000);
const PIECES = [' ', '  ', '\t', '\n', '\r', '\x1c', '\x00', '-', '!', '.', "'", '"', '\\', '/', '{', '[', '$', '+', 'é', 'É',
  '\u00a0', '\u2019', '\u3000', '\u4e2d', '\u{1f600}', '\ufeff', '\u0301', 'ß', 'ﬁ'];

/** A random text: vocabulary words in random case, joined by random pieces and characters. */
function text(r, words) {
  let s = '';
  for (let i = 0; i < words; i++) {
    let w = VOCAB[Math.floor(r() * VOCAB.length)];
    if (r() < 0.1) w = w.toUpperCase();
    s += w;
    const x = r();
    if (x < 0.75) s += ' ';
    else if (x < 0.9) s += PIECES[Math.floor(r() * PIECES.length)];
    else s += String.fromCharCode(tableChars[Math.floor(r() * tableChars.length)]);
  }
  return s;
}

/** JSON.stringify, with some characters escaped the other ways JSON allows. */
function jsonEscaped(r, v) {
  return JSON.stringify(v).replace(/[a-z\u00e9/]/g, (c) => {
    const x = r();
    if (x < 0.03) return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    if (x < 0.04) return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    if (c === '/' && x < 0.5) return '\\/';
    return c;
  });
}

/** One random training line (a record, or not: blank, malformed, odd types). */
function line(r, format) {
  if (format === 'text') {
    const x = r();
    if (x < 0.05) return ['', ' ', '\u3000', '\r', '\x0c \x85'][Math.floor(r() * 5)];
    return text(r, 1 + Math.floor(r() * 14)) + (r() < 0.2 ? '\r' : '');
  }
  const x = r();
  const t = () => text(r, 1 + Math.floor(r() * 14)).replace(/\n/g, ' ');
  let s;
  if (x < 0.5) s = jsonEscaped(r, { id: Math.floor(r() * 1e6), text: t(), meta: { score: r(), ok: r() < 0.5, note: null } });
  else if (x < 0.65) s = jsonEscaped(r, { messages: [{ role: 'user', content: t() }, { role: 'assistant', content: [t(), t()] }], text: [t()] });
  else if (x < 0.7) s = jsonEscaped(r, { text: [1, 'a'][Math.floor(r() * 2)], other: t() });
  else if (x < 0.74) s = ['{"text": true}', '{"text": 1e5}', '{"text": -0.5E-3}', '{"text": null}', '{"text": {"a": "b"}}', '[1, 2]', '"str"', '{}', ' {"text":"x"} '][Math.floor(r() * 9)];
  else if (x < 0.8) { // malformed: cut short, a bad escape or literal, trailing text, raw control
    const good = JSON.stringify({ text: t() });
    s = [good.slice(0, Math.floor(r() * good.length)), good.replace('"text"', '"text" x'), '{"text": "a\\x"}', '{"text": nul}', `${good} 1`,
      '{"text": "a\tb"}', '{"text": "\\ud83d\\ude00 a"}', '{"text": "\\ud800"}', '{"text": 01}', '{"text": 1.}', '{"a":1,}', '{"text": "\\u12"}',
      '{"text": NaN}', '{"te\\u0078t": "alpha beta gamma delta"}'][Math.floor(r() * 14)];
  } else if (x < 0.85) s = ['', '   ', '\u3000', '\t\r'][Math.floor(r() * 4)];
  else s = JSON.stringify({ text: t() }, null, r() < 0.5 ? 0 : undefined).replace(/:/g, r() < 0.5 ? ': ' : ':');
  return s + (r() < 0.1 ? '\r' : '');
}

/** A spec whose n-grams are random windows of the vocabulary (so that records hit), and
 *  whose exact-rung keys are short random runs of it (so that segments hit them too). */
function spec(r, format, n, paths) {
  const ngrams = new Set();
  for (let i = 0; i < 40; i++) ngrams.add(Array.from({ length: n }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' '));
  const keys = Array.from({ length: 12 }, () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' '));
  return { n, ngrams: [...ngrams], format, paths, chars: CHARS, exact: exactFor(keys, format) };
}

test('the kernel and the JS scan agree on seeded random JSONL and text chunks', () => {
  let cases = 0;
  let hits = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const r = rng(seed);
    const format = seed % 4 === 0 ? 'text' : 'jsonl';
    // (a filter step, ["=", key, value], reads every element in both: see prefilter.js collect)
    const paths = format === 'text' ? [] : [['text'], ['messages', '[]', 'content'], ['messages', '[]', 'content', '[]'], ['text', '[]'],
      ['messages', ['=', 'role', 'user'], 'content']].slice(seed % 2, 2 + (seed % 4));
    const sp = spec(r, format, 1 + (seed % 4), paths);
    const lines = Array.from({ length: 60 }, () => line(r, format));
    const body = lines.join('\n') + (r() < 0.5 ? '\n' : '');
    const [a, b] = both(sp, enc.encode(body));
    assert.deepEqual(b, a, `seed ${seed}`);
    cases += a.records_in;
    hits += a.records.length;
  }
  // the cases are not trivial: many records, and candidates as well as records skipped
  assert.ok(cases > 2500, `${cases}`);
  assert.ok(hits > 500 && hits < cases - 500, `${hits} of ${cases}`);
});

test('the kernel and the JS scan agree chunk by chunk on the committed fixtures', () => {
  const ev = readFileSync(path.join(ROOT, 'tests/fixtures/gsm8k_test_sample.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).question);
  // the eval questions' 5-grams, normalised as Python would for ASCII text
  const words = ev.map((q) => q.toLowerCase().replace(/[!"#%&'()*,\-./:;?@[\\\]_{}]/g, '').split(/\s+/).filter(Boolean));
  const ngrams = words.flatMap((w) => w.slice(0, Math.max(0, w.length - 4)).map((_, i) => w.slice(i, i + 5).join(' ')));
  for (const [file, format, paths] of [['train_mix.jsonl', 'jsonl', [['text']]], ['semantic_train.jsonl', 'jsonl', [['text']]],
    ['samples_gsm8k_sample.jsonl', 'jsonl', [['doc', 'question'], ['resps', '[]', '[]']]], ['train_mix.jsonl', 'text', []]]) {
    const bytes = readFileSync(path.join(ROOT, 'tests/fixtures', file));
    const sp = { n: 5, ngrams, format, paths, chars: CHARS, exact: exactFor(words.map((w) => w.join(' ')), format) };
    const pair = scanners(sp);
    let total = 0;
    let cand = 0;
    for (const size of [bytes.length, 4096, 777]) { // chunks cut after a '\n', as byte-chunks.js
      for (let s = 0; s < bytes.length;) {
        let e = Math.min(bytes.length, s + size);
        if (e < bytes.length) {
          const k = bytes.lastIndexOf(10, e - 1);
          e = k >= s ? k + 1 : bytes.indexOf(10, s) + 1 || bytes.length;
        }
        const [a, b] = both(sp, bytes.subarray(s, e), pair);
        assert.deepEqual(b, a, `${file} ${format} chunk ${s}-${e}`);
        total += a.records_in;
        cand += a.records.length;
        s = e;
      }
    }
    assert.ok(total > 0 && cand > 0, `${file}: ${cand} of ${total}`);
  }
});

test('the kernel hashes the n-grams into the very table and bitset prefilter.js builds', () => {
  for (const [seed, n] of [[7, 1], [8, 3], [9, 13]]) {
    const r = rng(seed);
    const sp = spec(r, 'jsonl', n, [['text']]);
    sp.ngrams.push(['café', '中文', 'ﬁx', '\u{1f600}'].slice(0, n).join(' ')); // non-ASCII, a surrogate pair
    const js = createPrefilter(sp);
    const got = createKernelScanner(sp, mod, js).tables();
    assert.deepEqual(got.table, new Uint32Array(js.tables.table.buffer), `seed ${seed}`);
    assert.deepEqual(got.bits, new Uint32Array(js.tables.bits.buffer), `seed ${seed}`);
    assert.ok(got.table.some((x) => x !== 0));
  }
});

test('a chunk that is not UTF-8 fails with the same chunk-local line and byte', () => {
  const sp = { n: 2, ngrams: ['alpha beta'], format: 'jsonl', paths: [['text']], chars: CHARS, exact: NO_EXACT };
  const js = createPrefilter(sp);
  const w = createKernelScanner(sp, mod, js);
  for (const bad of [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]]) {
    const bytes = new Uint8Array([...enc.encode('{"text": "ok"}\n{"text": "a'), ...bad, ...enc.encode('"}\n')]);
    const err = (f) => { try { f(); } catch (e) { return e.utf8; } return null; };
    const a = err(() => scanData(js, bytes));
    assert.deepEqual(a, { line: 2, byte: 26 });
    assert.deepEqual(err(() => w.scanBytes(bytes)), a);
  }
});

test('duplicate keys: the kernel reads every value (a superset of JSON.parse, which keeps the last)', () => {
  const sp = { n: 2, ngrams: ['alpha beta'], format: 'jsonl', paths: [['text']], chars: CHARS, exact: NO_EXACT };
  const body = enc.encode('{"text": "alpha beta", "text": "none"}\n{"text": "none", "text": "alpha beta"}\n{"text": 5, "text": "x"}\n');
  const [a, b] = both(sp, body);
  assert.deepEqual(a.records, [2]);
  assert.deepEqual(b.records, [1, 2, 3]);
});

test('a spec with more field paths than the kernel takes is refused (the caller scans with prefilter.js)', () => {
  const sp = { n: 2, ngrams: ['a b'], format: 'jsonl', paths: Array.from({ length: 65 }, (_, i) => [`f${i}`]), chars: {}, exact: NO_EXACT };
  assert.throws(() => createKernelScanner(sp, mod), /at most 64 field paths \(65 given\)/);
});

test('the reading thread scans with the kernel once it has compiled, and says why when it cannot', async () => {
  const sp = { n: 2, ngrams: ['alpha beta'], format: 'jsonl', paths: [['text']], chars: CHARS, exact: NO_EXACT };
  const chunk = () => enc.encode('{"text": "Alpha, beta!"}\n{"text": "gamma"}\n');
  const ok = startPrefilter(sp, { makeWorker: () => null, kernel: () => loadKernel(readFileSync(path.join(ROOT, 'kernels/prefilter.wasm'))) });
  await new Promise((r) => setTimeout(r, 50)); // the kernel compiles
  assert.deepEqual((await ok.scan(chunk())).records, [1]);
  assert.deepEqual(ok.kernels, { wasm: 1, js: 0, notes: [] });
  const bad = startPrefilter(sp, { makeWorker: () => null, kernel: () => Promise.reject(new Error('no WebAssembly here')) });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual((await bad.scan(chunk())).records, [1]); // the same answer from prefilter.js
  assert.deepEqual(bad.kernels, { wasm: 0, js: 1, notes: ['WebAssembly kernel did not load: no WebAssembly here'] });
});

test("the exact-key probes are Python's (evalsieve.exact), and the kernel's table is prefilter.js's", () => {
  const keys = ['alpha', 'alpha beta gamma', 'café 中文 ﬁx', '12 apples', '7', 'true 3'];
  const py = JSON.parse(execFileSync(process.env.EVALSIEVE_PYTHON || 'python3', ['-c',
    'import json, sys; from evalsieve.exact import prefilter_exact as p; k = json.loads(sys.argv[1]); '
    + 'print(json.dumps({f: p(k, f) for f in ("jsonl", "text")}))', JSON.stringify(keys)],
  { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8' }));
  assert.deepEqual(py.jsonl.hash, HASH);
  for (const format of ['jsonl', 'text']) assert.deepEqual(exactFor(keys, format), py[format], format);
  assert.equal(segmentProbe(['a']), 0x69f7f397); // FNV-1a("a") + count_mix, by hand
  assert.equal(py.text.probes.length, keys.length);
  assert.ok(py.jsonl.scalar_only && py.jsonl.probes.includes(segmentProbe(['apples']))); // after the number leaf "12"
  const sp = { n: 3, ngrams: ['alpha beta gamma'], format: 'jsonl', paths: [['a'], ['b']], chars: CHARS, exact: py.jsonl };
  const js = createPrefilter(sp);
  assert.deepEqual(createKernelScanner(sp, mod, js).tables().exact, new Uint32Array(js.tables.exact.buffer));
  assert.throws(() => createPrefilter({ ...sp, exact: { ...py.jsonl, hash: { ...HASH, mix: 3 } } }), /exact\.hash\.mix/);
  assert.throws(() => createPrefilter({ ...sp, exact: undefined }), /exact\.hash/);
});

test('a record whose fields join to an eval row (no n-gram in any one field) is a candidate in both', () => {
  const key = 'what is the sum of two and two and then three';
  const sp = { n: 8, ngrams: ['what is the sum of two and two', 'is the sum of two and two and', 'the sum of two and two and then', 'sum of two and two and then three'],
    format: 'jsonl', paths: [['a'], ['b'], ['m', ['=', 'role', 'user'], 'c']], chars: CHARS, exact: exactFor([key, 'hi'], 'jsonl') };
  const lines = [
    '{"a": "What is the sum", "b": "of two and two, and then three?"}', // fields joined
    '{"b": "of two and two and then three", "a": "what is the sum"}', // a first in path order
    '{"m": [{"role": "user", "c": "What is"}, {"role": "assistant", "c": "?"}, {"role": "user", "c": "the sum of two and two and then three"}]}',
    '{"a": "Hi!"}', // a one-word row equals a one-word record
    '{"a": "the sum of two", "b": "and two"}', // shares words only: not a probe
    '{"a": "hi there"}',
    '{"a": "sum of", "b": "hi"}', // a probe in a later field: a candidate (a superset)
  ];
  const [a, b] = both(sp, enc.encode(lines.join('\n') + '\n'));
  assert.deepEqual(a.records, [1, 2, 3, 4, 7]);
  assert.deepEqual(b.records, a.records);
  const text = { ...sp, format: 'text', paths: [], exact: exactFor([key, 'hi'], 'text') };
  const [c, d] = both(text, enc.encode('What is the sum of two and two, and then three?\nwhat is\nHI\n'));
  assert.deepEqual(c.records, [1, 3]); // a text line is its record's one segment: the whole key only
  assert.deepEqual(d.records, c.records);
});
