// @ts-check
// encoder.js: sentence embeddings and cosine tiles in the browser worker.
//
// onnxruntime-web 1.30.0 (WASM backend) runs dist/assets/model/encoder.onnx, the same graph
// the CLI runs with onnxruntime (py/evalsieve/native_encoder.py): all-MiniLM-L6-v2 with int8
// weights + mean pooling over the attention mask + L2 normalisation, so cosine = dot product.
// @huggingface/tokenizers turns text into word pieces from tokenizer.json.
//
// Tokenisation rule (the same as native_encoder.py and as sentence-transformers'
// max_seq_length = 256 for this model): word pieces without special tokens, keep the first
// window - 2 (a "truncated" row had more), wrap in [CLS] ... [SEP]. The JS tokenizer has no
// truncation or padding options (its encode() takes only text_pair, add_special_tokens and
// return_token_type_ids, and it ignores tokenizer.json's truncation/padding blocks), so we
// enforce the window here.
//
// Every URL is same-origin (dist/assets/...); nothing is fetched from a CDN or a model hub.
// numThreads > 1 only takes effect when the page is cross-origin isolated
// (self.crossOriginIsolated); otherwise onnxruntime-web silently uses one thread. It is read
// once, at the first session creation.

import { tokenizeWithWindow } from './window.js';

const DIM = 384;
const WINDOW = 256;

const here = (/** @type {string} */ rel) => new URL(rel, import.meta.url).href;

/** Default same-origin locations, relative to dist/worker/embed/encoder.js. */
/** @type {Readonly<Required<EncoderOptions>>} */
export const DEFAULTS = Object.freeze({
  ortUrl: here("../../assets/ort/ort.wasm.min.mjs"),
  wasmPaths: here("../../assets/ort/"),
  tokenizersUrl: here("../../assets/tokenizers/tokenizers.min.mjs"),
  modelUrl: here("../../assets/model/encoder.onnx"),
  tileUrl: here("../../assets/model/tile.onnx"),
  tokenizerJsonUrl: here("../../assets/model/tokenizer.json"),
  verify: null,
  numThreads: 1,
  executionProviders: ["wasm"],
  adapter: null,
  window: WINDOW,
  batchSize: 32,
});

/** @param {string} url @param {any} cause @returns {Error & {code: string, detail: string}} */
function assetError(url, cause) {
  const err = /** @type {Error & {code: string, detail: string}} */ (
    new Error(`could not load ${url}: ${cause && cause.message ? cause.message : cause}`));
  err.code = "asset_load_failed";
  err.detail = String(url);
  return err;
}

/** @typedef {((url: string, bytes: Uint8Array, res: Response) => Promise<void>) | null} Verify */

