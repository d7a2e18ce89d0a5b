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
const BY_ORDER = ''; // the key select's value for "doc_id = 0-based eval row"

export class ScoresInput {
  /**
   * host: the element to build into; prefix: id prefix ('' or 'para-'); client: the worker
   * client (inspect, to list the file's fields); onError(err): show an inspect failure;
   * onLog(text): an event-log line.
   */
  constructor({ host, prefix, client, onError, onLog }) {
    Object.assign(this, { client, onError, onLog });
    this.current = null; // {file, info}
    const id = (s) => `${prefix}${s}`;
    const input = el('input', { type: 'file', id: id('scores-file'), class: 'visually-hidden' });
    const name = el('span', { class: 'dz-file', id: id('scores-name'), text: 'no file (optional)' });
    const zone = el('label', { class: 'dropzone', id: id('scores-drop'), for: id('scores-file') },
      el('span', { class: 'dz-title', text: 'Per-row scores (optional)' }),
      el('span', { class: 'dz-hint', text: 'lm-eval --log_samples (samples_<task>_<date>.jsonl) or a table (JSONL, CSV, TSV) with a key and score columns' }),
      name, input);
    this.ui = {
      key: el('select', { id: id('score-key') }),
      evalKey: el('select', { id: id('score-eval-key') }),
      filter: el('input', { type: 'text', id: id('score-filter'), placeholder: "the file's only filter", spellcheck: 'false' }),
      metrics: el('input', { type: 'text', id: id('score-metrics'), placeholder: "the file's metric(s)", spellcheck: 'false' }),
      clear: el('button', { type: 'button', id: id('scores-clear'), disabled: true, text: 'Remove scores' }),
    };
    this.ui.clear.addEventListener('click', () => this.clear());
    const options = el('fieldset', { class: 'fields score-options', id: id('score-options') },
      el('legend', { text: 'How to read the scores' }),
      el('label', {}, 'Join on the scores field ', this.ui.key),
      el('label', {}, '= the eval field ', this.ui.evalKey),
      el('label', {}, 'Harness filter ', this.ui.filter),
      el('span', { class: 'muted', text: 'needed when the file holds several filters (e.g. strict-match and flexible-extract)' }),
      el('label', {}, 'Metrics (comma-separated) ', this.ui.metrics),
      this.ui.clear);
    host.replaceChildren(zone, options);
    this.zone = zone; // data-file, data-state: reading | ready | error (the tests wait on it)
    this.drop = new DropZone({ zone, input, name }, (file) => this.take(file));
    this.#fillKeys(null);
    this.setEvalFields(null);
  }

  /** The eval file's inspected fields (for the "= the eval field" list); null = none yet. */
  setEvalFields(info) {
    const keep = this.ui.evalKey.value;
    const paths = info ? info.fields.map((f) => f.path) : [];
    this.ui.evalKey.replaceChildren(el('option', { value: '', text: '(the same path)' }),
      ...paths.map((p) => el('option', { value: p, text: p })));
    if (paths.includes(keep)) this.ui.evalKey.value = keep;
  }

  #fillKeys(info) {
    const paths = info ? info.fields.map((f) => f.path) : [];
    const hasOrder = !info || paths.includes('doc_id');
    this.ui.key.replaceChildren(
      el('option', { value: BY_ORDER, text: 'doc_id (by order: 0-based eval row)' }),
      ...paths.filter((p) => p !== 'doc_id').map((p) => el('option', { value: p, text: p })));
    this.ui.key.value = hasOrder || paths.length === 0 ? BY_ORDER : paths[0];
  }

  /** Take a scores file: sniff its format and fields (inspect as role 'scores'). */
  async take(file) {
    const entry = { file, info: null };
    this.current = entry;
    this.drop.show(`${file.name} (${fmtBytes(file.size)}) · reading…`, '');
    Object.assign(this.zone.dataset, { file: file.name, state: 'reading' });
    this.ui.clear.disabled = false;
    try {
      const info = await this.client.request(OP.INSPECT, { name: file.name, role: 'scores' }, { scores: file }).promise;
      if (this.current !== entry) return;
      entry.info = info;
      this.drop.show(`${file.name} (${fmtBytes(file.size)}) · ${info.format}`, '');
      this.#fillKeys(info);
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
        filter: this.ui.filter.value.trim() || null,
      },
    };
  }
}
