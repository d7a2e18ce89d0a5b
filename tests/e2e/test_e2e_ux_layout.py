"""The real page at a phone-sized window (420 × 800): the field
list shows evidence (sample values, the default's reason, the too-short warning, a combination
one click away); choosing files never moves the window (the event log scrolls in its own box);
an input's error sits next to its drop zone, in view, and is logged; old results are greyed
under a banner saying where they come from; each tab has its own status line; nothing is wider
than the window on either tab after a run; the tabs follow the WAI-ARIA tabs pattern.

Expected texts come from the fixture's own bytes (row 1 of the committed GSM8K sample) and
hand-computed counts, not from the page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagekit import open_page, wait_for_runs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GSM = FIXTURES / "gsm8k_test_sample.jsonl"
WIDTH, HEIGHT = 420, 800
RUN_TIMEOUT_MS = 240_000


@pytest.fixture(scope="module")
def phone(browser_context, base_url):
    """One tab at 420 × 800 for the module; the contamination example run is awaited."""
    p = open_page(browser_context, base_url)
    p.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    assert wait_for_runs(p, 1) == "done", p.text_content("#error")
    yield p
    p.close()
    assert not p.watch.page_errors, p.watch.page_errors
    assert not p.watch.foreign_requests(), p.watch.foreign_requests()


def scroll_y(page) -> float:
    return page.evaluate("window.scrollY")


def overflow(page) -> int:
    """How much wider than the window the page is (0: nothing overflows)."""
    return page.evaluate("document.documentElement.scrollWidth") - WIDTH


def in_view(page, selector: str) -> bool:
    return page.eval_on_selector(
        selector,
        """e => { const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
    )


def choose(page, role: str, path: Path) -> None:
    page.set_input_files(f"#{role}-file", str(path))
    page.wait_for_selector(
        f'#{role}-fields[data-file="{path.name}"]:is([data-state="ready"], [data-state="error"])',
        timeout=60_000,
    )


