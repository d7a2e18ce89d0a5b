// Runs worker/prefilter.js under Node for tests/py/test_prefilter.py.
// usage: node prefilter_runner.mjs SPEC.json TRAIN.txt CHUNK_CHARS  -> JSON on stdout
import { readFileSync } from 'node:fs';
import { createPrefilter } from '../../worker/prefilter.js';

const [specPath, trainPath, chunkArg] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, 'utf8'));
let text = readFileSync(trainPath, 'utf8');
if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
const chunk = Number(chunkArg) || 1 << 20;
const pf = createPrefilter(spec);
const state = { records: 0, lines: 0 };
const calls = [];
let start = 0;
while (start < text.length) {
  let end = start + chunk >= text.length ? text.length : text.lastIndexOf('\n', start + chunk);
  if (end < start) end = text.indexOf('\n', start + chunk);
  if (end === -1) end = text.length; else if (end < text.length) end += 1;
  const piece = text.slice(start, end);
  const c = pf.scan(piece, state);
  calls.push({ records: c.map((x) => x[0]), lines: c.map((x) => x[1]), text: c.map((x) => x[2]).join('\n'),
               records_total: state.records, chars: piece.length });
  start = end;
}
process.stdout.write(JSON.stringify(calls));
