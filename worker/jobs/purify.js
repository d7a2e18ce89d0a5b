// @ts-check
// The purify job (op purify.run): one training file cleaned of the eval set's n-grams, as
// `evalsieve purify` cleans it, with the same Python (py/evalsieve/purify_page.py drives the
// CLI's walkers). Passes, as in the CLI:
//   scan    the contamination job's eval pass and training pass (cont.*, the prefilter in
//           front; purify.begin makes the scan list the records holding an eval n-gram),
//           cont.finish, then purify.plan: the counted n-grams and the records to change;
//   write   the file read again, every block through purify.feed into the sink
//           (jobs/purify-write.js: File System Access or a Blob);
//   check   full: the written file read back through the same training pass into
//           purify.check's scan; changed: Python alone; purify.finish: the verdict (a row it
//           was asked to clean still contaminated is an error), report, summary, stamp.

import { ERR, OP, STAGE, ProtocolError } from '../protocol.js';
import { readHead } from '../files.js';
import { bridge, getRuntime } from '../runtime.js';
import { assetsFrom } from '../assets.js';
import { SETTINGS } from '../settings.js';
import { isGzip } from '../magic.js';
import { loadKernel } from '../prefilter-wasm.js';
import { isParquet } from '../parquet.js';
import { readWithProgress, requireFile, utcNow } from './common.js';
import { feedParquet } from './parquet-input.js';
import { trainingPass } from './contamination.js';
import { openSink, tooLargeForBlob, writePass } from './purify-write.js';

/**
 * args: {eval: {name?, format, fields}, train: {name?, format, fields}, n?, boilerplate?,
 * threshold? (the contamination run's rule settings), purify: {mode?, radius?, min_piece?,
 * max_splits?, rows?, self_check?} (Python's defaults for those missing), save?: a
 * FileSystemFileHandle to write the cleaned file into (else it is built in a Blob, at most
 * SETTINGS.purifyBlobMaxBytes)}; files: {eval, train}.
 * Refused (bad_input, before any pass): a corpus of several training files, a Parquet
 * training file, a training file over the Blob limit without `save`.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').PurifyResult>}
 */
