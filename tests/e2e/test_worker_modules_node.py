"""worker/files.js and worker/protocol.js under Node's test runner (no browser needed).

Node 20 has File.stream(), DecompressionStream and TextDecoder, so the same modules the
worker imports are tested on chunking, gzip, UTF-8 errors, hashing, cancel and the
protocol's invariants; tests/e2e/js/*.test.mjs holds the cases.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_worker_modules_under_node():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; worker module tests skipped")
    major = int(subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip().lstrip("v").split(".")[0])
    if major < 20:
        pytest.skip(f"node {major} lacks File.stream/DecompressionStream (need 20+)")
    tests = sorted(str(p) for p in (HERE / "js").glob("*.test.mjs"))
    env = {**os.environ, "EVALSIEVE_PYTHON": sys.executable}
    proc = subprocess.run([node, "--test", *tests], capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
