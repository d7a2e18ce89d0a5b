"""The worker's modules under Node, its JSDoc types under tsc, and the contract between the
worker (worker/protocol.js), the Python bridge (py/evalsieve/bridge.py) and the docs.

Node 20 has File.stream(), DecompressionStream and TextDecoder, so the modules the worker
imports run here as they do in the browser; tests/js/*.test.mjs hold the cases (node's
built-in test runner). TypeScript is pinned in tests/js/package-lock.json and installed with
`npm ci` (build.py test does it; this test does it too when it is missing).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalsieve import bridge

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; worker module tests skipped")
    out = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    major = int(out.strip().lstrip("v").split(".")[0])
    if major < 20:
        pytest.skip(f"node {major} lacks File.stream/DecompressionStream (need 20+)")
    return node


def _contract() -> dict:
    proc = subprocess.run(
        [_node(), str(HERE / "print_contract.mjs")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_worker_modules_under_node():
    node = _node()
    tests = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    assert len(tests) >= 6
    env = {**os.environ, "EVALSIEVE_PYTHON": sys.executable}
    proc = subprocess.run(
        [node, "--test", *tests], capture_output=True, text=True, timeout=180, env=env
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert re.search(r"^# fail 0$", proc.stdout, re.M), proc.stdout[-2000:]


#: Lines per worker module (tests/js/test_site_static.py holds site/ to the same).
MAX_LINES = 300
#: protocol.js is the whole contract in one file: typedefs, op vocabulary,
#: constructors, validate. It may run a little over; splitting it would split the contract.
CONTRACT_MAX_LINES = 340


def test_every_worker_module_is_small():
    """No worker module over ~300 lines: new code goes into new modules (jobs/, embed/)."""
    sizes = {
        p.relative_to(ROOT / "worker").as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted((ROOT / "worker").rglob("*.js"))
    }
    assert len(sizes) >= 20
    limit = {"protocol.js": CONTRACT_MAX_LINES}
    assert {k: v for k, v in sizes.items() if v > limit.get(k, MAX_LINES)} == {}


#: The tsc projects: each checks one folder with its own lib (the worker's globals are not
#: the page's), all with strict: true. tsconfig.sw.json: the page's service worker.
TSC_PROJECTS = {
    "tsconfig.json": (["../../worker/**/*.js"], "webworker"),
    "tsconfig.site.json": (["../../site/**/*.js"], "dom"),
    "tsconfig.sw.json": (["../../site/sw.js"], "webworker"),
}
#: strict's member flags: none may be turned back off beside `strict: true`.
STRICT_FLAGS = (
    "noImplicitAny",
    "noImplicitThis",
    "strictNullChecks",
    "strictFunctionTypes",
    "strictBindCallApply",
    "strictPropertyInitialization",
    "useUnknownInCatchVariables",
    "alwaysStrict",
    "strictBuiltinIteratorReturn",
)


def _tsc() -> list[str]:
    node = _node()
    tsc = HERE / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed; cannot install the pinned TypeScript")
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
            cwd=HERE,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return [node, str(tsc)]


@pytest.mark.parametrize("project", sorted(TSC_PROJECTS))
def test_types_check_with_tsc_strict(project):
    """`tsc -p tests/js/<project>` (noEmit, checkJs, strict): no error."""
    config = json.loads((HERE / project).read_text(encoding="utf-8"))
    opts = config["compilerOptions"]
    include, lib = TSC_PROJECTS[project]
    assert (opts["strict"], opts["checkJs"], opts["allowJs"], opts["noEmit"]) == (
        True,
        True,
        True,
        True,
    )
    assert {k: opts[k] for k in STRICT_FLAGS if k in opts} == {
        k: True for k in STRICT_FLAGS if k in opts
    }
    assert lib in opts["lib"]
    assert config["include"] == include
    proc = subprocess.run(
        [*_tsc(), "-p", str(HERE / project)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.stdout.strip() == ""


def _modules() -> list[Path]:
    return sorted(p for d in ("worker", "site") for p in (ROOT / d).rglob("*.js"))


def test_every_module_is_in_a_strict_tsc_project():
    """Every worker/ and site/ module is one of the files a strict tsc project checks, and starts with
    `// @ts-check` (so an editor checks it too); none opts out with @ts-nocheck or @ts-ignore."""
    checked: set[Path] = set()
    for project in TSC_PROJECTS:
        proc = subprocess.run(
            [*_tsc(), "-p", str(HERE / project), "--listFilesOnly"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        checked |= {Path(line).resolve() for line in proc.stdout.splitlines() if line.strip()}
    modules = _modules()
    assert len(modules) >= 85
    assert [p.relative_to(ROOT).as_posix() for p in modules if p.resolve() not in checked] == []
    heads = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in modules}
    assert [k for k, text in heads.items() if not text.startswith("// @ts-check\n")] == []
    assert [
        k for k, text in heads.items() if re.search(r"@ts-(nocheck|ignore|expect-error)", text)
    ] == []


def test_bridge_ops_are_the_protocol_bridge_ops():
    c = _contract()
    assert sorted(bridge.OPS) == sorted(c["bridge_ops"])
    assert sorted(c["worker_ops"]) == sorted(c["run_ops"])
    assert set(c["op"].values()) == set(c["run_ops"]) | set(c["bridge_ops"])


def _doc_ops(section: str) -> set[str]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    m = re.search(rf"<!-- {section} -->(.*?)<!-- /{section} -->", text, re.S)
    assert m, f"docs/ARCHITECTURE.md has no <!-- {section} --> table"
    return set(re.findall(r"^\| `([a-z_.]+)` \|", m.group(1), re.M))


def test_architecture_doc_lists_exactly_the_ops():
    """docs/ARCHITECTURE.md's two op tables list exactly bridge.OPS and protocol.js RUN_OPS."""
    c = _contract()
    assert _doc_ops("bridge-ops") == set(bridge.OPS) == set(c["bridge_ops"])
    assert _doc_ops("run-ops") == set(c["run_ops"])


def test_architecture_doc_lists_every_worker_module_and_log_kind():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for p in sorted((ROOT / "worker").rglob("*.js")):
        rel = p.relative_to(ROOT / "worker").as_posix()
        assert f"`{rel}`" in text, f"docs/ARCHITECTURE.md does not describe worker/{rel}"
    for kind in _contract()["log_kinds"]:
        assert f"`{kind}`" in text, f"docs/ARCHITECTURE.md does not describe log kind {kind}"
    for p in sorted((ROOT / "py" / "evalsieve").glob("*.py")):
        if p.name != "__init__.py":
            assert f"{p.name}" in text, (
                f"docs/ARCHITECTURE.md does not mention py/evalsieve/{p.name}"
            )
