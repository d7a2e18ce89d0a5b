// @ts-check
// The contamination job (op cont.run): the eval pass, then one training pass, through the
// Python bridge (cont.*), with the prefilter in front of Python for JSONL/text training files.

import { OP } from '../protocol.js';
import { isGzip, readHead } from '../files.js';
import { forEachByteChunk } from '../byte-chunks.js';
import { bridge, getRuntime } from '../runtime.js';
import { assetsFrom } from '../assets.js';
import { SETTINGS } from '../settings.js';
import { createScanQueue, startPrefilter } from '../prefilter-client.js';
import { loadKernel } from '../prefilter-wasm.js';
import { readWithProgress, requireFile, utcNow } from './common.js';
import { readScores, scoresLogText } from './scores.js';
import { ensureEncoder } from '../embed/load.js';
import { semanticRung } from './semantic.js';
import { corpusEntries, corpusPass, finishTrainInputs } from './contamination-corpus.js';
import { isParquet } from '../parquet.js';
import { feedParquet, jsonLines, parquetHead } from './parquet-input.js';
import { cleanParquetExport } from '../parquet-write.js';
import { holdContamination } from './contamination-held.js';

/**
 * Put the semantic rung's window scan of job `handle` in a kernel instance of its own (the
 * same prefilter.wasm; Python hands it its batches: evalsieve.semantic_kernel), before the
 * training pass. Returns the log line: where the scan runs (Python when the kernel does not
 * load or a row is code); the results are the same either way.
 * @param {number} handle @returns {Promise<string>}
 */
async function semanticKernel(handle) {
  let inst;
  try {
    inst = new WebAssembly.Instance(await loadKernel(), {});
  } catch (e) {
    return `semantic: the window scan runs in Python (the kernel did not load: ${e instanceof Error ? e.message : e})`;
  }
  const clock = () => performance.now() / 1000; // times the scan for the rung's log line
  const r = bridge(OP.CONT_SEMANTIC_KERNEL, { handle }, null, /** @type {any} */ ({ instance: inst, clock }));
  return r.kernel ? 'semantic: the window scan runs in the kernel' : `semantic: the window scan runs in Python (${r.why})`;
}

/**
 * args: {eval: {name?, format, fields}, train: {name?, format, fields}, n?, boilerplate?,
 * threshold?, clean?: 'scored' | 'not-contaminated', train_files?, scores?, semantic? (null: the rung is off; {window_words?,
 * candidates?, threshold?}), exclude_rungs? (null: every rung that ran), skip_bad_lines? (skip
 * malformed JSONL/CSV/TSV records: Python lists them in skipped-lines.csv), webgpu? ('any': the
 * semantic rung may embed on a software fallback WebGPU adapter too, embed/provider.js)}; files: {eval, train,
 * 'train.1', ..., scores?}: a corpus of several training files when train_files is given
 * (contamination-corpus.js). Bad settings are refused by cont.start, before any pass; a scores
 * file (jobs/scores.js) is attached by cont.scores before the eval pass. With the semantic rung
 * on, the training pass reads every record (no prefilter: cont.prefilter_spec is null) and
 * jobs/semantic.js runs before finish.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').ContaminationResult>}
 */
