// @ts-check
// The optional third input of a job: a per-row scores file (lm-evaluation-harness
// --log_samples, or a JSONL/CSV/TSV table with a key and score columns) and the options that
// say how to read and join it. The worker reads it whole and hands it to Python (cont.scores /
// para.scores); a bad file (a key used twice, several filters and none chosen) comes back as
// the run's error, naming the file and the line.

import * as P from '../worker/protocol.js';
import { el } from '../lib/dom.js';
import { fmtBytes } from '../lib/format.js';
import { DropZone } from '../ui/drop-zone.js';

const { OP } = P;
const BY_ORDER = '';

/**
 * An inspect answer (Python's JSON): its fields, and a scores file's harness filters.
 * @typedef {import('../ui/input-slot.js').Inspected & {score_filters?: {name: string, rows: number}[]}} InspectInfo
 */ // the key select's value for "doc_id = 0-based eval row"

export class ScoresInput {
  /**
   * host: the element to build into; prefix: id prefix ('' or 'para-'); client: the worker
   * client (inspect, to list the file's fields); onError(err): show an inspect failure;
   * onLog(text): an event-log line.
   * @param {{host: HTMLElement, prefix: string, client: Pick<import('../lib/worker-client.js').WorkerClient, 'request'>,
   *   onError?: (err: unknown) => void, onLog?: (text: string) => void}} opts
   */
  constructor({ host, prefix, client, onError, onLog }) {
    this.client = client;
    this.onError = onError;
    this.onLog = onLog;
    /** @type {{file: File, info: InspectInfo | null} | null} */
    this.current = null; // {file, info}
    const id = (/** @type {string} */ s) => `${prefix}${s}`;
    const input = el('input', { type: 'file', id: id('scores-file'), class: 'visually-hidden' });
    const name = el('span', { class: 'dz-file', id: id('scores-name'), text: 'no file (optional)' });
    const zone = el('label', { class: 'dropzone', id: id('scores-drop'), for: id('scores-file') },
      el('span', { class: 'dz-title', text: 'Per-row scores (optional)' }),
      el('span', { class: 'dz-hint', text: 'lm-eval --log_samples (samples_<task>_<date>.jsonl) or a table (JSONL, CSV, TSV) with a key and score columns' }),
      name, input);
    this.ui = {
      key: el('select', { id: id('score-key') }),
      evalKey: el('select', { id: id('score-eval-key') }),
      filter: el('select', { id: id('score-filter') }),
      metrics: el('input', { type: 'text', id: id('score-metrics'), placeholder: "the file's metric(s)", spellcheck: 'false' }),
      clear: el('button', { type: 'button', id: id('scores-clear'), disabled: true, text: 'Remove scores' }),
      filterNote: el('span', { class: 'muted', text: 'the filters of an lm-eval samples file are listed here, with their rows' }),
    };
    this.ui.clear.addEventListener('click', () => this.clear());
    const options = el('fieldset', { class: 'fields score-options', id: id('score-options') },
      el('legend', { text: 'How to read the scores' }),
      el('label', {}, 'Join on the scores field ', this.ui.key),
      el('label', {}, '= the eval field ', this.ui.evalKey),
      el('label', {}, 'Harness filter ', this.ui.filter),
      this.ui.filterNote,
      el('label', {}, 'Metrics (comma-separated) ', this.ui.metrics),
      this.ui.clear);
    // folded to one line until a file is chosen (the first screen stays short and still)
    this.box = el('details', { class: 'scores-box' }, el('summary', { text: 'Per-row scores (optional): how much does contamination move the score?' }), zone, options);
    host.replaceChildren(this.box);
    this.zone = zone; // data-file, data-state: reading | ready | error (the tests wait on it)
    this.drop = new DropZone({ zone, input, name }, (file) => this.take(file));
    this.#fillKeys(null);
    this.#fillFilters(null);
    this.setEvalFields(null);
  }

