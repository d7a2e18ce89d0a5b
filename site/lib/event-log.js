// The event log: one <li> per step, with seconds since the page started.

import { el } from './dom.js';

export class EventLog {
  /** list: the <ol> to append to. */
  constructor(list) {
    this.list = list;
    this.t0 = performance.now();
  }

  /** kind: 'info' | 'warn' | 'error' | 'done' (a CSS class and data-kind). */
  add(message, kind = 'info') {
    const t = ((performance.now() - this.t0) / 1000).toFixed(1);
    const item = el('li', { class: `log-${kind}`, dataset: { kind } }, el('time', { text: `${t} s` }), ' ', el('span', { text: message }));
    this.list.append(item);
    item.scrollIntoView?.({ block: 'nearest' });
  }
}
