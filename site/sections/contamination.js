// @ts-check
// The Contamination tab: a training file and an eval file, the fields to scan and score,
// N / boilerplate / threshold, Run; then counts, settings, exports and the contaminated rows.
// The worked example (example/train.jsonl + example/eval.jsonl) runs on its own at load.

import * as P from '../worker/protocol.js';
import { $, typedNumber } from '../lib/dom.js';
import { describeError, fmtInt } from '../lib/format.js';
import { InputSlot } from '../ui/input-slot.js';
import { JobSection, UNMOUNTED, webgpuArgs } from './job-section.js';
import { renderContaminationResults, renderResultLine } from './contamination-results.js';
import { parseSettings } from './contamination-settings.js';
import { ScoresInput } from './scores-input.js';
import { renderScoreImpact } from './scores-results.js';
import { LadderSettings } from './ladder-settings.js';
import { wireCorpus } from './contamination-corpus.js';
import { corpusRequest } from './corpus-files.js';
import { FieldCheck } from '../ui/field-check.js';
import { StaleBanner } from '../lib/layout.js';
import { wireSkipBadLines } from './skip-bad-lines.js';
import { ContaminationRows, sourceLine } from './cont-rows.js';
import { showRecord } from '../ui/record-dialog.js';
import { IdFieldChoice } from '../ui/id-field.js';
import { PurifyPanel } from './purify.js';

const { OP } = P;
const SETTINGS_KEY = 'evalsieve.settings.v1'; // localStorage holds only the settings checkboxes
/** @typedef {'train' | 'eval'} Side @typedef {import('../ui/input-slot.js').InputSlot} InputSlotT */
const SIDES = /** @type {Side[]} */ (['train', 'eval']);
const SIDE_TITLE = { train: 'training', eval: 'eval' };
const LEGEND = { train: 'Fields to scan', eval: 'Fields to score' };

export class ContaminationSection extends JobSection {
  // built by mount (see JobSection)
  /** @type {{results: HTMLElement, nAuto: HTMLElement, n: HTMLInputElement, boilerplate: HTMLInputElement, threshold: HTMLInputElement, clean: HTMLSelectElement}} */ ui = UNMOUNTED;
  /** @type {Record<Side, InputSlotT>} */ slots = UNMOUNTED;
  /** @type {FieldCheck} */ check = UNMOUNTED;
  /** @type {StaleBanner} */ stale = UNMOUNTED;
  /** @type {{label: string, files: string} | null} */ shownRun = null;
  /** @type {ScoresInput} */ scores = UNMOUNTED;
  /** @type {LadderSettings} */ ladder = UNMOUNTED;
  /** @type {ReturnType<typeof wireSkipBadLines> | undefined} */ skip = UNMOUNTED;
  /** @type {IdFieldChoice} */ idField = UNMOUNTED;
  /** @type {ContaminationRows} */ rows = UNMOUNTED;
  /** @type {PurifyPanel} */ purify = UNMOUNTED;

  constructor() {
    super({ key: 'contamination', title: 'Contamination', panel: $('#job-contamination'), status: $('#status') });
    this.autoRunExample = true;
  }

