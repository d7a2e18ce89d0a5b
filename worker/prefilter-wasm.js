// @ts-check
// The WebAssembly scan kernel (kernels/prefilter.c, served as worker/prefilter.wasm) behind
// the same ChunkScan as prefilter.js scanChunk: it reads a chunk's UTF-8 bytes directly (no
// TextDecoder, no JSON.parse) and makes prefilter.js's decisions (or adds a candidate, never
// drops one: see the C source). It hashes the spec's n-grams into its own table
// (pf_add_ngrams, prefilter.js's hash code in C; tables() lets the tests compare the two);
// the char_table map and the exact-key probe table are prefilter.js's
// (createPrefilter().tables), with the kernel's own characters and their flags from the
// spec's `kernel` (marks of every script), copied into the module's memory once (pf_exact
// takes the probe table). Python's spec stays the only source of the rule.
//
// loadKernel() fetches and compiles the module once per thread; createKernelScanner() wraps
// a compiled module and a JS prefilter. No DOM; under Node the tests pass the bytes.

import { createPrefilter } from './prefilter.js';
import { Utf8Error, utf8Position } from './prefilter-bytes.js';

/** @typedef {{scanBytes: (bytes: Uint8Array) => import('./protocol.js').ChunkScan, tables: () => {table: Uint32Array, bits: Uint32Array, exact: Uint32Array}}} WasmScanner */

// candidates' lines, decoded after the kernel checked the whole chunk (a U+FEFF is text)
const LINES = new TextDecoder('utf-8', { ignoreBOM: true });

/** @type {Promise<WebAssembly.Module> | null} */
let compiled = null;

/**
 * The compiled kernel, fetched once per thread from next to this module (dist/worker/).
 * @param {BufferSource} [bytes]  the .wasm bytes (Node tests), else fetched
 * @returns {Promise<WebAssembly.Module>} rejects when WebAssembly is unavailable or the file
 *   does not load or compile
 */
export function loadKernel(bytes) {
  if (bytes) return WebAssembly.compile(bytes);
  if (!compiled) {
    compiled = fetch(new URL('./prefilter.wasm', import.meta.url)).then((r) => {
      if (!r.ok) throw new Error(`prefilter.wasm: HTTP ${r.status}`);
      return r.arrayBuffer();
    }).then((b) => WebAssembly.compile(b));
  }
  return compiled;
}

const align = (/** @type {number} */ x) => (x + 15) & ~15;

/**
 * A kernel instance for one spec.
 *
 * Args: spec: PrefilterSpec (from bridge cont.prefilter_spec); mod: from loadKernel; js: the
 *   spec's createPrefilter (its tables are used; made here when absent).
 * Returns: {scanBytes(bytes) -> ChunkScan} (chunk-local numbers, as prefilter.js scanChunk;
 *   chars = UTF-16 code units of the chunk; ms = time spent here), and tables() -> copies of
 *   the kernel's {table, bits, exact} (for the tests).
 * Raises: Error when the module does not instantiate or the spec has more field paths than
 *   the kernel takes (64); scanBytes throws Utf8Error (chunk-local line and byte).
 * @param {import('./protocol.js').PrefilterSpec} spec @param {WebAssembly.Module} mod
 * @param {ReturnType<typeof createPrefilter>} [js]
 * @returns {WasmScanner}
 */
