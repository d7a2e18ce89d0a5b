"""The docs are held to the code: the CLI reference is build_parser()'s, the README's export
columns are the exports' headers, its test command is what CI runs, and the claims the docs
make about the code's layering hold."""

import ast
import os
import re
import subprocess
import sys
import tomllib

import pytest

# The docs and the repository's files are checked under CPython; the Pyodide run of the core
# suite carries tests/py, not README.md, docs/ or tools/.
pytestmark = pytest.mark.skipif(
    sys.platform == "emscripten", reason="docs are checked under CPython (not in Pyodide's copy)"
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(ROOT, "py", "evalsieve")
sys.path.insert(0, os.path.join(ROOT, "tools"))


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


# -- the CLI reference ---------------------------------------------------------------------


def test_cli_reference_is_the_parsers_help():
    import cli_reference

    text = read("docs", "CLI.md")
    block = cli_reference.current(text)
    made = re.search(r"argparse of Python (\d+\.\d+)", block)
    assert made, "docs/CLI.md's generated block names the Python that wrote it"
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if made.group(1) != here:
        pytest.skip(
            f"docs/CLI.md was generated with Python {made.group(1)}'s argparse, whose "
            f"help layout differs from {here}'s"
        )
    assert block == cli_reference.render(), (
        "docs/CLI.md differs from build_parser(): run python3 tools/cli_reference.py"
    )


def test_cli_reference_names_every_option():
    """Independent of argparse's layout: every option string of every subcommand is in the
    generated block (and README's CLI at a glance points to it)."""
    import argparse

    import cli_reference
    from evalsieve.cli import build_parser

    block = cli_reference.current(read("docs", "CLI.md"))
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subs.choices.items():
        assert f"### evalsieve {name}" in block
        for action in sub._actions:
            for opt in action.option_strings:
                assert opt in block, (name, opt)
    assert "docs/CLI.md" in read("README.md")


def test_cli_reference_check_mode_fails_on_a_stale_file(tmp_path, monkeypatch):
    import cli_reference

    stale = tmp_path / "CLI.md"
    stale.write_text(f"# x\n\n{cli_reference.BEGIN}\nold\n{cli_reference.END}\n", encoding="utf-8")
    monkeypatch.setattr(cli_reference, "DOC", stale)
    monkeypatch.setattr(cli_reference, "ROOT", tmp_path)
    assert cli_reference.main(["--check"]) == 1
    assert cli_reference.main([]) == 0  # regenerates
    assert cli_reference.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8").startswith("# x\n\n" + cli_reference.BEGIN)


# -- the README ------------------------------------------------------------------------------


def test_readme_is_short_and_ci_runs_its_test_command():
    readme = read("README.md")
    assert len(readme.splitlines()) <= 300
    m = re.search(r"## Run the tests\s+```\s*\n(.+?)\n```", readme)
    assert m, "README has a 'Run the tests' section with the command in a code block"
    command = m.group(1).split("#")[0].strip()
    assert command == "python3 build.py test"
    ci = [
        line.strip()
        for line in read(".ci", "run").splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert ci[-1] == command, ".ci/run ends by running the README's test command"


def readme_columns() -> dict[str, list[str]]:
    """{export name: [columns]} from the README's "Exports" table rows that list columns."""
    readme = read("README.md")
    section = readme.split("## Exports", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
            out[cells[0].strip("`")] = re.findall(r"`([a-z0-9_]+)`", cells[1])
    return out


def test_readme_lists_every_csv_exports_columns():
    from evalsieve import constants
    from evalsieve.contamination_exports import REPORT_COLUMNS, SEMANTIC_COLUMNS, TOO_SHORT_COLUMNS
    from evalsieve.ladder import RUNG_COLUMNS
    from evalsieve.records import SKIPPED_COLUMNS
    from evalsieve.exports import FINGERPRINT_COLUMN, IMPACT_COLUMNS, UNMATCHED_COLUMNS
    from evalsieve.paraphrase import GROUP_COLUMNS, PAIR_COLUMNS
    from evalsieve.dedup import DROPPED_COLUMNS

    fp = [FINGERPRINT_COLUMN]
    want = {
        "contamination-report.csv": REPORT_COLUMNS + RUNG_COLUMNS + fp,
        "contamination-report.csv --semantic": SEMANTIC_COLUMNS,
        "too-short-to-score.csv": TOO_SHORT_COLUMNS + RUNG_COLUMNS + fp,
        constants.SKIPPED_EXPORT: SKIPPED_COLUMNS + fp,
        "score-impact.csv": IMPACT_COLUMNS + fp,
        "scores-unmatched.csv": UNMATCHED_COLUMNS + fp,
        "paraphrase-pairs.csv": PAIR_COLUMNS + fp,
        "paraphrase-groups.csv": GROUP_COLUMNS + fp,
        constants.DEDUP_DROPPED_EXPORT: DROPPED_COLUMNS + fp,
        constants.PARQUET_KEPT_ROWS_NAME: ["eval_row"] + fp,
    }
    got = readme_columns()
    semantic = re.search(
        r"With `--semantic` the report also has (.+?)\.\n\n", read("README.md"), re.S
    )
    assert semantic, "README says which columns --semantic adds"
    got["contamination-report.csv --semantic"] = re.findall(r"`([a-z0-9_]+)`", semantic.group(1))
    assert got == want
    names = re.findall(r"^\| `([^`]+)`", read("README.md").split("## Exports", 1)[1], re.M)
    for name in (
        *constants.CONTAMINATION_REPORTS,
        *constants.PARAPHRASE_EXPORTS,
        *constants.SCORE_EXPORTS,
        constants.SKIPPED_EXPORT,
        constants.STAMP_EXPORT,
        constants.DEDUP_DROPPED_EXPORT,
        constants.DEDUP_NAME_BY_FORMAT["jsonl"],
    ):
        assert name in names, name


def test_docs_links_point_to_files():
    for doc in ["README.md"] + [
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")
    ]:
        text = read(doc)
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", text):
            path = os.path.normpath(os.path.join(ROOT, os.path.dirname(doc), target))
            assert os.path.isfile(path), (doc, target)


# -- claims about the code -------------------------------------------------------------------

#: Where each kind of outside-world access may happen in py/evalsieve (docs/ARCHITECTURE.md,
#: cli.py's docstring): argv in the CLI's parsers, the clock in cli.py, files and the
#: environment in cli.py and the CLI-side modules it drives; the core reads none of them.
ALLOWED = {
    "sys.argv": {"cli.py", "encoder_graph.py"},
    # purify_run.py is the purify job's driver (it times its passes, as cli.py does);
    # progress.py times the training pass (MB/s, ETA); ray_engine.py waits CONNECT_S for Ray
    "clock": {"cli.py", "drivers.py", "run_io.py", "purify_run.py", "progress.py", "ray_engine.py"},
    # failures.py: EVALSIEVE_DEBUG (the traceback of a bug); fault_hooks.py: the tests'
    # fault injection; ray_engine.py: PYTHONPATH and those hooks for Ray's workers
    "environment": {
        "cli.py",
        "run_io.py",
        "corpus.py",
        "engines.py",
        "model_cache.py",
        "purify_shards.py",
        "failures.py",
        "fault_hooks.py",
        "ray_engine.py",
    },
    # the CLI side's readers and writers of files (docs/ARCHITECTURE.md names them)
    # (api.py, inputs.py and results.py: the Python API's driver side, which writes an
    # in-memory table as JSON Lines for the CLI's driver and writes a result's exports;
    # outdir.py writes the exports; fault_hooks.py the fault injection's marker files)
    "open()": {
        "cli.py",
        "run_io.py",
        "api.py",
        "inputs.py",
        "results.py",
        "corpus.py",
        "corpus_files.py",
        "encoder_graph.py",
        "model_cache.py",
        "layouts.py",
        "arrow_io.py",
        "purify_shards.py",
        "purify_parquet.py",
        "outdir.py",
        "fault_hooks.py",
    },
    "pyodide": {"bridge.py"},
}
_CLOCK = {
    ("time", "time"),
    ("time", "perf_counter"),
    ("time", "monotonic"),
    ("time", "process_time"),
    ("os", "times"),
}


def outside_access(source: str) -> set[str]:
    """The kinds of ALLOWED that a module's source uses (by its syntax tree)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name):
                pair = (node.value.id, node.attr)
                if pair == ("sys", "argv"):
                    found.add("sys.argv")
                if pair in _CLOCK:
                    found.add("clock")
                if pair in {("os", "environ"), ("os", "getenv")}:
                    found.add("environment")
            if node.attr in ("now", "utcnow", "today"):
                found.add("clock")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "open"
        ):
            found.add("open()")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if any(n.split(".")[0] in ("pyodide", "js", "pyodide_js") for n in names):
                found.add("pyodide")
    return found


def test_outside_access_scan_sees_each_kind():
    src = (
        "import sys, os, time, datetime\nimport pyodide\nsys.argv\nos.environ\ntime.time()\n"
        "datetime.datetime.now()\nopen('x')\n"
    )
    assert outside_access(src) == {"sys.argv", "environment", "clock", "open()", "pyodide"}
    assert outside_access("def f(argv):\n    return argv\n") == set()


def test_only_the_drivers_read_argv_clock_environment_and_files():
    for name in sorted(os.listdir(PKG)):
        if not name.endswith(".py"):
            continue
        used = outside_access(read("py", "evalsieve", name))
        for kind in used:
            assert name in ALLOWED[kind], f"{name} uses {kind}; only {sorted(ALLOWED[kind])} may"


def test_bridge_imports_pyodide_only_inside_a_function():
    tree = ast.parse(read("py", "evalsieve", "bridge.py"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not any(
        "pyodide" in (getattr(n, "module", None) or "") or any("pyodide" in a.name for a in n.names)
        for n in top
    )
    # where `import pyodide` fails, the bridge imports and answers
    code = (
        "import sys; sys.modules['pyodide'] = None; from evalsieve import bridge; "
        "import json; print(json.loads(bridge.call('constants', '{}'))['ok'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "py")},
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


def test_pyproject_extras_are_documented_and_true():
    meta = tomllib.loads(read("pyproject.toml"))
    extras = set(meta["project"]["optional-dependencies"])
    cli_doc = read("docs", "CLI.md")
    for extra in extras - {"test"}:
        assert f"`{extra}`" in cli_doc or f"[{extra}]" in cli_doc, extra
    # the page reads Parquet (worker/parquet.js, hyparquet): no comment may say otherwise
    assert os.path.isfile(os.path.join(ROOT, "worker", "parquet.js"))
    assert "does not read Parquet" not in read("pyproject.toml")


_HISTORY = re.compile(r"\b(issue|session)s?\s+#?\d+", re.I)
_SCANNED = ("py", "worker", "site", "kernels", "docs", "benchmarks", "tests", "tools")
_SUFFIXES = (".py", ".js", ".mjs", ".c", ".md", ".html", ".css", ".toml")


def test_no_issue_or_session_numbers_in_code_and_docs():
    """Comments and docs say what and why, not which issue or session it came from."""
    hits = []
    files = [os.path.join(ROOT, f) for f in ("README.md", "build.py", "pyproject.toml")]
    for top in _SCANNED:
        for d, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if x not in ("node_modules", "__pycache__")]
            files += [os.path.join(d, n) for n in names if n.endswith(_SUFFIXES)]
    for path in files:
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                if _HISTORY.search(line):
                    hits.append(f"{os.path.relpath(path, ROOT)}:{i}: {line.strip()[:80]}")
    assert hits == []
