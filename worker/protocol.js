// The worker protocol: every message type that crosses postMessage, in one place.
//
// main -> worker   init                      boot the runtime (idempotent)
//                  run {id, op, args, files}  one request; files are File objects
//                  cancel {id}                ask a running request to stop
// worker -> main   boot {stage, done, total}  startup stage `done` of `total`
//                  ready {versions, constants} runtime booted; asset versions, Python's rule constants
//                  progress {id, stage, done, total, unit}
//                                             never goes backwards within a stage
//                  log {id, message, data?}   a step worth showing in the event log
//                  result {id, data}          terminal: success
//                  error {id, error}          terminal: failure (error is a plain object)
//                  fatal {error}              the worker cannot go on; recreate it
//
// Every request id gets exactly one terminal message (result or error). Errors are
// plain objects {code, message, file, line, expected, detail}: an Error object does
// not survive structured cloning (DataCloneError, caller hangs).

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

export const OP = Object.freeze({
  INSPECT: 'inspect',
  CONTAMINATION: 'contamination',
  READ: 'read', // stream a file through File.stream/gunzip/decode only (the benchmark's ceiling)
  // Paraphrases: `paraphrases` embeds an eval file and groups it; the job stays alive in the
  // worker (its `handle` is in the result) for `para_group` (the slider: regroup, no
  // re-embedding) and `para_exports` (stamp + CSVs at the current threshold) until the next
  // successful run or `para_close`. `para_example` gives the worked example's JSONL.
  // `embed` times the encoder alone (the benchmark).
  PARAPHRASES: 'paraphrases',
  PARA_GROUP: 'para_group',
  PARA_EXPORTS: 'para_exports',
  PARA_EXAMPLE: 'para_example',
  PARA_CLOSE: 'para_close',
  EMBED: 'embed',
});

export const ERR = Object.freeze({
  BAD_INPUT: 'bad_input',
  CANCELLED: 'cancelled',
  ASSET_LOAD_FAILED: 'asset_load_failed',
  INTERNAL: 'internal',
});

const ERROR_CODES = new Set(Object.values(ERR));
const TERMINAL = new Set([MSG.RESULT, MSG.ERROR]);

/** Boot stages in order; `boot.done` is the index of the stage being entered. */
export const BOOT_STAGES = Object.freeze(['manifest', 'pyodide', 'packages', 'evalsieve', 'ready']);

// --- constructors: main -> worker ---------------------------------------------------

export const init = () => ({ type: MSG.INIT });
export const run = (id, op, args = {}, files = null) => ({ type: MSG.RUN, id, op, args, files });
export const cancel = (id) => ({ type: MSG.CANCEL, id });

// --- constructors: worker -> main ---------------------------------------------------

export const boot = (stage, done, total = BOOT_STAGES.length - 1) => ({ type: MSG.BOOT, stage, done, total });
export const ready = (versions, constants) => ({ type: MSG.READY, versions, constants });
export const progress = (id, stage, done, total, unit) => ({ type: MSG.PROGRESS, id, stage, done, total, unit });
export const log = (id, message, data = null) => ({ type: MSG.LOG, id, message, data });
export const result = (id, data) => ({ type: MSG.RESULT, id, data });
export const error = (id, err) => ({ type: MSG.ERROR, id, error: toErrorObject(err) });
export const fatal = (err) => ({ type: MSG.FATAL, error: toErrorObject(err) });

/**
 * Make a plain, cloneable error object out of anything thrown or returned.
 *
 * Args: err: an object with some of {code, message, file, line, expected, detail}
 *   (a bridge error dict, a ProtocolError, an Error, a string).
 * Returns: {code, message, file, line, expected, detail}; code is one of ERR
 *   (unknown codes become 'internal'), file/expected are strings or null, line is an
 *   integer (1-based) or null, detail is a string or null.
 */
