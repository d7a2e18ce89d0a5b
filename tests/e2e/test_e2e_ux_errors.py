"""In the real page: error boxes without "null" or "at at", the "skip
malformed lines" checkbox (counted, listed in skipped-lines.csv, stamped; eval.clean keeps only
the input's own good lines), and an overlap-report.html that fits 1280 px and A4 and runs no
script.

Files are hand-made here, so the bad lines are known: the expected line numbers and bytes are
written out, not computed by the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from hostile_common import read_csv_export, without_fingerprint
from pagekit import choose_file, download, wait_for_runs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUN_TIMEOUT_MS = 180_000

# eval: records 1, 3, 5, 6 good; line 2 not JSON, line 4 blank, line 5 a JSON array
EVAL_LINES = [
    '{"question": "the quick brown fox jumps over the lazy dog near the river bank today"}\n',
    '{"question": "a malformed line here" x}\n',
    '{"question": "completely different words that appear nowhere in the training data ok"}\r\n',
    "\n",
    '["an", "array"]\n',
    '{"question": "another clean row with plenty of words to be scored by the rule ok"}\n',
    '{"question": "résumé café naïve words make a fine last row without any newline"}',
]
TRAIN = (
    '{"text": "yesterday the quick brown fox jumps over the lazy dog near the river bank '
    'today and more"}\n{"text": broken\n{"text": "filler words only here nothing to see"}\n'
)


def run(page) -> str:
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    return wait_for_runs(page, before + 1, RUN_TIMEOUT_MS)


def csv_body(data: bytes) -> tuple[str | None, list[list[str]]]:
    """(fingerprint, rows with the header first) of a CSV export, without run_fingerprint."""
    fp, _ = read_csv_export(data.decode("utf-8"))
    return fp, list(csv.reader(io.StringIO(without_fingerprint(data.decode("utf-8")))))


def error_text(page) -> str:
    page.wait_for_selector("#error:not([hidden])")
    return page.inner_text("#error")


def assert_clean_error(text: str) -> None:
    assert not re.search(r"\bnull\b", text), text
    assert "at at" not in text, text
    assert not re.search(r"\bundefined\b", text), text


def set_skip(page, on: bool) -> None:
    if page.is_checked("#setting-skip-bad-lines") != on:
        page.click("#setting-skip-bad-lines")


def test_error_boxes_have_no_null_and_no_at_at(tab, tmp_path):
    set_skip(tab, False)
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    zero = tmp_path / "zero.parquet"
    zero.write_bytes(b"")
    cut = tmp_path / "cut.jsonl"  # the last line ends inside a string (no newline after it)
    cut.write_text(
        '{"question": "one two three four five six seven eight nine"}\n{"question": "unterminated',
        encoding="utf-8",
    )
    # a file with no rows, then one whose string stops: what each box must say
    for path, says in (
        (empty, "the file is empty"),
        (zero, "the file is empty"),
        (cut, "Unterminated string starting at column 14"),
    ):
        choose_file(tab, "eval", path)
        text = error_text(tab)
        assert says in text and path.name in text, text
        assert_clean_error(text)
    assert "line 2" in text
    # a Parquet file with a schema but no rows: the run stops at the end of the eval pass
    rows0 = tmp_path / "no-rows.parquet"
    pq.write_table(pa.table({"question": pa.array([], pa.string())}), rows0)
    choose_file(tab, "eval", rows0, ["question"])
    assert run(tab) == "error"
    text = error_text(tab)
    assert "the eval file has no rows" in text and "no-rows.parquet" in text
    assert_clean_error(text)
    # every part of the box is an element; no bare text node ("null") between them
    assert tab.evaluate(
        "[...document.querySelector('#error').childNodes].every(n => n.nodeType === 1)"
    )


def test_skip_malformed_lines_counts_lists_and_keeps_clean_bytes(tab, tmp_path):
    ev = tmp_path / "skip-eval.jsonl"
    ev.write_bytes("".join(EVAL_LINES).encode("utf-8"))
    tr = tmp_path / "skip-train.jsonl"
    tr.write_bytes(TRAIN.encode("utf-8"))
    set_skip(tab, False)
    # without the option: the file's head stops at line 2 with the file, line and expectation
    choose_file(tab, "eval", ev)
    text = error_text(tab)
    assert "skip-eval.jsonl, line 2" in text and "one JSON object per line" in text
    assert_clean_error(text)
    # ticking the option reads the chosen file again, around its malformed lines
    set_skip(tab, True)
    tab.wait_for_selector('#eval-fields[data-file="skip-eval.jsonl"][data-state="ready"]')
    tab.check('#eval-fields input[data-path="question"]')
    choose_file(tab, "train", tr, ["text"])
    tab.fill("#setting-n", "8")
    tab.fill("#setting-threshold", "")
    tab.select_option("#setting-clean", "scored")
    assert run(tab) == "done"
    assert tab.get_attribute("#skipped-note", "data-skipped") == "3"
    note = tab.inner_text("#skipped-note")
    assert (
        "3 malformed lines skipped" in note
        and "skip-eval.jsonl: 2" in note
        and "skip-train.jsonl: 1" in note
    )
    fp, rows = csv_body(download(tab, "skipped-lines.csv", tmp_path))
    stamp = json.loads(download(tab, "run-stamp.json", tmp_path))
    assert stamp["fingerprint"] == fp
    assert rows[0] == ["file", "line", "error"]
    assert [(r[0], r[1]) for r in rows[1:]] == [
        ("skip-eval.jsonl", "2"),
        ("skip-eval.jsonl", "5"),
        ("skip-train.jsonl", "2"),
    ]
    assert rows[2][2].startswith("a JSON list where an object was expected")
    assert stamp["settings"]["skipped_lines"] == {"skip-eval.jsonl": 2, "skip-train.jsonl": 1}
    # the rows scored: records 1, 3, 5, 6 (a skipped record keeps its number); row 1 is in
    # training record 1
    _, report = csv_body(download(tab, "contamination-report.csv", tmp_path))
    assert [(r[0], r[1]) for r in report[1:]] == [
        ("1", "contaminated"),
        ("3", "clean"),
        ("5", "clean"),
        ("6", "clean"),
    ]
    # eval.clean: the kept rows' own bytes (CRLF and the missing last newline as they were)
    clean = download(tab, "eval.clean.jsonl", tmp_path)
    assert clean == (EVAL_LINES[2] + EVAL_LINES[5] + EVAL_LINES[6]).encode("utf-8")
    set_skip(tab, False)


def test_report_fits_1280_and_a4_and_runs_no_script(tab, browser_context, tmp_path):
    set_skip(tab, False)
    choose_file(tab, "eval", FIXTURES / "gsm8k_test_sample.jsonl", ["question"])
    choose_file(tab, "train", FIXTURES / "train_mix.jsonl", ["text"])
    tab.fill("#setting-n", "")
    assert run(tab) == "done"
    html = download(tab, "overlap-report.html", tmp_path).decode("utf-8")
    assert "<script" not in html.lower() and not re.search(r"\son\w+\s*=", html, re.I)
    shown = tab.eval_on_selector_all(
        "#contaminated tbody tr", "rs => rs.map(r => [r.dataset.row, r.dataset.rung])"
    )
    assert len(shown) >= 3
    # the report lists them under the first rung that caught them, each group in page order
    view = [
        row for row, _ in sorted(shown, key=lambda x: ["exact", "ngram", "semantic"].index(x[1]))
    ]
    report = browser_context.new_page()
    try:
        report.set_viewport_size({"width": 1280, "height": 900})
        report.goto((tmp_path / "overlap-report.html").as_uri())
        assert report.evaluate("document.documentElement.scrollWidth") <= 1280
        # the rows in the page's order within each rung's group, each with its eval text
        rows = report.evaluate("""() => {
            const h = [...document.querySelectorAll('h2')].find(x => x.textContent.startsWith('Contaminated rows'));
            const out = [];
            for (let t = h.nextElementSibling; t && t.tagName !== 'H2'; t = t.nextElementSibling) {
                if (t.tagName === 'TABLE') out.push(...[...t.querySelectorAll('tbody tr')].map(r => [...r.cells].map(c => c.textContent)));
            }
            return out;
        }""")
        assert [r[0] for r in rows] == view
        questions = [
            json.loads(x)["question"]
            for x in (FIXTURES / "gsm8k_test_sample.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        assert [r[3] for r in rows] == [questions[int(v) - 1] for v in view]
        # numbers right, words left
        align = report.evaluate("""() => [...document.querySelectorAll('td')].map(
            c => [c.textContent, getComputedStyle(c).textAlign])""")
        for text, a in align:
            if re.fullmatch(r"\d+(\.\d+)?", text):
                assert a == "right", (text, a)
            elif re.search(r"[a-z]{3}", text):
                assert a in ("left", "start"), (text, a)
        # the stamp JSON sits in a collapsed <details>; assets print as plain words
        assert report.evaluate("document.querySelector('details').open") is False
        assert "{'" not in report.inner_text("body")
        # A4 (210 mm = 794 CSS px at 96 dpi) when printed
        report.emulate_media(media="print")
        report.set_viewport_size({"width": 794, "height": 1123})
        assert report.evaluate("document.documentElement.scrollWidth") <= 794
    finally:
        report.close()
