// @ts-check
// The training pass's side of worker/prefilter.js: a pool of filter workers
// (prefilter-worker.js), one per spare core, when they can start, else the filter inline; and
// the bounded pipeline between the file reader and the filter. Each chunk is scanned on its
// own (chunk-local record and line numbers) by whichever worker is least busy; the answers
// are put back in the order the chunks were read, each offset by the records and lines of
// the chunks before it, so the result never depends on which worker finishes first. A chunk
// is UTF-8 bytes (moved to the worker, not copied: its WebAssembly kernel reads them) or
// text. Which scanner read each chunk (the kernel, or prefilter.js and why) is counted and
// reported (`kernels`). No Pyodide here; tests/js drives it under Node.

import { ERR, PF_MSG, ProtocolError } from './protocol.js';
import { createPrefilter } from './prefilter.js';
import { scanData } from './prefilter-bytes.js';
import { createKernelScanner, loadKernel } from './prefilter-wasm.js';
import { SETTINGS } from './settings.js';

/**
 * @typedef {import('./protocol.js').PrefilterSpec} PrefilterSpec
 * @typedef {import('./protocol.js').Scanned} Scanned
 * @typedef {import('./protocol.js').ChunkScan} ChunkScan
 * @typedef {{wasm: number, js: number, notes: string[]}} KernelUse  chunks scanned by the WebAssembly kernel / by
 *   prefilter.js, and why prefilter.js scanned bytes (a kernel that did not load or start)
 * @typedef {{scan: (data: string | Uint8Array) => Promise<Scanned>, close: () => void, readonly threaded: boolean,
 *   readonly workers: number, readonly filterMs: number, readonly inlineMs: number, readonly kernels: KernelUse,
 *   buffer: (size: number) => Uint8Array}} Prefilter  buffer(size): a view of `size` bytes for the next chunk, in a
 *   buffer a scan has handed back when one of `chunkBytes` is free (else a new one)
 * @typedef {{postMessage(m: import('./protocol.js').PrefilterIn, transfer?: Transferable[]): void, terminate(): void,
 *   onmessage: ((e: {data: import('./protocol.js').PrefilterOut}) => void) | null,
 *   onerror: ((e: {message?: string, preventDefault(): void}) => void) | null}} SubWorker
 * @typedef {{seq: number, data: string | Uint8Array | null, size: number, done: boolean, local: ChunkScan | null, error: any,
 *   resolve: (s: Scanned) => void, reject: (e: Error) => void}} Job
 * @typedef {{sub: SubWorker, jobs: Set<Job>, answered: boolean}} Member
 */

/** The module worker that runs prefilter.js; throws where workers cannot start workers. */
export const defaultSubWorker = () => /** @type {SubWorker} */ (/** @type {unknown} */ (
  new Worker(new URL('./prefilter-worker.js', import.meta.url), { type: 'module' })));

/**
 * How many filter workers: one per spare core (the reader keeps one), at least 1, at most
 * SETTINGS.prefilterMaxWorkers.
 * @param {number | undefined} [cores]  navigator.hardwareConcurrency (unknown: 2)
 */
export function poolSize(cores = globalThis.navigator?.hardwareConcurrency) {
  const n = Number.isFinite(cores) && /** @type {number} */ (cores) > 0 ? Math.floor(/** @type {number} */ (cores)) : 2;
  return Math.max(1, Math.min(SETTINGS.prefilterMaxWorkers, n - 1));
}

/**
 * The training-pass filter; `scan(data)` answers in the order asked, with record and line
 * numbers counted from the first chunk (as prefilter.js `scan` with one state would). A byte
 * chunk goes to a worker in the transfer list (the caller must not touch it again) once that
 * worker has answered; before, a copy (so a worker that never loads can hand it back). A
 * chunk that is not UTF-8 rejects with bad_input naming `file`, the line and the byte.
 *
 * Up to `workers` workers from `makeWorker` (fewer when it throws; inline when it gives none).
 * A worker that fails (`onerror`) before it has answered any chunk, which is how a worker
 * that cannot load its script reports, leaves the pool: its chunks go to the others, or are
 * scanned inline, in order, when none is left. A failure after a worker's first answer fails
 * every waiting scan, and the later ones. A `failed` reply rejects that scan; a later scan
 * then rejects with the same error once it is answered (its numbers would depend on it).
 * When every worker already holds `steal` chunks, this thread scans the chunk itself (it
 * would otherwise wait for them: on two cores the reader has time to spare).
 *
 * This thread scans bytes with the WebAssembly kernel from `kernel()` once it has compiled
 * (prefilter.js until then, and when it fails: `kernels.notes` says why).
 *
 * A byte chunk's buffer of `chunkBytes` comes back once its scan is done (from a worker with
 * its answer, or here) and `buffer(size)` hands it out again: the reader fills a few buffers
 * over and over instead of allocating one per chunk.
 *
 * @param {PrefilterSpec} spec  from bridge cont.prefilter_spec
 * @param {{makeWorker?: () => SubWorker, workers?: number, steal?: number, file?: string, gzip?: boolean,
 *   kernel?: () => Promise<WebAssembly.Module>, chunkBytes?: number}} [o]
 * @returns {Prefilter}
 */
