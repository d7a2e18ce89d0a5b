// @ts-check
// Parquet inputs of the jobs: inspect (the schema's fields and the first rows, described by
// Python's inspect with `parquet`) and a pass over the rows, one row group at a time, each crossing
// into Python as JSON text (cont.feed_eval_values, para.feed_eval_values; a training file's
// rows as JSON Lines through the prefilter, worker/jobs/contamination.js).

import { OP } from '../protocol.js';
import { bridge } from '../runtime.js';
import { hashFile, openParquet, readRows, topColumns } from '../parquet.js';
import { yieldToEventLoop } from '../files.js';

/** Rows read from the file's start to describe its fields (Python's SAMPLE_ROWS). */
const SAMPLE_ROWS = 1000;
/** Most rows per hand-over to Python (a row group's rows are sent in slices of this many). */
const SLICE_ROWS = 8192;

/**
 * The inspect answer for a Parquet file: fields from the schema (structs dotted, lists []),
 * filled from the first rows (bridge `inspect` with args.parquet and text = the rows as a
 * JSON array); {format: 'parquet', fields, filter_fields, default_fields,
 * default_reason, rows_sampled, rows, row_groups, short_check}.
 * @param {File} file @param {string} name @param {string[] | null} [fields] for short_check
 */
export async function inspectParquet(file, name, fields = null) {
  const pq = await openParquet(file);
  const values = await readRows(file, pq.metadata, 0, Math.min(SAMPLE_ROWS, pq.rows), null);
  return bridge(OP.INSPECT, { name, fields, parquet: { paths: pq.paths, rows: pq.rows, row_groups: pq.rowGroups.length } }, JSON.stringify(values));
}

/** Rows as JSON Lines text (one JSON object a line, each ending with '\n'). */
export function jsonLines(/** @type {any[]} */ rows) {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** The first rows of a Parquet file (at most SAMPLE_ROWS), JSON-plain. @param {File} file */
export async function parquetHead(file) {
  const pq = await openParquet(file);
  return readRows(file, pq.metadata, 0, Math.min(SAMPLE_ROWS, pq.rows), null);
}

/**
 * Feed every row of a Parquet file to Python, one row group at a time (each read once, only
 * the top-level columns `fields` need), handed over in slices of SLICE_ROWS rows; progress on
 * `stage` in rows; cancellation between slices. The sha256 of the raw bytes is streamed first
 * (the stamp names the file). At most one row group's values are held at once.
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {import('../protocol.js').ProgressStage} stage
 * @param {File} file @param {string[]} fields
 * @param {(rows: any[]) => unknown} feed  one slice's records (JSON-plain values); awaited
 * @returns {Promise<{sha256: string, bytes: number, gzip: boolean, seconds: number, rows: number}>}
 */
export async function feedParquet(ctx, stage, file, fields, feed) {
  const t = performance.now();
  const { sha256, bytes } = await hashFile(file);
  const pq = await openParquet(file);
  const columns = topColumns(fields);
  ctx.progress(stage, 0, pq.rows, 'rows');
  for (const g of pq.rowGroups) {
    ctx.throwIfCancelled();
    const rows = g.end > g.start ? await readRows(file, pq.metadata, g.start, g.end, columns) : [];
    for (let s = 0; s < rows.length; s += SLICE_ROWS) {
      ctx.throwIfCancelled();
      await feed(rows.slice(s, s + SLICE_ROWS));
      ctx.progress(stage, g.start + Math.min(rows.length, s + SLICE_ROWS), pq.rows, 'rows');
      await yieldToEventLoop();
    }
  }
  ctx.progress(stage, pq.rows, pq.rows, 'rows');
  return { sha256, bytes, gzip: false, seconds: (performance.now() - t) / 1000, rows: pq.rows };
}
