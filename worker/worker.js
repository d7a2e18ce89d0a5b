// The module worker that hosts Pyodide and runs evalsieve jobs. It owns the loops,
// progress and cancellation; the Python side (evalsieve.bridge.call) owns the domain.
// Everything it loads comes from its own origin: dist/assets/* as listed in
// dist/assets/manifest.json.

import * as P from './protocol.js';
import { forEachChunk, readHead, setBinaryMagic, setSha256Factory, yieldToEventLoop } from './files.js';
import { createPrefilter } from './prefilter.js';
import { embeddingOrder, batchCosts, similarity, packSimilarity } from './similarity.js';

const { MSG, OP, ERR, ProtocolError } = P;

// Resolved against this file (dist/worker/worker.js), so the page may live in any folder.
const DIST = new URL('../', import.meta.url);
const ASSETS = new URL('assets/', DIST);
const PYODIDE_DIR = new URL('pyodide/', ASSETS);

const HEAD_CHARS = 1 << 20; // inspect reads at most 1 MiB of decoded text
const CHUNK_CHARS = 1 << 20; // one bridge call per ~1 MiB of text (tens to hundreds of ms)

const post = (msg) => self.postMessage(msg);
const gate = new P.ProgressGate(100);
const ledger = new P.TerminalLedger();
const jobs = new Map(); // id -> {cancelled: bool}

let booting = null; // Promise<Runtime>
let runtime = null; // {pyodide, call, versions, assets}

// --- boot --------------------------------------------------------------------------------

function assetURL(path) {
  // Manifest paths are relative to dist/ ("assets/wheels/x.whl"); tolerate ones relative
  // to dist/assets/ too.
  if (/^[a-z]+:/i.test(path)) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `asset path is not relative: ${path}`);
  const clean = path.replace(/^\.?\//, '');
  return new URL(clean.startsWith('assets/') ? clean : `assets/${clean}`, DIST).href;
}

function findAsset(manifest, { names = [], pathPattern }) {
  for (const name of names) if (manifest[name] && manifest[name].path) return { name, ...manifest[name] };
  for (const [name, entry] of Object.entries(manifest)) {
    if (entry && typeof entry.path === 'string' && pathPattern.test(entry.path)) return { name, ...entry };
  }
  return null;
}

function requireAsset(manifest, what, spec) {
  const found = findAsset(manifest, spec);
  if (!found) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `${what} is not listed in assets/manifest.json`, {
      file: 'assets/manifest.json',
      expected: `an entry whose path matches ${spec.pathPattern}`,
    });
  }
  return found;
}

async function fetchJSON(url) {
  const res = await fetch(url, { cache: 'no-cache' });
  if (!res.ok) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load ${url}: HTTP ${res.status}`);
  return res.json();
}

async function loadSha256(entry) {
  const url = assetURL(entry.path);
  let mod;
  if (/\.(m?js)$/.test(entry.path) && /esm|\.mjs$/.test(entry.path)) {
    mod = await import(url);
  } else {
    // UMD build: evaluate it with a CommonJS-shaped module object.
    const res = await fetch(url);
    if (!res.ok) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load ${url}: HTTP ${res.status}`);
    const module = { exports: {} };
    new Function('module', 'exports', await res.text())(module, module.exports);
    mod = module.exports;
  }
  if (typeof mod.createSHA256 !== 'function') {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `${entry.path} does not export createSHA256`);
  }
  setSha256Factory(mod.createSHA256);
  return mod.createSHA256;
}

/**
 * Fetch a small asset and check it against the manifest (HTTP status and sha256), so a
 * missing or altered wheel is named as such instead of surfacing as a zip error in Python.
 */
async function verifyAsset(entry, sha256Factory) {
  const url = assetURL(entry.path);
  let res;
  try {
    res = await fetch(url, { cache: 'no-cache' });
  } catch (e) {
    throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not fetch ${entry.path}: ${e && e.message}`, { file: entry.path });
  }
  if (!res.ok) throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not fetch ${entry.path}: HTTP ${res.status}`, { file: entry.path });
  const bytes = new Uint8Array(await res.arrayBuffer());
  await checkSha256(entry, bytes, sha256Factory);
  return bytes;
}

