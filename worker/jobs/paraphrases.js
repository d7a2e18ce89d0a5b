// @ts-check
// The paraphrase job (op para.run) and the ops on its held result: para.group (the slider),
// para.exports, para.example, para.close. Python (para.*) reads, groups and exports; this
// module embeds (embed/) and tiles the cosines (embed/similarity.js).

import { ERR, OP, ProtocolError } from '../protocol.js';
import { yieldToEventLoop } from '../files.js';
import { bridge, getRuntime } from '../runtime.js';
import { assetsFrom } from '../assets.js';
import { SETTINGS } from '../settings.js';
import { ensureEncoder } from '../embed/load.js';
import { embedPicked, pickEncoder } from '../embed/pick.js';
import { embedRows } from '../embed/schedule.js';
import { packSimilarity, similarity } from '../embed/similarity.js';
import { readWithProgress, requireFile, utcNow } from './common.js';
import { isParquet } from '../parquet.js';
import { feedParquet } from './parquet-input.js';
import { readScores, scoresLogText } from './scores.js';
import { cleanParquetExport } from '../parquet-write.js';

/** @type {Map<number, {file: File, input: import('../protocol.js').InputInfo, assets: Record<string, any>, environment: import('../protocol.js').Environment}>} bridge handle -> a finished run */
const held = new Map();

/** @param {number} handle */
function closeHeld(handle) {
  if (!held.has(handle)) return;
  held.delete(handle);
  try { bridge(OP.CLOSE, { handle }); } catch (e) { console.warn('close failed', e); }
}

/** @param {number} handle */
function requireHeld(handle) {
  const job = held.get(handle);
  if (!job) {
    throw new ProtocolError(ERR.BAD_INPUT, 'this paraphrase result is no longer held by the worker; run again', { expected: 'the handle of the last successful run' });
  }
  return job;
}

/**
 * Read the eval file, embed its rows, tile the cosines, group.
 *
 * args: {eval: {name, format, field, fields? (several: embedded together), label_field}, threshold?, batch_size?, sort?,
 *   max_seconds?, threads? (first encoder use only), webgpu? ('any': also a software fallback
 *   adapter, embed/provider.js), scores?, skip_bad_lines? (skip malformed
 *   JSONL/CSV/TSV records: Python counts them and lists them in skipped-lines.csv)};
 *   files: {eval: File, scores?: File}
 *   (the scores go to para.scores before the eval pass, which keeps the raw rows for the join).
 * The job stays alive for para.group / para.exports until the next successful run (older
 * jobs are closed then) or para.close.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').ParaphrasesResult>}
 */
