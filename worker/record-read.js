// @ts-check
// One training record read again from the dropped file, by where the training pass saw it:
// its byte offset and length (File.slice: a few bytes, not a second pass over the file), a
// Parquet file's row by its number (hyparquet reads the row group that holds it, by
// File.slice ranges), a gzip file's bytes by decompressing the stream up to them (the only
// case that reads the file from its start; the answer says so).

import { ERR, ProtocolError } from './protocol.js';
import { isGzip } from './files.js';
import { isParquet, openParquet, readRows } from './parquet.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = [0xef, 0xbb, 0xbf];

/** 3 when `bytes` start with the UTF-8 BOM (which the training pass dropped), else 0. */
const bomLength = (/** @type {Uint8Array} */ bytes) => (BOM.every((b, i) => bytes[i] === b) ? 3 : 0);

/**
 * The text of record `record` (1-based) of `file`.
 *
 * Args: offset, bytes: where the training pass saw it (UTF-8 bytes of the file after its
 *   BOM; of the decompressed stream for gzip); offset -1: unknown (a record only the
 *   semantic rung found), except for Parquet, read by row number.
 * Returns: {text, read}: read is 'file.slice', 'parquet row' or 'gunzip from the start'.
 * Raises: ProtocolError bad_input: the place is unknown, or the bytes are not UTF-8 (the
 *   file changed since the run).
 * @param {File} file @param {number} record @param {number} offset @param {number} bytes
 * @returns {Promise<{text: string, read: string}>}
 */
export async function readRecord(file, record, offset, bytes) {
  if (await isParquet(file)) {
    const pq = await openParquet(file);
    const [row] = await readRows(file, pq.metadata, record - 1, record, null);
    return { text: `${JSON.stringify(row)}\n`, read: 'parquet row' };
  }
  if (!(offset >= 0) || !(bytes > 0)) {
    throw new ProtocolError(ERR.BAD_INPUT, `where record ${record} sits in ${file.name} is not known (only the semantic rung saw it)`, {
      file: file.name, expected: 'a record the n-gram or exact rung matched' });
  }
  let raw;
  let read = 'file.slice';
  if (await isGzip(file)) {
    raw = await gunzipRange(file, offset, bytes);
    read = 'gunzip from the start';
  } else {
    const bom = bomLength(new Uint8Array(await file.slice(0, 3).arrayBuffer()));
    raw = new Uint8Array(await file.slice(bom + offset, bom + offset + bytes).arrayBuffer());
  }
  try {
    return { text: UTF8.decode(raw), read };
  } catch {
    throw new ProtocolError(ERR.BAD_INPUT, `record ${record} of ${file.name} is not UTF-8 text where the run read it`, {
      file: file.name, expected: 'the same file as in the run (it changed?)' });
  }
}

/**
 * Bytes [offset, offset + bytes) of a gzip file's decompressed stream after its BOM.
 * @param {File} file @param {number} offset @param {number} bytes
 */
async function gunzipRange(file, offset, bytes) {
  const reader = file.stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const out = new Uint8Array(bytes);
  let at = -1; // stream position of the next chunk's first byte, after the BOM; -1: not begun
  let got = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let chunk = value;
      if (at < 0) {
        const bom = bomLength(chunk);
        chunk = chunk.subarray(bom);
        at = 0;
      }
      const lo = Math.max(offset - at, 0);
      const hi = Math.min(offset + bytes - at, chunk.byteLength);
      if (hi > lo) {
        out.set(chunk.subarray(lo, hi), got);
        got += hi - lo;
      }
      at += chunk.byteLength;
      if (got >= bytes) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return out.subarray(0, got);
}
