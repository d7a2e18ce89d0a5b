// site/lib/worker-client.js with a fake Worker: replies by id, restarts, and the restart race
// (a late event from a dead worker must not touch its replacement).
import test from 'node:test';
import assert from 'node:assert/strict';
import { WorkerClient } from '../../../site/lib/worker-client.js';
import * as P from '../../../worker/protocol.js';
import { CONSTANTS } from '../constants.mjs';

function fakeWorkers() {
  const made = [];
  class FakeWorker {
    constructor(url, opts) {
      Object.assign(this, { url, opts, sent: [], terminated: false });
      made.push(this);
    }
    postMessage(m) { this.sent.push(m); }
    terminate() { this.terminated = true; }
    emit(msg) { this.onmessage({ data: msg }); }
    fail(message) { this.onerror({ message, preventDefault() {} }); }
  }
  return { FakeWorker, made };
}

function client(extra = {}) {
  const { FakeWorker, made } = fakeWorkers();
  const events = [];
  const c = new WorkerClient({
    url: 'worker/worker.js',
    Worker: FakeWorker,
    onReady: (versions, constants) => events.push(['ready', versions, constants]),
    onFatal: (err, restarting) => events.push(['fatal', err.message, restarting]),
    ...extra,
  });
  c.start();
  return { c, made, events };
}

const settle = (p) => p.then((v) => ({ ok: v }), (e) => ({ err: e }));

test('starts one module worker, sends init, and matches replies by id, not by order', async () => {
  const { c, made, events } = client();
  assert.equal(made.length, 1);
  assert.deepEqual(made[0].opts, { type: 'module' });
  assert.deepEqual(made[0].sent, [P.init()]);
  made[0].emit(P.ready({ pyodide: '0.29' }, CONSTANTS));
  assert.deepEqual(events, [['ready', { pyodide: '0.29' }, CONSTANTS]]);
  const progress = [];
  const a = c.request(P.OP.INSPECT, { name: 'a' }, null, { onProgress: (m) => progress.push(m.done) });
  const b = c.request(P.OP.INSPECT, { name: 'b' });
  assert.deepEqual(made[0].sent.slice(1).map((m) => [m.type, m.id, m.op]), [['run', a.id, P.OP.INSPECT], ['run', b.id, P.OP.INSPECT]]);
  made[0].emit(P.progress(a.id, 'read', 5, 10, 'bytes'));
  made[0].emit(P.result(b.id, 'B'));
  made[0].emit(P.error(a.id, { code: 'bad_input', message: 'not JSON' }));
  assert.deepEqual(await b.promise, 'B');
  assert.equal((await settle(a.promise)).err.message, 'not JSON');
  assert.deepEqual(progress, [5]);
});

test('ready hands over the rule constants the worker publishes', () => {
  const { c, made, events } = client();
  made[0].emit(P.ready({ evalsieve: '1' }, { para_window: 256 }));
  assert.deepEqual(events, [['ready', { evalsieve: '1' }, { para_window: 256 }]]);
  assert.deepEqual(c.constants, { para_window: 256 });
  made[0].emit({ type: 'ready', versions: {} }); // no constants: refused by protocol.validate
  assert.equal(events.length, 1);
});

test('a fatal worker rejects what was pending and is replaced', async () => {
  const { c, made, events } = client();
  const r = c.request(P.OP.CONTAMINATION, {});
  made[0].emit(P.fatal({ code: 'internal', message: 'out of memory' }));
  assert.equal((await settle(r.promise)).err.message, 'out of memory');
  assert.equal(made[0].terminated, true);
  assert.equal(made.length, 2);
  assert.deepEqual(made[1].sent, [P.init()]);
  assert.deepEqual(events, [['fatal', 'out of memory', true]]);
});

test('restart race: a late error from the dead worker leaves its replacement alone', async () => {
  const { c, made, events } = client();
  const w1 = made[0];
  w1.emit(P.fatal({ code: 'internal', message: 'first crash' }));
  const w2 = made[1];
  w2.emit(P.ready({ evalsieve: '1' }, CONSTANTS));
  const r = c.request(P.OP.INSPECT, { name: 'x' });
  // The dead worker's error event (and a stray message) arrive after it was replaced.
  w1.fail('late script error');
  w1.emit(P.fatal({ code: 'internal', message: 'late fatal' }));
  w1.onmessageerror?.({});
  assert.equal(w2.terminated, false, 'the fresh worker was terminated by the dead one');
  assert.equal(c.worker, w2);
  assert.equal(made.length, 2, 'no third worker started');
  assert.deepEqual(events.filter((e) => e[0] === 'fatal'), [['fatal', 'first crash', true]]);
  // The request sent to the fresh worker still gets its reply.
  w2.emit(P.result(r.id, { ok: 1 }));
  assert.deepEqual(await r.promise, { ok: 1 });
});

test('a missing asset is retried once, then the client gives up and says why', async () => {
  const { c, made, events } = client();
  made[0].emit(P.fatal({ code: 'asset_load_failed', message: 'wheel: HTTP 404' }));
  assert.equal(made.length, 2);
  made[1].emit(P.fatal({ code: 'asset_load_failed', message: 'wheel: HTTP 404' }));
  assert.equal(made.length, 2, 'no third try');
  assert.deepEqual(events, [['fatal', 'wheel: HTTP 404', true], ['fatal', 'wheel: HTTP 404', false]]);
  const r = await settle(c.request(P.OP.INSPECT, {}).promise);
  assert.equal(r.err.code, 'asset_load_failed');
});

test('cancel is sent only for a pending request', () => {
  const { c, made } = client();
  const r = c.request(P.OP.CONTAMINATION, {});
  c.cancel(r.id);
  c.cancel('r999');
  assert.deepEqual(made[0].sent.filter((m) => m.type === 'cancel'), [P.cancel(r.id)]);
});
