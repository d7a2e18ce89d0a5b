// @ts-check
// Which onnxruntime-web execution provider embeds the user's rows. WebGPU is used only when
// the browser gives an adapter, the build ships a graph for it (fp32 or fp16: int8 kernels on
// WebGPU are reported wrong in onnxruntime-web and transformers.js issues), and a sample of
// the user's own rows embedded on both WebGPU and WASM agrees row by row within cosine
// MIN_AGREEMENT. A software fallback adapter (GPUAdapterInfo.isFallbackAdapter: WebGPU run on
// the CPU, e.g. SwiftShader) is not used unless asked for: it agrees, but is far slower than
// WASM (docs/BENCHMARKS.md, tests/e2e/test_e2e_webgpu.py). Otherwise WASM. The choice and its
// reason are returned for the result, the
// log and the run stamp: never a silent fallback. Pure apart from the callbacks it is given
// (tests/js/provider.test.mjs drives it with stub adapters).

/** every sample row must agree at least this well (cosine of its WebGPU and WASM vectors) */
export const MIN_AGREEMENT = 0.999;
/** rows of the user's input embedded on both providers before WebGPU is trusted */
export const SAMPLE_ROWS = 16;

/**
 * @typedef {{encode(texts: string[]): Promise<Float32Array>, dispose?(): Promise<void> | void}} SampleEncoder
 * @typedef {object} ProviderChoice
 * @property {'wasm' | 'webgpu'} provider  the provider that embeds the rows
 * @property {string} reason  why, in words (printed beside the result, logged, stamped)
 * @property {string | null} adapter  the WebGPU adapter's vendor/architecture, if one was given
 * @property {number} sample_rows  rows embedded on both providers (0 when not compared)
 * @property {number | null} min_cosine  the lowest per-row cosine of the comparison
 * @property {SampleEncoder | null} webgpu  the WebGPU encoder when chosen (else disposed)
 */

/**
 * Up to `n` row indices spread evenly over `count` rows (first and last included).
 * @param {number} count @param {number} [n] @returns {number[]}
 */
export function sampleIndices(count, n = SAMPLE_ROWS) {
  if (count <= n) return Array.from({ length: count }, (_, i) => i);
  if (n === 1) return [0];
  return Array.from({ length: n }, (_, k) => Math.round((k * (count - 1)) / (n - 1)));
}

/**
 * Cosine of each row of `a` with the same row of `b` (row-major rows x dim; the vectors need
 * not be unit length). A zero or non-finite row gives NaN.
 * @param {Float32Array} a @param {Float32Array} b @param {number} dim @returns {number[]}
 */
export function rowCosines(a, b, dim) {
  if (a.length !== b.length || a.length % dim !== 0) {
    throw new Error(`rowCosines: ${a.length} and ${b.length} values are not the same rows x ${dim}`);
  }
  const out = [];
  for (let r = 0; r < a.length / dim; r++) {
    let ab = 0, aa = 0, bb = 0;
    for (let k = r * dim; k < (r + 1) * dim; k++) {
      ab += a[k] * b[k];
      aa += a[k] * a[k];
      bb += b[k] * b[k];
    }
    const c = ab / Math.sqrt(aa * bb);
    out.push(Number.isFinite(c) ? c : NaN);
  }
  return out;
}

/** @param {any} adapter @returns {string} */
function describeAdapter(adapter) {
  const info = adapter && adapter.info;
  const parts = info ? [info.vendor, info.architecture, info.description].filter(Boolean) : [];
  return parts.length ? parts.join(' ') : 'unnamed adapter';
}

/** @param {any} e */
const message = (e) => String((e && e.message) || e);

