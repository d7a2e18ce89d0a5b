// @ts-check
// The Paraphrases tab: one eval set (file, or pasted text), one text field, Run; then the
// figures, a threshold slider that regroups the job the worker holds (no re-embedding), the
// pair and group tables, a histogram of nearest-neighbour cosines and the two CSV exports.
// Until the user runs their own input it shows the worked example, computed live.

import * as P from '../worker/protocol.js';
import { $, el, downloadText } from '../lib/dom.js';
import { describeError, fmtBytes, fmtInt } from '../lib/format.js';
import { InputSlot } from '../ui/input-slot.js';
import { JobSection, UNMOUNTED, webgpuArgs } from './job-section.js';
import { StaleBanner } from '../lib/layout.js';
import { drawNnHistogram, renderParaphraseResults } from './paraphrases-results.js';
import { Regrouper, exportsAt } from './paraphrases-state.js';
import { ScoresInput } from './scores-input.js';
import { wireParaSkipBadLines } from './skip-bad-lines.js';
import { renderScoreImpact } from './scores-results.js';
import { ParaphraseRows } from './para-rows.js';

const { OP } = P;
const LABEL_GUESSES = ['id', 'idx', 'uid', 'qid', 'task_id', 'question_id', 'key'];

export class ParaphraseSection extends JobSection {
  // built by mount (see JobSection)
  /** @type {{paste: HTMLTextAreaElement, slider: HTMLInputElement, sliderValue: HTMLElement, results: HTMLElement}} */ ui = UNMOUNTED;
  /** @type {StaleBanner} */ stale = UNMOUNTED;
  /** @type {ParaphraseRows} */ rows = UNMOUNTED;
  /** @type {ReturnType<typeof wireParaSkipBadLines> | undefined} */ skip = UNMOUNTED;
  /** @type {InputSlot} */ slot = UNMOUNTED;
  /** @type {ScoresInput} */ scores = UNMOUNTED;
  /** @type {Regrouper} */ regrouper = UNMOUNTED;

  constructor() {
    super({ key: 'paraphrases', title: 'Paraphrases', panel: $('#job-paraphrases'), logPrefix: 'paraphrases: ', status: $('#para-status') });
    this.autoRun = false;
    this.exampleStarted = false;
    /** @type {import('./paraphrases-state.js').Shown | null} */
    this.shown = null; // {handle, figures, data, args, label, exports: Map threshold -> exports}
  }

