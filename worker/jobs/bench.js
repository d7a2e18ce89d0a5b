// @ts-check
// The benchmarks' ops: bench.read (the reading ceiling of a training pass) and bench.embed
// (the encoder alone). benchmarks/bench_contamination.py and bench_paraphrases_page.py.

import { forEachChunk } from '../files.js';
import { getRuntime } from '../runtime.js';
import { SETTINGS } from '../settings.js';
import { ensureEncoder } from '../embed/load.js';
import { embedRows } from '../embed/schedule.js';
import { requireFile } from './common.js';

/**
 * Read a file the way the training pass does (sha256, gunzip, UTF-8) and drop the text.
 * args: {role?}; files: {[role]: File}.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').ReadResult>}
 */
export async function read(ctx, args, files) {
  const file = requireFile(files, args.role || 'train');
  const t = performance.now();
  let chars = 0;
  const summary = await forEachChunk(file, { chunkChars: SETTINGS.chunkChars, onBytes: () => {}, isCancelled: ctx.isCancelled },
    (/** @type {string} */ text) => { chars += text.length; });
  return { ...summary, chars, seconds: (performance.now() - t) / 1000 };
}

/**
 * Time the encoder alone: args {texts, batch_size?, sort?, threads?}.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').EmbedResult>}
 */
export async function embed(ctx, args) {
  const enc = await ensureEncoder(ctx, args.threads);
  const texts = (args.texts || []).map(String);
  const r = await embedRows(enc.encoder, texts, {
    dim: getRuntime().constants.embedding_dims,
    batchSize: args.batch_size ?? SETTINGS.embedBatch,
    sort: args.sort ?? true,
    isCancelled: ctx.isCancelled,
    onProgress: (done, total, eta) => ctx.progress('embed', done, total, 'rows', eta),
  });
  return { rows: texts.length, seconds: r.seconds, rows_per_s: texts.length / r.seconds, truncated: r.truncated, threads: enc.threads, isolated: enc.isolated };
}
