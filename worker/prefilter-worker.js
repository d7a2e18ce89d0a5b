// @ts-check
// A module worker that runs the prefilter on the chunks the main worker reads, so that
// reading (File.stream, sha256) and filtering run on several cores at once. The training
// pass starts a pool of these (prefilter-client.js), one per spare core; each chunk is scanned
// on its own, with chunk-local record and line numbers (prefilter.js scanChunk), so any worker
// may take any chunk; a chunk comes as UTF-8 bytes (transferred) or text. Byte chunks go to
// the WebAssembly kernel (prefilter-wasm.js); when it cannot load, to prefilter.js, and every
// answer says which scanned it and why (`kernel`, `kernel_note`): never a silent fallback.
// Its messages are protocol.js PrefilterIn / PrefilterOut.
import { PF_MSG } from './protocol.js';
import { createPrefilter } from './prefilter.js';
import { Utf8Error, scanData } from './prefilter-bytes.js';
import { createKernelScanner, loadKernel } from './prefilter-wasm.js';

const post = (/** @type {import('./protocol.js').PrefilterOut} */ m) => {
  // a byte chunk's buffer goes back with the answer: the reader fills it again (no allocation)
  if (m.buffer) self.postMessage(m, [m.buffer]); else self.postMessage(m);
};
const kernel = loadKernel().then((mod) => ({ mod, error: '' }), (e) => ({ mod: null, error: String((e && e.message) || e) }));
/** @type {Promise<{js: any, wasm: import('./prefilter-wasm.js').WasmScanner | null, note: string}> | null} */
let ready = null;

/** @param {import('./protocol.js').PrefilterSpec} spec */
async function setUp(spec) {
  const js = createPrefilter(spec);
  const k = await kernel;
  if (!k.mod) return { js, wasm: null, note: `WebAssembly kernel did not load: ${k.error}` };
  try {
    return { js, wasm: createKernelScanner(spec, k.mod, js), note: '' };
  } catch (e) {
    return { js, wasm: null, note: `WebAssembly kernel did not start: ${String((e && /** @type {any} */ (e).message) || e)}` };
  }
}

self.onmessage = async (/** @type {MessageEvent<import('./protocol.js').PrefilterIn>} */ e) => {
  const m = e.data;
  if (m.type === PF_MSG.SPEC) {
    ready = setUp(m.spec);
    return;
  }
  if (m.type !== PF_MSG.CHUNK || !ready) return;
  const pf = await ready; // chunks that arrive while the kernel loads wait, in order
  const back = typeof m.data === 'string' ? {} : { buffer: /** @type {ArrayBuffer} */ (m.data.buffer) };
  try {
    const r = scanData(pf.js, m.data, pf.wasm);
    const kind = pf.wasm && typeof m.data !== 'string' ? 'wasm' : 'js';
    post({ type: PF_MSG.SCANNED, seq: m.seq, ...r, kernel: kind, ...(pf.note ? { kernel_note: pf.note } : {}), ...back });
  } catch (err) {
    // a UTF-8 error carries its chunk-local line and byte (the client names file and line)
    post({ type: PF_MSG.FAILED, seq: m.seq, message: String((err instanceof Error && err.message) || err), ...(err instanceof Utf8Error ? { utf8: err.utf8 } : {}), ...back });
  }
};
