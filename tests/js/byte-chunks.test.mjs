// worker/byte-chunks.js under Node: line-aligned byte chunks of a File (plain and gzip), each
// in a buffer the body may move away, the BOM dropped, sha256 of the raw bytes, progress,
// cancellation and a binary file refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { File } from 'node:buffer';

import { setBinaryMagic, setSha256Factory } from '../../worker/files.js';
import { forEachByteChunk } from '../../worker/byte-chunks.js';
import { CONSTANTS } from './constants.mjs';

setBinaryMagic(CONSTANTS.binary_magic);
setSha256Factory(async () => {
  let h;
  return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
});

const ctx = (cancelAfter = Infinity) => {
  const seen = [];
  let n = 0;
  return { seen, progress: (_s, done, total) => seen.push([done, total]), isCancelled: () => ++n > cancelAfter };
};
// 300 lines of 8..20 bytes, one non-ASCII word, one 100-byte line
const lines = Array.from({ length: 300 }, (_, i) => (i === 150 ? 'x'.repeat(99) : i === 7 ? 'naïve été' : `line ${i} ${'ab'.repeat(i % 7)}`) + '\n');
const body = new TextEncoder().encode(lines.join('') + 'no newline at the end');

async function chunksOf(bytes, chunkBytes, c = ctx(), readSize = 0) {
  const got = [];
  const file = new File([bytes], 'train.jsonl');
  if (readSize) { // the stream in reads of readSize bytes (a browser's are about 64 KiB)
    file.stream = () => new ReadableStream({
      start(co) { for (let i = 0; i < bytes.length; i += readSize) co.enqueue(bytes.slice(i, i + readSize)); co.close(); },
    });
  }
  const summary = await forEachByteChunk(c, 'train', file, (b) => {
    got.push(Uint8Array.from(b));
    structuredClone(b, { transfer: [b.buffer] }); // the body may move it: nothing else breaks
  }, chunkBytes);
  return { got, summary, c };
}

test('chunks end after a newline within chunkBytes (a longer line whole) and add up to the file', async () => {
  for (const [gz, readSize] of [[false, 0], [true, 0], [false, 7], [false, 50], [false, 1000], [true, 13]]) {
    const raw = gz ? gzipSync(body) : body;
    const { got, summary, c } = await chunksOf(raw, 64, ctx(), readSize);
    // the same cuts whatever the reads: the last '\n' within 64 bytes, else the first after
    const expect = [];
    for (let s = 0; s < body.length;) {
      let e = body.lastIndexOf(0x0a, s + 63);
      if (s + 64 >= body.length) e = body.length - 1;
      else if (e < s) e = body.indexOf(0x0a, s + 64);
      expect.push(e + 1 - s);
      s = e + 1;
    }
    assert.deepEqual(got.map((g) => g.length), expect);
    assert.deepEqual(Buffer.concat(got), Buffer.from(body));
    for (const [i, g] of got.entries()) {
      const last = i === got.length - 1;
      if (!last) assert.equal(g[g.length - 1], 0x0a);
      // at most 64 bytes, unless one line is longer (the 100-byte line, alone)
      if (g.length > 64) assert.equal(new TextDecoder().decode(g), 'x'.repeat(99) + '\n');
    }
    assert.equal(new TextDecoder().decode(got[got.length - 1]).endsWith('no newline at the end'), true);
    assert.equal(summary.sha256, createHash('sha256').update(raw).digest('hex'));
    assert.deepEqual([summary.bytes, summary.gzip], [raw.length, gz]);
    assert.deepEqual(c.seen[0], [0, raw.length]);
    assert.deepEqual(c.seen[c.seen.length - 1], [raw.length, raw.length]);
  }
});

test('the UTF-8 BOM is dropped from the start only; the sha256 covers it', async () => {
  const bom = [0xef, 0xbb, 0xbf];
  const raw = new Uint8Array([...bom, ...new TextEncoder().encode('a\n'), ...bom, ...new TextEncoder().encode('b\n')]);
  const { got, summary } = await chunksOf(raw, 1 << 20);
  assert.deepEqual([...Buffer.concat(got)], [0x61, 0x0a, ...bom, 0x62, 0x0a]);
  assert.equal(summary.sha256, createHash('sha256').update(raw).digest('hex'));
});

test('a binary file is refused by name; a cancel stops the pass', async () => {
  const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  await assert.rejects(chunksOf(zip, 64), (e) => e.code === 'bad_input' && e.file === 'train.jsonl' && /unsupported format/.test(e.message));
  await assert.rejects(chunksOf(body, 64, ctx(3)), (e) => e.code === 'cancelled');
});
