// @ts-check
// A bar histogram that reads: an <svg> drawn in a 360 × 200 viewBox that CSS stretches to its
// container's width (no fixed pixel size), axis titles, 14-unit tick labels (≥ 12 px on a
// phone-sized screen), the x axis zoomed to a domain (the paraphrase slider's range), a
// labelled threshold line, the bars above it in the stronger colour, and a text summary (counts
// per range and the threshold) that the <svg> names with aria-describedby. The pure parts
// (ticks, bins in range, the summary) are in lib/chart.js.

import { binsInDomain, histogramSummary, niceTicks, rangeText, rowsText } from '../lib/chart.js';
import { el, svg } from '../lib/dom.js';

const BOX = Object.freeze({ W: 360, H: 200, L: 46, R: 14, T: 24, B: 46 }); // viewBox units and margins
const EPS = 1e-9; // as lib/chart.js: bin edges are i × bin_width in floating point

/**
 * Draw hist = {bin_width, counts} into the <svg> `box` over the x range `domain`.
 *
 * Bars are `rect.bar` (data-bin, data-count, data-lo, data-hi); a bar whose bin ends above
 * `threshold` is `.bar.above` (the stronger colour); the threshold is `line.threshold`
 * (data-threshold, 2 decimals) with `text.threshold-label`; a null threshold draws no line and
 * marks no bar (any overlap). The <svg> gets data-domain "lo hi" and data-below (counts left of
 * the range). Its summary (histogramSummary) goes in a `p.chart-summary` (id `<svg id>-summary`)
 * after the <svg>, made once, and aria-describedby points to it.
 *
 * @param {SVGSVGElement} box  has an id
 * @param {{bin_width: number, counts: number[]}} hist
 * @param {number|null} threshold
 * With `log`, bar heights are log10(1 + count) (a few rows beside many stay visible; ticks
 * at powers of ten, data-scale "log"). With `onBar`, each bar with rows is a button (role,
 * tabindex, Enter/Space) that calls onBar({bin, lo, hi, count}).
 *
 * @param {{domain?: number[], ticks?: number[], xTitle?: string, yTitle?: string, what?: string,
 *   unit?: string, log?: boolean, onBar?: (bar: {bin: number, lo: number, hi: number, count: number}) => void}} [opts]
 *   domain default [0, 1]; ticks default niceTicks(domain)
 */
export function drawHistogram(box, hist, threshold, { domain = [0, 1], ticks, xTitle = '', yTitle = '', what = 'Values', unit = 'rows', log = false, onBar } = {}) {
  const { W, H, R, T, B } = BOX;
  const [lo, hi] = domain;
  const { bars, below } = binsInDomain(hist, domain);
  const max = Math.max(1, ...bars.map((b) => b.count));
  const yTicks = log ? [1, 10, 100, 1e3, 1e4, 1e5, 1e6].filter((n) => n <= max) // 0 is the axis
    : [...new Set([0, max >= 4 ? Math.round(max / 2) : 0, max])];
  const yLabels = yTicks.map((n) => n.toLocaleString('en-US'));
  // the left margin holds the longest y label (14-unit digits ≈ 8.5 units wide) and the y title
  const L = Math.max(BOX.L, 30 + Math.ceil(8.5 * Math.max(...yLabels.map((t) => t.length))));
  const scale = (/** @type {number} */ n) => (log ? Math.log10(1 + n) / Math.log10(1 + max) : n / max);
  const x = (/** @type {number} */ v) => L + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * (W - L - R);
  const y = (/** @type {number} */ n) => H - B - (H - T - B) * scale(n);
  const nodes = [svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B })];
  for (const b of bars) {
    const x0 = x(b.lo), x1 = x(b.hi);
    const bar = svg('rect', { class: threshold !== null && b.hi > threshold + EPS ? 'bar above' : 'bar',
      x: (x0 + 0.5).toFixed(1), y: y(b.count).toFixed(1), width: Math.max(0, x1 - x0 - 1).toFixed(1),
      height: (H - B - y(b.count)).toFixed(1), 'data-bin': b.bin, 'data-count': b.count,
      'data-lo': b.lo.toFixed(2), 'data-hi': b.hi.toFixed(2) });
    bar.append(svg('title', {}, `${rangeText(b.lo, b.hi)}: ${rowsText(b.count, unit)}${onBar && b.count ? ' (click to list them)' : ''}`));
    if (onBar && b.count) {
      for (const [k, v] of [['role', 'button'], ['tabindex', '0'], ['aria-label', `${rangeText(b.lo, b.hi)}: ${rowsText(b.count, unit)}; list them`]]) bar.setAttribute(k, v);
      bar.classList.add('clickable');
      bar.addEventListener('click', () => onBar(b));
      bar.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onBar(b); } });
      // a thin bar is hard to hit: an invisible target the full height of the plot
      const hit = svg('rect', { class: 'bar-hit', x: (x0 + 0.5).toFixed(1), y: T, width: Math.max(0, x1 - x0 - 1).toFixed(1), height: H - B - T, 'data-bin': b.bin });
      hit.addEventListener('click', () => onBar(b));
      nodes.push(hit);
    }
    nodes.push(bar);
  }
  for (const c of ticks ?? niceTicks(lo, hi)) {
    nodes.push(svg('line', { class: 'axis', x1: x(c), x2: x(c), y1: H - B, y2: H - B + 4 }));
    nodes.push(svg('text', { class: 'tick x-tick', x: x(c), y: H - B + 18, 'text-anchor': 'middle' }, String(c)));
  }
  yTicks.forEach((n, i) => {
    nodes.push(svg('text', { class: 'tick y-tick', x: L - 6, y: y(n) + 5, 'text-anchor': 'end' }, yLabels[i]));
  });
  if (xTitle) nodes.push(svg('text', { class: 'axis-title x-title', x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle' }, xTitle));
  if (yTitle) nodes.push(svg('text', { class: 'axis-title y-title', x: 0, y: 0, 'text-anchor': 'middle', transform: `translate(14 ${(T + H - B) / 2}) rotate(-90)` }, yTitle));
  if (threshold !== null) {
    const tx = x(threshold);
    nodes.push(svg('line', { class: 'threshold', x1: tx.toFixed(1), x2: tx.toFixed(1), y1: T - 4, y2: H - B, 'data-threshold': threshold.toFixed(2) }));
    const right = tx > (L + W - R) / 2;
    nodes.push(svg('text', { class: 'threshold-label', x: (tx + (right ? -4 : 4)).toFixed(1), y: T - 8, 'text-anchor': right ? 'end' : 'start' }, `threshold ${threshold.toFixed(2)}`));
  }
  box.replaceChildren(...nodes);
  box.removeAttribute('width');
  box.removeAttribute('height');
  box.setAttribute('viewBox', `0 0 ${W} ${H}`);
  box.dataset.domain = `${lo} ${hi}`;
  box.dataset.below = String(below);
  box.dataset.scale = log ? 'log' : 'linear';
  const summary = summaryFor(box);
  summary.textContent = histogramSummary(hist, threshold, { domain, what, unit });
}

/** The `p.chart-summary` after `box` (made once), named by its aria-describedby. */
function summaryFor(/** @type {SVGSVGElement} */ box) {
  const id = `${box.id}-summary`;
  let p = box.ownerDocument.getElementById(id);
  if (!p) {
    p = el('p', { class: 'chart-summary', id });
    box.after(p);
    box.setAttribute('aria-describedby', id);
  }
  return p;
}
