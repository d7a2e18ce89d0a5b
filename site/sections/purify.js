// @ts-check
// "Clean the training file": after a contamination run, a copy of its training file without
// the eval set's n-grams (worker op purify.run: the same eval index and rule settings as the
// run, the CLI's own Python, so the same bytes as `evalsieve purify`). The cleaned file is
// streamed to a file the person picks (File System Access API) where the browser has it,
// else built in memory (a Blob, at most the worker's SETTINGS.purifyBlobMaxBytes) and
// offered as a download; purify-report.csv, purify-summary.json and run-stamp.json beside it.

import * as P from '../worker/protocol.js';
import { SETTINGS } from '../worker/settings.js';
import { el, definitionRows, downloadText, typedNumber } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { JobSection } from './job-section.js';
import { parsePurifySettings, purifyRefusal } from './purify-settings.js';

const { OP } = P;
/**
 * @typedef {{args: Record<string, any>, files: {eval: File, train: File}, label: string, corpus: number, trainFormat: string | undefined}} LastRun
 *   the contamination run shown (args: its cont.run request's)
 * @typedef {Window & {showSaveFilePicker?: (opts: {suggestedName: string}) => Promise<FileSystemFileHandle>}} PickerWindow  Chromium's File System Access API
 */
/** @type {Record<string, string>} */
const MODE_TEXT = {
  cut: 'cut: remove each match with R characters each side',
  drop: 'drop: leave out every record holding a match',
};
/** @type {Record<string, string>} */
const CHECK_TEXT = { full: 'rescan the written file', changed: 'rescan the changed records only' };

/** The panel's controls, built into `host` (#purify, hidden until a run has ended). @param {HTMLElement} host */
function build(host) {
  const number = (/** @type {string} */ id, /** @type {string} */ title) => el('input', { type: 'number', id, step: '1', inputmode: 'numeric', min: '0', title });
  const ui = {
    intro: el('p', { class: 'muted', id: 'purify-intro' }),
    refusal: el('p', { class: 'notice', id: 'purify-refusal', role: 'note', hidden: true }),
    mode: el('select', { id: 'purify-mode' }),
    radius: number('purify-radius', 'characters removed on each side of a matched n-gram (widened to whole words)'),
    minPiece: number('purify-min-piece', 'pieces between cuts shorter than this are left out'),
    maxSplits: number('purify-max-splits', 'a record cut in more places than this is dropped'),
    rows: el('select', { id: 'purify-rows' }),
    check: el('select', { id: 'purify-self-check' }),
    save: el('p', { class: 'muted', id: 'purify-save-note' }),
    run: el('button', { type: 'button', id: 'purify-run', disabled: true }, 'Clean the training file…'),
    cancel: el('button', { type: 'button', id: 'purify-cancel', disabled: true }, 'Cancel'),
    progress: el('div', { class: 'progress', id: 'purify-progress', hidden: true }),
    bar: el('progress', { id: 'purify-progress-bar', max: 1, value: 0 }),
    text: el('span', { id: 'purify-progress-text' }),
    status: el('p', { id: 'purify-status', class: 'status', dataset: { state: 'idle' }, role: 'status', 'aria-live': 'polite' }),
    error: el('div', { class: 'error', id: 'purify-error', role: 'alert', hidden: true }),
    counts: el('dl', { class: 'counts', id: 'purify-counts' }),
    downloads: el('div', { class: 'downloads', id: 'purify-downloads' }),
    saved: el('p', { id: 'purify-saved', hidden: true }),
  };
  const all = Object.assign(ui, { results: el('div', { class: 'purify-results', id: 'purify-results', hidden: true }, ui.counts, ui.saved, ui.downloads) });
  ui.progress.append(ui.bar, ' ', ui.text);
  host.replaceChildren(
    el('h2', { id: 'purify-title' }, 'Clean the training file'),
    ui.intro, ui.refusal,
    el('fieldset', { class: 'settings', id: 'purify-settings' }, el('legend', {}, 'Purify settings'),
      el('label', { class: 'wide' }, 'Mode ', ui.mode),
      el('label', {}, 'R (characters each side)', ui.radius),
      el('label', {}, 'Minimum piece (characters)', ui.minPiece),
      el('label', {}, 'Maximum splits', ui.maxSplits),
      el('label', { class: 'wide' }, 'N-grams of ', ui.rows),
      el('label', { class: 'wide' }, 'Self-check: ', ui.check)),
    ui.save,
    el('div', { class: 'actions' }, ui.run, ui.cancel),
    ui.progress, ui.status, ui.error, all.results);
  return all;
}