def clipped(text: str, limit: int = 120) -> str:
    """The page's sample clip, worked by hand: white space runs -> one space, cut with '…'."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def test_no_overflow_at_phone_width_after_the_example_run(phone):
    assert phone.is_visible("#results")
    assert overflow(phone) <= 0, phone.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 421)"
        ".slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)"
    )
    # the histogram fits the window instead of its 420-unit viewBox width
    assert (
        phone.eval_on_selector("#cont-histogram", "e => e.getBoundingClientRect().right") <= WIDTH
    )


def test_choosing_a_file_keeps_the_window_still_and_the_log_scrolls_in_its_box(phone):
    phone.eval_on_selector("#eval-drop", "e => e.scrollIntoView({block: 'center'})")
    before = scroll_y(phone)
    assert before > 0
    lines = phone.eval_on_selector("#log", "e => e.children.length")
    choose(phone, "eval", GSM)
    phone.wait_for_function("n => document.querySelector('#log').children.length > n", arg=lines)
    assert scroll_y(phone) == before
    log = phone.eval_on_selector("#log", "e => [e.scrollTop, e.clientHeight, e.scrollHeight]")
    top, box, full = log
    assert full > box and top > 0 and top + box >= full - 4, log  # it followed its own end
    assert "gsm8k_test_sample.jsonl: sniffed jsonl" in phone.text_content("#log")


def test_field_list_shows_samples_and_why_the_default(phone):
    first = json.loads(GSM.read_text(encoding="utf-8").splitlines()[0])
    default = phone.locator("#eval-fields li.default")
    assert default.locator("code").text_content() == "question"
    samples = default.locator(".samples li").all_text_contents()
    assert len(samples) == 3
    assert samples[0] == clipped(first["question"])
    assert samples[0].startswith("Janet’s ducks lay 16 eggs per day. She eats three for breakfast")
    answer = phone.locator('#eval-fields li:has(input[data-path="answer"]) .samples li').first
    assert answer.text_content().startswith(
        "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day. She makes"
    )
    # fields.py default_choice: question is named for the prompt (40.55 prose words per row
    # on average; the answer, with 35.95, is named for an answer)
    assert default.locator(".default-reason").text_content() == (
        "Default: named for the prompt ('question'), 40.5 prose words per row."
    )
    assert phone.is_hidden("#eval-fields .short-warning")
    # the auto-N line now describes this file, not the example
    n_auto = phone.text_content("#n-auto")
    assert "gsm8k_test_sample.jsonl" in n_auto and "example" not in n_auto


def test_stale_results_are_greyed_under_a_banner_from_the_example(phone):
    banner = phone.locator("#results-stale")
    assert banner.is_visible()
    assert banner.text_content().startswith(
        "From the example (eval.jsonl, train.jsonl): you have chosen other files"
    )
    assert phone.get_attribute("#results", "data-stale") == "1"
    assert (
        float(phone.eval_on_selector("#counts", "e => getComputedStyle(e.parentElement).opacity"))
        < 1
    )
    assert float(phone.eval_on_selector("#results-stale", "e => getComputedStyle(e).opacity")) == 1


def test_question_plus_answer_is_one_click(phone):
    combo = phone.locator("#eval-fields button.combo")
    assert combo.text_content() == "question + answer"
    combo.click()
    assert phone.is_checked('#eval-fields input[data-path="question"]')
    assert phone.is_checked('#eval-fields input[data-path="answer"]')
    phone.wait_for_function(
        "() => document.querySelector('#n-auto').textContent.includes('(question + answer)')"
    )


def test_short_field_warns_until_a_longer_field_is_added(phone, tmp_path):
    rows = [json.loads(x) for x in GSM.read_text(encoding="utf-8").splitlines()[:5]]
    path = tmp_path / "final-answers.jsonl"
    path.write_text(
        "".join(
            json.dumps({"question": r["question"], "answer": r["answer"].split("#### ")[-1]}) + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    choose(phone, "eval", path)
    phone.uncheck('#eval-fields input[data-path="question"]')
    phone.check('#eval-fields input[data-path="answer"]')
    warning = phone.locator("#eval-fields .short-warning")
    warning.wait_for(state="visible", timeout=30_000)
    # each answer is one number: 1 word per row; N = 5th percentile (1) clamped up to 8
    assert warning.text_content().startswith(
        "answer: 5 of 5 sampled rows have no run of N = 8 words (auto N)"
    )
    # a one-number answer is no phrase, so no "question + answer" button is offered here
    assert phone.locator("#eval-fields button.combo").count() == 0
    phone.check('#eval-fields input[data-path="question"]')
    warning.wait_for(state="hidden", timeout=30_000)
    assert "(question + answer)" in phone.text_content("#n-auto")


def test_bad_file_error_sits_next_to_its_drop_zone_in_view_and_is_logged(phone, tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"question": "fine"}\n{"question": "broken\n', encoding="utf-8")
    phone.eval_on_selector("#eval-drop", "e => e.scrollIntoView({block: 'start'})")
    choose(phone, "eval", bad)
    phone.wait_for_selector("#error:not([hidden])")
    assert phone.eval_on_selector("#error", "e => e.previousElementSibling.id") == "eval-drop"
    assert in_view(phone, "#error")
    assert "broken.jsonl" in phone.text_content("#error")
    phone.wait_for_function(
        "() => document.querySelector('#log').textContent.includes('input error: broken.jsonl, line 2')"
    )
    assert "see above" not in phone.text_content("header")


def test_each_tab_has_its_own_status_line(phone):
    assert (
        phone.eval_on_selector("#status", "e => e.closest('[role=tabpanel]').id")
        == "job-contamination"
    )
    assert (
        phone.eval_on_selector("#para-status", "e => e.closest('[role=tabpanel]').id")
        == "job-paraphrases"
    )
    assert phone.locator("header .status").count() == 1
    assert phone.text_content("#runtime-status") == "Python runtime ready."


def test_tabs_follow_the_aria_pattern_with_one_tab_stop_and_a_focus_ring(phone):
    tabs = phone.locator("[role=tab]")
    assert tabs.count() == 2
    assert [tabs.nth(i).get_attribute("tabindex") for i in range(2)] == ["0", "-1"]
    phone.focus("#tab-contamination")
    phone.keyboard.press("ArrowRight")
    assert phone.evaluate("document.activeElement.id") == "tab-paraphrases"
    assert phone.get_attribute("#tab-paraphrases", "aria-selected") == "true"
    assert phone.get_attribute("#tab-contamination", "aria-selected") == "false"
    assert [tabs.nth(i).get_attribute("tabindex") for i in range(2)] == ["-1", "0"]
    assert phone.is_visible("#job-paraphrases") and phone.is_hidden("#job-contamination")
    assert phone.get_attribute("#job-paraphrases", "aria-labelledby") == "tab-paraphrases"
    # a visible focus ring on the keyboard-focused tab
    ring = phone.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement); "
        "return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()"
    )
    assert ring[0] == "solid" and ring[1] >= 2, ring
    phone.keyboard.press("ArrowRight")  # wraps to the first
    assert phone.evaluate("document.activeElement.id") == "tab-contamination"
    phone.keyboard.press("End")
    assert phone.evaluate("document.activeElement.id") == "tab-paraphrases"
    phone.keyboard.press("Home")
    assert phone.evaluate("document.activeElement.id") == "tab-contamination"
    phone.keyboard.press("ArrowLeft")  # wraps to the last
    assert phone.evaluate("document.activeElement.id") == "tab-paraphrases"
    phone.keyboard.press("Tab")  # one tab stop: Tab leaves the list
    assert phone.evaluate("document.activeElement.id") == "job-paraphrases"  # to the panel
    phone.keyboard.press("Shift+Tab")
    assert phone.evaluate("document.activeElement.id") == "tab-paraphrases"


def test_paraphrases_tab_fits_the_phone_after_its_run(phone):
    phone.click("#tab-paraphrases")
    phone.wait_for_function(
        "() => Number(document.querySelector('#para-status').dataset.runs || 0) >= 1",
        timeout=RUN_TIMEOUT_MS,
    )
    assert phone.get_attribute("#para-status", "data-state") == "done", phone.text_content(
        "#para-error"
    )
    assert phone.is_visible("#para-results")
    assert overflow(phone) <= 0, phone.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 421)"
        ".slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)"
    )
    # choosing a new file there greys the example's result under its banner too
    choose(phone, "para", GSM)
    assert phone.text_content("#para-stale").startswith("From the example (")
    assert phone.get_attribute("#para-results", "data-stale") == "1"
