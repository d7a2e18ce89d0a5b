// worker/dispatch.js under Node: the queue of long jobs, cancel before start, errors as
// error {id}, one terminal reply per id, gated progress. The ops are stand-ins; the
// dispatcher is the worker's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as P from '../../worker/protocol.js';
import { createDispatcher } from '../../worker/dispatch.js';
import { createScanQueue } from '../../worker/prefilter-client.js';

const { OP, ERR, ProtocolError } = P;

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((a, b) => { resolve = a; reject = b; });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/** A dispatcher with ops from `ops`, recording every posted message (each validated). */
function harness(ops, { bootFails = false } = {}) {
  const out = [];
  let now = 0;
  const d = createDispatcher({
    ops,
    boot: () => (bootFails ? Promise.reject(new Error('boot')) : Promise.resolve()),
    post: (m) => { assert.equal(P.validate(m), null, JSON.stringify(m)); out.push(m); },
    now: () => now,
  });
  const terminal = (id) => out.filter((m) => (m.type === 'result' || m.type === 'error') && m.id === id);
  const until = async (pred) => { for (let i = 0; i < 200 && !pred(); i++) await tick(); assert.ok(pred(), JSON.stringify(out)); };
  return { d, out, terminal, until, advance: (ms) => { now += ms; } };
}

test('long jobs run one at a time in the order asked; the second logs `queued` and waits', async () => {
  const gates = { a: deferred(), b: deferred() };
  const started = [];
  const h = harness({
    [OP.CONTAMINATION]: async (ctx) => { started.push(ctx.id); await gates[ctx.id].promise; return { who: ctx.id }; },
  });
  h.d.onMessage(P.run('a', OP.CONTAMINATION, {}));
  await h.until(() => started.length === 1);
  h.d.onMessage(P.run('b', OP.CONTAMINATION, {}));
  await tick();
  await tick();
  assert.deepEqual(started, ['a']);
  const queued = h.out.filter((m) => m.type === 'log' && m.data && m.data.kind === 'queued');
  assert.deepEqual(queued.map((m) => [m.id, m.data.behind, m.message]), [['b', OP.CONTAMINATION, 'queued: waits for the contamination run to finish']]);
  gates.a.resolve();
  await h.until(() => started.length === 2);
  assert.deepEqual(h.terminal('a'), [P.result('a', { who: 'a' })]);
  assert.deepEqual(h.terminal('b'), []);
  gates.b.resolve();
  await h.until(() => h.terminal('b').length === 1);
  assert.deepEqual(h.terminal('b'), [P.result('b', { who: 'b' })]);
});

test('a job cancelled while it waits ends with error cancelled and never starts', async () => {
  const gate = deferred();
  const started = [];
  const h = harness({
    [OP.CONTAMINATION]: async (ctx) => { started.push(ctx.id); await gate.promise; return {}; },
    [OP.PARAPHRASES]: async (ctx) => { started.push(ctx.id); return {}; },
  });
  h.d.onMessage(P.run('a', OP.CONTAMINATION, {}));
  h.d.onMessage(P.run('b', OP.PARAPHRASES, {}));
  await h.until(() => started.length === 1);
  h.d.onMessage(P.cancel('b'));
  gate.resolve();
  await h.until(() => h.terminal('a').length === 1 && h.terminal('b').length === 1);
  assert.deepEqual(started, ['a']);
  assert.equal(h.terminal('b')[0].error.code, ERR.CANCELLED);
  assert.equal(h.terminal('a')[0].type, 'result');
});

test('short ops do not wait for a long job; cancel of a running job wins over its result', async () => {
  const gate = deferred();
  const h = harness({
    [OP.CONTAMINATION]: async () => { await gate.promise; return { late: true }; },
    [OP.INSPECT]: async () => ({ format: 'jsonl' }),
  });
  h.d.onMessage(P.run('long', OP.CONTAMINATION, {}));
  h.d.onMessage(P.run('short', OP.INSPECT, {}));
  await h.until(() => h.terminal('short').length === 1);
  assert.deepEqual(h.terminal('short')[0].data, { format: 'jsonl' });
  h.d.onMessage(P.cancel('long'));
  gate.resolve();
  await h.until(() => h.terminal('long').length === 1);
  assert.equal(h.terminal('long')[0].error.code, ERR.CANCELLED);
});

