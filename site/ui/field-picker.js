// The field list of an input: one checkbox (or radio) per field the worker's `inspect` found,
// with its fill and average length, constant fields greyed with the reason; then the
// element-filter paths (messages[role=user].content); the default field is marked and the
// reason for it (inspect's default_reason) is shown under the list.

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
   * List info.fields ([{path, fill, avg_chars, avg_words, constant, reason}]) and then
   * info.filter_fields (element-filter paths, same shape) under `legend`; fields for which
   * checked(path) is true start checked; the paths in info.default_fields are marked
   * "default" and info.default_reason is shown; `extra` nodes follow the list.
   */
  render(info, { legend, checked, extra = [] }) {
    const defaults = new Set(info.default_fields || []);
    const item = (f, i) => {
      const id = `${this.idPrefix}-${i}`;
      const input = el('input', { type: this.type, id, value: f.path, dataset: { path: f.path } });
      if (this.type === 'radio') input.name = this.idPrefix;
      input.checked = checked(f.path);
      input.addEventListener('change', () => this.onChange?.());
      const words = typeof f.avg_words === 'number' ? `, ${f.avg_words.toFixed(1)} words` : '';
      const stats = `fill ${(f.fill * 100).toFixed(0)}%, avg ${fmtInt(Math.round(f.avg_chars))} chars${words}`;
      const cls = ['field', f.constant ? 'constant' : '', f.filter ? 'filter' : '', defaults.has(f.path) ? 'default' : ''].filter(Boolean).join(' ');
      return el('li', { class: cls }, input, ' ',
        el('label', { for: id }, el('code', { text: f.path }), ' ',
          defaults.has(f.path) ? el('span', { class: 'badge default-mark', text: 'default' }) : null, ' ',
          el('span', { class: 'muted', text: stats }),
          f.constant || f.reason ? el('span', { class: 'reason', text: ` — ${f.reason || 'constant'}` }) : null));
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
      info.default_reason ? el('p', { class: 'default-reason muted', text: `Default${info.default_fields?.length ? ` ${info.default_fields.join(', ')}` : ''}: ${info.default_reason}.` }) : null,
      ...extra,
    ].filter(Boolean));
    this.box.dataset.state = 'ready';
  }

  /** The paths of the checked fields, in list order. */
  chosen() {
    return [...this.box.querySelectorAll(`input[type=${this.type}]:checked`)].map((i) => i.value);
  }
}
