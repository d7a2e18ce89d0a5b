// @ts-check
// A module worker that runs worker/prefilter.js on the chunks the main worker reads, so that
// reading (File.stream, sha256, UTF-8) and filtering run on two cores at once. One
// instance per training pass; chunks are scanned in the order they arrive.
//
// in:  {type: 'spec', spec}                 (createPrefilter's spec; resets the counts)
//      {type: 'chunk', seq, text}
// out: {type: 'scanned', seq, records, lines, text, records_total, chars}
//      {type: 'failed', seq, message}
import { createPrefilter } from './prefilter.js';

let pf = null;
const state = { records: 0, lines: 0 };

self.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'spec') {
    pf = createPrefilter(m.spec);
    state.records = 0;
    state.lines = 0;
    return;
  }
  if (m.type !== 'chunk') return;
  try {
    const c = pf.scan(m.text, state);
    self.postMessage({
      type: 'scanned',
      seq: m.seq,
      records: c.map((x) => x[0]),
      lines: c.map((x) => x[1]),
      text: c.map((x) => x[2]).join('\n'),
      records_total: state.records,
      chars: m.text.length,
    });
  } catch (err) {
    self.postMessage({ type: 'failed', seq: m.seq, message: String((err && err.message) || err) });
  }
};