/** Refuse bytes whose sha256 is not the manifest's for `entry` (asset_load_failed, named). */
async function checkSha256(entry, bytes, sha256Factory) {
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

const lastLine = (e) => String((e && e.message) || e).trim().split('\n').pop();

async function bootRuntime() {
  const stages = P.BOOT_STAGES;
  const stage = (name) => post(P.boot(name, stages.indexOf(name), stages.length - 1));
  try {
    stage('manifest');
    const manifest = await fetchJSON(new URL('manifest.json', ASSETS).href);
    const wheels = {
      micropip: requireAsset(manifest, 'the micropip wheel', { names: ['micropip'], pathPattern: /wheels\/micropip-[^/]*\.whl$/ }),
      packaging: requireAsset(manifest, 'the packaging wheel', { names: ['packaging'], pathPattern: /wheels\/packaging-[^/]*\.whl$/ }),
      evalsieve: requireAsset(manifest, 'the evalsieve wheel', { names: ['evalsieve'], pathPattern: /wheels\/evalsieve-[^/]*\.whl$/ }),
    };
    const hash = requireAsset(manifest, 'hash-wasm', {
      names: ['hash-wasm'],
      pathPattern: /hash\/[^/]*(esm[^/]*|\.mjs|sha256[^/]*)\.m?js$/,
    });
    const pyodideEntry = findAsset(manifest, { names: ['pyodide'], pathPattern: /pyodide\/pyodide\.mjs$/ });
    const createSHA256 = await loadSha256(hash);
    for (const w of Object.values(wheels)) await verifyAsset(w, createSHA256);

    stage('pyodide');
    let loadPyodide;
    try {
      ({ loadPyodide } = await import(new URL('pyodide.mjs', PYODIDE_DIR).href));
    } catch (e) {
      throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load assets/pyodide/pyodide.mjs: ${e && e.message}`);
    }
    const pyodide = await loadPyodide({
      indexURL: PYODIDE_DIR.href,
      // Both set so that nothing resolves to the CDN default (cdnUrl falls back to it
      // when packageBaseUrl is unset).
      lockFileURL: new URL('pyodide-lock.json', PYODIDE_DIR).href,
      packageBaseUrl: PYODIDE_DIR.href,
      stdout: () => {},
      stderr: (line) => console.warn('[python]', line),
    });

    stage('packages');
    try {
      await pyodide.loadPackage([assetURL(wheels.micropip.path), assetURL(wheels.packaging.path)], {
        messageCallback: () => {},
        errorCallback: (m) => console.warn('[loadPackage]', m),
      });
    } catch (e) {
      throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not load micropip/packaging: ${lastLine(e)}`, { detail: e && e.message });
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
        detail: e && e.message,
      });
    }
    let evalsieveVersion = wheels.evalsieve.version ?? null;
    try {
      evalsieveVersion = pyodide.runPython('import evalsieve\ngetattr(evalsieve, "__version__", None)') ?? evalsieveVersion;
    } catch { /* keep the manifest's */ }

    const assets = {};
    const add = (key, entry) => {
      if (entry) assets[key] = { version: entry.version ?? null, sha256: entry.sha256 ?? null };
    };
    add('pyodide', pyodideEntry ?? { version: pyodide.version });
    add('micropip', wheels.micropip);
    add('packaging', wheels.packaging);
    add('evalsieve', { ...wheels.evalsieve, version: evalsieveVersion });
    add('hash-wasm', hash);
    if (assets.pyodide && !assets.pyodide.version) assets.pyodide.version = pyodide.version;

    const versions = Object.fromEntries(Object.entries(assets).map(([k, v]) => [k, v.version]));
    runtime = { sha256Factory: createSHA256, pyodide, call, versions, assets, manifest, constants: null };
    // The rule constants are Python's (evalsieve/constants.py); the worker and page read them here.
    runtime.constants = bridge('constants', {});
    setBinaryMagic(runtime.constants.binary_magic);
    stage('ready');
    post(P.ready(versions, runtime.constants));
    return runtime;
  } catch (e) {
    const err = e instanceof ProtocolError ? e : new ProtocolError(ERR.ASSET_LOAD_FAILED, `boot failed: ${lastLine(e)}`, { detail: e && (e.stack || e.message) });
    post(P.fatal(err));
    throw err;
  }
}

function ensureBooted() {
  if (!booting) booting = bootRuntime();
  return booting;
}

// --- bridge ------------------------------------------------------------------------------

/**
 * Call evalsieve.bridge.call and unwrap its JSON envelope.
 * Raises: ProtocolError with the bridge's code/message/file/line/expected/detail.
 */
