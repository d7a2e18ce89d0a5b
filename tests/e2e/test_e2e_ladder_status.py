"""Status from the ladder in the real page, with the page's prefilter (WebAssembly kernel or
prefilter.js) in front of Python: an eval row equal to a training record only with two
training fields joined, and a one-word row equal to a one-word record, are caught by the
exact rung; both are contaminated in the page's counts and table, in every downloaded
export, and the page's exports equal the CLI's (numpy filter) on the same files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pagekit import choose_file
from test_e2e_contamination import count, download_all, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hostile"))
from hostile_common import read_csv_export  # noqa: E402

EVAL = [
    "What is the sum of two and two and then three more apples",  # fields joined
    "Paris",  # one word
    "The farmer sold seventeen apples at the market every sunday morning",  # an n-gram
    "Nothing like this is anywhere in the training data at all today",
    "a lonely short row",
]
TRAIN = [
    {"a": "an unrelated note about bread ovens and flour"},
    {"a": "What is the sum of two", "b": "and two, and then three more apples?"},
    {"a": "PARIS."},
    {"a": "Every week the farmer sold seventeen apples at the market every sunday morning."},
]


def test_exact_and_ngram_rows_are_contaminated_in_the_page_and_its_exports(tab, tmp_path):
    ev, tr = tmp_path / "ladder-eval.jsonl", tmp_path / "ladder-train.jsonl"
    ev.write_text("".join(json.dumps({"question": q}) + "\n" for q in EVAL), encoding="utf-8")
    tr.write_text("".join(json.dumps(r) + "\n" for r in TRAIN), encoding="utf-8")
    choose_file(tab, "train", tr, ["a", "b"])
    choose_file(tab, "eval", ev, ["question"])
    tab.fill("#setting-n", "8")
    tab.fill("#setting-threshold", "")
    assert run_and_wait(tab) == "done", tab.text_content("#error")

    assert count(tab, "contaminated") == "3" and count(tab, "kept") == "1"
    shown = tab.eval_on_selector_all(
        "#contaminated tbody tr", "trs => trs.map(t => [t.dataset.row, t.dataset.rung])"
    )
    assert shown == [["1", "exact"], ["2", "exact"], ["3", "ngram"]]
    assert tab.text_content('#contaminated tr[data-row="2"] td[data-col="rung"] .rung') == "exact"
    rungs = {
        tr_.get_attribute("data-rung"): [td.text_content() for td in tr_.query_selector_all("td")]
        for tr_ in tab.query_selector_all("#ladder-rungs tbody tr")
    }
    assert rungs["exact"] == ["2", "yes"] and rungs["ngram"] == ["1", "yes"]

    (tmp_path / "page").mkdir()
    got = download_all(tab, tmp_path / "page")
    _, report = read_csv_export(got["contamination-report.csv"].decode("utf-8"))
    assert [(r["eval_row"], r["status"], r["rung"], r["training_record"]) for r in report] == [
        ("1", "contaminated", "exact", "2"),
        ("2", "contaminated", "exact", "3"),
        ("3", "contaminated", "ngram", "4"),
        ("4", "clean", "", ""),
    ]
    _, short = read_csv_export(got["too-short-to-score.csv"].decode("utf-8"))
    assert [(r["eval_row"], r["rung"]) for r in short] == [("2", "exact"), ("5", "")]
    html = got["overlap-report.html"].decode("utf-8")
    assert "Contaminated rows (3)" in html and "Caught first by the exact rung (2)" in html
    assert got["eval.clean.jsonl"] == (json.dumps({"question": EVAL[3]}) + "\n").encode()

    sys.path.insert(0, str(ROOT / "py"))
    from evalsieve.cli import main

    out = tmp_path / "cli"
    assert (
        main(
            [
                "contamination",
                str(ev),
                str(tr),
                "--eval-field",
                "question",
                "--train-field",
                "a",
                "--train-field",
                "b",
                "--n",
                "8",
                "--filter",
                "numpy",
                "--workers",
                "1",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    for name in ("contamination-report.csv", "too-short-to-score.csv"):
        assert (
            read_csv_export((out / name).read_text(encoding="utf-8"))[1]
            == read_csv_export(got[name].decode("utf-8"))[1]
        ), name
    assert (out / "eval.clean.jsonl").read_bytes() == got["eval.clean.jsonl"]
