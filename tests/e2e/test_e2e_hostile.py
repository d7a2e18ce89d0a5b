"""The hostile-input corpus (tests/hostile) in the real page: each case is dropped into the
eval input and the training input. A case that must fail shows a specific error (the file,
the line where one applies, the expected words); a case that must work is run against the
valid partner and its clean download is byte for byte the kept rows. No uncaught page error,
and the tab stays responsive after every case."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pagekit import download, wait_for_runs

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
sys.path.insert(0, str(HOSTILE))
import make_corpus  # noqa: E402
from hostile_common import check_html_inert, read_csv_export  # noqa: E402

CASES = make_corpus.cases(big=True)
RUN_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-page")
    make_corpus.build(str(folder), big=True)
    return folder


def drop(page, role: str, path: Path) -> str:
    """Give the page a file for one side; returns the field box's state (ready/error)."""
    page.set_input_files(f"#{role}-file", str(path))
    sel = (
        f'#{role}-fields[data-file="{path.name}"][data-state="ready"], '
        f'#{role}-fields[data-file="{path.name}"][data-state="error"]'
    )
    page.wait_for_selector(sel, timeout=RUN_TIMEOUT_MS)
    return page.get_attribute(f"#{role}-fields", "data-state")


def run(page) -> str:
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    return wait_for_runs(page, before + 1, RUN_TIMEOUT_MS)


def last_exports(page) -> dict[str, str]:
    """The exports of the last run, as the worker sent them (what the buttons download)."""
    msgs = page.evaluate(
        "window.__workerMessages.filter(m => m.type === 'result' && m.data && m.data.exports)"
    )
    return {x["name"]: x["text"] for x in msgs[-1]["data"]["exports"]}


def partition(exports: dict[str, str]) -> dict[str, list[int]]:
    got = {"clean": [], "contaminated": [], "too_short": []}
    for r in read_csv_export(exports["contamination-report.csv"])[1]:
        got[r["status"]].append(int(r["eval_row"]))
    # a row too short to score that a rung caught is contaminated (counted there, once)
    got["too_short"] = [
        int(r["eval_row"])
        for r in read_csv_export(exports["too-short-to-score.csv"])[1]
        if not r["rung"]
    ]
    return got


def check_shown_error(page, case) -> None:
    assert page.is_visible("#error"), f"{case.name}: no error shown"
    text = page.text_content("#error")
    assert case.name in text, text
    low = text.lower()
    for w in case.error or case.page_error:
        assert w.lower() in low, f"{case.name}: {w!r} not in {text!r}"
    if case.error and case.line is not None:
        assert page.get_attribute("#error .error-where span", "data-line") == str(case.line), text
    assert page.get_attribute("#error", "data-code") == "bad_input", text


def check_alive(page) -> None:
    page.wait_for_function("() => true", timeout=5_000)  # the main thread answers
    assert not page.watch.page_errors, page.watch.page_errors


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_in_the_page(tab, corpus, case, tmp_path):
    page = tab
    try:
        # as the eval file, against the valid training partner
        assert drop(page, "train", corpus / "_train-partner.jsonl") == "ready"
        state = drop(page, "eval", corpus / case.name)
        if case.error or case.page_error:
            assert state == "error", f"{case.name}: accepted"
            check_shown_error(page, case)
        else:
            assert state == "ready", page.text_content("#error")
            assert run(page) == "done", page.text_content("#error")
            exports = last_exports(page)
            got = partition(exports)
            every = sorted(got["clean"] + got["contaminated"] + got["too_short"])
            assert every == list(range(1, len(case.rows) + 1)), got
            clean_name = next(n for n in exports if n.startswith("eval.clean."))
            want = case.header + b"".join(case.rows[i - 1] for i in sorted(got["clean"]))
            if want and case.data.startswith(make_corpus.BOM):
                want = make_corpus.BOM + want  # the clean file keeps the input's BOM
            assert download(page, clean_name, tmp_path) == want
            check_html_inert(exports["overlap-report.html"])
            if case.name == "markup.jsonl":
                assert got["contaminated"] == [1, 2, 3]
                table = page.text_content("#contaminated")
                assert "<script>" in table and "<img" in table  # shown as text
                assert not page.query_selector(
                    "#results script, #results img, #results textarea, #results b"
                )
        check_alive(page)

        # as the training file, against the valid eval partner
        assert drop(page, "eval", corpus / "_eval-partner.jsonl") == "ready"
        state = drop(page, "train", corpus / case.name)
        if case.error or case.page_error:
            assert state == "error", f"{case.name}: accepted as training file"
            check_shown_error(page, case)
        else:
            assert state == "ready", page.text_content("#error")
            assert run(page) == "done", page.text_content("#error")
            records = page.text_content('#counts dd[data-count="training records"]').strip()
            assert records.replace(",", "") == str(len(case.rows))
            got = partition(last_exports(page))
            assert sorted(sum(got.values(), [])) == [1, 2, 3, 4, 5]
        check_alive(page)
    finally:
        page.watch.page_errors.clear()
