// @ts-check
// The page's side of the worker protocol (worker/protocol.js): one module worker, many
// requests. Node-tested with a fake Worker in tests/js/site/worker-client.test.mjs.

import * as P from '../worker/protocol.js';

const { MSG, ERR } = P;

/**
 * @typedef {import('../worker/protocol.js').ErrorObject} ErrorObject
 * @typedef {import('../worker/protocol.js').ProgressMsg} ProgressMsg
 * @typedef {import('../worker/protocol.js').LogMsg} LogMsg
 * @typedef {{onProgress?: ((m: ProgressMsg) => void) | null, onLog?: ((m: LogMsg) => void) | null}} RequestHooks
 * @typedef {{resolve: (data: any) => void, reject: (e: ErrorObject) => void} & RequestHooks} Pending
 * @typedef {{postMessage(m: unknown): void, terminate(): void, onmessage: ((ev: {data: unknown}) => void) | null,
 *   onerror: ((ev: {message?: string, preventDefault?(): void}) => void) | null, onmessageerror: (() => void) | null}} WorkerLike
 * @typedef {new (url: string | URL, opts: {type: 'module'}) => WorkerLike} WorkerCtor
 */

/**
 * One module worker, many requests. Each request gets an id and a promise; replies are
 * matched by id (never by arrival order). If the worker dies, every pending request is
 * rejected with the error and a fresh worker is started, without reloading the page.
 *
 * Options: url (of worker.js); onBoot(bootMsg); onReady(versions, constants) where
 * constants are the rule constants Python publishes in `ready` (or undefined);
 * onFatal(error, restarting); maxRestarts (crashes retried before giving up; a missing
 * asset is retried once); Worker: the constructor (default globalThis.Worker, read at start).
 */
export class WorkerClient {
  /**
   * @param {{url: string | URL, onBoot?: (m: import('../worker/protocol.js').BootMsg) => void,
   *   onReady?: (versions: Record<string, string | null>, constants: import('../worker/protocol.js').Constants) => void,
   *   onFatal?: (e: ErrorObject, restarting: boolean) => void, maxRestarts?: number, Worker?: WorkerCtor | null}} opts
   */
  constructor({ url, onBoot, onReady, onFatal, maxRestarts = 3, Worker = null }) {
    this.url = url;
    this.onBoot = onBoot;
    this.onReady = onReady;
    this.onFatal = onFatal;
    this.maxRestarts = maxRestarts;
    this.WorkerCtor = Worker;
    this.failuresSinceReady = 0;
    this.nextId = 1;
    /** @type {Map<string, Pending>} */
    this.pending = new Map(); // id -> {resolve, reject, onProgress, onLog}
    /** @type {WorkerLike | null} */
    this.worker = null;
    this.ready = false;
    /** @type {Record<string, string | null> | null} */
    this.versions = null;
    /** @type {import('../worker/protocol.js').Constants | null} */
    this.constants = null;
    /** @type {ErrorObject | null} */
    this.lastError = null;
  }

  start() {
    this.ready = false;
    const Ctor = this.WorkerCtor || /** @type {WorkerCtor} */ (globalThis.Worker);
    const w = new Ctor(this.url, { type: 'module' });
    this.worker = w;
    // Each handler acts for the worker that sent the event: a late event from a worker that
    // was already replaced must not touch its replacement.
    w.onmessage = (ev) => { if (w === this.worker) this.#onMessage(ev.data); };
    w.onerror = (ev) => {
      ev.preventDefault?.();
      this.#die(w, { code: ERR.INTERNAL, message: `the worker failed: ${ev.message || 'script error'}` });
    };
    w.onmessageerror = () => this.#die(w, { code: ERR.INTERNAL, message: 'a worker message could not be read' });
    w.postMessage(P.init());
  }

  /**
   * Send one request. Returns {id, promise}; the promise resolves with the result data or
   * rejects with a plain error object {code, message, file, line, expected, detail}.
   * The data is `any`: it crossed postMessage; its shape by op is protocol.js's results.
   * @param {import('../worker/protocol.js').RunOp} op @param {Record<string, any>} args
   * @param {Record<string, File> | null} [files] @param {RequestHooks} [hooks]
   * @returns {{id: string, promise: Promise<any>}}
   */
  request(op, args, files = null, { onProgress = null, onLog = null } = {}) {
    const id = `r${this.nextId++}`;
    if (!this.worker) {
      const err = this.lastError || { code: ERR.INTERNAL, message: 'the worker is not running' };
      return { id, promise: Promise.reject(err) };
    }
    /** @type {Promise<any>} */
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, onLog });
    });
    this.worker.postMessage(P.run(id, op, args, files));
    return { id, promise };
  }

  /** Ask the worker to stop request `id`; its terminal reply (error cancelled) ends it. @param {string} id */
  cancel(id) {
    if (this.pending.has(id)) this.worker?.postMessage(P.cancel(id));
  }

  /** @param {unknown} data  a message from the worker, checked by P.validate before use */
  #onMessage(data) {
    const problem = P.validate(data);
    if (problem) {
      console.warn('bad message from worker:', problem, data);
      return;
    }
    const msg = /** @type {import('../worker/protocol.js').OutMessage} */ (data);
    switch (msg.type) {
      case MSG.BOOT:
        this.onBoot?.(msg);
        break;
      case MSG.READY:
        this.ready = true;
        this.failuresSinceReady = 0;
        this.versions = msg.versions;
        this.constants = msg.constants ?? null;
        this.onReady?.(msg.versions, msg.constants);
        break;
      case MSG.PROGRESS:
        this.pending.get(String(msg.id))?.onProgress?.(msg);
        break;
      case MSG.LOG:
        if (msg.id !== null) this.pending.get(String(msg.id))?.onLog?.(msg);
        break;
      case MSG.RESULT: {
        const p = this.pending.get(String(msg.id));
        this.pending.delete(String(msg.id));
        p?.resolve(msg.data);
        break;
      }
      case MSG.ERROR: {
        const p = this.pending.get(String(msg.id));
        this.pending.delete(String(msg.id));
        p?.reject(msg.error);
        break;
      }
      case MSG.FATAL:
        this.#die(this.worker, msg.error);
        break;
      default:
        break;
    }
  }

  /**
   * Worker `w` failed: if it is still the current one, reject its requests and replace it.
   * @param {WorkerLike | null} w @param {unknown} error
   */
  #die(w, error) {
    if (w !== this.worker) return; // already replaced (or given up on): a late event
    const err = P.toErrorObject(error);
    this.lastError = err;
    const pending = [...this.pending.values()];
    this.pending.clear();
    try { w?.terminate(); } catch { /* gone */ }
    this.worker = null;
    this.ready = false;
    this.failuresSinceReady++;
    // A missing asset will be missing again: retry it once (a flaky load), a crash up to maxRestarts.
    const limit = err.code === ERR.ASSET_LOAD_FAILED ? 1 : this.maxRestarts;
    const restart = this.failuresSinceReady <= limit;
    this.onFatal?.(err, restart);
    for (const p of pending) p.reject(err);
    if (restart) this.start();
  }
}
