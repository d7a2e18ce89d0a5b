// site/sections/paraphrases-state.js with a fake worker client: exports carry an explicit
// threshold, regroups run one at a time, and a late failure for a replaced result stays quiet.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Regrouper, exportsAt } from '../../../site/sections/paraphrases-state.js';
import { OP } from '../../../worker/protocol.js';

function fakeClient() {
  const calls = [];
  return {
    calls,
    request(op, args) {
      const call = { op, args };
      call.promise = new Promise((resolve, reject) => Object.assign(call, { resolve, reject }));
      calls.push(call);
      return { id: `r${calls.length}`, promise: call.promise };
    },
  };
}

const held = (handle, threshold) => ({ handle, figures: { threshold, groups: 1 }, exports: new Map() });
const tick = () => new Promise((r) => setTimeout(r, 0));

test('exports are asked for at an explicit threshold, and cached per threshold', async () => {
  const client = fakeClient();
  const shown = held('h1', 0.9);
  const first = exportsAt(client, shown, 0.9);
  assert.deepEqual(client.calls.map((c) => [c.op, c.args]), [[OP.PARA_EXPORTS, { handle: 'h1', threshold: 0.9, keep: 'first' }]]);
  client.calls[0].resolve({ exports: [{ name: 'paraphrase-pairs.csv', text: 'at 0.90' }] });
  assert.equal((await first).exports[0].text, 'at 0.90');
  await exportsAt(client, shown, 0.9); // cached: no second request
  assert.equal(client.calls.length, 1);
  const other = exportsAt(client, shown, 0.85);
  assert.deepEqual(client.calls[1].args, { handle: 'h1', threshold: 0.85, keep: 'first' });
  client.calls[1].resolve({ exports: [{ name: 'paraphrase-pairs.csv', text: 'at 0.85' }] });
  assert.equal((await other).exports[0].text, 'at 0.85');
  // the row a group keeps in eval.deduplicated.* is asked for too, and cached apart
  const longest = exportsAt(client, shown, 0.9, 'longest');
  assert.deepEqual(client.calls[2].args, { handle: 'h1', threshold: 0.9, keep: 'longest' });
  client.calls[2].resolve({ exports: [{ name: 'eval.deduplicated.jsonl', text: 'longest' }] });
  assert.equal((await longest).exports[0].text, 'longest');
  assert.equal(client.calls.length, 3);
});

test('a download while a regroup runs gets the exports of the threshold shown, not the one coming', async () => {
  const client = fakeClient();
  const shown = held('h1', 0.9);
  const r = new Regrouper({ client, current: () => shown });
  r.want(0.85); // para_group to 0.85 is in flight; the page still shows 0.90
  const dl = exportsAt(client, shown, shown.figures.threshold);
  assert.deepEqual(client.calls.map((c) => [c.op, c.args]), [
    [OP.PARA_GROUP, { handle: 'h1', threshold: 0.85 }],
    [OP.PARA_EXPORTS, { handle: 'h1', threshold: 0.9, keep: 'first' }],
  ]);
  client.calls[0].resolve({ figures: { threshold: 0.85, groups: 2 }, ms: 1 });
  client.calls[1].resolve({ exports: [] });
  await dl;
  await tick();
  assert.equal(shown.figures.threshold, 0.85);
  // Now 0.85 is shown: a download asks for 0.85 (the 0.90 exports stay cached under 0.90).
  exportsAt(client, shown, shown.figures.threshold);
  assert.deepEqual(client.calls[2].args, { handle: 'h1', threshold: 0.85, keep: 'first' });
  assert.deepEqual([...shown.exports.keys()], ['0.90 first', '0.85 first']);
});

test('regroups run one at a time; only the latest waiting threshold is sent', async () => {
  const client = fakeClient();
  const shown = held('h1', 0.9);
  const grouped = [];
  const r = new Regrouper({ client, current: () => shown, onGrouped: (s, v, t) => grouped.push(t) });
  r.want(0.9); // already shown: nothing to do
  assert.equal(client.calls.length, 0);
  r.want(0.8);
  r.want(0.82);
  r.want(0.95);
  assert.equal(client.calls.length, 1);
  client.calls[0].resolve({ figures: { threshold: 0.8 }, ms: 1 });
  await tick();
  assert.deepEqual(client.calls.map((c) => c.args.threshold), [0.8, 0.95]);
  client.calls[1].resolve({ figures: { threshold: 0.95 }, ms: 1 });
  await tick();
  assert.deepEqual(grouped, [0.8, 0.95]);
  assert.equal(shown.figures.threshold, 0.95);
});

test('a regroup that fails after a newer result replaced its job shows nothing', async () => {
  const client = fakeClient();
  let shown = held('h1', 0.9);
  const failures = [];
  const grouped = [];
  const r = new Regrouper({ client, current: () => shown, onFailed: (e) => failures.push(e.message), onGrouped: () => grouped.push(1) });
  r.want(0.8);
  // A new run finishes; the worker closes h1, so the regroup of h1 fails.
  const newer = held('h2', 0.9);
  shown = newer;
  client.calls[0].reject({ code: 'bad_input', message: 'no paraphrase job h1 (it was closed)' });
  await tick();
  assert.deepEqual(failures, [], 'a stale error was shown over the newer result');
  assert.deepEqual(grouped, []);
  assert.equal(newer.figures.threshold, 0.9);
  // A failure for the result still shown is reported.
  r.want(0.8);
  client.calls[1].reject({ code: 'internal', message: 'boom' });
  await tick();
  assert.deepEqual(failures, ['boom']);
});
