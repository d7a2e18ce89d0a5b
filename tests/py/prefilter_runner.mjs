// Runs worker/prefilter.js (or, with KERNEL = wasm, the WebAssembly kernel through
// worker/prefilter-wasm.js, on the chunk's UTF-8 bytes) under Node for tests/py/test_prefilter.py.
// usage: node prefilter_runner.mjs SPEC.json TRAIN.txt CHUNK_CHARS [js|wasm]  -> JSON on stdout
import { readFileSync } from 'node:fs';
import { createPrefilter } from '../../worker/prefilter.js';
import { createKernelScanner, loadKernel } from '../../worker/prefilter-wasm.js';
import { lineStarts } from '../../worker/prefilter-bytes.js';

const [specPath, trainPath, chunkArg, kernel = 'js'] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, 'utf8'));
let text = readFileSync(trainPath, 'utf8');
if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
const chunk = Number(chunkArg) || 1 << 20;
const pf = createPrefilter(spec);
const wasm = kernel === 'wasm'
  ? createKernelScanner(spec, await loadKernel(readFileSync(new URL('../../kernels/prefilter.wasm', import.meta.url))), pf) : null;
const enc = new TextEncoder();
const state = { records: 0, lines: 0 };
let bytes = 0; // of the chunks before: candidates' offsets are in the file (after its BOM)
const calls = [];
let start = 0;
while (start < text.length) {
  let end = start + chunk >= text.length ? text.length : text.lastIndexOf('\n', start + chunk);
  if (end < start) end = text.indexOf('\n', start + chunk);
  if (end === -1) end = text.length; else if (end < text.length) end += 1;
  const piece = text.slice(start, end);
  if (wasm) {
    const r = wasm.scanBytes(enc.encode(piece)); // chunk-local numbers: offset as prefilter-client.js does
    calls.push({ records: r.records.map((x) => x + state.records), lines: r.lines.map((x) => x + state.lines), text: r.text,
                 records_total: state.records + r.records_in, chars: r.chars, offsets: r.offsets.map((o) => o + bytes) });
    state.records += r.records_in;
    state.lines += r.lines_in;
  } else {
    const before = state.lines;
    const c = pf.scan(piece, state);
    const offsets = lineStarts(enc.encode(piece), c.map((x) => x[1] - before)).map((o) => o + bytes);
    calls.push({ records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'),
                 records_total: state.records, chars: piece.length, offsets });
  }
  bytes += enc.encode(piece).length;
  start = end;
}
process.stdout.write(JSON.stringify(calls));
