// @ts-check
// "Open record": the whole training record a flagged row is traced to, read again from the
// dropped file by the worker (cont.record: the bytes at the record's offset, File.slice),
// in a modal <dialog>: where it is (file, record number, id, byte offset), the chosen fields'
// text with the words it shares with the eval row marked, then the whole record as parsed.

import { el } from '../lib/dom.js';
import { markedText } from './data-table.js';

/** The page's one record dialog (made on first use). */
function dialog() {
  let d = /** @type {HTMLDialogElement | null} */ (document.getElementById('record-dialog'));
  if (d) return d;
  d = /** @type {HTMLDialogElement} */ (el('dialog', { id: 'record-dialog', class: 'record-dialog', 'aria-labelledby': 'record-dialog-title' }));
  d.addEventListener('click', (e) => { if (e.target === d) d.close(); }); // a click beside the box
  document.body.append(d);
  return d;
}

/**
 * Show a record (the worker's cont.record answer) or why it could not be read.
 *
 * @param {{eval_row: number}} row  the eval row it is traced from
 * @param {string} where  the record's place, in words (file, record, byte offset)
 * @param {import('../worker/protocol.js').RecordResult | null} rec  cont.record's answer, or null
 * @param {string} [failure]  why it could not be read (rec null)
 */
export function showRecord(row, where, rec, failure = '') {
  const d = dialog();
  const close = el('button', { type: 'button', class: 'dialog-close', text: 'Close' });
  close.addEventListener('click', () => d.close());
  const title = el('h3', { id: 'record-dialog-title', text: rec
    ? `Training record ${rec.record}${rec.id ? ` (id ${rec.id})` : ''} of ${rec.file}`
    : 'The training record could not be read' });
  const body = rec ? [
    el('p', { class: 'muted record-where', text: `${where} · read again with ${rec.read}; eval row ${row.eval_row}'s shared words are marked.` }),
    ...rec.fields.map((f) => el('section', { class: 'record-field', dataset: { path: f.path } },
      el('h4', { text: f.path }), el('p', { class: 'record-text' }, markedText(f.text, f.marks)))),
    el('h4', { text: 'The whole record' }),
    el('pre', { class: 'record-whole', text: typeof rec.value === 'object' && rec.value !== null ? JSON.stringify(rec.value, null, 2) : rec.text }),
  ] : [el('p', { class: 'error-text', text: failure }), el('p', { class: 'muted', text: where })];
  d.replaceChildren(el('div', { class: 'dialog-head' }, title, close), ...body);
  d.dataset.state = rec ? 'ready' : 'error';
  if (!d.open) d.showModal();
  close.focus();
}
