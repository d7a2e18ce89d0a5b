// Rule constants on the page. Python owns them (py/evalsieve publishes them in the worker's
// `ready` message as `constants`); the page reads them from there and restates none.
//
// FALLBACK is the only copy of their values in site/: it is used, with a warning in the event
// log, only when `ready` carries no constants (a worker older than the publishing Python).
// tests/js/site/constants.test.mjs holds it to the names the worker publishes.

/** The names of `ready.constants` the page reads (the worker publishes more). */
export const CONSTANT_NAMES = Object.freeze([
  'n_min', 'n_max', 'n_auto_min', 'n_auto_max', 'threshold_min_exclusive', 'para_floor',
  'para_threshold_max', 'para_threshold_default', 'para_window', 'export_names',
]);

export const FALLBACK = Object.freeze({
  n_min: 1, // cli.py _n: 1..1000
  n_max: 1000,
  n_auto_min: 8, // ngrams.py N_MIN, N_MAX
  n_auto_max: 13,
  threshold_min_exclusive: 0, // containment threshold in (0, 1]
  para_floor: 0.75, // cli.py _cosine: 0.75..1, default 0.90
  para_threshold_max: 1,
  para_threshold_default: 0.9,
  para_window: 256, // native_encoder.py WINDOW
  export_names: Object.freeze({ // contamination.py export_names, paraphrase exports
    contamination: Object.freeze(['contamination-report.csv', 'too-short-to-score.csv', 'overlap-report.html']),
    paraphrases: Object.freeze(['paraphrase-pairs.csv', 'paraphrase-groups.csv']),
  }),
});

/**
 * The rule constants to use, from `ready.constants`.
 * Returns {constants, missing}: the published object (frozen) when it has every name in
 * CONSTANT_NAMES; otherwise FALLBACK, with `missing` listing the names it lacked.
 */
export function ruleConstants(published) {
  const missing = CONSTANT_NAMES.filter((k) => !published || !(k in published));
  if (missing.length) return { constants: FALLBACK, missing };
  return { constants: Object.freeze({ ...published }), missing };
}

/** Fill every element with data-constant="name" (e.g. in the rule text) with that constant. */
export function fillConstantText(root, constants) {
  for (const node of root.querySelectorAll('[data-constant]')) {
    const v = constants[node.dataset.constant];
    if (v !== undefined) node.textContent = String(v);
  }
}