export async function contamination(ctx, args, files) {
  // the scan kernel compiles (once per thread) during the eval pass, so that this thread has
  // it for the chunks it scans itself; a failure is reported by the training pass's log
  loadKernel().catch(() => {});
  const evalFile = requireFile(files, 'eval');
  const trainFile = requireFile(files, 'train');
  const evalParquet = await isParquet(evalFile);
  const trainParquet = await isParquet(trainFile);
  const corpus = corpusEntries(args, files);
  const startArgs = {
    eval: { ...args.eval, name: (args.eval && args.eval.name) || evalFile.name },
    // A Parquet training file's rows go to Python as JSON Lines, so the prefilter reads them.
    train: { ...args.train, name: (args.train && args.train.name) || trainFile.name, ...(trainParquet ? { format: 'jsonl' } : {}) },
    n: args.n ?? null,
    boilerplate: args.boilerplate ?? true,
    threshold: args.threshold ?? null,
    clean: args.clean ?? 'scored',
    semantic: args.semantic ?? null,
    exclude_rungs: args.exclude_rungs ?? null,
    skip_bad_lines: Boolean(args.skip_bad_lines),
  };
  const { handle } = bridge(OP.CONT_START, startArgs);
  let held = false; // a finished run's handle stays alive (contamination-held.js)
  const t0 = performance.now();
  const encoderP = startArgs.semantic ? ensureEncoder(ctx) : null; // loads during the passes
  encoderP?.catch(() => {});
  try {
    const scores = await readScores(ctx, args, files);
    if (scores) ctx.log(scoresLogText(bridge(OP.CONT_SCORES, { handle, ...scores.args }, scores.text)));
    ctx.log(`eval pass: reading ${evalFile.name}`);
    const evalInput = evalParquet
      ? await feedParquet(ctx, 'eval', evalFile, startArgs.eval.fields, (rows) => bridge(OP.CONT_FEED_EVAL_VALUES, { handle }, JSON.stringify(rows)))
      : await readWithProgress(ctx, 'eval', evalFile, (text) => bridge(OP.CONT_FEED_EVAL, { handle }, text), { keepBom: true, skipBad: startArgs.skip_bad_lines });
    // A sample of the training file picks rare filter words for the Python scan (speed only).
    const trainHead = trainParquet
      ? { text: jsonLines(await parquetHead(trainFile)) }
      : await readHead(trainFile, { maxChars: SETTINGS.headChars, skipBad: startArgs.skip_bad_lines, keepBom: true });
    bridge(OP.CONT_BACKGROUND, { handle }, trainHead.text);
    const evalInfo = bridge(OP.CONT_END_EVAL, { handle });
    ctx.log(`eval pass done: ${evalInfo.rows} rows, ${evalInfo.rows_scorable} scorable, ${evalInfo.rows_too_short} too short; N = ${evalInfo.n} (${evalInfo.n_how})`, {
      kind: 'n_chosen', ...evalInfo,
    });
    if (startArgs.semantic) ctx.log(await semanticKernel(handle));
    ctx.throwIfCancelled();

    ctx.log(`training pass: reading ${trainFile.name}${trainFile.size ? ` (${(trainFile.size / 1e6).toFixed(1)} MB)` : ''}`);
    const idField = startArgs.train.id_field ? [startArgs.train.id_field] : []; // a Parquet file's id column is read too
    /** @type {import('./contamination-corpus.js').FilePass} */
    const pass = async (c, h, file, entry) => trainingPass(c, h, file, (await isParquet(file)) ? [...((entry && entry.fields) || startArgs.train.fields), ...idField] : null, startArgs.skip_bad_lines);
    const { input: trainInput, records, files: trainInputs } = await corpusPass(ctx, handle, corpus, pass);
    const mbps = trainInput.seconds > 0 ? trainInput.bytes / 1e6 / trainInput.seconds : null;
    ctx.log(`training pass done: ${records} records, ${trainInput.bytes} bytes${trainInput.gzip ? ' (gzip)' : ''}${mbps ? `, ${mbps.toFixed(1)} MB/s` : ''}`, {
      kind: 'train_done', records, bytes: trainInput.bytes, mbps,
    });
    ctx.throwIfCancelled();

    const sem = encoderP ? await semanticRung(ctx, handle, encoderP, { webgpu: args.webgpu }) : null;
    /** @type {import('../protocol.js').Environment} */
    const environment = { ...sem?.environment, assets_from: assetsFrom() };
    const summary = bridge(OP.CONT_FINISH, {
      handle,
      inputs: {
        eval: { sha256: evalInput.sha256, bytes: evalInput.bytes },
        train: finishTrainInputs(trainInputs),
      },
      utc: utcNow(),
      assets: { ...getRuntime().assets, ...sem?.assets },
      environment,
    });
    // every export, each built once; a Parquet eval file's clean file is written here
    const clean = await cleanParquetExport(ctx, evalFile, bridge(OP.CONT_EXPORTS, { handle }));
    const exports = clean.exports;
    // what the page shows; no CSV parsing there (its rows come page by page: cont.rows)
    const view = bridge(OP.CONT_VIEW, { handle, limit: 0 });
    holdContamination(handle, corpus.map((e) => e.file)); // cont.rows / cont.record until the next run
    held = true;
    ctx.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return {
      handle,
      summary,
      eval_info: evalInfo,
      exports,
      view,
      inputs: {
        eval: { name: evalFile.name, sha256: evalInput.sha256, bytes: evalInput.bytes, gzip: evalInput.gzip },
        train: { name: corpus.length > 1 ? `${corpus.length} files` : trainFile.name, sha256: trainInput.sha256, bytes: trainInput.bytes, gzip: trainInput.gzip },
        ...(corpus.length > 1 ? { train_files: trainInputs.map((f) => ({ name: f.name, sha256: f.sha256, bytes: f.bytes, gzip: f.gzip, format: f.format })) } : {}),
        ...(scores ? { scores: scores.input } : {}),
      },
      timing: { seconds: (performance.now() - t0) / 1000, train_mbps: mbps, ...(sem && { semantic_seconds: sem.seconds }) },
      environment,
      // a Parquet eval file whose types the page cannot write: the kept row numbers instead
      ...(clean.parquet_kept ? { parquet_kept: clean.parquet_kept } : {}),
    };
  } finally {
    if (!held) {
      try { bridge(OP.CLOSE, { handle }); } catch (e) { console.warn('close failed', e); }
    }
  }
}

