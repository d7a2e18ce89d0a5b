// @ts-check
// The worker protocol: every message that crosses postMessage, every op name, every log
// `kind` and progress stage the page depends on, and the result shapes, in one place.
//
// main -> worker   init                      boot the runtime (idempotent)
//                  run {id, op, args, files}  one request; files are File objects
//                  cancel {id}                ask a request to stop (or not to start)
// worker -> main   boot {stage, done, total}  startup stage `done` of `total`
//                  ready {versions, constants} runtime booted; asset versions, Python's rule constants
//                  progress {id, stage, done, total, unit, eta_s?}
//                                             never goes backwards within a stage; ends at done == total
//                  log {id, message, data?}   a step worth showing in the event log (data.kind: LOG_KIND)
//                  result {id, data}          terminal: success
//                  error {id, error}          terminal: failure (error is a plain object)
//                  fatal {error}              the worker cannot go on; recreate it
// worker <-> prefilter-worker.js              PF_MSG (PrefilterIn / PrefilterOut below)
// worker <-> hash-worker.js                   HASH_MSG (HashIn / HashOut below)
//
// Every request id gets exactly one terminal message (result or error). Errors are plain objects
// {code, message, file, line, expected, detail}: an Error does not survive structured cloning.
//
// Op names: one scheme for the page's requests and the Python bridge (py/evalsieve/bridge.py
// OPS): `inspect`, `constants`, `close`, and `<job>.<step>` with job `cont` (contamination),
// `para` (paraphrases), `purify` (the training file cleaned) or `bench` (benchmarks). RUN_OPS: what a `run` may ask for; BRIDGE_OPS:
// what the worker asks Python (tests/js/test_node.py and contract.test.mjs hold both to the code).

import { ERR, ERROR_CODES, ProtocolError, messageOf, toErrorObject } from './errors.js';
export { ERR, ProtocolError, messageOf, toErrorObject };

/** @typedef {string | number} Id  a request id: a non-empty string or an integer */ /** @typedef {import('./errors.js').ErrCode} ErrCode */ /** @typedef {import('./errors.js').ErrorObject} ErrorObject */

/**
 * Python's rule constants (py/evalsieve/constants.py as_json), posted in `ready`.
 * @typedef {object} Constants
 * @property {number} n_min  least N a user may set (1)
 * @property {number} n_max  most N a user may set (1000)
 * @property {number} n_auto_min  the rule's own N is clamped to n_auto_min..n_auto_max (8..13)
 * @property {number} n_auto_max
 * @property {number} threshold_min_exclusive  contamination threshold in (this, threshold_max]
 * @property {number} threshold_max
 * @property {number} para_floor  the slider's lowest cosine; every pair >= it is kept
 * @property {number} para_threshold_max
 * @property {number} para_threshold_default
 * @property {number} para_window  word pieces per row incl. [CLS] and [SEP]
 * @property {number} embedding_dims  floats per sentence embedding
 * @property {{min: number, max: number, default: number}} semantic_code_ngram  tokens per code shingle of the semantic rung (0 = code channel off)
 * @property {{clean_by_format: Record<string, string>, contamination: string[], paraphrases: string[], skipped: string, stamp: string, dedup_by_format: Record<string, string>, dedup_dropped: string}} export_names
 * @property {BinaryMagic[]} binary_magic
 * @property {Record<string, string>} clean_rules  what eval.clean keeps, by the clean setting (first: default)
 * @property {Record<string, string>} dedup_keep_rules  the same shape: the row a group keeps in eval.deduplicated.*
 * @property {{modes: string[], rows: Record<string, string>, self_checks: string[], radius: {min: number, max: number, default: number}, min_piece: {min: number, max: number, default: number}, max_splits: {min: number, max: number, default: number}}} purify  purify's settings (py/evalsieve/purify.py; first of each list: the default)
 */

/**
 * One refused binary format: the file starts with `magic` (and has `also.magic` at `also.at`).
 * @typedef {{magic: number[], what: string, todo: string, also: {at: number, magic: number[]} | null}} BinaryMagic
 */

