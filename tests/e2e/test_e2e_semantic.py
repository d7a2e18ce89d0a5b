"""The semantic rung and the ladder in the real page (Debian chromium, dist/ as built), with
real files, against the CLI on the same files.

Fixture (tests/fixtures/README.md, make_semantic_fixture.py): the 40 GSM8K test rows of
gsm8k_test_sample.jsonl against semantic_train.jsonl, which holds the GPT-4 rephrasings of
eval rows 3 and 15 planted inside WikiText paragraphs, other WikiText paragraphs and 60
GSM8K train questions; no eval row shares an n-gram with it, so only the semantic rung can
catch rows 3 and 15 (tests/py/test_cli_semantic.py checks that in the CLI).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pagekit import choose_file, wait_for_runs
from test_e2e_contamination import (
    check_protocol,
    count,
    download_all,
    read_report,
    run_and_wait,
    worker_messages,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EVAL = FIXTURES / "gsm8k_test_sample.jsonl"
TRAIN = FIXTURES / "semantic_train.jsonl"
# the verifier's figures that come from the encoder (onnxruntime-web in the page, onnxruntime
# in the CLI: the same graph, float rounding apart); every other column must be equal
ENCODER_COLUMNS = (
    "semantic_score",
    "semantic_cosine",
    "semantic_docstring_cosine",
    "semantic_rival",
)


def same_but_encoder(rows: list[dict], cli_rows: list[dict], tolerance: float) -> None:
    """The page's report rows equal the CLI's, the ENCODER_COLUMNS to ``tolerance``."""
    assert len(rows) == len(cli_rows)
    for r, c in zip(rows, cli_rows):
        assert {k: v for k, v in r.items() if k not in ENCODER_COLUMNS} == {
            k: v for k, v in c.items() if k not in ENCODER_COLUMNS
        }, r["eval_row"]
        for k in ENCODER_COLUMNS:
            assert (r[k] == c[k] == "") or abs(float(r[k]) - float(c[k])) <= tolerance, (r, k)


def cli_run(out: Path) -> dict[str, bytes]:
    """The CLI on the same files, the same fields and the same excluded rungs."""
    pytest.importorskip("onnxruntime", reason="the CLI's semantic rung needs the encoder extra")
    pytest.importorskip("tokenizers", reason="the CLI's semantic rung needs the encoder extra")
    sys.path.insert(0, str(ROOT / "py"))
    from evalsieve.cli import main

    assert (
        main(
            [
                "contamination",
                str(EVAL),
                str(TRAIN),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--semantic",
                "--threads",
                "1",
                "--exclude-rungs",
                "exact,ngram",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_semantic_rung_and_ladder_in_the_page_equal_the_cli(page, tmp_path):
    from evalsieve.ladder import QUALITY_NOTE

    wait_for_runs(page, 1)  # the example's run at load (semantic rung off)
    assert not page.is_checked("#setting-semantic")  # off by default
    assert page.is_disabled("#exclude-semantic")
    assert (
        page.query_selector('#ladder-rungs tr[data-rung="semantic"] td').text_content()
        == "did not run"
    )
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", TRAIN, ["text"])
    page.check("#setting-semantic")
    assert page.is_enabled("#exclude-semantic") and page.is_checked("#exclude-semantic")
    page.uncheck("#exclude-semantic")  # the semantic rung's rows stay in eval.clean
    state = run_and_wait(page, timeout_ms=1_200_000)
    assert state == "done", page.text_content("#error")

    # the estimate came from the candidate stage and the first batch, before the embedding ended
    log = [li.text_content() for li in page.query_selector_all("#log li")]
    at = lambda s: next(i for i, x in enumerate(log) if s in x)  # noqa: E731
    assert at("semantic rung: ") < at("estimate: about") < at("semantic rung: embedded")
    assert "the candidate stage lets" in log[at("semantic rung: ")]
    # the window scan ran in the page's kernel (its report rows equal the CLI's below)
    assert at("semantic: the window scan runs in the kernel") < at("semantic rung: ")
    est = page.query_selector("#semantic-estimate")
    assert float(est.get_attribute("data-seconds")) > 0
    assert "windows; measured" in est.text_content() and "spans from" in est.text_content()

    # the ladder on the page
    def rung_cells(k):
        return [
            td.text_content()
            for td in page.query_selector_all(f'#ladder-rungs tr[data-rung="{k}"] td')
        ]

    assert rung_cells("exact") == ["0", "yes"] and rung_cells("ngram") == ["0", "yes"]
    assert rung_cells("semantic") == ["2", "no"] and rung_cells("none") == ["38", ""]
    shown = {
        tr.get_attribute("data-row"): tr.get_attribute("data-rung")
        for tr in page.query_selector_all("#contaminated tbody tr")
    }  # caught by any rung
    assert shown == {"3": "semantic", "15": "semantic"}
    # caught rows are contaminated though the semantic rung's rows stay in eval.clean
    assert count(page, "contaminated") == "2" and count(page, "kept") == "40"
    assert page.eval_on_selector_all(
        "#contaminated tbody tr", "trs => trs.map(t => [t.dataset.row, t.dataset.rung])"
    ) == [["3", "semantic"], ["15", "semantic"]]
    assert QUALITY_NOTE in page.text_content("#semantic-quality")
    assert "cannot see translations" in page.text_content("#semantic-rule")

    (tmp_path / "page").mkdir()
    got = download_all(page, tmp_path / "page")
    want = cli_run(tmp_path / "cli")
    stamp, rows = read_report(
        got["contamination-report.csv"].decode("utf-8"), got["run-stamp.json"].decode("utf-8")
    )
    cli_stamp, cli_rows = read_report(
        want["contamination-report.csv"].decode("utf-8"), want["run-stamp.json"].decode("utf-8")
    )
    assert list(rows[0]) == list(cli_rows[0])
    assert [(r["eval_row"], r["rung"], r["semantic_training_record"]) for r in rows] == [
        (r["eval_row"], r["rung"], r["semantic_training_record"]) for r in cli_rows
    ]
    assert [r["eval_row"] for r in rows if r["rung"]] == ["3", "15"]
    assert [r["eval_row"] for r in rows if r["status"] == "contaminated"] == ["3", "15"]
    same_but_encoder(rows, cli_rows, 2e-4)
    for k in (
        "rungs",
        "clean_file_excludes",
        "semantic_threshold",
        "semantic_code_threshold",
        "semantic_candidates_per_row",
        "semantic_window_words",
        "semantic_verifier_weights",
    ):
        assert stamp["settings"][k] == cli_stamp["settings"][k], k
    assert stamp["settings"]["clean_file_excludes"] == ["exact", "ngram"]
    assert stamp["assets"]["encoder_provider"] == "wasm"
    assert stamp["assets"]["encoder_sha256"] == cli_stamp["assets"]["encoder_sha256"]
    # the semantic rung's rows were not excluded: eval.clean keeps every row, as the CLI's
    assert got["eval.clean.jsonl"] == want["eval.clean.jsonl"] == EVAL.read_bytes()
    html = got["overlap-report.html"].decode("utf-8")
    assert "Rung semantic (2 rows caught)" in html and QUALITY_NOTE in html
    assert "Contaminated rows (2)" in html and "Caught first by the semantic rung (2)" in html
    check_protocol(worker_messages(page))
    embed = [m for m in worker_messages(page) if m["type"] == "progress" and m["stage"] == "embed"]
    assert embed and embed[-1]["done"] == embed[-1]["total"] > 2
