// @ts-check
// The worker's dispatcher: validates messages, runs each request's op, queues the long jobs,
// cancels, and keeps the two invariants of the protocol: exactly one terminal reply per id,
// and progress that never goes backwards. Pure: no Pyodide, no DOM, no `self`; the worker
// passes its ops, its boot and its postMessage in, and tests/js drives it under Node.

import * as P from './protocol.js';

const { MSG, ERR, ProtocolError } = P;

/**
 * What a job sees of the dispatcher.
 * @typedef {object} JobContext
 * @property {P.Id} id
 * @property {() => boolean} isCancelled
 * @property {() => void} throwIfCancelled  throws ProtocolError(cancelled) once cancel {id} came
 * @property {(message: string, data?: P.LogData | null) => void} log
 * @property {(stage: P.ProgressStage, done: number, total: number | null, unit: P.ProgressUnit, etaS?: number | null) => void} progress
 *   gated: monotone per stage, throttled, the stage's last report (done >= total) always sent
 * @property {(msg: P.OutMessage) => void} post
 */
/** @typedef {(ctx: JobContext, args: Record<string, any>, files: Record<string, File>) => Promise<any>} Op */

/**
 * Keeps progress monotone per (id, stage): a report that would go backwards (or repeats the
 * last value) is dropped, and reports are throttled to one every `minIntervalMs` except the
 * final one of a stage.
 */
export class ProgressGate {
  constructor(minIntervalMs = 100, now = () => Date.now()) {
    this.minIntervalMs = minIntervalMs;
    this.now = now;
    /** @type {Map<string, {done: number, at: number}>} `${id}\u0000${stage}` -> last report */
    this.last = new Map();
  }

  /**
   * Returns true when a progress message with these values may be sent.
   * @param {P.Id} id @param {string} stage @param {number} done @param {number | null} total
   */
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

  /** @param {P.Id} id */
  forget(id) {
    for (const key of this.last.keys()) if (key.startsWith(`${id}\u0000`)) this.last.delete(key);
  }
}

/** Remembers which ids got their terminal reply; a second terminal reply is refused. */
export class TerminalLedger {
  constructor() {
    /** @type {Set<P.Id>} */
    this.done = new Set();
  }

  /** Returns true the first time for an id, false afterwards. @param {P.Id} id */
  close(id) {
    if (this.done.has(id)) return false;
    this.done.add(id);
    return true;
  }

  /** @param {P.Id} id */
  isClosed(id) {
    return this.done.has(id);
  }
}

/** How the event log names a long job. @type {Record<string, string>} */
const JOB_LABEL = {
  [P.OP.CONTAMINATION]: 'contamination', [P.OP.PARAPHRASES]: 'paraphrases', [P.OP.READ]: 'read', [P.OP.EMBED]: 'embed',
  [P.OP.PURIFY]: 'purify',
};

/**
 * A dispatcher for one worker.
 *
 * The long jobs (P.QUEUED_OPS) run one at a time, in the order asked: a second one waits (and
 * logs kind `queued`) until the first has ended; a job cancelled while it waits ends with
 * error {code: cancelled} without starting. Whatever an op throws or rejects with becomes
 * error {id} (never an unhandled rejection).
 *
 * @param {object} o
 * @param {Partial<Record<P.RunOp, Op>>} o.ops  the op table (tests/js/test_node.py: every RUN_OPS, nothing else)
 * @param {() => Promise<unknown>} o.boot  boots the runtime; a failure is the boot's to report (fatal)
 * @param {(msg: P.OutMessage) => void} o.post
 * @param {number} [o.progressIntervalMs]
 * @param {() => number} [o.now]
 * @returns {{onMessage: (msg: any) => void, jobs: Map<P.Id, {cancelled: boolean}>}}
 */
export function createDispatcher({ ops, boot, post, progressIntervalMs = 100, now = () => Date.now() }) {
  const gate = new ProgressGate(progressIntervalMs, now);
  const ledger = new TerminalLedger();
  /** @type {Map<P.Id, {cancelled: boolean}>} */
  const jobs = new Map();
  const queued = new Set(/** @type {readonly string[]} */ (P.QUEUED_OPS));
  let chain = Promise.resolve();
  let longJobs = 0; // long jobs running or waiting
  /** @type {{id: P.Id, op: string} | null} */
  let running = null;

  /** @param {P.Id} id @param {P.ResultMsg | P.ErrorMsg} msg */
  function reply(id, msg) {
    if (!ledger.close(id)) return; // exactly one terminal message per id
    gate.forget(id);
    post(msg);
  }

  /** @param {P.Id} id @param {{cancelled: boolean}} job @returns {JobContext} */
  function context(id, job) {
    return {
      id,
      post,
      isCancelled: () => job.cancelled,
      throwIfCancelled: () => {
        if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
      },
      log: (message, data = null) => post(P.log(id, message, data)),
      progress: (stage, done, total, unit, etaS) => {
        if (gate.admit(id, stage, done, total)) post(P.progress(id, stage, done, total, unit, etaS));
      },
    };
  }

  /** @param {P.RunMsg} msg */
  async function handleRun(msg) {
    const { id } = msg;
    const job = { cancelled: false };
    jobs.set(id, job);
    /** @type {(() => void) | null} */
    let release = null;
    try {
      await boot();
      if (queued.has(msg.op)) {
        const before = chain;
        chain = new Promise((resolve) => { release = () => resolve(undefined); });
        if (longJobs > 0) {
          const behind = running ? running.op : 'earlier';
          post(P.log(id, `queued: waits for the ${JOB_LABEL[behind] || behind} run to finish`, { kind: 'queued', behind }));
        }
        longJobs++;
        await before;
        running = { id, op: msg.op };
      }
      if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
      const op = ops[msg.op];
      if (!op) throw new ProtocolError(ERR.INTERNAL, `no handler for op ${msg.op}`);
      const data = await op(context(id, job), msg.args, msg.files || {});
      if (job.cancelled) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
      reply(id, P.result(id, data));
    } catch (e) {
      reply(id, P.error(id, job.cancelled ? { code: ERR.CANCELLED, message: 'cancelled' } : e));
    } finally {
      jobs.delete(id);
      if (release) {
        longJobs--;
        if (running && running.id === id) running = null;
        /** @type {() => void} */ (release)();
      }
    }
  }

  /** @param {any} msg  a message event's data, not yet validated */
  function onMessage(msg) {
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
        boot().catch(() => {}); // the failure was posted as `fatal`
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
  }

  return { onMessage, jobs };
}
