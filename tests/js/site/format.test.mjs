// site/lib/format.js: hand-worked values.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fmtInt, fmtBytes, describeError, progressText, plural } from '../../../site/lib/format.js';

test('numbers, sizes and durations for a person', () => {
  assert.equal(fmtInt(1234567), '1,234,567');
  assert.equal(fmtInt(undefined), '–');
  assert.equal(fmtInt('x'), 'x');
  assert.equal(fmtBytes(999), '999 B');
  assert.equal(fmtBytes(1500), '1.5 kB');
  assert.equal(fmtBytes(2_500_000), '2.5 MB');
  assert.equal(fmtBytes(3e9), '3.00 GB');
  assert.equal(fmtBytes(null), '–');
  assert.equal(plural(1, 'row'), '1 row');
  assert.equal(plural(2, 'row'), '2 rows');
});

test('an error says where and what was expected', () => {
  assert.deepEqual(describeError({ message: 'bad JSON', file: 'a.jsonl', line: 3, expected: 'an object' }),
    { where: 'a.jsonl, line 3', text: 'a.jsonl, line 3: bad JSON (expected an object)' });
  assert.deepEqual(describeError({ message: 'boom', file: null, line: null, expected: null }), { where: '', text: 'boom' });
});

test('progress line: rate after 0.2 s, ETA = left / rate, worker ETA preferred when asked', () => {
  const stages = { train: 'Training pass' };
  // 2 MB done in 1 s since the stage started at 0 bytes: 2.0 MB/s; 8 MB left: 4 s.
  const m = { stage: 'train', done: 2e6, total: 10e6, unit: 'bytes' };
  assert.equal(progressText(m, { t: 0, done: 0 }, 1000, { stages, speedUnit: 'bytes' }),
    'Training pass: 2.0 MB of 10.0 MB · 2.0 MB/s · ETA 4 s');
  // Under 0.2 s: no rate, no ETA.
  assert.equal(progressText(m, { t: 0, done: 0 }, 100, { stages, speedUnit: 'bytes' }), 'Training pass: 2.0 MB of 10.0 MB');
  // Rows: 30 rows in 2 s = 15.0 rows/s; the worker's eta_s (90) wins over 70 / 15.
  const r = { stage: 'embed', done: 30, total: 100, unit: 'rows', eta_s: 90 };
  assert.equal(progressText(r, { t: 0, done: 0 }, 2000, { stages: { embed: 'Embedding' }, speedUnit: 'rows', useWorkerEta: true }),
    'Embedding: 30 of 100 rows · 15.0 rows/s · ETA 1 min 30 s');
  assert.equal(progressText(r, { t: 0, done: 0 }, 2000, { speedUnit: 'rows' }), 'embed: 30 of 100 rows · 15.0 rows/s · ETA 5 s');
  // ETA in minutes: 1 of 126 rows in 1 s -> 125 s left.
  assert.equal(progressText({ stage: 'embed', done: 1, total: 126, unit: 'rows' }, { t: 0, done: 0 }, 1000, {}),
    'embed: 1 of 126 rows · ETA 2 min 5 s');
  // Done: no ETA.
  assert.equal(progressText({ ...r, done: 100 }, { t: 0, done: 0 }, 2000, {}), 'embed: 100 of 100 rows');
});
