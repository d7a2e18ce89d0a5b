// @ts-check
// The Python runtime: Pyodide booted from same-origin files (checked against
// assets/manifest.json), evalsieve installed from its wheel, and one door into it, bridge(),
// which unwraps evalsieve.bridge.call's JSON envelope.

import * as P from './protocol.js';
import { setBinaryMagic, setSha256Factory } from './files.js';
import {
  BOOT_ASSETS, PYODIDE_DIR, assetURL, fetchManifest, findAsset, lastLine, loadSha256, requireAsset, verifyAsset,
} from './assets.js';

const { ERR, OP, ProtocolError } = P;

/**
 * @typedef {object} Runtime
 * @property {any} pyodide
 * @property {(...args: any[]) => string} call  the evalsieve.bridge.call proxy
 * @property {Record<string, string | null>} versions
 * @property {Record<string, {version: string | null, sha256: string | null}>} assets  for run stamps
 * @property {import('./assets.js').Manifest} manifest
 * @property {import('./assets.js').Sha256Factory} sha256Factory
 * @property {P.Constants} constants  Python's rule constants
 */

/** @type {Promise<Runtime> | null} */
let booting = null;
/** @type {Runtime | null} */
let runtime = null;

/** The booted runtime; raises internal before boot. @returns {Runtime} */
export function getRuntime() {
  if (!runtime) throw new ProtocolError(ERR.INTERNAL, 'the Python runtime is not booted');
  return runtime;
}

/**
 * Boot once (later calls share the first boot's promise); a failure is posted as `fatal`.
 * @param {(msg: P.OutMessage) => void} post
 * @returns {Promise<Runtime>}
 */
export function ensureBooted(post) {
  if (!booting) booting = bootRuntime(post);
  return booting;
}

/**
 * Call evalsieve.bridge.call and unwrap its JSON envelope.
 * @param {P.BridgeOp} op
 * @param {Record<string, any>} args
 * @param {string | null} [text]  bulk text (a chunk of a file)
 * @param {Uint8Array} [data]  bulk binary (para.similarity); the bridge releases its proxy
 * @returns {any} the op's value
 * @throws {ProtocolError} with the bridge's code/message/file/line/expected/detail
 */
export function bridge(op, args, text, data) {
  const { call } = getRuntime();
  let raw;
  try {
    if (data !== undefined) raw = call(op, JSON.stringify(args), text ?? null, data);
    else raw = text === undefined ? call(op, JSON.stringify(args)) : call(op, JSON.stringify(args), text);
  } catch (e) {
    throw new ProtocolError(ERR.INTERNAL, `bridge ${op} raised: ${lastLine(e)}`, { detail: e instanceof Error ? e.message : null });
  }
  let reply;
  try {
    reply = JSON.parse(raw);
  } catch {
    throw new ProtocolError(ERR.INTERNAL, `bridge ${op} returned something that is not JSON`, { detail: String(raw).slice(0, 500) });
  }
  if (reply && reply.ok === true) return reply.value;
  const e = (reply && reply.error) || {};
  throw new ProtocolError(e.code || ERR.INTERNAL, e.message || `bridge ${op} failed`, {
    file: e.file ?? null, line: e.line ?? null, expected: e.expected ?? null, detail: e.detail ?? null,
  });
}