export async function paraphrases(ctx, args, files) {
  const file = requireFile(files, 'eval');
  const ev = args.eval || {};
  const K = getRuntime().constants;
  const threshold = args.threshold ?? K.para_threshold_default;
  const { handle } = bridge(OP.PARA_START, {
    eval: { name: ev.name || file.name, format: ev.format, field: ev.field, ...(Array.isArray(ev.fields) ? { fields: ev.fields } : {}), label_field: ev.label_field || null },
    threshold, floor: K.para_floor, window: K.para_window, skip_bad_lines: Boolean(args.skip_bad_lines),
  });
  let kept = false;
  const t0 = performance.now();
  try {
    const encP = ensureEncoder(ctx, args.threads); // loads while the file is read
    encP.catch(() => {});
    const scores = await readScores(ctx, args, files);
    if (scores) ctx.log(scoresLogText(bridge(OP.PARA_SCORES, { handle, ...scores.args }, scores.text)));
    const input = (await isParquet(file))
      ? await feedParquet(ctx, 'read', file, [...(Array.isArray(ev.fields) ? ev.fields : [ev.field]), ev.label_field].filter(Boolean), (rows) => bridge(OP.PARA_FEED_EVAL_VALUES, { handle }, JSON.stringify(rows)))
      : await readWithProgress(ctx, 'read', file, (text) => bridge(OP.PARA_FEED_EVAL, { handle }, text), { keepBom: true, skipBad: Boolean(args.skip_bad_lines) });
    const info = bridge(OP.PARA_END_EVAL, { handle });
    const texts = info.texts;
    if (info.skipped_lines) ctx.log(`${file.name}: ${info.skipped_lines[ev.name || file.name] ?? 0} malformed lines skipped`);
    ctx.log(`${file.name}: ${texts.length} rows to embed${info.rows_empty ? `, ${info.rows_empty} with an empty field` : ''}`, { kind: 'para_rows', rows: texts.length, rows_empty: info.rows_empty });
    const enc = await encP;
    ctx.throwIfCancelled();
    ctx.log(`encoder ready (${enc.threads} thread${enc.threads === 1 ? '' : 's'}${enc.isolated ? '' : ', not cross-origin isolated'}, loaded in ${enc.seconds.toFixed(1)} s)`);
    // WebGPU only after a sample of these rows agrees with WASM (embed/provider.js)
    const picked = await pickEncoder(ctx, enc, texts, args.webgpu === 'any');
    const embedded = await embedPicked(ctx, picked, enc, (rows) => embedRows(rows, texts, {
      dim: K.embedding_dims,
      batchSize: args.batch_size ?? SETTINGS.embedBatch,
      sort: args.sort ?? true,
      maxSeconds: args.max_seconds ?? SETTINGS.embedMaxSeconds,
      isCancelled: ctx.isCancelled,
      onProgress: (done, total, eta) => ctx.progress('embed', done, total, 'rows', eta),
      onEstimate: (e) => ctx.log(`estimate: about ${Math.max(1, Math.round(e.seconds))} s to embed ${texts.length} rows (first batch ${e.rows_per_s_first_batch.toFixed(0)} rows/s)`, { kind: 'estimate', ...e }),
    }));
    const nBlocks = Math.ceil(texts.length / SETTINGS.tileRows);
    const tiles = (nBlocks * (nBlocks + 1)) / 2;
    const tSim = performance.now();
    const sim = await similarity(embedded.embeddings, texts.length, enc.encoder.tile, K.para_floor, {
      block: SETTINGS.tileRows,
      onBlock: async (/** @type {number} */ done) => {
        ctx.progress('tiles', done, tiles, 'tiles');
        ctx.throwIfCancelled();
        await yieldToEventLoop();
      },
    });
    const simSeconds = (performance.now() - tSim) / 1000;
    const figures = bridge(OP.PARA_SIMILARITY, {
      handle, rows: texts.length, pairs: sim.I.length, truncated: embedded.truncated, cuts: embedded.cuts,
      embeddings: true, model: { model_sha256: enc.modelSha256 }, threshold,
    }, null, packSimilarity(sim, embedded.embeddings));
    const inputInfo = { name: file.name, sha256: input.sha256, bytes: input.bytes, format: ev.format, gzip: input.gzip };
    ctx.throwIfCancelled();
    /** @type {import('../protocol.js').Environment} */
    const environment = {
      assets_from: assetsFrom(), threads: enc.threads, cross_origin_isolated: enc.isolated,
      hardware_concurrency: navigator.hardwareConcurrency || 1, ...picked.environment,
    };
    held.set(handle, { file, input: inputInfo, assets: { ...getRuntime().assets, ...enc.assets, ...picked.assets }, environment });
    kept = true;
    for (const h of [...held.keys()]) if (h !== handle) closeHeld(h);
    const seconds = (performance.now() - t0) / 1000;
    ctx.log(`embedded ${texts.length} rows in ${embedded.seconds.toFixed(1)} s (${(texts.length / embedded.seconds).toFixed(0)} rows/s), ${sim.I.length} pairs ≥ ${K.para_floor} in ${simSeconds.toFixed(2)} s; done in ${seconds.toFixed(1)} s`);
    return {
      handle,
      figures,
      eval_info: { rows: info.rows, rows_empty: info.rows_empty, ...(info.skipped_lines ? { skipped_lines: info.skipped_lines } : {}) },
      input: inputInfo,
      encoder: { threads: enc.threads, isolated: enc.isolated, model_sha256: enc.modelSha256 },
      environment,
      timing: { seconds, embed_seconds: embedded.seconds, rows_per_s: texts.length / embedded.seconds, similarity_seconds: simSeconds, estimate: embedded.estimate },
    };
  } finally {
    if (!kept) {
      try { bridge(OP.CLOSE, { handle }); } catch (e) { console.warn('close failed', e); }
    }
  }
}

/**
 * The slider: regroup the held job at args.threshold (no re-embedding).
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').ParaGroupResult>}
 */
export async function paraGroup(ctx, args) {
  requireHeld(args.handle);
  const t = performance.now();
  const figures = bridge(OP.PARA_GROUP, { handle: args.handle, threshold: args.threshold });
  return { figures, ms: performance.now() - t };
}

/**
 * Stamp + exports of the held job at args.threshold (the threshold the page's figures show;
 * para.finish regroups at it when the held grouping is at another one) and args.keep (the
 * row a group keeps in eval.deduplicated.*).
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').ParaExportsResult>}
 */
export async function paraExports(ctx, args) {
  const job = requireHeld(args.handle);
  const v = bridge(OP.PARA_FINISH, { handle: args.handle, threshold: args.threshold, keep: args.keep || 'first', input: job.input, utc: utcNow(), assets: job.assets, environment: job.environment });
  // a Parquet eval file's eval.deduplicated.parquet is written here, as eval.clean.parquet is
  const written = await cleanParquetExport(ctx, job.file, v.exports);
  return { ...v, exports: written.exports, ...(written.parquet_kept ? { parquet_kept: written.parquet_kept } : {}) };
}

/** @type {import('../dispatch.js').Op} @returns {Promise<import('../protocol.js').ParaExampleResult>} */
export async function paraExample() {
  return bridge(OP.PARA_EXAMPLE, {});
}

/**
 * One page of the held job's pairs or groups: args {handle, table: 'pairs' | 'groups',
 * threshold, where?, range?, query?, sort?, offset?, limit?} (py/evalsieve/para_table.py).
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').RowsPage>}
 */
export async function paraRows(ctx, args) {
  requireHeld(args.handle);
  return bridge(OP.PARA_ROWS, args);
}

/** @type {import('../dispatch.js').Op} */
export async function paraClose(ctx, args) {
  closeHeld(args.handle);
  return {};
}