// --- main -> worker ---------------------------------------------------------------------
/**
 * @typedef {{type: 'init'}} InitMsg
 * @typedef {{type: 'run', id: Id, op: RunOp, args: Record<string, any>, files?: Record<string, File> | null}} RunMsg
 * @typedef {{type: 'cancel', id: Id}} CancelMsg
 * @typedef {InitMsg | RunMsg | CancelMsg} InMessage
 */

// --- worker -> main ---------------------------------------------------------------------
/**
 * @typedef {{type: 'boot', stage: BootStage, done: number, total: number}} BootMsg
 * @typedef {{type: 'ready', versions: Record<string, string | null>, constants: Constants}} ReadyMsg
 * @typedef {{type: 'progress', id: Id, stage: ProgressStage, done: number, total: number | null, unit: ProgressUnit, eta_s?: number | null}} ProgressMsg
 * @typedef {{type: 'log', id: Id | null, message: string, data: LogData | null}} LogMsg
 * @typedef {{type: 'result', id: Id, data: any}} ResultMsg
 * @typedef {{type: 'error', id: Id, error: ErrorObject}} ErrorMsg
 * @typedef {{type: 'fatal', error: ErrorObject}} FatalMsg
 * @typedef {BootMsg | ReadyMsg | ProgressMsg | LogMsg | ResultMsg | ErrorMsg | FatalMsg} OutMessage
 */

/**
 * Progress stages: `eval`, `train` (contamination, bytes), `read` (paraphrases, bytes),
 * `embed` (rows, with eta_s: seconds left, null before the first batch), `tiles` (cosine tiles),
 * `write` / `check` (purify: the training file written, the output rescanned; bytes).
 * @typedef {'eval' | 'train' | 'read' | 'embed' | 'tiles' | 'write' | 'check'} ProgressStage
 * @typedef {'bytes' | 'rows' | 'tiles'} ProgressUnit
 */
export const STAGE = Object.freeze({ EVAL: 'eval', TRAIN: 'train', READ: 'read', EMBED: 'embed', TILES: 'tiles', WRITE: 'write', CHECK: 'check' });

/**
 * `log.data` by kind (the page reads these; a log without data is text only).
 * @typedef {{kind: 'inspected', role: string, format: string, gzip: boolean}} InspectedLog
 * @typedef {{kind: 'queued', behind: string}} QueuedLog  a long job waits for another to end
 * @typedef {{kind: 'n_chosen', n: number, n_how: string, rows: number, rows_scorable: number, rows_too_short: number, eval_ngrams: number}} NChosenLog
 * @typedef {{kind: 'prefilter', candidates: number, records: number, threaded: boolean, workers: number, python_ms: number, waiting_for_filter_ms: number, read_ms: number, post_ms: number, filter_ms: number, inline_ms: number, hash_ms: number, hash_worker_ms: number, hash_note?: string, decode_ms: number, kernel_wasm: number, kernel_js: number, kernel_notes: string[]}} PrefilterLog (ms per stage; filter_ms: summed over the workers; inline_ms: chunks the reader scanned; kernel_wasm / kernel_js: chunks scanned by the WebAssembly kernel / prefilter.js, kernel_notes: why prefilter.js; hash_ms: the reader's share of the sha256 (copies to the hashing worker, or the hashing), hash_worker_ms: the hashing worker's, hash_note: why the reader hashed)
 * @typedef {{kind: 'train_done', records: number, bytes: number, mbps: number | null}} TrainDoneLog
 * @typedef {{kind: 'para_rows', rows: number, rows_empty: number}} ParaRowsLog
 * @typedef {{kind: 'estimate', seconds: number, rows_per_s_first_batch: number}} EstimateLog
 * @typedef {{kind: 'provider', provider: 'wasm' | 'webgpu', reason: string, adapter: string | null, sample_rows: number, min_cosine: number | null}} ProviderLog  embed/provider.js's choice
 * @typedef {{kind: 'semantic', windows: number, windows_embedded: number, window_words: number, eval_rows: number, texts: number, pairs: number, scan_seconds: number}} SemanticLog  the semantic rung's candidate stage: what will be embedded, and the window scan's seconds (the `estimate` follows after the first batch)
 * @typedef {InspectedLog | QueuedLog | NChosenLog | PrefilterLog | TrainDoneLog | ParaRowsLog | EstimateLog | ProviderLog | SemanticLog} LogData
 */
