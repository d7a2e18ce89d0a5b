// The field list of an input: one checkbox (or radio) per field the worker's `inspect` found,
// with its fill and average length, constant fields greyed with the reason.

import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';

export class FieldPicker {
  /**
   * box: the <fieldset> (data-state loading | ready | error, data-file = the file's name);
   * type: 'checkbox' (several fields) or 'radio' (one); idPrefix: ids are `${idPrefix}-${i}`;
   * legend: the legend while loading; failure: {legend, text} shown when the file cannot be
   * read; onChange(): a choice changed.
   */
  constructor(box, { type, idPrefix, legend, failure, onChange }) {
    Object.assign(this, { box, type, idPrefix, legend, failure, onChange });
  }

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
   * List info.fields ([{path, fill, avg_chars, constant, reason}]) under `legend`; fields for
   * which checked(path) is true start checked; `extra` nodes follow the list.
   */
  render(info, { legend, checked, extra = [] }) {
    const items = info.fields.map((f, i) => {
      const id = `${this.idPrefix}-${i}`;
      const input = el('input', { type: this.type, id, value: f.path, dataset: { path: f.path } });
      if (this.type === 'radio') input.name = this.idPrefix;
      input.checked = checked(f.path);
      input.addEventListener('change', () => this.onChange?.());
      const stats = `fill ${(f.fill * 100).toFixed(0)}%, avg ${fmtInt(Math.round(f.avg_chars))} chars`;
      return el('li', { class: f.constant ? 'field constant' : 'field' }, input, ' ',
        el('label', { for: id }, el('code', { text: f.path }), ' ', el('span', { class: 'muted', text: stats }),
          f.constant || f.reason ? el('span', { class: 'reason', text: ` — ${f.reason || 'constant'}` }) : null));
    });
    this.box.replaceChildren(
      el('legend', { text: legend }),
      items.length ? el('ul', { class: 'field-list' }, ...items) : el('p', { class: 'muted', text: 'no fields found' }),
      ...extra,
    );
    this.box.dataset.state = 'ready';
  }

  /** The paths of the checked fields, in list order. */
  chosen() {
    return [...this.box.querySelectorAll(`input[type=${this.type}]:checked`)].map((i) => i.value);
  }
}
