// node --import ./tests/js/site/register.mjs: lets Node load site/ modules as dist/ lays them
// out. build.py copies site/ to dist/ and worker/ to dist/worker/, so a site module imports
// '../worker/protocol.js'; in the source tree that file is worker/protocol.js.
import { register } from 'node:module';

register('./dist-layout.mjs', import.meta.url);