export const LOG_KIND = Object.freeze({
  INSPECTED: 'inspected',
  QUEUED: 'queued',
  N_CHOSEN: 'n_chosen',
  PREFILTER: 'prefilter',
  TRAIN_DONE: 'train_done',
  PARA_ROWS: 'para_rows',
  ESTIMATE: 'estimate',
  PROVIDER: 'provider',
  SEMANTIC: 'semantic',
});

// --- results (ResultMsg.data by op) -----------------------------------------------------
/**
 * @typedef {{name: string, mime: string, text: string, blob?: Blob}} Export  blob: a binary export (eval.clean.parquet; text '')
 * @typedef {{name: string, sha256: string | null, bytes: number, gzip: boolean, format?: string}} InputInfo
 * @typedef {{rows: Record<string, any>[], rows_total: number, histogram: {bin_width: number, counts: number[]}, score_figures?: Record<string, any>[], score_settings?: Record<string, any>, ladder: LadderView}} ContaminationView
 *   rows: none (cont.run asks with limit 0: the page pages them with cont.rows); rows_total: the contaminated rows; histogram: containment of the scored rows in tenths (the overlap report's bins); with a scores file, score_figures (per metric) and score_settings; ladder: py/evalsieve/ladder.py
 * @typedef {'exact' | 'ngram' | 'semantic'} Rung
 * @typedef {{rungs: Rung[], excluded: Rung[], by_rung: Record<Rung, number | null>, clean_at_these_rungs: number, rows: Record<string, any>[], rows_total: number, semantic: {figures: Record<string, any>, threshold: number, code_threshold: number, candidates: number, encoder: string, rule: string, quality_note: string} | null}} LadderView
 * @typedef {{eval_texts: string[], window_texts: string[], pairs: [number, number][], figures: {window_words: number, window_how: string, windows: number, windows_sharing_a_key_term: number, windows_embedded: number, pairs_verified: number, docstring_pairs: number, code_rows: number, probes: number, idf_background: string}, scan_seconds: number}} SemanticRequest  bridge cont.semantic_request (scan_seconds: the window scan's own time, embedding and reading excluded; eval_texts: the probes of the eval rows, then docstrings; window_texts: the fitted spans, then docstrings; windows_embedded counts the spans)
 * @typedef {'cache' | 'network' | 'cache+network'} AssetsFrom  where the worker's checked assets came from (assets.js assetsFrom)
 * @typedef {{assets_from: AssetsFrom, threads?: number, cross_origin_isolated?: boolean, hardware_concurrency?: number, execution_provider?: 'wasm' | 'webgpu', provider_reason?: string, provider_sample_rows?: number, provider_min_cosine?: number | null, webgpu_adapter?: string | null, webgpu_graph_sha256?: string}} Environment  how the page ran; the run stamp's `environment` (webgpu_graph_sha256: encoder-fp32.onnx, only when WebGPU embedded the rows)
 * @typedef {{rows: Record<string, any>[], matched: number, total: number, offset: number, limit: number, facets: Record<string, Record<string, number>>}} RowsPage  cont.rows / para.rows (py/evalsieve/result_table.py)
 * @typedef {{file: string, record: number, id: string, format: string, value: any, text: string, fields: {path: string, text: string, marks: number[][]}[], read: string}} RecordResult  cont.record (read: how the worker read it again)
 * @typedef {{handle: number, summary: Record<string, any>, eval_info: Record<string, any>, exports: Export[], view: ContaminationView, inputs: {eval: InputInfo, train: InputInfo, train_files?: InputInfo[], scores?: InputInfo}, timing: {seconds: number, train_mbps: number | null, semantic_seconds?: number}, environment: Environment, parquet_kept?: {name: string, rows: number, reason: string}}} ContaminationResult
 * @typedef {Record<string, any> & {format: string, gzip: boolean, head_complete: boolean, size: number, name: string}} InspectResult
 * @typedef {{handle: number, figures: Record<string, any>, eval_info: {rows: number, rows_empty: number, skipped_lines?: Record<string, number>}, input: InputInfo, encoder: {threads: number, isolated: boolean, model_sha256: string}, environment: Environment, timing: Record<string, any>}} ParaphrasesResult
 * @typedef {{figures: Record<string, any>, ms: number}} ParaGroupResult
 * @typedef {{stamp: Record<string, any>, exports: Export[], parquet_kept?: {name: string, rows: number, reason: string}}} ParaExportsResult
 * @typedef {{name: string, text: string}} ParaExampleResult
 * @typedef {{summary: Record<string, any>, exports: Export[], output: {name: string, bytes: number, sha256: string, saved: 'file' | 'blob', blob?: Blob}, inputs: {eval: InputInfo, train: InputInfo}, timing: {seconds: number, scan: number, write: number, check: number}}} PurifyResult  purify.run (saved 'file': written through the File System Access handle args.save; 'blob': the cleaned file is `blob`)
 * @typedef {{sha256: string | null, bytes: number, gzip: boolean, chars: number, lines: number, seconds: number, hash_ms: number, decode_ms: number}} ReadResult
 * @typedef {{rows: number, seconds: number, rows_per_s: number, truncated: number, threads: number, isolated: boolean}} EmbedResult
 */

