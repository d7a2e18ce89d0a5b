// @ts-check
// The pure parts of a histogram (ui/histogram.js): round ticks, the bins seen through an x
// range, and the chart as one sentence. Node-tested in tests/js/site/histogram.test.mjs.

const EPS = 1e-9; // bin edges are i × bin_width in floating point (15 × 0.05 is not exactly 3/4)

/**
 * Round tick values covering [lo, hi]: the smallest step of 0.01, 0.02, 0.05, 0.1, 0.2, 0.25,
 * 0.5, 1 giving at most `most` ticks, from the first multiple of it at or above lo.
 *
 * @param {number} lo
 * @param {number} hi  > lo
 * @param {number} [most]
 * @returns {number[]} e.g. (0, 1) → [0, 0.2, 0.4, 0.6, 0.8, 1]; (0.5, 1) → [0.5, 0.6, …, 1]
 */
export function niceTicks(lo, hi, most = 6) {
  const step = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1].find((s) => (hi - lo) / s + 1 <= most + EPS) ?? (hi - lo);
  const out = [];
  for (let k = Math.ceil(lo / step - EPS); k * step <= hi + EPS; k++) out.push(Number((k * step).toFixed(4)));
  return out;
}

/**
 * The bins of hist = {bin_width, counts} (bin i covers [i × bin_width, (i+1) × bin_width), from
 * 0) seen through the x range [lo, hi].
 *
 * @param {{bin_width: number, counts: number[]}} hist
 * @param {number[]} domain  [lo, hi]
 * @returns {{bars: {bin: number, lo: number, hi: number, count: number}[], below: number,
 *   beyond: number}} bars: the bins that overlap (lo, hi), with their own edges; below / beyond:
 *   how many counts sit in bins wholly left of lo / right of hi (not drawn)
 */
export function binsInDomain(hist, [lo, hi]) {
  const bars = /** @type {{bin: number, lo: number, hi: number, count: number}[]} */ ([]);
  let below = 0, beyond = 0;
  hist.counts.forEach((count, bin) => {
    const a = bin * hist.bin_width, b = (bin + 1) * hist.bin_width;
    if (b <= lo + EPS) below += count;
    else if (a >= hi - EPS) beyond += count;
    else bars.push({ bin, lo: a, hi: b, count });
  });
  return { bars, below, beyond };
}

/** A bin's range as printed: 2 decimals, an en dash. */
export const rangeText = (/** @type {number} */ a, /** @type {number} */ b) => `${a.toFixed(2)}–${b.toFixed(2)}`;
/** "1 row", "2 rows" (unit is plural: 'rows', 'eval rows'). */
export const rowsText = (/** @type {number} */ n, /** @type {string} */ unit) => `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;

/**
 * The chart as one sentence for screen readers (and anyone): counts per drawn range, what lies
 * off the chart, and the threshold with the count of rows in the bars right of it.
 *
 * @param {{bin_width: number, counts: number[]}} hist
 * @param {number|null} threshold  null: no line
 * @param {{domain?: number[], what?: string, unit?: string}} [opts]  what: the quantity, unit: 'rows'
 * @returns {string} e.g. "Containment of 12 eval rows: 0.00–0.10: 9, …(one count per bin)….
 *   Threshold 0.50 (red line): the bars right of it hold 2 rows."
 */
export function histogramSummary(hist, threshold, { domain = [0, 1], what = 'Values', unit = 'rows' } = {}) {
  const { bars, below, beyond } = binsInDomain(hist, domain);
  const total = hist.counts.reduce((s, n) => s + n, 0);
  const parts = bars.map((b) => `${rangeText(b.lo, b.hi)}: ${b.count}`);
  if (below) parts.push(`below ${domain[0].toFixed(2)} (left of the chart): ${below}`);
  if (beyond) parts.push(`above ${domain[1].toFixed(2)} (right of the chart): ${beyond}`);
  let s = `${what} of ${rowsText(total, unit)}: ${parts.join(', ')}.`;
  if (threshold !== null) {
    const right = bars.filter((b) => b.hi > threshold + EPS).reduce((n, b) => n + b.count, 0) + beyond;
    s += ` Threshold ${threshold.toFixed(2)} (red line): the bars right of it hold ${rowsText(right, unit)}.`;
  }
  return s;
}
