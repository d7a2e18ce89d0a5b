// worker/hash-offload.js and worker/hash-worker.js under Node: the training pass's sha256 on
// a worker of its own. The client's batches (copied out of the caller's buffers, in order,
// buffers handed back and reused), the digest against node:crypto, the fallback to hashing
// on this thread when the worker cannot start (and the note that says why), a worker that
// fails after it started, and hash-worker.js itself with a stand-in `self`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';

import { startHasher } from '../../worker/hash-offload.js';

const factory = async () => {
  let h;
  return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
};
const sha = (b) => createHash('sha256').update(b).digest('hex');

/** A stand-in for hash-worker.js in this thread: answers as the worker does, on a later
 *  task (as postMessage would), and records what it was sent. */
function fakeWorker({ startReply = 'ready', dieAfter = Infinity } = {}) {
  const w = { sent: [], buffers: new Set(), terminated: false, onmessage: null, onerror: null };
  let h = null;
  const reply = (m) => setImmediate(() => { if (!w.terminated) w.onmessage({ data: m }); });
  w.terminate = () => { w.terminated = true; };
  w.postMessage = (m, transfer = []) => {
    w.sent.push({ type: m.type, bytes: m.data ? Uint8Array.from(m.data) : null, transfer: transfer.length });
    if (m.type === 'start') {
      if (startReply === 'ready') { h = createHash('sha256'); reply({ type: 'ready' }); }
      else if (startReply === 'error') setImmediate(() => w.onerror({ message: 'worker script 404', preventDefault() {} }));
      else reply({ type: 'failed', message: startReply });
    } else if (m.type === 'bytes') {
      w.buffers.add(m.data.buffer);
      if (w.sent.filter((s) => s.type === 'bytes').length > dieAfter) {
        setImmediate(() => w.onerror({ message: 'out of memory', preventDefault() {} }));
        return;
      }
      h.update(m.data);
      reply({ type: 'buffer', data: m.data });
    } else if (m.type === 'digest') reply({ type: 'digest', hex: h.digest('hex'), ms: 1.5 });
  };
  return w;
}

// 20,000 bytes in pieces of 1..2,999 bytes (seeded), as a stream would hand them over
const data = Uint8Array.from({ length: 20000 }, (_, i) => (i * 2654435761) >>> 24);
const pieces = [];
for (let at = 0, k = 1; at < data.length; k = (k * 48271) % 2147483647) {
  const n = Math.min(data.length - at, 1 + (k % 2999));
  pieces.push(data.slice(at, at + n));
  at += n;
}
const tick = () => new Promise((r) => setImmediate(r));

test('the worker gets the bytes in order, in full batches, into reused buffers; the digest is the sha256', async () => {
  const w = fakeWorker();
  const h = await startHasher({ url: 'file:///hash-wasm.mjs', factory, makeWorker: () => w, batchBytes: 4096 });
  assert.equal(h.offloaded, true);
  assert.equal(h.note, '');
  for (const p of pieces) {
    const q = p.slice();
    h.update(q);
    q.fill(0); // the caller's buffer is its own again at once: the bytes were copied
    await tick();
  }
  assert.equal(await h.digest(), sha(data));
  assert.equal(h.workerMs, 1.5);
  assert.equal(w.terminated, true);
  const batches = w.sent.filter((s) => s.type === 'bytes');
  // 20,000 = 4 full batches of 4,096 and the rest (3,616) sent with the digest
  assert.deepEqual(batches.map((b) => b.bytes.length), [4096, 4096, 4096, 4096, 3616]);
  assert.deepEqual(Buffer.concat(batches.map((b) => b.bytes)), Buffer.from(data));
  assert.ok(batches.every((b) => b.transfer === 1));
  // each batch's buffer came back before the next was full: two buffers at most
  assert.ok(w.buffers.size <= 2, `${w.buffers.size} buffers`);
  assert.deepEqual(w.sent.map((s) => s.type), ['start', 'bytes', 'bytes', 'bytes', 'bytes', 'bytes', 'digest']);
});

test('when the worker cannot start, the bytes are hashed here and the note says why', async () => {
  const cases = [
    [{ makeWorker: () => { throw new Error('Worker is not defined'); } }, 'sha256 on the reading thread: the hashing worker did not start (Worker is not defined)'],
    [{ makeWorker: () => fakeWorker({ startReply: 'error' }) }, 'sha256 on the reading thread: the hashing worker did not start (worker script 404)'],
    [{ makeWorker: () => fakeWorker({ startReply: 'x.mjs does not export createSHA256' }) },
      'sha256 on the reading thread: the hashing worker did not start (x.mjs does not export createSHA256)'],
    [{ url: null }, 'sha256 on the reading thread: the hashing worker did not start (no hash-wasm URL)'],
    [{ batchBytes: 0 }, 'sha256 on the reading thread: the hashing worker did not start (turned off (hashBatchBytes 0))'],
  ];
  for (const [o, note] of cases) {
    const h = await startHasher({ url: 'file:///hash-wasm.mjs', factory, batchBytes: 4096, ...o });
    assert.equal(h.offloaded, false);
    assert.equal(h.note, note);
    for (const p of pieces) h.update(p);
    assert.equal(await h.digest(), sha(data));
  }
  await assert.rejects(startHasher({ url: null, factory: null }), { code: 'internal', message: 'sha256 is not available (hash-wasm not loaded)' });
});

