"""The core suite (tests/py) run by pytest *inside* Pyodide 314 (CPython 3.14, wasm32-emscripten).

tests/py stays the single source of truth: this test zips tests/py, tests/fixtures and
tests/golden as they are on disk, boots Pyodide from --dist-dir (dist/pyodide-test; node
runtime by default, no browser), loads our evalsieve wheel and pytest with its pure-Python dependencies from that
folder's pyodide-lock.json (build.py pins them in assets.lock.json), unpacks the suite into
Pyodide's in-memory filesystem at /evalsieve and calls ``pytest.main`` there once.

What cannot run in Pyodide skips inside it with a reason: subprocesses (no processes in
wasm), ../shared/data (not copied; the ``shared`` fixture skips), onnxruntime/tokenizers and
Node-only tests. The outer test fails when the inner run does not exit 0 or passes fewer
than MIN_PASSED tests, and its message carries the inner counts, skip reasons and failures.
"""

from __future__ import annotations

import base64
import io
import json
import os
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What the inner run reads, relative to ROOT (tests/golden: the encoder's reference rows).
SUITE_DIRS = ("tests/py", "tests/fixtures", "tests/golden")
# Single files the core suite imports from elsewhere: the shared reader of CSV exports.
SUITE_FILES = ("tests/hostile/hostile_common.py",)
INNER_ROOT = "/evalsieve"
# tests/py has ~75 tests; the ones needing ../shared, subprocesses, Node or onnxruntime
# skip inside Pyodide. Fewer passes than this means the inner run quietly lost tests.
MIN_PASSED = 45
INNER_BUDGET_S = 60
# Inner pytest: quiet, no .pytest_cache in MEMFS, skip reasons in the summary.
INNER_ARGS = [*(os.environ.get("EVALSIEVE_PYODIDE_TESTS") or "tests/py").split(),
              "-q", "-p", "no:cacheprovider", "-rs", "--color=no"]


def suite_zip() -> bytes:
    """SUITE_DIRS and SUITE_FILES as a deflated zip (paths relative to ROOT)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder in SUITE_DIRS:
            for path in sorted((ROOT / folder).rglob("*")):
                rel = path.relative_to(ROOT)
                if (path.is_file() and "__pycache__" not in rel.parts
                        and not any(part.startswith(".") for part in rel.parts)):
                    archive.write(path, rel.as_posix())
        for name in SUITE_FILES:
            archive.write(ROOT / name, name)
    return buffer.getvalue()


def stale_wheel_files(dist_dir: Path) -> list[str]:
    """py/evalsieve files that differ from (or are missing in) the wheel in dist_dir.

    The inner run imports the wheel that build.py put in dist/pyodide-test, not py/; after
    an edit to py/ that wheel is stale until `python3 build.py build` runs again.
    """
    lock = json.loads((dist_dir / "pyodide-lock.json").read_text(encoding="utf-8"))
    wheel = dist_dir / lock["packages"]["evalsieve"]["file_name"]
    source = ROOT / "py"
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name: archive.read(name) for name in archive.namelist()
                   if name.startswith("evalsieve/") and name.endswith(".py")}
    local = {path.relative_to(source).as_posix(): path.read_bytes()
             for path in sorted((source / "evalsieve").rglob("*.py"))}
    return sorted(name for name in shipped.keys() | local.keys()
                  if shipped.get(name) != local.get(name))


# Runs inside Pyodide; SUITE_B64, INNER_ROOT and INNER_ARGS are prepended as literals.
# Returns one JSON string (plain data crosses the boundary, no proxies).
INNER_RUN = r'''
import base64, contextlib, io, json, os, sys, time, zipfile

import pytest

os.makedirs(INNER_ROOT, exist_ok=True)
with zipfile.ZipFile(io.BytesIO(base64.b64decode(SUITE_B64))) as archive:
    archive.extractall(INNER_ROOT)
os.chdir(INNER_ROOT)


class Tally:
    """Collects every report: nodeids that passed, skipped (with reason), failed (with text)."""

    def __init__(self):
        self.passed, self.skipped, self.failed = [], [], []

    def pytest_runtest_logreport(self, report):
        if report.passed and report.when == "call":
            self.passed.append(report.nodeid)
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
                report.longrepr)
            self.skipped.append([report.nodeid, reason])
        elif report.failed:
            self.failed.append([report.nodeid, report.when, report.longreprtext[-4000:]])

    def pytest_collectreport(self, report):
        if report.failed:
            self.failed.append([report.nodeid, "collect", report.longreprtext[-4000:]])
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
                report.longrepr)
            self.skipped.append([report.nodeid, reason])


tally = Tally()
output = io.StringIO()
started = time.perf_counter()
with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
    exit_code = int(pytest.main(list(INNER_ARGS), plugins=[tally]))
json.dumps({
    "exit_code": exit_code, "seconds": round(time.perf_counter() - started, 1),
    "passed": tally.passed, "skipped": tally.skipped, "failed": tally.failed,
    "output": output.getvalue()[-6000:],
    "python": list(sys.version_info[:3]), "platform": sys.platform,
    "unidata_version": __import__("unicodedata").unidata_version,
})
'''


def describe(result: dict, wall: float) -> str:
    """The inner run as text for a failure message: counts, failures, skip reasons, tail."""
    lines = [f"inner pytest in Pyodide (Python {'.'.join(map(str, result['python']))}, "
             f"{result['platform']}, Unicode {result['unidata_version']}): exit code "
             f"{result['exit_code']}, {len(result['passed'])} passed, "
             f"{len(result['skipped'])} skipped, {len(result['failed'])} failed "
             f"in {result['seconds']} s (outer wall time {wall:.1f} s)"]
    for nodeid, when, text in result["failed"]:
        lines += [f"--- FAILED {nodeid} ({when})", text]
    lines += [f"skipped {nodeid}: {reason}" for nodeid, reason in result["skipped"]]
    lines += ["--- inner output (tail)", result["output"]]
    return "\n".join(lines)


@pytest.mark.driver_timeout(900)  # tests/py grew (scores, impact, semantic, corpus)
def test_core_suite_passes_inside_pyodide(request, selenium_standalone):
    selenium = selenium_standalone
    dist_dir = Path.cwd() / request.config.getoption("--dist-dir")  # as pytest-pyodide does
    stale = stale_wheel_files(dist_dir)
    if stale:
        pytest.fail(f"the evalsieve wheel in {dist_dir} does not match py/ ({', '.join(stale)});"
                    " run `python3 build.py build` (build.py test does) and test again")
    started = time.perf_counter()
    selenium.load_package(["evalsieve", "pytest"])
    prelude = (f"SUITE_B64 = {base64.b64encode(suite_zip()).decode()!r}\n"
               f"INNER_ROOT = {INNER_ROOT!r}\nINNER_ARGS = {INNER_ARGS!r}\n")
    result = json.loads(selenium.run(prelude + INNER_RUN))
    wall = time.perf_counter() - started
    report = describe(result, wall)
    print(report)

    assert result["python"][:2] == [3, 14] and result["platform"] == "emscripten", report
    assert result["exit_code"] == 0 and not result["failed"], report
    assert len(result["passed"]) >= MIN_PASSED, report
    assert result["seconds"] <= INNER_BUDGET_S, report
