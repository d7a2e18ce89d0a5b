// @ts-check
// The training pass's side of worker/prefilter.js: a filter in its own worker
// (prefilter-worker.js) when one can start, else inline, and the bounded pipeline between
// the file reader and the filter. No Pyodide here; tests/js drives it under Node.

import { ERR, PF_MSG, ProtocolError } from './protocol.js';
import { createPrefilter } from './prefilter.js';

/**
 * @typedef {import('./protocol.js').PrefilterSpec} PrefilterSpec
 * @typedef {import('./protocol.js').Scanned} Scanned
 * @typedef {{scan: (text: string) => Promise<Scanned>, close: () => void, readonly threaded: boolean}} Prefilter
 * @typedef {{postMessage(m: import('./protocol.js').PrefilterIn): void, terminate(): void,
 *   onmessage: ((e: {data: import('./protocol.js').PrefilterOut}) => void) | null,
 *   onerror: ((e: {message?: string, preventDefault(): void}) => void) | null}} SubWorker
 */

/** The module worker that runs prefilter.js; throws where workers cannot start workers. */
export const defaultSubWorker = () => /** @type {SubWorker} */ (/** @type {unknown} */ (
  new Worker(new URL('./prefilter-worker.js', import.meta.url), { type: 'module' })));

/** @param {PrefilterSpec} spec @returns {Prefilter} */
function inlinePrefilter(spec) {
  const pf = createPrefilter(spec);
  const state = { records: 0, lines: 0 };
  return {
    threaded: false,
    scan: async (text) => {
      const c = pf.scan(text, state);
      return { records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'), records_total: state.records, chars: text.length };
    },
    close: () => {},
  };
}

/**
 * The training-pass filter; results come back in the order asked.
 *
 * In its own worker when `makeWorker` gives one; inline when it throws, and also when the
 * worker fails (`onerror`) before it has answered any chunk, which is how a worker that cannot
 * load its script reports: the chunks it was given are then scanned inline, in order. A
 * failure after the first answer fails the waiting scans (their records were counted there).
 *
 * @param {PrefilterSpec} spec  from bridge cont.prefilter_spec
 * @param {{makeWorker?: () => SubWorker}} [o]
 * @returns {Prefilter}
 */
export function startPrefilter(spec, { makeWorker = defaultSubWorker } = {}) {
  let sub = null;
  try {
    sub = makeWorker();
  } catch {
    sub = null;
  }
  if (!sub) return inlinePrefilter(spec);
  const worker = sub;
  /** @type {Map<number, {text: string, resolve: (s: Scanned) => void, reject: (e: Error) => void}>} */
  const waiting = new Map();
  let seq = 0;
  let answered = false;
  /** @type {Prefilter | null} */
  let inline = null;
  /** @param {Error} err */
  const failAll = (err) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.onmessage = (e) => {
    const m = e.data;
    const w = waiting.get(m.seq);
    if (!w) return;
    waiting.delete(m.seq);
    answered = true;
    if (m.type === PF_MSG.SCANNED) w.resolve(m);
    else w.reject(new ProtocolError(ERR.INTERNAL, `prefilter failed: ${m.message}`));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    worker.terminate();
    if (!answered && !inline) {
      // It never ran (e.g. its script did not load): do the work here, in the order asked.
      const fallback = inlinePrefilter(spec);
      inline = fallback;
      const pending = [...waiting.entries()].sort((a, b) => a[0] - b[0]);
      waiting.clear();
      for (const [, w] of pending) fallback.scan(w.text).then(w.resolve, w.reject);
      return;
    }
    failAll(new ProtocolError(ERR.INTERNAL, `the prefilter worker stopped: ${e.message || 'error'}`));
  };
  worker.postMessage({ type: PF_MSG.SPEC, spec });
  return {
    get threaded() { return inline === null; },
    scan: (text) => {
      if (inline) return inline.scan(text);
      return new Promise((resolve, reject) => {
        const s = seq++;
        waiting.set(s, { text, resolve, reject });
        worker.postMessage({ type: PF_MSG.CHUNK, seq: s, text });
      });
    },
    close: () => {
      worker.terminate();
      failAll(new ProtocolError(ERR.CANCELLED, 'cancelled'));
    },
  };
}

/**
 * A bounded pipeline from the reader to the filter to Python: `push(text)` starts a scan and
 * waits while more than `limit` scans are ahead of `consume`; `drain()` consumes the rest.
 * Every scan's rejection is handled from the moment it is pushed (a filter failure rejects
 * push/drain with its error; it never surfaces as an unhandled rejection).
 *
 * @param {(text: string) => Promise<Scanned>} scan
 * @param {(r: Scanned) => void} consume  called in push order
 * @param {number} limit  scans allowed to wait
 * @param {{waitedMs: number}} [spent]  adds the ms spent waiting for the filter
 */
export function createScanQueue(scan, consume, limit, spent = { waitedMs: 0 }) {
  /** @type {Promise<{ok: true, value: Scanned} | {ok: false, error: any}>[]} */
  const inflight = [];
  const take = async (/** @type {number} */ keep) => {
    while (inflight.length > keep) {
      const t0 = Date.now();
      const r = await /** @type {Promise<any>} */ (inflight.shift());
      spent.waitedMs += Date.now() - t0;
      if (!r.ok) throw r.error;
      consume(r.value);
    }
  };
  return {
    /** @param {string} text */
    push: async (text) => {
      inflight.push(scan(text).then((value) => ({ ok: true, value }), (error) => ({ ok: false, error })));
      await take(limit);
    },
    drain: () => take(0),
    /** Stop waiting for the scans still in flight (their results are dropped). */
    abandon: () => { inflight.length = 0; },
  };
}
