// @ts-check
// What a file's first bytes say: gzip (1f 8b, whatever the name) and the binary formats the
// page refuses (ZIP, Parquet, SQLite, UTF-16, ...). The binary table is Python's
// (py/evalsieve/constants.py BINARY_MAGIC), received in the worker's `ready` constants and
// handed here by setBinaryMagic before any file is read. files.js uses both (and re-exports them).

import { ERR, ProtocolError } from './protocol.js';

const GZIP_MAGIC = [0x1f, 0x8b];

/** @type {import('./protocol.js').BinaryMagic[] | null} */
let binaryMagic = null;

/**
 * Give this module the binary-magic table (constants.binary_magic of `ready`).
 * @param {import('./protocol.js').BinaryMagic[]} table
 */
export function setBinaryMagic(table) {
  binaryMagic = table;
}

/**
 * [what, todo] when the first bytes say the file is not text (ZIP, Parquet, UTF-16...), else null.
 * @param {Uint8Array} bytes
 * @returns {[string, string] | null}
 */
export function binaryKind(bytes) {
  if (!binaryMagic) throw new ProtocolError(ERR.INTERNAL, 'the binary-magic table is not loaded (setBinaryMagic)');
  const starts = (/** @type {number[]} */ magic, at = 0) => bytes.length >= at + magic.length && magic.every((b, i) => bytes[at + i] === b);
  for (const { magic, what, todo, also } of binaryMagic) {
    if (starts(magic) && (!also || starts(also.magic, also.at))) return [what, todo];
  }
  return null;
}

/** True when the first bytes are the gzip magic 1f 8b (the name is not consulted). @param {Blob} file */
export async function isGzip(file) {
  if (file.size < 2) return false;
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}
