// @ts-check
// The event log: one <li> per step, with seconds since the page started; it scrolls only
// inside its own box.

import { el } from './dom.js';

export class EventLog {
  /** list: the <ol> to append to. @param {HTMLElement} list */
  constructor(list) {
    this.list = list;
    this.t0 = performance.now();
  }

  /** kind: 'info' | 'warn' | 'error' | 'done' (a CSS class and data-kind). @param {string} message @param {string} [kind] */
  add(message, kind = 'info') {
    const t = ((performance.now() - this.t0) / 1000).toFixed(1);
    const item = el('li', { class: `log-${kind}`, dataset: { kind } }, el('time', { text: `${t} s` }), ' ', el('span', { text: message }));
    // The log scrolls inside its own box, never the window (item.scrollIntoView would move
    // the page to the log); it follows new lines only while it is scrolled to its end.
    const list = this.list;
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 4;
    list.append(item);
    if (atEnd) list.scrollTop = list.scrollHeight;
  }
}
