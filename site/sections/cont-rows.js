// @ts-check
// The rows of a contamination result: one table of every eval row, paged in Python
// (cont.rows), filtered by the rung that caught it, by status and by a containment or
// semantic-score range (or a clicked histogram bar), searched and sorted. Each row names the
// training record it is traced to (file, record number, the record's own id) with an
// "Open record" button (ui/record-dialog.js).

import * as P from '../worker/protocol.js';
import { el } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';
import { rangeText } from '../lib/chart.js';
import { markedText } from '../ui/data-table.js';
import { PagedTable } from '../ui/paged-table.js';

const { OP } = P;

/**
 * One row of cont.rows (py/evalsieve/result_table.py), Python's JSON.
 * @typedef {{eval_row: number, rung: string, status: string, leaves_clean?: boolean, containment_text?: string,
 *   ngrams_matched?: number, ngrams_total?: number, semantic_score?: number | null, semantic_cosine?: number | null,
 *   training_record?: number | null, training_file?: string, training_file_index?: number, training_offset: number,
 *   training_bytes: number, training_id?: string | null, exact_record?: number | null, exact_file?: string, source_rung?: string,
 *   eval_text?: string | null, eval_marks?: number[][], training_excerpt?: string, training_window?: string}} ContRow
 * @typedef {(row: ContRow, button: HTMLButtonElement) => void} OnOpen
 * @typedef {{bin: number, lo: number, hi: number, count: number}} Bar  a histogram bar (lib/chart.js binsInDomain)
 */
const CAUGHT = ['exact', 'ngram', 'semantic'];
// the rung filter: its value -> the `where.rung` categories (null: every row)
/** @type {[string, string, string[] | null][]} */
const RUNG_CHOICES = [
  ['caught', 'caught by any rung', CAUGHT], ['exact', 'exact', ['exact']], ['ngram', 'ngram', ['ngram']],
  ['semantic', 'semantic', ['semantic']], ['none', 'no rung (not caught)', ['none']], ['all', 'every row', null],
];
const STATUSES = ['contaminated', 'clean', 'too_short', 'no_ngram', 'boilerplate_only', 'empty'];

const small = (/** @type {string} */ text) => el('span', { class: 'sub muted', text });
/** A phone-sized screen (rows are cards there: fewer a page). */
export const narrow = () => typeof matchMedia === 'function' && matchMedia('(max-width: 640px)').matches;

/** The training record a row is traced to, and the button that opens it. @param {ContRow} r @param {OnOpen} onOpen */
function sourceCell(r, onOpen) {
  if (!r.training_record) return el('span', { class: 'muted', text: r.exact_record ? '' : '–' });
  const open = el('button', { type: 'button', class: 'open-record', dataset: { row: String(r.eval_row) }, text: 'Open record' });
  const known = r.training_offset >= 0 || r.training_bytes === 0;
  open.disabled = !known && r.source_rung === 'semantic';
  if (open.disabled) open.title = 'only the semantic rung saw this record: its place in the file is not known';
  open.addEventListener('click', () => onOpen(r, open));
  return el('div', { class: 'source' },
    el('span', { class: 'source-file', text: r.training_file }),
    el('span', { class: 'source-record', text: `record ${fmtInt(r.training_record)}` }),
    r.training_id ? el('span', { class: 'source-id', text: `id ${r.training_id}` }) : null,
    r.exact_record ? small(`whole row = record ${fmtInt(r.exact_record)}${r.exact_file !== r.training_file ? ` of ${r.exact_file}` : ''}`) : null,
    open);
}

/** @param {OnOpen} onOpen @param {boolean | undefined} semantic @returns {import('../lib/table-rows.js').Column[]} */
function columns(onOpen, semantic) {
  return [
    { key: 'eval_row', label: 'eval row', num: true },
    { key: 'rung', label: 'caught by', cell: (r) => el('div', {},
      el('span', { class: `rung rung-${r.rung}`, text: r.rung === 'none' ? 'no rung' : r.rung }),
      small(r.status.replace(/_/g, ' ')), r.leaves_clean ? small('leaves eval.clean') : null) },
    { key: 'containment', label: semantic ? 'containment / semantic' : 'containment', num: true, cell: (r) => el('div', {},
      el('span', { text: r.containment_text || '–' }),
      r.ngrams_total ? small(`${fmtInt(r.ngrams_matched)} of ${fmtInt(r.ngrams_total)} n-grams`) : null,
      r.semantic_score ? small(`score ${r.semantic_score} · cos ${r.semantic_cosine}`) : null) },
    { key: 'training_record', label: 'training record', cell: (r) => sourceCell(r, onOpen) },
    { key: 'eval_text', label: 'eval row text (shared words marked)', sortable: false, long: true, cell: (r) => markedText(r.eval_text ?? '', r.eval_marks) },
    { key: 'training_excerpt', label: 'training excerpt ([n-gram]) or window', sortable: false, long: true,
      cell: (r) => document.createTextNode(r.training_excerpt || r.training_window || '') },
  ];
}

/** A labelled <select> of [value, text] options. @param {string} id @param {string} label @param {string[][]} options @param {string} value */
function choice(id, label, options, value) {
  const s = el('select', { id }, ...options.map(([v, t]) => el('option', { value: v, text: t, selected: v === value })));
  return { node: el('label', { class: 'table-filter-choice', for: id }, `${label} `, s), select: s };
}

/**
 * The rows table of one contamination result (#contaminated), made once and given each new
 * result with show(): the rung choice lists the ladder's counts, a histogram bar sets a range.
 */
