"""Status from the ladder: a row caught by any rung (exact, ngram, semantic) is contaminated in
the report CSV, the too-short list's rung, the HTML report (listed under its first rung), the
--json summary and the page's view, whichever rungs' rows leave eval.clean. The semantic
rung runs on given cosines here (tests/py/test_semantic.py's ladder_job, the bridge's ops in
test_bridge_semantic.py); tests/py/test_cli_semantic.py runs it with the encoder."""

import json
import os
import re
import sys

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.contamination_html import report_html
from evalsieve.cli import main

from test_bridge_semantic import run as bridge_run
from test_semantic import EVAL_ROWS, _jsonl, ladder_job

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hostile")
)


def read_csv_export(text: str):
    """hostile_common.read_csv_export, the tests' one reader of CSV exports (skips where
    tests/hostile is absent: Pyodide's run holds tests/py only)."""
    return pytest.importorskip(
        "hostile_common", reason="reads CSV exports with tests/hostile/hostile_common.py"
    ).read_csv_export(text)


# ladder_job's rows: 1 exact, 2 ngram, 3 semantic, 4 clean, 5 "hi" (an exact one-word copy)
WANT = {
    1: ("contaminated", "exact"),
    2: ("contaminated", "ngram"),
    3: ("contaminated", "semantic"),
    4: ("clean", ""),
    5: ("contaminated", "exact"),
}


def html_rows(html: str) -> dict[str, list[int]]:
    """overlap-report.html's contaminated rows, by the rung they are listed under."""
    part = html.split("<h2>Contaminated rows")[1].split("<h2>")[0]
    out = {}
    for rung, body in re.findall(
        r"Caught first by the (\w+) rung \(\d+\)</h3>(.*?)(?=<h3>|$)", part, re.S
    ):
        out[rung] = [int(x) for x in re.findall(r'<tr><td class="num">(\d+)</td>', body)]
    return out


@pytest.mark.parametrize("exclude", [None, ("exact", "ngram"), ("semantic",)])
def test_every_rung_is_contaminated_in_every_export_whatever_leaves_the_clean_file(exclude):
    job, s = ladder_job(exclude=exclude)
    _, report = read_csv_export(cx.report_csv(job.result))
    got = {int(r["eval_row"]): (r["status"], r["rung"]) for r in report}
    assert got == {k: v for k, v in WANT.items()}  # row 5: too short, listed as caught
    _, short = read_csv_export(cx.too_short_csv(job.result))
    assert [(r["eval_row"], r["rung"]) for r in short] == [("5", "exact")]
    assert s["rows_contaminated"] == 4
    assert s["rows_contaminated_by_rung"] == {"exact": 2, "ngram": 1, "semantic": 1}
    html = report_html(job.result)
    assert "Contaminated rows (4)" in html
    assert html_rows(html) == {"exact": [1, 5], "ngram": [2], "semantic": [3]}
    view = cx.view(job.result)
    assert [(r["eval_row"], r["status"], r["rung"]) for r in view["rows"]] == [
        (k, *v) for k, v in WANT.items() if v[1]
    ]
    assert view["rows_total"] == 4
    # what leaves eval.clean is the setting's business, not the status's
    kept = {None: [4], ("exact", "ngram"): [3, 4], ("semantic",): [1, 2, 4]}[exclude]
    assert cx.clean_text(job.result) == _jsonl("q", [EVAL_ROWS[i - 1] for i in kept])
    assert s["rows_kept"] == len(kept)


def test_the_bridge_view_and_exports_say_contaminated_for_every_rung():
    s, view, exports = bridge_run(exclude=["exact", "ngram"])
    assert s["rows_contaminated"] == 4
    assert [(r["eval_row"], r["status"], r["rung"]) for r in view["rows"]] == [
        (k, *v) for k, v in WANT.items() if v[1]
    ]
    assert [(r["eval_row"], r["rung"], r["leaves_clean"]) for r in view["ladder"]["rows"]] == [
        (1, "exact", True),
        (2, "ngram", True),
        (3, "semantic", False),
        (5, "exact", True),
    ]
    _, report = read_csv_export(exports["contamination-report.csv"])
    assert {int(r["eval_row"]): (r["status"], r["rung"]) for r in report} == WANT
    assert "Contaminated rows (4)" in exports["overlap-report.html"]


def test_cli_json_counts_every_caught_row(tmp_path, capsys):
    """The --json summary and the exports of the CLI: an exact copy whose words are split
    over two training fields, a one-word copy and an n-gram match are contaminated, also when
    the exact rung's rows stay in eval.clean (--exclude-rungs ngram); --fail-on-contamination
    sees them."""
    ev, tr = tmp_path / "e.jsonl", tmp_path / "t.jsonl"
    ev.write_text(
        _jsonl(
            "q",
            [
                "What is the sum of two and two and then three more apples",
                "Paris",
                "the farmer sold seventeen apples at the market every sunday",
                "nothing like this is anywhere in the training data at all",
            ],
        )
    )
    tr.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"a": "What is the sum of two", "b": "and two, and then three more apples?"},
                {"a": "PARIS."},
                {"a": "each week the farmer sold seventeen apples at the market every sunday too"},
            ]
        )
    )
    base = [
        "contamination",
        str(ev),
        str(tr),
        "--eval-field",
        "q",
        "--train-field",
        "a",
        "--train-field",
        "b",
        "--n",
        "8",
        "--json",
        "--quiet",
    ]
    for flags, kept in (([], 1), (["--exclude-rungs", "ngram", "--clean", "not-contaminated"], 3)):
        out = tmp_path / f"o{len(flags)}"
        assert main(base + ["--out", str(out), *flags]) == 0
        s = json.loads(capsys.readouterr().out)
        assert s["rows_contaminated"] == 3 and s["rows_kept"] == kept
        assert s["rows_contaminated_by_rung"] == {"exact": 2, "ngram": 1, "semantic": None}
        _, report = read_csv_export((out / "contamination-report.csv").read_text("utf-8"))
        assert [(r["eval_row"], r["status"], r["rung"]) for r in report] == [
            ("1", "contaminated", "exact"),
            ("2", "contaminated", "exact"),
            ("3", "contaminated", "ngram"),
            ("4", "clean", ""),
        ]
        html = (out / "overlap-report.html").read_text("utf-8")
        assert html_rows(html) == {"exact": [1, 2], "ngram": [3]}
    # only exact copies, the exact rung's rows kept in eval.clean: still a contaminated set
    tr.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [{"a": "What is the sum of two", "b": "and two, and then three more apples?"}]
        )
    )
    assert (
        main(
            base
            + [
                "--out",
                str(tmp_path / "gate"),
                "--exclude-rungs",
                "ngram",
                "--fail-on-contamination",
            ]
        )
        == 1
    )
    assert json.loads(capsys.readouterr().out)["rows_contaminated"] == 1
