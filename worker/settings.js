// @ts-check
// Engineering settings of the worker: sizes and limits that change speed, memory and how
// soon a cancel is seen, never a result. The rule constants (thresholds, window, dimensions,
// export names) are Python's: py/evalsieve/constants.py, received in `ready.constants`.

export const SETTINGS = Object.freeze({
  /** inspect reads at most this much decoded text (1 Mi characters) */
  headChars: 1 << 20,
  /** one bridge call per ~1 Mi characters of text (tens to hundreds of ms) */
  chunkChars: 1 << 20,
  /** training chunks waiting between the reader and the prefilter pool, per worker (+ 1) */
  prefilterInflight: 3,
  /** at most this many prefilter workers (one per spare core below it) */
  prefilterMaxWorkers: 8,
  /** the reader scans a chunk itself when every prefilter worker already holds this many */
  prefilterSteal: 3,
  /** raw bytes per message to the training pass's hashing worker (hash-offload.js) */
  hashBatchBytes: 1 << 20,
  /** batches the hashing worker may hold before the reader waits for it (8 MiB) */
  hashInflight: 8,
  /** rows per session.run: on a quiet machine 32 beat 8 by 2-2.4x with 2 threads
   * (benchmarks/bench_paraphrases_page.py); a cancel waits for one batch (~2 s of long rows) */
  embedBatch: 32,
  /** rows per side of a cosine tile (512 x 512 float32 = 1 MiB) */
  tileRows: 512,
  /** refuse an embedding run whose first-batch estimate is longer (use the CLI) */
  embedMaxSeconds: 30 * 60,
  /** at most one progress message per stage per this many ms (the last one always goes) */
  progressIntervalMs: 100,
  /** purify without the File System Access API builds the cleaned file in a Blob, at most
   * this many bytes (1 GiB: a browser holds a Blob in memory or its own temporary files) */
  purifyBlobMaxBytes: 2 ** 30,
});
