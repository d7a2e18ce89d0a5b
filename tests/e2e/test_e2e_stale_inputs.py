"""After a run, choosing a file that cannot be read greys the results under a banner that
says so, and the tab's status no longer says "Done": on both tabs. (Before, a bad eval
file left the old results un-greyed under "Done (your files).")"""

from __future__ import annotations

from pathlib import Path

from pagekit import choose_file, close_page, open_page, runs_so_far, wait_for_runs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GSM = FIXTURES / "gsm8k_test_sample.jsonl"
TRAIN = FIXTURES / "train_mix.jsonl"
RUN_TIMEOUT_MS = 240_000


def broken(folder: Path) -> Path:
    bad = folder / "broken.jsonl"
    bad.write_text('{"question": "fine"}\n{"question": "broken\n', encoding="utf-8")
    return bad


def test_a_bad_eval_file_after_a_run_greys_the_results_and_the_status_says_not_run(
    browser_context, base_url, tmp_path
):
    p = open_page(browser_context, base_url)
    try:
        assert wait_for_runs(p, 1) == "done", p.text_content("#error")
        choose_file(p, "eval", GSM, ["question"])
        choose_file(p, "train", TRAIN, ["text"])
        before = runs_so_far(p)
        p.click("#run")
        assert wait_for_runs(p, before + 1, RUN_TIMEOUT_MS) == "done", p.text_content("#error")
        assert p.text_content("#status") == "Done (your files)."
        assert p.get_attribute("#results", "data-stale") is None
        choose_file(p, "eval", broken(tmp_path))
        p.wait_for_selector("#results[data-stale]", timeout=30_000)
        assert p.text_content("#results-stale") == (
            "From your previous run (gsm8k_test_sample.jsonl, train_mix.jsonl): the eval file "
            "chosen since (broken.jsonl) could not be read; see the message next to it."
        )
        assert p.is_visible("#results-stale")
        assert p.get_attribute("#status", "data-state") == "idle"
        assert p.text_content("#status") == "Not run: the eval file broken.jsonl could not be read."
        assert "broken.jsonl" in p.text_content("#error")
        assert p.is_disabled("#run")
        # a readable file then: still greyed (not run for it), the banner says what changed
        choose_file(p, "eval", GSM, ["question"])
        p.wait_for_function(
            "() => document.querySelector('#results-stale').textContent"
            ".includes('you have chosen other files since')"
        )
        assert p.get_attribute("#results", "data-stale") == "1"
        assert p.text_content("#status") == "Not run yet for the files chosen now: press Run."
        assert not p.watch.page_errors, p.watch.page_errors
    finally:
        close_page(p)


def test_a_bad_file_on_the_paraphrase_tab_after_its_run_greys_it_and_the_status_says_not_run(
    browser_context, base_url, tmp_path
):
    p = open_page(browser_context, base_url, "index.html#paraphrases")
    try:
        p.wait_for_function(
            "() => Number(document.querySelector('#para-status').dataset.runs || 0) >= 1",
            timeout=RUN_TIMEOUT_MS,
        )
        assert p.get_attribute("#para-status", "data-state") == "done", p.text_content(
            "#para-error"
        )
        assert p.text_content("#para-status") == "Done (example)."
        bad = broken(tmp_path)
        p.set_input_files("#para-file", str(bad))
        p.wait_for_selector(
            '#para-fields[data-file="broken.jsonl"][data-state="error"]', timeout=60_000
        )
        p.wait_for_selector("#para-results[data-stale]", timeout=30_000)
        assert "the new input is not valid" in p.text_content("#para-stale")
        assert p.get_attribute("#para-status", "data-state") == "idle"
        assert p.text_content("#para-status") == "Not run: broken.jsonl could not be read."
        assert not p.watch.page_errors, p.watch.page_errors
    finally:
        close_page(p)
