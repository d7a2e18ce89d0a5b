// worker/embed/webgpu.js under Node: which manifest entries make a WebGPU build. Nothing is
// loaded here (no adapter in Node); the page runs it in tests/e2e/test_e2e_webgpu.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { WEBGPU_ASSETS, webgpuAssets } from '../../worker/embed/webgpu.js';

const entry = (path) => ({ version: '1.30.0', sha256: 'a'.repeat(64), path });
const SHIPPED = {
  'ort.webgpu.min.mjs': entry('assets/ort/ort.webgpu.min.mjs'),
  'ort-wasm-simd-threaded.asyncify.mjs': entry('assets/ort/ort-wasm-simd-threaded.asyncify.mjs'),
  'ort-wasm-simd-threaded.asyncify.wasm': entry('assets/ort/ort-wasm-simd-threaded.asyncify.wasm'),
  'encoder-fp32.onnx': entry('assets/model/encoder-fp32.onnx'),
  'ort.wasm.min.mjs': entry('assets/ort/ort.wasm.min.mjs'),
  'encoder.onnx': entry('assets/model/encoder.onnx'),
};

test('a manifest with the four WebGPU files gives them by role', () => {
  const a = webgpuAssets(SHIPPED);
  assert.deepEqual(Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v.path])), {
    ort: 'assets/ort/ort.webgpu.min.mjs',
    ortMjs: 'assets/ort/ort-wasm-simd-threaded.asyncify.mjs',
    ortWasm: 'assets/ort/ort-wasm-simd-threaded.asyncify.wasm',
    model: 'assets/model/encoder-fp32.onnx',
  });
  assert.equal(a.model.name, 'encoder-fp32.onnx');
});

test('any WebGPU file missing: no WebGPU build (provider.js then says so), never the int8 graph', () => {
  for (const name of ['ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.asyncify.wasm', 'encoder-fp32.onnx']) {
    const m = { ...SHIPPED };
    delete m[name];
    assert.equal(webgpuAssets(m), null, name);
  }
});

test('the roles match the asset lock (the names build.py puts in the manifest)', async () => {
  const lock = JSON.parse(await readFile(new URL('../../assets.lock.json', import.meta.url), 'utf8'));
  const manifest = Object.fromEntries(lock.assets.filter((x) => x.dist.startsWith('assets/'))
    .map((x) => [x.name, entry(x.dist)]));
  const a = webgpuAssets(manifest);
  assert.ok(a, 'the lock ships a WebGPU build');
  assert.deepEqual(Object.keys(a).sort(), Object.keys(WEBGPU_ASSETS).sort());
  for (const x of Object.values(a)) {
    const locked = lock.assets.find((l) => l.name === x.name);
    assert.equal(locked.offline, 'on-use', `${x.name} is cached on first use, not at install`);
  }
});