  /** @param {import('./job-section.js').Services} services */
  mount(services) {
    super.mount(services, {
      run: $('#para-run'),
      cancel: $('#para-cancel'),
      error: $('#para-error'),
      progress: { root: $('#para-progress'), bar: $('#para-progress-bar'), text: $('#para-progress-text') },
      // The worker's ETA counts padded word pieces left (rows are embedded longest first, so
      // rows/s rises as it goes); rows left / rows per second is the fallback.
      progressOptions: { stages: { read: 'Reading', embed: 'Embedding', tiles: 'Comparing' }, speedUnit: 'rows', useWorkerEta: true },
    });
    this.ui = {
      paste: $('#para-paste'),
      slider: $('#para-threshold'),
      sliderValue: $('#para-threshold-value'),
      results: $('#para-results'),
    };
    this.stale = new StaleBanner(this.ui.results, /** @type {HTMLElement} */ ($('#para-stale')));
    this.rows = new ParaphraseRows({ client: services.client });
    this.skip = wireParaSkipBadLines(this, $('#job-paraphrases .inputs'));
    this.slot = new InputSlot({
      drop: { zone: $('#para-drop'), input: $('#para-file'), name: $('#para-name') },
      fields: $('#para-fields'),
      picker: { type: 'radio', idPrefix: 'para-field', legend: 'Text field', failure: { legend: 'Text field', text: 'could not read this input' }, onChange: () => this.updateRunButton() },
    }, (file) => this.selectFile(file, null));
    this.scores = new ScoresInput({ host: $('#para-scores-side'), prefix: 'para-', client: services.client, onError: (/** @type {unknown} */ e) => this.inputError(e, $('#para-scores-drop')), onLog: (/** @type {string} */ t) => this.log.add(`paraphrases: ${t}`) });
    this.regrouper = new Regrouper({
      client: services.client,
      current: () => this.shown,
      onBusy: (busy) => { if (busy) this.ui.results.dataset.busy = '1'; else delete this.ui.results.dataset.busy; },
      onGrouped: (shown, v, t, ms) => {
        this.ui.results.dataset.groupMs = ms.toFixed(1);
        this.ui.results.dataset.workerMs = v.ms.toFixed(1);
        const drawn = this.#render();
        this.log.add(`paraphrases: threshold ${t.toFixed(2)}: ${fmtInt(v.figures.groups)} groups, effective rows ${fmtInt(v.figures.effective_rows)} (regrouped in ${ms.toFixed(0)} ms)`);
        return drawn;
      },
      onFailed: (err) => {
        this.runError(err);
        this.#markStale('could not regroup at the new threshold; the figures below are for the threshold they name.');
      },
    });
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let pasteTimer;
    this.ui.paste.addEventListener('input', () => {
      clearTimeout(pasteTimer);
      pasteTimer = setTimeout(() => this.#takePaste(), 400);
    });
    $('#para-dedup-keep').addEventListener('change', () => { if (this.shown) this.#render(); }); // its note
    this.ui.slider.addEventListener('input', () => this.#sliderMoved());
    this.ui.slider.addEventListener('change', () => this.#sliderMoved());
  }

  /** The slider spans Python's floor..maximum and starts at its default (set once). @param {import('./job-section.js').Constants} constants */
  workerReady(constants) {
    super.workerReady(constants);
    const keep = $('#para-dedup-keep');
    keep.replaceChildren(...Object.entries(constants.dedup_keep_rules).map(([k, words]) => el('option', { value: k, text: words })));
    const s = this.ui.slider;
    const first = s.disabled;
    Object.assign(s, { min: constants.para_floor, max: constants.para_threshold_max, disabled: false });
    if (first) {
      s.value = String(constants.para_threshold_default);
      this.ui.sliderValue.textContent = this.threshold.toFixed(2);
    }
  }

  /** @param {boolean} visible */
  show(visible) {
    super.show(visible);
    if (visible && !this.exampleStarted) {
      this.exampleStarted = true;
      this.#loadExample();
    }
  }

  get threshold() {
    return Number(this.ui.slider.value);
  }

  async #loadExample() {
    try {
      /** @type {import('../worker/protocol.js').ParaExampleResult} */
      const ex = await this.services.client.request(OP.PARA_EXAMPLE, {}).promise;
      if (this.slot.current) return; // the user chose something meanwhile
      this.autoRun = true;
      this.log.add(`paraphrases: worked example loaded (${ex.name})`);
      await this.selectFile(new File([ex.text], ex.name, { type: 'application/jsonl' }), 'example');
    } catch (e) {
      this.log.add(`paraphrases: no worked example: ${describeError(P.toErrorObject(e)).text}`, 'warn');
    }
  }

  #takePaste() {
    const text = this.ui.paste.value;
    if (!text.trim()) return;
    const name = /^\s*[{[]/.test(text) ? 'pasted.jsonl' : 'pasted.txt';
    this.selectFile(new File([text.endsWith('\n') ? text : `${text}\n`], name, { type: 'text/plain' }), 'pasted');
  }

  /** Take an eval file (or the example, or pasted text) and list its fields. @param {File} file @param {string | null} label */
  async selectFile(file, label) {
    if (label !== 'example') this.autoRun = false; // the user took over
    const shownAs = label === 'pasted' ? `pasted text (${fmtBytes(file.size)})` : null;
    const got = await this.inspectInto(this.slot, file, label, 'eval', {
      shownAs,
      onFailed: () => {
        this.#markStale('the new input is not valid (see the message above). Still showing the last valid result.');
        if (this.shown) this.inputsStale(`Not run: ${label === 'pasted' ? 'the pasted text' : file.name} could not be read.`);
      },
      anchor: label === 'pasted' ? this.ui.paste.closest('label') : null,
    });
    if (!got) return;
    const { info } = got;
    this.log.add(`paraphrases: ${label === 'pasted' ? 'pasted text' : file.name}: ${info.format}, ${fmtInt(info.rows_sampled)} rows sampled, ${info.fields.length} fields`);
    this.#renderFields(info, label === 'example' ? { field: 'text', label: 'id' } : null);
    this.scores.setEvalFields(info);
    this.errors.hide();
    this.#markStale(label === 'example' ? null : `you have chosen ${label === 'pasted' ? 'pasted text' : file.name} since. Press Run to compare its rows.`);
    if (label !== 'example' && this.shown) this.inputsStale('Not run yet for the input chosen now: press Run.');
    this.updateRunButton();
    if (this.autoRun && label === 'example' && this.slot.current === got) {
      this.autoRun = false;
      this.run();
    }
  }

  /** @param {Record<string, any>} info  the inspect answer @param {{field: string, label: string} | null} pick */
  #renderFields(info, pick) {
    /** @type {import('../ui/field-picker.js').FieldInfo[]} */
    const fields = info.fields;
    const has = (/** @type {string} */ path) => fields.some((f) => f.path === path);
    const texts = fields.filter((f) => !f.constant);
    const fallback = (info.default_fields && info.default_fields[0]) || (texts[0] && texts[0].path) || (info.fields[0] && info.fields[0].path);
    const chosen = pick && has(pick.field) ? pick.field : fallback;
    const guess = pick && has(pick.label) ? pick.label : (LABEL_GUESSES.find(has) || '');
    const select = el('select', { id: 'para-label' }, el('option', { value: '', text: '(none: rows are numbered)' }),
      ...fields.map((f) => el('option', { value: f.path, text: f.path })));
    select.value = guess;
    // more fields embedded with the chosen one (joined with a newline: question + choices)
    const also = el('fieldset', { class: 'para-also' }, el('legend', { text: '…embedded together with' }),
      ...texts.map((f) => el('label', { class: 'para-also-field' },
        el('input', { type: 'checkbox', name: 'para-also', dataset: { path: f.path } }), ` ${f.path}`)));
    this.slot.picker.render(info, {
      legend: `Text field to compare (${info.format})`,
      checked: (path) => path === chosen,
      extra: [el('label', { class: 'label-field', for: 'para-label' }, 'Label field (names rows in the tables)', select), also],
    });
  }

  #chosen() {
    const box = this.slot.picker.box;
    const l = /** @type {HTMLSelectElement | null} */ (box.querySelector('#para-label'));
    const field = this.slot.picker.chosen()[0] ?? null;
    const also = [...box.querySelectorAll('input[name="para-also"]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).dataset.path).filter((p) => p !== undefined).filter((p) => p !== field);
    return { field, fields: field ? [field, ...also] : [], label_field: l && l.value ? l.value : null };
  }

  canRun() {
    return this.slot.ready;
  }

  inspectArgs() {
    return this.skip ? this.skip.args() : {};
  }

  run() {
    if (this.runId !== null || !this.slot.current || !this.slot.current.info) return;
    const { file, label, info } = this.slot.current;
    const chosen = this.#chosen();
    let scores;
    try {
      scores = this.scores.request(); // null without a scores file
    } catch (e) {
      this.runError(e);
      return;
    }
    const args = {
      eval: { name: file.name, format: info.format, field: chosen.field, label_field: chosen.label_field,
        ...(chosen.fields.length > 1 ? { fields: chosen.fields } : {}) },
      threshold: this.threshold,
      ...(scores ? { scores: scores.args } : {}),
      ...this.skip?.args(),
      ...webgpuArgs(),
    };
    const runLabel = label === 'example' ? 'example' : label === 'pasted' ? 'pasted text' : 'your file';
    return this.runJob({
      op: OP.PARAPHRASES,
      args,
      files: { eval: file, ...(scores ? { scores: scores.file } : {}) },
      label: runLabel,
      summary: `${file.name} [${chosen.fields.join(' + ')}${chosen.label_field ? `, label ${chosen.label_field}` : ''}], threshold ${args.threshold.toFixed(2)}${scores ? `; scores ${scores.file.name}` : ''}`,
      onLog: (m) => this.log.add(`paraphrases: ${m.message}`),
      onResult: (data) => {
        this.shown = { handle: data.handle, figures: data.figures, data, args, label: runLabel, exports: new Map() };
        this.#markStale(null);
        const drawn = this.#render();
        const skipped = this.skip?.showResult(data.eval_info);
        if (skipped) this.log.add(`paraphrases: ${skipped}`, 'warn');
        const f = data.figures;
        this.log.add(`paraphrases: done (${runLabel}): ${fmtInt(f.groups)} groups (${fmtInt(f.groups_chained)} chained), ${fmtInt(f.rows_in_groups)} of ${fmtInt(f.rows_scanned)} rows in groups, effective rows ${fmtInt(f.effective_rows)}`, 'done');
        this.setStatus('done', `Done (${runLabel}).`);
        // A threshold moved while the run was going: apply it now.
        if (Math.abs(this.threshold - f.threshold) > 1e-9) this.#sliderMoved();
        return drawn;
      },
      onCancelled: () => this.#markStale(this.shown ? 'the run was cancelled. Still showing the last valid result.' : null),
      onFailed: () => this.#markStale('the last run failed (see the message below the Run button). Still showing the last valid result.'),
    });
  }

  #sliderMoved() {
    const t = this.threshold;
    this.ui.sliderValue.textContent = t.toFixed(2);
    if (!this.shown) return;
    drawNnHistogram(this.shown.figures.nn_histogram, t);
    this.regrouper.want(t);
  }

  /** Grey the shown result under a banner saying where it is from and why (null: clear). @param {string | null} reason */
  #markStale(reason) {
    if (!reason || !this.shown) this.stale.clear();
    else this.stale.mark(this.shown.label === 'example', this.shown.args.eval.name, reason);
  }

  /** Draw the shown result; the promise settles when its pairs and groups are drawn. */
  #render() {
    const shown = /** @type {import('./paraphrases-state.js').Shown} */ (this.shown); // called only with a result shown
    const drawn = renderParaphraseResults(shown, this.threshold, this.rules, (name, button) => this.#download(name, button), this.rows);
    const f = shown.figures;
    renderScoreImpact($('#para-score-impact'), 'paraphrases', f.score_figures, f.score_settings, [
      ['threshold', `cosine ≥ ${f.threshold.toFixed(2)} (groups = clusters; every other row its own)`], ['text field', (shown.args.eval.fields || [shown.args.eval.field]).join(' + ')]]);
    return drawn;
  }

  /** Exports are built on demand for the threshold shown (the worker stamps them). @param {string} name @param {HTMLButtonElement} button */
  async #download(name, button) {
    button.disabled = true;
    try {
      const shown = /** @type {import('./paraphrases-state.js').Shown} */ (this.shown); // its buttons exist only with a result shown
      const v = await exportsAt(this.services.client, shown, shown.figures.threshold, /** @type {HTMLSelectElement} */ ($('#para-dedup-keep')).value);
      const x = v.exports.find((e) => e.name === name);
      if (!x) throw { code: 'bad_input', message: `${name} was not written: ${v.parquet_kept ? v.parquet_kept.reason : 'no such export'}`, expected: v.parquet_kept ? `${v.parquet_kept.name}, the kept row numbers` : '' };
      downloadText(x.name, x.mime, x.blob || x.text);
    } catch (err) {
      this.runError(err);
    } finally {
      button.disabled = false;
    }
  }

  workerDied() {
    super.workerDied();
    if (this.shown) this.#markStale('the worker restarted, so the slider cannot regroup this result; run again.');
  }
}
