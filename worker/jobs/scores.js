// @ts-check
// The optional per-row scores file of a contamination or paraphrase run: read it
// whole (files.js: gzip by magic, strict UTF-8, sha256; a bad byte names the file and line)
// and build the arguments of the bridge's cont.scores / para.scores, which Python reads with
// scores.score_run_from_json and attaches with set_scores before the eval pass.

import { forEachChunk } from '../files.js';
import { SETTINGS } from '../settings.js';

/**
 * The scores file of a run, read whole, or null when none was given.
 *
 * args.scores (the page's choice, all optional but format): {name?, format: 'jsonl' | 'csv' |
 * 'tsv', metrics?: string[], key?: string | null, eval_key?: string | null, filter?: string |
 * null}; files.scores: the File.
 * Returns {args, text, input}: `args` for cont.scores / para.scores (without the handle),
 * `text` the decoded file, `input` {name, sha256, bytes, gzip} for the result.
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {Record<string, any>} args  the run's args
 * @param {Record<string, File> | null | undefined} files
 * @returns {Promise<{args: Record<string, any>, text: string, input: import('../protocol.js').InputInfo} | null>}
 */
export async function readScores(ctx, args, files) {
  const file = files && files.scores;
  if (!file) return null;
  const spec = args.scores || {};
  ctx.log(`scores: reading ${file.name}`);
  /** @type {string[]} */
  const parts = [];
  // the file's byte-order mark stays: Python's reader takes it off (a second is line 1's)
  const summary = await forEachChunk(file, { chunkChars: SETTINGS.chunkChars, onBytes: null, isCancelled: ctx.isCancelled, keepBom: true }, (text) => { parts.push(text); });
  const name = spec.name || file.name;
  return {
    args: {
      name,
      format: spec.format,
      sha256: summary.sha256,
      bytes: summary.bytes,
      metrics: Array.isArray(spec.metrics) ? spec.metrics : [],
      key: spec.key || null,
      eval_key: spec.eval_key || null,
      filter: spec.filter || null,
    },
    text: parts.join(''),
    input: { name, sha256: summary.sha256, bytes: summary.bytes, gzip: summary.gzip },
  };
}

/**
 * The log line after the bridge took the scores (its ScoreSettings value).
 * @param {Record<string, any>} v
 */
export function scoresLogText(v) {
  const filter = v.score_filter ? `, filter ${v.score_filter}${v.rows_other_filter ? ` (${v.rows_other_filter} rows of other filters skipped)` : ''}` : '';
  return `scores: ${v.file.name}: ${v.rows_read} rows (${v.score_source}), metric ${v.score_metrics.join(', ')}, joined by ${v.score_join === 'key' ? `${v.score_key} = eval ${v.score_eval_key}` : 'order (doc_id = 0-based eval row)'}${filter}`;
}
