// A result table a person can work with: click a column header to sort (aria-sort on the
// <th>, a <button> inside it for the keyboard), type in a filter box to narrow the rows, and
// read long text in full (the table grows with the page; no small inner scroll box; on a narrow
// screen each row reflows into a card, its cells labelled from data-label). Cells
// are DOM nodes or text (textContent); data never goes through innerHTML. The pure parts
// (sorting, filtering, highlight pieces) are in lib/table-rows.js.

import { el } from '../lib/dom.js';
import { filterRows, markPieces, sortRows, textOf } from '../lib/table-rows.js';

/**
 * A <span class="marked-text"> holding `text` with each span in a <mark> (text nodes only).
 *
 * @param {string} text
 * @param {number[][]} [spans]
 */
export function markedText(text, spans = []) {
  return el('span', { class: 'marked-text' }, ...markPieces(text, spans)
    .map((p) => (p.mark ? el('mark', { text: p.text }) : document.createTextNode(p.text))));
}

/** @type {WeakMap<HTMLTableElement, {query: string, sortKey: string|null, dir: 'ascending'|'descending', input: HTMLInputElement, count: HTMLElement}>} */
const STATE = new WeakMap();

/**
 * Fill `table` with rows, sortable by header click and narrowed by a filter box.
 *
 * The filter box and a live row count go in a `.table-tools` bar just before the table (before
 * its `.table-wrap` when it has one), made once per table and kept, with its text and the sort,
 * across re-renders (a regrouped paraphrase result keeps the search). Header buttons carry
 * data-col; <th aria-sort> is ascending / descending on the sorted column, none elsewhere.
 *
 * @param {HTMLTableElement} table  needs an id (the filter's aria-controls)
 * @param {{columns: import('../lib/table-rows.js').Column[], rows: any[], caption: string, label?: string,
 *   rowData?: (row: any) => Record<string, string>}} spec  label: what the filter searches,
 *   e.g. 'rows' or 'pairs'; rowData: the <tr>'s dataset
 */
export function renderDataTable(table, { columns, rows, caption, label = 'rows', rowData }) {
  const state = toolsFor(table, label);
  const trs = new Map(rows.map((r) => [r, el('tr', { dataset: rowData ? rowData(r) : undefined },
    ...columns.map((c) => el('td', { class: c.num ? 'num' : null, dataset: { col: c.key, label: c.label } },
      c.cell ? c.cell(r) : textOf(c, r))))]));
  const tbody = el('tbody');
  const headers = columns.map((c) => {
    const th = el('th', { scope: 'col', dataset: { col: c.key }, class: c.num ? 'num' : null });
    if (c.sortable === false) {
      th.textContent = c.label;
      return th;
    }
    const b = el('button', { type: 'button', class: 'sort', dataset: { col: c.key } }, c.label,
      el('span', { class: 'sort-arrow', 'aria-hidden': 'true' }));
    b.addEventListener('click', () => {
      state.dir = state.sortKey === c.key && state.dir === 'ascending' ? 'descending' : 'ascending';
      state.sortKey = c.key;
      update();
    });
    th.append(b);
    return th;
  });
  const update = () => {
    const col = columns.find((c) => c.key === state.sortKey);
    let shown = filterRows(rows, state.query, columns);
    if (col) shown = sortRows(shown, col, state.dir);
    tbody.replaceChildren(...shown.map((r) => /** @type {HTMLElement} */ (trs.get(r))));
    headers.forEach((th, i) => {
      const on = columns[i].key === state.sortKey;
      if (columns[i].sortable === false) return;
      th.setAttribute('aria-sort', on ? state.dir : 'none');
      const arrow = th.querySelector('.sort-arrow');
      if (arrow) arrow.textContent = on ? (state.dir === 'ascending' ? ' ▲' : ' ▼') : '';
    });
    state.count.textContent = shown.length === rows.length
      ? `${rows.length} ${label} shown`
      : `${shown.length} of ${rows.length} ${label} shown`;
    table.dataset.shown = String(shown.length);
  };
  state.input.oninput = () => {
    state.query = state.input.value;
    update();
  };
  table.classList.add('data-table');
  table.replaceChildren(el('caption', { text: caption }), el('thead', {}, el('tr', {}, ...headers)), tbody);
  state.input.closest('.table-tools')?.toggleAttribute('hidden', rows.length === 0);
  update();
}

/**
 * The filter bar of `table` (made once): a labelled search box and a live row count.
 *
 * @param {HTMLTableElement} table
 * @param {string} label
 */
function toolsFor(table, label) {
  const had = STATE.get(table);
  if (had) return had;
  const id = `${table.id}-filter`;
  const input = /** @type {HTMLInputElement} */ (el('input', { type: 'search', id, class: 'table-filter',
    'aria-controls': table.id, autocomplete: 'off', spellcheck: 'false', placeholder: `words or row numbers` }));
  const count = el('span', { class: 'table-count muted', role: 'status', 'aria-live': 'polite' });
  const bar = el('div', { class: 'table-tools' }, el('label', { for: id, text: `Search ${label}` }), input, count);
  const wrap = table.parentElement?.classList.contains('table-wrap') ? table.parentElement : table;
  wrap.before(bar);
  const state = { query: '', sortKey: /** @type {string|null} */ (null), dir: /** @type {'ascending'|'descending'} */ ('ascending'), input, count };
  STATE.set(table, state);
  return state;
}
