// @ts-check
// The ladder's settings in the contamination section: the semantic rung (off by default; its
// time estimate shown as soon as the worker measures it) and which rungs' rows leave
// eval.clean (checkboxes -> exclude_rungs, stamped by Python as clean_file_excludes).

import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';
import { SemanticCodeSettings } from './semantic-settings.js';

const RUNGS = ['exact', 'ngram', 'semantic'];
const IDLE_NOTE = 'Finds reworded eval rows inside training windows with the paraphrase encoder, '
  + 'in this page. Only the windows the candidate stage lets through are embedded; the time is '
  + 'estimated from them and the first batch, and a run estimated over the page\'s limit is '
  + 'refused (the command line runs it: evalsieve contamination --semantic).';

export class LadderSettings {
  /** root: the empty container in the settings fieldset (#ladder-settings). @param {HTMLElement} root */
  constructor(root) {
    this.semantic = el('input', { type: 'checkbox', id: 'setting-semantic' });
    this.code = new SemanticCodeSettings();
    this.estimate = el('span', { class: 'muted', id: 'semantic-estimate', text: IDLE_NOTE });
    /** @type {Record<string, HTMLInputElement>} */
    this.excludes = Object.fromEntries(RUNGS.map((r) => [r, el('input', {
      type: 'checkbox', id: `exclude-${r}`, checked: true, dataset: { rung: r },
    })]));
    root.replaceChildren(
      el('label', {}, this.semantic, ' semantic rung (reworded rows)'),
      this.code.root,
      this.estimate,
      el('span', { class: 'exclude-rungs', id: 'exclude-rungs' }, 'Rows leave eval.clean when caught by: ',
        ...RUNGS.map((r) => el('label', {}, this.excludes[r], ` ${r}`))),
    );
    this.semantic.addEventListener('change', () => this.#sync());
    this.#sync();
  }

  #sync() {
    this.excludes.semantic.disabled = !this.semantic.checked;
    this.code.setEnabled(this.semantic.checked);
    this.estimate.textContent = IDLE_NOTE;
  }

  /** Python's rule constants (ready.constants): the code settings' range and default. @param {import('../worker/protocol.js').Constants} constants */
  workerReady(constants) {
    this.code.workerReady(constants);
  }

  /**
   * The request's ladder arguments: {semantic: null (off) or the rung's settings
   * ({code_ngram}; the rest take Python's defaults), exclude_rungs: the
   * ticked rungs among those that run}. Throws bad_input for a code setting out of range.
   */
  value() {
    const runs = this.semantic.checked ? RUNGS : RUNGS.slice(0, 2);
    return {
      semantic: this.semantic.checked ? this.code.value() : null,
      exclude_rungs: runs.filter((r) => this.excludes[r].checked),
    };
  }

  /** The run's log line: "semantic rung on; eval.clean leaves out exact, ngram". @param {ReturnType<LadderSettings['value']>} v */
  describe(v) {
    const s = v.semantic;
    const code = s ? ` (code shingles ${s.code_ngram || 'off'})` : '';
    return `semantic rung ${v.semantic ? 'on' : 'off'}${code}; eval.clean leaves out ${v.exclude_rungs.join(', ') || 'no rung'}`;
  }

  /** A new run: forget the last run's estimate. */
  begin() {
    this.pending = null;
    delete this.estimate.dataset.seconds;
    this.estimate.textContent = this.semantic.checked ? 'Semantic rung: waiting for the training pass…' : IDLE_NOTE;
  }

  /** A log from the running job: the candidate stage (kind semantic), then the estimate. @param {import('../worker/protocol.js').LogData | null} data */
  onLog(data) {
    if (!data) return;
    if (data.kind === 'semantic') {
      this.pending = data;
      this.estimate.textContent = `Semantic rung: ${fmtInt(data.windows_embedded)} spans fitted in the candidate windows of ${fmtInt(data.windows)} windows; embedding them and ${fmtInt(data.eval_rows)} eval texts (${fmtInt(data.texts)} texts), estimate after the first batch…`;
    } else if (data.kind === 'estimate' && this.pending) {
      const s = Math.max(1, Math.round(data.seconds));
      this.estimate.textContent = `Semantic rung: about ${s < 90 ? `${s} s` : `${Math.round(s / 60)} min`} to embed ${fmtInt(this.pending.texts)} texts (${fmtInt(this.pending.windows_embedded)} spans from ${fmtInt(this.pending.windows)} windows; measured ${data.rows_per_s_first_batch.toFixed(1)} texts/s on the first batch).`;
      this.estimate.dataset.seconds = String(data.seconds);
      this.pending = null;
    }
  }
}
