// worker/embed/schedule.js under Node with a stand-in encoder: each row is tokenised once,
// vectors come back in input order, progress ends at n, a too-long estimate is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { embedRows } from '../../worker/embed/schedule.js';
import { CONSTANTS } from './constants.mjs';

const DIM = CONSTANTS.embedding_dims;

/** An encoder whose "vector" of a row is [its first word-piece id, 0, ...]; counts tokenisations per text. */
function standIn() {
  const tokenised = new Map();
  const ids = (t) => [101, ...t.split(' ').map((w) => w.length + 1000 * t.length), 102];
  const enc = {
    tokenized: tokenised,
    batches: [],
    tokenize(texts) {
      for (const t of texts) tokenised.set(t, (tokenised.get(t) || 0) + 1);
      return { ids: texts.map(ids), truncated: texts.filter((t) => t.includes('long')).length };
    },
    async encodeIds(rows) {
      enc.batches.push(rows.map((r) => r.length));
      const e = new Float32Array(rows.length * DIM);
      rows.forEach((r, i) => { e[i * DIM] = r[1]; });
      return { embeddings: e };
    },
    // what a scheduler that re-tokenises would call
    async encode(texts) {
      const t = enc.tokenize(texts);
      return { ...(await enc.encodeIds(t.ids)), truncated: t.truncated };
    },
  };
  return enc;
}

const texts = ['a b', 'a very long row of words', 'mid size row', 'x', 'another long one here', 'b c d'];

test('every row is tokenised exactly once and vectors return in input order', async () => {
  const enc = standIn();
  const progress = [];
  const r = await embedRows(enc, texts, { dim: DIM, batchSize: 2, onProgress: (d, n, eta) => progress.push([d, n, eta === null]) });
  assert.deepEqual([...enc.tokenized.values()], texts.map(() => 1));
  assert.equal(enc.tokenized.size, texts.length);
  for (let i = 0; i < texts.length; i++) assert.equal(r.embeddings[i * DIM], texts[i].split(' ')[0].length + 1000 * texts[i].length);
  assert.equal(r.truncated, 2);
  // longest first, two rows per batch
  assert.deepEqual(enc.batches, [[8, 6], [5, 5], [4, 3]]); // word pieces per row incl. [CLS], [SEP]
  assert.deepEqual(progress.map(([d, n]) => [d, n]), [[0, 6], [2, 6], [4, 6], [6, 6]]);
  assert.equal(progress[0][2], true); // no estimate before the first batch
  assert.ok(r.estimate && r.estimate.seconds >= 0);
});

test('input order is kept when sort is off; a cancel stops between batches', async () => {
  const enc = standIn();
  await embedRows(enc, texts, { dim: DIM, batchSize: 4, sort: false });
  assert.deepEqual(enc.batches, [[4, 8, 5, 3], [6, 5]]);
  let calls = 0;
  await assert.rejects(
    embedRows(standIn(), texts, { dim: DIM, batchSize: 1, isCancelled: () => ++calls > 2 }),
    (e) => e.code === 'cancelled',
  );
});

test('a first-batch estimate over maxSeconds is refused with bad_input naming the CLI', async () => {
  const enc = standIn();
  const slow = { ...enc, encodeIds: async (rows) => { await new Promise((r) => setTimeout(r, 20)); return enc.encodeIds(rows); } };
  const estimates = [];
  await assert.rejects(
    embedRows(slow, texts, { dim: DIM, batchSize: 1, maxSeconds: 0.001, onEstimate: (e) => estimates.push(e) }),
    (e) => e.code === 'bad_input' && /evalsieve paraphrases/.test(e.expected),
  );
  assert.equal(estimates.length, 1);
});
