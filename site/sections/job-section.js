// @ts-check
// A tab of the page: one job. The run lifecycle (progress, cancel, status, error box, event
// log) and file inspection live here once; a job section adds its inputs, its request
// arguments and its results. A new job is one new file in sections/ and one line in app.js.

import * as P from '../worker/protocol.js';
import { describeError, fmtBytes } from '../lib/format.js';
import { ErrorBox } from '../ui/error-box.js';
import { ProgressView } from '../ui/progress-view.js';
import { MovableBox, keepInView } from '../lib/layout.js';

const { OP, ERR } = P;

/**
 * @typedef {import('../worker/protocol.js').Constants} Constants
 * @typedef {{client: import('../lib/worker-client.js').WorkerClient, log: import('../lib/event-log.js').EventLog}} Services
 * @typedef {import('../lib/worker-client.js').ErrorObject} ErrorObject
 */

/** What mount's parts are before mount: app.js mounts every section before any run, inspect or worker event. */
export const UNMOUNTED = /** @type {any} */ (undefined);

/** A job's `webgpu` argument: the page opened with ?webgpu=any may embed on a software
 * fallback WebGPU adapter too (worker/embed/provider.js); otherwise nothing is sent. */
export function webgpuArgs() {
  return new URLSearchParams(location.search).get('webgpu') === 'any' ? { webgpu: 'any' } : {};
}

export class JobSection {
  /** @type {Services} */ services = UNMOUNTED;
  /** @type {import('../lib/event-log.js').EventLog} */ log = UNMOUNTED;
  /** @type {HTMLButtonElement} */ runButton = UNMOUNTED;
  /** @type {HTMLButtonElement} */ cancelButton = UNMOUNTED;
  /** @type {ErrorBox} */ errors = UNMOUNTED;
  /** @type {MovableBox} */ errorPlace = UNMOUNTED;
  /** @type {ProgressView} */ progress = UNMOUNTED;

  /**
   * key: the tab's key (#key opens it); title: the tab's text; panel: the tabpanel element;
   * logPrefix: what this section's event-log lines start with; status: the element whose
   * data-state / text say idle | running | done | cancelled | error, and whose data-runs
   * counts finished runs.
   * @param {{key: string, title: string, panel: HTMLElement, logPrefix?: string, status: HTMLElement}} opts
   */
  constructor({ key, title, panel, logPrefix = '', status }) {
    this.key = key;
    this.title = title;
    this.panel = panel;
    this.logPrefix = logPrefix;
    this.status = status;
    /** @type {string | null} */
    this.runId = null;
    /** @type {Constants | null} */
    this.constants = null; // the rule constants (lib/constants.js), from the worker's ready
  }

  /**
   * Called once with the shared services {client, log}; `parts` are this section's controls:
   * run and cancel buttons, the error box element and the progress view's elements and options.
   * @param {Services} services
   * @param {{run: HTMLButtonElement, cancel: HTMLButtonElement, error: HTMLElement, progress: ConstructorParameters<typeof ProgressView>[0],
   *   progressOptions?: ConstructorParameters<typeof ProgressView>[1]}} parts
   */
  mount(services, { run, cancel, error, progress, progressOptions }) {
    this.services = services;
    this.log = services.log;
    this.runButton = run;
    this.cancelButton = cancel;
    this.errors = new ErrorBox(error);
    this.errorPlace = new MovableBox(error); // below the Run button, or next to a drop zone
    this.progress = new ProgressView(progress, progressOptions);
    run.addEventListener('click', () => {
      this.run();
      if (this.runId !== null) keepInView(this.progress.root);
    });
    cancel.addEventListener('click', () => this.cancel());
  }

  /** Called when the worker becomes ready (again), with the rule constants it published. @param {Constants} constants */
  workerReady(constants) {
    this.constants = constants;
  }

  /** The rule constants: they come with `ready`, before any inspect can enable Run. */
  get rules() {
    if (!this.constants) throw { code: ERR.INTERNAL, message: 'the worker has not published the rule constants yet' };
    return this.constants;
  }

  /** Called when the worker died; pending requests have already been rejected. @param {ErrorObject} [err] */
  workerDied(err) {
    this.progress.hide();
  }

  /** @param {boolean} visible */
  show(visible) {
    this.panel.hidden = !visible;
  }

  /** @param {string} state @param {string} text */
  setStatus(state, text) {
    this.status.dataset.state = state;
    this.status.textContent = text;
  }

  /** The inputs changed after a run ended: the status says the results shown are not for them. @param {string} text */
  inputsStale(text) {
    if (this.runId === null && this.status.dataset.runs) this.setStatus('idle', text);
  }

  /** Extra arguments of this section's inspect requests (e.g. skip_bad_lines). @returns {Record<string, unknown>} */
  inspectArgs() {
    return {};
  }

  /** Whether Run may be pressed (inputs chosen); the section's own rule. */
  canRun() {
    return false;
  }

