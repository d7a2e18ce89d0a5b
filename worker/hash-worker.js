// @ts-check
// A module worker that keeps the streaming sha256 of a training file (hash-wasm's
// createSHA256), so that hashing runs on a core of its own instead of the reading thread's
// (on two cores the reader, read + sha256 + Python, bounds the training
// pass). It gets the raw bytes in the order they were read (postMessage keeps order),
// in batches that the client moves here (hash-offload.js) and gets back to fill again, and
// answers the digest once.
// Its messages are protocol.js HashIn / HashOut.
import { HASH_MSG } from './protocol.js';

/** @type {{init(): void, update(b: Uint8Array): void, digest(f: 'hex'): string} | null} */
let hasher = null;
let ms = 0;
let failed = '';

const post = (/** @type {import('./protocol.js').HashOut} */ m, /** @type {Transferable[]} */ transfer = []) => self.postMessage(m, transfer);

self.onmessage = async (/** @type {MessageEvent<import('./protocol.js').HashIn>} */ e) => {
  const m = e.data;
  try {
    if (m.type === HASH_MSG.START) {
      const mod = await import(m.url);
      if (typeof mod.createSHA256 !== 'function') throw new Error(`${m.url} does not export createSHA256`);
      hasher = await mod.createSHA256();
      /** @type {any} */ (hasher).init();
      post({ type: HASH_MSG.READY });
    } else if (m.type === HASH_MSG.BYTES) {
      if (!hasher || failed) return;
      const t = performance.now();
      hasher.update(m.data);
      ms += performance.now() - t;
      // the buffer goes back for the next batch (no allocation, no zeroing there)
      post({ type: HASH_MSG.BUFFER, data: m.data }, [m.data.buffer]);
    } else if (m.type === HASH_MSG.DIGEST) {
      if (failed) throw new Error(failed);
      if (!hasher) throw new Error('digest asked before the hasher started');
      post({ type: HASH_MSG.DIGEST, hex: hasher.digest('hex'), ms });
    }
  } catch (err) {
    failed = failed || String((err && /** @type {any} */ (err).message) || err);
    post({ type: HASH_MSG.FAILED, message: failed });
  }
};
