"""Results that hold up at scale, in Chromium: every GSM8K test row flagged.

The training corpus is two files of GSM8K train questions (each with an `id`) into which every
GSM8K test question is planted (most whole after a preface, some cut short for a spread of
containment, a few as the whole record for the exact rung), so every one of the 1,319 rows is
caught. Checked: the page stays under 12,000 px tall at 1,280 × 900; filtering by rung and by
a clicked histogram bar gives the counts of the downloaded report CSV; a row shows its
training file, record number and the record's own id, and "Open record" shows that record's
full text, read again from the dropped file; the layout shifts less than 0.1 (CLS, measured
with a PerformanceObserver of 'layout-shift') on load and when the results appear.

Screenshots of each result view at 420 and 1,440 px are saved in $EVALSIEVE_SHOTS when it is
set (tools to look at them; not part of what is asserted).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path

import pytest

from pagekit import (
    BOOT_TIMEOUT_MS,
    download,
    launch,
    open_page,
    close_page,
    shared_data_dir,
    wait_for_runs,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from hostile_common import read_csv_export  # noqa: E402

DATA = shared_data_dir()
pytestmark = pytest.mark.skipif(DATA is None, reason="../shared/data (GSM8K) is absent")
RUN_TIMEOUT_MS = 300_000

# sum of layout-shift values not caused by input, since the page started or since reset()
CLS_SCRIPT = """
  window.__cls = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
  }).observe({ type: 'layout-shift', buffered: true });