/**
 * Decide the provider for one run.
 * @param {object} o
 * @param {any} o.gpu  navigator.gpu (undefined when the browser has no WebGPU)
 * @param {string[]} o.texts  the user's rows (the sample is taken from them)
 * @param {number} o.dim  vector size (384)
 * @param {(texts: string[]) => Promise<Float32Array>} o.embedWasm  the WASM encoder
 * @param {((adapter: any) => Promise<SampleEncoder>) | null} o.createWebgpu  starts the
 *   WebGPU encoder on that adapter; null when this build ships no graph for WebGPU
 * @param {boolean} [o.allowFallback]  also try a software fallback adapter (the page's
 *   `?webgpu=any`; default false: such an adapter means WASM, with the reason)
 * @param {number} [o.minAgreement]  default MIN_AGREEMENT
 * @param {number} [o.sampleSize]  default SAMPLE_ROWS
 * @returns {Promise<ProviderChoice>}
 */
export async function chooseProvider({ gpu, texts, dim, embedWasm, createWebgpu, allowFallback = false, minAgreement = MIN_AGREEMENT, sampleSize = SAMPLE_ROWS }) {
  /** @type {(reason: string, extra?: Partial<ProviderChoice>) => ProviderChoice} */
  const wasm = (reason, extra = {}) => ({ provider: 'wasm', reason, adapter: null, sample_rows: 0, min_cosine: null, webgpu: null, ...extra });
  if (!gpu || typeof gpu.requestAdapter !== 'function') return wasm('this browser has no WebGPU (navigator.gpu is absent)');
  let adapter;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return wasm(`navigator.gpu.requestAdapter() failed: ${message(e)}`);
  }
  if (!adapter) return wasm('navigator.gpu gave no adapter');
  const name = describeAdapter(adapter);
  if (adapter.info && adapter.info.isFallbackAdapter && !allowFallback) {
    return wasm(`WebGPU adapter ${name} is a software fallback adapter (WebGPU on the CPU, slower than WASM); open the page with ?webgpu=any to use it anyway`, { adapter: name });
  }
  if (!createWebgpu) {
    return wasm(`WebGPU adapter ${name} found, but this build ships no fp32/fp16 graph for WebGPU (int8 kernels there are not trusted)`, { adapter: name });
  }
  const idx = sampleIndices(texts.length, sampleSize);
  if (!idx.length) return wasm('no rows to compare WebGPU with WASM on', { adapter: name });
  const sample = idx.map((i) => texts[i]);
  /** @type {SampleEncoder | null} */
  let gpuEncoder = null;
  const drop = async () => {
    try { if (gpuEncoder && gpuEncoder.dispose) await gpuEncoder.dispose(); } catch { /* already unusable */ }
  };
  let onGpu;
  try {
    gpuEncoder = await createWebgpu(adapter);
    onGpu = await gpuEncoder.encode(sample);
  } catch (e) {
    await drop();
    return wasm(`WebGPU on ${name} failed: ${message(e)}`, { adapter: name });
  }
  const onWasm = await embedWasm(sample);
  let cos;
  try {
    cos = rowCosines(onGpu, onWasm, dim);
  } catch (e) {
    await drop();
    return wasm(`WebGPU on ${name} gave ${onGpu.length} values for ${sample.length} rows: ${message(e)}`, { adapter: name });
  }
  const worst = cos.reduce((w, c, k) => (!(c >= cos[w]) ? k : w), 0);
  const low = cos[worst];
  const stats = { adapter: name, sample_rows: sample.length, min_cosine: Number.isNaN(low) ? null : low };
  if (!(low >= minAgreement)) {
    await drop();
    return wasm(`WebGPU on ${name} disagrees with WASM: input row ${idx[worst] + 1} has cosine ${Number.isNaN(low) ? 'NaN' : low.toFixed(5)} < ${minAgreement} between the two`, stats);
  }
  return {
    provider: 'webgpu',
    reason: `WebGPU on ${name}: all ${sample.length} sample rows agree with WASM (lowest cosine ${low.toFixed(5)} ≥ ${minAgreement})`,
    ...stats,
    webgpu: gpuEncoder,
  };
}
