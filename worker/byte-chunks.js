// @ts-check
// Reading a dropped file as line-aligned *byte* chunks (the training pass with the
// prefilter): File.stream(), sha256 of the raw bytes (on a hashing worker of its own when one
// starts: hash-offload.js), gunzip by magic bytes, and chunks of
// the (decompressed) UTF-8 bytes cut after a '\n', each in a buffer of its own (`alloc`: the
// training pass refills buffers its scans hand back), so the reader can hand it to a
// prefilter worker in the transfer list (no copy) and never decodes
// it itself: the worker decodes with TextDecoder({fatal: true}) (prefilter-bytes.js), and a
// UTF-8 error is still named by file, line and byte (prefilter-client.js numbers it).
// files.js readTextChunks is the text twin (every other reader).

import { ERR, ProtocolError } from './protocol.js';
import { binaryKind, isGzip } from './magic.js';
import { yieldToEventLoop } from './files.js';
import { startHasher } from './hash-offload.js';

/** The error for a stream that failed to read or to gunzip (as files.js readTextChunks). */
function streamError(/** @type {File} */ file, /** @type {boolean} */ gzip, /** @type {any} */ e) {
  const bad = (/** @type {string} */ m, /** @type {Record<string, any>} */ x) => new ProtocolError(ERR.BAD_INPUT, m, { file: file.name, ...x });
  if (e instanceof ProtocolError) return e;
  const detail = String(e && e.message);
  if (gzip && /junk|trailing/i.test(detail)) {
    return bad('this gzip file holds several members (concatenated gzip), which the page cannot read', {
      expected: 'a single-member gzip file (recompress: gunzip -c FILE | gzip > NEW), or the CLI, which reads concatenated members', detail,
    });
  }
  if (gzip) return bad('the file starts like gzip (1f 8b) but does not decompress', { expected: 'a valid gzip stream', detail });
  return bad(`could not read the file: ${e && e.message}`, { detail: String(e) });
}

/**
 * Run `body(bytes)` for every line-aligned byte chunk of a file, with cancellation and byte
 * progress (0 first, file.size last).
 *
 * Args: ctx: {progress, isCancelled}; stage: the progress stage; chunkBytes: a chunk ends
 *   at the last '\n' within that many bytes (a longer line stays whole).
 * Body: gets a Uint8Array of complete lines (the last chunk may lack its final '\n'),
 *   the UTF-8 BOM dropped; it owns the chunk's buffer (it may transfer it).
 * Returns: {sha256 (hex of the raw bytes), bytes (raw), gzip, chars: 0, lines: 0 (this
 *   reader does not decode: the caller counts them), seconds, hash_ms (this thread's share:
 *   copies to the hashing worker, or the hashing when it is done here), hash_worker_ms (the
 *   hashing worker's time), hash_note (present when the hashing stayed here: why), decode_ms: 0}.
 * Raises: ProtocolError bad_input for an unreadable file, a corrupt gzip stream or a binary
 *   format; cancelled when ctx.isCancelled() turns true. UTF-8 is checked by the body's side.
 * @param {import('./dispatch.js').JobContext} ctx @param {import('./protocol.js').ProgressStage} stage
 * Alloc: gives the view a chunk of `size` bytes is copied into (default: a new buffer of its
 *   own; the training pass passes its prefilter's buffer(), which reuses scanned chunks').
 * @param {File} file @param {(bytes: Uint8Array) => unknown} body @param {number} chunkBytes
 * @param {(size: number) => Uint8Array} [alloc]
 */
export async function forEachByteChunk(ctx, stage, file, body, chunkBytes, alloc = (size) => new Uint8Array(size)) {
  const t0 = performance.now();
  ctx.progress(stage, 0, file.size, 'bytes');
  const gzip = await isGzip(file);
  const hasher = await startHasher(); // a worker of its own when it starts (hash-offload.js)
  let raw = 0;
  let stream = file.stream().pipeThrough(new TransformStream({
    transform(chunk, controller) {
      const wait = hasher.update(chunk); // a promise when the hashing worker is behind
      raw += chunk.byteLength;
      ctx.progress(stage, raw, file.size, 'bytes');
      controller.enqueue(chunk);
      return wait; // the stream reads on once it has caught up
    },
  }));
  if (gzip) stream = stream.pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  /** @type {Uint8Array[]} */
  const parts = [];
  let held = 0; // bytes in parts
  let first = true;
  let finished = false;
  const cancelled = () => { if (ctx.isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled'); };
  /** The global offset of the '\n' that ends the next chunk in `parts`, or -1 (wait). */
  const nextCut = () => {
    let cut = -1;
    let base = 0;
    for (const p of parts) { // the last '\n' before chunkBytes
      if (base >= chunkBytes) break;
      const k = p.lastIndexOf(0x0a, chunkBytes - 1 - base);
      if (k !== -1) cut = base + k;
      base += p.byteLength;
    }
    if (cut !== -1) return cut;
    base = 0;
    for (const p of parts) { // else the first after it (a longer line stays whole)
      const k = base + p.byteLength > chunkBytes ? p.indexOf(0x0a, Math.max(0, chunkBytes - base)) : -1;
      if (k !== -1) return base + k;
      base += p.byteLength;
    }
    return -1;
  };
  /** The first `size` held bytes, copied into a view from `alloc` (one copy: the stream's
   *  buffers are not ours to move); the rest stays held, uncopied. */
  const take = (/** @type {number} */ size) => {
    const out = alloc(size);
    let at = 0;
    while (at < size) {
      const p = /** @type {Uint8Array} */ (parts.shift());
      const n = Math.min(p.byteLength, size - at);
      out.set(n === p.byteLength ? p : p.subarray(0, n), at);
      if (n < p.byteLength) parts.unshift(p.subarray(n));
      at += n;
    }
    held -= size;
    return out;
  };
  try {
    for (;;) {
      cancelled();
      let step;
      try { step = await reader.read(); } catch (e) { throw streamError(file, gzip, e); }
      if (step.done) break;
      let bytes = step.value;
      if (first && bytes.byteLength) {
        first = false;
        const kind = binaryKind(bytes.subarray(0, 16));
        if (kind) {
          throw new ProtocolError(ERR.BAD_INPUT, `unsupported format: this looks like ${kind[0]}`, {
            file: file.name, expected: `JSONL, CSV, TSV or plain text in UTF-8 (${kind[1]})`,
          });
        }
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      }
      parts.push(bytes);
      held += bytes.byteLength;
      while (held >= chunkBytes) { // one stream read may complete several chunks
        const cut = nextCut();
        if (cut === -1) break;
        await body(take(cut + 1));
        cancelled();
        await yieldToEventLoop(); // let a `cancel` message in
      }
    }
    if (held) await body(take(held));
    finished = true;
  } finally {
    if (!finished) {
      hasher.close();
      try { await reader.cancel(); } catch { /* already errored or closed */ }
    }
  }
  const sha256 = await hasher.digest();
  ctx.progress(stage, file.size, file.size, 'bytes');
  return {
    sha256, bytes: raw, gzip, chars: 0, lines: 0, seconds: (performance.now() - t0) / 1000, hash_ms: hasher.ms, decode_ms: 0,
    hash_worker_ms: hasher.workerMs, ...(hasher.note ? { hash_note: hasher.note } : {}),
  };
}