"""


def build_corpus(folder: Path) -> tuple[list[Path], dict[str, dict]]:
    """Two training files; returns them and every planted record by id."""
    test = [
        json.loads(x)
        for x in (DATA / "gsm8k" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    train = [
        json.loads(x)
        for x in (DATA / "gsm8k" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    rng = random.Random(24)
    files = [[], []]
    for k, r in enumerate(train[:2400]):
        files[k % 2].append({"id": f"train-{k}", "text": r["question"] + " " + r["answer"]})
    planted = {}
    for i, r in enumerate(test):
        q, words = r["question"], r["question"].split()
        if i % 50 == 0:
            text = q  # the whole record: the exact rung
        elif i % 4 == 1 and len(words) >= 30:
            text = "Some preface words here. " + " ".join(words[: len(words) - 12])  # partial
        else:
            text = "Some preface words here. " + q
        rec = {"id": f"planted-{i}", "text": text}
        planted[rec["id"]] = rec
        f = files[i % 2]
        f.insert(rng.randrange(len(f) + 1), rec)
    paths = []
    for k, rows in enumerate(files):
        p = folder / f"planted-{'ab'[k]}.jsonl"
        p.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows), encoding="utf-8"
        )
        paths.append(p)
    return paths, planted


@pytest.fixture(scope="module")
def run(playwright_sync, base_url, tmp_path_factory):
    """One tab at 1,280 × 900 that has run the whole GSM8K test set against the corpus."""
    folder = tmp_path_factory.mktemp("scale")
    paths, planted = build_corpus(folder)
    profile = tempfile.TemporaryDirectory(prefix="evalsieve-scale-")
    # the first screen at 1,440 × 900: the worked example's result is read there unscrolled
    context = launch(playwright_sync, profile.name, viewport={"width": 1440, "height": 900})
    context.add_init_script(CLS_SCRIPT)
    page = open_page(context, base_url)
    assert wait_for_runs(page, 1, BOOT_TIMEOUT_MS) == "done", page.text_content("#error")
    page.wait_for_selector("#contaminated[data-matched]:not([data-loading])")
    page.wait_for_timeout(1000)
    cls_load = page.evaluate("window.__cls")
    first_screen = page.evaluate("""() => { const r = document.querySelector('#result-line').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, scrollY, text: document.querySelector('#result-line').textContent,
                tagline: document.querySelector('.tagline').textContent}; }""")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.set_input_files("#train-file", [str(p) for p in paths])
    page.wait_for_selector(
        '#train-fields[data-file="planted-a.jsonl"][data-state="ready"]', timeout=120_000
    )
    for box in page.query_selector_all("#train-fields input[type=checkbox]"):
        if box.is_checked() != (box.get_attribute("data-path") == "text"):
            box.click()
    ev = DATA / "gsm8k" / "test.jsonl"
    page.set_input_files("#eval-file", str(ev))
    page.wait_for_selector(
        '#eval-fields[data-file="test.jsonl"][data-state="ready"]', timeout=60_000
    )
    for box in page.query_selector_all("#eval-fields input[type=checkbox]"):
        if box.is_checked() != (box.get_attribute("data-path") == "question"):
            box.click()
    assert page.input_value("#train-id-field") == "id"  # defaulted by name
    page.click("#run")
    page.wait_for_timeout(700)  # the click's own shifts are input (hadRecentInput)
    page.evaluate("window.__cls = 0")
    assert wait_for_runs(page, 2, RUN_TIMEOUT_MS) == "done", page.text_content("#error")
    page.wait_for_selector("#contaminated[data-matched]:not([data-loading])")
    page.wait_for_timeout(1000)
    cls_results = page.evaluate("window.__cls")
    report = download(page, "contamination-report.csv", folder)
    _, rows = read_csv_export(report.decode("utf-8"))
    yield {
        "page": page,
        "rows": rows,
        "planted": planted,
        "cls": (cls_load, cls_results),
        "context": context,
        "first_screen": first_screen,
    }
    close_page(page)
    context.close()
    profile.cleanup()


def matched(page) -> int:
    page.wait_for_selector("#contaminated[data-matched]:not([data-loading])")
    return int(page.get_attribute("#contaminated", "data-matched"))


def choose(page, select: str, value: str) -> int:
    """Pick a filter option (its change event asks for the first page at once); the count."""
    page.select_option(select, value)
    page.wait_for_function(
        "() => document.querySelector('#contaminated').dataset.loading === undefined"
    )
    return matched(page)


def test_every_row_flagged_and_the_page_stays_short(run):
    page, rows = run["page"], run["rows"]
    assert len(rows) == 1319 and all(r["status"] == "contaminated" for r in rows)
    assert int(page.get_attribute("#contaminated", "data-matched")) == 1319
    assert int(page.get_attribute("#contaminated", "data-shown")) <= 50  # a page, not 1,319 rows
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 12_000, height
    # the table fits its box (no column off screen)
    width, box = page.evaluate(
        "[document.querySelector('#contaminated').scrollWidth,"
        " document.querySelector('#contaminated').parentElement.clientWidth]"
    )
    assert width <= box, (width, box)


def test_rung_filter_counts_are_the_reports(run):
    page, rows = run["page"], run["rows"]
    by = {k: sum(1 for r in rows if r["rung"] == k) for k in ("exact", "ngram")}
    assert by["exact"] == 27 and by["exact"] + by["ngram"] == 1319  # test rows 0, 50, ..., 1300
    assert choose(page, "#rows-rung", "exact") == by["exact"]
    assert {
        r.get_attribute("data-rung") for r in page.query_selector_all("#contaminated tbody tr")
    } == {"exact"}
    assert choose(page, "#rows-rung", "ngram") == by["ngram"]
    assert choose(page, "#rows-rung", "none") == 0
    assert choose(page, "#rows-rung", "caught") == 1319


def test_a_clicked_histogram_bar_lists_its_rows(run):
    page, rows = run["page"], run["rows"]

    def bin_of(r):  # the report's matched / total, binned as the histogram bins (Python's rule)
        return min(9, int(int(r["ngrams_matched"]) / int(r["ngrams_total"]) * 10))

    counts = [sum(1 for r in rows if bin_of(r) == b) for b in range(10)]
    assert counts[9] > 1000 and sum(1 for c in counts[:9] if c) >= 3, counts  # a spread
    for b in [9] + [k for k in range(9) if counts[k]][:2]:
        bar = f'#cont-histogram rect.bar[data-bin="{b}"]'
        assert int(page.get_attribute(bar, "data-count")) == counts[b]
        page.dispatch_event(bar, "click")
        page.wait_for_function(
            "() => document.querySelector('#contaminated').dataset.loading === undefined"
        )
        assert matched(page) == counts[b], b
        assert page.is_visible(".filter-chip")
    page.click(".filter-chip")  # back to every bar
    assert matched(page) == 1319


def test_rows_name_file_record_and_id_and_open_the_whole_record(run):
    page, rows, planted = run["page"], run["rows"], run["planted"]
    choose(page, "#rows-rung", "caught")
    by_row = {r["eval_row"]: r for r in rows}
    tr = page.query_selector_all("#contaminated tbody tr")[1]
    r = by_row[tr.get_attribute("data-row")]
    cell = tr.query_selector('td[data-col="training_record"]').text_content()
    assert r["training_file"] in ("planted-a.jsonl", "planted-b.jsonl")
    assert r["training_file"] in cell and f"record {int(r['training_record']):,}" in cell
    assert r["training_id"].startswith("planted-") and f"id {r['training_id']}" in cell
    tr.query_selector("button.open-record").click()
    page.wait_for_selector('#record-dialog[data-state="ready"]')
    want = planted[r["training_id"]]
    assert (
        page.text_content('#record-dialog .record-field[data-path="text"] .record-text')
        == want["text"]
    )
    whole = json.loads(page.text_content("#record-dialog .record-whole"))
    assert whole == want
    title = page.text_content("#record-dialog-title")
    assert r["training_id"] in title and r["training_file"] in title
    marks = page.eval_on_selector_all(
        "#record-dialog mark", "ms => ms.map((m) => m.textContent).join(' ')"
    )
    assert marks and marks in want["text"]
    page.click("#record-dialog .dialog-close")


def test_the_first_screen_says_what_to_drop_where_and_shows_the_examples_result(run):
    f = run["first_screen"]
    assert f["tagline"].startswith(
        "Drop your training data in Training data and your eval set in Eval set"
    )
    # build.py's worked example: 3 of its 8 eval rows are planted in the training file
    assert f["text"].startswith("Worked example: 3 of 8 eval rows contaminated"), f["text"]
    assert f["scrollY"] == 0 and 0 <= f["top"] and f["bottom"] <= 900, f


def test_layout_shift_is_small_on_load_and_when_results_appear(run):
    load, results = run["cls"]
    assert load < 0.1, load
    assert results < 0.1, results


@pytest.mark.skipif(
    not os.environ.get("EVALSIEVE_SHOTS"), reason="set EVALSIEVE_SHOTS=DIR for screenshots"
)
def test_screenshots_of_each_result_view(run):
    page, shots = run["page"], Path(os.environ["EVALSIEVE_SHOTS"])
    shots.mkdir(parents=True, exist_ok=True)
    for width in (420, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)
        for name, sel in (
            ("summary", "#results-title"),
            ("histogram", "#cont-histogram"),
            ("ladder", "#ladder"),
            ("rows", "#rows-title"),
        ):
            page.eval_on_selector(sel, "e => e.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(shots / f"contamination-{name}-{width}.png"))
        page.query_selector_all("#contaminated button.open-record")[0].click()
        page.wait_for_selector('#record-dialog[data-state="ready"]')
        page.screenshot(path=str(shots / f"contamination-record-{width}.png"))
        page.click("#record-dialog .dialog-close")
    # the paraphrase tab's result views (its worked example runs when the tab is first shown)
    page.click("#tab-paraphrases")
    page.wait_for_function(
        "() => Number(document.querySelector('#para-status').dataset.runs || 0) >= 1",
        timeout=RUN_TIMEOUT_MS,
    )
    for width in (420, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)
        for name, sel in (
            ("summary", "#para-results-title"),
            ("pairs", "#para-pairs"),
            ("groups", "#para-groups"),
        ):
            page.eval_on_selector(sel, "e => e.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(shots / f"paraphrases-{name}-{width}.png"))
    page.click("#tab-contamination")
    page.set_viewport_size({"width": 1280, "height": 900})
