// worker/embed/provider.js under Node with stub adapters: WebGPU is used only when an adapter
// exists, a WebGPU graph is shipped and every sample row agrees with WASM within cosine 0.999;
// every other case is WASM with a reason that says why (never a silent fallback).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { MIN_AGREEMENT, chooseProvider, rowCosines, sampleIndices } from '../../worker/embed/provider.js';

const DIM = 4;
/** row r of a fixed matrix: [r+1, 1, 0, 0] (hand-checkable cosines) */
const rowVec = (r) => [r + 1, 1, 0, 0];
const texts = Array.from({ length: 40 }, (_, i) => `row ${i}`);
const rowOf = (t) => Number(t.split(' ')[1]);

/** the WASM encoder: the exact vectors; records what it was asked */
function wasmStub() {
  const asked = [];
  const embed = async (batch) => {
    asked.push(...batch);
    return Float32Array.from(batch.flatMap((t) => rowVec(rowOf(t))));
  };
  return { embed, asked };
}

/** a WebGPU encoder whose vector for `bad` is rotated by `angle` (cosine = cos(angle)) */
function gpuStub({ bad = -1, angle = 0, fail = null } = {}) {
  const s = { disposed: false, created: 0 };
  s.create = async () => {
    s.created += 1;
    if (fail === 'create') throw new Error('no device');
    return {
      encode: async (batch) => {
        if (fail === 'encode') throw new Error('kernel failed');
        return Float32Array.from(batch.flatMap((t) => {
          const r = rowOf(t);
          const [x, y] = rowVec(r);
          if (r !== bad) return [x, y, 0, 0];
          // rotate in the (x, z) plane: cosine with the WASM vector is known in closed form
          const n = Math.hypot(x, y);
          return [x * Math.cos(angle), y, n * Math.sin(angle), 0];
        }));
      },
      dispose: () => { s.disposed = true; },
    };
  };
  return s;
}

const adapter = { info: { vendor: 'google', architecture: 'swiftshader' } };
const gpu = (a = adapter) => ({ requestAdapter: async () => a });

test('sampleIndices spreads the sample over the rows, first and last included', () => {
  assert.deepEqual(sampleIndices(3, 16), [0, 1, 2]);
  assert.deepEqual(sampleIndices(40, 5), [0, 10, 20, 29, 39]);
  assert.deepEqual(sampleIndices(0, 5), []);
});

test('rowCosines: hand-worked values, unnormalised inputs, zero rows are NaN', () => {
  const a = Float32Array.from([1, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0]);
  const b = Float32Array.from([2, 0, 0, 0, 4, 3, 0, 0, 1, 0, 0, 0]);
  const c = rowCosines(a, b, DIM);
  assert.equal(c[0], 1);
  assert.ok(Math.abs(c[1] - 24 / 25) < 1e-12);
  assert.ok(Number.isNaN(c[2]));
  assert.throws(() => rowCosines(a, b.subarray(4), DIM), /not the same rows/);
});

test('no navigator.gpu, no adapter, a throwing requestAdapter: WASM, with the reason', async () => {
  const w = wasmStub();
  const g = gpuStub();
  const none = await chooseProvider({ gpu: undefined, texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create });
  assert.equal(none.provider, 'wasm');
  assert.match(none.reason, /no WebGPU/);
  const nullAdapter = await chooseProvider({ gpu: gpu(null), texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create });
  assert.deepEqual([nullAdapter.provider, nullAdapter.reason], ['wasm', 'navigator.gpu gave no adapter']);
  const throwing = await chooseProvider({ gpu: { requestAdapter: async () => { throw new Error('blocked'); } }, texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create });
  assert.match(throwing.reason, /requestAdapter\(\) failed: blocked/);
  assert.equal(g.created, 0);
  assert.deepEqual(w.asked, []);
});

