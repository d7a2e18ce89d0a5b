// @ts-check
// DOM helpers for the page. All data text goes through textContent, never innerHTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * document.querySelector with an optional root, for the page's own elements (index.html and
 * the sections' templates have them: a missing one is a page bug, null would fail at first use).
 * @template {Element} [T=HTMLElement]
 * @param {string} sel @param {ParentNode} [root] @returns {T}
 */
export const $ = (sel, root = document) => /** @type {T} */ (root.querySelector(sel));

/**
 * Make an HTML element. attrs: `class`, `text` (textContent), `dataset` (object), DOM
 * properties for non-string values (e.g. `hidden: true`), attributes otherwise; null,
 * undefined and false are left out. Children: nodes or strings; null/undefined skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, unknown>} [attrs] @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = String(v);
    else if (k === 'text') node.textContent = String(v);
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k in node && typeof v !== 'string') /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[k] = v; // a DOM property by name
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/**
 * Make an SVG element with string attributes and an optional text child.
 * @param {string} tag @param {Record<string, string | number>} [attrs] @param {string | null} [text] @returns {SVGElement}
 */
export function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Offer `text` as a download named `name` (a blob: URL, revoked a minute later).
 * @param {string} name @param {string | null | undefined} mime @param {BlobPart} text
 */
export function downloadText(name, mime, text) {
  const url = URL.createObjectURL(new Blob([text], { type: mime || 'text/plain' }));
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * [dt, dd] pairs for a <dl>: rows are [label, value, dataset?].
 * @param {[string, string | number, Record<string, string>?][]} rows @returns {HTMLElement[]}
 */
export function definitionRows(rows) {
  return rows.flatMap(([k, v, dataset]) => [el('dt', { text: k }), el('dd', { text: v, dataset })]);
}

/**
 * What a person typed into an <input type=number>, for the settings parsers: its value, or,
 * when the browser could not read the text as a number (`validity.badInput`, e.g. "1e" or
 * "--1", whose `value` is then ""), the words "not a number", so that the parser refuses it
 * with the setting's range instead of reading "" as "use the default".
 * @param {HTMLInputElement} input @returns {string}
 */
export const typedNumber = (input) => (input.validity && input.validity.badInput ? 'not a number' : input.value);