  /** The harness filters of the file (inspect's score_filters: [{name, rows}]) as choices. @param {InspectInfo | null} info */
  #fillFilters(info) {
    const found = (info && info.score_filters) || [];
    const rows = (/** @type {number} */ n) => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}${info?.head_complete === false ? ' in the first part read' : ''}`;
    this.ui.filter.replaceChildren(
      el('option', { value: '', text: found.length > 1 ? `choose one of ${found.length} filters` : "the file's only filter (or none: a table)" }),
      ...found.map((f) => el('option', { value: f.name, text: `${f.name} (${rows(f.rows)})` })));
    this.ui.filter.value = found.length === 1 ? found[0].name : '';
    this.ui.filterNote.textContent = found.length > 1
      ? `this file holds ${found.length} filters: the score impact uses the one chosen`
      : found.length === 1 ? 'the file holds one filter' : 'no lm-eval filter in this file (a table of scores)';
  }

  /** The eval file's inspected fields (for the "= the eval field" list); null = none yet. @param {InspectInfo | null} info */
  setEvalFields(info) {
    const keep = this.ui.evalKey.value;
    const paths = info ? info.fields.map((f) => f.path) : [];
    this.ui.evalKey.replaceChildren(el('option', { value: '', text: '(the same path)' }),
      ...paths.map((p) => el('option', { value: p, text: p })));
    if (paths.includes(keep)) this.ui.evalKey.value = keep;
  }

  /** @param {InspectInfo | null} info */
  #fillKeys(info) {
    const paths = info ? info.fields.map((f) => f.path) : [];
    const hasOrder = !info || paths.includes('doc_id');
    this.ui.key.replaceChildren(
      el('option', { value: BY_ORDER, text: 'doc_id (by order: 0-based eval row)' }),
      ...paths.filter((p) => p !== 'doc_id').map((p) => el('option', { value: p, text: p })));
    this.ui.key.value = hasOrder || paths.length === 0 ? BY_ORDER : paths[0];
  }

  /** Take a scores file: sniff its format and fields (inspect as role 'scores'). @param {File} file */
  async take(file) {
    /** @type {{file: File, info: InspectInfo | null}} */
    const entry = { file, info: null };
    this.current = entry;
    this.drop.show(`${file.name} (${fmtBytes(file.size)}) · reading…`, '');
    Object.assign(this.zone.dataset, { file: file.name, state: 'reading' });
    this.ui.clear.disabled = false;
    this.box.open = true;
    try {
      /** @type {InspectInfo} */
      const info = await this.client.request(OP.INSPECT, { name: file.name, role: 'scores' }, { scores: file }).promise;
      if (this.current !== entry) return;
      entry.info = info;
      this.drop.show(`${file.name} (${fmtBytes(file.size)}) · ${info.format}`, '');
      this.#fillKeys(info);
      this.#fillFilters(info);
      this.zone.dataset.state = 'ready';
      this.onLog?.(`scores file ${file.name}: sniffed ${info.format}, ${info.fields.length} fields`);
    } catch (err) {
      if (this.current !== entry) return;
      this.current = null;
      this.drop.show(`${file.name}: could not be read`, '');
      this.zone.dataset.state = 'error';
      this.onError?.(err);
    }
  }

  clear() {
    this.current = null;
    this.drop.show('no file (optional)', '');
    Object.assign(this.zone.dataset, { file: '', state: '' });
    this.ui.clear.disabled = true;
    this.#fillKeys(null);
    this.#fillFilters(null);
  }

  /**
   * The run's `scores` arguments and file, {args, file}, or null without a scores file.
   * Throws a plain bad_input error while the file is still being read.
   */
  request() {
    const c = this.current;
    if (!c) return null;
    if (!c.info) throw { code: 'bad_input', message: `the scores file ${c.file.name} is still being read; run again in a moment`, file: c.file.name };
    const metrics = this.ui.metrics.value.split(',').map((s) => s.trim()).filter(Boolean);
    const key = this.ui.key.value || null;
    return {
      file: c.file,
      args: {
        name: c.file.name, format: c.info.format, metrics, key,
        eval_key: key ? (this.ui.evalKey.value || null) : null,
        filter: this.ui.filter.value || null,
      },
    };
  }
}
