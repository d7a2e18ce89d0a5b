// worker/embed/similarity.js (and schedule.js's batch order) under Node: tiled pairs and nearest neighbours against a naive n x n
// scan, block sizes that do and do not divide n, and the packed layout the bridge reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DIM, dotTile, packSimilarity, similarity } from '../../worker/embed/similarity.js';
import { batchCosts, embeddingOrder } from '../../worker/embed/schedule.js';

/** n unit vectors from a fixed LCG, with some near-copies so pairs above the floor exist. */
function vectors(n, seed = 7) {
  let s = seed;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 - 0.5; };
  const e = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const src = i % 5 === 4 ? i - 1 : i; // every 5th row is a noisy copy of the one before
    for (let d = 0; d < DIM; d++) e[i * DIM + d] = src === i ? rnd() : e[src * DIM + d] + 0.02 * rnd();
    let norm = 0;
    for (let d = 0; d < DIM; d++) norm += e[i * DIM + d] ** 2;
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIM; d++) e[i * DIM + d] /= norm;
  }
  return e;
}

async function naive(e, n, floor) {
  const full = await dotTile(e, n, e, n);
  const pairs = [];
  const nn = [];
  const nni = [];
  for (let i = 0; i < n; i++) {
    let best = -Infinity;
    let arg = -1;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const v = full[i * n + j];
      if (v > best) { best = v; arg = j; }
      if (j > i && v >= Math.fround(floor)) pairs.push([i, j, v]);
    }
    nn.push(best);
    nni.push(arg);
  }
  return { pairs, nn, nni };
}

for (const [n, block] of [[23, 5], [23, 23], [40, 8], [1, 4], [2, 512]]) {
  test(`tiles of ${block} over ${n} rows match the naive scan`, async () => {
    const e = vectors(n);
    const got = await similarity(e, n, dotTile, 0.75, { block });
    const want = await naive(e, n, 0.75);
    assert.deepEqual([...got.I].map((i, t) => [i, got.J[t], got.C[t]]), want.pairs);
    if (n === 1) {
      assert.deepEqual([...got.NN, ...got.NNI], [0, -1]);
    } else {
      assert.deepEqual([...got.NN], want.nn.map(Math.fround));
      assert.deepEqual([...got.NNI], want.nni);
    }
    if (n >= 5) assert.ok(got.I.length >= Math.floor(n / 5), 'the noisy copies are found');
  });
}

test('progress covers every tile of the upper triangle, and a throw stops the scan', async () => {
  const e = vectors(40);
  const seen = [];
  await similarity(e, 40, dotTile, 0.75, { block: 8, onBlock: async (d, t) => seen.push([d, t]) });
  assert.equal(seen.length, 15); // 5 tile rows: 5 + 4 + 3 + 2 + 1
  assert.deepEqual(seen.at(-1), [15, 15]);
  await assert.rejects(similarity(e, 40, dotTile, 0.75, { block: 8, onBlock: async (d) => { if (d === 3) throw new Error('stop'); } }), /stop/);
});

test('packed block: little-endian I, J, C, NN, NNI, EMB', () => {
  const sim = { I: Int32Array.of(0, 1), J: Int32Array.of(2, 2), C: Float32Array.of(0.9, 0.8), NN: Float32Array.of(0.9, 0.8, 0.9), NNI: Int32Array.of(2, 2, 0) };
  const emb = new Float32Array(3 * DIM).fill(0.5);
  const u8 = packSimilarity(sim, emb);
  assert.equal(u8.length, 12 * 2 + 8 * 3 + 4 * 3 * DIM);
  const dv = new DataView(u8.buffer);
  assert.equal(dv.getInt32(4, true), 1);
  assert.equal(dv.getInt32(12, true), 2);
  assert.equal(dv.getFloat32(16, true), Math.fround(0.9));
  assert.equal(dv.getFloat32(24 + 4, true), Math.fround(0.8));
  assert.equal(dv.getInt32(36 + 8, true), 0);
  assert.equal(dv.getFloat32(48, true), 0.5);
  assert.equal(packSimilarity(sim).length, 48);
});

test('length order and padded cost', () => {
  const lengths = [5, 9, 5, 20];
  assert.deepEqual(embeddingOrder(lengths), [3, 1, 0, 2]);
  assert.deepEqual(embeddingOrder(lengths, false), [0, 1, 2, 3]);
  assert.deepEqual(batchCosts(lengths, [3, 1, 0, 2], 2), [40, 50]);
  assert.deepEqual(batchCosts(lengths, [0, 1, 2, 3], 2), [18, 58]);
});
