// worker/jobs/common.js readWithProgress through the worker's own dispatcher (dispatch.js):
// the byte stage of every file read (eval, train, read) is monotone and ends at
// done == total == file.size, for plain text, gzip (raw bytes: the compressed size) and an
// empty file. The e2e check_protocol asserts the same of real runs in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { File } from 'node:buffer';

import * as P from '../../worker/protocol.js';
import { createDispatcher } from '../../worker/dispatch.js';
import { readWithProgress } from '../../worker/jobs/common.js';
import { setBinaryMagic, setSha256Factory } from '../../worker/files.js';
import { CONSTANTS } from './constants.mjs';

setBinaryMagic(CONSTANTS.binary_magic);
setSha256Factory(async () => {
  let h;
  return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
});

/** Runs readWithProgress on `file` as op bench.read; returns the progress messages and the terminal reply. */
async function readThroughDispatcher(file) {
  const out = [];
  let clock = 0;
  const texts = [];
  const d = createDispatcher({
    ops: { [P.OP.READ]: (ctx, args, files) => readWithProgress(ctx, P.STAGE.READ, files.f, (t) => { texts.push(t); }) },
    boot: () => Promise.resolve(),
    post: (m) => { assert.equal(P.validate(m), null, JSON.stringify(m)); out.push(m); },
    now: () => (clock += 150), // past the throttle: every admitted report is posted
  });
  d.onMessage(P.run('r', P.OP.READ, {}, { f: file }));
  for (let i = 0; i < 500 && !out.some((m) => m.type === 'result' || m.type === 'error'); i++) await new Promise((r) => setTimeout(r, 5));
  const terminal = out.filter((m) => m.type === 'result' || m.type === 'error');
  assert.equal(terminal.length, 1, JSON.stringify(terminal));
  assert.equal(terminal[0].type, 'result', JSON.stringify(terminal[0]));
  return { progress: out.filter((m) => m.type === 'progress'), result: terminal[0].data, text: texts.join(''), out };
}

function checkStage(progress, size) {
  assert.ok(progress.length >= 1);
  for (const m of progress) assert.deepEqual([m.stage, m.unit, m.total], ['read', 'bytes', size]);
  const done = progress.map((m) => m.done);
  assert.equal(done[0], 0, 'the stage starts at 0');
  for (let i = 1; i < done.length; i++) assert.ok(done[i] > done[i - 1], `went backwards or repeated: ${done}`);
  assert.equal(done.at(-1), size, `the stage ended at ${done.at(-1)} of ${size}`);
}

// ~1.8 MB of JSONL (more than the 1 Mi-character chunk of SETTINGS.chunkChars), words that do not compress away
const rows = Array.from({ length: 40_000 }, (_, i) => `{"i": ${i}, "t": "row ${i} ${(i * 2654435761 % 4294967296).toString(36)} café"}\n`).join('');

/** `bytes` as a File whose stream() gives 64 KiB pieces (cut anywhere, mid-character too), as a browser's does. */
const pieces = (bytes, name) => new File(Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, k) => bytes.subarray(k * 65536, (k + 1) * 65536)), name);

test('a plain file: byte progress from 0 to file.size, the last report before the result', async () => {
  const file = pieces(Buffer.from(rows, 'utf-8'), 'train.jsonl');
  const { progress, result, text, out } = await readThroughDispatcher(file);
  checkStage(progress, file.size);
  assert.ok(progress.length > 10, `only ${progress.length} reports for ${file.size} bytes`);
  assert.equal(text, rows);
  assert.equal(result.bytes, file.size);
  assert.ok(out.indexOf(progress.at(-1)) < out.findIndex((m) => m.type === 'result'));
});

test('a gzip file: the stage counts raw (compressed) bytes and ends at its size', async () => {
  const gz = gzipSync(Buffer.from(rows, 'utf-8'));
  const file = pieces(gz, 'train.jsonl.gz');
  assert.ok(gz.length < Buffer.byteLength(rows) / 2);
  const { progress, result, text } = await readThroughDispatcher(file);
  checkStage(progress, gz.length);
  assert.ok(progress.length > 3, `only ${progress.length} reports for ${gz.length} bytes`);
  assert.equal(text, rows);
  assert.deepEqual([result.gzip, result.bytes], [true, gz.length]);
});

test('an empty file: one report, done == total == 0', async () => {
  const { progress } = await readThroughDispatcher(new File([], 'empty.jsonl'));
  assert.deepEqual(progress.map((m) => [m.done, m.total]), [[0, 0]]);
});
