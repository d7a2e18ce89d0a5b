// @ts-check
// The module worker that hosts Pyodide and runs evalsieve jobs: the entry point. It wires
// the op table (jobs/) to the dispatcher (dispatch.js: queue, cancel, one terminal reply per
// id) and the runtime (runtime.js: Pyodide, the bridge). The contract is protocol.js.
// Everything it loads comes from its own origin: dist/assets/* as listed in
// dist/assets/manifest.json.

import * as P from './protocol.js';
import { createDispatcher } from './dispatch.js';
import { ensureBooted } from './runtime.js';
import { SETTINGS } from './settings.js';
import { OPS } from './ops.js';

const { ERR } = P;

const post = (/** @type {P.OutMessage} */ msg) => self.postMessage(msg);

const dispatcher = createDispatcher({
  ops: OPS,
  boot: () => ensureBooted(post),
  post,
  progressIntervalMs: SETTINGS.progressIntervalMs,
});

self.onmessage = (ev) => dispatcher.onMessage(ev.data);

// A bug outside any request (a request's own failures are error {id}): the page restarts us.
self.addEventListener('error', (ev) => {
  post(P.fatal({ code: ERR.INTERNAL, message: `worker error: ${ev.message || ev}` }));
});
self.addEventListener('unhandledrejection', (ev) => {
  const r = ev.reason;
  post(P.fatal({ code: ERR.INTERNAL, message: `unhandled rejection: ${(r && r.message) || r}` }));
});
