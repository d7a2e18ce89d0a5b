// @ts-check
// A result table that Python pages (cont.rows, para.rows: py/evalsieve/result_table.py): the
// page draws one page of rows (a few hundred DOM rows at most, whatever the result's size),
// and every filter, the search and the sort go to Python with the next request, so the
// counts it prints ("N of M rows shown": N pass the filters; paged) are counted over every row. Headers, rows and long
// cells as ui/data-table.js draws them.

import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';
import { clampLongCells, headerCells, nextSort, rowElement, searchBar, updateSortHeaders } from './data-table.js';

const SEARCH_DELAY_MS = 250;

/**
 * One paged table.
 *
 * The tools bar goes before the table's `.table-wrap` (extra controls first, then the search
 * and the live count); the pager (previous / next, the rows shown) after it. The table's
 * dataset says what is drawn: data-shown (rows on this page), data-matched, data-total,
 * data-offset, data-query and data-sort (what the page was drawn for); data-loading while a
 * page is asked for.
 */
export class PagedTable {
  /**
   * @param {HTMLTableElement} table  has an id, inside a `.table-wrap`
   * @param {{columns: import('../lib/table-rows.js').Column[], label?: string, pageSize?: number,
   *   rowData?: (row: any) => Record<string, string>, fetch: (q: Record<string, any>) => Promise<any>,
   *   tools?: Node[], caption?: (page: any) => string, onPage?: (page: any) => void}} spec
   *   fetch(q): the page for query q ({...filters, query, sort, offset, limit}) as
   *   {rows, matched, total, offset, limit, facets}; tools: filter controls for the bar;
   *   onPage: called with each page drawn
   */
  constructor(table, { columns, label = 'rows', pageSize = 50, rowData, fetch, tools = [], caption, onPage }) {
    this.table = table;
    this.label = label;
    this.pageSize = pageSize;
    this.rowData = rowData;
    this.fetch = fetch;
    this.caption = caption;
    this.onPage = onPage;
    /** @type {Record<string, unknown>} */
    this.filters = {};
    this.state = { query: '', sortKey: /** @type {string | null} */ (null), dir: 'ascending', offset: 0 };
    this.seq = 0;
    /** @type {import('../worker/protocol.js').RowsPage | null} */
    this.page = null;
    const { bar, input, count } = searchBar(table, label);
    this.count = count;
    bar.prepend(...tools);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => { this.state.query = input.value; this.state.offset = 0; this.reload(); }, SEARCH_DELAY_MS);
    });
    this.input = input;
    const wrap = table.parentElement?.classList.contains('table-wrap') ? table.parentElement : table;
    wrap.before(bar);
    this.prev = el('button', { type: 'button', class: 'page-prev', text: '◀ previous' });
    this.next = el('button', { type: 'button', class: 'page-next', text: 'next ▶' });
    this.where = el('span', { class: 'page-where muted' });
    this.prev.addEventListener('click', () => this.#go(-1));
    this.next.addEventListener('click', () => this.#go(1));
    this.pager = el('div', { class: 'pager' }, this.prev, this.where, this.next);
    wrap.after(this.pager);
    this.tbody = el('tbody');
    this.cap = el('caption');
    this.thead = el('thead');
    table.classList.add('data-table', 'paged');
    table.replaceChildren(this.cap, this.thead, this.tbody);
    /** @type {import('../lib/table-rows.js').Column[]} */
    this.columns = [];
    /** @type {HTMLElement[]} */
    this.headers = [];
    this.setColumns(columns);
  }

  /** Draw the header for `columns` (the rows follow with the next page). @param {import('../lib/table-rows.js').Column[]} columns */
  setColumns(columns) {
    this.columns = columns;
    this.headers = headerCells(columns, (key) => {
      Object.assign(this.state, nextSort(this.state, key), { offset: 0 });
      this.reload();
    });
    this.thead.replaceChildren(el('tr', {}, ...this.headers));
  }

  /** Change some filters (a key set to null drops it) and draw the first page again. @param {Record<string, unknown>} partial */
  setFilters(partial) {
    for (const [k, v] of Object.entries(partial)) {
      if (v === null || v === undefined) delete this.filters[k];
      else this.filters[k] = v;
    }
    this.state.offset = 0;
    return this.reload();
  }

  /** Start over (a new result): filters and search kept, first page. */
  restart(filters = this.filters) {
    this.filters = { ...filters };
    this.state.offset = 0;
    return this.reload();
  }

  /** @param {number} step */
  #go(step) {
    if (!this.page) return;
    this.state.offset = Math.max(0, this.page.offset + step * this.pageSize);
    this.reload();
  }

  /** Ask for the current page; a later request wins over an earlier one still running. */
  async reload() {
    const seq = ++this.seq;
    const s = this.state;
    const q = { ...this.filters, query: s.query, offset: s.offset, limit: this.pageSize,
      ...(s.sortKey ? { sort: { key: s.sortKey, dir: s.dir } } : {}) };
    this.table.dataset.loading = '1';
    /** @type {import('../worker/protocol.js').RowsPage} */
    let page;
    try {
      page = await this.fetch(q);
    } catch (e) {
      if (seq === this.seq) {
        delete this.table.dataset.loading;
        this.count.textContent = `could not load the rows: ${(e && /** @type {{message?: string}} */ (e).message) || e}`;
      }
      return null;
    }
    if (seq !== this.seq) return null;
    this.#draw(page, q);
    return page;
  }

  /** @param {import('../worker/protocol.js').RowsPage} page @param {{query: string, sort?: {key: string, dir: string}}} q */
  #draw(page, q) {
    this.page = page;
    const t = this.table;
    this.tbody.replaceChildren(...page.rows.map((r) => rowElement(this.columns, r, this.rowData)));
    updateSortHeaders(this.headers, this.columns, this.state.sortKey, this.state.dir);
    const a = page.rows.length ? page.offset + 1 : 0;
    const b = page.offset + page.rows.length;
    this.count.textContent = `${fmtInt(page.matched)} of ${fmtInt(page.total)} ${this.label} shown`;
    this.where.textContent = page.matched ? `${this.label} ${fmtInt(a)}–${fmtInt(b)} of ${fmtInt(page.matched)}` : `no ${this.label} match`;
    this.prev.disabled = page.offset === 0;
    this.next.disabled = b >= page.matched;
    this.pager.hidden = page.matched <= page.rows.length;
    this.cap.textContent = this.caption ? this.caption(page) : '';
    // what is drawn, for tests and the console: the page's rows and counts, and the search and
    // sort it was drawn for
    Object.assign(t.dataset, { shown: String(page.rows.length), matched: String(page.matched), total: String(page.total), offset: String(page.offset),
      query: q.query, sort: q.sort ? `${q.sort.key} ${q.sort.dir}` : '' });
    delete t.dataset.loading;
    clampLongCells(this.tbody);
    if (this.onPage) this.onPage(page);
  }
}
