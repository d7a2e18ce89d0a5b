// worker/prefilter-client.js under Node: the inline fallback (when a nested worker cannot be
// made, and when it fails to load later, through onerror), failures after the first answer,
// and results in the order asked; a pool whose workers answer out of order gives what one
// stateful scan gives. Stand-in Workers play the nested workers; their answers come from
// prefilter.js scanChunk (what prefilter-worker.js posts), the expectation from one
// createPrefilter scan carried over every chunk.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { createPrefilter } from '../../worker/prefilter.js';
import { scanData } from '../../worker/prefilter-bytes.js';
import { poolSize, startPrefilter } from '../../worker/prefilter-client.js';
import { NO_EXACT } from './exact-spec.mjs';

const spec = { n: 2, ngrams: ['alpha beta', 'gamma delta'], format: 'text', paths: [], chars: {}, exact: NO_EXACT };
const chunks = ['alpha beta one\nnothing here\n', 'x y\ngamma delta z\n', 'last line alpha\n'];

/** What createPrefilter itself says about `chunks`, scanned in order. */
function expected() {
  const pf = createPrefilter(spec);
  const state = { records: 0, lines: 0 };
  return chunks.map((text) => {
    const c = pf.scan(text, state);
    return { records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'), records_total: state.records, chars: text.length };
  });
}

/** A nested worker that never answers; `fail()` fires its onerror like a script that did not load. */
class SilentWorker {
  constructor() { this.sent = []; this.terminated = false; this.onmessage = null; this.onerror = null; }
  // as a real worker: a transfer list moves (detaches) those buffers
  postMessage(m, transfer) { this.sent.push(transfer ? { ...structuredClone(m, { transfer }), transfer } : m); }
  terminate() { this.terminated = true; }
  /** Answer chunk `seq` as prefilter-worker.js would. */
  answer(seq) {
    const m = this.sent.find((x) => x.type === 'chunk' && x.seq === seq);
    let a;
    try { a = { type: 'scanned', seq, ...scanData(createPrefilter(spec), m.data) }; } catch (e) { a = { type: 'failed', seq, message: e.message, utf8: e.utf8 }; }
    this.onmessage({ data: a });
  }
  fail(message = 'Failed to fetch a worker script') {
    let prevented = false;
    this.onerror({ message, preventDefault: () => { prevented = true; } });
    return prevented;
  }
}

test('sanity: the stand-in chunks hold candidates', () => {
  const want = expected();
  assert.deepEqual(want.map((r) => r.records), [[1], [4], []]); // 1-based record numbers
  assert.deepEqual(want.map((r) => r.records_total), [2, 4, 5]);
});

test('no nested worker (new Worker throws): the filter runs inline', async () => {
  const pf = startPrefilter(spec, { makeWorker: () => { throw new Error('no Worker in workers'); } });
  assert.equal(pf.threaded, false);
  const got = [];
  for (const c of chunks) got.push(await pf.scan(c));
  assert.deepEqual(got, expected());
});

test('a nested worker that fails to load later (onerror) falls back inline, in order', async () => {
  const sub = new SilentWorker();
  const pf = startPrefilter(spec, { makeWorker: () => sub, workers: 1 });
  assert.equal(pf.threaded, true);
  const pending = chunks.slice(0, 2).map((c) => pf.scan(c)); // sent, never answered
  assert.deepEqual(sub.sent.map((m) => m.type), ['spec', 'chunk', 'chunk']);
  assert.equal(sub.fail(), true); // handled: not a worker-level error
  const third = pf.scan(chunks[2]);
  assert.deepEqual(await Promise.all([...pending, third]), expected());
  assert.equal(pf.threaded, false);
  assert.equal(sub.terminated, true);
  assert.equal(sub.sent.length, 3); // nothing more went to the dead worker
});

test('a nested worker that fails after answering fails the waiting scans', async () => {
  const sub = new SilentWorker();
  const pf = startPrefilter(spec, { makeWorker: () => sub, workers: 1 });
  const first = pf.scan(chunks[0]);
  const second = pf.scan(chunks[1]);
  sub.answer(0);
  assert.deepEqual(await first, expected()[0]);
  sub.fail('out of memory');
  await assert.rejects(second, (e) => e.code === 'internal' && /prefilter worker stopped: out of memory/.test(e.message));
});

test('a `failed` reply rejects that scan only; close() cancels the rest', async () => {
  const sub = new SilentWorker();
  const pf = startPrefilter(spec, { makeWorker: () => sub, workers: 1 });
  const a = pf.scan(chunks[0]);
  const b = pf.scan(chunks[1]);
  sub.onmessage({ data: { type: 'failed', seq: 0, message: 'bad spec' } });
  await assert.rejects(a, (e) => e.code === 'internal' && e.message === 'prefilter failed: bad spec');
  pf.close();
  await assert.rejects(b, (e) => e.code === 'cancelled');
  assert.equal(sub.terminated, true);
});

/** A pool of `k` stand-ins, in the order made (the reader never scans unless `steal`). */
function standIns(k, steal = Infinity) {
  const made = [];
  const pf = startPrefilter(spec, { workers: k, steal, file: 'train.jsonl', makeWorker: () => { const w = new SilentWorker(); made.push(w); return w; } });
  return { pf, made };
}
/** Which stand-in got chunk `seq`. */
const holder = (made, seq) => made.find((w) => w.sent.some((m) => m.type === 'chunk' && m.seq === seq));

test('poolSize: one worker per spare core, at least 1, at most prefilterMaxWorkers', () => {
  assert.deepEqual([1, 2, 3, 4, 16, 64].map(poolSize), [1, 1, 2, 3, 8, 8]);
  assert.equal(poolSize(Number.NaN), 1); // unknown: as 2 cores
});

test('a pool of 3 answering in reverse order gives the inline result, in the order asked', async () => {
  const { pf, made } = standIns(3);
  assert.equal(made.length, 3);
  assert.equal(pf.workers, 3);
  const got = chunks.map((c) => pf.scan(c));
  // each idle worker took one chunk: 0, 1, 2
  assert.deepEqual(chunks.map((_, i) => made.indexOf(holder(made, i))), [0, 1, 2]);
  const settled = [];
  got.forEach((p, i) => p.then(() => settled.push(i)));
  holder(made, 2).answer(2);
  holder(made, 1).answer(1);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(settled, []); // chunk 0 holds the numbering of the others
  holder(made, 0).answer(0);
  assert.deepEqual(await Promise.all(got), expected());
  assert.deepEqual(settled, [0, 1, 2]);
});

test('a pool of 2 with more chunks than workers: any answer order, the same result', async () => {
  const many = [...chunks, ...chunks, ...chunks]; // 9 chunks
  const want = (() => {
    const p = createPrefilter(spec);
    const state = { records: 0, lines: 0 };
    return many.map((text) => {
      const c = p.scan(text, state);
      return { records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'), records_total: state.records, chars: text.length };
    });
  })();
  // by hand: each copy holds 5 records, candidates its 1st and 4th
  assert.deepEqual(want.map((r) => r.records), [[1], [4], [], [6], [9], [], [11], [14], []]);
  assert.deepEqual(want.map((r) => r.records_total), [2, 4, 5, 7, 9, 10, 12, 14, 15]);
  for (const answerOrder of [[8, 7, 6, 5, 4, 3, 2, 1, 0], [1, 3, 5, 7, 0, 2, 4, 6, 8]]) {
    const { pf, made } = standIns(2);
    const got = many.map((c) => pf.scan(c));
    assert.deepEqual(made.map((w) => w.sent.filter((m) => m.type === 'chunk').length), [5, 4]);
    for (const i of answerOrder) holder(made, i).answer(i);
    assert.deepEqual(await Promise.all(got), want);
  }
});

test('a pool member that fails to load hands its chunks to the others; numbers unchanged', async () => {
  const { pf, made } = standIns(2);
  const got = chunks.map((c) => pf.scan(c)); // 0 -> a, 1 -> b, 2 -> a
  const [a, b] = made;
  assert.equal(a.fail(), true);
  assert.equal(a.terminated, true);
  assert.equal(pf.workers, 1);
  assert.deepEqual(b.sent.filter((m) => m.type === 'chunk').map((m) => m.seq), [1, 0, 2]);
  for (const i of [2, 1, 0]) b.answer(i);
  assert.deepEqual(await Promise.all(got), expected());
  b.fail(); // b had answered: its failure stops the pass (no inline rescue)
  assert.equal(pf.threaded, false);
  await assert.rejects(pf.scan(chunks[0]), (e) => e.code === 'internal' && /prefilter worker stopped/.test(e.message));
});

test('every pool member failing to load: the chunks are scanned inline, in order', async () => {
  const { pf, made } = standIns(2);
  const got = chunks.map((c) => pf.scan(c));
  made[1].fail();
  made[0].fail();
  assert.equal(pf.threaded, false);
  assert.deepEqual(await Promise.all(got), expected());
});

test('a failed chunk rejects the later ones once they are answered (their numbers depend on it)', async () => {
  const { pf, made } = standIns(2);
  const got = chunks.map((c) => pf.scan(c));
  holder(made, 1).answer(1);
  holder(made, 0).onmessage({ data: { type: 'failed', seq: 0, message: 'boom' } });
  await assert.rejects(got[0], (e) => e.message === 'prefilter failed: boom');
  await assert.rejects(got[1], (e) => e.message === 'prefilter failed: boom');
  pf.close();
  await assert.rejects(got[2], (e) => e.code === 'cancelled');
  assert.deepEqual(made.map((w) => w.terminated), [true, true]);
});

test('when every worker holds `steal` chunks the reader scans the next one; same result', async () => {
  const { pf, made } = standIns(1, 2);
  const got = chunks.map((c) => pf.scan(c));
  assert.deepEqual(made[0].sent.filter((m) => m.type === 'chunk').map((m) => m.seq), [0, 1]); // 2: here
  assert.ok(pf.inlineMs >= 0 && pf.workers === 1);
  made[0].answer(1);
  made[0].answer(0);
  assert.deepEqual(await Promise.all(got), expected());
});

const enc = (/** @type {string} */ t) => new TextEncoder().encode(t);

test('byte chunks: the same answers as text; copied to a worker until it has answered, then moved', async () => {
  const { pf, made } = standIns(1);
  const data = chunks.map(enc);
  const got = data.map((d) => pf.scan(d));
  const [w] = made;
  assert.ok(w.sent[1].data instanceof Uint8Array);
  assert.equal(data[0].byteLength, chunks[0].length); // a copy went: this thread keeps its bytes
  w.answer(0);
  const later = enc('gamma delta again\n');
  const fourth = pf.scan(later);
  assert.equal(later.byteLength, 0); // moved: detached here
  const sent = w.sent.find((m) => m.seq === 3);
  assert.equal(sent.transfer.length, 1); // in the transfer list
  assert.equal(sent.transfer[0], later.buffer);
  for (const i of [2, 1, 3]) w.answer(i);
  const want = expected();
  assert.deepEqual(await Promise.all(got), want);
  // the 4th chunk: record 6 (after 5), line 6; a chars count of decoded text
  assert.deepEqual(await fourth, { records: [6], lines: [6], text: 'gamma delta again', records_total: 6, chars: 18 });
});

test('a chunk that is not UTF-8 rejects with bad_input naming the file, the line and the byte', async () => {
  // chunk 2 (after 28 + 18 bytes and 4 lines) holds 0xff at its byte 6, on its line 2
  const bad = new Uint8Array([...enc('ok a\nb'), 0xff, ...enc(' c\n')]);
  for (const workers of [0, 1]) {
    const { pf, made } = standIns(workers);
    const got = [enc(chunks[0]), enc(chunks[1]), bad, enc(chunks[2])].map((d) => pf.scan(d));
    if (workers) for (const i of [3, 2, 1, 0]) made[0].answer(i);
    await got[1];
    for (const p of got.slice(2)) {
      await assert.rejects(p, (e) => e.code === 'bad_input' && e.message === 'invalid UTF-8 at byte 52'
        && e.file === 'train.jsonl' && e.line === 6);
    }
  }
});

test('chunk buffers come back from the worker (and a copied chunk\'s own) and are filled again; the answers do not change', async () => {
  const cap = 64;
  const made = [];
  const pf = startPrefilter(spec, {
    workers: 1, steal: 2, chunkBytes: cap, file: 'train.jsonl',
    makeWorker: () => { const w = new SilentWorker(); made.push(w); return w; },
  });
  const [w] = made;
  // as prefilter-worker.js: the answer carries the chunk's buffer back (transferred)
  const returned = new Set();
  w.answer = (seq) => {
    const m = w.sent.find((x) => x.type === 'chunk' && x.seq === seq);
    returned.add(m.data.buffer);
    w.onmessage({ data: { type: 'scanned', seq, ...scanData(createPrefilter(spec), m.data), buffer: m.data.buffer } });
  };
  const fill = (/** @type {string} */ text) => { const b = enc(text); const v = pf.buffer(b.length); v.set(b); return v; };
  const first = fill(chunks[0]);
  assert.equal(first.buffer.byteLength, cap); // a new buffer of chunkBytes
  const got = [pf.scan(first)];
  w.answer(0); // copied to it (it had not answered): both the copy's buffer and ours come back
  for (const text of [chunks[1], chunks[2], chunks[0], chunks[1], chunks[2]]) {
    const v = fill(text);
    // a buffer the worker handed back (a transfer makes a new ArrayBuffer object of the same
    // memory), or this thread's own after its scan here: refilled, not allocated
    assert.ok(returned.has(v.buffer) || v.buffer === first.buffer, 'a new buffer was allocated');
    got.push(pf.scan(v));
    for (const m of w.sent.filter((x) => x.type === 'chunk' && !x.done)) { m.done = true; w.answer(m.seq); }
  }
  const a = expected();
  const b = (() => { // the same three chunks again, numbered after the first three
    const pf2 = createPrefilter(spec);
    const state = { records: 0, lines: 0 };
    return [...chunks, ...chunks].map((text) => {
      const c = pf2.scan(text, state);
      return { records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'), records_total: state.records, chars: text.length };
    });
  })();
  assert.deepEqual(b.slice(0, 3), a);
  assert.deepEqual(await Promise.all(got), [b[0], b[1], b[2], b[3], b[4], b[5]]);
  // a chunk longer than chunkBytes (one long line) gets a buffer of its own, not kept
  const long = pf.buffer(cap + 10);
  assert.equal(long.byteLength, cap + 10);
  assert.equal(long.buffer.byteLength, cap + 10);
});
