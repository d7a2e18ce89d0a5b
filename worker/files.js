// @ts-check
// Reading dropped files in the worker: File.stream() only (never file.text() or
// arrayBuffer() of the whole file), gzip by magic bytes, strict UTF-8, line-aligned
// text chunks, and a streaming sha256 + byte count of the raw bytes as they were given.
// The first-byte checks (gzip, Python's binary-magic table) are magic.js's.

import { ERR, ProtocolError, messageOf } from './protocol.js';
import { binaryKind, isGzip } from './magic.js';
import { decodeMarkingInvalid, firstInvalidUtf8 } from './utf8.js';

export { binaryKind, isGzip, setBinaryMagic } from './magic.js';
export { decodeMarkingInvalid, firstInvalidUtf8 } from './utf8.js';

/** @typedef {{init(): unknown, update(data: Uint8Array): unknown, digest(enc: 'hex'): string}} Sha256Hasher  hash-wasm's, as used here */
/** @typedef {() => Promise<Sha256Hasher>} Sha256Factory @typedef {{sha256: string | null, bytes: number, gzip: boolean, chars: number, lines: number, hash_ms: number, decode_ms: number}} ReadSummary */
/** @type {Sha256Factory | null} */
let sha256Factory = null;
let sha256URL = /** @type {string | null} */ (null);

/**
 * Tell this module how to make a streaming sha256 hasher (hash-wasm's createSHA256), and the
 * ES module it came from (hash-offload.js starts its worker with it; null: no worker).
 * Args: factory: async () => hasher with init(), update(Uint8Array), digest('hex'); url. @param {Sha256Factory | null} factory @param {string | null} [url]
 */
export function setSha256Factory(factory, url = null) { sha256Factory = factory; sha256URL = url; }

/** The URL given to setSha256Factory, or null. */
export const getSha256URL = () => sha256URL;
/** The hasher factory given to setSha256Factory (null before); worker/parquet.js hashes with it. */
export const getSha256Factory = () => sha256Factory;

function badInput(/** @type {{name: string}} */ file, /** @type {string} */ message, /** @type {{line?: number, expected?: string, detail?: string}} */ extra = {}) {
  return new ProtocolError(ERR.BAD_INPUT, message, { file: file.name, ...extra });
}

