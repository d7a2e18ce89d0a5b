// worker/jobs/semantic.js's pure parts under Node: which texts are embedded for a semantic
// request (rows with a candidate, then every window) and the pair cosines (dot products),
// with hand-computed values; and the refusal's words of embed/schedule.js for this rung.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { embeddingPlan, pairCosines } from '../../worker/jobs/semantic.js';
import { embedRows } from '../../worker/embed/schedule.js';

const req = {
  eval_texts: ['row zero', '', 'row two', 'row three'],
  window_texts: ['w0', 'w1', 'w2'],
  pairs: [[2, 1], [0, 0], [2, 2], [0, 1]], // row 1 (empty) and row 3 have no candidate
};

test('only rows with a candidate are embedded, in row order, then every window', () => {
  const plan = embeddingPlan(req);
  assert.deepEqual(plan.rows, [0, 2]);
  assert.deepEqual([...plan.slot], [0, -1, 1, -1]);
  assert.deepEqual(plan.texts, ['row zero', 'row two', 'w0', 'w1', 'w2']);
  assert.deepEqual(embeddingPlan({ eval_texts: ['a'], window_texts: [], pairs: [] }),
    { rows: [], slot: Int32Array.from([-1]), texts: [] });
});

test('a pair cosine is the dot product of its row and window vectors', () => {
  const plan = embeddingPlan(req);
  const s = Math.SQRT1_2;
  // dim 2 unit vectors: row 0, row 2, then windows 0..2
  const emb = Float32Array.from([1, 0, /* row 2 */ 0, 1, /* w0 */ s, s, /* w1 */ -1, 0, /* w2 */ 0.6, 0.8]);
  const cos = pairCosines(emb, plan, req.pairs, 2);
  assert.ok(cos instanceof Float32Array && cos.length === 4);
  // (row 2, w1) = 0*-1 + 1*0 = 0; (row 0, w0) = s; (row 2, w2) = 0.8; (row 0, w1) = -1
  assert.deepEqual([...cos], [0, Math.fround(s), Math.fround(0.8), -1]);
});

test('a semantic run estimated over the limit is refused with the CLI command', async () => {
  const dim = 2;
  const enc = {
    tokenize: (texts) => ({ ids: texts.map(() => [101, 5, 102]), truncated: 0 }),
    encodeIds: async (rows) => {
      const t = performance.now();
      while (performance.now() - t < 5) { /* a slow first batch */ }
      return { embeddings: new Float32Array(rows.length * dim) };
    },
  };
  const cli = 'the command line: evalsieve contamination EVAL TRAIN --semantic --out DIR';
  await assert.rejects(embedRows(enc, Array(40).fill('x'), {
    dim, batchSize: 1, maxSeconds: 0.001, refusal: { what: 'texts for the semantic rung', cli },
  }), (e) => e.code === 'bad_input' && /^embedding 40 texts for the semantic rung would take/.test(e.message)
    && e.expected === `a smaller eval set, or ${cli}`);
});
