// The contract held to the code under Node: the worker's op table is protocol.js RUN_OPS,
// the worker restates none of Python's constants, and nothing evaluates fetched text (the
// page's CSP forbids it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as P from '../../worker/protocol.js';
import { OPS } from '../../worker/ops.js';
import { DIM as SIM_DIM } from '../../worker/embed/similarity.js';
import { DEFAULTS as ENCODER_DEFAULTS } from '../../worker/embed/encoder.js';
import { SETTINGS } from '../../worker/settings.js';
import { CONSTANTS } from './constants.mjs';

const WORKER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../worker');

function jsFiles(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? jsFiles(p) : n.endsWith('.js') ? [p] : [];
  });
}

test('the worker answers exactly the RUN_OPS; every op name is in one vocabulary', () => {
  assert.deepEqual(Object.keys(OPS).sort(), [...P.RUN_OPS].sort());
  const names = Object.values(P.OP);
  assert.equal(new Set(names).size, names.length);
  for (const op of [...P.RUN_OPS, ...P.BRIDGE_OPS]) assert.ok(names.includes(op), op);
  for (const op of names) assert.match(op, /^(inspect|constants|close|(cont|para|purify|bench)\.[a-z_]+)$/, op);
  for (const op of P.QUEUED_OPS) assert.ok(P.RUN_OPS.includes(op), op);
  assert.equal(P.validate(P.run('x', P.OP.CONT_START, {})), 'run: unknown op "cont.start"'); // a bridge-only op
});

test('every `bridge(...)` call in worker/ names an OP constant', () => {
  let calls = 0;
  for (const f of jsFiles(WORKER)) {
    const src = readFileSync(f, 'utf-8');
    for (const m of src.matchAll(/\bbridge\(\s*([^,)]+)/g)) {
      if (/function bridge|export function/.test(src.slice(Math.max(0, m.index - 20), m.index))) continue;
      assert.match(m[1], /^OP\.[A-Z_]+$/, `${path.basename(f)}: bridge(${m[1]}`);
      assert.ok(P.BRIDGE_OPS.includes(P.OP[m[1].slice(3)]), `${m[1]} is not a bridge op`);
      calls++;
    }
  }
  assert.ok(calls >= 19, `only ${calls} bridge calls found`);
});

test('no worker module evaluates text as code (CSP: script-src without unsafe-eval)', () => {
  for (const f of jsFiles(WORKER)) {
    const src = readFileSync(f, 'utf-8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    assert.doesNotMatch(src, /new\s+Function\s*\(|\beval\s*\(/, path.relative(WORKER, f));
  }
});

test('constants the JS modules keep for themselves agree with Python (parity)', () => {
  assert.equal(SIM_DIM, CONSTANTS.embedding_dims); // similarity.js runs without a runtime (tests)
  assert.equal(ENCODER_DEFAULTS.window, CONSTANTS.para_window); // encoder.js defaults (the worker passes the constant)
  assert.equal(ENCODER_DEFAULTS.batchSize, SETTINGS.embedBatch);
  // nothing else restates them: no 0.75, 256-piece window or export name in worker/ code
  for (const f of jsFiles(WORKER)) {
    const src = readFileSync(f, 'utf-8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    const rel = path.relative(WORKER, f);
    assert.doesNotMatch(src, /0\.75|eval\.clean|contamination-report|paraphrase-(pairs|groups)|SQLite format/, rel);
    if (!rel.startsWith('embed')) assert.doesNotMatch(src, /\b(256|384)\b/, rel);
  }
});

test('dead code stays gone: isTerminal, tokenizerConfigUrl, prefilter.js has, the bridge`s cont.export', () => {
  assert.equal('isTerminal' in P, false);
  assert.equal('tokenizerConfigUrl' in ENCODER_DEFAULTS, false);
  const prefilter = readFileSync(path.join(WORKER, 'prefilter.js'), 'utf-8');
  assert.doesNotMatch(prefilter, /const has = /);
  assert.equal(Object.values(P.OP).includes('cont.export'), false);
});

test('dead code stays gone: the encoder`s ignored `sort` option, the page`s COUNT_KEYS', () => {
  // encode()/encodeIds() always run equal-length batches; the option they once accepted and
  // ignored is gone, and no caller passes it (embed/schedule.js orders rows itself). tsc also
  // refuses it: their options are typed {onBatch?}.
  const strip = (f) => readFileSync(f, 'utf-8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const f of jsFiles(WORKER)) {
    assert.doesNotMatch(strip(f), /\.encode(Ids)?\([^)]*\bsort\b/, path.relative(WORKER, f));
  }
  assert.doesNotMatch(strip(path.join(WORKER, 'embed', 'encoder.js')), /\bsort\s*[=,}]|options\.sort/);
  // the page reads Python's summary keys and view directly (site/sections/contamination*.js)
  for (const f of jsFiles(path.join(WORKER, '..', 'site'))) assert.doesNotMatch(strip(f), /COUNT_KEYS/, f);
});
