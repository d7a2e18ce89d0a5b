// @ts-check
// A module worker that runs worker/prefilter.js on the chunks the main worker reads, so that
// reading (File.stream, sha256, UTF-8) and filtering run on two cores at once. One
// instance per training pass; chunks are scanned in the order they arrive. Its messages are
// protocol.js PrefilterIn / PrefilterOut; its client is prefilter-client.js.
import { PF_MSG } from './protocol.js';
import { createPrefilter } from './prefilter.js';

let pf = null;
const state = { records: 0, lines: 0 };
const post = (/** @type {import('./protocol.js').PrefilterOut} */ m) => self.postMessage(m);

self.onmessage = (/** @type {MessageEvent<import('./protocol.js').PrefilterIn>} */ e) => {
  const m = e.data;
  if (m.type === PF_MSG.SPEC) {
    pf = createPrefilter(m.spec);
    state.records = 0;
    state.lines = 0;
    return;
  }
  if (m.type !== PF_MSG.CHUNK) return;
  try {
    const c = pf.scan(m.text, state);
    post({
      type: PF_MSG.SCANNED,
      seq: m.seq,
      records: c.map((x) => x[0]),
      lines: c.map((x) => x[1]),
      text: c.map((x) => x[2]).join('\n'),
      records_total: state.records,
      chars: m.text.length,
    });
  } catch (err) {
    post({ type: PF_MSG.FAILED, seq: m.seq, message: String((err && err.message) || err) });
  }
};
