// Python's rule constants (py/evalsieve/constants.py as_json), as the worker receives them in
// `ready.constants`: the Node tests read them from Python rather than restating them.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const python = process.env.EVALSIEVE_PYTHON || 'python3';

export const CONSTANTS = JSON.parse(execFileSync(python, ['-m', 'evalsieve.constants'], {
  env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') },
  encoding: 'utf-8',
}));