/** @param {HTMLSelectElement} select @param {[string, string][]} entries */
const options = (select, entries) => select.replaceChildren(...entries.map(([v, text], i) => el('option', { value: v, selected: i === 0 }, text)));

export class PurifyPanel extends JobSection {
  /** @param {HTMLElement} host */
  constructor(host) {
    const ui = build(host);
    super({ key: 'purify', title: 'Clean the training file', panel: host, logPrefix: 'purify: ', status: ui.status });
    this.ui = ui;
    /** @type {LastRun | null} */
    this.lastRun = null; // {args, files, label, corpus, trainFormat} of the contamination run shown
  }

  /** @param {import('./job-section.js').Services} services */
  mount(services) {
    const u = this.ui;
    super.mount(services, {
      run: u.run, cancel: u.cancel, error: u.error,
      progress: { root: u.progress, bar: u.bar, text: u.text },
      progressOptions: { stages: { eval: 'Eval pass', train: 'Scan', write: 'Writing the cleaned file', check: 'Self-check' }, speedUnit: 'bytes' },
    });
    const blob = `${+(SETTINGS.purifyBlobMaxBytes / 2 ** 30).toFixed(2)} GiB`;
    u.save.textContent = hasPicker()
      ? `You pick where the cleaned file goes; it is written there as it is made (File System Access API). Without it (Firefox, Safari) the page builds the file in memory, at most ${blob}.`
      : `This browser has no File System Access API: the cleaned file is built in memory, at most ${blob}, then offered as a download. Chromium and Edge write it straight to a file you pick.`;
  }

  /** The choices, ranges and defaults Python publishes. @param {import('./job-section.js').Constants} constants */
  workerReady(constants) {
    super.workerReady(constants);
    const p = constants.purify;
    const u = this.ui;
    options(u.mode, p.modes.map((m, i) => [m, `${MODE_TEXT[m] || m}${i === 0 ? ' (default)' : ''}`]));
    options(u.rows, Object.entries(p.rows).map(([k, text], i) => [k, `${k}: ${text}${i === 0 ? ' (default)' : ''}`]));
    options(u.check, p.self_checks.map((k, i) => [k, `${k}: ${CHECK_TEXT[k] || k}${i === 0 ? ' (default)' : ''}`]));
    for (const [input, key] of /** @type {[HTMLInputElement, 'radius' | 'min_piece' | 'max_splits'][]} */ ([[u.radius, 'radius'], [u.minPiece, 'min_piece'], [u.maxSplits, 'max_splits']])) {
      Object.assign(input, { min: p[key].min, max: p[key].max, placeholder: String(p[key].default) });
      if (input.value === '') input.value = String(p[key].default);
    }
    this.updateRunButton();
  }

  /** A contamination run ended: the panel cleans its training file with its settings. @param {LastRun} run */
  setRun(run) {
    this.lastRun = run;
    const a = run.args;
    this.panel.hidden = false;
    this.ui.results.hidden = true;
    this.ui.intro.textContent = `Writes a copy of ${run.files.train.name} without the n-grams of ${run.files.eval.name} [${a.eval.fields.join(', ')}], with the run's rule (N ${a.n ?? 'auto'}, boilerplate ${a.boilerplate ? 'dropped' : 'kept'}, threshold ${a.threshold ?? 'any overlap'}; training fields ${a.train.fields.join(', ')}). GPT-3 / NeMo Curator recipe: each matched n-gram is cut with R characters each side, pieces under the minimum are left out, a record split more than the maximum is dropped. Only the chosen training fields change; every other record keeps its bytes, as evalsieve purify writes them.`;
    const why = purifyRefusal(run);
    this.ui.refusal.hidden = !why;
    this.ui.refusal.textContent = why || '';
    this.updateRunButton();
  }

  canRun() {
    return Boolean(this.lastRun && this.constants && !purifyRefusal(this.lastRun));
  }