// --- the prefilter sub-worker (prefilter-worker.js) ------------------------------------
/**
 * @typedef {{hash: {fnv_offset: number, fnv_prime: number, mix: number, count_mix: number}, probes: number[], scalar_only: boolean}} PrefilterExact (the exact rung's probes and their hash: evalsieve.exact.prefilter_exact)
 * @typedef {{n: number, ngrams: string[], format: string, paths: any[][], chars: Record<string, string>, kernel?: {chars: Record<string, string>, flags: Record<string, number>}, exact: PrefilterExact}} PrefilterSpec (kernel: the scan kernel's characters beyond chars, and their context flags: kernel_spec.kernel_chars)
 * @typedef {{type: 'spec', spec: PrefilterSpec}} PrefilterSpecMsg
 * @typedef {{type: 'chunk', seq: number, data: string | Uint8Array}} PrefilterChunkMsg (data: UTF-8 bytes, transferred, or text)
 * @typedef {PrefilterSpecMsg | PrefilterChunkMsg} PrefilterIn
 * @typedef {{records: number[], lines: number[], offsets: number[] | null, text: string, records_total: number, chars: number}} Scanned (offsets: candidates' first bytes in the file after its BOM; null for rows given as text)
 * @typedef {{records: number[], lines: number[], offsets?: number[] | null, text: string, records_in: number, lines_in: number, chars: number, ms: number}} ChunkScan (chunk-local numbers; offsets: the candidates' first bytes)
 * @typedef {ChunkScan & {type: 'scanned', seq: number, kernel: 'wasm' | 'js', kernel_note?: string, buffer?: ArrayBuffer}} PrefilterScannedMsg (kernel: which scanner read the chunk; kernel_note: why not the WebAssembly kernel; buffer: a byte chunk's, handed back for reuse, transferred)
 * @typedef {{type: 'failed', seq: number, message: string, utf8?: {line: number, byte: number}, buffer?: ArrayBuffer}} PrefilterFailedMsg (utf8: chunk-local)
 * @typedef {PrefilterScannedMsg | PrefilterFailedMsg} PrefilterOut
 */
export const PF_MSG = Object.freeze({ SPEC: 'spec', CHUNK: 'chunk', SCANNED: 'scanned', FAILED: 'failed' });

// --- the hashing sub-worker (hash-worker.js) --------------------------------------------
/**
 * @typedef {{type: 'start', url: string} | {type: 'bytes', data: Uint8Array} | {type: 'digest'}} HashIn (url: hash-wasm's ES module, from the manifest; bytes: raw, in file order, transferred)
 * @typedef {{type: 'ready'} | {type: 'buffer', data: Uint8Array} | {type: 'digest', hex: string, ms: number} | {type: 'failed', message: string}} HashOut (buffer: a batch's, handed back for the next; ms: time spent hashing there)
 */
