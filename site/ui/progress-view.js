// @ts-check
// A progress bar and its line of text ("Embedding: 120 of 500 rows · 31.0 rows/s · ETA 12 s").

import { progressText } from '../lib/format.js';

export class ProgressView {
  /**
   * root: the .progress box (hidden when idle; data-stage names the stage shown);
   * bar: its <progress>; text: the element for the line.
   * opts: passed to format.progressText ({stages, speedUnit, useWorkerEta}).
   * @param {{root: HTMLElement, bar: HTMLProgressElement, text: HTMLElement}} els
   * @param {Parameters<typeof progressText>[3]} [opts]
   */
  constructor({ root, bar, text }, opts = {}) {
    this.root = root;
    this.bar = bar;
    this.text = text;
    this.opts = opts;
    /** @type {Map<string, {t: number, done: number}>} */
    this.stageStart = new Map(); // stage -> {t, done} when first seen in this run
  }

  /** Show an empty bar ("starting…") for a new run. */
  begin() {
    this.root.hidden = false;
    this.bar.value = 0;
    this.text.textContent = 'starting…';
    this.stageStart.clear();
  }

  /** One progress message {stage, done, total, unit, eta_s?}. @param {import('../worker/protocol.js').ProgressMsg} m */
  update(m) {
    const now = performance.now();
    let start = this.stageStart.get(m.stage);
    if (!start) this.stageStart.set(m.stage, start = { t: now, done: m.done });
    this.bar.max = m.total || 1;
    this.bar.value = Math.min(m.done, m.total || m.done);
    this.text.textContent = progressText(m, start, now, this.opts);
    this.root.dataset.stage = m.stage;
  }

  hide() {
    this.root.hidden = true;
  }
}
