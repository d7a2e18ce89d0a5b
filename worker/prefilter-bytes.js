// @ts-check
// The prefilter's unit of work as it crosses threads: a chunk of UTF-8 bytes (the training
// pass, byte-chunks.js, transferred without a copy) or of text (a Parquet file's rows as
// JSON Lines). Bytes are decoded here, in the prefilter worker (or inline), strictly.

import { scanChunk } from './prefilter.js';
import { firstInvalidUtf8 } from './files.js';

// fatal: invalid UTF-8 throws; ignoreBOM: a U+FEFF at a chunk's start is text (the reader
// drops the file's BOM itself)
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Chunk-local position of the first invalid UTF-8 byte: {line (1-based), byte (0-based)}. */
export function utf8Position(/** @type {Uint8Array} */ bytes) {
  let at = firstInvalidUtf8(bytes, true);
  if (at === -1) at = bytes.length;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < at; i = bytes.indexOf(0x0a, i + 1)) line++;
  return { line, byte: at };
}

/**
 * Chunk-local byte offsets of the starts of `lines` (1-based, ascending) of a chunk's bytes
 * (lines end at '\n', as prefilter.js counts them).
 * @param {Uint8Array} bytes @param {number[]} lines @returns {number[]}
 */
export function lineStarts(bytes, lines) {
  const out = new Array(lines.length);
  let line = 1;
  let pos = 0;
  for (let k = 0; k < lines.length; k++) {
    for (; line < lines[k]; line++) {
      const nl = bytes.indexOf(0x0a, pos);
      if (nl === -1) break;
      pos = nl + 1;
    }
    out[k] = pos;
  }
  return out;
}

/** A chunk that is not UTF-8; `utf8` = utf8Position (chunk-local). */
export class Utf8Error extends Error {
  /** @param {{line: number, byte: number}} utf8 */
  constructor(utf8) { super(`invalid UTF-8 at byte ${utf8.byte} of a chunk`); this.utf8 = utf8; }
}

/**
 * prefilter.js scanChunk of one chunk given as text or as UTF-8 bytes (decoded here; ms
 * includes the decoding; chars counts the decoded UTF-16 code units).
 *
 * Args: pf = createPrefilter(spec); data: string | Uint8Array of complete lines (chunks are
 *   cut after '\n', so each is whole UTF-8); wasm: the spec's prefilter-wasm.js scanner, which
 *   then scans bytes without decoding them (text always goes to pf).
 * Returns: ChunkScan (protocol.js); offsets: each candidate's first byte in the chunk (null
 *   for text).
 * Raises: Utf8Error naming the chunk-local line and byte of the first invalid sequence.
 * @param {any} pf @param {string | Uint8Array} data
 * @param {import('./prefilter-wasm.js').WasmScanner | null} [wasm]
 * @returns {import('./protocol.js').ChunkScan}
 */
export function scanData(pf, data, wasm = null) {
  if (typeof data === 'string') return { ...scanChunk(pf, data), offsets: null }; // rows as text: no bytes
  if (wasm) return wasm.scanBytes(data);
  const t0 = performance.now();
  let text;
  try { text = UTF8.decode(data); } catch { throw new Utf8Error(utf8Position(data)); }
  const r = scanChunk(pf, text);
  r.offsets = lineStarts(data, r.lines);
  r.ms = performance.now() - t0;
  return r;
}