  async run() {
    if (this.runId !== null || !this.canRun()) return;
    const u = this.ui;
    let settings;
    try {
      settings = parsePurifySettings({
        mode: u.mode.value, rows: u.rows.value, self_check: u.check.value,
        radius: typedNumber(u.radius), min_piece: typedNumber(u.minPiece), max_splits: typedNumber(u.maxSplits),
      }, this.rules);
    } catch (e) {
      this.runError(e);
      return;
    }
    const run = /** @type {LastRun} */ (this.lastRun); // canRun: a run is set
    const save = await this.#pickFile(run.files.train.name);
    if (save === false) return; // the person closed the picker
    const { eval: ev, train } = run.args;
    const args = { eval: ev, train, n: run.args.n, boilerplate: run.args.boilerplate, threshold: run.args.threshold, purify: settings, save };
    const label = run.label;
    u.results.hidden = true;
    await this.runJob({
      op: OP.PURIFY, args, files: { eval: run.files.eval, train: run.files.train }, label,
      summary: `clean ${train.name || run.files.train.name} [${train.fields.join(', ')}] of ${run.files.eval.name}: mode ${settings.mode}, R ${settings.radius}, minimum piece ${settings.min_piece}, maximum splits ${settings.max_splits}, rows ${settings.rows}, self-check ${settings.self_check}; ${save ? `into ${save.name}` : 'in memory'}`,
      onLog: (m) => this.log.add(m.message),
      onResult: (/** @type {import('../worker/protocol.js').PurifyResult} */ data) => {
        this.#show(data, save);
        const c = data.summary.self_check;
        this.log.add(`purify done (${label}): ${fmtInt(data.summary.records_cut)} cut, ${fmtInt(data.summary.records_dropped)} dropped; self-check: ${fmtInt(c.rows_contaminated)} eval rows still contaminated`, 'done');
        this.setStatus('done', `Done: ${data.output.name} cleaned.`);
      },
    });
  }

  /**
   * A FileSystemFileHandle the person picked, null (no picker: a Blob), or false (closed).
   * @param {string} name @returns {Promise<FileSystemFileHandle | null | false>}
   */
  async #pickFile(name) {
    const pick = /** @type {PickerWindow} */ (window).showSaveFilePicker;
    if (!hasPicker() || !pick) return null;
    try {
      return await pick.call(window, { suggestedName: name });
    } catch (e) {
      const err = /** @type {{name?: string, message?: string} | null | undefined} */ (e); // a DOMException, or what a page script threw
      if (err && err.name === 'AbortError') {
        this.log.add('purify: no file chosen, nothing written');
        return false;
      }
      this.log.add(`purify: the file picker failed (${err && err.message}); building the file in memory instead`, 'warn');
      return null;
    }
  }

  /** @param {import('../worker/protocol.js').PurifyResult} data @param {FileSystemFileHandle | null} save */
  #show(data, save) {
    const s = data.summary;
    const c = s.self_check;
    const u = this.ui;
    u.counts.replaceChildren(...definitionRows([
      ['training records', fmtInt(s.training_records), { count: 'training records' }],
      ['records cut', fmtInt(s.records_cut), { count: 'records cut' }],
      ['records dropped', fmtInt(s.records_dropped), { count: 'records dropped' }],
      ['records written', fmtInt(s.records_out), { count: 'records written' }],
      ['characters removed', fmtInt(s.chars_removed), { count: 'characters removed' }],
      ['n-grams counted', `${fmtInt(s.ngrams_counted)} (of ${fmtInt(s.eval_rows_counted)} eval rows; ${fmtInt(s.ngrams_boilerplate)} boilerplate left alone)`, { count: 'n-grams counted' }],
      [`self-check (${c.mode})`, `${fmtInt(c.rows_contaminated)} eval rows still contaminated (${fmtInt(c.rows_asked_contaminated)} of the ${fmtInt(c.rows_asked)} it was asked to clean)`, { count: 'still contaminated', value: String(c.rows_contaminated) }],
    ]));
    const out = data.output;
    u.saved.hidden = out.saved !== 'file';
    u.saved.textContent = out.saved === 'file' ? `Saved ${save ? save.name : out.name}: ${fmtBytes(out.bytes)}, sha256 ${out.sha256.slice(0, 12)}…` : '';
    const button = (/** @type {string} */ name, /** @type {string} */ mime, /** @type {BlobPart} */ body, /** @type {number} */ size) => {
      const b = el('button', { type: 'button', class: 'download', dataset: { export: name } },
        `Download ${name}`, el('span', { class: 'muted', text: ` (${fmtBytes(size)})` }));
      b.addEventListener('click', () => downloadText(name, mime, body));
      return b;
    };
    u.downloads.replaceChildren(
      ...(out.blob ? [button(out.name, 'application/octet-stream', out.blob, out.bytes)] : []),
      ...data.exports.map((x) => button(x.name, x.mime, x.text, new Blob([x.text]).size)));
    u.results.hidden = false;
  }
}

const hasPicker = () => typeof /** @type {PickerWindow} */ (window).showSaveFilePicker === 'function';
