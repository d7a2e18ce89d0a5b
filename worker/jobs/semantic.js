// @ts-check
// The contamination job's semantic rung in the page: after the training pass, Python's
// candidate stage says which eval rows and training windows to embed and which (row, window)
// pairs to score (cont.semantic_request); the encoder (embed/) embeds them here, the pair
// cosines are dot products of unit vectors, and they go back to Python as one float32 block
// (cont.semantic_cosines), which runs the verifier. WebGPU (encoder-fp32.onnx) embeds them
// when embed/provider.js trusts it on a sample of these texts (embed/pick.js), as for
// paraphrases but with a tighter check (RUNG_MIN_AGREEMENT); else WASM, the CLI's int8 graph.

import { OP } from '../protocol.js';
import { bridge, getRuntime } from '../runtime.js';
import { SETTINGS } from '../settings.js';
import { embedRows } from '../embed/schedule.js';
import { embedPicked, pickEncoder } from '../embed/pick.js';

/** The sample check for the rung (embed/provider.js): each sample text's WebGPU and WASM vectors
 * within this cosine, so that a pair's cosine, which the verifier (fitted on the int8 graph's)
 * reads, moves by at most about 2·sqrt(2·(1 − this)) ≈ 0.009; paraphrases ask 0.999. */
export const RUNG_MIN_AGREEMENT = 0.99999;

/**
 * What to embed for a semantic request: only the eval texts (probes of the eval rows, and
 * docstrings of code probes) that have a pair (a text's vector does not depend on its
 * batch-mates, embed/encoder.js, so this changes no cosine), then every span.
 * @param {{eval_texts: string[], window_texts: string[], pairs: [number, number][]}} req
 * @returns {{rows: number[], slot: Int32Array, texts: string[]}}  rows: eval rows embedded, in
 *   row order; slot[row] = the row's position in `texts` (-1: not embedded); texts: those
 *   rows' texts then the windows' (window j at rows.length + j)
 */
export function embeddingPlan(req) {
  const slot = new Int32Array(req.eval_texts.length).fill(-1);
  for (const [i] of req.pairs) slot[i] = 0;
  const rows = /** @type {number[]} */ ([]);
  slot.forEach((v, i) => { if (v === 0) { slot[i] = rows.length; rows.push(i); } });
  return { rows, slot, texts: [...rows.map((i) => req.eval_texts[i]), ...req.window_texts] };
}

/**
 * The cosine of each (row, window) pair: the dot product of the two unit vectors.
 * @param {Float32Array} embeddings  row-major texts x dim (embeddingPlan's texts, in order)
 * @param {{rows: number[], slot: Int32Array}} plan
 * @param {[number, number][]} pairs  (eval row, window) indices of the request
 * @param {number} dim
 * @returns {Float32Array}  one cosine per pair, in the request's order
 */
export function pairCosines(embeddings, plan, pairs, dim) {
  const out = new Float32Array(pairs.length);
  const base = plan.rows.length;
  pairs.forEach(([i, j], p) => {
    const a = plan.slot[i] * dim;
    const b = (base + j) * dim;
    let s = 0;
    for (let k = 0; k < dim; k++) s += embeddings[a + k] * embeddings[b + k];
    out[p] = s;
  });
  return out;
}

/**
 * Run the semantic rung of contamination job `handle` (its training pass read every record).
 *
 * Logs the candidate stage (kind `semantic`: windows scanned and let through, texts to
 * embed), then after the first batch the time estimate (kind `estimate`); an estimate over
 * SETTINGS.embedMaxSeconds is refused with bad_input pointing to the CLI's --semantic.
 * Progress: stage `embed` in rows (texts), with eta_s.
 *
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {number} handle  a cont.start handle whose settings have `semantic`
 * @param {Promise<import('../embed/load.js').LoadedEncoder>} encoderP  started early by the job
 * @param {{webgpu?: string}} [opts]  webgpu 'any': also a software fallback WebGPU adapter
 * @returns {Promise<{assets: Record<string, any>, environment: Partial<import('../protocol.js').Environment>, seconds: number, rows_caught: number}>}
 *   assets: the encoder's files and the rung's figures for the stamp (as the CLI's
 *   `_semantic_rung` stamps them; with WebGPU also its files); environment: threads and the
 *   execution provider (embed/pick.js)
 */
