// @ts-check
// The paraphrase result the page holds, and the slider's regrouping of it. No DOM: Node-tested
// in tests/js/site/paraphrases-state.test.mjs with a fake worker client.
//
// A shown result is {handle, figures, data, args, label, exports: Map}: `handle` names the job
// the worker keeps alive (worker.js) for `para_group` and `para_exports`; `figures` are those at
// the threshold shown (figures.threshold).

import { OP } from '../worker/protocol.js';

/**
 * @typedef {Pick<import('../lib/worker-client.js').WorkerClient, 'request'>} Client
 * @typedef {import('../worker/protocol.js').ParaExportsResult} ParaExports
 * @typedef {{handle: number, figures: Record<string, any>, data: import('../worker/protocol.js').ParaphrasesResult,
 *   args: {eval: {name: string, format: string, field: string | null, label_field: string | null, fields?: string[]}, threshold: number} & Record<string, any>,
 *   label: string, exports: Map<string, Promise<ParaExports>>}} Shown  figures: Python's, at figures.threshold
 * @typedef {{figures: Record<string, any>, ms: number}} Grouped  para.group's answer
 */

const same = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) < 1e-9;

/**
 * The exports ({stamp, exports: [{name, mime, text}]}) of `shown` at `threshold` (a cosine; the
 * page passes the threshold its figures show). The threshold goes to the worker with the
 * request, so a regroup still running cannot change what is exported; each threshold's exports
 * are built once (kept per 2 decimals and `keep` rule; a failed request is not kept). `keep`:
 * the row a group keeps in eval.deduplicated.* ('first' or 'longest').
 * @param {Client} client @param {Shown} shown @param {number} threshold @param {string} [keep]
 * @returns {Promise<ParaExports>}
 */
export function exportsAt(client, shown, threshold, keep = 'first') {
  const key = `${threshold.toFixed(2)} ${keep}`;
  let v = shown.exports.get(key);
  if (!v) {
    v = client.request(OP.PARA_EXPORTS, { handle: shown.handle, threshold, keep }).promise;
    shown.exports.set(key, v);
    v.catch(() => { if (shown.exports.get(key) === v) shown.exports.delete(key); });
  }
  return v;
}

/**
 * Regroups the shown result when the slider moves: one `para_group` at a time; a threshold
 * asked for while one runs waits, and only the latest waiting one is sent.
 *
 * Options: client (lib/worker-client.js); current() -> the shown result or null;
 * onBusy(busy); onGrouped(shown, reply {figures, ms}, t, ms) after shown.figures is updated
 * (a promise it returns is awaited before the next regroup and onBusy(false)); onFailed(err).
 */
export class Regrouper {
  /**
   * @param {{client: Client, current: () => Shown | null, onBusy?: (busy: boolean) => void,
   *   onGrouped?: (shown: Shown, v: Grouped, t: number, ms: number) => unknown, onFailed?: (err: unknown) => void}} opts
   */
  constructor({ client, current, onBusy, onGrouped, onFailed }) {
    this.client = client;
    this.current = current;
    this.onBusy = onBusy;
    this.onGrouped = onGrouped;
    this.onFailed = onFailed;
    this.busy = false;
    /** @type {number | null} */
    this.pending = null;
  }

  /** The slider is at t: regroup to it (now, or after the running regroup). @param {number} t */
  want(t) {
    const shown = this.current();
    if (!shown) return;
    if (this.busy) {
      this.pending = t;
      return;
    }
    if (same(t, shown.figures.threshold)) return;
    this.#regroup(shown, t);
  }

  /** @param {Shown} shown @param {number} t */
  async #regroup(shown, t) {
    this.busy = true;
    this.onBusy?.(true);
    const t0 = performance.now();
    try {
      /** @type {Grouped} */
      const v = await this.client.request(OP.PARA_GROUP, { handle: shown.handle, threshold: t }).promise;
      if (this.current() !== shown) return;
      shown.figures = v.figures;
      await this.onGrouped?.(shown, v, t, performance.now() - t0); // (busy until its rows are drawn)
    } catch (err) {
      // A newer run replaced this result (and the worker closed its job): nothing to show.
      if (this.current() !== shown) return;
      this.onFailed?.(err);
    } finally {
      this.busy = false;
      this.onBusy?.(false);
      const next = this.pending;
      this.pending = null;
      const now = this.current();
      if (next !== null && now && !same(next, now.figures.threshold)) this.#regroup(now, next);
    }
  }
}