function countNewlineBytes(/** @type {Uint8Array} */ bytes, /** @type {number} */ end) {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

function countNewlines(/** @type {string} */ s) {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Stream a file as text chunks that end at a line end.
 *
 * Args:
 *   file: a File (or Blob with .name).
 *   chunkChars: target chunk size in UTF-16 code units; a chunk ends at the last '\n'
 *     within that many code units (a single longer line stays whole).
 *   onBytes: called with the count of raw (possibly gzipped) bytes read so far;
 *     non-decreasing, ends at file.size.
 *   hash: compute the sha256 of the raw bytes (default true).
 *   hardLimit: when > 0, pending text without any '\n' is yielded once it reaches this
 *     length (the chunk then ends mid-line; only readHead uses this).
 *   keepBom: leave a leading byte-order mark in the text (Python's reader keeps it aside
 *     for the clean export); otherwise it is dropped.
 *   skipBad: lines that are not UTF-8 are marked (decodeMarkingInvalid) instead of being an
 *     error, for Python to skip as malformed records (the "skip malformed lines" option).
 * Yields: strings; each but possibly the last ends with '\n'.
 * Returns: {sha256 (hex, or null when hash is false), bytes (raw), gzip (bool),
 *   chars (decoded UTF-16 code units), lines (count of '\n'), hash_ms, decode_ms (time
 *   spent hashing and decoding, for the benchmark's breakdown)}.
 * Raises: ProtocolError bad_input for invalid UTF-8 (names the file, the line and the
 *   approximate byte offset in the decoded stream) or a corrupt gzip stream.
 * @param {Blob & {name: string}} file @returns {AsyncGenerator<string, ReadSummary, undefined>}
 * @param {{chunkChars?: number, onBytes?: ((bytes: number) => void) | null, hash?: boolean, hardLimit?: number, keepBom?: boolean, skipBad?: boolean}} [opts]
 */
export async function* readTextChunks(file, { chunkChars = 1 << 20, onBytes = null, hash = true, hardLimit = 0, keepBom = false, skipBad = false } = {}) {
  const gzip = await isGzip(file);
  let hasher = null;
  if (hash) {
    if (!sha256Factory) throw new ProtocolError(ERR.INTERNAL, 'sha256 is not available (hash-wasm not loaded)');
    hasher = await sha256Factory();
    hasher.init();
  }
  let rawBytes = 0;
  let hashMs = 0;
  let decodeMs = 0;
  const now = () => performance.now();
  let stream = file.stream().pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        if (hasher) {
          const t = now();
          hasher.update(chunk);
          hashMs += now() - t;
        }
        rawBytes += chunk.byteLength;
        if (onBytes) onBytes(rawBytes);
        controller.enqueue(chunk);
      },
    }),
  );
  if (gzip) stream = stream.pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom });
  let held = new Uint8Array(0); // skipBad: the bytes after the last line end, for the next read
  let first = true;

  let pending = '';
  let decodedBytes = 0; // bytes handed to the decoder (after gunzip)
  let lines = 0;
  let chars = 0;
  let finished = false;

  const decodeSkipping = (/** @type {Uint8Array | undefined} */ bytes, /** @type {boolean} */ streaming) => {
    const all = new Uint8Array(held.length + (bytes ? bytes.length : 0));
    all.set(held);
    if (bytes) all.set(bytes, held.length);
    const cut = streaming ? all.lastIndexOf(0x0a) + 1 : all.length;
    held = all.slice(cut);
    let text = decodeMarkingInvalid(all.subarray(0, cut));
    if (first && text) {
      first = false;
      if (!keepBom && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return text;
  };
  const decode = (/** @type {Uint8Array | undefined} */ bytes, /** @type {boolean} */ streaming) => {
    if (skipBad) return decodeSkipping(bytes, streaming);
    try {
      return streaming ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch (e) {
      // Locate the bad byte within this chunk (approximate by up to 3 bytes carried over
      // from the previous chunk by the streaming decoder).
      const off = bytes ? firstInvalidUtf8(bytes, !streaming) : -1;
      const inChunk = off === -1 ? (bytes ? bytes.length : 0) : off;
      const at = lines + countNewlines(pending) + (bytes ? countNewlineBytes(bytes, inChunk) : 0) + 1;
      throw badInput(file, `invalid UTF-8 near byte ${decodedBytes + inChunk}${gzip ? ' of the decompressed data' : ''}`, {
        line: at,
        expected: 'UTF-8 text',
        detail: messageOf(e),
      });
    }
  };
  const take = (/** @type {string} */ text) => {
    chars += text.length;
    lines += countNewlines(text);
    return text;
  };

  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        if (e instanceof ProtocolError) throw e;
        if (gzip && /junk|trailing/i.test(messageOf(e))) {
          // The browser's DecompressionStream stops after the first gzip member.
          throw badInput(file, 'this gzip file holds several members (concatenated gzip), which the page cannot read', {
            expected: 'a single-member gzip file (recompress: gunzip -c FILE | gzip > NEW), or the CLI, which reads concatenated members',
            detail: messageOf(e),
          });
        }
        if (gzip) {
          throw badInput(file, 'the file starts like gzip (1f 8b) but does not decompress', {
            expected: 'a valid gzip stream',
            detail: messageOf(e),
          });
        }
        throw badInput(file, `could not read the file: ${messageOf(e)}`, { detail: String(e) });
      }
      if (step.done) break;
      const bytes = step.value;
      if (decodedBytes === 0 && bytes.byteLength) {
        const kind = binaryKind(bytes.subarray(0, 16));
        if (kind) {
          throw badInput(file, `unsupported format: this looks like ${kind[0]}`, {
            expected: `JSONL, CSV, TSV or plain text in UTF-8 (${kind[1]})`,
          });
        }
      }
      const t = now();
      const text = decode(bytes, true);
      decodeMs += now() - t;
      decodedBytes += bytes.byteLength;
      pending += text;
      // Cut at the last line end within chunkChars (or the first after it, for a long line);
      // one read may hold several chunks' worth.
      while (pending.length >= chunkChars) {
        let cut = pending.lastIndexOf('\n', chunkChars - 1);
        if (cut === -1) cut = pending.indexOf('\n', chunkChars);
        if (cut === -1) {
          if (hardLimit > 0 && pending.length >= hardLimit) {
            const out = pending;
            pending = '';
            yield take(out);
          }
          break;
        }
        const out = pending.slice(0, cut + 1);
        pending = pending.slice(cut + 1);
        yield take(out);
      }
    }
    pending += decode(undefined, false);
    if (pending.length) {
      const out = pending;
      pending = '';
      yield take(out);
    }
    finished = true;
  } finally {
    if (!finished) {
      try { await reader.cancel(); } catch { /* already errored or closed */ }
    }
  }
  return { sha256: hasher ? hasher.digest('hex') : null, bytes: rawBytes, gzip, chars, lines, hash_ms: hashMs, decode_ms: decodeMs };
}