test('an adapter but no WebGPU graph in the build: WASM, naming the adapter', async () => {
  const w = wasmStub();
  const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: w.embed, createWebgpu: null });
  assert.equal(c.provider, 'wasm');
  assert.equal(c.adapter, 'google swiftshader');
  assert.match(c.reason, /google swiftshader found, but this build ships no fp32\/fp16 graph/);
});

test('every sample row agrees: WebGPU, the sample taken from the user rows', async () => {
  const w = wasmStub();
  const g = gpuStub();
  const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create, sampleSize: 5 });
  assert.equal(c.provider, 'webgpu');
  assert.equal(c.sample_rows, 5);
  assert.equal(c.min_cosine, 1);
  assert.deepEqual(w.asked, ['row 0', 'row 10', 'row 20', 'row 29', 'row 39']);
  assert.ok(c.webgpu && !g.disposed, 'the chosen WebGPU encoder is handed over, not disposed');
  assert.match(c.reason, /all 5 sample rows agree/);
});

test('one row below cosine 0.999: WASM, naming that row and its cosine; the WebGPU encoder is disposed', async () => {
  // cos(angle) = 0.998 for row 20 only, just under MIN_AGREEMENT
  const angle = Math.acos(0.998);
  const w = wasmStub();
  const g = gpuStub({ bad: 20, angle });
  const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create, sampleSize: 5 });
  assert.equal(c.provider, 'wasm');
  assert.ok(Math.abs(c.min_cosine - 0.998) < 1e-6, String(c.min_cosine));
  assert.match(c.reason, /input row 21 has cosine 0\.99800 < 0\.999/);
  assert.equal(c.webgpu, null);
  assert.ok(g.disposed);
});

test('cosines just above 0.999 (0.9995, 0.999 + 1e-9) are trusted', async () => {
  for (const cos of [0.9995, MIN_AGREEMENT + 1e-9]) {
    const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: wasmStub().embed, createWebgpu: gpuStub({ bad: 10, angle: Math.acos(cos) }).create, sampleSize: 5 });
    assert.equal(c.provider, 'webgpu', `cosine ${cos}`);
  }
});

test('WebGPU that fails to start or to run, or returns NaN: WASM with the error', async () => {
  for (const fail of ['create', 'encode']) {
    const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: wasmStub().embed, createWebgpu: gpuStub({ fail }).create });
    assert.equal(c.provider, 'wasm');
    assert.match(c.reason, fail === 'create' ? /failed: no device/ : /failed: kernel failed/);
  }
  const nan = { encode: async (batch) => new Float32Array(batch.length * DIM).fill(NaN) };
  const c = await chooseProvider({ gpu: gpu(), texts, dim: DIM, embedWasm: wasmStub().embed, createWebgpu: async () => nan, sampleSize: 3 });
  assert.equal(c.provider, 'wasm');
  assert.match(c.reason, /cosine NaN/);
});

test('a software fallback adapter means WASM unless allowFallback, and is never started', async () => {
  const fallback = { info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true } };
  const w = wasmStub();
  const g = gpuStub();
  const choice = await chooseProvider({ gpu: gpu(fallback), texts, dim: DIM, embedWasm: w.embed, createWebgpu: g.create });
  assert.equal(choice.provider, 'wasm');
  assert.equal(choice.reason, 'WebGPU adapter google swiftshader is a software fallback adapter (WebGPU on the CPU, slower than WASM); open the page with ?webgpu=any to use it anyway');
  assert.equal(choice.adapter, 'google swiftshader');
  assert.equal(g.created, 0);
  assert.deepEqual(w.asked, []); // no sample embedded either
  // asked for: the usual agreement check decides
  const w2 = wasmStub();
  const g2 = gpuStub();
  const forced = await chooseProvider({ gpu: gpu(fallback), texts, dim: DIM, embedWasm: w2.embed, createWebgpu: g2.create, allowFallback: true });
  assert.equal(forced.provider, 'webgpu');
  assert.equal(forced.sample_rows, 16);
  assert.equal(g2.created, 1);
});
