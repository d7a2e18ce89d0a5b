// @ts-check
// The encoder's window in word pieces (encoder.js's tokenisation rule: keep the first window - 2
// pieces, wrap in [CLS] ... [SEP]) and, for a row it truncates, where in the row's text the
// window ended (the page marks it). Pure; Node-tested in tests/js/window-end.test.mjs.

/**
 * The part of a @huggingface/tokenizers Tokenizer used here.
 * @typedef {{encode(text: string, options: {add_special_tokens: boolean}): {ids: number[]}}} WordPieceTokenizer
 */

/**
 * Word-piece ids of `texts` under the window rule.
 * @param {WordPieceTokenizer} tokenizer
 * @param {string[]} texts
 * @param {number} window  pieces per row including [CLS] and [SEP]
 * @param {number} clsId
 * @param {number} sepId
 * @returns {{ids: number[][], truncated: number, cuts: [number, number][]}}  cuts: per
 *   truncated row [its index, windowEnd of its text]
 */
export function tokenizeWithWindow(tokenizer, texts, window, clsId, sepId) {
  const keep = window - 2;
  const ids = /** @type {number[][]} */ ([]);
  const cuts = /** @type {[number, number][]} */ ([]);
  let truncated = 0;
  texts.forEach((text, i) => {
    let body = tokenizer.encode(String(text), { add_special_tokens: false }).ids;
    if (body.length > keep) {
      truncated += 1;
      body = body.slice(0, keep);
      cuts.push([i, windowEnd(tokenizer, String(text), keep)]);
    }
    ids.push([clsId, ...body, sepId]);
  });
  return { ids, truncated, cuts };
}

/**
 * Where the window ends in a truncated row's text: the end (UTF-16 offset) of its last
 * white-space-separated word whose pieces all fit in `keep` (a word's pieces do not depend
 * on the words after it, so a prefix cut at white space has the pieces of the whole text up
 * to there). Binary search: about log2(words) encodings of a prefix. 0 when not even the
 * first word fits.
 * @param {WordPieceTokenizer} tokenizer @param {string} text @param {number} keep  pieces without [CLS]/[SEP]
 */
export function windowEnd(tokenizer, text, keep) {
  const ends = [...text.matchAll(/\S+/g)].map((m) => (m.index ?? 0) + m[0].length);
  let lo = 0;
  let hi = ends.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (tokenizer.encode(text.slice(0, ends[mid]), { add_special_tokens: false }).ids.length <= keep) {
      best = ends[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
