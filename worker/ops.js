// @ts-check
// The worker's op table: what each `run {op}` does. Exactly the names of protocol.js
// RUN_OPS (tests/js/contract.test.mjs).

import { OP } from './protocol.js';
import { inspect } from './jobs/inspect.js';
import { contamination } from './jobs/contamination.js';
import { paraphrases, paraGroup, paraExports, paraExample, paraClose } from './jobs/paraphrases.js';
import { read, embed } from './jobs/bench.js';
import { purify } from './jobs/purify.js';

/** @type {Record<import('./protocol.js').RunOp, import('./dispatch.js').Op>} */
export const OPS = {
  [OP.INSPECT]: inspect,
  [OP.CONTAMINATION]: contamination,
  [OP.PARAPHRASES]: paraphrases,
  [OP.PARA_GROUP]: paraGroup,
  [OP.PARA_EXPORTS]: paraExports,
  [OP.PARA_EXAMPLE]: paraExample,
  [OP.PARA_CLOSE]: paraClose,
  [OP.READ]: read,
  [OP.EMBED]: embed,
  [OP.PURIFY]: purify,
};
