// @ts-check
// Where things appear on the page, so a person never loses their place: boxes placed next to
// the control that caused them, scrolled into view only as far as needed, and the banner on
// results that no longer match the inputs.

import { el } from './dom.js';

/**
 * Scroll the window the least that shows `node` (nothing when it is already in view).
 * @param {Element} node
 */
export function keepInView(node) {
  const r = node.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= window.innerHeight) return;
  node.scrollIntoView({ block: 'nearest' });
}

/**
 * A box that moves next to whatever caused it (an error box: after the drop zone whose file
 * failed, or back home below the Run button for a run's error). Home is where it sits now.
 */
export class MovableBox {
  /** @param {Element} box */
  constructor(box) {
    this.box = box;
    this.home = document.createComment(`home of #${box.id}`);
    box.before(this.home);
  }

  /** Put the box right after `anchor`, or back home when anchor is null. @param {Element | null} [anchor] */
  place(anchor) {
    if (anchor) anchor.after(this.box);
    else this.home.after(this.box);
  }
}

/**
 * The banner of results that no longer match what is chosen: the results are greyed
 * (`data-stale` on the results element, style.css) and the banner says where they come from.
 */
export class StaleBanner {
  /**
   * results: the results <section>; banner: its banner element, or null to make one as the
   * section's first child (class "stale", data-stale-for = "example" | "previous").
   * @param {HTMLElement} results @param {HTMLElement | null} [banner]
   */
  constructor(results, banner = null) {
    this.results = results;
    this.banner = banner || el('p', { class: 'stale', id: `${results.id}-stale`, role: 'status', hidden: true });
    if (!banner) results.prepend(this.banner);
  }

  /**
   * Grey the results and say why. fromExample: the results are the worked example's;
   * what: the inputs they are for; reason: what changed and what to do.
   * @param {boolean} fromExample @param {string} what @param {string} reason
   */
  mark(fromExample, what, reason) {
    this.banner.textContent = `${fromExample ? 'From the example' : 'From your previous run'} (${what}): ${reason}`;
    this.banner.dataset.staleFor = fromExample ? 'example' : 'previous';
    this.banner.hidden = false;
    this.results.dataset.stale = '1';
  }

  clear() {
    this.banner.hidden = true;
    delete this.results.dataset.stale;
  }
}
