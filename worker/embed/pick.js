// @ts-check
// The encoder that embeds one run's texts: WebGPU when embed/provider.js trusts it on a sample
// of these very texts, else the WASM encoder of embed/load.js. Logs the choice (kind
// `provider`) and gives what the run's result and stamp say of it; a WebGPU failure during the
// embedding falls back to WASM, saying so (embedPicked). Used by the paraphrase job and the
// contamination job's semantic rung alike.

import { ProtocolError } from '../protocol.js';
import { getRuntime } from '../runtime.js';
import { SETTINGS } from '../settings.js';
import { chooseProvider } from './provider.js';
import { startWebgpu, webgpuAssets } from './webgpu.js';

/**
 * @typedef {object} PickedEncoder
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
 * @param {number} [minAgreement]  each sample text's cosine between its WebGPU and WASM
 *   vectors must be at least this (default provider.js MIN_AGREEMENT)
 * @returns {Promise<PickedEncoder>}
 */
export async function pickEncoder(ctx, enc, texts, allowFallback, minAgreement) {
  const K = getRuntime().constants;
  const shipped = webgpuAssets(getRuntime().manifest);
  const choice = await chooseProvider({
    gpu: /** @type {any} */ (navigator).gpu, texts, dim: K.embedding_dims,
    embedWasm: async (sample) => (await enc.encoder.encode(sample)).embeddings,
    allowFallback,
    ...(minAgreement === undefined ? {} : { minAgreement }),
    createWebgpu: shipped && ((adapter) => startWebgpu(adapter, shipped, { window: K.para_window, batchSize: SETTINGS.embedBatch })),
  });
  announce(ctx, choice);
  return described(choice);
}

/** The log line of a choice (kind `provider`). @param {import('../dispatch.js').JobContext} ctx @param {import('./provider.js').ProviderChoice} choice */
function announce(ctx, choice) {
  ctx.log(`execution provider: ${choice.provider} (${choice.reason})`, {
    kind: 'provider', provider: choice.provider, reason: choice.reason, adapter: choice.adapter,
    sample_rows: choice.sample_rows, min_cosine: choice.min_cosine,
  });
}

/** A choice with its stamp fields. @param {import('./provider.js').ProviderChoice} choice @returns {PickedEncoder} */
function described(choice) {
  const gpu = /** @type {import('./webgpu.js').WebgpuEncoder | null} */ (choice.webgpu);
  return {
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

/**
 * Embed with the picked encoder: `run(rows)` (embed/schedule.js embedRows with the run's
 * options). When WebGPU fails part-way (an error that is not a cancellation or a refusal of
 * the run: those are ProtocolErrors), the texts are embedded again on WASM and `picked` is
 * changed to say so (environment, assets, a `provider` log); the second run's progress starts
 * again at 0, which dispatch.js's gate holds back until it passes the first's. The WebGPU
 * session is released either way; a failure to release it is logged, not raised.
 * @template T
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {PickedEncoder} picked  from pickEncoder (changed in place on a fallback)
 * @param {import('./load.js').LoadedEncoder} enc  the WASM encoder
 * @param {(rows: any) => Promise<T>} run
 * @returns {Promise<T>}
 */
export async function embedPicked(ctx, picked, enc, run) {
  const gpu = picked.webgpu;
  if (!gpu) return run(enc.encoder);
  try {
    return await run(gpu.rows);
  } catch (e) {
    if (e instanceof ProtocolError || ctx.isCancelled()) throw e;
    const reason = `WebGPU on ${picked.choice.adapter} failed during the run (${(e && /** @type {any} */ (e).message) || e}); embedded on WASM`;
    const choice = { ...picked.choice, provider: /** @type {'wasm'} */ ('wasm'), reason, webgpu: null };
    Object.assign(picked, described(choice));
    announce(ctx, choice);
    return run(enc.encoder);
  } finally {
    try { await gpu.dispose(); } catch (e) { console.warn('releasing the WebGPU session failed', e); }
  }
}
