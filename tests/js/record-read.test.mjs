// worker/record-read.js under Node: a training record read again where the training pass
// saw it (its byte offset after the file's BOM, and length): File.slice for a plain file, the
// decompressed stream for gzip; an unknown place or bytes that are not UTF-8 are bad_input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { File } from 'node:buffer';

import { readRecord } from '../../worker/record-read.js';
import { setBinaryMagic } from '../../worker/files.js';
import { CONSTANTS } from './constants.mjs';

setBinaryMagic(CONSTANTS.binary_magic);

const LINES = ['{"id": "a", "text": "first"}', '{"id": "b", "text": "héllo wörld"}', '{"id": "c", "text": "last"}'];
const body = `${LINES.join('\n')}\n`;
const enc = new TextEncoder();
// record 2 starts after line 1 and its "\n"; its length is its UTF-8 bytes (é and ö are 2 each)
const OFFSET = enc.encode(LINES[0]).length + 1;
const BYTES = enc.encode(LINES[1]).length;

test('a plain file: the bytes at the offset, with or without a BOM before them', async () => {
  assert.equal(BYTES, LINES[1].length + 2);
  for (const bom of [[], [0xef, 0xbb, 0xbf]]) {
    const file = new File([new Uint8Array(bom), body], 'train.jsonl');
    assert.deepEqual(await readRecord(file, 2, OFFSET, BYTES), { text: LINES[1], read: 'file.slice' });
  }
});

test('a gzip file: decompressed up to the record (said in `read`)', async () => {
  for (const bom of ['', '\ufeff']) {
    const file = new File([gzipSync(Buffer.from(bom + body))], 'train.jsonl.gz');
    assert.deepEqual(await readRecord(file, 2, OFFSET, BYTES), { text: LINES[1], read: 'gunzip from the start' });
  }
});

test('an unknown place, or bytes that are not UTF-8 there, are bad_input naming the file', async () => {
  const file = new File([body], 'train.jsonl');
  await assert.rejects(readRecord(file, 2, -1, 0), (e) => e.code === 'bad_input' && e.file === 'train.jsonl');
  // one byte into "é": the slice starts inside a character
  const at = OFFSET + LINES[1].indexOf('é') + 1;
  await assert.rejects(readRecord(file, 2, at, 4), (e) => e.code === 'bad_input' && /not UTF-8/.test(e.message));
});
