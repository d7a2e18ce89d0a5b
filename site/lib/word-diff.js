// @ts-check
// Which words of two texts differ: the pair views mark them (a paraphrase pair such as "Which
// of the following is true?" / "... is false?" then shows where the texts part). Pure;
// Node-tested in tests/js/site/word-diff.test.mjs.

const WORD = /\S+/g;
/** Past this many word pairs the longest common subsequence is not computed: the common
 *  first and last words are kept and the middle of each text is marked instead. */
const MAX_CELLS = 400_000;

/** @param {string} text @returns {{w: string, a: number, b: number}[]} words (lowercase) and their UTF-16 spans */
function words(text) {
  return [...text.matchAll(WORD)].map((m) => ({ w: m[0].toLowerCase(), a: m.index ?? 0, b: (m.index ?? 0) + m[0].length }));
}

/**
 * Spans [[start, end]] of the words not in `keep`, adjacent words merged (with the space between).
 * @param {{w: string, a: number, b: number}[]} ws @param {boolean[]} keep @returns {number[][]}
 */
function spansOf(ws, keep) {
  const out = /** @type {number[][]} */ ([]);
  ws.forEach((x, i) => {
    if (keep[i]) return;
    const last = out[out.length - 1];
    if (last && i > 0 && !keep[i - 1]) last[1] = x.b;
    else out.push([x.a, x.b]);
  });
  return out;
}

/**
 * The words of `a` and of `b` that are not in a longest common subsequence of their words
 * (compared lowercase; white space separates words).
 *
 * @param {string} a @param {string} b
 * @returns {{a: number[][], b: number[][]}} spans (UTF-16 offsets) to mark in each text
 *   Example: "Which of the following is true?" / "Which of the following is false?" ->
 *   a: [[26, 31]] ("true?"), b: [[26, 32]] ("false?").
 */
export function wordDiff(a, b) {
  const x = words(a), y = words(b);
  const keepX = new Array(x.length).fill(false), keepY = new Array(y.length).fill(false);
  let lo = 0;
  while (lo < x.length && lo < y.length && x[lo].w === y[lo].w) { keepX[lo] = keepY[lo] = true; lo++; }
  let hx = x.length, hy = y.length;
  while (hx > lo && hy > lo && x[hx - 1].w === y[hy - 1].w) { hx--; hy--; keepX[hx] = keepY[hy] = true; }
  const n = hx - lo, m = hy - lo;
  if (n > 0 && m > 0 && n * m <= MAX_CELLS) {
    // LCS lengths from the end: L[i][j] = LCS of x[lo+i..hx) and y[lo+j..hy)
    const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        L[i][j] = x[lo + i].w === y[lo + j].w ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
      }
    }
    for (let i = 0, j = 0; i < n && j < m;) {
      if (x[lo + i].w === y[lo + j].w) { keepX[lo + i] = keepY[lo + j] = true; i++; j++; } else if (L[i + 1][j] >= L[i][j + 1]) i++; else j++;
    }
  }
  return { a: spansOf(x, keepX), b: spansOf(y, keepY) };
}