export async function semanticRung(ctx, handle, encoderP, opts = {}) {
  const t0 = performance.now();
  const dim = getRuntime().constants.embedding_dims;
  /** @type {import('../protocol.js').SemanticRequest} */
  const req = bridge(OP.CONT_SEMANTIC_REQUEST, { handle });
  const f = req.figures;
  const plan = embeddingPlan(req);
  const share = f.windows ? f.windows_embedded / f.windows : 0;
  ctx.log(`semantic rung: ${f.windows} windows of ${f.window_words} words (window scan ${req.scan_seconds.toFixed(1)} s); the candidate stage lets ${f.windows_embedded} spans through (${(100 * share).toFixed(1)}%); embedding them and ${plan.rows.length} eval texts (${f.probes} probes of the eval rows, and docstrings)`, {
    kind: 'semantic', windows: f.windows, windows_embedded: f.windows_embedded, window_words: f.window_words,
    eval_rows: plan.rows.length, texts: plan.texts.length, pairs: req.pairs.length, scan_seconds: req.scan_seconds,
  });
  if (!req.pairs.length) { // no window shares a key term with any row: nothing to embed
    bridge(OP.CONT_SEMANTIC_COSINES, { handle, pairs: 0 }, null, new Uint8Array(0));
    return { assets: {}, environment: {}, seconds: (performance.now() - t0) / 1000, rows_caught: 0 };
  }
  const enc = await encoderP;
  ctx.throwIfCancelled();
  ctx.log(`encoder ready (${enc.threads} thread${enc.threads === 1 ? '' : 's'}${enc.isolated ? '' : ', not cross-origin isolated'})`);
  const picked = await pickEncoder(ctx, enc, plan.texts, opts.webgpu === 'any', RUNG_MIN_AGREEMENT);
  const embedded = await embedPicked(ctx, picked, enc, (rows) => embedRows(rows, plan.texts, {
    dim,
    batchSize: SETTINGS.embedBatch,
    maxSeconds: SETTINGS.embedMaxSeconds,
    isCancelled: ctx.isCancelled,
    onProgress: (done, total, eta) => ctx.progress('embed', done, total, 'rows', eta),
    onEstimate: (e) => ctx.log(`estimate: about ${Math.max(1, Math.round(e.seconds))} s to embed ${plan.texts.length} texts for the semantic rung (first batch ${e.rows_per_s_first_batch.toFixed(0)} texts/s)`, { kind: 'estimate', ...e }),
    refusal: { what: 'texts for the semantic rung', cli: 'the command line: evalsieve contamination EVAL TRAIN --semantic --out DIR (same encoder, same report, every core)' },
  }));
  const gpu = picked.webgpu; // null when WASM embedded the texts (chosen, or after a WebGPU failure)
  ctx.throwIfCancelled();
  const cos = pairCosines(embedded.embeddings, plan, req.pairs, dim);
  const v = bridge(OP.CONT_SEMANTIC_COSINES, { handle, pairs: cos.length }, null,
    new Uint8Array(cos.buffer, cos.byteOffset, cos.byteLength));
  const seconds = (performance.now() - t0) / 1000;
  ctx.log(`semantic rung: embedded ${plan.texts.length} texts in ${embedded.seconds.toFixed(1)} s (${(plan.texts.length / Math.max(embedded.seconds, 1e-9)).toFixed(0)} texts/s); ${v.rows_caught} rows at or over the verifier's threshold`);
  return {
    assets: { // the CLI's keys (cli.py _semantic_rung) beside the encoder's files
      ...enc.assets, ...picked.assets,
      ...(gpu
        ? { encoder: 'all-MiniLM-L6-v2 fp32 (encoder-fp32.onnx)', encoder_sha256: gpu.modelSha256 || null }
        : { encoder: 'all-MiniLM-L6-v2 int8 (encoder.onnx)', encoder_sha256: enc.modelSha256 || null }),
      encoder_provider: picked.choice.provider, semantic_windows_truncated: embedded.truncated,
    },
    environment: {
      threads: enc.threads, cross_origin_isolated: enc.isolated,
      hardware_concurrency: navigator.hardwareConcurrency || 1, ...picked.environment,
    },
    seconds,
    rows_caught: v.rows_caught,
  };
}