export const HASH_MSG = Object.freeze({ START: 'start', READY: 'ready', BYTES: 'bytes', BUFFER: 'buffer', DIGEST: 'digest', FAILED: 'failed' });

export const MSG = Object.freeze({
  INIT: 'init',
  RUN: 'run',
  CANCEL: 'cancel',
  BOOT: 'boot',
  READY: 'ready',
  PROGRESS: 'progress',
  LOG: 'log',
  RESULT: 'result',
  ERROR: 'error',
  FATAL: 'fatal',
});

/** Every op name, the page's requests and the Python bridge's, in one vocabulary. */
export const OP = Object.freeze({
  // run ops (the page -> the worker)
  INSPECT: 'inspect', // sample a file's head: format, fields (also a bridge op)
  CONTAMINATION: 'cont.run', // the whole contamination job; its handle stays alive for cont.rows (one page of
  CONT_ROWS: 'cont.rows', // its rows), cont.record (a training record read again by its offset; both also
  CONT_RECORD: 'cont.record', CONT_CLOSE: 'cont.close', // bridge ops), cont.close (release the handle)
  PARAPHRASES: 'para.run', // embed an eval file and group it; its handle stays alive for:
  PARA_GROUP: 'para.group', // the slider: regroup, no re-embedding (also a bridge op)
  PARA_EXPORTS: 'para.exports', // stamp + CSVs at args.threshold
  PARA_EXAMPLE: 'para.example', // the worked example's JSONL (also a bridge op)
  PARA_CLOSE: 'para.close', PARA_ROWS: 'para.rows', // release a handle; one page of its pairs or groups at a threshold (also a bridge op)
  READ: 'bench.read', // stream a file through File.stream/gunzip/decode only (the benchmark's ceiling)
  EMBED: 'bench.embed', // time the encoder alone (the benchmark)
  PURIFY: 'purify.run', // the training file cleaned of the eval n-grams (jobs/purify.js)
  // bridge ops (the worker -> py/evalsieve/bridge.py)
  CONSTANTS: 'constants',
  CLOSE: 'close',
  CONT_START: 'cont.start',
  CONT_BACKGROUND: 'cont.background',
  CONT_FEED_EVAL: 'cont.feed_eval',
  CONT_FEED_EVAL_VALUES: 'cont.feed_eval_values', // a Parquet row group as JSON records
  CONT_END_EVAL: 'cont.end_eval',
  CONT_FEED_TRAIN: 'cont.feed_train',
  CONT_TRAIN_FILE: 'cont.train_file',
  CONT_PREFILTER_SPEC: 'cont.prefilter_spec',
  CONT_FEED_CANDIDATES: 'cont.feed_candidates',
  CONT_FINISH: 'cont.finish',
  CONT_EXPORTS: 'cont.exports',
  CONT_VIEW: 'cont.view',
  CONT_SCORES: 'cont.scores', // attach a scores file (whole text) before the eval pass
  PARA_SCORES: 'para.scores', // the same for a paraphrase job
  CONT_SEMANTIC_REQUEST: 'cont.semantic_request', // the semantic rung: texts and pairs to embed
  CONT_SEMANTIC_COSINES: 'cont.semantic_cosines', // ... and their cosines back (float32 block)
  CONT_SEMANTIC_KERNEL: 'cont.semantic_kernel', // the rung's window scan in a kernel instance
  PARA_START: 'para.start',
  PARA_FEED_EVAL: 'para.feed_eval',
  PARA_FEED_EVAL_VALUES: 'para.feed_eval_values', // a Parquet row group as JSON records
  PARA_END_EVAL: 'para.end_eval',
  PARA_SIMILARITY: 'para.similarity',
  PARA_FINISH: 'para.finish',
  PURIFY_BEGIN: 'purify.begin', PURIFY_PLAN: 'purify.plan', PURIFY_FEED: 'purify.feed', PURIFY_END: 'purify.end', PURIFY_CHECK: 'purify.check', PURIFY_FINISH: 'purify.finish', // py/evalsieve/purify_page.py
});
/** @typedef {typeof OP[keyof typeof OP]} OpName */