/** @param {(msg: P.OutMessage) => void} post @returns {Promise<Runtime>} */
async function bootRuntime(post) {
  const stages = P.BOOT_STAGES;
  const stage = (/** @type {P.BootStage} */ name) => post(P.boot(name, stages.indexOf(name), stages.length - 1));
  try {
    stage('manifest');
    const manifest = await fetchManifest();
    const wheels = {
      micropip: requireAsset(manifest, 'the micropip wheel', BOOT_ASSETS.micropip),
      packaging: requireAsset(manifest, 'the packaging wheel', BOOT_ASSETS.packaging),
      evalsieve: requireAsset(manifest, 'the evalsieve wheel', BOOT_ASSETS.evalsieve),
    };
    const hash = requireAsset(manifest, 'hash-wasm', BOOT_ASSETS.hash);
    const pyodideEntry = findAsset(manifest, BOOT_ASSETS.pyodide);
    const createSHA256 = await loadSha256(hash);
    setSha256Factory(createSHA256, assetURL(hash.path));
    for (const w of Object.values(wheels)) await verifyAsset(w, createSHA256);

    stage('pyodide');
    let loadPyodide;
    try {
      ({ loadPyodide } = await import(new URL('pyodide.mjs', PYODIDE_DIR).href));
    } catch (e) {
      throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load assets/pyodide/pyodide.mjs: ${lastLine(e)}`);
    }
    const pyodide = await loadPyodide({
      indexURL: PYODIDE_DIR.href,
      // Both set so that nothing resolves to the CDN default (cdnUrl falls back to it
      // when packageBaseUrl is unset).
      lockFileURL: new URL('pyodide-lock.json', PYODIDE_DIR).href,
      packageBaseUrl: PYODIDE_DIR.href,
      stdout: () => {},
      stderr: (/** @type {string} */ line) => console.warn('[python]', line),
    });

    stage('packages');
    try {
      await pyodide.loadPackage([assetURL(wheels.micropip.path), assetURL(wheels.packaging.path)], {
        messageCallback: () => {},
        errorCallback: (/** @type {string} */ m) => console.warn('[loadPackage]', m),
      });
    } catch (e) {
      throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load micropip/packaging: ${lastLine(e)}`, { detail: e instanceof Error ? e.message : null });
    }

    stage('evalsieve');
    let call;
    try {
      pyodide.globals.set('_evalsieve_wheel_url', assetURL(wheels.evalsieve.path));
      await pyodide.runPythonAsync(
        'import micropip\nawait micropip.install(_evalsieve_wheel_url, deps=False)\ndel _evalsieve_wheel_url\n',
      );
      // One proxy to the bridge function, kept for the worker's life.
      call = pyodide.runPython('import evalsieve.bridge\nevalsieve.bridge.call');
    } catch (e) {
      throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not install ${wheels.evalsieve.path}: ${lastLine(e)}`, {
        file: wheels.evalsieve.path,
        detail: e instanceof Error ? e.message : null,
      });
    }
    let evalsieveVersion = wheels.evalsieve.version ?? null;
    try {
      evalsieveVersion = pyodide.runPython('import evalsieve\ngetattr(evalsieve, "__version__", None)') ?? evalsieveVersion;
    } catch { /* keep the manifest's */ }

    /** @type {Runtime['assets']} */
    const assets = {};
    const add = (/** @type {string} */ key, /** @type {any} */ entry) => {
      if (entry) assets[key] = { version: entry.version ?? null, sha256: entry.sha256 ?? null };
    };
    add('pyodide', pyodideEntry ?? { version: pyodide.version });
    add('micropip', wheels.micropip);
    add('packaging', wheels.packaging);
    add('evalsieve', { ...wheels.evalsieve, version: evalsieveVersion });
    add('hash-wasm', hash);
    if (assets.pyodide && !assets.pyodide.version) assets.pyodide.version = pyodide.version;

    const versions = Object.fromEntries(Object.entries(assets).map(([k, v]) => [k, v.version]));
    runtime = { sha256Factory: createSHA256, pyodide, call, versions, assets, manifest, constants: /** @type {any} */ (null) };
    // The rule constants are Python's (evalsieve/constants.py); the worker and page read them here.
    runtime.constants = bridge(OP.CONSTANTS, {});
    setBinaryMagic(runtime.constants.binary_magic);
    stage('ready');
    post(P.ready(versions, runtime.constants));
    return runtime;
  } catch (e) {
    const err = e instanceof ProtocolError ? e
      : new ProtocolError(ERR.ASSET_LOAD_FAILED, `boot failed: ${lastLine(e)}`, { detail: (e instanceof Error && e.stack) || null });
    post(P.fatal(err));
    throw err;
  }
}