  updateRunButton() {
    this.runButton.disabled = !this.canRun() || this.runId !== null;
  }

  /** Start this section's job (subclasses build the request and call runJob). */
  run() {}

  /** Ask the worker to stop this section's running request (the reply ends the run). */
  cancel() {
    if (this.runId === null || this.runId === undefined) return;
    this.log.add(`${this.logPrefix}cancel requested`);
    this.services.client.cancel(this.runId);
    this.cancelButton.disabled = true;
  }

  /** An error of Run or of the results (bad settings, an export): shown below the Run button. @param {unknown} err */
  runError(err) {
    this.errorPlace.place(null);
    this.errors.show(err);
    keepInView(this.errors.box);
  }

  /**
   * An input's error (a file that cannot be read): logged, and shown right after `anchor`
   * (the drop zone it came from), scrolled into view as far as needed.
   * @param {unknown} err @param {Element | null} anchor
   */
  inputError(err, anchor) {
    this.errorPlace.place(anchor);
    this.errors.show(err);
    this.log.add(`${this.logPrefix}input error: ${describeError(P.toErrorObject(err)).text}`, 'error');
    keepInView(this.errors.box);
  }

  /**
   * Take `file` into `slot` (ui/input-slot.js) and inspect it in the worker as `role`.
   * Returns the choice {file, label, info}, or null when it was superseded or could not be
   * read (the error is then shown next to `anchor`, default the slot's drop zone, and logged,
   * and onFailed(err) called). `shownAs` is the drop zone's text.
   * @param {import('../ui/input-slot.js').InputSlot} slot @param {File} file @param {string | null} label @param {string} role
   * @param {{shownAs?: string | null, onFailed?: ((err: unknown) => void) | null, anchor?: Element | null}} [opts]
   */
  async inspectInto(slot, file, label, role, { shownAs = null, onFailed = null, anchor = null } = {}) {
    const text = shownAs ?? `${label ? `${label}: ` : ''}${file.name} (${fmtBytes(file.size)})`;
    const request = () => this.services.client.request(OP.INSPECT, { name: file.name, role, ...this.inspectArgs() }, { [role]: file }).promise;
    const pending = slot.take(file, label, text, request);
    this.updateRunButton();
    try {
      return await pending;
    } catch (err) {
      this.inputError(err, anchor || slot.drop.zone);
      onFailed?.(err);
      return null;
    } finally {
      this.updateRunButton();
    }
  }

  /**
   * One run, start to end: show progress, send the request, keep the status, the log and the
   * cancel button true, and end with exactly one of onResult(data) / onCancelled() /
   * onFailed(err) (a promise onResult returns is awaited: the run ends when its result is
   * drawn). `summary` is the log line's text after "run <label>: ".
   * @param {{op: import('../worker/protocol.js').RunOp, args: Record<string, any>, files: Record<string, File> | null, label: string, summary: string,
   *   onLog?: ((m: import('../worker/protocol.js').LogMsg) => void) | null, onResult: (data: any) => unknown,
   *   onCancelled?: (() => void) | null, onFailed?: ((err: unknown) => void) | null}} job  onResult's data: the op's result (postMessage data)
   */
  async runJob({ op, args, files, label, summary, onLog, onResult, onCancelled = null, onFailed = null }) {
    this.errors.hide();
    this.errorPlace.place(null);
    this.progress.begin();
    const req = this.services.client.request(op, args, files, { onProgress: (m) => this.progress.update(m), onLog });
    this.runId = req.id;
    this.cancelButton.disabled = false;
    this.updateRunButton();
    this.setStatus('running', `Running (${label})…`);
    this.log.add(`${this.logPrefix}run ${label}: ${summary}`);
    try {
      const drawn = /** @type {Promise<unknown> | undefined} */ (onResult(await req.promise));
      // a result drawn in steps (tables whose first page Python sends): the run ends when it is
      if (drawn && typeof drawn.then === 'function') await drawn.catch((e) => this.log.add(`${this.logPrefix}could not draw the result: ${describeError(P.toErrorObject(e)).text}`, 'error'));
    } catch (err) {
      if (err && /** @type {{code?: unknown}} */ (err).code === ERR.CANCELLED) {
        this.log.add(`${this.logPrefix}cancelled`, 'warn');
        this.setStatus('cancelled', 'Cancelled.');
        onCancelled?.();
      } else {
        this.runError(err);
        this.log.add(`${this.logPrefix}error: ${describeError(P.toErrorObject(err)).text}`, 'error');
        this.setStatus('error', 'Stopped with an error (the message is just below).');
        onFailed?.(err);
      }
    } finally {
      this.status.dataset.runs = String(Number(this.status.dataset.runs || 0) + 1);
      this.runId = null;
      this.cancelButton.disabled = true;
      this.progress.hide();
      this.updateRunButton();
    }
  }
}
