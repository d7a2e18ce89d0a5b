// worker/embed/pick.js's embedPicked under Node, with stub encoders: a WebGPU failure during
// the embedding falls back to WASM and says so; a cancellation or a refusal (ProtocolError)
// is not retried; the WebGPU session is released in every case, and a failed release is not
// the run's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { embedPicked } from '../../worker/embed/pick.js';
import { ERR, ProtocolError } from '../../worker/protocol.js';

const wasm = { encoder: { name: 'wasm-rows' } };

function setup({ disposeFails = false } = {}) {
  const log = [];
  let cancelled = false;
  const released = [];
  const gpu = {
    rows: { name: 'gpu-rows' },
    modelSha256: 'fp32sha',
    assets: { 'encoder-fp32.onnx': { sha256: 'fp32sha' } },
    dispose: async () => { released.push(1); if (disposeFails) throw new Error('lost device'); },
  };
  const picked = {
    rows: gpu.rows,
    webgpu: gpu,
    choice: { provider: 'webgpu', reason: 'agrees', adapter: 'acme gpu', sample_rows: 16, min_cosine: 1, webgpu: gpu },
    environment: { execution_provider: 'webgpu', provider_reason: 'agrees', provider_sample_rows: 16, provider_min_cosine: 1, webgpu_adapter: 'acme gpu', webgpu_graph_sha256: 'fp32sha' },
    assets: gpu.assets,
  };
  const ctx = {
    log: (text, data) => log.push([text, data]),
    isCancelled: () => cancelled,
    cancel: () => { cancelled = true; },
  };
  return { ctx, picked, log, released };
}

test('WebGPU embeds when it works; the session is released', async () => {
  const { ctx, picked, log, released } = setup();
  const got = await embedPicked(ctx, picked, wasm, async (rows) => rows.name);
  assert.equal(got, 'gpu-rows');
  assert.equal(picked.environment.execution_provider, 'webgpu');
  assert.equal(picked.environment.webgpu_graph_sha256, 'fp32sha');
  assert.deepEqual(released, [1]);
  assert.equal(log.length, 0);
});

test('a WebGPU failure part-way embeds again on WASM, and the stamp fields say why', async () => {
  const { ctx, picked, log, released } = setup();
  const seen = [];
  const got = await embedPicked(ctx, picked, wasm, async (rows) => {
    seen.push(rows.name);
    if (rows.name === 'gpu-rows') throw new Error('device lost');
    return 'from wasm';
  });
  assert.equal(got, 'from wasm');
  assert.deepEqual(seen, ['gpu-rows', 'wasm-rows']);
  const reason = 'WebGPU on acme gpu failed during the run (device lost); embedded on WASM';
  assert.deepEqual(picked.environment, {
    execution_provider: 'wasm', provider_reason: reason, provider_sample_rows: 16,
    provider_min_cosine: 1, webgpu_adapter: 'acme gpu',
  });
  assert.equal(picked.webgpu, null);
  assert.equal(picked.choice.provider, 'wasm');
  assert.deepEqual(picked.assets, {});
  assert.deepEqual(log.map(([t, d]) => [t, d.kind, d.provider]), [[`execution provider: wasm (${reason})`, 'provider', 'wasm']]);
  assert.deepEqual(released, [1]);
});

test('a refusal or a cancellation is the run\'s error, not retried on WASM', async () => {
  for (const kind of ['refusal', 'cancel']) {
    const { ctx, picked, released } = setup();
    const runs = [];
    const err = kind === 'refusal' ? new ProtocolError(ERR.BAD_INPUT, 'too long') : new Error('stopped');
    await assert.rejects(embedPicked(ctx, picked, wasm, async (rows) => {
      runs.push(rows.name);
      if (kind === 'cancel') ctx.cancel();
      throw err;
    }), (e) => e === err);
    assert.deepEqual(runs, ['gpu-rows'], kind);
    assert.equal(picked.environment.execution_provider, 'webgpu');
    assert.deepEqual(released, [1]);
  }
});

test('a session that fails to release does not fail the run', async () => {
  const { ctx, picked } = setup({ disposeFails: true });
  const warn = console.warn;
  console.warn = () => {};
  try {
    assert.equal(await embedPicked(ctx, picked, wasm, async (rows) => rows.name), 'gpu-rows');
  } finally {
    console.warn = warn;
  }
});

test('without WebGPU the WASM rows embed and nothing is released', async () => {
  const { ctx, picked } = setup();
  const plain = { ...picked, rows: wasm.encoder, webgpu: null };
  assert.equal(await embedPicked(ctx, plain, wasm, async (rows) => rows.name), 'wasm-rows');
});