/** What a `run` message may ask the worker for. */
export const RUN_OPS = Object.freeze([
  OP.INSPECT, OP.CONTAMINATION, OP.CONT_ROWS, OP.CONT_RECORD, OP.CONT_CLOSE, OP.PARAPHRASES,
  OP.PARA_GROUP, OP.PARA_EXPORTS, OP.PARA_EXAMPLE, OP.PARA_CLOSE, OP.PARA_ROWS, OP.READ, OP.EMBED,
  OP.PURIFY,
]);
/** @typedef {typeof RUN_OPS[number]} RunOp */

/** What the worker asks Python (py/evalsieve/bridge.py OPS, exactly). */
export const BRIDGE_OPS = Object.freeze([
  OP.CONSTANTS, OP.INSPECT, OP.CLOSE,
  OP.CONT_START, OP.CONT_BACKGROUND, OP.CONT_FEED_EVAL, OP.CONT_FEED_EVAL_VALUES, OP.CONT_END_EVAL, OP.CONT_FEED_TRAIN,
  OP.CONT_TRAIN_FILE, OP.CONT_PREFILTER_SPEC, OP.CONT_FEED_CANDIDATES, OP.CONT_FINISH, OP.CONT_EXPORTS, OP.CONT_VIEW,
  OP.CONT_ROWS, OP.CONT_RECORD, OP.PARA_ROWS,
  OP.CONT_SCORES, OP.PARA_SCORES, OP.CONT_SEMANTIC_REQUEST, OP.CONT_SEMANTIC_COSINES, OP.CONT_SEMANTIC_KERNEL,
  OP.PARA_START, OP.PARA_EXAMPLE, OP.PARA_FEED_EVAL, OP.PARA_FEED_EVAL_VALUES, OP.PARA_END_EVAL, OP.PARA_SIMILARITY,
  OP.PARA_GROUP, OP.PARA_FINISH,
  OP.PURIFY_BEGIN, OP.PURIFY_PLAN, OP.PURIFY_FEED, OP.PURIFY_END, OP.PURIFY_CHECK, OP.PURIFY_FINISH,
]);
/** @typedef {typeof BRIDGE_OPS[number]} BridgeOp */
/** The long jobs: they run one at a time, in the order asked (worker/dispatch.js). */
export const QUEUED_OPS = Object.freeze([OP.CONTAMINATION, OP.PARAPHRASES, OP.EMBED, OP.READ, OP.PURIFY]);

/** Boot stages in order; `boot.done` is the index of the stage being entered. */
export const BOOT_STAGES = Object.freeze(/** @type {const} */ (['manifest', 'pyodide', 'packages', 'evalsieve', 'ready']));
/** @typedef {typeof BOOT_STAGES[number]} BootStage */

// --- constructors: main -> worker ---------------------------------------------------

/** @returns {InitMsg} */
export const init = () => ({ type: MSG.INIT });
/** @param {Id} id @param {RunOp} op @param {Record<string, any>} args @param {Record<string, File> | null} files @returns {RunMsg} */
export const run = (id, op, args = {}, files = null) => ({ type: MSG.RUN, id, op, args, files });
/** @param {Id} id @returns {CancelMsg} */
export const cancel = (id) => ({ type: MSG.CANCEL, id });

// --- constructors: worker -> main ---------------------------------------------------

/** @param {BootStage} stage @param {number} done @param {number} total @returns {BootMsg} */
export const boot = (stage, done, total = BOOT_STAGES.length - 1) => ({ type: MSG.BOOT, stage, done, total });
/** @param {Record<string, string | null>} versions @param {Constants} constants @returns {ReadyMsg} */
export const ready = (versions, constants) => ({ type: MSG.READY, versions, constants });
/**
 * @param {Id} id @param {ProgressStage} stage @param {number} done @param {number | null} total
 * @param {ProgressUnit} unit @param {number | null} [etaS]  seconds left (stage `embed`)
 * @returns {ProgressMsg}
 */
