// @ts-check
// The encoder that embeds one run's texts: WebGPU when embed/provider.js trusts it on a sample
// of these very texts, else the WASM encoder of embed/load.js. Logs the choice (kind
// `provider`) and gives what the run's result and stamp say of it. Used by the paraphrase
// job and the contamination job's semantic rung alike.

import { getRuntime } from '../runtime.js';
import { SETTINGS } from '../settings.js';
import { chooseProvider } from './provider.js';
import { startWebgpu, webgpuAssets } from './webgpu.js';

/**
 * @typedef {object} PickedEncoder
 * @property {any} rows  what embed/schedule.js embedRows embeds with (WebGPU's or WASM's)
 * @property {import('./webgpu.js').WebgpuEncoder | null} webgpu  set when WebGPU was chosen:
 *   dispose() it after the run (its GPU buffers are not kept between runs)
 * @property {import('./provider.js').ProviderChoice} choice
 * @property {Partial<import('../protocol.js').Environment>} environment  execution_provider,
 *   provider_reason, provider_sample_rows, provider_min_cosine, webgpu_adapter and, with
 *   WebGPU, webgpu_graph_sha256 (encoder-fp32.onnx)
 * @property {Record<string, any>} assets  the WebGPU files (runtime, graph) when used, else {}
 */

/**
 * Choose the execution provider for `texts` (its runtime and graph are fetched only once an
 * adapter is found: embed/webgpu.js).
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {import('./load.js').LoadedEncoder} enc  the loaded WASM encoder
 * @param {string[]} texts  the run's texts, in the order they will be embedded
 * @param {boolean} allowFallback  also a software fallback adapter (the page's ?webgpu=any)
 * @returns {Promise<PickedEncoder>}
 */
export async function pickEncoder(ctx, enc, texts, allowFallback) {
  const K = getRuntime().constants;
  const shipped = webgpuAssets(getRuntime().manifest);
  const choice = await chooseProvider({
    gpu: /** @type {any} */ (navigator).gpu, texts, dim: K.embedding_dims,
    embedWasm: async (sample) => (await enc.encoder.encode(sample)).embeddings,
    allowFallback,
    createWebgpu: shipped && ((adapter) => startWebgpu(adapter, shipped, { window: K.para_window, batchSize: SETTINGS.embedBatch })),
  });
  const gpu = /** @type {import('./webgpu.js').WebgpuEncoder | null} */ (choice.webgpu);
  ctx.log(`execution provider: ${choice.provider} (${choice.reason})`, {
    kind: 'provider', provider: choice.provider, reason: choice.reason, adapter: choice.adapter,
    sample_rows: choice.sample_rows, min_cosine: choice.min_cosine,
  });
  return {
    rows: gpu ? gpu.rows : enc.encoder,
    webgpu: gpu,
    choice,
    environment: {
      execution_provider: choice.provider, provider_reason: choice.reason,
      provider_sample_rows: choice.sample_rows, provider_min_cosine: choice.min_cosine, webgpu_adapter: choice.adapter,
      ...(gpu ? { webgpu_graph_sha256: gpu.modelSha256 } : {}),
    },
    assets: gpu ? gpu.assets : {},
  };
}
