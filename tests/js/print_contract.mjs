// Prints protocol.js's op vocabulary and log kinds as JSON, for tests/js/test_node.py (which
// compares them with py/evalsieve/bridge.py OPS and docs/ARCHITECTURE.md).
import * as P from '../../worker/protocol.js';
import { OPS } from '../../worker/ops.js';

process.stdout.write(JSON.stringify({
  op: P.OP,
  run_ops: P.RUN_OPS,
  bridge_ops: P.BRIDGE_OPS,
  worker_ops: Object.keys(OPS),
  log_kinds: Object.values(P.LOG_KIND),
}));
