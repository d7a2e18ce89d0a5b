"""The package's shape: modules stay small, and the ladder imports no job."""

import ast
import os

import evalsieve

PKG = os.path.dirname(evalsieve.__file__)


def test_no_module_over_600_lines():
    sizes = {
        f: sum(1 for _ in open(os.path.join(PKG, f), encoding="utf-8"))
        for f in os.listdir(PKG)
        if f.endswith(".py")
    }
    assert len(sizes) > 40
    assert {f: n for f, n in sizes.items() if n > 600} == {}


def imported(module: str) -> set[str]:
    """The package modules ``module`` imports at run time (type-checking imports left out)."""
    tree = ast.parse(open(os.path.join(PKG, module + ".py"), encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.add(node.module or "")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evalsieve."):
            out.add(node.module.split(".", 1)[1])
    return out


def test_the_ladder_and_the_shared_modules_import_no_job():
    jobs = {"contamination_job", "paraphrase"}
    for module in (
        "ladder",
        "verdict",
        "contamination_exports",
        "records",
        "constants",
        "semantic_terms",
    ):
        assert imported(module) & jobs == set(), module
    # both jobs take the ladder and the skip rule from their own modules
    # (the job takes the ladder's verdict, RUNGS and assign_rungs, from verdict.py, which
    # ladder.py re-exports; its exports mixin takes the ladder's report section)
    assert "verdict" in imported("contamination_job")
    assert "ladder" in imported("contamination_exports")
    assert "contamination_job" not in imported("paraphrase")
