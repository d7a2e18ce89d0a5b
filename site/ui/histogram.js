// A bar histogram in an <svg> with a vertical threshold line (bins of equal width from 0).

import { svg } from '../lib/dom.js';

const BOX = Object.freeze({ W: 420, H: 150, L: 34, R: 10, T: 8, B: 22 }); // px: size and margins
const TITLED = Object.freeze({ W: 420, H: 170, L: 46, R: 10, T: 8, B: 36 }); // with axis titles (viewBox 0 0 420 170)
const QUARTERS = [0, 1, 2, 3, 4].map((i) => i / 4);

/**
 * Draw hist = {bin_width, counts} into `box` (an <svg>, viewBox 0 0 420 150): bar i covers
 * [i × bin_width, (i+1) × bin_width); a bar whose bin ends above `threshold` is `.bar.above`;
 * the threshold is `line.threshold` with data-threshold (2 decimals); a null threshold draws no
 * line and marks no bar (any overlap: the first bin mixes clean and contaminated rows). ticks: x values labelled
 * (the x axis spans 0..1). xTitle, yTitle: axis titles (`text.axis-title`); with them the
 * drawing is 420 × 170 (viewBox 0 0 420 170).
 */
export function drawHistogram(box, hist, threshold, { ticks = QUARTERS, xTitle = '', yTitle = '' } = {}) {
  const { W, H, L, R, T, B } = xTitle || yTitle ? TITLED : BOX;
  const above = (/** @type {number} */ hi) => threshold !== null && hi > threshold;
  const counts = hist.counts;
  const max = Math.max(1, ...counts);
  const bw = (W - L - R) / counts.length;
  const x = (c) => L + c * (W - L - R);
  const nodes = [svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B })];
  counts.forEach((n, i) => {
    const h = ((H - T - B) * n) / max;
    const lo = i * hist.bin_width;
    const bar = svg('rect', { class: above(lo + hist.bin_width) ? 'bar above' : 'bar', x: (L + i * bw + 0.5).toFixed(1), y: (H - B - h).toFixed(1), width: (bw - 1).toFixed(1), height: h.toFixed(1), 'data-bin': i, 'data-count': n });
    bar.append(svg('title', {}, `${lo.toFixed(2)}–${(lo + hist.bin_width).toFixed(2)}: ${n} row${n === 1 ? '' : 's'}`));
    nodes.push(bar);
  });
  for (const c of ticks) nodes.push(svg('text', { class: 'tick', x: x(c), y: H - B + 16, 'text-anchor': 'middle' }, String(c)));
  if (xTitle) nodes.push(svg('text', { class: 'axis-title x-title', x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, xTitle));
  if (yTitle) nodes.push(svg('text', { class: 'axis-title y-title', x: 0, y: 0, 'text-anchor': 'middle', transform: `translate(12 ${(T + H - B) / 2}) rotate(-90)` }, yTitle));
  nodes.push(svg('text', { class: 'tick', x: L - 4, y: T + 8, 'text-anchor': 'end' }, String(max)));
  if (threshold !== null) nodes.push(svg('line', { class: 'threshold', x1: x(threshold).toFixed(1), x2: x(threshold).toFixed(1), y1: T, y2: H - B, 'data-threshold': threshold.toFixed(2) }));
  box.replaceChildren(...nodes);
}
