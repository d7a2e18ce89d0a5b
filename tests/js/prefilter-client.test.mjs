// worker/prefilter-client.js under Node: the inline fallback (when a nested worker cannot be
// made, and when it fails to load later, through onerror), failures after the first answer,
// and results in the order asked. A stand-in Worker plays the nested worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { createPrefilter } from '../../worker/prefilter.js';
import { startPrefilter } from '../../worker/prefilter-client.js';

const spec = { n: 2, ngrams: ['alpha beta', 'gamma delta'], format: 'text', paths: [], chars: {} };
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
  postMessage(m) { this.sent.push(m); }
  terminate() { this.terminated = true; }
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
  const pf = startPrefilter(spec, { makeWorker: () => sub });
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
  const pf = startPrefilter(spec, { makeWorker: () => sub });
  const first = pf.scan(chunks[0]);
  const second = pf.scan(chunks[1]);
  sub.onmessage({ data: { type: 'scanned', seq: 0, ...expected()[0] } });
  assert.deepEqual(await first, { type: 'scanned', seq: 0, ...expected()[0] });
  sub.fail('out of memory');
  await assert.rejects(second, (e) => e.code === 'internal' && /prefilter worker stopped: out of memory/.test(e.message));
});

test('a `failed` reply rejects that scan only; close() cancels the rest', async () => {
  const sub = new SilentWorker();
  const pf = startPrefilter(spec, { makeWorker: () => sub });
  const a = pf.scan(chunks[0]);
  const b = pf.scan(chunks[1]);
  sub.onmessage({ data: { type: 'failed', seq: 0, message: 'bad spec' } });
  await assert.rejects(a, (e) => e.code === 'internal' && e.message === 'prefilter failed: bad spec');
  pf.close();
  await assert.rejects(b, (e) => e.code === 'cancelled');
  assert.equal(sub.terminated, true);
});
