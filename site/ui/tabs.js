// @ts-check
// The tabs of the page, as the WAI-ARIA tabs pattern has them
// (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/): a role=tablist of role=tab buttons, each
// controlling its role=tabpanel; one tab stop (the selected tab has tabindex 0, the others
// -1); Left/Right arrows move to the previous/next tab (wrapping), Home/End to the first/last,
// and a tab is selected as focus reaches it (automatic activation).

import { el } from '../lib/dom.js';

export class Tabs {
  /**
   * list: the role=tablist element; items: [{key, title, panel}] (panel: the tabpanel);
   * onSelect(key): a tab was chosen by a person (click or key).
   * @param {HTMLElement} list @param {Array<{key: string, title: string, panel: HTMLElement}>} items
   * @param {(key: string) => void} onSelect
   */
  constructor(list, items, onSelect) {
    this.items = items;
    this.onSelect = onSelect;
    this.buttons = items.map((s) => {
      const t = el('button', { type: 'button', role: 'tab', id: `tab-${s.key}`, text: s.title, 'aria-controls': s.panel.id, tabindex: '-1' });
      s.panel.setAttribute('aria-labelledby', t.id);
      s.panel.tabIndex = 0; // the panel's first content is text: Tab from the tab lands on it
      t.addEventListener('click', () => this.#choose(s.key, false));
      list.append(t);
      return t;
    });
    list.addEventListener('keydown', (ev) => this.#key(ev));
  }

  /** Mark `key` selected: aria-selected, the one tab stop, and which panel shows (via show). @param {string} key */
  select(key) {
    this.items.forEach((s, i) => {
      const on = s.key === key;
      this.buttons[i].setAttribute('aria-selected', String(on));
      this.buttons[i].tabIndex = on ? 0 : -1;
    });
  }

  /** @param {string} key @param {boolean} focus */
  #choose(key, focus) {
    this.select(key);
    if (focus) this.buttons[this.items.findIndex((s) => s.key === key)].focus();
    this.onSelect(key);
  }

  /** @param {KeyboardEvent} ev */
  #key(ev) {
    const at = this.buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (at < 0) return;
    const n = this.buttons.length;
    const to = /** @type {Record<string, number>} */ ({ ArrowRight: (at + 1) % n, ArrowLeft: (at - 1 + n) % n, Home: 0, End: n - 1 })[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    this.#choose(this.items[to].key, true);
  }
}