test('a failing op is error {id} with its code; malformed and duplicate requests are handled', async () => {
  const h = harness({
    [OP.INSPECT]: async () => { throw new ProtocolError(ERR.BAD_INPUT, 'line 3 is not JSON', { file: 'e.jsonl', line: 3 }); },
    [OP.PARA_CLOSE]: async () => { throw new TypeError('boom'); },
  });
  h.d.onMessage(P.run(1, OP.INSPECT, {}));
  h.d.onMessage(P.run(2, OP.PARA_CLOSE, {}));
  h.d.onMessage({ type: 'run', id: 3, op: 'contamination', args: {} }); // an old op name
  await h.until(() => [1, 2, 3].every((id) => h.terminal(id).length === 1));
  assert.deepEqual([h.terminal(1)[0].error.code, h.terminal(1)[0].error.file, h.terminal(1)[0].error.line], [ERR.BAD_INPUT, 'e.jsonl', 3]);
  assert.match(h.terminal(2)[0].error.message, /TypeError: boom/);
  assert.match(h.terminal(3)[0].error.message, /malformed request: run: unknown op "contamination"/);
  h.d.onMessage(P.run(1, OP.INSPECT, {})); // a used id: ignored, no second terminal
  await tick();
  assert.equal(h.terminal(1).length, 1);
});

test('a prefilter failure ends the request with error {id}, never an unhandled rejection', async () => {
  const unhandled = [];
  const onUnhandled = (r) => unhandled.push(r);
  process.on('unhandledRejection', onUnhandled);
  try {
    const h = harness({
      [OP.CONTAMINATION]: async () => {
        let k = 0;
        // chunk 0 is slow, chunk 1 fails at once: its rejection lands while chunk 0 is awaited
        const scan = () => (k++ === 0
          ? new Promise((r) => setTimeout(() => r({ records: [], lines: [], text: '', records_total: 1, chars: 1 }), 30))
          : Promise.reject(new ProtocolError(ERR.INTERNAL, 'prefilter failed: boom')));
        const q = createScanQueue(scan, () => {}, 2);
        try {
          for (const text of ['a', 'b', 'c', 'd']) await q.push(text);
          await q.drain();
        } finally {
          q.abandon();
        }
        return {};
      },
    });
    h.d.onMessage(P.run('c1', OP.CONTAMINATION, {}));
    await h.until(() => h.terminal('c1').length === 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.terminal('c1')[0].type, 'error');
    assert.deepEqual([h.terminal('c1')[0].error.code, h.terminal('c1')[0].error.message], [ERR.INTERNAL, 'prefilter failed: boom']);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('progress through the job context is monotone and every stage ends at done == total', async () => {
  const h = harness({
    [OP.READ]: async (ctx) => {
      for (const done of [0, 10, 5, 20, 20, 40]) ctx.progress('read', done, 40, 'bytes');
      ctx.progress('embed', 0, 3, 'rows', null);
      ctx.progress('embed', 3, 3, 'rows', 0);
      return {};
    },
  });
  h.d.onMessage(P.run('r', OP.READ, {}));
  await h.until(() => h.terminal('r').length === 1);
  const prog = h.out.filter((m) => m.type === 'progress');
  const read = prog.filter((m) => m.stage === 'read').map((m) => m.done);
  assert.deepEqual(read, [0, 40]); // throttled in between (the clock did not move); the last always goes
  const embed = prog.filter((m) => m.stage === 'embed');
  assert.deepEqual(embed.map((m) => [m.done, m.total, m.eta_s]), [[0, 3, null], [3, 3, 0]]);
  assert.ok(h.out.indexOf(h.terminal('r')[0]) > h.out.indexOf(embed[1]));
});
