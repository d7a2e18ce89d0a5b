// @ts-check
// The WebGPU encoder, started only when embed/provider.js has a WebGPU adapter: onnxruntime-web's
// WebGPU build (ort.webgpu.min.mjs, which loads ort-wasm-simd-threaded.asyncify.{mjs,wasm}: its
// WebGPU execution provider is compiled into that wasm) running encoder-fp32.onnx, the int8 graph
// with its weights folded to float32 (py/evalsieve/encoder_graph.py build_fp32_encoder_graph;
// int8 kernels on WebGPU are reported wrong). Same tokenizer, window, equal-length batches, mean
// pooling and L2 norm as the WASM encoder (embed/encoder.js). Nothing here is fetched before an
// adapter is found; the service worker caches these files on first use (site/sw.js on_use).

import { ENCODER_ASSETS, assetURL, checkSha256, findAsset, noteSource } from '../assets.js';
import { getRuntime } from '../runtime.js';

/** @type {Record<string, import('../assets.js').AssetSpec>} */
export const WEBGPU_ASSETS = {
  ort: { names: ['ort.webgpu.min.mjs'], pathPattern: /ort\/ort\.webgpu\.min\.mjs$/ },
  ortMjs: { names: ['ort-wasm-simd-threaded.asyncify.mjs'], pathPattern: /ort\/ort-wasm-simd-threaded\.asyncify\.mjs$/ },
  ortWasm: { names: ['ort-wasm-simd-threaded.asyncify.wasm'], pathPattern: /ort\/ort-wasm-simd-threaded\.asyncify\.wasm$/ },
  model: { names: ['encoder-fp32.onnx'], pathPattern: /model\/encoder-fp32\.onnx$/ },
};

/**
 * @typedef {Record<string, import('../assets.js').Asset>} WebgpuAssets
 * @typedef {object} WebgpuEncoder  provider.js's SampleEncoder, plus what the job needs
 * @property {(texts: string[]) => Promise<Float32Array>} encode  rows x 384, unit norm, input order
 * @property {() => Promise<void>} dispose  releases the session (GPU buffers)
 * @property {import('./schedule.js').RowEncoder} rows  the encoder embedRows drives
 * @property {Record<string, {version: string | null, sha256: string | null}>} assets  for the stamp
 * @property {string} modelSha256  encoder-fp32.onnx
 */

/**
 * The WebGPU files of this build's manifest, or null when it ships none (provider.js then
 * says so and WASM embeds).
 * @param {import('../assets.js').Manifest} manifest @returns {WebgpuAssets | null}
 */
export function webgpuAssets(manifest) {
  /** @type {WebgpuAssets} */
  const out = {};
  for (const [k, spec] of Object.entries(WEBGPU_ASSETS)) {
    const found = findAsset(manifest, spec);
    if (!found) return null;
    out[k] = found;
  }
  return out;
}

/**
 * Start the WebGPU encoder on `adapter` (a GPUAdapter from navigator.gpu.requestAdapter()).
 * The graph and the tokenizer are checked against their sha256 in the manifest.
 * @param {any} adapter
 * @param {WebgpuAssets} a  from webgpuAssets
 * @param {{window: number, batchSize: number}} o  the WASM encoder's window and batch size
 * @returns {Promise<WebgpuEncoder>}
 * @throws Error (code asset_load_failed) when a file cannot be loaded or the session cannot
 *   be created on this adapter; provider.js turns that into WASM with the reason.
 */
export async function startWebgpu(adapter, a, { window, batchSize }) {
  const rt = getRuntime();
  const tok = {
    tokenizers: findAsset(rt.manifest, ENCODER_ASSETS.tokenizers),
    tokenizer: findAsset(rt.manifest, ENCODER_ASSETS.tokenizer),
  };
  const checked = [a.model, tok.tokenizer].filter((e) => e !== null);
  const { createEncoder } = await import('./encoder.js');
  const ortWasm = assetURL(a.ortWasm.path);
  const encoder = await createEncoder({
    ortUrl: assetURL(a.ort.path),
    wasmPaths: ortWasm.slice(0, ortWasm.lastIndexOf('/') + 1),
    tokenizersUrl: tok.tokenizers ? assetURL(tok.tokenizers.path) : undefined,
    tokenizerJsonUrl: tok.tokenizer ? assetURL(tok.tokenizer.path) : undefined,
    modelUrl: assetURL(a.model.path),
    tileUrl: null, // cosine tiles stay on WASM (the encoder of embed/load.js)
    numThreads: 1, // the GPU does the work; CPU-side nodes are shape arithmetic
    executionProviders: ['webgpu'],
    adapter,
    window,
    batchSize,
    verify: async (/** @type {string} */ url, /** @type {Uint8Array} */ bytes, /** @type {Response} */ res) => {
      noteSource(res);
      const entry = checked.find((e) => assetURL(e.path) === url);
      if (entry) await checkSha256(entry, bytes, rt.sha256Factory);
    },
  });
  /** @type {WebgpuEncoder['assets']} */
  const assets = {};
  for (const e of Object.values(a)) assets[e.name] = { version: e.version ?? null, sha256: e.sha256 ?? null };
  return {
    encode: async (texts) => (await encoder.encode(texts)).embeddings,
    dispose: () => encoder.dispose(),
    rows: encoder,
    assets,
    modelSha256: a.model.sha256 || '',
  };
}
