// @ts-check
// Small helpers the jobs share.

import { ERR, ProtocolError } from '../protocol.js';
import { forEachChunk } from '../files.js';
import { SETTINGS } from '../settings.js';

/**
 * The dropped file for `role`; bad_input when it is missing.
 * @param {Record<string, File> | null | undefined} files @param {string} role @returns {File}
 */
export function requireFile(files, role) {
  const f = files && files[role];
  if (!f || typeof f.stream !== 'function') {
    throw new ProtocolError(ERR.BAD_INPUT, `no ${role} file was given`, { expected: `a ${role} file` });
  }
  return f;
}

/** The time of a run for its stamp: ISO-8601 UTC to the second. */
export function utcNow() {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Read `file` in line-aligned text chunks with byte progress on `stage` (0 first, file.size
 * last, so the stage ends at done == total). options: {keepBom?, skipBad?} (files.js
 * readTextChunks: an eval file's BOM stays for Python's clean export; with "skip malformed
 * lines", lines that are not UTF-8 reach Python as malformed records).
 * @param {import('../dispatch.js').JobContext} ctx
 * @param {import('../protocol.js').ProgressStage} stage
 * @param {File} file
 * @param {(text: string) => unknown} onText
 * @param {{keepBom?: boolean, skipBad?: boolean}} [options]
 * @returns {Promise<{sha256: string | null, bytes: number, gzip: boolean, chars: number, lines: number, seconds: number, hash_ms?: number, decode_ms?: number}>}
 */
export async function readWithProgress(ctx, stage, file, onText, options = {}) {
  const report = (/** @type {number} */ done) => ctx.progress(stage, done, file.size, 'bytes');
  report(0);
  const t = performance.now();
  const summary = await forEachChunk(file, { chunkChars: SETTINGS.chunkChars, onBytes: report, isCancelled: ctx.isCancelled, ...options }, onText);
  report(file.size);
  return { ...summary, seconds: (performance.now() - t) / 1000 };
}