  /** @param {import('./job-section.js').Services} services */
  mount(services) {
    super.mount(services, {
      run: $('#run'),
      cancel: $('#cancel'),
      error: $('#error'),
      progress: { root: $('#progress'), bar: $('#progress-bar'), text: $('#progress-text') },
      progressOptions: { stages: { train: 'Training pass', eval: 'Eval pass', embed: 'Semantic rung, embedding' }, speedUnit: 'bytes', useWorkerEta: true },
    });
    this.ui = {
      results: $('#results'),
      nAuto: $('#n-auto'),
      n: $('#setting-n'),
      boilerplate: $('#setting-boilerplate'),
      threshold: $('#setting-threshold'),
      clean: $('#setting-clean'),
    };
    this.slots = /** @type {Record<Side, InputSlotT>} */ (Object.fromEntries(SIDES.map((role) => [role, new InputSlot({
      drop: { zone: $(`#${role}-drop`), input: $(`#${role}-file`), name: $(`#${role}-name`) },
      fields: $(`#${role}-fields`),
      picker: { type: 'checkbox', idPrefix: `${role}-field`, legend: LEGEND[role], failure: { legend: 'Fields', text: 'could not read this file' }, onChange: () => this.#fieldsChanged(role) },
    }, (file) => this.selectFile(role, file, null))])));
    // The eval fields' too-short warning, and the auto-N line while no run describes them.
    this.check = new FieldCheck(this.slots.eval,
      (file, fields) => services.client.request(OP.INSPECT, { name: file.name, role: 'eval', fields }, { eval: file }).promise,
      (c) => this.#autoNFromCheck(c));
    this.stale = new StaleBanner(this.ui.results);
    this.shownRun = null; // {label, files} of the results shown
    this.scores = new ScoresInput({ host: $('#scores-side'), prefix: '', client: services.client, onError: (/** @type {unknown} */ e) => this.inputError(e, $('#scores-drop')), onLog: (/** @type {string} */ t) => this.log.add(t) });
    this.ladder = new LadderSettings($('#ladder-settings'));
    wireCorpus(this, { input: $('#train-file'), folder: document.querySelector('#train-folder') });
    this.skip = wireSkipBadLines(this, $('#job-contamination .inputs'));
    this.idField = new IdFieldChoice($('#train-id-field'), $('#train-id-note'));
    this.rows = new ContaminationRows($('#contaminated'), { client: services.client, onOpen: (r, b, h) => this.#openRecord(r, b, h) });
    this.purify = new PurifyPanel($('#purify')); // "Clean the training file", after a run
    this.purify.mount(services);
    this.#loadSettings();
    this.ui.boilerplate.addEventListener('change', () => this.#saveSettings());
    this.#loadExample();
  }

  /** The N and threshold inputs take the ranges Python publishes. @param {import('./job-section.js').Constants} constants */
  workerReady(constants) {
    super.workerReady(constants);
    Object.assign(this.ui.n, { min: constants.n_min, max: constants.n_max });
    Object.assign(this.ui.threshold, { min: constants.threshold_min_exclusive, max: constants.threshold_max });
    this.ladder.workerReady(constants);
    this.purify.workerReady(constants);
  }

  /** @param {import('./job-section.js').ErrorObject} [err] */
  workerDied(err) {
    super.workerDied(err);
    this.purify.workerDied(err);
  }

  #loadSettings() {
    try {
      const s = JSON.parse(localStorage.getItem(SETTINGS_KEY) || '{}');
      if (typeof s.boilerplate === 'boolean') this.ui.boilerplate.checked = s.boilerplate;
    } catch { /* storage unavailable or corrupt: defaults */ }
  }

  #saveSettings() {
    try {
      localStorage.setItem(SETTINGS_KEY, JSON.stringify({ boilerplate: this.ui.boilerplate.checked }));
    } catch { /* storage unavailable */ }
  }

  async #loadExample() {
    try {
      const files = await Promise.all(SIDES.map(async (role) => {
        const res = await fetch(`example/${role}.jsonl`);
        if (!res.ok) throw new Error(`example/${role}.jsonl: HTTP ${res.status}`);
        return new File([await res.blob()], `${role}.jsonl`, { type: 'application/jsonl' });
      }));
      // The user may have chosen files while the example was loading.
      SIDES.forEach((role, i) => { if (!this.slots[role].current) this.selectFile(role, files[i], 'example'); });
      this.log.add('example loaded: example/train.jsonl + example/eval.jsonl');
    } catch (e) {
      this.autoRunExample = false;
      this.log.add(`no example: ${/** @type {Error} */ (e).message}`, 'warn'); // fetch, Response.blob and the line above throw Errors
    }
  }

  /** Take a file for one side and list its fields (inspect in the worker). @param {Side} role @param {File} file @param {string | null} label */
  async selectFile(role, file, label) {
    if (label === null) this.autoRunExample = false; // the user took over
    const slot = this.slots[role];
    const got = await this.inspectInto(slot, file, label, role);
    if (!got && label === null && slot.current && slot.current.file === file) {
      this.inputsChanged(`the ${SIDE_TITLE[role]} file chosen since (${file.name}) could not be read; see the message next to it.`,
        `Not run: the ${SIDE_TITLE[role]} file ${file.name} could not be read.`);
    }
    if (got) {
      const { info } = got;
      this.log.add(`${SIDE_TITLE[role]} file ${label ? `(${label}) ` : ''}${file.name}: sniffed ${info.format}${info.gzip ? ' (gzip)' : ''}, ${fmtInt(info.rows_sampled)} rows sampled, ${info.fields.length} fields`);
      slot.picker.render(info, { legend: `${LEGEND[role]} (${info.format})`, checked: (path) => info.default_fields.includes(path) });
      if (role === 'train') this.idField.show(info);
      if (role === 'eval') {
        this.scores.setEvalFields(info);
        this.check.shown(info.short_check);
      }
      if (label === null) this.inputsChanged();
      this.errors.hide();
      this.updateRunButton();
    }
    if (this.autoRunExample && SIDES.every((r) => this.slots[r].current?.label === 'example' && this.slots[r].current?.info)) {
      this.autoRunExample = false;
      this.run();
    }
  }

  /** @param {Side} role */
  #fieldsChanged(role) {
    this.updateRunButton();
    if (role === 'eval') this.check.want();
  }

  /**
   * New files were chosen (or one that could not be read): results still on the page are
   * greyed under a banner saying why, and the status no longer says the run is done.
   */
  inputsChanged(reason = 'you have chosen other files since. Press Run to score them.', status = 'Not run yet for the files chosen now: press Run.') {
    if (!this.shownRun || this.ui.results.hidden) return;
    const { label, files } = this.shownRun;
    this.stale.mark(label === 'example', files, reason);
    this.inputsStale(status);
  }

  /** The auto-N line for the chosen eval fields, from the sampled rows (before a run). @param {Record<string, any> | null | undefined} c  inspect's short_check */
  #autoNFromCheck(c) {
    const ev = this.slots.eval.current;
    if (!c || c.n === null || !ev) return;
    this.ui.nAuto.textContent = `auto: N=${c.n} from the ${fmtInt(c.rows_with_words)} sampled rows of ${ev.file.name} (${c.fields.join(' + ')}); the run sets it from every row`;
    this.ui.nAuto.title = this.ui.nAuto.textContent;
    this.ui.nAuto.dataset.n = String(c.n);
  }

