// @ts-check
// The same-origin assets: where they are (dist/assets/manifest.json) and whether they are the
// ones the manifest names (sha256). Nothing is fetched from anywhere else.

import { ERR, ProtocolError } from './protocol.js';

/**
 * @typedef {{path: string, version?: string | null, sha256?: string | null, note?: string}} ManifestEntry
 * @typedef {Record<string, ManifestEntry>} Manifest
 * @typedef {ManifestEntry & {name: string}} Asset
 * @typedef {{names?: string[], pathPattern: RegExp}} AssetSpec
 * @typedef {() => Promise<{init(): void, update(b: Uint8Array): void, digest(enc: 'hex'): string}>} Sha256Factory
 */

// Resolved against this file (dist/worker/assets.js), so the page may live in any folder.
export const DIST = new URL('../', import.meta.url);
export const ASSETS = new URL('assets/', DIST);
export const PYODIDE_DIR = new URL('pyodide/', ASSETS);

/** @type {Record<string, AssetSpec>} */
export const BOOT_ASSETS = {
  micropip: { names: ['micropip'], pathPattern: /wheels\/micropip-[^/]*\.whl$/ },
  packaging: { names: ['packaging'], pathPattern: /wheels\/packaging-[^/]*\.whl$/ },
  evalsieve: { names: ['evalsieve'], pathPattern: /wheels\/evalsieve-[^/]*\.whl$/ },
  hash: { names: ['hash-wasm'], pathPattern: /hash\/[^/]*(esm[^/]*|\.mjs|sha256[^/]*)\.m?js$/ },
  pyodide: { names: ['pyodide'], pathPattern: /pyodide\/pyodide\.mjs$/ },
};

/** @type {Record<string, AssetSpec>} */
export const ENCODER_ASSETS = {
  ort: { names: ['ort.wasm.min.mjs'], pathPattern: /ort\/ort\.wasm\.min\.mjs$/ },
  ortWasm: { names: ['ort-wasm-simd-threaded.wasm'], pathPattern: /ort\/ort-wasm-simd-threaded\.wasm$/ },
  tokenizers: { names: ['tokenizers.min.mjs'], pathPattern: /tokenizers\/[^/]*\.m?js$/ },
  model: { names: ['encoder.onnx'], pathPattern: /model\/encoder\.onnx$/ },
  tile: { names: ['tile.onnx'], pathPattern: /model\/tile\.onnx$/ },
  tokenizer: { names: ['tokenizer.json'], pathPattern: /model\/tokenizer\.json$/ },
};

/**
 * URL of a manifest path. Paths are relative to dist/ ("assets/wheels/x.whl"); ones relative
 * to dist/assets/ are tolerated. Raises asset_load_failed for an absolute URL.
 * @param {string} path
 */
export function assetURL(path) {
  if (/^[a-z]+:/i.test(path)) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `asset path is not relative: ${path}`);
  const clean = path.replace(/^\.?\//, '');
  return new URL(clean.startsWith('assets/') ? clean : `assets/${clean}`, DIST).href;
}

/**
 * The manifest entry named by one of spec.names, else the first whose path matches.
 * @param {Manifest} manifest @param {AssetSpec} spec @returns {Asset | null}
 */
export function findAsset(manifest, { names = [], pathPattern }) {
  for (const name of names) if (manifest[name] && manifest[name].path) return { name, ...manifest[name] };
  for (const [name, entry] of Object.entries(manifest)) {
    if (entry && typeof entry.path === 'string' && pathPattern.test(entry.path)) return { name, ...entry };
  }
  return null;
}

/** @param {Manifest} manifest @param {string} what @param {AssetSpec} spec @returns {Asset} */
export function requireAsset(manifest, what, spec) {
  const found = findAsset(manifest, spec);
  if (!found) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `${what} is not listed in assets/manifest.json`, {
      file: 'assets/manifest.json',
      expected: `an entry whose path matches ${spec.pathPattern}`,
    });
  }
  return found;
}

/** The header the service worker (site/sw.js) adds to every response it serves from its cache. */
export const FROM_CACHE_HEADER = 'X-Evalsieve-From';
/** @type {Set<'cache' | 'network'>} where the fetches noted by noteSource were answered from */
const sources = new Set();

/**
 * Note whether a response came from the service worker's cache (for the run stamp).
 * @param {Response} res
 */
export function noteSource(res) {
  sources.add(res.headers.get(FROM_CACHE_HEADER) === 'cache' ? 'cache' : 'network');
}

/**
 * Where this worker's checked assets came from: "cache" (the service worker's offline cache),
 * "network", or "cache+network" (the service worker took over during this page's life).
 * @returns {import('./protocol.js').AssetsFrom}
 */
export function assetsFrom() {
  if (sources.size === 1) return sources.has('cache') ? 'cache' : 'network';
  return sources.size ? 'cache+network' : 'network';
}

/** @returns {Promise<Manifest>} */
export async function fetchManifest() {
  const url = new URL('manifest.json', ASSETS).href;
  const res = await fetch(url, { cache: 'no-cache' });
  if (!res.ok) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load ${url}: HTTP ${res.status}`);
  noteSource(res);
  return res.json();
}

/**
 * hash-wasm's createSHA256, from its ES module build. Only `import()` is used: the page's CSP
 * (script-src 'self' 'wasm-unsafe-eval') forbids evaluating fetched text (new Function, eval).
 * @param {Asset} entry @returns {Promise<Sha256Factory>}
 */
export async function loadSha256(entry) {
  let mod;
  try {
    mod = await import(assetURL(entry.path));
  } catch (e) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load ${entry.path} as an ES module: ${e && /** @type {Error} */ (e).message}`, {
      file: entry.path,
      expected: "hash-wasm's ES module build (dist/index.esm.min.js)",
    });
  }
  if (typeof mod.createSHA256 !== 'function') {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `${entry.path} does not export createSHA256`, { file: entry.path });
  }
  return mod.createSHA256;
}

/**
 * Fetch a small asset and check it against the manifest (HTTP status and sha256), so a
 * missing or altered wheel is named as such instead of surfacing as a zip error in Python.
 * @param {Asset} entry @param {Sha256Factory} sha256Factory @returns {Promise<Uint8Array>}
 */
export async function verifyAsset(entry, sha256Factory) {
  let res;
  try {
    res = await fetch(assetURL(entry.path), { cache: 'no-cache' });
  } catch (e) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not fetch ${entry.path}: ${e && /** @type {Error} */ (e).message}`, { file: entry.path });
  }
  if (!res.ok) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not fetch ${entry.path}: HTTP ${res.status}`, { file: entry.path });
  noteSource(res);
  const bytes = new Uint8Array(await res.arrayBuffer());
  await checkSha256(entry, bytes, sha256Factory);
  return bytes;
}

/**
 * Refuse bytes whose sha256 is not the manifest's for `entry` (asset_load_failed, named).
 * @param {ManifestEntry} entry @param {Uint8Array} bytes @param {Sha256Factory} sha256Factory
 */
export async function checkSha256(entry, bytes, sha256Factory) {
  if (!entry.sha256) return;
  const h = await sha256Factory();
  h.init();
  h.update(bytes);
  const got = h.digest('hex');
  if (got !== entry.sha256) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `${entry.path} does not match assets/manifest.json`, {
      file: entry.path,
      expected: `sha256 ${entry.sha256}`,
      detail: `got sha256 ${got}`,
    });
  }
}

/** @param {any} e  the last line of an error's message (Python tracebacks end with the cause) */
export const lastLine = (e) => String((e && e.message) || e).trim().split('\n').pop();
