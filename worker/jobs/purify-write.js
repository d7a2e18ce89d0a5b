// @ts-check
// purify.run's write pass: the training file read again and streamed through Python
// (bridge purify.feed: py/evalsieve/purify_page.py, the CLI's own walkers), each block's
// output written as it comes to a sink: the File System Access handle the page picked
// (FileSystemWritableFileStream: the browser writes a temporary file and puts it in place
// on close; abort() leaves the target as it was), or a Blob built in memory, at most
// SETTINGS.purifyBlobMaxBytes.

import { ERR, OP, STAGE, ProtocolError } from '../protocol.js';
import { forEachByteChunk } from '../byte-chunks.js';
import { startHasher } from '../hash-offload.js';
import { bridge } from '../runtime.js';
import { SETTINGS } from '../settings.js';

const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
/** Bytes in MiB or GiB, for the messages. */
const fmtMiB = (/** @type {number} */ b) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1).replace(/\.0$/, '')} GiB` : `${Math.ceil(b / 2 ** 20)} MiB`);

/**
 * @typedef {object} Sink
 * @property {'file' | 'blob'} kind
 * @property {number} bytes  written so far
 * @property {(b: Uint8Array) => Promise<void>} write
 * @property {() => Promise<File>} close  the whole output, as a File (read back by the self-check)
 * @property {() => Promise<void>} abort  before close: nothing is put in place
 * @property {() => Promise<boolean>} discard  after close: remove what was written (true when it was)
 */

/** The refusal of a cleaned file too large for a Blob (no File System Access API). */
export function tooLargeForBlob(/** @type {string} */ name, /** @type {number} */ bytes) {
  return new ProtocolError(ERR.BAD_INPUT, `this browser has no File System Access API, so the cleaned file is built in memory, at most ${fmtMiB(SETTINGS.purifyBlobMaxBytes)}; ${name} needs ${bytes > SETTINGS.purifyBlobMaxBytes ? `${fmtMiB(bytes)} or more` : 'more'}`, {
    file: name, expected: 'a browser with the File System Access API (Chromium, Edge), or `evalsieve purify` for large files',
  });
}

/**
 * Where the cleaned file goes.
 * @param {any} handle  a FileSystemFileHandle (args.save) or null: a Blob
 * @param {string} name  the output's name (the training file's)
 * @returns {Promise<Sink>}
 */
export async function openSink(handle, name) {
  if (handle) {
    if (typeof handle.createWritable !== 'function') {
      throw new ProtocolError(ERR.BAD_INPUT, 'the file to save into cannot be written here', { file: name, expected: 'a FileSystemFileHandle from showSaveFilePicker' });
    }
    const writable = await handle.createWritable();
    const sink = {
      kind: /** @type {'file'} */ ('file'),
      bytes: 0,
      async write(/** @type {Uint8Array} */ b) { await writable.write(b); sink.bytes += b.byteLength; },
      async close() { await writable.close(); return /** @type {File} */ (await handle.getFile()); },
      async abort() { try { await writable.abort(); } catch { /* already closed or errored */ } },
      async discard() {
        try { if (typeof handle.remove === 'function') { await handle.remove(); return true; } } catch { /* keep it */ }
        return false;
      },
    };
    return sink;
  }
  /** @type {Uint8Array[]} */
  let parts = [];
  const sink = {
    kind: /** @type {'blob'} */ ('blob'),
    bytes: 0,
    async write(/** @type {Uint8Array} */ b) {
      if (sink.bytes + b.byteLength > SETTINGS.purifyBlobMaxBytes) throw tooLargeForBlob(name, sink.bytes + b.byteLength);
      if (b.byteLength) parts.push(b);
      sink.bytes += b.byteLength;
    },
    async close() { const f = new File(/** @type {BlobPart[]} */ (parts), name); parts = []; return f; },
    async abort() { parts = []; },
    async discard() { return true; },
  };
  return sink;
}

/** Base64 text as bytes. @param {string} text */
function fromBase64(text) {
  const native = /** @type {any} */ (Uint8Array).fromBase64;
  if (typeof native === 'function') return /** @type {Uint8Array} */ (native(text));
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Whether the file's (inflated) text starts with a UTF-8 BOM, which the byte reader drops
 *  and the output keeps (the CLI writes it back). @param {File} file @param {boolean} gzip */
async function startsWithBom(file, gzip) {
  let stream = file.stream();
  if (gzip) stream = stream.pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  let head = new Uint8Array(0);
  try {
    while (head.byteLength < 3) {
      const step = await reader.read();
      if (step.done) break;
      const next = new Uint8Array(head.byteLength + step.value.byteLength);
      next.set(head);
      next.set(step.value, head.byteLength);
      head = next;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
}

/**
 * The write pass: every line-aligned block of `file` through purify.feed into `sink` (a
 * block Python answers `same` for is written as read), then purify.end with the raw bytes'
 * sha256 (Python refuses a file that is not the one the scan read). A file with no record
 * to change (plan.copy) is copied as stored, gzip not inflated, as the CLI copies it.
 * Progress: stage `write`, bytes of the training file.
 * @param {import('../dispatch.js').JobContext} ctx @param {number} handle  purify.plan's
 * @param {{copy: boolean}} plan @param {File} file @param {boolean} gzip @param {Sink} sink
 * @returns {Promise<Record<string, any>>} purify.end's figures
 */
export async function writePass(ctx, handle, plan, file, gzip, sink) {
  if (plan.copy) {
    ctx.progress(STAGE.WRITE, 0, file.size, 'bytes');
    const hasher = await startHasher();
    const reader = file.stream().getReader();
    let done = 0;
    try {
      for (;;) {
        ctx.throwIfCancelled();
        const step = await reader.read();
        if (step.done) break;
        await hasher.update(step.value);
        await sink.write(step.value);
        done += step.value.byteLength;
        ctx.progress(STAGE.WRITE, done, file.size, 'bytes');
      }
    } catch (e) {
      hasher.close();
      reader.cancel().catch(() => {});
      throw e;
    }
    ctx.progress(STAGE.WRITE, file.size, file.size, 'bytes');
    return bridge(OP.PURIFY_END, { handle, sha256: await hasher.digest() });
  }
  let first = (await startsWithBom(file, gzip)) ? BOM : null;
  const input = await forEachByteChunk(ctx, STAGE.WRITE, file, async (bytes) => {
    let block = bytes;
    if (first) { // the BOM back in front of the first block, where the CLI's walker sees it
      block = new Uint8Array(bytes.byteLength + 3);
      block.set(first);
      block.set(bytes, 3);
      first = null;
    }
    const v = bridge(OP.PURIFY_FEED, { handle }, null, block);
    await sink.write(v.same ? block : fromBase64(v.b64));
  }, SETTINGS.chunkChars);
  const end = bridge(OP.PURIFY_END, { handle, sha256: input.sha256 });
  await sink.write(fromBase64(end.b64));
  return end;
}
