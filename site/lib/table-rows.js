// @ts-check
// The pure parts of a result table (ui/data-table.js): a column's text, and a text cut at
// highlight spans. Node-tested in tests/js/site/data-table.test.mjs. (Result tables are
// sorted, filtered and paged in Python: py/evalsieve/result_table.py.)

/**
 * @typedef {object} Column
 * @property {string} key       name (data-col on the cells and the header)
 * @property {string} label     header text
 * @property {boolean} [num]    numeric: right-aligned (class num)
 * @property {(row: any) => (string|number|null|undefined)} [value]  the cell's value (default row[key])
 * @property {(row: any) => string} [text]  the cell's text (default String(value))
 * @property {(row: any) => (Node|string)} [cell]  the cell's content (default the text)
 * @property {boolean} [sortable]  a sort button in the header (Python sorts by `key`); default true
 * @property {boolean} [long]  long text: shown a few lines high, with "show all"
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