  canRun() {
    return SIDES.every((r) => this.slots[r].ready);
  }

  inspectArgs() {
    return this.skip ? this.skip.args() : {};
  }

  run() {
    if (this.runId !== null) return;
    let settings;
    let scores;
    let corpus;
    try {
      scores = this.scores.request(); // null without a scores file
      settings = parseSettings({ n: typedNumber(this.ui.n), threshold: typedNumber(this.ui.threshold), boilerplate: this.ui.boilerplate.checked, clean: this.ui.clean.value }, this.rules);
      settings = { ...settings, ...this.ladder.value() };
      corpus = this.slots.train.current?.corpus ? corpusRequest(this.slots.train.current.corpus, this.slots.train.picker.chosen()) : null;
    } catch (e) {
      this.runError(e);
      return;
    }
    const train = this.slots.train.current;
    const ev = this.slots.eval.current;
    if (!train?.info || !ev?.info) return; // Run is enabled only with both files inspected (canRun)
    const idField = this.idField.value();
    const args = {
      eval: { name: ev.file.name, format: ev.info.format, fields: this.slots.eval.picker.chosen() },
      train: { ...(corpus ? corpus.train_files[0] : { name: train.file.name, format: train.info?.format, fields: this.slots.train.picker.chosen() }), id_field: idField },
      ...(corpus ? { train_files: corpus.train_files } : {}),
      ...settings,
      ...(scores ? { scores: scores.args } : {}),
      ...this.skip?.args(),
      ...(settings.semantic ? webgpuArgs() : {}),
    };
    const label = train.label === 'example' && ev.label === 'example' ? 'example' : (train.label || ev.label ? 'example + your file' : 'your files');
    // the last results stay in place, greyed, until the new ones replace them (the page does
    // not jump); a failed or cancelled run hides them
    if (this.shownRun && !this.ui.results.hidden) this.ui.results.dataset.stale = '1'; // greyed; Run's status line says why
    const hideOld = () => { this.ui.results.hidden = true; this.stale.clear(); this.shownRun = null; };
    this.ladder.begin();
    return this.runJob({
      op: OP.CONTAMINATION,
      args,
      files: { eval: ev.file, train: train.file, ...(corpus ? corpus.files : {}), ...(scores ? { scores: scores.file } : {}) },
      label,
      summary: `eval ${ev.file.name} [${args.eval.fields.join(', ')}], training ${train.file.name} [${args.train.fields.join(', ')}]; N ${settings.n ?? 'auto'}, boilerplate ${settings.boilerplate ? 'on' : 'off'}, threshold ${settings.threshold ?? 'any overlap'}, clean ${settings.clean}; ${this.ladder.describe(settings)}${scores ? `; scores ${scores.file.name}` : ''}`,
      onLog: (m) => {
        this.log.add(m.message);
        if (m.data && m.data.kind === 'n_chosen') this.#showAutoN(m.data, settings.n);
        this.ladder.onLog(m.data);
      },
      onCancelled: hideOld,
      onFailed: hideOld,
      onResult: (data) => {
        const drawn = renderContaminationResults(data, args, label, this.rows); // the rows' first page
        renderResultLine($('#result-line'), data, label);
        renderScoreImpact($('#score-impact'), 'contamination', data.view.score_figures, data.view.score_settings, [
          ['N', String(data.summary.n)], ['threshold', args.threshold === null ? 'any overlap' : `containment ≥ ${args.threshold}`],
          ['contaminated', 'caught by a rung whose rows leave the clean file'], ['eval fields', args.eval.fields.join(', ')]]);
        this.ui.results.hidden = false;
        this.shownRun = { label, files: `${ev.file.name}, ${train.file.name}` };
        this.purify.setRun({ args, files: { eval: ev.file, train: train.file }, label, corpus: corpus ? corpus.train_files.length : 1, trainFormat: train.info?.format });
        this.stale.clear();
        const s = data.summary || {};
        const skipped = this.skip?.showResult(s);
        if (skipped) this.log.add(skipped, 'warn');
        this.log.add(`done (${label}): ${fmtInt(s.rows_contaminated)} contaminated of ${fmtInt(s.rows_scanned)} eval rows`, 'done');
        this.setStatus('done', `Done (${label}).`);
        return drawn;
      },
    });
  }

