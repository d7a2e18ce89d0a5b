// The semantic rung's code settings in the contamination settings, beside the rung's checkbox
// (ladder-settings.js): the code channel's shingle length (semantic_code_ngram; the CLI's
// --semantic-code-ngram N, 0 reads code rows as prose) and the docstring cosine
// (semantic_docstring_cosine; the CLI's --no-semantic-docstring-cosine). Their range and
// default come from Python (ready.constants); Python stamps them. The values are read by
// parseSemanticCode (contamination-settings.js, no DOM, Node-tested).

import { el, typedNumber } from '../lib/dom.js';
import { ERR } from '../worker/protocol.js';
import { parseSemanticCode } from './contamination-settings.js';

export class SemanticCodeSettings {
  /** The two controls, in a span the ladder settings place after the rung's checkbox. */
  constructor() {
    this.ngram = el('input', {
      type: 'number', id: 'setting-semantic-code-ngram', step: '1', inputmode: 'numeric', size: 3,
      title: 'tokens per code shingle (names and literals abstracted); 0 reads code rows as prose',
    });
    this.docstring = el('input', { type: 'checkbox', id: 'setting-semantic-docstring-cosine', checked: true });
    this.root = el('span', { class: 'semantic-code', id: 'semantic-code-settings' },
      el('label', {}, 'code shingles (tokens) ', this.ngram),
      el('label', {}, this.docstring, ' embed docstrings on their own'));
    this.constants = null;
  }

  /** Python's range and default, once the worker is ready. */
  workerReady(c) {
    this.constants = c;
    Object.assign(this.ngram, { min: c.semantic_code_ngram.min, max: c.semantic_code_ngram.max });
    if (this.ngram.value === '') this.ngram.value = String(c.semantic_code_ngram.default);
  }

  /** Grey the controls out while the rung is off. */
  setEnabled(on) {
    this.ngram.disabled = !on;
    this.docstring.disabled = !on;
  }

  /** {code_ngram, docstring_cosine} for cont.start's `semantic`; throws bad_input (above). */
  value() {
    if (!this.constants) throw { code: ERR.BAD_INPUT, message: 'the worker has not published the semantic rung\'s settings yet', expected: 'a ready worker' };
    return parseSemanticCode({ code_ngram: typedNumber(this.ngram), docstring_cosine: this.docstring.checked }, this.constants);
  }
}