function bridge(op, args, text, data) {
  let raw;
  try {
    if (data !== undefined) raw = runtime.call(op, JSON.stringify(args), text ?? null, data); // the bridge destroys data's proxy
    else raw = text === undefined ? runtime.call(op, JSON.stringify(args)) : runtime.call(op, JSON.stringify(args), text);
  } catch (e) {
    throw new ProtocolError(ERR.INTERNAL, `bridge ${op} raised: ${e && e.message ? e.message.trim().split('\n').pop() : e}`, {
      detail: e && e.message,
    });
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
    file: e.file ?? null,
    line: e.line ?? null,
    expected: e.expected ?? null,
    detail: e.detail ?? null,
  });
}

// --- ops -----------------------------------------------------------------------------------

function requireFile(files, role) {
  const f = files && files[role];
  if (!f || typeof f.stream !== 'function') {
    throw new ProtocolError(ERR.BAD_INPUT, `no ${role} file was given`, { expected: `a ${role} file` });
  }
  return f;
}

async function opInspect(id, args, files, job) {
  const role = args.role || 'eval';
  const file = requireFile(files, role);
  const head = await readHead(file, { maxChars: HEAD_CHARS });
  if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
  const value = bridge('inspect', { name: args.name || file.name, role, complete: head.complete }, head.text);
  post(P.log(id, `${file.name}: ${value.format}, ${value.rows_sampled} rows sampled${head.gzip ? ' (gzip)' : ''}`, {
    role,
    format: value.format,
    gzip: head.gzip,
  }));
  return { ...value, gzip: head.gzip, head_complete: head.complete, size: file.size, name: file.name };
}