/**
 * The training pass. JSONL/text training files go through the prefilter: only records that
 * may hold an eval n-gram (or that it cannot read exactly) cross into Python, which keeps the
 * rule. Reading (this thread) and filtering (a pool of prefilter-worker.js, one per spare
 * core) overlap; at most SETTINGS.prefilterInflight chunks per worker (and one more) wait
 * between them, and this thread scans a chunk itself when the workers are behind. A Parquet training file
 * (`parquetFields`: the chosen fields) is read row group by row group and its rows handed on
 * as JSON Lines (record i = row i), so the same prefilter and rule apply.
 * @param {import('../dispatch.js').JobContext} ctx @param {number} handle @param {File} trainFile
 * @param {string[] | null} parquetFields @param {boolean} [skipBad] (read without the
 * prefilter: lines that are not UTF-8 reach Python as malformed records; default off)
 */
export async function trainingPass(ctx, handle, trainFile, parquetFields, skipBad = false) {
  // with the prefilter, a text file is read as bytes (the filter workers decode them)
  const read = (/** @type {(data: any) => unknown} */ onData, /** @type {((n: number) => Uint8Array) | null} */ alloc = null) => (parquetFields
    ? feedParquet(ctx, 'train', trainFile, parquetFields, (rows) => onData(jsonLines(rows)))
    : alloc ? forEachByteChunk(ctx, 'train', trainFile, onData, SETTINGS.chunkChars, alloc) : readWithProgress(ctx, 'train', trainFile, onData, { skipBad, keepBom: true }));
  let records = 0;
  const spec = bridge(OP.CONT_PREFILTER_SPEC, { handle });
  if (!spec) {
    const input = await read((/** @type {string} */ text) => {
      records = bridge(OP.CONT_FEED_TRAIN, { handle }, text).records ?? records;
    });
    return { input, records };
  }
  const filter = startPrefilter(spec, { file: trainFile.name, gzip: !parquetFields && await isGzip(trainFile) });
  let candidates = 0;
  let total = 0;
  let chars = 0;
  const spent = { waitedMs: 0, python: 0, push: 0, post: 0 };
  const queue = createScanQueue((data) => {
    const t1 = performance.now();
    const p = filter.scan(data); // moves the chunk's bytes to a worker, or scans it here
    spent.post += performance.now() - t1;
    return p;
  }, (r) => {
    const t1 = performance.now();
    candidates += r.records.length;
    total = r.records_total;
    chars += r.chars;
    const v = bridge(OP.CONT_FEED_CANDIDATES, {
      handle, records: r.records, lines: r.lines, records_total: r.records_total, chars: r.chars, offsets: r.offsets,
    }, r.text);
    spent.python += performance.now() - t1;
    records = v.records ?? records;
  }, SETTINGS.prefilterInflight * Math.max(1, filter.workers) + 1, spent);
  const push = async (/** @type {string | Uint8Array} */ data) => {
    const t1 = performance.now();
    await queue.push(data);
    spent.push += performance.now() - t1;
  };
  let input;
  let workers = 0;
  let readerMs = 0;
  let kernels = { wasm: 0, js: 0, notes: /** @type {string[]} */ ([]) };
  try {
    const t0 = performance.now();
    input = await read(push, filter.buffer); // byte chunks in buffers the scans hand back
    await queue.drain();
    // the pass ends when the last candidate has reached Python (the reader's own seconds
    // stop at its last chunk, before the chunks still in the pipeline)
    readerMs = input.seconds * 1000;
    input = { ...input, chars, seconds: (performance.now() - t0) / 1000 };
    workers = filter.workers; // before close(), which ends the pool
    kernels = filter.kernels;
  } finally {
    queue.abandon(); // a cancelled or failed pass leaves these unread (their rejections are handled)
    filter.close();
  }
  ctx.log(`prefilter${workers ? ` (${workers} worker${workers > 1 ? 's' : ''} and this thread)` : ''}: ${candidates} of ${total} training records passed to Python for the exact check; ${kernelText(kernels)}; ${/** @type {any} */ (input).hash_note || 'sha256 on a worker of its own'}`, {
    kind: 'prefilter', candidates, records: total, threaded: workers > 0, workers,
    kernel_wasm: kernels.wasm, kernel_js: kernels.js, kernel_notes: kernels.notes,
    python_ms: Math.round(spent.python), waiting_for_filter_ms: Math.round(spent.waitedMs),
    // where the time went (the benchmark prints it): reading = the pass minus the pipeline
    read_ms: Math.round(readerMs - spent.push), post_ms: Math.round(spent.post - filter.inlineMs),
    filter_ms: Math.round(filter.filterMs), inline_ms: Math.round(filter.inlineMs), ...readMs(input),
  });
  return { input, records };
}

/** Which scanner read the chunks, in words (never a silent fallback to prefilter.js). */
const kernelText = (/** @type {{wasm: number, js: number, notes: string[]}} */ k) => (k.js === 0
  ? `scanned by the WebAssembly kernel (${k.wasm} chunks)`
  : `${k.wasm} chunks scanned by the WebAssembly kernel, ${k.js} by the JavaScript scan${k.notes.length ? ` (${k.notes.join('; ')})` : ' (text rows)'}`);

/** The reader's hashing and decoding ms (a Parquet file's reader does not split them: 0);
 *  hash_worker_ms: the hashing worker's (hash-offload.js); hash_note: why it hashed here. */
const readMs = (/** @type {Record<string, any>} */ r) => ({
  hash_ms: Math.round(r.hash_ms ?? 0), decode_ms: Math.round(r.decode_ms ?? 0),
  hash_worker_ms: Math.round(r.hash_worker_ms ?? 0), ...(r.hash_note ? { hash_note: r.hash_note } : {}),
});
