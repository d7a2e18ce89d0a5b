// @ts-check
// Embedding scheduling, in one place: every row is tokenised once, rows run longest first in
// batches, vectors come back in input order, progress and the time left are reported per
// batch, and a run whose first-batch estimate is too long is refused early.

import { ERR, ProtocolError } from '../protocol.js';
import { yieldToEventLoop } from '../files.js';

/**
 * @typedef {{tokenize: (texts: string[]) => {ids: number[][], truncated: number, cuts?: [number, number][]},
 *   encodeIds: (ids: number[][]) => Promise<{embeddings: Float32Array}>}} RowEncoder
 */

/**
 * Row order for embedding: longest first (by word pieces), ties by row, so a batch holds
 * rows of similar length. The vectors do not depend on the order (encoder.js); rows are put
 * back in input order.
 * @param {number[]} lengths  word pieces per row
 * @param {boolean} sort  false keeps input order
 * @returns {number[]} row indices
 */
export function embeddingOrder(lengths, sort = true) {
  const order = lengths.map((_, i) => i);
  if (sort) order.sort((a, b) => lengths[b] - lengths[a] || a - b);
  return order;
}

/**
 * The padded work of embedding rows in `order` in batches of `batchSize`: sum over batches of
 * rows x widest row. Turns the speed of the first batch into an estimate for the rest (cost
 * grows with padded pieces, not with rows).
 * @param {number[]} lengths @param {number[]} order @param {number} batchSize
 * @returns {number[]} cumulative padded pieces after each batch
 */
export function batchCosts(lengths, order, batchSize) {
  const out = [];
  let total = 0;
  for (let s = 0; s < order.length; s += batchSize) {
    const rows = order.slice(s, s + batchSize);
    let w = 0;
    for (const i of rows) w = Math.max(w, lengths[i]);
    total += rows.length * w;
    out.push(total);
  }
  return out;
}

const PARAPHRASE_REFUSAL = Object.freeze({ what: 'rows', cli: 'the command line: evalsieve paraphrases FILE --out DIR (same model, same exports, native speed)' });

/**
 * Embed `texts`: tokenise each once, run batches of `batchSize` rows (longest first when
 * `sort`), put the vectors back in input order.
 *
 * Between batches: cancellation, progress (rows done of n, seconds left), a yield to the
 * event loop. After the first batch the time left is estimated from its speed per padded
 * word piece; an estimate over `maxSeconds` is refused (bad_input, pointing at the CLI).
 *
 * @param {RowEncoder} encoder
 * @param {string[]} texts
 * @param {object} o
 * @param {number} o.dim  floats per vector (constants.embedding_dims)
 * @param {number} o.batchSize
 * @param {boolean} [o.sort]
 * @param {number} [o.maxSeconds]
 * @param {() => boolean} [o.isCancelled]
 * @param {(done: number, total: number, etaS: number | null) => void} [o.onProgress]  first (0, n, null), last (n, n, ...)
 * @param {(e: {seconds: number, rows_per_s_first_batch: number}) => void} [o.onEstimate]
 * @param {{what: string, cli: string}} [o.refusal]  the refusal's words: what is embedded, and
 *   the command that does it natively (default: rows, `evalsieve paraphrases`)
 * @returns {Promise<{embeddings: Float32Array, truncated: number, cuts: [number, number][], seconds: number,
 *   estimate: {seconds: number, rows_per_s_first_batch: number} | null}>}  embeddings: n x dim, row-major
 */
export async function embedRows(encoder, texts, { dim, batchSize, sort = true, maxSeconds = Infinity, isCancelled = () => false, onProgress = () => {}, onEstimate = () => {}, refusal = PARAPHRASE_REFUSAL }) {
  const n = texts.length;
  const tok = encoder.tokenize(texts); // the only tokenisation of these rows
  const lengths = tok.ids.map((x) => x.length);
  const order = embeddingOrder(lengths, sort);
  const costs = batchCosts(lengths, order, batchSize);
  const embeddings = new Float32Array(n * dim);
  const t0 = performance.now();
  let estimate = null;
  onProgress(0, n, null);
  for (let b = 0, s = 0; s < n; b++, s += batchSize) {
    if (isCancelled()) throw new ProtocolError(ERR.CANCELLED, 'cancelled');
    const rows = order.slice(s, s + batchSize);
    const out = await encoder.encodeIds(rows.map((i) => tok.ids[i]));
    rows.forEach((i, r) => embeddings.set(out.embeddings.subarray(r * dim, (r + 1) * dim), i * dim));
    const secs = (performance.now() - t0) / 1000;
    const eta = (secs / costs[b]) * (costs[costs.length - 1] - costs[b]);
    if (b === 0) {
      estimate = { seconds: secs + eta, rows_per_s_first_batch: rows.length / secs };
      onEstimate(estimate);
      if (estimate.seconds > maxSeconds) {
        throw new ProtocolError(ERR.BAD_INPUT, `embedding ${n.toLocaleString('en-US')} ${refusal.what} would take about ${Math.round(estimate.seconds / 60)} minutes in this page (measured on the first batch); the limit here is ${Math.round(maxSeconds / 60)} minutes`, {
          expected: `a smaller eval set, or ${refusal.cli}`,
        });
      }
    }
    onProgress(Math.min(s + rows.length, n), n, eta);
    await yieldToEventLoop(); // let a `cancel` message in
  }
  // cuts: [row, UTF-16 offset in its text where the window ended] of each truncated row
  return { embeddings, truncated: tok.truncated, cuts: tok.cuts || [], seconds: (performance.now() - t0) / 1000, estimate };
}