function utcNow() {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function opContamination(id, args, files, job) {
  const evalFile = requireFile(files, 'eval');
  const trainFile = requireFile(files, 'train');
  const startArgs = {
    eval: { ...args.eval, name: (args.eval && args.eval.name) || evalFile.name },
    train: { ...args.train, name: (args.train && args.train.name) || trainFile.name },
    n: args.n ?? null,
    boilerplate: args.boilerplate ?? true,
    threshold: args.threshold ?? null,
  };
  const isCancelled = () => job.cancelled;
  const { handle } = bridge('cont.start', startArgs);
  const t0 = performance.now();
  try {
    const passWith = async (stage, file, onText) => {
      const report = (done) => {
        if (gate.admit(id, stage, done, file.size)) post(P.progress(id, stage, done, file.size, 'bytes'));
      };
      report(0);
      const t = performance.now();
      const summary = await forEachChunk(
        file,
        { chunkChars: CHUNK_CHARS, onBytes: report, isCancelled },
        onText,
      );
      report(file.size);
      const secs = (performance.now() - t) / 1000;
      return { ...summary, seconds: secs };
    };
    const pass = (stage, file, op, onValue) => passWith(stage, file, (text) => onValue(bridge(op, { handle }, text)));

    post(P.log(id, `eval pass: reading ${evalFile.name}`));
    let evalRows = 0;
    const evalInput = await pass('eval', evalFile, 'cont.feed_eval', (v) => { evalRows = v.rows ?? evalRows; });
    // A sample of the training file picks rare filter words for the Python scan (speed only).
    const trainHead = await readHead(trainFile, { maxChars: HEAD_CHARS });
    bridge('cont.background', { handle }, trainHead.text);
    const evalInfo = bridge('cont.end_eval', { handle });
    post(P.log(id, `eval pass done: ${evalInfo.rows} rows, ${evalInfo.rows_scorable} scorable, ${evalInfo.rows_too_short} too short; N = ${evalInfo.n} (${evalInfo.n_how})`, {
      kind: 'n_chosen',
      ...evalInfo,
    }));
    if (isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled');

    post(P.log(id, `training pass: reading ${trainFile.name}${trainFile.size ? ` (${(trainFile.size / 1e6).toFixed(1)} MB)` : ''}`));
    let records = 0;
    let trainInput;
    // JSONL/text training files go through worker/prefilter.js: only records that may hold an
    // eval n-gram (or that it cannot read exactly) cross into Python, which keeps the rule.
    const spec = bridge('cont.prefilter_spec', { handle });
    if (spec) {
      // Reading (this thread) and filtering (prefilter-worker.js, another core) overlap;
      // at most PREFILTER_INFLIGHT chunks wait between them.
      const filter = startPrefilter(spec);
      let candidates = 0;
      let total = 0;
      const inflight = [];
      const spent = { python: 0, waiting: 0 }; // ms, for the log: where the pass spends its time
      const drain = async (keep) => {
        while (inflight.length > keep) {
          const t0 = performance.now();
          const r = await inflight.shift();
          const t1 = performance.now();
          spent.waiting += t1 - t0;
          candidates += r.records.length;
          total = r.records_total;
          const v = bridge('cont.feed_candidates', {
            handle,
            records: r.records,
            lines: r.lines,
            records_total: r.records_total,
            chars: r.chars,
          }, r.text);
          spent.python += performance.now() - t1;
          records = v.records ?? records;
        }
      };
      try {
        trainInput = await passWith('train', trainFile, async (text) => {
          inflight.push(filter.scan(text));
          await drain(PREFILTER_INFLIGHT);
        });
        await drain(0);
      } finally {
        for (const p of inflight) p.catch(() => {}); // a cancelled pass leaves these unread
        inflight.length = 0;
        filter.close();
      }
      post(P.log(id, `prefilter${filter.threaded ? ' (own thread)' : ''}: ${candidates} of ${total} training records passed to Python for the exact check`, {
        kind: 'prefilter', candidates, records: total, threaded: filter.threaded,
        python_ms: Math.round(spent.python), waiting_for_filter_ms: Math.round(spent.waiting),
      }));
    } else {
      trainInput = await pass('train', trainFile, 'cont.feed_train', (v) => { records = v.records ?? records; });
    }
    const mbps = trainInput.seconds > 0 ? trainInput.bytes / 1e6 / trainInput.seconds : null;
    post(P.log(id, `training pass done: ${records} records, ${trainInput.bytes} bytes${trainInput.gzip ? ' (gzip)' : ''}${mbps ? `, ${mbps.toFixed(1)} MB/s` : ''}`, {
      kind: 'train_done',
      records,
      bytes: trainInput.bytes,
      mbps,
    }));
    if (isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled');

    const summary = bridge('cont.finish', {
      handle,
      inputs: {
        eval: { sha256: evalInput.sha256, bytes: evalInput.bytes },
        train: { sha256: trainInput.sha256, bytes: trainInput.bytes },
      },
      utc: utcNow(),
      assets: runtime.assets,
    });
    const exports = bridge('cont.exports', { handle });
    const view = bridge('cont.view', { handle });
    post(P.log(id, `done in ${((performance.now() - t0) / 1000).toFixed(1)} s`));
    return {
      summary,
      eval_info: evalInfo,
      exports,
      view,
      inputs: {
        eval: { name: evalFile.name, sha256: evalInput.sha256, bytes: evalInput.bytes, gzip: evalInput.gzip },
        train: { name: trainFile.name, sha256: trainInput.sha256, bytes: trainInput.bytes, gzip: trainInput.gzip },
      },
      timing: { seconds: (performance.now() - t0) / 1000, train_mbps: mbps },
    };
  } finally {
    try { bridge('close', { handle }); } catch (e) { console.warn('close failed', e); }
  }
}

const PREFILTER_INFLIGHT = 2;

/**
 * The training-pass filter: in its own worker (prefilter-worker.js) when this browser lets a
 * worker start one, else inline. Returns {scan(text) -> Promise<{records, lines, text,
 * records_total, chars}>, close(), threaded}; results come back in the order asked.
 */
function startPrefilter(spec) {
  let sub = null;
  try {
    sub = new Worker(new URL('./prefilter-worker.js', import.meta.url), { type: 'module' });
  } catch {
    sub = null;
  }
  if (!sub) {
    const pf = createPrefilter(spec);
    const state = { records: 0, lines: 0 };
    return {
      threaded: false,
      scan: async (text) => {
        const c = pf.scan(text, state);
        return { records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'), records_total: state.records, chars: text.length };
      },
      close: () => {},
    };
  }
  const waiting = new Map(); // seq -> {resolve, reject}
  let seq = 0;
  const failAll = (err) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  sub.onmessage = (e) => {
    const m = e.data;
    const w = waiting.get(m.seq);
    if (!w) return;
    waiting.delete(m.seq);
    if (m.type === 'scanned') w.resolve(m);
    else w.reject(new ProtocolError(ERR.INTERNAL, `prefilter failed: ${m.message}`));
  };
  sub.onerror = (e) => {
    e.preventDefault();
    failAll(new ProtocolError(ERR.INTERNAL, `the prefilter worker stopped: ${e.message || 'error'}`));
  };
  sub.postMessage({ type: 'spec', spec });
  return {
    threaded: true,
    scan: (text) => new Promise((resolve, reject) => {
      const s = seq++;
      waiting.set(s, { resolve, reject });
      sub.postMessage({ type: 'chunk', seq: s, text });
    }),
    close: () => {
      sub.terminate();
      failAll(new ProtocolError(ERR.CANCELLED, 'cancelled'));
    },
  };
}

/** Read a file the way the training pass does (sha256, gunzip, UTF-8) and drop the text. */
async function opRead(id, args, files, job) {
  const file = requireFile(files, args.role || 'train');
  const t = performance.now();
  let chars = 0;
  const summary = await forEachChunk(file, { chunkChars: CHUNK_CHARS, onBytes: () => {}, isCancelled: () => job.cancelled },
    (text) => { chars += text.length; });
  return { ...summary, chars, seconds: (performance.now() - t) / 1000 };
}

// --- paraphrases -----------------------------------------------------------------------------

const PARA_BATCH = 32; // rows per session.run: on a quiet machine 32 beat 8 by 2-2.4x with 2 threads (bench_paraphrases_page.py); a cancel waits for one batch (~2 s of long rows)
const PARA_TILE = 512; // rows per side of a cosine tile (1 MiB of float32)
const PARA_MAX_SECONDS = 30 * 60; // refuse up front when the estimate is longer (use the CLI)
const ENCODER_ASSETS = {
  ort: { names: ['ort.wasm.min.mjs'], pathPattern: /ort\/ort\.wasm\.min\.mjs$/ },
  ortWasm: { names: ['ort-wasm-simd-threaded.wasm'], pathPattern: /ort\/ort-wasm-simd-threaded\.wasm$/ },
  tokenizers: { names: ['tokenizers.min.mjs'], pathPattern: /tokenizers\/[^/]*\.m?js$/ },
  model: { names: ['encoder.onnx'], pathPattern: /model\/encoder\.onnx$/ },
  tile: { names: ['tile.onnx'], pathPattern: /model\/tile\.onnx$/ },
  tokenizer: { names: ['tokenizer.json'], pathPattern: /model\/tokenizer\.json$/ },
};

let encoderBoot = null; // Promise<{encoder, assets, threads, seconds}>
const paraJobs = new Map(); // bridge handle -> {name, sha256, bytes, format} of a finished run

/**
 * Load the encoder once, on first use, from the same-origin files in assets/manifest.json.
 * numThreads is read by onnxruntime-web at its first init only: hardwareConcurrency when the
 * page is cross-origin isolated (SharedArrayBuffer), else 1; `threads` (benchmark) overrides
 * it on the first call and is ignored afterwards.
 */
function ensureEncoder(id, threads) {
  if (!encoderBoot) {
    encoderBoot = (async () => {
      const t = performance.now();
      const m = runtime.manifest;
      const a = Object.fromEntries(Object.entries(ENCODER_ASSETS).map(([k, spec]) => [k, requireAsset(m, k, spec)]));
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
          verify: async (url, bytes) => {
            const entry = Object.values(a).find((e) => assetURL(e.path) === url);
            if (entry) await checkSha256(entry, bytes, runtime.sha256Factory);
          },
          window: runtime.constants.para_window,
          batchSize: PARA_BATCH,
        });
        await encoder.encode(['warm up the session'], { sort: false });
      } catch (e) {
        throw new ProtocolError(ERR.ASSET_LOAD_FAILED, `could not start the encoder: ${lastLine(e)}`, { file: e && e.detail, detail: e && (e.stack || e.message) });
      }
      const assets = {};
      for (const [k, e] of Object.entries(a)) assets[e.name || k] = { version: e.version ?? null, sha256: e.sha256 ?? null };
      return { encoder, assets, threads: numThreads, isolated, modelSha256: a.model.sha256 || '', seconds: (performance.now() - t) / 1000 };
    })();
    encoderBoot.catch(() => { encoderBoot = null; }); // a failed load may be retried by the next run
  }
  return encoderBoot.then((enc) => {
    if (threads !== undefined && threads !== enc.threads) {
      post(P.log(id, `encoder already running with ${enc.threads} thread(s); threads=${threads} ignored (onnxruntime-web reads numThreads once)`));
    }
    return enc;
  });
}

/**
 * Embed `texts` in batches of `batchSize` (longest first when `sort`), rows back in input order.
 *
 * Cancellation and progress between batches; after the first batch the time left is
 * estimated from its speed per padded word piece, and `maxSeconds` refuses the run.
 * Returns: {embeddings: Float32Array n x 384, truncated, seconds, estimate}.
 */
async function embedRows(id, job, enc, texts, { batchSize = PARA_BATCH, sort = true, maxSeconds = PARA_MAX_SECONDS, onEstimate = null } = {}) {
  const n = texts.length;
  const tok = enc.encoder.tokenize(texts);
  const lengths = tok.ids.map((x) => x.length);
  const order = embeddingOrder(lengths, sort);
  const costs = batchCosts(lengths, order, batchSize);
  const dim = runtime.constants.embedding_dims;
  const embeddings = new Float32Array(n * dim);
  const t0 = performance.now();
  let estimate = null;
  const report = (done, eta) => {
    if (gate.admit(id, 'embed', done, n)) post({ ...P.progress(id, 'embed', done, n, 'rows'), eta_s: eta });
  };
  report(0, null);
  for (let b = 0, s = 0; s < n; b++, s += batchSize) {
    if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    const rows = order.slice(s, s + batchSize);
    const out = await enc.encoder.encode(rows.map((i) => texts[i]), { sort: false });
    rows.forEach((i, r) => embeddings.set(out.embeddings.subarray(r * dim, (r + 1) * dim), i * dim));
    const secs = (performance.now() - t0) / 1000;
    const perPiece = secs / costs[b];
    const eta = perPiece * (costs[costs.length - 1] - costs[b]);
    if (b === 0) {
      estimate = { seconds: secs + eta, rows_per_s_first_batch: rows.length / secs };
      if (onEstimate) onEstimate(estimate);
      if (estimate.seconds > maxSeconds) {
        throw new ProtocolError(ERR.BAD_INPUT, `embedding ${n.toLocaleString('en-US')} rows would take about ${Math.round(estimate.seconds / 60)} minutes in this page (measured on the first batch); the limit here is ${Math.round(maxSeconds / 60)} minutes`, {
          expected: 'a smaller eval set, or the command line: evalsieve paraphrases FILE --out DIR (same model, same exports, native speed)',
        });
      }
    }
    report(Math.min(s + rows.length, n), eta);
    await yieldToEventLoop(); // let a `cancel` message in
  }
  return { embeddings, truncated: tok.truncated, seconds: (performance.now() - t0) / 1000, estimate };
}

function closeParaJob(handle) {
  if (!paraJobs.has(handle)) return;
  paraJobs.delete(handle);
  try { bridge('close', { handle }); } catch (e) { console.warn('close failed', e); }
}

function requireParaJob(handle) {
  if (!paraJobs.has(handle)) {
    throw new ProtocolError(ERR.BAD_INPUT, 'this paraphrase result is no longer held by the worker; run again', { expected: 'the handle of the last successful run' });
  }
  return paraJobs.get(handle);
}

/**
 * The paraphrase job: read the eval file, embed its rows, tile the cosines, group.
 *
 * args: {eval: {name, format, field, label_field}, threshold, batch_size?, sort?,
 *   max_seconds?, threads? (first encoder use only)}; files: {eval: File}.
 * Returns: {handle, figures, eval_info, input: {name, sha256, bytes, format, gzip},
 *   timing: {...}, encoder: {threads, isolated}}. The job stays alive for para_group /
 *   para_exports until the next successful run (older jobs are closed then) or para_close.
 */
async function opParaphrases(id, args, files, job) {
  const file = requireFile(files, 'eval');
  const ev = args.eval || {};
  const K = runtime.constants;
  const threshold = args.threshold ?? K.para_threshold_default;
  const { handle } = bridge('para.start', {
    eval: { name: ev.name || file.name, format: ev.format, field: ev.field, label_field: ev.label_field || null },
    threshold, floor: K.para_floor, window: K.para_window,
  });
  let kept = false;
  const t0 = performance.now();
  try {
    const encP = ensureEncoder(id, args.threads); // loads while the file is read
    encP.catch(() => {});
    const report = (done) => { if (gate.admit(id, 'read', done, file.size)) post(P.progress(id, 'read', done, file.size, 'bytes')); };
    report(0);
    const input = await forEachChunk(file, { chunkChars: CHUNK_CHARS, onBytes: report, isCancelled: () => job.cancelled },
      (text) => bridge('para.feed_eval', { handle }, text));
    report(file.size);
    const info = bridge('para.end_eval', { handle });
    const texts = info.texts;
    post(P.log(id, `${file.name}: ${texts.length} rows to embed${info.rows_empty ? `, ${info.rows_empty} with an empty field` : ''}`, { kind: 'para_rows', rows: texts.length, rows_empty: info.rows_empty }));
    const enc = await encP;
    if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    post(P.log(id, `encoder ready (${enc.threads} thread${enc.threads === 1 ? '' : 's'}${enc.isolated ? '' : ', not cross-origin isolated'}, loaded in ${enc.seconds.toFixed(1)} s)`));
    const embedded = await embedRows(id, job, enc, texts, {
      batchSize: args.batch_size ?? PARA_BATCH,
      sort: args.sort ?? true,
      maxSeconds: args.max_seconds ?? PARA_MAX_SECONDS,
      onEstimate: (e) => post(P.log(id, `estimate: about ${Math.max(1, Math.round(e.seconds))} s to embed ${texts.length} rows (first batch ${e.rows_per_s_first_batch.toFixed(0)} rows/s)`, { kind: 'estimate', ...e })),
    });
    const nBlocks = Math.ceil(texts.length / PARA_TILE);
    const tiles = (nBlocks * (nBlocks + 1)) / 2;
    const tSim = performance.now();
    const sim = await similarity(embedded.embeddings, texts.length, enc.encoder.tile, K.para_floor, {
      block: PARA_TILE,
      onBlock: async (done) => {
        if (gate.admit(id, 'tiles', done, tiles)) post(P.progress(id, 'tiles', done, tiles, 'tiles'));
        if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
        await yieldToEventLoop();
      },
    });
    const simSeconds = (performance.now() - tSim) / 1000;
    const data = packSimilarity(sim, embedded.embeddings);
    const figures = bridge('para.similarity', {
      handle, rows: texts.length, pairs: sim.I.length, truncated: embedded.truncated,
      embeddings: true, model: { model_sha256: enc.modelSha256 }, threshold,
    }, null, data);
    const inputInfo = { name: file.name, sha256: input.sha256, bytes: input.bytes, format: ev.format, gzip: input.gzip };
    if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    paraJobs.set(handle, { input: inputInfo, assets: { ...runtime.assets, ...enc.assets } });
    kept = true;
    for (const h of [...paraJobs.keys()]) if (h !== handle) closeParaJob(h);
    const seconds = (performance.now() - t0) / 1000;
    post(P.log(id, `embedded ${texts.length} rows in ${embedded.seconds.toFixed(1)} s (${(texts.length / embedded.seconds).toFixed(0)} rows/s), ${sim.I.length} pairs ≥ ${K.para_floor} in ${simSeconds.toFixed(2)} s; done in ${seconds.toFixed(1)} s`));
    return {
      handle,
      figures,
      eval_info: { rows: info.rows, rows_empty: info.rows_empty },
      input: inputInfo,
      encoder: { threads: enc.threads, isolated: enc.isolated, model_sha256: enc.modelSha256 },
      timing: { seconds, embed_seconds: embedded.seconds, rows_per_s: texts.length / embedded.seconds, similarity_seconds: simSeconds, estimate: embedded.estimate },
    };
  } finally {
    if (!kept) {
      try { bridge('close', { handle }); } catch (e) { console.warn('close failed', e); }
    }
  }
}

/** The slider: regroup the held job at args.threshold (no re-embedding). Returns figures. */
async function opParaGroup(id, args) {
  requireParaJob(args.handle);
  const t = performance.now();
  const figures = bridge('para.group', { handle: args.handle, threshold: args.threshold });
  return { figures, ms: performance.now() - t };
}

/** Stamp + exports of the held job at its current threshold. */
async function opParaExports(id, args) {
  const held = requireParaJob(args.handle);
  const v = bridge('para.finish', { handle: args.handle, input: held.input, utc: utcNow(), assets: held.assets });
  return v;
}

async function opParaExample() {
  return bridge('para.example', {});
}

async function opParaClose(id, args) {
  closeParaJob(args.handle);
  return {};
}

/**
 * Time the encoder alone (benchmarks/bench_paraphrases_page.py): args {texts, batch_size,
 * sort, threads?}. Returns {rows, seconds, rows_per_s, truncated, threads, isolated}.
 */
async function opEmbed(id, args, files, job) {
  const enc = await ensureEncoder(id, args.threads);
  const texts = (args.texts || []).map(String);
  const r = await embedRows(id, job, enc, texts, { batchSize: args.batch_size ?? PARA_BATCH, sort: args.sort ?? true, maxSeconds: Infinity });
  return { rows: texts.length, seconds: r.seconds, rows_per_s: texts.length / r.seconds, truncated: r.truncated, threads: enc.threads, isolated: enc.isolated };
}

const OPS = {
  [OP.READ]: opRead,
  [OP.INSPECT]: opInspect,
  [OP.CONTAMINATION]: opContamination,
  [OP.PARAPHRASES]: opParaphrases,
  [OP.PARA_GROUP]: opParaGroup,
  [OP.PARA_EXPORTS]: opParaExports,
  [OP.PARA_EXAMPLE]: opParaExample,
  [OP.PARA_CLOSE]: opParaClose,
  [OP.EMBED]: opEmbed,
};

// --- transport -----------------------------------------------------------------------------

function reply(id, msg) {
  if (!ledger.close(id)) return; // exactly one terminal message per id
  gate.forget(id);
  post(msg);
}

// The long jobs run one at a time, in the order asked: a second one waits (and says so in
// the log) until the first has ended; a cancelled waiting job ends without starting.
const QUEUED_OPS = new Set([OP.CONTAMINATION, OP.PARAPHRASES, OP.EMBED, OP.READ]);
let jobChain = Promise.resolve();
let longJobs = 0; // long jobs running or waiting
let runningJob = null; // {id, op} of the long job in progress

async function handleRun(msg) {
  const { id } = msg;
  const job = jobs.get(id) || { cancelled: false };
  jobs.set(id, job);
  let release = null;
  try {
    await ensureBooted();
    if (QUEUED_OPS.has(msg.op)) {
      const before = jobChain;
      jobChain = new Promise((resolve) => { release = resolve; });
      if (longJobs > 0) {
        const behind = runningJob ? runningJob.op : 'earlier';
        post(P.log(id, `queued: waits for the ${behind} run to finish`, { kind: 'queued', behind }));
      }
      longJobs++;
      await before;
      runningJob = { id, op: msg.op };
    }
    if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    const data = await OPS[msg.op](id, msg.args, msg.files, job);
    if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    reply(id, P.result(id, data));
  } catch (e) {
    const err = job.cancelled ? { code: ERR.CANCELLED, message: 'cancelled' } : e;
    reply(id, P.error(id, err));
  } finally {
    jobs.delete(id);
    if (release) {
      longJobs--;
      if (runningJob && runningJob.id === id) runningJob = null;
      release();
    }
  }
}

self.onmessage = (ev) => {
  const msg = ev.data;
  const problem = P.validate(msg);
  if (problem) {
    if (msg && msg.type === MSG.RUN && (typeof msg.id === 'string' || Number.isInteger(msg.id))) {
      reply(msg.id, P.error(msg.id, { code: ERR.INTERNAL, message: `malformed request: ${problem}` }));
    } else {
      console.warn('ignored malformed message:', problem);
    }
    return;
  }
  switch (msg.type) {
    case MSG.INIT:
      ensureBooted().catch(() => {}); // the failure was posted as `fatal`
      break;
    case MSG.RUN:
      if (ledger.isClosed(msg.id) || jobs.has(msg.id)) {
        console.warn('duplicate request id ignored:', msg.id);
        return;
      }
      handleRun(msg);
      break;
    case MSG.CANCEL: {
      const job = jobs.get(msg.id);
      if (job) job.cancelled = true;
      break;
    }
    default:
      console.warn('unexpected message for the worker:', msg.type);
  }
};

self.addEventListener('error', (ev) => {
  post(P.fatal({ code: ERR.INTERNAL, message: `worker error: ${ev.message || ev}` }));
});
self.addEventListener('unhandledrejection', (ev) => {
  const r = ev.reason;
  post(P.fatal({ code: ERR.INTERNAL, message: `unhandled rejection: ${(r && r.message) || r}` }));
});