export function startPrefilter(spec, { makeWorker = defaultSubWorker, workers = poolSize(), steal = SETTINGS.prefilterSteal, file = '', gzip = false, kernel = loadKernel, chunkBytes = SETTINGS.chunkChars } = {}) {
  /** @type {Member[]} */
  const pool = [];
  for (let i = 0; i < workers; i++) {
    let sub = null;
    try { sub = makeWorker(); } catch { sub = null; }
    if (!sub) break;
    pool.push({ sub, jobs: new Set(), answered: false });
  }
  /** @type {ReturnType<typeof createPrefilter> | null} */
  let inline = null;
  /** @type {KernelUse} */
  const kernels = { wasm: 0, js: 0, notes: [] };
  const note = (/** @type {string} */ n) => { if (n && !kernels.notes.includes(n)) kernels.notes.push(n); };
  /** @type {WebAssembly.Module | null} */
  let mod = null; // the kernel, once compiled; this thread's scanner is made at its first chunk
  /** @type {import('./prefilter-wasm.js').WasmScanner | null} */
  let inlineWasm = null;
  let inlineNote = '';
  kernel().then((m) => { mod = m; }, (e) => { inlineNote = `WebAssembly kernel did not load: ${(e && e.message) || e}`; });
  /** @type {ArrayBuffer[]} chunk buffers whose scan is done, to fill again */
  const free = [];
  const recycle = (/** @type {ArrayBuffer | undefined} */ b) => { if (b && b.byteLength === chunkBytes && free.length < 16) free.push(b); };
  /** @type {Job[]} waiting to be handed back, in the order asked */
  const order = [];
  /** @type {Map<number, Job>} */
  const bySeq = new Map();
  let seq = 0;
  let records = 0;
  let lines = 0;
  let bytes = 0; // of the chunks handed back
  let filterMs = 0;
  let inlineMs = 0;
  /** @type {Error | null} */
  let broken = null; // every later scan rejects with this
  /** @type {Error | null} */
  let poisoned = null; // an earlier chunk failed: later answers cannot be numbered

  const flush = () => {
    while (order.length && order[0].done) {
      const j = /** @type {Job} */ (order.shift());
      bySeq.delete(j.seq);
      if (j.error && j.error.utf8) {
        const { line, byte } = j.error.utf8;
        j.error = new ProtocolError(ERR.BAD_INPUT, `invalid UTF-8 at byte ${bytes + byte}${gzip ? ' of the decompressed data' : ''}`, {
          file, line: lines + line, expected: 'UTF-8 text' });
      }
      if (j.error || poisoned) {
        poisoned = poisoned || j.error;
        j.reject(/** @type {Error} */ (j.error || poisoned));
        continue;
      }
      const l = /** @type {ChunkScan} */ (j.local);
      j.resolve({
        records: l.records.map((r) => r + records),
        lines: l.lines.map((r) => r + lines),
        offsets: l.offsets ? l.offsets.map((o) => o + bytes) : null, // in the file (after its BOM)
        text: l.text,
        records_total: records + l.records_in,
        chars: l.chars,
      });
      records += l.records_in;
      lines += l.lines_in;
      bytes += j.size;
    }
  };
  /** @param {Job} j @param {ChunkScan | null} local @param {unknown} error  what scanData threw, or null */
  const settle = (j, local, error) => {
    j.done = true;
    if (j.data && typeof j.data !== 'string') recycle(/** @type {ArrayBuffer} */ (j.data.buffer)); // scanned here, or copied to a worker
    j.data = null;
    j.local = local;
    j.error = error;
    flush();
  };
  /** @param {Job} j */
  const runInline = (j) => {
    const t0 = performance.now();
    if (!inline) inline = createPrefilter(spec); // its table (once) is inline filter time too
    if (mod && !inlineWasm && !inlineNote) {
      try { inlineWasm = createKernelScanner(spec, mod, inline); } catch (e) { inlineNote = `WebAssembly kernel did not start: ${/** @type {any} */ (e).message || e}`; }
    }
    inlineMs += performance.now() - t0;
    let local = null;
    try { local = scanData(inline, /** @type {string | Uint8Array} */ (j.data), inlineWasm); } catch (e) { settle(j, null, e); return; }
    inlineMs += local.ms;
    if (inlineWasm && typeof j.data !== 'string') kernels.wasm++; else { kernels.js++; if (typeof j.data !== 'string') note(inlineNote || 'the WebAssembly kernel was still compiling'); }
    settle(j, local, null);
  };
  /** @param {Job} j */
  const deal = (j) => {
    if (!pool.length) { runInline(j); return; }
    let m = pool[0];
    for (const x of pool) if (x.jobs.size < m.jobs.size) m = x; // the least busy; ties: the first
    if (m.jobs.size >= steal) { runInline(j); return; }
    m.jobs.add(j);
    const d = /** @type {string | Uint8Array} */ (j.data);
    if (typeof d !== 'string' && m.answered) { // moved, not copied; this thread lets go of it
      j.data = null;
      m.sub.postMessage({ type: PF_MSG.CHUNK, seq: j.seq, data: d }, [d.buffer]);
    } else m.sub.postMessage({ type: PF_MSG.CHUNK, seq: j.seq, data: d });
  };
  /** @param {Error} err */
  const failAll = (err) => {
    broken = broken || err;
    for (const m of pool.splice(0)) { m.sub.terminate(); m.jobs.clear(); }
    for (const j of order.splice(0)) j.reject(err);
    bySeq.clear();
  };

  for (const m of pool) {
    m.sub.onmessage = (e) => {
      const a = e.data;
      const j = bySeq.get(a.seq);
      recycle(a.buffer); // a byte chunk's (moved, or the copy's), back from the worker: ours again
      if (!j || !m.jobs.has(j)) return;
      m.jobs.delete(j);
      m.answered = true;
      if (a.type === PF_MSG.SCANNED) {
        filterMs += a.ms;
        if (a.kernel === 'wasm') kernels.wasm++; else kernels.js++;
        note(a.kernel_note || '');
      }
      if (a.type === PF_MSG.SCANNED) settle(j, a, null);
      else settle(j, null, a.utf8 ? Object.assign(new Error(a.message), { utf8: a.utf8 }) : new ProtocolError(ERR.INTERNAL, `prefilter failed: ${a.message}`));
    };
    m.sub.onerror = (e) => {
      e.preventDefault();
      m.sub.terminate();
      const at = pool.indexOf(m);
      if (at === -1) return;
      if (m.answered) {
        failAll(new ProtocolError(ERR.INTERNAL, `the prefilter worker stopped: ${e.message || 'error'}`));
        return;
      }
      // It never ran (e.g. its script did not load): the others, or this thread, take its chunks.
      pool.splice(at, 1);
      const left = [...m.jobs].sort((a, b) => a.seq - b.seq);
      m.jobs.clear();
      for (const j of left) deal(j);
    };
    m.sub.postMessage({ type: PF_MSG.SPEC, spec });
  }

  return {
    get threaded() { return pool.length > 0; },
    get workers() { return pool.length; },
    get filterMs() { return filterMs; },
    get inlineMs() { return inlineMs; },
    get kernels() { return kernels; },
    buffer: (size) => {
      const b = size <= chunkBytes ? free.pop() : undefined;
      return b ? new Uint8Array(b, 0, size) : new Uint8Array(Math.max(size, chunkBytes)).subarray(0, size);
    },
    scan: (data) => new Promise((resolve, reject) => {
      if (broken) { reject(broken); return; }
      /** @type {Job} */
      const j = { seq: seq++, data, size: typeof data === 'string' ? 0 : data.byteLength, done: false, local: null, error: null, resolve, reject };
      order.push(j);
      bySeq.set(j.seq, j);
      deal(j);
    }),
    close: () => failAll(new ProtocolError(ERR.CANCELLED, 'cancelled')),
  };
}

/**
 * A bounded pipeline from the reader to the filter to Python: `push(data)` starts a scan and
 * waits while more than `limit` scans are ahead of `consume`; `drain()` consumes the rest.
 * Every scan's rejection is handled from the moment it is pushed (a filter failure rejects
 * push/drain with its error; it never surfaces as an unhandled rejection).
 *
 * @param {(data: string | Uint8Array) => Promise<Scanned>} scan
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
    /** @param {string | Uint8Array} data */
    push: async (data) => {
      inflight.push(scan(data).then((value) => ({ ok: true, value }), (error) => ({ ok: false, error })));
      await take(limit);
    },
    drain: () => take(0),
    /** Stop waiting for the scans still in flight (their results are dropped). */
    abandon: () => { inflight.length = 0; },
  };
}
