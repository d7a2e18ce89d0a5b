// @ts-check
// Rule constants on the page. Python owns them (py/evalsieve/constants.py) and the worker
// posts them in `ready {versions, constants}`; the page reads them from there and restates
// none. Before `ready` the controls they bound wait (the slider is disabled).

/** The names of `ready.constants` the page reads (the worker publishes more). */
const PAGE_NAMES = Object.freeze([
  'n_min', 'n_max', 'n_auto_min', 'n_auto_max', 'threshold_min_exclusive', 'threshold_max',
  'para_floor', 'para_threshold_max', 'para_threshold_default', 'para_window', 'export_names',
  'clean_rules', 'semantic_code_ngram', 'purify', 'dedup_keep_rules',
]);

/**
 * Check `ready.constants` and return it frozen.
 * Throws: an Error naming every constant the page reads that the worker did not publish.
 * @param {import('../worker/protocol.js').Constants | null | undefined} published
 * @returns {Readonly<import('../worker/protocol.js').Constants>}
 */
export function ruleConstants(published) {
  const missing = PAGE_NAMES.filter((k) => !published || !(k in published));
  if (missing.length) throw new Error(`the worker's ready message lacks the rule constants ${missing.join(', ')}`);
  return Object.freeze({ .../** @type {import('../worker/protocol.js').Constants} */ (published) });
}

/**
 * Fill every element with data-constant="name" (e.g. in the rule text) with that constant.
 * @param {ParentNode} root @param {Readonly<Record<string, unknown>>} constants
 */
export function fillConstantText(root, constants) {
  for (const node of root.querySelectorAll('[data-constant]')) {
    if (!(node instanceof HTMLElement || node instanceof SVGElement)) continue;
    const v = constants[String(node.dataset.constant)];
    if (v !== undefined) node.textContent = String(v);
  }
}