export function toErrorObject(err, fallbackCode = ERR.INTERNAL) {
  if (err === null || err === undefined) err = {};
  if (typeof err === 'string') err = { message: err };
  const code = ERROR_CODES.has(err.code) ? err.code : fallbackCode;
  let message = err.message !== undefined && err.message !== null ? String(err.message) : '';
  if (!message) message = code === ERR.INTERNAL ? 'unexpected error' : code;
  // A plain Error gives its name ('TypeError: ...') so the page can show what broke.
  if (err instanceof Error && err.name && err.name !== 'Error' && !('code' in err && ERROR_CODES.has(err.code))) {
    message = `${err.name}: ${message}`;
  }
  const line = Number.isInteger(err.line) ? err.line : null;
  let detail = err.detail ?? null;
  if (detail !== null && typeof detail !== 'string') {
    try { detail = JSON.stringify(detail); } catch { detail = String(detail); }
  }
  if (detail === null && err instanceof Error && code === ERR.INTERNAL && err.stack) detail = String(err.stack);
  return {
    code,
    message,
    file: err.file !== undefined && err.file !== null ? String(err.file) : null,
    line,
    expected: err.expected !== undefined && err.expected !== null ? String(err.expected) : null,
    detail,
  };
}

/** An Error that carries a protocol error code (thrown inside the worker, converted before posting). */
export class ProtocolError extends Error {
  constructor(code, message, { file = null, line = null, expected = null, detail = null } = {}) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.file = file;
    this.line = line;
    this.expected = expected;
    this.detail = detail;
  }
}

// --- validators -----------------------------------------------------------------------

const isId = (v) => (typeof v === 'string' && v.length > 0) || Number.isInteger(v);
const isCount = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * Check a message's shape. Returns null when valid, otherwise a string naming the problem.
 * Used by both ends: the worker rejects malformed requests, tests check every reply.
 */
export function validate(msg) {
  if (!msg || typeof msg !== 'object') return 'message is not an object';
  switch (msg.type) {
    case MSG.INIT:
      return null;
    case MSG.RUN:
      if (!isId(msg.id)) return 'run: id must be a non-empty string or integer';
      if (!Object.values(OP).includes(msg.op)) return `run: unknown op ${JSON.stringify(msg.op)}`;
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
      if (typeof msg.stage !== 'string') return 'progress: stage missing';
      if (!isCount(msg.done)) return 'progress: done must be a count';
      if (msg.total !== null && !isCount(msg.total)) return 'progress: total must be a count or null';
      return typeof msg.unit === 'string' ? null : 'progress: unit missing';
    case MSG.LOG:
      return typeof msg.message === 'string' ? null : 'log: message missing';
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

function validateError(e) {
  if (!e || typeof e !== 'object' || e instanceof Error) return 'error must be a plain object';
  if (!ERROR_CODES.has(e.code)) return `unknown error code ${JSON.stringify(e.code)}`;
  return typeof e.message === 'string' ? null : 'error.message must be a string';
}

export const isTerminal = (msg) => TERMINAL.has(msg.type);

// --- invariants, enforced at the sending end ----------------------------------------

/**
 * Keeps progress monotone per (id, stage): a report that would go backwards (or repeats the
 * last value) is dropped, and reports are throttled to one every `minIntervalMs` except the final one of a stage.
 */
export class ProgressGate {
  constructor(minIntervalMs = 100, now = () => Date.now()) {
    this.minIntervalMs = minIntervalMs;
    this.now = now;
    this.last = new Map(); // `${id}\u0000${stage}` -> {done, at}
  }

  /** Returns true when a progress message with these values may be sent. */
  admit(id, stage, done, total) {
    const key = `${id}\u0000${stage}`;
    const prev = this.last.get(key);
    const t = this.now();
    const final = total !== null && done >= total;
    if (prev) {
      if (done <= prev.done) return false; // backwards or a repeat
      if (!final && t - prev.at < this.minIntervalMs) return false;
    }
    this.last.set(key, { done, at: t });
    return true;
  }

  forget(id) {
    for (const key of this.last.keys()) if (key.startsWith(`${id}\u0000`)) this.last.delete(key);
  }
}

/** Remembers which ids got their terminal reply; a second terminal reply is refused. */
export class TerminalLedger {
  constructor() {
    this.done = new Set();
  }

  /** Returns true the first time for an id, false afterwards. */
  close(id) {
    if (this.done.has(id)) return false;
    this.done.add(id);
    return true;
  }

  isClosed(id) {
    return this.done.has(id);
  }
}
