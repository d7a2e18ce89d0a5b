// The paraphrase result the page holds, and the slider's regrouping of it. No DOM: Node-tested
// in tests/js/site/paraphrases-state.test.mjs with a fake worker client.
//
// A shown result is {handle, figures, data, args, label, exports: Map}: `handle` names the job
// the worker keeps alive (worker.js) for `para_group` and `para_exports`; `figures` are those at
// the threshold shown (figures.threshold).

import { OP } from '../worker/protocol.js';

const same = (a, b) => Math.abs(a - b) < 1e-9;

/**
 * The exports ({stamp, exports: [{name, mime, text}]}) of `shown` at `threshold` (a cosine; the
 * page passes the threshold its figures show). The threshold goes to the worker with the
 * request, so a regroup still running cannot change what is exported; each threshold's exports
 * are built once (kept per 2 decimals and `keep` rule; a failed request is not kept). `keep`:
 * the row a group keeps in eval.deduplicated.* ('first' or 'longest').
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
  constructor({ client, current, onBusy, onGrouped, onFailed }) {
    Object.assign(this, { client, current, onBusy, onGrouped, onFailed });
    this.busy = false;
    this.pending = null;
  }

  /** The slider is at t: regroup to it (now, or after the running regroup). */
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

  async #regroup(shown, t) {
    this.busy = true;
    this.onBusy?.(true);
    const t0 = performance.now();
    try {
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
