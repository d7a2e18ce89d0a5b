// @ts-check
// The training pass's sha256 off the reading thread: a hashing worker (hash-worker.js) gets
// the raw bytes in the order they were read, in batches of SETTINGS.hashBatchBytes copied out
// of the stream's buffers into a few buffers that travel there and back (a copy costs the
// reading thread a small fraction of what hash-wasm's sha256 would; docs/BENCHMARKS.md has
// the figures). When the worker
// cannot start or load hash-wasm, the bytes are hashed here, as before, and `note` says why:
// never a silent difference, and the digest is the same bytes' sha256 either way.

import { ERR, HASH_MSG, ProtocolError } from './protocol.js';
import { getSha256Factory, getSha256URL } from './files.js';
import { SETTINGS } from './settings.js';

/**
 * @typedef {{postMessage(m: import('./protocol.js').HashIn, transfer?: Transferable[]): void, terminate(): void,
 *   onmessage: ((e: {data: import('./protocol.js').HashOut}) => void) | null,
 *   onerror: ((e: {message?: string, preventDefault(): void}) => void) | null}} HashSubWorker
 * @typedef {{update: (bytes: Uint8Array) => Promise<void> | void, digest: () => Promise<string>, close: () => void,
 *   readonly offloaded: boolean, readonly note: string, readonly ms: number, readonly workerMs: number}} Hasher
 *   ms: time this thread spent in update (copies, or hashing when inline); workerMs: the worker's hashing time
 */

/** The module worker that runs hash-worker.js; throws where workers cannot start workers. */
export const defaultHashWorker = () => /** @type {HashSubWorker} */ (/** @type {unknown} */ (
  new Worker(new URL('./hash-worker.js', import.meta.url), { type: 'module' })));

/**
 * A streaming sha256 of bytes given in order, kept by a worker of its own when one starts.
 *
 * Args (all optional): url: hash-wasm's ES module (files.js getSha256URL); factory: its
 *   createSHA256 (files.js getSha256Factory), for hashing here; makeWorker; batchBytes: the
 *   bytes per message to the worker; inflight: batches the worker may hold before update()
 *   makes the reader wait (so a reader faster than the hashing cannot queue a whole file).
 * Returns: Hasher: update(bytes) (the caller keeps its buffer: the bytes are copied; returns
 *   a promise to await when `inflight` batches are already at the worker, else undefined),
 *   digest() -> hex (once; the worker stops), close() (stop without a digest).
 * Raises: ProtocolError internal when neither a worker nor a factory can hash; digest()
 *   rejects with internal when the worker fails after it started.
 * @param {{url?: string | null, factory?: any, makeWorker?: () => HashSubWorker, batchBytes?: number, inflight?: number}} [o]
 * @returns {Promise<Hasher>}
 */
export async function startHasher({ url = getSha256URL(), factory = getSha256Factory(), makeWorker = defaultHashWorker, batchBytes = SETTINGS.hashBatchBytes, inflight = SETTINGS.hashInflight } = {}) {
  let why = !url ? 'no hash-wasm URL' : batchBytes > 0 ? '' : 'turned off (hashBatchBytes 0)';
  /** @type {HashSubWorker | null} */
  let sub = null;
  if (!why) {
    try { sub = makeWorker(); } catch (e) { why = String((e && /** @type {any} */ (e).message) || e); }
  }
  if (sub) {
    const s = /** @type {HashSubWorker} */ (sub);
    why = await new Promise((resolve) => {
      s.onmessage = (e) => resolve(e.data.type === HASH_MSG.READY ? '' : `${'message' in e.data ? e.data.message : e.data.type}`);
      s.onerror = (e) => { e.preventDefault(); resolve(e.message || 'the worker did not load'); };
      s.postMessage({ type: HASH_MSG.START, url: /** @type {string} */ (url) });
    });
    if (why) { s.terminate(); sub = null; }
  }
  if (!sub) return inlineHasher(factory, `sha256 on the reading thread: the hashing worker did not start (${why})`);

  const w = /** @type {HashSubWorker} */ (sub);
  let ms = 0;
  let workerMs = 0;
  /** @type {Error | null} */
  let failure = null;
  /** @type {{resolve: (hex: string) => void, reject: (e: Error) => void} | null} */
  let pending = null;
  let held = 0; // batches at the worker
  /** @type {(() => void) | null} */
  let waiting = null; // the reader, waiting for the worker to catch up
  const release = () => { if (waiting) { const go = waiting; waiting = null; go(); } };
  const fail = (/** @type {string} */ m) => {
    failure = failure || new ProtocolError(ERR.INTERNAL, `the hashing worker failed: ${m}`);
    w.terminate();
    release(); // the digest says it
    if (pending) pending.reject(failure);
  };
  w.onmessage = (e) => {
    const a = e.data;
    if (a.type === HASH_MSG.BUFFER) {
      held--;
      if (a.data.buffer.byteLength === batchBytes) free.push(new Uint8Array(a.data.buffer));
      if (held < inflight) release();
    }
    else if (a.type === HASH_MSG.DIGEST) { workerMs = a.ms; w.terminate(); if (pending) pending.resolve(a.hex); }
    else if (a.type === HASH_MSG.FAILED) fail(a.message);
  };
  w.onerror = (e) => { e.preventDefault(); fail(e.message || 'error'); };
  /** @type {Uint8Array[]} buffers the worker handed back */
  const free = [];
  /** @type {Uint8Array} */
  let stage = new Uint8Array(batchBytes);
  let fill = 0;
  const send = () => {
    if (!fill) return;
    w.postMessage({ type: HASH_MSG.BYTES, data: stage.subarray(0, fill) }, [stage.buffer]);
    held++;
    stage = free.pop() || new Uint8Array(batchBytes);
    fill = 0;
  };
  return {
    offloaded: true,
    note: '',
    get ms() { return ms; },
    get workerMs() { return workerMs; },
    update(bytes) {
      const t = performance.now();
      for (let at = 0; at < bytes.byteLength;) {
        const n = Math.min(bytes.byteLength - at, batchBytes - fill);
        stage.set(bytes.subarray(at, at + n), fill);
        fill += n;
        at += n;
        if (fill === batchBytes) send();
      }
      ms += performance.now() - t;
      if (held >= inflight && !failure) return new Promise((go) => { waiting = go; });
      return undefined;
    },
    digest() {
      if (failure) return Promise.reject(failure);
      send();
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        w.postMessage({ type: HASH_MSG.DIGEST });
      });
    },
    close() { w.terminate(); release(); },
  };
}

/**
 * The same Hasher, hashing on this thread with `factory` (hash-wasm's createSHA256).
 * @param {any} factory @param {string} note @returns {Promise<Hasher>}
 */
async function inlineHasher(factory, note) {
  if (!factory) throw new ProtocolError(ERR.INTERNAL, 'sha256 is not available (hash-wasm not loaded)');
  const h = await factory();
  h.init();
  let ms = 0;
  return {
    offloaded: false,
    note,
    get ms() { return ms; },
    workerMs: 0,
    update(bytes) { const t = performance.now(); h.update(bytes); ms += performance.now() - t; },
    digest: async () => h.digest('hex'),
    close() {},
  };
}
