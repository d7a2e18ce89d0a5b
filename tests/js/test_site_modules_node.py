"""The page's pure modules (site/lib, site/sections/*-state.js, ...) under Node's test runner.

tests/js/site/*.test.mjs import the modules from site/ as dist/ lays them out (register.mjs
maps site/worker/ to worker/), with a fake Worker and a fake worker client, so the worker
client's restart race, the regrouping order and the export requests are tested without a
browser. Rule constants come from Python (tests/js/constants.mjs), as the worker posts them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_site_modules_under_node():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; page module tests skipped")
    major = int(
        subprocess.run([node, "--version"], capture_output=True, text=True)
        .stdout.strip()
        .lstrip("v")
        .split(".")[0]
    )
    if major < 20:
        pytest.skip(f"node {major} lacks module.register (need 20.6+)")
    tests = sorted(str(p) for p in (HERE / "site").glob("*.test.mjs"))
    assert tests, "no tests in tests/js/site"
    env = {**os.environ, "EVALSIEVE_PYTHON": sys.executable}  # tests/js/constants.mjs
    proc = subprocess.run(
        [node, "--import", str(HERE / "site" / "register.mjs"), "--test", *tests],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
