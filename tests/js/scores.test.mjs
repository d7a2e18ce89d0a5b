// worker/jobs/scores.js under Node: the scores file read whole (gzip by magic, strict UTF-8,
// sha256 of the raw bytes) into the arguments of the bridge's cont.scores / para.scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { File } from 'node:buffer';

import { setBinaryMagic, setSha256Factory } from '../../worker/files.js';
import { readScores, scoresLogText } from '../../worker/jobs/scores.js';
import { CONSTANTS } from './constants.mjs';

setBinaryMagic(CONSTANTS.binary_magic);
setSha256Factory(async () => {
  let h;
  return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
});

const ctx = { logs: [], log(m) { this.logs.push(m); }, isCancelled: () => false };
const rows = Array.from({ length: 3000 }, (_, i) => `{"doc_id": ${i}, "filter": "strict-match", "metrics": ["exact_match"], "exact_match": ${i % 2}, "doc": {"q": "café ${i}"}}\n`).join('');

test('no scores file: null; a file: its whole text, sha256 and bytes, and the options', async () => {
  assert.equal(await readScores(ctx, {}, { eval: new File(['x'], 'e.jsonl') }), null);
  const raw = Buffer.from(rows, 'utf-8');
  const gz = gzipSync(raw);
  const s = await readScores(ctx, { scores: { format: 'jsonl', filter: 'strict-match', key: '' } }, { scores: new File([gz], 's.jsonl.gz') });
  assert.equal(s.text, rows); // rejoined exactly, BOM-free, across the gzip stream
  assert.equal(s.args.sha256, createHash('sha256').update(gz).digest('hex'));
  assert.deepEqual({ ...s.args, sha256: null }, {
    name: 's.jsonl.gz', format: 'jsonl', sha256: null, bytes: gz.length, metrics: [], key: null, eval_key: null, filter: 'strict-match',
  });
  assert.deepEqual(s.input, { name: 's.jsonl.gz', sha256: s.args.sha256, bytes: gz.length, gzip: true });
});

test('invalid UTF-8 in the scores file is bad_input naming the file and the line', async () => {
  const bad = Buffer.concat([Buffer.from('{"doc_id": 0}\n{"doc_id": 1, "x": "'), Buffer.from([0xff]), Buffer.from('"}\n')]);
  await assert.rejects(readScores(ctx, { scores: { format: 'jsonl' } }, { scores: new File([bad], 'samples_x.jsonl') }),
    (e) => e.code === 'bad_input' && e.file === 'samples_x.jsonl' && e.line === 2);
});

test('the log line says the join, the filter and the rows of other filters', () => {
  const v = { file: { name: 's.jsonl' }, rows_read: 40, score_source: 'lm-evaluation-harness samples', score_metrics: ['exact_match'], score_join: 'order (doc_id = 0-based eval row)', score_filter: 'strict-match', rows_other_filter: 40 };
  assert.equal(scoresLogText(v), 'scores: s.jsonl: 40 rows (lm-evaluation-harness samples), metric exact_match, joined by order (doc_id = 0-based eval row), filter strict-match (40 rows of other filters skipped)');
  assert.equal(scoresLogText({ ...v, score_join: 'key', score_key: 'q', score_eval_key: 'question', score_filter: null }), 'scores: s.jsonl: 40 rows (lm-evaluation-harness samples), metric exact_match, joined by q = eval question');
});

test('the scores text starts as the file does: its byte-order mark stays for Python to take off', async () => {
  for (const marks of [1, 2]) {
    const raw = Buffer.concat([Buffer.from('\ufeff'.repeat(marks), 'utf-8'), Buffer.from(rows, 'utf-8')]);
    const s = await readScores(ctx, { scores: { format: 'jsonl' } }, { scores: new File([raw], 's.jsonl') });
    assert.equal(s.text, '\ufeff'.repeat(marks) + rows); // one is the file's, a second line 1's
  }
});
