// site/lib/chart.js (ui/histogram.js's pure parts): ticks, the zoomed range and the text summary (hand-worked values).
import test from 'node:test';
import assert from 'node:assert/strict';
import { niceTicks, binsInDomain, histogramSummary } from '../../../site/lib/chart.js';

test('ticks are round and cover the range', () => {
  assert.deepEqual(niceTicks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(0.75, 1), [0.75, 0.8, 0.85, 0.9, 0.95, 1]);
  assert.deepEqual(niceTicks(0.5, 1), [0.5, 0.6, 0.7, 0.8, 0.9, 1]);
  assert.deepEqual(niceTicks(0.7, 0.95), [0.7, 0.75, 0.8, 0.85, 0.9, 0.95]);
});

// 20 bins of 0.05 (the nearest-neighbour histogram): 2 rows below 0.75, then 1, 0, 3, 4, 2
const NN = { bin_width: 0.05, counts: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 3, 4, 2] };

test('the range 0.75..1 keeps bins 15-19 and counts what lies left of it', () => {
  const { bars, below, beyond } = binsInDomain(NN, [0.75, 1]);
  assert.deepEqual(bars.map((b) => [b.bin, b.count]), [[15, 1], [16, 0], [17, 3], [18, 4], [19, 2]]);
  assert.equal(below, 2); // bins 10 and 14; bin 14 ends at 0.75 (15 × 0.05 = 0.7500000000000001)
  assert.equal(beyond, 0);
  const whole = binsInDomain(NN, [0, 1]);
  assert.equal(whole.bars.length, 20);
  assert.equal(whole.below + whole.beyond, 0);
  // a range ending before 1 leaves the last bins to the right
  assert.deepEqual(binsInDomain(NN, [0.75, 0.9]), { bars: binsInDomain(NN, [0.75, 0.9]).bars, below: 2, beyond: 6 });
});

test('the summary gives counts per range, the off-chart rows and the threshold', () => {
  assert.equal(histogramSummary(NN, 0.9, { domain: [0.75, 1], what: 'Nearest-neighbour cosine', unit: 'rows' }),
    'Nearest-neighbour cosine of 12 rows: 0.75–0.80: 1, 0.80–0.85: 0, 0.85–0.90: 3, 0.90–0.95: 4, 0.95–1.00: 2, '
    + 'below 0.75 (left of the chart): 2. Threshold 0.90 (red line): the bars right of it hold 6 rows.');
  // a threshold inside a bin counts that bin as right of it (its bar is drawn in the stronger colour)
  assert.match(histogramSummary(NN, 0.87, { domain: [0.75, 1] }), /Threshold 0\.87 \(red line\): the bars right of it hold 9 rows\.$/);
  const cont = { bin_width: 0.1, counts: [1, 0, 0, 0, 0, 0, 0, 0, 0, 1] };
  assert.equal(histogramSummary(cont, null, { what: 'Containment', unit: 'eval rows' }),
    'Containment of 2 eval rows: 0.00–0.10: 1, 0.10–0.20: 0, 0.20–0.30: 0, 0.30–0.40: 0, 0.40–0.50: 0, '
    + '0.50–0.60: 0, 0.60–0.70: 0, 0.70–0.80: 0, 0.80–0.90: 0, 0.90–1.00: 1.');
  assert.match(histogramSummary({ bin_width: 0.1, counts: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0] }, 0.5, { unit: 'eval rows' }),
    /hold 1 eval row\.$/);
});