export class ContaminationRows {
  /**
   * @param {HTMLTableElement} table
   * @param {{client: Pick<import('../lib/worker-client.js').WorkerClient, 'request'>, onOpen: (row: ContRow, button: HTMLButtonElement, handle: number | null) => void}} opts
   */
  constructor(table, { client, onOpen }) {
    this.client = client;
    /** @type {number | null} */
    this.handle = null;
    /** @type {Bar | null} */
    this.bin = null;
    this.rung = choice('rows-rung', 'Rung', RUNG_CHOICES.map(([v, t]) => [v, t]), 'caught');
    this.status = choice('rows-status', 'Status', [['any', 'any status'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')])], 'any');
    this.rangeKey = choice('rows-range-key', 'Range of', [['containment', 'containment'], ['semantic_score', 'semantic score']], 'containment');
    this.min = el('input', { type: 'number', id: 'rows-min', step: '0.01', min: '0', max: '1', placeholder: 'from', 'aria-label': 'range from' });
    this.max = el('input', { type: 'number', id: 'rows-max', step: '0.01', min: '0', max: '1', placeholder: 'to', 'aria-label': 'range to' });
    this.chip = el('button', { type: 'button', class: 'filter-chip', hidden: true });
    this.chip.addEventListener('click', () => this.setBin(null));
    const range = el('span', { class: 'table-filter-range' }, this.rangeKey.node, this.min, '–', this.max);
    this.table = new PagedTable(table, {
      columns: columns((r, b) => onOpen(r, b, this.handle), false), label: 'rows', pageSize: narrow() ? 20 : 50,
      rowData: (r) => ({ row: String(r.eval_row), rung: r.rung, status: r.status }),
      fetch: (q) => this.client.request(OP.CONT_ROWS, { handle: this.handle, ...q }).promise,
      tools: [this.rung.node, this.status.node, range, this.chip],
      caption: (p) => (p.total === 0 ? 'No rows.' : 'Every eval row the filters keep; the CSV exports have every column.'),
    });
    this.onOpen = onOpen;
    const changed = () => this.table.setFilters(this.#where());
    for (const s of [this.rung.select, this.status.select, this.rangeKey.select]) s.addEventListener('change', changed);
    for (const i of [this.min, this.max]) i.addEventListener('change', changed);
  }

  #where() {
    const rung = RUNG_CHOICES.find(([v]) => v === this.rung.select.value)?.[2] ?? null;
    const status = this.status.select.value === 'any' ? null : [this.status.select.value];
    const where = { ...(rung ? { rung } : {}), ...(status ? { status } : {}) };
    const num = (/** @type {HTMLInputElement} */ i) => (i.value === '' || !Number.isFinite(Number(i.value)) ? null : Number(i.value));
    const lo = num(this.min), hi = num(this.max);
    return {
      where,
      range: lo === null && hi === null ? null : { key: this.rangeKey.select.value, min: lo, max: hi },
    };
  }

  /**
   * A new result: its handle, the ladder (rung counts, whether the semantic rung ran).
   * @param {number} handle @param {import('../worker/protocol.js').LadderView | null | undefined} ladder
   */
  show(handle, ladder) {
    this.handle = handle;
    /** @type {Partial<Record<string, number | null>>} */
    const by = ladder?.by_rung || {};
    const total = CAUGHT.reduce((n, k) => n + (by[k] || 0), 0);
    /** @type {Record<string, number | null | undefined>} */
    const counts = { caught: total, exact: by.exact, ngram: by.ngram, semantic: by.semantic, none: ladder?.clean_at_these_rungs };
    for (const o of this.rung.select.options) {
      const [v, t] = /** @type {[string, string, string[] | null]} */ (RUNG_CHOICES.find(([x]) => x === o.value)); // the options are RUNG_CHOICES
      o.textContent = counts[v] === null || counts[v] === undefined ? (v === 'semantic' ? `${t} (did not run)` : t) : `${t} (${fmtInt(counts[v])})`;
      o.disabled = v === 'semantic' && by.semantic === null;
    }
    const sem = ladder?.rungs?.includes('semantic');
    this.rangeKey.node.hidden = !sem;
    if (!sem) this.rangeKey.select.value = 'containment';
    this.table.setColumns(columns((r, b) => this.onOpen(r, b, handle), sem));
    this.bin = null;
    this.chip.hidden = true;
    return this.table.restart({ ...this.#where(), bin: null });
  }

  /** List the rows a rung caught first ('none': no rung caught them), every status. @param {string} rung */
  setRung(rung) {
    this.rung.select.value = rung;
    this.status.select.value = 'any';
    this.chip.hidden = true;
    const done = this.table.setFilters({ ...this.#where(), bin: null });
    this.table.table.closest('.results')?.querySelector('#rows-title')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    return done;
  }

  /** Keep the rows in one containment bar (bin index and its edges; null: every bar). @param {Bar | null} bar */
  setBin(bar) {
    this.chip.hidden = !bar;
    if (bar) {
      this.chip.textContent = `containment ${rangeText(bar.lo, bar.hi)} ✕`;
      this.chip.title = 'the rows of the histogram bar you clicked; click to show every bar';
      this.rung.select.value = 'all'; // a bar counts every scored row, caught or not
      this.status.select.value = 'any';
    }
    return this.table.setFilters({ ...this.#where(), bin: bar ? { key: 'containment', index: bar.bin } : null });
  }
}

/** "record 12 of train.jsonl · byte 3,456 (789 bytes)" for a record dialog's line. */
export const sourceLine = (/** @type {ContRow} */ r) => `record ${fmtInt(r.training_record)} of ${r.training_file}${r.training_offset >= 0 ? ` · byte ${fmtInt(r.training_offset)} (${fmtBytes(r.training_bytes)})` : ''}`;
