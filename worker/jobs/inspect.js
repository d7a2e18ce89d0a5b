// @ts-check
// The inspect op: read a file's head (at most SETTINGS.headChars) and let Python sniff its
// format and fields.

import { OP } from '../protocol.js';
import { forEachChunk, readHead } from '../files.js';
import { bridge } from '../runtime.js';
import { SETTINGS } from '../settings.js';
import { requireFile } from './common.js';
import { isParquet } from '../parquet.js';
import { inspectParquet } from './parquet-input.js';

/**
 * args: {role?: 'eval' | 'train' | 'scores', name?, fields?: string[], skip_bad_lines?} (fields:
 * the chosen fields for the answer's short_check, default the default fields; skip_bad_lines:
 * sample around malformed lines); files: {[role]: File}. A scores file of at most
 * SETTINGS.scoresInspectBytes is read whole: the answer's score_filters count every row.
 * @type {import('../dispatch.js').Op}
 * @returns {Promise<import('../protocol.js').InspectResult>}
 */
export async function inspect(ctx, args, files) {
  const role = args.role || 'eval';
  const fields = Array.isArray(args.fields) ? args.fields : null;
  const file = requireFile(files, role);
  if (await isParquet(file)) {
    const value = await inspectParquet(file, args.name || file.name, fields);
    ctx.log(`${file.name}: parquet, ${value.rows} rows in ${value.row_groups} row groups, ${value.rows_sampled} sampled`, {
      kind: 'inspected', role, format: 'parquet', gzip: false,
    });
    return { ...value, gzip: false, head_complete: value.rows_sampled === value.rows, size: file.size, name: file.name };
  }
  let head = await readHead(file, { maxChars: SETTINGS.headChars, skipBad: Boolean(args.skip_bad_lines), keepBom: true });
  if (role === 'scores' && !head.complete && file.size <= SETTINGS.scoresInspectBytes) {
    // a scores file is read whole (as the run will): its harness filters are counted over every row
    /** @type {string[]} */
    const parts = [];
    await forEachChunk(file, { chunkChars: SETTINGS.chunkChars, onBytes: null, isCancelled: ctx.isCancelled, keepBom: true }, (t) => { parts.push(t); });
    head = { ...head, text: parts.join(''), complete: true };
  }
  ctx.throwIfCancelled();
  const value = bridge(OP.INSPECT, { name: args.name || file.name, role, complete: head.complete, fields, skip_bad_lines: Boolean(args.skip_bad_lines) }, head.text);
  ctx.log(`${file.name}: ${value.format}, ${value.rows_sampled} rows sampled${head.gzip ? ' (gzip)' : ''}`, {
    kind: 'inspected', role, format: value.format, gzip: head.gzip,
  });
  return { ...value, gzip: head.gzip, head_complete: head.complete, size: file.size, name: file.name };
}
