// @ts-check
// The contamination result the worker keeps after a successful cont.run: its Python job (the
// handle) and the run's training files, so that the page can page through every row
// (cont.rows: filtered, searched and sorted in Python) and open a training record
// (cont.record: read again by its byte offset, record-read.js). Held until the next
// successful run or cont.close.

import { ERR, OP, ProtocolError } from '../protocol.js';
import { bridge } from '../runtime.js';
import { readRecord } from '../record-read.js';

/** @type {Map<number, {train: File[]}>} bridge handle -> the run's training files, corpus order */
const held = new Map();

/** Keep `handle` (a finished job) and its training files; older results are released. */
export function holdContamination(/** @type {number} */ handle, /** @type {File[]} */ train) {
  for (const h of [...held.keys()]) closeHeld(h);
  held.set(handle, { train });
}

/** @param {number} handle */
function closeHeld(handle) {
  if (!held.delete(handle)) return;
  try { bridge(OP.CLOSE, { handle }); } catch (e) { console.warn('close failed', e); }
}

/** @param {number} handle */
function requireHeld(handle) {
  const job = held.get(handle);
  if (!job) {
    throw new ProtocolError(ERR.BAD_INPUT, 'this contamination result is no longer held by the worker; run again', { expected: 'the handle of the last successful run' });
  }
  return job;
}

/**
 * One page of the held result's rows: args {handle, where?, range?, bin?, query?, sort?,
 * offset?, limit?} (py/evalsieve/result_table.py query_rows).
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').RowsPage>}
 */
export async function contRows(ctx, args) {
  requireHeld(args.handle);
  return bridge(OP.CONT_ROWS, args);
}

/**
 * A training record of the held result, read again from its file and marked: args {handle,
 * row (the eval row), file (0-based in the corpus), record, offset, bytes} (a row's source).
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').RecordResult>}
 */
export async function contRecord(ctx, args) {
  const job = requireHeld(args.handle);
  const file = job.train[args.file];
  if (!file) throw new ProtocolError(ERR.BAD_INPUT, `no training file ${args.file} in this run`, { expected: 'a file of the run' });
  const { text, read } = await readRecord(file, args.record, args.offset, args.bytes);
  return { ...bridge(OP.CONT_RECORD, { handle: args.handle, row: args.row, file: args.file, record: args.record }, text), read };
}

/** @type {import('../dispatch.js').Op} */
export async function contClose(ctx, args) {
  closeHeld(args.handle);
  return {};
}
