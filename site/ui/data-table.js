// @ts-check
// The parts of a result table a person works with: header cells whose button sorts
// (aria-sort on the <th>), a search box, rows whose long text shows a few lines and a "show
// all" button (on a narrow screen each row reflows into a card, its cells labelled from
// data-label), and text with its shared words in <mark>s. Cells are DOM nodes or text
// (textContent); data never goes through innerHTML. ui/paged-table.js puts them together
// for the tables Python pages (cont.rows, para.rows); lib/table-rows.js has the pure parts.

import { el } from '../lib/dom.js';
import { markPieces, textOf } from '../lib/table-rows.js';

/**
 * A <span class="marked-text"> holding `text` with each span in a <mark> (text nodes only).
 *
 * @param {string} text
 * @param {number[][]} [spans]
 * @param {string | null} [markClass]  the marks' class (e.g. 'diff': words that differ)
 */
export function markedText(text, spans = [], markClass = null) {
  return el('span', { class: 'marked-text' }, ...markPieces(text, spans)
    .map((p) => (p.mark ? el('mark', { text: p.text, class: markClass }) : document.createTextNode(p.text))));
}

/**
 * The <tr> of one row: a <td> per column (data-col, data-label; class num), its content
 * c.cell(row) or the text; a column with `long` holds it in a `div.clamp` (a few lines,
 * "show all": see clampLongCells).
 *
 * @param {import('../lib/table-rows.js').Column[]} columns @param {any} row
 * @param {(row: any) => Record<string, string>} [rowData]  the <tr>'s dataset
 */
export function rowElement(columns, row, rowData) {
  return el('tr', { dataset: rowData ? rowData(row) : undefined },
    ...columns.map((c) => {
      const content = c.cell ? c.cell(row) : textOf(c, row);
      return el('td', { class: c.num ? 'num' : null, dataset: { col: c.key, label: c.label } },
        c.long ? el('div', { class: 'clamp' }, content) : content);
    }));
}

/**
 * Give each `div.clamp` of `root` whose text is longer than its few lines a "show all"
 * button after it (toggles to "show less"); the others get none. Call after the rows are in
 * the document (it measures them).
 *
 * @param {HTMLElement} root
 */
export function clampLongCells(root) {
  for (const box of root.querySelectorAll('div.clamp')) {
    if (box.nextElementSibling?.classList.contains('clamp-toggle')) continue;
    if (box.scrollHeight <= box.clientHeight + 2) continue;
    const b = el('button', { type: 'button', class: 'clamp-toggle', 'aria-expanded': 'false', text: 'show all' });
    b.addEventListener('click', () => {
      const open = box.classList.toggle('open');
      b.setAttribute('aria-expanded', String(open));
      b.textContent = open ? 'show less' : 'show all';
    });
    box.after(b);
  }
}

/**
 * The header cells, with a sort button for each sortable column; `state.sortKey` / `dir`
 * mark the sorted one (updateSortHeaders). Clicking a button calls onSort(column key).
 *
 * @param {import('../lib/table-rows.js').Column[]} columns
 * @param {(key: string) => void} onSort
 */
export function headerCells(columns, onSort) {
  return columns.map((c) => {
    const th = el('th', { scope: 'col', dataset: { col: c.key }, class: c.num ? 'num' : null });
    if (c.sortable === false) {
      th.textContent = c.label;
      return th;
    }
    const b = el('button', { type: 'button', class: 'sort', dataset: { col: c.key } }, c.label,
      el('span', { class: 'sort-arrow', 'aria-hidden': 'true' }));
    b.addEventListener('click', () => onSort(c.key));
    th.append(b);
    return th;
  });
}

/**
 * aria-sort and the arrow on each sortable header cell of `headers` (from headerCells).
 * @param {HTMLElement[]} headers @param {import('../lib/table-rows.js').Column[]} columns
 * @param {string | null} sortKey @param {string} dir  'ascending' | 'descending'
 */
export function updateSortHeaders(headers, columns, sortKey, dir) {
  headers.forEach((th, i) => {
    if (columns[i].sortable === false) return;
    const on = columns[i].key === sortKey;
    th.setAttribute('aria-sort', on ? dir : 'none');
    const arrow = th.querySelector('.sort-arrow');
    if (arrow) arrow.textContent = on ? (dir === 'ascending' ? ' ▲' : ' ▼') : '';
  });
}

/**
 * The next sort after a click on `key`: ascending, then descending on a second click.
 * @param {{sortKey: string | null, dir: string}} state @param {string} key @returns {{sortKey: string, dir: string}}
 */
export const nextSort = (state, key) => ({
  sortKey: key, dir: state.sortKey === key && state.dir === 'ascending' ? 'descending' : 'ascending',
});

/**
 * A `.table-tools` bar for `table`: "Search <label>" and its box, and a live count.
 *
 * @param {HTMLTableElement} table  has an id
 * @param {string} label
 */
export function searchBar(table, label) {
  const id = `${table.id}-filter`;
  const input = /** @type {HTMLInputElement} */ (el('input', { type: 'search', id, class: 'table-filter',
    'aria-controls': table.id, autocomplete: 'off', spellcheck: 'false', placeholder: 'words or row numbers' }));
  const count = el('span', { class: 'table-count muted', role: 'status', 'aria-live': 'polite' });
  const bar = el('div', { class: 'table-tools' }, el('label', { for: id, text: `Search ${label}` }), input, count);
  return { bar, input, count };
}
