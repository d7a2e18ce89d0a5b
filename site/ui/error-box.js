// @ts-check
// The error box of a job section: what went wrong, where (file, line), what was expected.

import * as P from '../worker/protocol.js';
import { el } from '../lib/dom.js';
import { describeError } from '../lib/format.js';

const { ERR } = P;

/** @type {Record<string, string>} */
const HEADLINE = {
  [ERR.BAD_INPUT]: 'Problem with the input',
  [ERR.ASSET_LOAD_FAILED]: 'Could not load a part of the page',
};

export class ErrorBox {
  /** box: the role="alert" element; data-code is set to the error code. @param {HTMLElement} box */
  constructor(box) {
    this.box = box;
  }

  /** Show any thrown value as a protocol error object (worker/protocol.js toErrorObject). @param {unknown} err */
  show(err) {
    const e = P.toErrorObject(err);
    const { where } = describeError(e);
    // replaceChildren writes null as the text "null": absent parts are left out, not passed
    const parts = [
      el('strong', { text: HEADLINE[e.code] || 'Something went wrong' }),
      el('p', { class: 'error-message', text: e.message }),
      where ? el('p', { class: 'error-where' }, 'Where: ', el('span', { dataset: { file: e.file ?? '', line: e.line ?? '' }, text: where })) : null,
      e.expected ? el('p', { class: 'error-expected', text: `Expected: ${e.expected}` }) : null,
      e.detail && e.code !== ERR.INTERNAL ? el('p', { class: 'error-detail muted', text: e.detail }) : null,
    ];
    this.box.replaceChildren(...parts.filter((x) => x !== null));
    this.box.dataset.code = e.code;
    this.box.hidden = false;
  }

  hide() {
    this.box.hidden = true;
  }
}
