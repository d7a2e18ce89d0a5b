"""ruff check and ruff format --check over the Python of the repository (rules and layout in
pyproject.toml), as part of the suite that CI runs: a lint finding or a file the formatter
would rewrite fails the build like a failing test."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: What ruff checks: the package, the tests, the benchmarks and the tools.
PATHS = ["py", "tests", "benchmarks", "build.py", "tools"]


@pytest.mark.skipif(sys.platform == "emscripten", reason="no processes in Pyodide")
def test_ruff_check_is_clean():
    try:
        import ruff  # noqa: F401  (the test extra installs it)
    except ImportError:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


@pytest.mark.skipif(sys.platform == "emscripten", reason="no processes in Pyodide")
def test_ruff_sees_a_finding(tmp_path):
    """The check can fail: the same configuration flags an unused import."""
    pytest.importorskip("ruff")
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n", encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--config",
            os.path.join(ROOT, "pyproject.toml"),
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1 and "F401" in out.stdout, out.stdout + out.stderr


@pytest.mark.skipif(sys.platform == "emscripten", reason="no processes in Pyodide")
def test_ruff_format_leaves_every_file_as_it_is():
    pytest.importorskip("ruff")
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


@pytest.mark.skipif(sys.platform == "emscripten", reason="no processes in Pyodide")
def test_ruff_format_sees_a_file_to_rewrite(tmp_path):
    """The format check can fail: a badly laid-out file is one it would rewrite."""
    pytest.importorskip("ruff")
    bad = tmp_path / "bad.py"
    bad.write_text("x = {  'a':1 }\n", encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--check",
            "--no-cache",
            "--config",
            os.path.join(ROOT, "pyproject.toml"),
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1 and "bad.py" in out.stdout + out.stderr
