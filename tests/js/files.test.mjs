// Node's test runner on worker/files.js and worker/protocol.js: the same modules the worker
// imports, fed File objects (Node 20 has File.stream, DecompressionStream, TextDecoder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { File } from 'node:buffer';

import { binaryKind, decodeMarkingInvalid, firstInvalidUtf8, readHead, readTextChunks, setBinaryMagic, setSha256Factory, forEachChunk } from '../../worker/files.js';
import * as P from '../../worker/protocol.js';
import { ProgressGate, TerminalLedger } from '../../worker/dispatch.js';
import { CONSTANTS } from './constants.mjs';

setBinaryMagic(CONSTANTS.binary_magic);

// hash-wasm's createSHA256 shape, backed by node:crypto.
setSha256Factory(async () => {
  let h;
  return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
});

async function collect(file, opts) {
  const it = readTextChunks(file, opts);
  const chunks = [];
  for (;;) {
    const step = await it.next();
    if (step.done) return { chunks, summary: step.value };
    chunks.push(step.value);
  }
}

const lines = Array.from({ length: 5000 }, (_, i) => `{"i": ${i}, "t": "row ${i} café ✓ 𝄞"}\n`).join('');

test('chunks end at line ends, rejoin to the text, and the summary hashes the raw bytes', async () => {
  const bytes = Buffer.from(lines, 'utf-8');
  const seen = [];
  const { chunks, summary } = await collect(new File([bytes], 'a.jsonl'), { chunkChars: 10_000, onBytes: (n) => seen.push(n) });
  assert.ok(chunks.length > 5);
  for (const c of chunks) assert.ok(c.endsWith('\n'));
  assert.equal(chunks.join(''), lines);
  assert.equal(summary.bytes, bytes.length);
  assert.equal(summary.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.equal(summary.gzip, false);
  assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  assert.equal(seen.at(-1), bytes.length);
});

test('gzip is found by its magic bytes, whatever the name; the hash is of the gzip bytes', async () => {
  const gz = gzipSync(Buffer.from(lines, 'utf-8'));
  const { chunks, summary } = await collect(new File([gz], 'plain-name.jsonl'), { chunkChars: 50_000 });
  assert.equal(chunks.join(''), lines);
  assert.equal(summary.gzip, true);
  assert.equal(summary.bytes, gz.length);
  assert.equal(summary.sha256, createHash('sha256').update(gz).digest('hex'));
});

test('a BOM is dropped; a last line without a newline is kept', async () => {
  const { chunks } = await collect(new File([Buffer.from('\ufeffa\nb', 'utf-8')], 'x.txt'), {});
  assert.equal(chunks.join(''), 'a\nb');
});

test('invalid UTF-8 is bad_input naming the file, the line and the byte', async () => {
  const bad = Buffer.concat([Buffer.from('ok\nfine\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]);
  await assert.rejects(collect(new File([bad], 'latin1.txt'), {}), (e) => {
    const o = P.toErrorObject(e);
    assert.equal(o.code, 'bad_input');
    assert.equal(o.file, 'latin1.txt');
    assert.equal(o.line, 3);
    assert.match(o.message, /byte 11/);
    return true;
  });
});

test('keepBom leaves the BOM for Python (the clean export starts with it again)', async () => {
  const bom = Buffer.from('\ufeffq,a\nx,1\n', 'utf-8');
  assert.equal((await collect(new File([bom], 'b.csv'), { keepBom: true })).chunks.join(''), '\ufeffq,a\nx,1\n');
  assert.equal((await collect(new File([bom], 'b.csv'), { keepBom: true, skipBad: true })).chunks.join(''), '\ufeffq,a\nx,1\n');
  assert.equal((await collect(new File([bom], 'b.csv'), { skipBad: true })).chunks.join(''), 'q,a\nx,1\n');
});

test('decodeMarkingInvalid marks a bad line as Python surrogateescape does, byte by byte', () => {
  const b = (...parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf-8') : Buffer.from(p))));
  // Python: b'caf\xe9 x\n'.decode('utf-8', 'surrogateescape') == 'caf\udce9 x\n'
  assert.equal(decodeMarkingInvalid(b('ok é\n', 'caf', [0xe9], ' x\n')), 'ok é\ncaf\udce9 x\n');
  // a truncated sequence (e2 82 then 'A'): each of its bytes (Python: '\udce2\udc82A')
  assert.equal(decodeMarkingInvalid(b([0xe2, 0x82], 'A\n', '€\n')), '\udce2\udc82A\n€\n');
  // a surrogate encoded in UTF-8 (ed a0 80) and an overlong (c0 80): every byte
  assert.equal(decodeMarkingInvalid(b('𝄞', [0xed, 0xa0, 0x80])), '𝄞\udced\udca0\udc80');
  assert.equal(decodeMarkingInvalid(b([0xc0, 0x80], '\n')), '\udcc0\udc80\n');
  // several bad bytes in a line: one surrogate each, so the text has the line's byte count
  // (Python: b'a \xff\xfe b \xe9\xe9 c\n'.decode('utf-8', 'surrogateescape'))
  assert.equal(decodeMarkingInvalid(b('a ', [0xff, 0xfe], ' b ', [0xe9, 0xe9], ' c\n')), 'a \udcff\udcfe b \udce9\udce9 c\n');
  assert.equal(decodeMarkingInvalid(b('all fine ✓\n')), 'all fine ✓\n');
});

test('skipBad: lines that are not UTF-8 are marked, not an error, across read boundaries', async () => {
  const good = Buffer.from(lines, 'utf-8');
  const bad = Buffer.concat([good.subarray(0, 70_000), Buffer.from([0xff, 0xfe]), good.subarray(70_000), Buffer.from([0x61, 0xc3])]);
  const { chunks, summary } = await collect(new File([bad], 'bad.jsonl'), { chunkChars: 10_000, skipBad: true });
  const text = chunks.join('');
  assert.equal(text, decodeMarkingInvalid(bad));
  assert.equal(summary.bytes, bad.length);
  const marks = [...text.matchAll(/[\udc80-\udcff]/g)].map((m) => text.charCodeAt(m.index));
  assert.deepEqual(marks, [0xdcff, 0xdcfe, 0xdcc3]); // one per byte that is not UTF-8
  const cut = good.subarray(0, 70_000).toString('utf-8');
  assert.ok(text.startsWith(cut.slice(0, cut.lastIndexOf('\n') + 1)));
  await assert.rejects(collect(new File([bad], 'bad.jsonl'), { chunkChars: 10_000 }), (e) => P.toErrorObject(e).code === 'bad_input');
});

test('a file that starts like gzip but is not is bad_input', async () => {
  await assert.rejects(collect(new File([Buffer.from([0x1f, 0x8b, 1, 2, 3, 4])], 'x.jsonl'), {}),
    (e) => P.toErrorObject(e).code === 'bad_input' && /gzip/.test(e.message));
});

test('readHead stops early and cuts at a line end', async () => {
  const head = await readHead(new File([Buffer.from(lines)], 'a.jsonl'), { maxChars: 1000 });
  assert.equal(head.complete, false);
  assert.ok(head.text.length <= 1000 && head.text.endsWith('\n'));
  assert.ok(lines.startsWith(head.text));
  const whole = await readHead(new File([Buffer.from('a\nb')], 'b.txt'), { maxChars: 1000 });
  assert.deepEqual([whole.text, whole.complete], ['a\nb', true]);
});

test('forEachChunk stops with cancelled between chunks', async () => {
  let n = 0;
  await assert.rejects(
    forEachChunk(new File([Buffer.from(lines)], 'a.jsonl'), { chunkChars: 5000, isCancelled: () => n >= 2 }, () => { n++; }),
    (e) => P.toErrorObject(e).code === 'cancelled');
  assert.equal(n, 2);
});

test('firstInvalidUtf8 finds the first bad sequence', () => {
  const t = (a, final = true) => firstInvalidUtf8(Uint8Array.from(a), final);
  assert.equal(t([...Buffer.from('café €𝄞')]), -1);
  assert.equal(t([0x61, 0xe9, 0x0a]), 1);
  assert.equal(t([0x61, 0xc3]), 1);
  assert.equal(t([0x61, 0xc3], false), -1); // may continue in the next chunk
  assert.equal(t([0xed, 0xa0, 0x80]), 0); // surrogate
  assert.equal(t([0xc0, 0x80]), 0); // overlong
});

test('protocol: errors become plain cloneable objects with a known code', () => {
  const e = P.toErrorObject(new P.ProtocolError('bad_input', 'no', { file: 'f', line: 3, expected: 'x' }));
  assert.deepEqual(structuredClone(e), e);
  assert.equal(Object.getPrototypeOf(e), Object.prototype);
  assert.deepEqual([e.code, e.file, e.line, e.expected], ['bad_input', 'f', 3, 'x']);
  assert.equal(P.toErrorObject(new TypeError('boom')).code, 'internal');
  assert.match(P.toErrorObject(new TypeError('boom')).message, /TypeError: boom/);
  assert.equal(P.toErrorObject({ code: 'weird', message: 'm' }).code, 'internal');
  assert.equal(P.validate(P.error('r1', { code: 'cancelled', message: 'c' })), null);
  assert.match(P.validate({ type: 'error', id: 'r1', error: new Error('x') }), /plain object/);
  assert.match(P.validate({ type: 'nope' }), /unknown message type/);
  assert.equal(P.validate(P.progress('r1', 'train', 5, 10, 'bytes')), null);
  assert.equal(P.validate(P.progress('r1', 'embed', 5, 10, 'rows', 1.5)), null);
  assert.match(P.validate({ ...P.progress('r1', 'train', 5, 10, 'bytes'), stage: 'nope' }), /unknown stage/);
  assert.match(P.validate(P.progress('r1', 'embed', 5, 10, 'rows', -1)), /eta_s/);
  assert.equal(P.validate(P.log('r1', 'N = 8', { kind: 'n_chosen', n: 8 })), null);
  assert.match(P.validate(P.log('r1', 'x', { kind: 'made_up' })), /unknown kind/);
});

test('protocol: progress gate never lets progress go backwards; one terminal per id', () => {
  let now = 0;
  const gate = new ProgressGate(100, () => now);
  assert.ok(gate.admit('r', 's', 0, 10));
  now = 50;
  assert.ok(!gate.admit('r', 's', 3, 10)); // throttled
  now = 200;
  assert.ok(!gate.admit('r', 's', 0, 10)); // backwards
  assert.ok(gate.admit('r', 's', 4, 10));
  now = 210;
  assert.ok(gate.admit('r', 's', 10, 10)); // the final report always passes
  assert.ok(!gate.admit('r', 's', 10, 10));
  assert.ok(gate.admit('r', 'other', 1, 10));
  const ledger = new TerminalLedger();
  assert.ok(ledger.close('r'));
  assert.ok(!ledger.close('r'));
});

test('binary inputs are refused by the magic table Python publishes (bzip2 needs its block magic)', async () => {
  assert.ok(CONSTANTS.binary_magic.length >= 12);
  for (const { magic, what, todo, also } of CONSTANTS.binary_magic) {
    const head = new Uint8Array(16).fill(0x20);   // not NULs: FF FE 00 00 is UTF-32's mark
    head.set(magic);
    if (also) head.set(also.magic, also.at);
    assert.deepEqual(binaryKind(head), [what, todo]);
    await assert.rejects(collect(new File([head, Buffer.from('more text\n')], 'x.jsonl')),
      (e) => e.code === 'bad_input' && e.message.includes(what) && e.expected.includes(todo));
  }
  assert.equal(binaryKind(Buffer.from('BZh is a word here\n')), null);
  assert.equal(binaryKind(Buffer.from('{"a": 1}\n')), null);
});
