// @ts-check
// The semantic rung's code setting in the contamination settings, beside the rung's checkbox
// (ladder-settings.js): the code channel's shingle length (semantic_code_ngram; the CLI's
// --semantic-code-ngram N, 0 reads code rows as prose). Its range and default come from
// Python (ready.constants); Python stamps it. The value is read by parseSemanticCode
// (contamination-settings.js, no DOM, Node-tested). The verifier's weights are fitted
// constants (semantic_verifier.py), not settings.

import { el, typedNumber } from '../lib/dom.js';
import { ERR } from '../worker/protocol.js';
import { parseSemanticCode } from './contamination-settings.js';

export class SemanticCodeSettings {
  /** The control, in a span the ladder settings place after the rung's checkbox. */
  constructor() {
    this.ngram = el('input', {
      type: 'number', id: 'setting-semantic-code-ngram', step: '1', inputmode: 'numeric', size: 3,
      title: 'tokens per code shingle (names and literals abstracted); 0 reads code rows as prose',
    });
    this.root = el('span', { class: 'semantic-code', id: 'semantic-code-settings' },
      el('label', {}, 'code shingles (tokens) ', this.ngram));
    this.constants = null;
  }

  /** Python's range and default, once the worker is ready. @param {import('../worker/protocol.js').Constants} c */
  workerReady(c) {
    this.constants = c;
    Object.assign(this.ngram, { min: c.semantic_code_ngram.min, max: c.semantic_code_ngram.max });
    if (this.ngram.value === '') this.ngram.value = String(c.semantic_code_ngram.default);
  }

  /** Grey the control out while the rung is off. @param {boolean} on */
  setEnabled(on) {
    this.ngram.disabled = !on;
  }

  /** {code_ngram} for cont.start's `semantic`; throws bad_input (above). */
  value() {
    if (!this.constants) throw { code: ERR.BAD_INPUT, message: 'the worker has not published the semantic rung\'s settings yet', expected: 'a ready worker' };
    return parseSemanticCode({ code_ngram: typedNumber(this.ngram) }, this.constants);
  }
}
