// @ts-check
// The field list of an input: one checkbox (or radio) per field the worker's `inspect` found,
// with its fill and average length, its first values (clipped, by Python: evidence.py),
// constant fields greyed with the reason; then the element-filter paths
// (messages[role=user].content); the default field is marked with the reason for it
// (inspect's default_reason, the rule of fields.py default_choice). A checkbox list offers
// the default plus the next text field in one click, and shows the too-short warning
// (ui/field-check.js) below the list.

import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';

/** A field joins the one-click combination only with this many prose words per row (a phrase). */
const COMBO_MIN_WORDS = 3;

/**
 * One field of an inspect answer (py/evalsieve inspect: fields and filter_fields).
 * @typedef {{path: string, fill: number, avg_chars: number, avg_words?: number, text_share?: number,
 *   constant?: boolean, filter?: boolean, reason?: string, samples?: string[]}} FieldInfo
 * @typedef {{fields?: FieldInfo[], filter_fields?: FieldInfo[], default_fields?: string[],
 *   default_reason?: string, default_reasons?: Record<string, string>}} FieldsInfo
 */

export class FieldPicker {
  /**
   * box: the <fieldset> (data-state loading | ready | error, data-file = the file's name);
   * type: 'checkbox' (several fields) or 'radio' (one); idPrefix: ids are `${idPrefix}-${i}`;
   * legend: the legend while loading; failure: {legend, text} shown when the file cannot be
   * read; onChange(): a choice changed.
   * @param {HTMLElement} box
   * @param {{type: 'checkbox' | 'radio', idPrefix: string, legend: string, failure: {legend: string, text: string}, onChange?: () => void}} opts
   */
  constructor(box, { type, idPrefix, legend, failure, onChange }) {
    this.box = box;
    this.type = type;
    this.idPrefix = idPrefix;
    this.legend = legend;
    this.failure = failure;
    this.onChange = onChange;
    /** @type {HTMLElement | undefined} */
    this.warning = undefined;
  }

  /** @param {string} fileName */
  loading(fileName) {
    this.box.dataset.state = 'loading';
    this.box.dataset.file = fileName;
    this.box.replaceChildren(el('legend', { text: this.legend }), el('p', { class: 'muted', text: 'reading the head of the file…' }));
  }

  failed() {
    this.box.replaceChildren(el('legend', { text: this.failure.legend }), el('p', { class: 'muted', text: this.failure.text }));
    this.box.dataset.state = 'error';
  }

  /**
   * List info.fields ([{path, fill, avg_chars, avg_words, constant, reason, samples}]) and
   * then info.filter_fields (element-filter paths, same shape) under `legend`; fields for
   * which checked(path) is true start checked; the paths in info.default_fields are marked
   * "default" with info.default_reason beside them (info.default_reasons[path] when given:
   * a corpus, each default with the reason of the file it is the default of); `extra` nodes
   * follow the list.
   * @param {FieldsInfo} info
   * @param {{legend: string, checked: (path: string) => boolean, extra?: (Node | null)[]}} opts
   */
  render(info, { legend, checked, extra = [] }) {
    const defaults = new Set(info.default_fields || []);
    // a corpus (sections/corpus-files.js) gives each default its own file's reason
    const reasonOf = (/** @type {string} */ path) => info.default_reasons?.[path] ?? info.default_reason;
    const item = (/** @type {FieldInfo} */ f, /** @type {number} */ i) => {
      const id = `${this.idPrefix}-${i}`;
      const input = el('input', { type: this.type, id, value: f.path, dataset: { path: f.path } });
      if (this.type === 'radio') input.name = this.idPrefix;
      input.checked = checked(f.path);
      input.addEventListener('change', () => this.#changed());
      const words = typeof f.avg_words === 'number' ? `, ${f.avg_words.toFixed(1)} words` : '';
      const stats = `fill ${(f.fill * 100).toFixed(0)}%, avg ${fmtInt(Math.round(f.avg_chars))} chars${words}`;
      const isDefault = defaults.has(f.path);
      const cls = ['field', f.constant ? 'constant' : '', f.filter ? 'filter' : '', isDefault ? 'default' : ''].filter(Boolean).join(' ');
      return el('li', { class: cls }, input, ' ',
        el('label', { for: id }, el('code', { text: f.path }), ' ',
          isDefault ? el('span', { class: 'badge default-mark', text: 'default' }) : null, ' ',
          el('span', { class: 'muted', text: stats }),
          f.constant || f.reason ? el('span', { class: 'reason', text: ` — ${f.reason || 'constant'}` }) : null),
        isDefault && reasonOf(f.path) ? el('p', { class: 'default-reason', text: `Default: ${reasonOf(f.path)}.` }) : null,
        samplesList(f.samples));
    };
    const plain = info.fields || [];
    const filters = info.filter_fields || [];
    const items = plain.map(item);
    const filterItems = filters.map((f, i) => item(f, plain.length + i));
    this.box.replaceChildren(...[
      el('legend', { text: legend }),
      items.length ? el('ul', { class: 'field-list' }, ...items) : el('p', { class: 'muted', text: 'no fields found' }),
      filterItems.length ? el('p', { class: 'muted filter-note', text: 'List elements chosen by a sibling key (element filters):' }) : null,
      filterItems.length ? el('ul', { class: 'field-list filter-list' }, ...filterItems) : null,
      !defaults.size && info.default_reason ? el('p', { class: 'default-reason muted', text: `No default: ${info.default_reason}.` }) : null,
      this.type === 'checkbox' ? this.#combo(info) : null,
      this.warning = el('p', { class: 'short-warning', role: 'status', hidden: true }),
      ...extra,
    ].filter((x) => x !== null));
    this.box.dataset.state = 'ready';
  }

  /**
   * "question + answer" one click away: a button that ticks the default field and the next
   * text field (most words per row among the other non-constant text fields with at least
   * COMBO_MIN_WORDS prose words per row, so an id column is not offered), or null.
   * @param {FieldsInfo} info
   */
  #combo(info) {
    const first = info.default_fields?.[0];
    const next = (info.fields || []).filter((f) => f.path !== first && !f.constant && f.fill > 0 && Number(f.text_share) > 0.5 && Number(f.avg_words) >= COMBO_MIN_WORDS)
      .sort((a, b) => Number(b.avg_words) - Number(a.avg_words))[0];
    if (!first || !next) return null;
    const pair = [first, next.path];
    const b = el('button', { type: 'button', class: 'combo', text: `${pair.join(' + ')}` });
    b.addEventListener('click', () => {
      for (const i of this.box.querySelectorAll('input[type=checkbox]')) if (i instanceof HTMLInputElement) i.checked = pair.includes(i.value);
      this.#changed();
    });
    return el('p', { class: 'combo-line muted' }, 'Score fields together: ', b);
  }

  #changed() {
    this.onChange?.();
  }

  /**
   * Show or hide the warning under the list: text, or null for none.
   * @param {string | null} text
   */
  warn(text) {
    if (!this.warning) return;
    this.warning.textContent = text || '';
    this.warning.hidden = !text;
  }

  /** The paths of the checked fields, in list order. */
  chosen() {
    return [...this.box.querySelectorAll(`input[type=${this.type}]:checked`)].map((i) => /** @type {HTMLInputElement} */ (i).value);
  }
}

/** A field's sample values (inspect's samples: the first values, clipped by Python). @param {string[] | undefined} samples */
function samplesList(samples) {
  if (!samples || !samples.length) return null;
  return el('ul', { class: 'samples', 'aria-label': 'first values' }, ...samples.map((t) => el('li', { text: t })));
}