export async function purify(ctx, args, files) {
  loadKernel().catch(() => {}); // compiled during the eval pass (contamination.js says why)
  const evalFile = requireFile(files, 'eval');
  const trainFile = requireFile(files, 'train');
  const bad = (/** @type {string} */ m, /** @type {string} */ expected) => new ProtocolError(ERR.BAD_INPUT, m, { file: trainFile.name, expected });
  if (Array.isArray(args.train_files) && args.train_files.length > 1) {
    throw bad(`the page cleans one training file; this run has ${args.train_files.length}`, 'one training file, or `evalsieve purify EVAL TRAIN... --out DIR` for a corpus');
  }
  if (await isParquet(trainFile)) {
    throw bad('the page does not clean Parquet training files (it cannot write them back row group by row group as the CLI does)', 'JSONL, CSV, TSV or text (.gz works), or `evalsieve purify` for Parquet');
  }
  const gzip = await isGzip(trainFile);
  if (!args.save && !gzip && trainFile.size > SETTINGS.purifyBlobMaxBytes) throw tooLargeForBlob(trainFile.name, trainFile.size);
  const evalParquet = await isParquet(evalFile);
  const rule = {
    eval: { ...args.eval, name: (args.eval && args.eval.name) || evalFile.name },
    train: { ...args.train, name: (args.train && args.train.name) || trainFile.name },
    n: args.n ?? null, boilerplate: args.boilerplate ?? true, threshold: args.threshold ?? null,
    // the n-gram rung's rule only: eval.clean's settings and the other rungs play no part
    clean: 'scored', semantic: null, exclude_rungs: null, skip_bad_lines: false,
  };
  const t0 = performance.now();
  const { handle } = bridge(OP.CONT_START, rule);
  /** @type {number[]} */
  const handles = [handle];
  /** @type {import('./purify-write.js').Sink | null} */
  let sink = null;
  let closed = false;
  try {
    ctx.log(`purify: eval pass, reading ${evalFile.name}`);
    const evalInput = evalParquet
      ? await feedParquet(ctx, STAGE.EVAL, evalFile, rule.eval.fields, (rows) => bridge(OP.CONT_FEED_EVAL_VALUES, { handle }, JSON.stringify(rows)))
      : await readWithProgress(ctx, STAGE.EVAL, evalFile, (text) => bridge(OP.CONT_FEED_EVAL, { handle }, text), { keepBom: true });
    bridge(OP.CONT_BACKGROUND, { handle }, (await readHead(trainFile, { maxChars: SETTINGS.headChars, keepBom: true })).text);
    const evalInfo = bridge(OP.CONT_END_EVAL, { handle });
    ctx.log(`purify: eval pass done: ${evalInfo.rows} rows, ${evalInfo.rows_scorable} scorable; N = ${evalInfo.n} (${evalInfo.n_how})`, { kind: 'n_chosen', ...evalInfo });
    bridge(OP.PURIFY_BEGIN, { handle });
    ctx.throwIfCancelled();

    ctx.log(`purify: scan, reading ${trainFile.name}`);
    const t1 = performance.now();
    const { input } = await trainingPass(ctx, handle, trainFile, null);
    const environment = { assets_from: assetsFrom() };
    const utc = utcNow();
    const evalStamp = { sha256: evalInput.sha256, bytes: evalInput.bytes };
    bridge(OP.CONT_FINISH, { handle, inputs: { eval: evalStamp, train: { sha256: input.sha256, bytes: input.bytes } }, utc, assets: getRuntime().assets, environment });
    const plan = bridge(OP.PURIFY_PLAN, {
      ...args.purify, handle, utc, assets: getRuntime().assets, environment,
      train: { name: rule.train.name, format: rule.train.format, fields: rule.train.fields, gzip: input.gzip, bytes: input.bytes, sha256: input.sha256 },
      eval: { name: rule.eval.name, format: `${rule.eval.format}${evalInput.gzip ? '+gzip' : ''}`, ...evalStamp },
    });
    handles.push(plan.handle);
    ctx.log(`purify: ${plan.records_to_change} of ${plan.records} training records hold one of the ${plan.ngrams_counted} counted n-grams (${plan.ngrams_boilerplate} boilerplate n-grams left alone)${plan.copy ? '; the file is copied as it is' : ''}`);
    ctx.throwIfCancelled();

    const t2 = performance.now();
    sink = await openSink(args.save || null, trainFile.name);
    const end = await writePass(ctx, plan.handle, plan, trainFile, input.gzip, sink);
    const written = await sink.close();
    closed = true;
    ctx.log(`purify: wrote ${trainFile.name} (${end.out_bytes} bytes, ${sink.kind === 'file' ? 'saved to the file you chose' : 'in memory'}): ${end.cut} records cut, ${end.dropped} dropped, ${end.records_out} written`);

    const t3 = performance.now();
    const check = bridge(OP.PURIFY_CHECK, { handle: plan.handle }).handle;
    if (check !== null) {
      handles.push(check);
      ctx.log('purify: self-check, rescanning the written file');
      /** @type {import('../dispatch.js').JobContext} the training pass's progress as stage `check` */
      const sub = { ...ctx, progress: (stage, done, total, unit, etaS) => ctx.progress(stage === STAGE.TRAIN ? STAGE.CHECK : stage, done, total, unit, etaS) };
      await trainingPass(sub, check, written, null);
    }
    const res = bridge(OP.PURIFY_FINISH, { handle: plan.handle, check });
    const c = res.summary.self_check;
    ctx.log(`purify: self-check (${c.mode}): ${c.rows_contaminated} eval rows still contaminated, ${c.rows_asked_contaminated} of the ${c.rows_asked} it was asked to clean`);
    return {
      summary: res.summary,
      exports: res.exports,
      output: { name: trainFile.name, bytes: end.out_bytes, sha256: end.out_sha256, saved: sink.kind, ...(sink.kind === 'blob' ? { blob: written } : {}) },
      inputs: {
        eval: { name: evalFile.name, sha256: evalInput.sha256, bytes: evalInput.bytes, gzip: evalInput.gzip },
        train: { name: trainFile.name, sha256: input.sha256, bytes: input.bytes, gzip: input.gzip },
      },
      // seconds: the whole job; scan: its training pass to the plan; write; check: the self-check
      timing: { seconds: (performance.now() - t0) / 1000, scan: (t2 - t1) / 1000, write: (t3 - t2) / 1000, check: (performance.now() - t3) / 1000 },
    };
  } catch (e) {
    // nothing that looks complete stays: an open output is abandoned, a written one removed
    if (sink && !closed) await sink.abort();
    else if (sink && !(await sink.discard())) ctx.log(`purify: ${trainFile.name} was written but did not pass; delete it`);
    throw e;
  } finally {
    for (const h of handles) {
      try { bridge(OP.CLOSE, { handle: h }); } catch (e) { console.warn('close failed', e); }
    }
  }
}
