// @ts-check
// similarity.js: from unit vectors to what the paraphrase job needs, without ever holding
// n x n: every pair i < j with cosine >= floor, each row's nearest neighbour, packed as the
// bridge's binary similarity block (py/evalsieve/worker_blocks.py unpack_similarity).
//
// Pure functions over typed arrays; the matrix product is passed in (the worker uses
// encoder.tile, i.e. model/tile.onnx under onnxruntime-web; tests use a plain JS dot).

export const DIM = 384;

/**
 * @typedef {(A: Float32Array, m: number, B: Float32Array, k: number) => Promise<Float32Array>} MatMul  m x k, A . B^T
 * @typedef {{I: Int32Array, J: Int32Array, C: Float32Array, NN: Float32Array, NNI: Int32Array}} Similarity
 */

/**
 * A growable typed array (pairs are not known in advance).
 * @template {Int32Array | Float32Array} T
 */
class Grow {
  /** @param {new (length: number) => T} Type @param {number} [cap] */
  constructor(Type, cap = 1024) {
    this.Type = Type;
    this.a = new Type(cap);
    this.n = 0;
  }

  /** @param {number} x */
  push(x) {
    if (this.n === this.a.length) {
      const b = new this.Type(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }

  /** @returns {T} */
  view() {
    return /** @type {T} */ (this.a.subarray(0, this.n));
  }
}

/**
 * Candidate pairs and nearest neighbours, block by block over the upper triangle.
 *
 * Args:
 *   emb: Float32Array n x 384, row-major unit vectors.
 *   n: rows.
 *   matmul: async (A, m, B, k) => Float32Array m x k with A . B^T.
 *   floor: keep every pair i < j with cosine >= floor (compared in float32, as the CLI does).
 *   block: rows per tile side; peak extra memory block^2 x 4 bytes.
 *   onBlock: optional async (doneBlocks, totalBlocks) => void, awaited after each tile
 *     (progress, cancellation: throw to stop).
 * Returns: {I: Int32Array, J: Int32Array, C: Float32Array} sorted by (i, j),
 *   NN: Float32Array n (best cosine to another row), NNI: Int32Array n (its row; the lowest
 *   on ties). For n == 1: NN [0], NNI [-1] (as the CLI passes).
 * @param {Float32Array} emb @param {number} n @param {MatMul} matmul @param {number} floor
 * @param {{block?: number, onBlock?: ((done: number, total: number) => Promise<void> | void) | null}} [opts]
 * @returns {Promise<Similarity>}
 */
export async function similarity(emb, n, matmul, floor, { block = 512, onBlock = null } = {}) {
  const NN = new Float32Array(n).fill(-Infinity);
  const NNI = new Int32Array(n).fill(-1);
  const I = new Grow(Int32Array);
  const J = new Grow(Int32Array);
  const C = new Grow(Float32Array);
  const f = Math.fround(floor);
  const better = (/** @type {number} */ r, /** @type {number} */ v, /** @type {number} */ j) => v > NN[r] || (v === NN[r] && j < NNI[r]);
  const nb = Math.ceil(n / block);
  const total = (nb * (nb + 1)) / 2;
  let done = 0;
  for (let i0 = 0; i0 < n; i0 += block) {
    const m = Math.min(block, n - i0);
    const A = emb.subarray(i0 * DIM, (i0 + m) * DIM);
    // Pairs of one tile row come out sorted by (i, j) when tiles go left to right and the
    // rows of the tile row are collected first, then appended in i order.
    const rowPairs = Array.from({ length: m }, () => /** @type {number[]} */ ([]));
    for (let j0 = i0; j0 < n; j0 += block) {
      const k = Math.min(block, n - j0);
      const T = await matmul(A, m, emb.subarray(j0 * DIM, (j0 + k) * DIM), k);
      for (let a = 0; a < m; a++) {
        const i = i0 + a;
        const row = T.subarray(a * k, (a + 1) * k);
        const bStart = j0 === i0 ? a + 1 : 0;
        for (let b = bStart; b < k; b++) {
          const v = row[b];
          const j = j0 + b;
          if (better(i, v, j)) { NN[i] = v; NNI[i] = j; }
          if (better(j, v, i)) { NN[j] = v; NNI[j] = i; }
          if (v >= f) rowPairs[a].push(j, v);
        }
      }
      done += 1;
      if (onBlock) await onBlock(done, total);
    }
    for (let a = 0; a < m; a++) {
      const p = rowPairs[a];
      for (let t = 0; t < p.length; t += 2) {
        I.push(i0 + a);
        J.push(p[t]);
        C.push(p[t + 1]);
      }
    }
  }
  if (n === 1) { NN[0] = 0; NNI[0] = -1; }
  return { I: I.view(), J: J.view(), C: C.view(), NN, NNI };
}

/**
 * The bridge's binary similarity block, little-endian: I int32[p], J int32[p], C float32[p],
 * NN float32[n], NNI int32[n], then (if emb) EMB float32[n x 384].
 *
 * @param {Similarity} sim @param {Float32Array | null} [emb]
 * @returns {Uint8Array}
 */
export function packSimilarity({ I, J, C, NN, NNI }, emb = null) {
  const p = I.length;
  const n = NN.length;
  const bytes = 12 * p + 8 * n + (emb ? 4 * emb.length : 0);
  const buf = new ArrayBuffer(bytes);
  const dv = new DataView(buf);
  let off = 0;
  const put = (/** @type {Int32Array | Float32Array} */ arr, /** @type {boolean} */ float) => {
    for (let t = 0; t < arr.length; t++, off += 4) {
      if (float) dv.setFloat32(off, arr[t], true);
      else dv.setInt32(off, arr[t], true);
    }
  };
  put(I, false);
  put(J, false);
  put(C, true);
  put(NN, true);
  put(NNI, false);
  if (emb) put(emb, true);
  return new Uint8Array(buf);
}

/** A . B^T in plain JS (tests, and a fallback when no tile graph is loaded). @type {MatMul} */
export async function dotTile(A, m, B, k) {
  const out = new Float32Array(m * k);
  for (let a = 0; a < m; a++) {
    for (let b = 0; b < k; b++) {
      let s = 0;
      for (let d = 0; d < DIM; d++) s += A[a * DIM + d] * B[b * DIM + d];
      out[a * k + b] = s;
    }
  }
  return out;
}
