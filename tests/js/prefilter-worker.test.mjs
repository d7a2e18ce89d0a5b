// worker/prefilter-worker.js under Node, as the page runs it: a stand-in `self` (postMessage,
// onmessage) and `fetch`. With the .wasm served it answers byte chunks from the WebAssembly
// kernel (`kernel: 'wasm'`); when the kernel cannot load it answers from prefilter.js and
// says why in every answer (`kernel_note`): never a silent fallback. Each case runs in a
// Node process of its own (the kernel is fetched once per thread, as in a worker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

/** Run prefilter-worker.js with `fetchBody` (JS source of an async fetch stand-in): send a
 *  spec and one byte chunk; its one answer. */
function answer(fetchBody) {
  const worker = new URL('../../worker/prefilter-worker.js', import.meta.url).href;
  const wasm = new URL('../../kernels/prefilter.wasm', import.meta.url);
  const exact = new URL('./exact-spec.mjs', import.meta.url).href;
  const code = `
    import { readFileSync } from 'node:fs';
    import { NO_EXACT } from ${JSON.stringify(exact)};
    const WASM = readFileSync(new URL(${JSON.stringify(wasm.href)}));
    const posted = [];
    globalThis.self = { postMessage: (m) => posted.push(m) };
    globalThis.fetch = ${fetchBody};
    await import(${JSON.stringify(worker)});
    const spec = { n: 2, ngrams: ['alpha beta'], format: 'jsonl', paths: [['text']], chars: {}, exact: NO_EXACT };
    await self.onmessage({ data: { type: 'spec', spec } });
    const data = new TextEncoder().encode('{"text": "x Alpha beta"}\\n{"text": "gamma"}\\n\\n');
    await self.onmessage({ data: { type: 'chunk', seq: 7, data } });
    process.stdout.write(JSON.stringify(posted));`;
  const posted = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf-8' }));
  assert.equal(posted.length, 1);
  return posted[0];
}

test('byte chunks are scanned by the WebAssembly kernel when it loads', () => {
  const a = answer(`async (url) => {
    if (!String(url).endsWith('/worker/prefilter.wasm')) throw new Error('fetched ' + url);
    return new Response(WASM, { headers: { 'content-type': 'application/wasm' } }); }`);
  assert.equal(a.type, 'scanned');
  assert.equal(a.seq, 7);
  assert.deepEqual([a.records, a.lines, a.records_in, a.lines_in], [[1], [1], 2, 3]);
  assert.equal(a.kernel, 'wasm');
  assert.equal(a.kernel_note, undefined);
});

test('when the kernel does not load, prefilter.js answers and the answer says why', () => {
  const a = answer(`async () => new Response('not found', { status: 404 })`);
  assert.equal(a.type, 'scanned');
  assert.deepEqual([a.records, a.lines, a.records_in, a.lines_in], [[1], [1], 2, 3]);
  assert.equal(a.kernel, 'js');
  assert.equal(a.kernel_note, 'WebAssembly kernel did not load: prefilter.wasm: HTTP 404');
  const b = answer(`async () => new Response(new Uint8Array([0, 97, 115, 109, 9, 9]))`);
  assert.equal(b.kernel, 'js');
  assert.match(b.kernel_note, /^WebAssembly kernel did not load: .*WebAssembly\.compile/);
});