test('a worker that fails after it started fails the digest (no wrong sha256 in a stamp)', async () => {
  const w = fakeWorker({ dieAfter: 2 });
  const h = await startHasher({ url: 'file:///hash-wasm.mjs', factory, makeWorker: () => w, batchBytes: 4096 });
  for (const p of pieces) { h.update(p); await tick(); }
  await assert.rejects(h.digest(), { code: 'internal', message: 'the hashing worker failed: out of memory' });
  assert.equal(w.terminated, true);
});

test('hash-worker.js: ready, each batch hashed and handed back, the digest; a module without createSHA256 fails', () => {
  const worker = new URL('../../worker/hash-worker.js', import.meta.url).href;
  const run = (mod) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', `
    import { createHash } from 'node:crypto';
    const posted = [];
    globalThis.self = { postMessage: (m, t = []) => posted.push({ ...m, data: m.data ? Array.from(m.data) : undefined, transfer: t.length }) };
    await import(${JSON.stringify(worker)});
    await self.onmessage({ data: { type: 'start', url: ${JSON.stringify(mod)} } });
    await self.onmessage({ data: { type: 'bytes', data: new Uint8Array([97, 98]) } });
    await self.onmessage({ data: { type: 'bytes', data: new Uint8Array([99]) } });
    await self.onmessage({ data: { type: 'digest' } });
    process.stdout.write(JSON.stringify(posted));`], { encoding: 'utf-8' }));
  // a stand-in for hash-wasm's module: createSHA256 over node:crypto
  const good = 'data:text/javascript,' + encodeURIComponent(`import { createHash } from 'node:crypto';
    export async function createSHA256() { let h; return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } }; }`);
  const posted = run(good);
  assert.deepEqual(posted.map((m) => m.type), ['ready', 'buffer', 'buffer', 'digest']);
  assert.deepEqual([posted[1].data, posted[1].transfer, posted[2].data], [[97, 98], 1, [99]]);
  assert.equal(posted[3].hex, sha(Buffer.from('abc')));
  assert.equal(posted[3].hex, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'); // FIPS 180-2 'abc'
  const bad = run('data:text/javascript,' + encodeURIComponent('export const nothing = 1;'));
  assert.equal(bad[0].type, 'failed');
  assert.match(bad[0].message, /does not export createSHA256$/);
  assert.ok(bad.slice(1).every((m) => m.type === 'failed'), 'after a failed start the digest fails too');
});

test('a reader ahead of the hashing worker waits once `inflight` batches are there (no file queued in memory)', async () => {
  const w = fakeWorker();
  const held = [];
  const answer = w.postMessage;
  w.postMessage = (m, t) => { // hold the batches' answers back until released below
    if (m.type === 'bytes') { held.push(() => answer(m, t)); w.sent.push({ type: 'bytes-held' }); return; }
    answer(m, t);
  };
  const h = await startHasher({ url: 'file:///hash-wasm.mjs', factory, makeWorker: () => w, batchBytes: 1000, inflight: 2 });
  assert.equal(h.update(data.subarray(0, 1000)), undefined); // one batch out
  const wait = h.update(data.subarray(1000, 2500)); // a second batch out (and 500 staged): wait
  assert.ok(wait instanceof Promise);
  let went = false;
  wait.then(() => { went = true; });
  await tick(); await tick();
  assert.equal(went, false, 'the reader went on while 2 batches were at the worker');
  held.shift()(); // the worker hashes the first batch and hands its buffer back
  await tick(); await tick();
  assert.equal(went, true);
  held.shift()();
  h.update(data.subarray(2500));
  for (let i = 0; i < 40 && held.length; i++) { held.shift()(); await tick(); }
  const hex = h.digest();
  for (let i = 0; i < 40; i++) { while (held.length) held.shift()(); await tick(); }
  assert.equal(await hex, sha(data));
});

test('close() lets a waiting reader go (a cancelled read does not hang)', async () => {
  const w = fakeWorker();
  w.postMessage = (m) => { if (m.type === 'start') w.onmessage({ data: { type: 'ready' } }); }; // never answers a batch
  const h = await startHasher({ url: 'file:///hash-wasm.mjs', factory, makeWorker: () => w, batchBytes: 100, inflight: 1 });
  const wait = h.update(data.subarray(0, 100));
  assert.ok(wait instanceof Promise);
  h.close();
  await wait; // resolves
  assert.equal(w.terminated, true);
});