/**
 * The head of a file for sniffing: about `maxChars` of decoded text, cut at the last line
 * end unless the whole file fit; when the first line is longer, the head reads on to its
 * end (up to 64 × maxChars), so a long first record is read whole (as the CLI does).
 *
 * keepBom: the text keeps the file's byte-order mark (Python takes one off, not a second).
 * Returns: {text, complete (bool: the whole file was read), gzip}.
 * Raises: as readTextChunks.
 * @param {Blob & {name: string}} file @param {{maxChars?: number, skipBad?: boolean, keepBom?: boolean}} [opts]
 */
export async function readHead(file, { maxChars = 1 << 20, skipBad = false, keepBom = false } = {}) {
  const it = /** @type {AsyncIterator<string, ReadSummary>} */ (readTextChunks(file, { chunkChars: maxChars, hash: false, hardLimit: 64 * maxChars, skipBad, keepBom }));
  let text = '';
  let complete = false;
  let gzip = false;
  try {
    for (;;) {
      const step = await it.next();
      if (step.done) {
        complete = true;
        gzip = step.value.gzip;
        break;
      }
      text += step.value;
      if (text.length >= maxChars) break;
    }
  } finally {
    if (!complete) await it.return?.();
  }
  if (!complete) {
    if (text.length > maxChars) {
      const cut = text.lastIndexOf('\n', maxChars - 1);
      if (cut !== -1) text = text.slice(0, cut + 1);
    }
    gzip = await isGzip(file);
  }
  return { text, complete, gzip };
}

/**
 * Let queued tasks run (a `cancel` message, for one). Awaiting a stream read that is
 * already buffered resolves in a microtask, so without this a whole file can be read
 * without the worker ever seeing its message queue.
 */
export const yieldToEventLoop = () => new Promise(/** @param {(v?: undefined) => void} resolve */ (resolve) => {
  // A MessageChannel task, not setTimeout(0): nested timeouts are clamped to 4 ms, which
  // costs a measurable share of a fast scan (one yield per chunk). One channel per yield,
  // closed at once, so nothing stays referenced (Node would not exit otherwise).
  if (typeof MessageChannel === 'undefined') { setTimeout(resolve, 0); return; }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
  channel.port2.postMessage(0);
});

/**
 * Run `body(chunk)` for every chunk of a file, with cancellation between chunks.
 *
 * Args: isCancelled: () => bool, checked after each chunk is read and before it is used;
 *   keepBom, skipBad: as readTextChunks.
 * Returns: the summary of readTextChunks.
 * Raises: ProtocolError 'cancelled' when isCancelled() turns true.
 * @param {Blob & {name: string}} file @param {{chunkChars?: number, onBytes?: ((bytes: number) => void) | null, isCancelled: () => boolean, keepBom?: boolean, skipBad?: boolean}} opts
 * @param {(chunk: string) => unknown} body @returns {Promise<ReadSummary>}
 */
export async function forEachChunk(file, { chunkChars, onBytes, isCancelled, keepBom = false, skipBad = false }, body) {
  const it = /** @type {AsyncIterator<string, ReadSummary>} */ (readTextChunks(file, { chunkChars, onBytes, keepBom, skipBad }));
  let summary = /** @type {ReadSummary | null} */ (null);
  try {
    for (;;) {
      if (isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
      const step = await it.next();
      if (step.done) {
        summary = step.value;
        break;
      }
      if (isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
      await body(step.value);
      await yieldToEventLoop();
    }
  } finally {
    if (!summary) await it.return?.();
  }
  return summary;
}
