// @ts-check
// The semantic rung's code and verifier settings in the contamination settings, beside the
// rung's checkbox (ladder-settings.js): the code channel's shingle length (semantic_code_ngram;
// the CLI's --semantic-code-ngram N, 0 reads code rows as prose), the docstring cosine
// (semantic_docstring_cosine; --no-semantic-docstring-cosine), the code margin's weight
// (semantic_code_margin; --semantic-code-margin X, 0 = off) and explaining away
// (semantic_explain_away; --no-semantic-explain-away). Ranges and defaults come from Python
// (ready.constants); Python stamps them. The values are read by parseSemanticCode
// (contamination-settings.js, no DOM, Node-tested).

import { el, typedNumber } from '../lib/dom.js';
import { ERR } from '../worker/protocol.js';
import { parseSemanticCode } from './contamination-settings.js';

export class SemanticCodeSettings {
  /** The four controls, in a span the ladder settings place after the rung's checkbox. */
  constructor() {
    this.ngram = el('input', {
      type: 'number', id: 'setting-semantic-code-ngram', step: '1', inputmode: 'numeric', size: 3,
      title: 'tokens per code shingle (names and literals abstracted); 0 reads code rows as prose',
    });
    this.docstring = el('input', { type: 'checkbox', id: 'setting-semantic-docstring-cosine', checked: true });
    this.margin = el('input', {
      type: 'number', id: 'setting-semantic-code-margin', step: '0.05', inputmode: 'decimal', size: 4,
      title: 'a code row\'s score gains this weight × how far its code evidence exceeds its best elsewhere; 0 = off',
    });
    this.explain = el('input', {
      type: 'checkbox', id: 'setting-semantic-explain-away', checked: true,
      title: 'a window that another eval row matches better counts against this row by the difference',
    });
    this.root = el('span', { class: 'semantic-code', id: 'semantic-code-settings' },
      el('label', {}, 'code shingles (tokens) ', this.ngram),
      el('label', {}, this.docstring, ' embed docstrings on their own'),
      el('label', {}, 'code margin ', this.margin),
      el('label', {}, this.explain, ' explain away across eval rows'));
    this.constants = null;
  }

  /** Python's range and default, once the worker is ready. @param {import('../worker/protocol.js').Constants} c */
  workerReady(c) {
    this.constants = c;
    Object.assign(this.ngram, { min: c.semantic_code_ngram.min, max: c.semantic_code_ngram.max });
    if (this.ngram.value === '') this.ngram.value = String(c.semantic_code_ngram.default);
    Object.assign(this.margin, { min: c.semantic_code_margin.min, max: c.semantic_code_margin.max });
    if (this.margin.value === '') this.margin.value = String(c.semantic_code_margin.default);
  }

  /** Grey the controls out while the rung is off. @param {boolean} on */
  setEnabled(on) {
    for (const c of [this.ngram, this.docstring, this.margin, this.explain]) c.disabled = !on;
  }

  /** {code_ngram, docstring_cosine, code_margin, explain_away} for cont.start's `semantic`;
   *  throws bad_input (above). */
  value() {
    if (!this.constants) throw { code: ERR.BAD_INPUT, message: 'the worker has not published the semantic rung\'s settings yet', expected: 'a ready worker' };
    return parseSemanticCode({
      code_ngram: typedNumber(this.ngram), docstring_cosine: this.docstring.checked,
      code_margin: typedNumber(this.margin), explain_away: this.explain.checked,
    }, this.constants);
  }
}
