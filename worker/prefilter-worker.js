// @ts-check
// A module worker that runs worker/prefilter.js on the chunks the main worker reads, so that
// reading (File.stream, sha256, UTF-8) and filtering run on several cores at once. The
// training pass starts a pool of these (prefilter-client.js), one per spare core; each chunk
// is scanned on its own, with chunk-local record and line numbers (prefilter.js scanChunk),
// so any worker may take any chunk; a chunk comes as UTF-8 bytes (transferred) or text. Its messages are protocol.js PrefilterIn / PrefilterOut.
import { PF_MSG } from './protocol.js';
import { createPrefilter } from './prefilter.js';
import { scanData } from './prefilter-bytes.js';

let pf = null;
const post = (/** @type {import('./protocol.js').PrefilterOut} */ m) => self.postMessage(m);

self.onmessage = (/** @type {MessageEvent<import('./protocol.js').PrefilterIn>} */ e) => {
  const m = e.data;
  if (m.type === PF_MSG.SPEC) {
    pf = createPrefilter(m.spec);
    return;
  }
  if (m.type !== PF_MSG.CHUNK) return;
  try {
    post({ type: PF_MSG.SCANNED, seq: m.seq, ...scanData(pf, m.data) });
  } catch (err) {
    // a UTF-8 error carries its chunk-local line and byte (the client names file and line)
    post({ type: PF_MSG.FAILED, seq: m.seq, message: String((err && err.message) || err), ...(err && err.utf8 ? { utf8: err.utf8 } : {}) });
  }
};