  /**
   * "Open record": the worker reads the row's training record again (cont.record).
   * @param {import('./cont-rows.js').ContRow} r  a contaminated row @param {HTMLButtonElement} button @param {number | null} handle
   */
  async #openRecord(r, button, handle) {
    button.disabled = true;
    const where = sourceLine(r);
    try {
      const rec = await this.services.client.request(OP.CONT_RECORD, { handle, row: r.eval_row, file: r.training_file_index,
        record: r.training_record, offset: r.training_offset, bytes: r.training_bytes }).promise;
      showRecord(r, where, rec);
      this.log.add(`opened training record ${r.training_record} of ${r.training_file} (${rec.read})`);
    } catch (e) {
      showRecord(r, where, null, describeError(/** @type {import('./job-section.js').ErrorObject} */ (e)).text); // the worker's error object
    } finally {
      button.disabled = false;
    }
  }

  /** @param {import('../worker/protocol.js').NChosenLog} info @param {number | null} nSet */
  #showAutoN(info, nSet) {
    const how = info.n_how ? String(info.n_how) : '';
    this.ui.nAuto.textContent = nSet === null
      ? `auto: N=${info.n}${how ? `, ${how}` : ''}`
      : `set: N=${info.n}`;
    this.ui.nAuto.title = this.ui.nAuto.textContent; // one line on the page (ellipsis), whole here
    this.ui.nAuto.dataset.n = String(info.n);
  }
}
