// @ts-check
// A training corpus of several files in the contamination job: the page's dropped
// files or folder, read one after another in the order given. Each file keeps its own
// format and fields; Python (cont.train_file, ContaminationJob.begin_train_file) numbers
// its records from 1, so a training record is (file, record number in that file), as in
// the CLI.

import { ERR, OP, ProtocolError } from '../protocol.js';
import { bridge } from '../runtime.js';
import { requireFile } from './common.js';

/**
 * @typedef {{file: File, name: string, format: string, fields: string[]}} CorpusEntry
 * @typedef {{sha256: string | null, bytes: number, gzip: boolean, seconds: number}} ReadSummary
 * @typedef {(ctx: import('../dispatch.js').JobContext, handle: number, file: File, entry: CorpusEntry) => Promise<{input: ReadSummary, records: number}>} FilePass
 */

/** The request's file key of corpus file `i`: 'train' for the first, then 'train.1', ... */
export const trainKey = (/** @type {number} */ i) => (i === 0 ? 'train' : `train.${i}`);

/**
 * The training files of a request, in corpus order.
 *
 * Without `args.train_files`: the one file `files.train` with `args.train`'s settings. With
 * it: `args.train_files[i] = {name, format, fields}` describes `files[trainKey(i)]`.
 * @param {Record<string, any>} args @param {Record<string, File> | null | undefined} files
 * @returns {CorpusEntry[]}
 * @throws {ProtocolError} bad_input: a file missing, or a file with no field
 */
export function corpusEntries(args, files) {
  const list = args.train_files;
  if (!Array.isArray(list)) {
    const file = requireFile(files, 'train');
    const t = args.train || {};
    return [{ file, name: t.name || file.name, format: t.format, fields: t.fields }];
  }
  if (!list.length) {
    throw new ProtocolError(ERR.BAD_INPUT, 'the training corpus has no file', { expected: 'at least one training file' });
  }
  return list.map((t, i) => {
    const file = requireFile(files, trainKey(i));
    if (!Array.isArray(t.fields) || !t.fields.length) {
      throw new ProtocolError(ERR.BAD_INPUT, `${t.name || file.name}: none of the chosen training fields is in this file`, { expected: 'at least one chosen field in every training file' });
    }
    return { file, name: t.name || file.name, format: t.format, fields: t.fields };
  });
}

/**
 * The training pass over every file of the corpus: `pass` reads one file (with the
 * prefilter where its format allows); before each file but the only one,
 * cont.train_file tells Python which file the next records belong to. Progress counts the
 * corpus's bytes.
 * @param {import('../dispatch.js').JobContext} ctx @param {number} handle
 * @param {CorpusEntry[]} entries @param {FilePass} pass
 * @returns {Promise<{input: ReadSummary, records: number, files: Array<ReadSummary & {name: string, format: string}>}>}
 *   input: the corpus's bytes and seconds (sha256 and gzip of a single file; null / false
 *   for several); records: training records of all files; files: per file, in order
 */
export async function corpusPass(ctx, handle, entries, pass) {
  if (entries.length === 1) {
    const { input, records } = await pass(ctx, handle, entries[0].file, entries[0]);
    return { input, records, files: [{ ...input, name: entries[0].name, format: entries[0].format }] };
  }
  const total = entries.reduce((s, e) => s + (e.file.size || 0), 0);
  let before = 0;
  let records = 0;
  const files = [];
  for (const [i, e] of entries.entries()) {
    ctx.throwIfCancelled();
    // a Parquet file's rows reach Python as JSON Lines (jobs/parquet-input.js)
    const earlier = bridge(OP.CONT_TRAIN_FILE, { handle, file: i, name: e.name, format: e.format === 'parquet' ? 'jsonl' : e.format, fields: e.fields }).records;
    ctx.log(`training file ${i + 1} of ${entries.length}: ${e.name} (${e.format}; ${e.fields.join(', ')})`);
    const offset = before;
    /** @type {import('../dispatch.js').JobContext} the same job, progress over the whole corpus */
    const sub = { ...ctx, progress: (stage, done, _size, unit, etaS) => ctx.progress(stage, offset + done, total, unit, etaS) };
    const { input, records: r } = await pass(sub, handle, e.file, e);
    records = earlier + r;
    before += e.file.size || 0;
    files.push({ ...input, name: e.name, format: e.format });
  }
  const input = {
    sha256: null, gzip: false,
    bytes: files.reduce((s, f) => s + f.bytes, 0),
    seconds: files.reduce((s, f) => s + f.seconds, 0),
  };
  return { input, records, files };
}

/**
 * What cont.finish takes as `inputs.train`: the one file's {sha256, bytes}, or for a corpus
 * the list of {name, sha256, bytes, format} in corpus order (the stamp lists every one;
 * format with "+gzip" for an inflated file, as py/evalsieve/stamps.py InputFile says).
 * @param {Array<ReadSummary & {name: string, format: string}>} files
 */
export function finishTrainInputs(files) {
  if (files.length === 1) return { sha256: files[0].sha256, bytes: files[0].bytes, ...(files[0].format === 'parquet' ? { format: 'parquet' } : {}) };
  return files.map((f) => ({ name: f.name, sha256: f.sha256, bytes: f.bytes, format: f.gzip ? `${f.format}+gzip` : f.format }));
}
