"""The semantic rung's code setting in the real page (Debian chromium, dist/ as built):
site/sections/semantic-settings.js sets it, the worker passes it to Python, the stamp and the
report reflect it, and they equal the CLI run with the same flag.

Fixture (tests/fixtures/README.md, make_semantic_code_fixture.py): HumanEval programs 0-11
(humaneval_sample.jsonl) against 30 MBPP records and the GPT-4 rephrasings of rows 3 and 12
planted inside MBPP records (semantic_code_train.jsonl).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pagekit import choose_file, wait_for_runs
from test_e2e_contamination import download_all, read_report, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EVAL = FIXTURES / "humaneval_sample.jsonl"
TRAIN = FIXTURES / "semantic_code_train.jsonl"
# figures from the encoder (onnxruntime-web vs onnxruntime: float rounding apart)
ENCODER_COLUMNS = (
    "semantic_score",
    "semantic_cosine",
    "semantic_docstring_cosine",
    "semantic_rival",
)


def cli_report(out: Path, *flags: str) -> tuple[dict, list[dict]]:
    """The CLI on the same files and fields; the report's stamp and rows."""
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
                "text",
                "--train-field",
                "text",
                "--semantic",
                *flags,
                "--threads",
                "1",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return read_report(
        (out / "contamination-report.csv").read_text(encoding="utf-8"),
        (out / "run-stamp.json").read_text(encoding="utf-8"),
    )


def test_code_settings_in_the_page_equal_the_cli(page, tmp_path):
    wait_for_runs(page, 1)  # the example's run at load (semantic rung off)
    ngram = "#setting-semantic-code-ngram"
    # Python's default from ready.constants; greyed out while the rung is off; the
    # verifier's fitted parts have no controls
    assert page.input_value(ngram) == "3" and page.is_disabled(ngram)
    assert (page.get_attribute(ngram, "min"), page.get_attribute(ngram, "max")) == ("0", "8")
    for gone in (
        "#setting-semantic-docstring-cosine",
        "#setting-semantic-code-margin",
        "#setting-semantic-explain-away",
    ):
        assert page.query_selector(gone) is None, gone
    choose_file(page, "eval", EVAL, ["text"])
    choose_file(page, "train", TRAIN, ["text"])
    page.check("#setting-semantic")
    assert page.is_enabled(ngram)

    # out of range: refused before any pass, naming the setting and its range
    page.fill(ngram, "9")
    page.click("#run")
    page.wait_for_selector("#error:not([hidden])")
    assert "code shingles must be a whole number of tokens from 0 (off) to 8" in page.text_content(
        "#error"
    )

    # text the browser cannot read as a number ("1e": value "" with validity.badInput) is
    # refused too, not read as empty (= the default); so is N's box
    for box, words in (
        (ngram, "code shingles must be a whole number of tokens from 0 (off) to 8"),
        ("#setting-n", "N must be a whole number from 1 to 1000"),
    ):
        page.fill(ngram, "4")
        page.fill(box, "")
        page.click(box)
        page.keyboard.type("1e")
        assert page.evaluate(f"document.querySelector('{box}').validity.badInput")
        page.click("#run")
        page.wait_for_function(
            f"() => document.querySelector('#error').textContent.includes({words!r})"
        )
        page.fill(box, "")

    page.fill(ngram, "4")
    state = run_and_wait(page, timeout_ms=1_200_000)
    assert state == "done", page.text_content("#error")
    log = [li.text_content() for li in page.query_selector_all("#log li")]
    assert any("semantic rung on (code shingles 4)" in x for x in log), log

    (tmp_path / "page").mkdir()
    got = download_all(page, tmp_path / "page")
    stamp, rows = read_report(
        got["contamination-report.csv"].decode("utf-8"), got["run-stamp.json"].decode("utf-8")
    )
    assert stamp["settings"]["semantic_code_ngram"] == 4
    assert "semantic_code_margin" not in stamp["settings"]
    cli_stamp, cli_rows = cli_report(tmp_path / "cli4", "--semantic-code-ngram", "4")
    for k, v in cli_stamp["settings"].items():
        if k.startswith("semantic_"):
            assert stamp["settings"][k] == v, k
    assert list(rows[0]) == list(cli_rows[0])
    assert "semantic_code" in rows[0] and "semantic_docstring_cosine" in rows[0]
    for r, c in zip(rows, cli_rows, strict=True):
        assert {k: v for k, v in r.items() if k not in ENCODER_COLUMNS} == {
            k: v for k, v in c.items() if k not in ENCODER_COLUMNS
        }, r["eval_row"]
        for k in ENCODER_COLUMNS:
            assert (r[k] == c[k] == "") or abs(float(r[k]) - float(c[k])) <= 2e-4, (r, k)
    # every row is code: its code evidence and its runner-up are filled; the planted rows'
    # windows hold a docstring
    assert all(r["semantic_code"] != "" and r["semantic_code_runner_up"] != "" for r in rows)
    assert {r["eval_row"] for r in rows if r["rung"] == "semantic"} == {"3", "12"}
    assert all(r["semantic_docstring_cosine"] != "" for r in rows if r["eval_row"] in ("3", "12"))
    # the setting changed the code evidence: the default's (n = 3) differs on some row
    _, default_rows = cli_report(tmp_path / "cli3")
    assert [r["semantic_code"] for r in default_rows] != [r["semantic_code"] for r in rows]