export const progress = (id, stage, done, total, unit, etaS) => (etaS === undefined
  ? { type: MSG.PROGRESS, id, stage, done, total, unit }
  : { type: MSG.PROGRESS, id, stage, done, total, unit, eta_s: etaS });
/** @param {Id | null} id @param {string} message @param {LogData | null} [data] @returns {LogMsg} */
export const log = (id, message, data = null) => ({ type: MSG.LOG, id, message, data });
/** @param {Id} id @param {any} data @returns {ResultMsg} */
export const result = (id, data) => ({ type: MSG.RESULT, id, data });
/** @param {Id} id @param {any} err @returns {ErrorMsg} */
export const error = (id, err) => ({ type: MSG.ERROR, id, error: toErrorObject(err) });
/** @param {any} err @returns {FatalMsg} */
export const fatal = (err) => ({ type: MSG.FATAL, error: toErrorObject(err) });

// --- validators -----------------------------------------------------------------------

/** @type {readonly string[]} */
const STAGES = Object.values(STAGE);
/** @type {readonly string[]} */
const LOG_KINDS = Object.values(LOG_KIND);

/** @param {any} v */
const isId = (v) => (typeof v === 'string' && v.length > 0) || Number.isInteger(v);
/** @param {any} v */
const isCount = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * Check a message's shape. Returns null when valid, otherwise a string naming the problem.
 * Used by both ends: the worker rejects malformed requests, tests check every reply.
 */
/** @param {any} msg @returns {string | null} */
export function validate(msg) {
  if (!msg || typeof msg !== 'object') return 'message is not an object';
  switch (msg.type) {
    case MSG.INIT:
      return null;
    case MSG.RUN:
      if (!isId(msg.id)) return 'run: id must be a non-empty string or integer';
      if (!RUN_OPS.includes(msg.op)) return `run: unknown op ${JSON.stringify(msg.op)}`;
      if (msg.args === null || typeof msg.args !== 'object') return 'run: args must be an object';
      return null;
    case MSG.CANCEL:
      return isId(msg.id) ? null : 'cancel: id missing';
    case MSG.BOOT:
      if (typeof msg.stage !== 'string') return 'boot: stage missing';
      return isCount(msg.done) && isCount(msg.total) ? null : 'boot: done/total must be counts';
    case MSG.READY:
      if (!msg.versions || typeof msg.versions !== 'object') return 'ready: versions missing';
      return msg.constants && typeof msg.constants === 'object' ? null : 'ready: constants missing';
    case MSG.PROGRESS:
      if (!isId(msg.id)) return 'progress: id missing';
      if (!STAGES.includes(msg.stage)) return `progress: unknown stage ${JSON.stringify(msg.stage)}`;
      if (!isCount(msg.done)) return 'progress: done must be a count';
      if (msg.total !== null && !isCount(msg.total)) return 'progress: total must be a count or null';
      if (msg.eta_s !== undefined && msg.eta_s !== null && !isCount(msg.eta_s)) return 'progress: eta_s must be seconds or null';
      return typeof msg.unit === 'string' ? null : 'progress: unit missing';
    case MSG.LOG:
      if (typeof msg.message !== 'string') return 'log: message missing';
      if (msg.data && !LOG_KINDS.includes(msg.data.kind)) return `log: unknown kind ${JSON.stringify(msg.data.kind)}`;
      return null;
    case MSG.RESULT:
      return isId(msg.id) ? null : 'result: id missing';
    case MSG.ERROR:
      if (!isId(msg.id)) return 'error: id missing';
      return validateError(msg.error);
    case MSG.FATAL:
      return validateError(msg.error);
    default:
      return `unknown message type ${JSON.stringify(msg.type)}`;
  }
}

/** @param {any} e */
function validateError(e) {
  if (!e || typeof e !== 'object' || e instanceof Error) return 'error must be a plain object';
  if (!ERROR_CODES.has(e.code)) return `unknown error code ${JSON.stringify(e.code)}`;
  return typeof e.message === 'string' ? null : 'error.message must be a string';
}
