// @ts-check
// The encoder service: onnxruntime-web + the tokenizer, loaded once on first use from the
// same-origin files in assets/manifest.json (each checked against its sha256).

import { ERR, ProtocolError } from '../protocol.js';
import { ENCODER_ASSETS, assetURL, checkSha256, lastLine, noteSource, requireAsset } from '../assets.js';
import { getRuntime } from '../runtime.js';
import { SETTINGS } from '../settings.js';

/**
 * @typedef {object} LoadedEncoder
 * @property {any} encoder  createEncoder's {encode, encodeIds, tokenize, tile, dispose, info}
 * @property {Record<string, {version: string | null, sha256: string | null}>} assets  for run stamps
 * @property {number} threads
 * @property {boolean} isolated  self.crossOriginIsolated
 * @property {string} modelSha256
 * @property {number} seconds  load time
 */

/** @type {Promise<LoadedEncoder> | null} */
let encoderBoot = null;

/**
 * Load the encoder once. numThreads is read by onnxruntime-web at its first init only:
 * hardwareConcurrency when the page is cross-origin isolated (SharedArrayBuffer), else 1;
 * `threads` (benchmark) overrides it on the first call and is ignored afterwards (logged).
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {number} [threads]
 * @returns {Promise<LoadedEncoder>}
 */
export function ensureEncoder(ctx, threads) {
  if (!encoderBoot) {
    encoderBoot = loadEncoder(threads);
    encoderBoot.catch(() => { encoderBoot = null; }); // a failed load may be retried by the next run
  }
  return encoderBoot.then((enc) => {
    if (threads !== undefined && threads !== enc.threads) {
      ctx.log(`encoder already running with ${enc.threads} thread(s); threads=${threads} ignored (onnxruntime-web reads numThreads once)`);
    }
    return enc;
  });
}

/** @param {number} [threads] @returns {Promise<LoadedEncoder>} */
async function loadEncoder(threads) {
  const t = performance.now();
  const rt = getRuntime();
  const a = Object.fromEntries(Object.entries(ENCODER_ASSETS).map(([k, spec]) => [k, requireAsset(rt.manifest, k, spec)]));
  const isolated = self.crossOriginIsolated === true;
  const want = threads ?? (isolated ? (navigator.hardwareConcurrency || 1) : 1);
  const numThreads = isolated ? Math.max(1, want | 0) : 1;
  const { createEncoder } = await import('./encoder.js');
  const ortWasm = assetURL(a.ortWasm.path);
  let encoder;
  try {
    encoder = await createEncoder({
      ortUrl: assetURL(a.ort.path),
      wasmPaths: ortWasm.slice(0, ortWasm.lastIndexOf('/') + 1),
      tokenizersUrl: assetURL(a.tokenizers.path),
      modelUrl: assetURL(a.model.path),
      tileUrl: assetURL(a.tile.path),
      tokenizerJsonUrl: assetURL(a.tokenizer.path),
      numThreads,
      verify: async (/** @type {string} */ url, /** @type {Uint8Array} */ bytes, /** @type {Response} */ res) => {
        noteSource(res);
        const entry = Object.values(a).find((e) => assetURL(e.path) === url);
        if (entry) await checkSha256(entry, bytes, rt.sha256Factory);
      },
      window: rt.constants.para_window,
      batchSize: SETTINGS.embedBatch,
    });
    await encoder.encode(['warm up the session']);
  } catch (e) {
    const err = /** @type {any} */ (e);
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not start the encoder: ${lastLine(e)}`, { file: err && err.detail, detail: err && (err.stack || err.message) });
  }
  /** @type {LoadedEncoder['assets']} */
  const assets = {};
  for (const [k, e] of Object.entries(a)) assets[e.name || k] = { version: e.version ?? null, sha256: e.sha256 ?? null };
  return { encoder, assets, threads: numThreads, isolated, modelSha256: a.model.sha256 || '', seconds: (performance.now() - t) / 1000 };
}
