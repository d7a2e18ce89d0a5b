// @ts-check
// The training records' id field: a <select> of the training file's fields, defaulted by
// name (Python's record_id.default_id_field, the inspect answer's `default_id_field`), or
// "none". A flagged row then shows its training record's own id beside the file and record
// number, and the report's training_id column holds it.

import { el } from '../lib/dom.js';

export class IdFieldChoice {
  /** @param {HTMLSelectElement} select @param {HTMLElement} note  says why the default */
  constructor(select, note) {
    this.select = select;
    this.note = note;
    this.clear();
  }

  /** No file yet: only "none", disabled. */
  clear() {
    this.select.replaceChildren(el('option', { value: '', text: 'none' }));
    this.select.disabled = true;
    this.note.textContent = 'choose a training file';
  }

  /** The fields of an inspected file ({fields: [{path}], default_id_field}). @param {{fields?: {path: string}[], default_id_field?: string | null}} info */
  show(info) {
    const paths = (info.fields || []).map((f) => f.path).filter((p) => !p.includes('['));
    const def = info.default_id_field || '';
    this.select.replaceChildren(el('option', { value: '', text: 'none' }),
      ...paths.map((p) => el('option', { value: p, text: p, selected: p === def })));
    this.select.disabled = paths.length === 0;
    this.note.textContent = def ? `default: a field named ${def}` : 'no field has an id-like name';
  }

  /** The chosen path, or null. */
  value() {
    return this.select.value || null;
  }
}