export function createKernelScanner(spec, mod, js = createPrefilter(spec)) {
  const inst = new WebAssembly.Instance(mod, {});
  const ex = /** @type {any} */ (inst.exports);
  const memory = /** @type {WebAssembly.Memory} */ (ex.memory);
  const t = js.tables;
  // the field paths: steps as [key length in UTF-16 units | -1 for '[]', address of the units]
  const keys = [];
  const psteps = [];
  const pstep0 = [];
  let nsteps = 0;
  for (const path of spec.paths) {
    psteps.push(path.length);
    pstep0.push(nsteps);
    nsteps += path.length;
    for (const s of path) keys.push(Array.isArray(s) ? '[]' : String(s)); // a filter step: every element, as prefilter.js
  }
  // the char_table replacements: [length, units...] each, at EXT <= -3 (pool index - 3)
  const ext = Int32Array.from(t.extCode);
  const pool = /** @type {number[]} */ ([]);
  const many = (/** @type {number} */ c, /** @type {string} */ r) => {
    ext[c] = -3 - pool.length;
    pool.push(r.length);
    for (let i = 0; i < r.length; i++) pool.push(r.charCodeAt(i));
  };
  for (const [c, r] of t.extText) many(c, r);
  // the kernel's characters beyond char_table (marks...) and the flags that make the kernel
  // check reordering and composition as it reads (kernel_spec.kernel_table); without them
  // the kernel reads char_table alone, as prefilter.js does
  const kc = spec.kernel;
  const flags = kc ? new Uint32Array(0x10000) : null;
  if (kc && flags) {
    for (const [k, r] of Object.entries(kc.chars)) {
      const c = Number(k);
      if (c < 128 || c > 0xffff) continue;
      if (r.length === 0) ext[c] = -2; else if (r.length === 1) ext[c] = r.charCodeAt(0); else many(c, r);
    }
    for (const [k, b] of Object.entries(kc.flags)) if (Number(k) <= 0xffff) flags[Number(k)] = b;
  }
  const keyUnits = keys.reduce((a, k) => a + (k === '[]' ? 0 : k.length), 0);
  // the layout: cfg | table | bits | exact | ext | flags | pool | psteps | pstep0 | steps | key units | ring | res | out | chunk
  let at = align(memory.buffer.byteLength); // past the module's own data and stack
  const place = (/** @type {number} */ bytes) => { const a = at; at = align(at + bytes); return a; };
  const cfgAt = place(14 * 4);
  const tableAt = place(t.table.byteLength);
  const bitsAt = place(t.bits.byteLength);
  const exactAt = place(t.exact.byteLength);
  const extAt = place(ext.byteLength);
  const flagsAt = flags ? place(flags.byteLength) : 0;
  const poolAt = place(pool.length * 2);
  const pstepsAt = place(psteps.length * 4);
  const pstep0At = place(pstep0.length * 4);
  const stepsAt = place(nsteps * 8);
  const keysAt = place(keyUnits * 2);
  const ringAt = place(Math.max(t.n, 1) * 4);
  const resAt = place(6 * 4);
  const fixedEnd = at;
  const grow = (/** @type {number} */ end) => {
    const need = end - memory.buffer.byteLength;
    if (need > 0) memory.grow(Math.ceil(need / 65536));
  };
  grow(fixedEnd);
  const i32 = () => new Int32Array(memory.buffer);
  const u8 = () => new Uint8Array(memory.buffer);
  u8().set(new Uint8Array(ext.buffer), extAt); // table and bits: fresh memory, zeroed
  if (flags) u8().set(new Uint8Array(flags.buffer), flagsAt);
  u8().set(new Uint8Array(t.exact.buffer, t.exact.byteOffset, t.exact.byteLength), exactAt);
  new Uint16Array(memory.buffer, poolAt, pool.length).set(pool);
  i32().set(psteps, pstepsAt / 4);
  i32().set(pstep0, pstep0At / 4);
  let k = 0;
  let unitAt = keysAt;
  const steps = i32();
  for (const key of keys) {
    if (key === '[]') { steps[stepsAt / 4 + 2 * k] = -1; steps[stepsAt / 4 + 2 * k + 1] = 0; } else {
      steps[stepsAt / 4 + 2 * k] = key.length;
      steps[stepsAt / 4 + 2 * k + 1] = unitAt;
      const units = new Uint16Array(memory.buffer, unitAt, key.length);
      for (let i = 0; i < key.length; i++) units[i] = key.charCodeAt(i);
      unitAt += key.length * 2;
    }
    k++;
  }
  i32().set([t.n, t.top, tableAt, t.mask, bitsAt, extAt, poolAt, spec.paths.length, pstepsAt, pstep0At, stepsAt,
    spec.format === 'text' ? 1 : 0, ringAt, flagsAt], cfgAt / 4); // flags 0: char_table alone
  if (ex.pf_configure(cfgAt) !== 0) throw new Error(`the kernel takes at most 64 field paths (${spec.paths.length} given)`);
  ex.pf_exact(exactAt, t.exactMask);
  // the n-grams' UTF-16 units, each ended by '\n', in the space the chunks use later
  const units = spec.ngrams.reduce((a, g) => a + g.length + 1, 0);
  grow(fixedEnd + units * 2);
  const grams = new Uint16Array(memory.buffer, fixedEnd, units);
  let u = 0;
  for (const g of spec.ngrams) {
    for (let i = 0; i < g.length; i++) grams[u++] = g.charCodeAt(i);
    grams[u++] = 10;
  }
  ex.pf_add_ngrams(fixedEnd, units);
  let cap = 1024; // candidates the out area holds; doubled when a chunk has more

  /** @param {Uint8Array} bytes @returns {import('./protocol.js').ChunkScan} */
  const scanBytes = (bytes) => {
    const t0 = performance.now();
    let rc;
    let outAt;
    let chunkAt;
    for (;;) {
      outAt = fixedEnd;
      chunkAt = align(outAt + cap * 16);
      grow(chunkAt + bytes.byteLength + 1);
      u8().set(bytes, chunkAt);
      u8()[chunkAt + bytes.byteLength] = 0; // the kernel's sentinel
      rc = ex.pf_scan(chunkAt, bytes.byteLength, outAt, cap, resAt);
      if (rc !== -2) break;
      cap *= 2;
    }
    if (rc === -3) throw new Error('the kernel has no exact-key probes (pf_exact)');
    if (rc === -1) throw new Utf8Error(utf8Position(bytes));
    const m = i32();
    const [count, recordsIn, linesIn, units] = m.subarray(resAt / 4, resAt / 4 + 4);
    const records = new Array(count);
    const lines = new Array(count);
    const texts = new Array(count);
    const offsets = new Array(count); // each candidate line's first byte in the chunk
    for (let i = 0, o = outAt / 4; i < count; i++, o += 4) {
      records[i] = m[o];
      lines[i] = m[o + 1];
      offsets[i] = m[o + 2];
      texts[i] = LINES.decode(bytes.subarray(m[o + 2], m[o + 3]));
    }
    return { records, lines, offsets, text: texts.join('\n'), records_in: recordsIn, lines_in: linesIn, chars: units, ms: performance.now() - t0 };
  };
  const tables = () => ({
    table: new Uint32Array(memory.buffer.slice(tableAt, tableAt + t.table.byteLength)),
    bits: new Uint32Array(memory.buffer.slice(bitsAt, bitsAt + t.bits.byteLength)),
    exact: new Uint32Array(memory.buffer.slice(exactAt, exactAt + t.exact.byteLength)),
  });
  return { scanBytes, tables };
}