/** @param {string} url @param {Verify} [verify] */
async function fetchBytes(url, verify = null) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw assetError(url, e);
  }
  if (!res.ok) throw assetError(url, `HTTP ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (verify) await verify(url, bytes, res); // e.g. the sha256 in assets/manifest.json
  return bytes;
}

/** @param {string} url @param {Verify} [verify] @returns {Promise<any>} parsed JSON (tokenizer.json) */
async function fetchJson(url, verify = null) {
  const bytes = await fetchBytes(url, verify);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw assetError(url, e);
  }
}

/** @param {string} url @returns {Promise<any>} the module's namespace (onnxruntime-web, tokenizers: untyped here) */
async function importModule(url) {
  try {
    return await import(/* @vite-ignore */ url);
  } catch (e) {
    throw assetError(url, e);
  }
}

/**
 * Row indices per session.run: longest first, each batch holding rows of one word-piece
 * count only (at most batchSize), so nothing is padded. onnxruntime-web's WASM kernels give
 * a padded row different last bits than the same row alone (measured: hidden states differ
 * by ~1e-7 once a row is padded, while same-length batches of any size are bit-identical),
 * so unpadded batches are what keeps a row's vector independent of its batch-mates. It is
 * the same rule as NativeEncoder.batches (sort=True) in py/evalsieve/native_encoder.py.
 * @param {number[][]} ids
 * @param {number} batchSize
 * @returns {number[][]}
 */
export function equalLengthBatches(ids, batchSize) {
  const order = [...ids.keys()].sort((a, b) => ids[b].length - ids[a].length || a - b);
  const out = [];
  let cur = [];
  for (const i of order) {
    if (cur.length && (cur.length === batchSize || ids[cur[0]].length !== ids[i].length)) {
      out.push(cur);
      cur = [];
    }
    cur.push(i);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Options of createEncoder; every field optional, defaults in DEFAULTS (same-origin dist/assets/).
 * @typedef {object} EncoderOptions
 * @property {string} [ortUrl]  onnxruntime-web ESM build (ort.wasm.min.mjs)
 * @property {string} [wasmPaths]  folder (trailing slash) holding ort-wasm-simd-threaded.{mjs,wasm}
 * @property {string} [tokenizersUrl]  the ESM build of the npm tokenizers package (Hugging Face)
 * @property {string} [modelUrl]  encoder.onnx: input_ids, attention_mask int64 [b, s] ->
 *   sentence_embedding float32 [b, 384]
 * @property {string|null} [tileUrl]  tile.onnx: A [m,384], B [k,384] -> C [m,k]; null: no tile()
 * @property {string} [tokenizerJsonUrl]  tokenizer.json
 * @property {Verify} [verify]  called on
 *   every fetched model/tokenizer file before use; throws to refuse it (the worker checks the
 *   sha256 in assets/manifest.json)
 * @property {number} [numThreads]  WASM threads (needs cross-origin isolation to exceed 1)
 * @property {string[]} [executionProviders]  ["wasm"], or ["webgpu"] with ort.webgpu.min.mjs
 *   and the float32 graph (embed/webgpu.js)
 * @property {any} [adapter]  the GPUAdapter for "webgpu" (ort.env.webgpu.adapter); null: ORT asks
 * @property {number} [window]  word pieces per row incl. [CLS], [SEP]; 3..512
 * @property {number} [batchSize]  most rows per session.run (rows of one length per batch)
 */

/**
 * Load the tokenizer, the encoder graph and (if tileUrl is set) the tile graph.
 *
 * @param {EncoderOptions} opts
 * Returns: {encode, encodeIds, tokenize, tile, dispose, info} (Encoder).
 * @throws Error with .code = "asset_load_failed" when a file or module cannot be loaded.
 */
export async function createEncoder(opts = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  if (!(o.window >= 3 && o.window <= 512)) throw new RangeError(`window must be in 3..512, got ${o.window}`);
  if (!(o.batchSize >= 1)) throw new RangeError(`batchSize must be >= 1, got ${o.batchSize}`);

  const ort = await importModule(o.ortUrl);
  ort.env.wasm.wasmPaths = o.wasmPaths;
  ort.env.wasm.numThreads = Math.max(1, o.numThreads | 0);
  ort.env.wasm.proxy = false; // we already are in a worker
  if (o.adapter) ort.env.webgpu.adapter = o.adapter;

  const { Tokenizer } = await importModule(o.tokenizersUrl);
  // No tokenizer_config.json: BERT's lowercasing is in tokenizer.json's normalizer.
  const tokenizer = new Tokenizer(await fetchJson(o.tokenizerJsonUrl, o.verify), {});
  const clsId = tokenizer.token_to_id("[CLS]");
  const sepId = tokenizer.token_to_id("[SEP]");
  if (clsId === undefined || sepId === undefined) {
    throw assetError(o.tokenizerJsonUrl, "no [CLS]/[SEP] in the vocabulary");
  }

  const sessionOptions = { executionProviders: o.executionProviders, graphOptimizationLevel: "all" };
  const makeSession = async (/** @type {string} */ url) => {
    const bytes = await fetchBytes(url, o.verify);
    try {
      return await ort.InferenceSession.create(bytes, sessionOptions);
    } catch (e) {
      throw assetError(url, e);
    }
  };
  const session = await makeSession(o.modelUrl);
  if (!session.outputNames.includes("sentence_embedding")) {
    throw assetError(o.modelUrl, `outputs ${session.outputNames}; expected sentence_embedding`);
  }
  const tileSession = o.tileUrl ? await makeSession(o.tileUrl) : null;

  /** {ids: number[][], truncated, cuts} for `texts` (see tokenizeWithWindow). @param {string[]} texts */
  function tokenize(texts) {
    return tokenizeWithWindow(tokenizer, texts, o.window, clsId, sepId);
  }

  /**
   * Embed texts (tokenize, then encodeIds).
   * @param {string[]} texts
   * @param {{onBatch?: (done: number, total: number) => void}} [options]
   * @returns {Promise<{embeddings: Float32Array, truncated: number}>} row-major n x 384,
   *   unit L2 norm, input order; truncated = rows cut to window - 2 pieces.
   */
  async function encode(texts, options = {}) {
    const { ids, truncated } = tokenize(texts);
    const { embeddings } = await encodeIds(ids, options);
    return { embeddings, truncated };
  }

  /**
   * Embed rows already tokenised by tokenize() (so a scheduler tokenises each row once).
   * Rows always run in equal-length batches (equalLengthBatches), so a caller that slices its
   * own batches still gets unpadded, batch-independent vectors.
   * @param {number[][]} ids  word-piece ids per row, [CLS] ... [SEP]
   * @param {{onBatch?: (done: number, total: number) => void}} [options]  onBatch is called
   *   after each session.run with rows done so far
   * @returns {Promise<{embeddings: Float32Array}>} row-major n x 384, unit L2 norm, input order
   */
  async function encodeIds(ids, options = {}) {
    const { onBatch = null } = options;
    const n = ids.length;
    const embeddings = new Float32Array(n * DIM);
    let done = 0;
    for (const rows of equalLengthBatches(ids, o.batchSize)) {
      const width = ids[rows[0]].length;
      const inputIds = new BigInt64Array(rows.length * width);
      rows.forEach((i, r) => {
        const row = ids[i];
        for (let t = 0; t < width; t++) inputIds[r * width + t] = BigInt(row[t]);
      });
      const feeds = {
        input_ids: new ort.Tensor("int64", inputIds, [rows.length, width]),
        attention_mask: new ort.Tensor("int64", new BigInt64Array(rows.length * width).fill(1n), [rows.length, width]),
      };
      const out = await session.run(feeds, ["sentence_embedding"]);
      const emb = out.sentence_embedding;
      const data = emb.data;
      rows.forEach((i, r) => embeddings.set(data.subarray(r * DIM, (r + 1) * DIM), i * DIM));
      if (typeof emb.dispose === "function") emb.dispose();
      done += rows.length;
      if (onBatch) onBatch(done, n);
    }
    return { embeddings };
  }

  /**
   * Cosine tile C = A . B^T with tile.onnx.
   * @param {Float32Array} A  row-major m x 384
   * @param {number} m
   * @param {Float32Array} B  row-major k x 384
   * @param {number} k
   * @returns {Promise<Float32Array>} row-major m x k
   */
  async function tile(A, m, B, k) {
    if (!tileSession) throw new Error("createEncoder was called without tileUrl");
    if (A.length !== m * DIM || B.length !== k * DIM) {
      throw new RangeError(`tile needs A of ${m}x${DIM} and B of ${k}x${DIM} floats`);
    }
    const out = await tileSession.run(
      { A: new ort.Tensor("float32", A, [m, DIM]), B: new ort.Tensor("float32", B, [k, DIM]) },
      ["C"],
    );
    return out.C.data;
  }

  /** Release the sessions. @returns {Promise<void>} */
  async function dispose() {
    await session.release();
    if (tileSession) await tileSession.release();
  }

  const info = { dim: DIM, window: o.window, ortVersion: ort.env.versions ? ort.env.versions.web : undefined };
  return { encode, encodeIds, tokenize, tile, dispose, info };
}
/** @typedef {Awaited<ReturnType<typeof createEncoder>>} Encoder */
