// The pure parts of a result table (ui/data-table.js): sort rows by a column, keep the rows
// matching a search, and cut a text at highlight spans. Node-tested in
// tests/js/site/data-table.test.mjs.

/**
 * @typedef {object} Column
 * @property {string} key       name (data-col on the cells and the header)
 * @property {string} label     header text
 * @property {boolean} [num]    numeric: sorts as numbers, right-aligned (class num)
 * @property {(row: any) => (string|number|null|undefined)} [value]  sort key (default row[key]);
 *   '' / null / undefined / NaN sort last in both directions
 * @property {(row: any) => string} [text]  the text the filter searches (default String(value))
 * @property {(row: any) => (Node|string)} [cell]  the cell's content (default the text)
 * @property {boolean} [sortable]  default true
 */

/** @param {unknown} v */
const missing = (v) => v === '' || v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

/** @param {Column} col @param {any} row */
const valueOf = (col, row) => (col.value ? col.value(row) : row[col.key]);

/** @param {Column} col @param {any} row */
export const textOf = (col, row) => {
  if (col.text) return col.text(row);
  const v = valueOf(col, row);
  return missing(v) ? '' : String(v);
};

/**
 * Rows sorted by one column, stable (ties keep their order).
 *
 * @param {any[]} rows
 * @param {Column} col
 * @param {'ascending'|'descending'} dir
 * @returns {any[]} a new array; numbers compare as numbers when col.num (strings that parse
 *   as numbers too: '0.8000' < '10'), text by localeCompare with numeric collation; missing
 *   values ('' / null / NaN) last in both directions.
 */
export function sortRows(rows, col, dir) {
  const sign = dir === 'descending' ? -1 : 1;
  const key = (/** @type {any} */ r) => {
    const v = valueOf(col, r);
    if (missing(v)) return null;
    if (!col.num) return String(v);
    const n = Number(v);
    return Number.isNaN(n) ? null : n;
  };
  const keyed = rows.map((r, i) => ({ r, i, k: key(r) }));
  keyed.sort((a, b) => {
    if (a.k === null || b.k === null) return a.k === b.k ? a.i - b.i : (a.k === null ? 1 : -1);
    const c = col.num ? Number(a.k) - Number(b.k)
      : String(a.k).localeCompare(String(b.k), undefined, { numeric: true, sensitivity: 'base' });
    return c !== 0 ? sign * c : a.i - b.i;
  });
  return keyed.map((x) => x.r);
}

/**
 * Rows whose text holds every white-space-separated term of `query` (case-insensitive, each
 * term in some column; a term may be a row number). "" keeps every row.
 *
 * @param {any[]} rows
 * @param {string} query
 * @param {Column[]} columns
 * @returns {any[]} the matching rows, in their order
 */
export function filterRows(rows, query, columns) {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return rows.slice();
  return rows.filter((r) => {
    const hay = columns.map((c) => textOf(c, r)).join('\n').toLowerCase();
    return terms.every((t) => hay.includes(t));
  });
}

/**
 * Cut `text` at `spans` for highlighting.
 *
 * @param {string} text
 * @param {number[][]} spans  [[start, end], ...] in UTF-16 code units (JS string indices), as
 *   Python's evalsieve.highlight.passage_spans gives them; out-of-range or overlapping spans are
 *   clipped, empty ones dropped
 * @returns {{text: string, mark: boolean}[]} pieces that concatenate to `text`
 */
export function markPieces(text, spans = []) {
  /** @type {{text: string, mark: boolean}[]} */
  const out = [];
  let at = 0;
  for (const [a0, b0] of [...spans].sort((x, y) => x[0] - y[0])) {
    const a = Math.max(at, Math.min(a0, text.length)), b = Math.min(b0, text.length);
    if (b <= a) continue;
    if (a > at) out.push({ text: text.slice(at, a), mark: false });
    out.push({ text: text.slice(a, b), mark: true });
    at = b;
  }
  if (at < text.length || !out.length) out.push({ text: text.slice(at), mark: false });
  return out;
}
