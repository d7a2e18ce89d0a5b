"""In the real page: rows you can read and charts that read.

The contaminated rows show each eval row's own text with the shared words in <mark> beside the
training excerpt (hand-checked rows: the worked example's row 3, whose case and punctuation
differ from the training text, and a file of our own where only part of a row is shared, after
an emoji and full-width letters); the tables sort by a header click (aria-sort) and narrow with
a search box, and grow with the page (no small inner scroll box); paraphrase groups show their
members' text and the pairs are searchable. The histograms have axis titles, fit a 420 px wide
window, the nearest-neighbour one spans the slider's range, bars above the threshold carry the
stronger class and colour, and each has a text summary whose counts equal the data.
"""

from __future__ import annotations

import json
import re

import pytest

from pagekit import build_module, choose_file, close_page, open_page, wait_for_runs
from gpt3_reference import contamination

_BUILD = build_module()
EXAMPLE_EVAL, EXAMPLE_TRAIN = _BUILD.EXAMPLE_EVAL, _BUILD.EXAMPLE_TRAIN  # the page's worked example
RUN_TIMEOUT_MS = 120_000

# A file of our own where only part of each flagged row is shared (see the hand check below).
PARTIAL_TRAIN = [
    "Field notes. Honey bees communicate the direction of flowers with a waggle dance "
    "performed on the vertical comb.",
    "Bread needs flour, water, salt and time to rise.",
]
PARTIAL_EVAL = [
    "Quiz time! HONEY bees communicate the direction of flowers with a waggle dance, says the book. Why?",
    "A clean question about lighthouses, with several more words in it to be long enough.",
    "🐝 Ｈｏｎｅｙ bees communicate the direction of flowers with a waggle dance — really",
]


def run_partial(page, folder, prefix: str, threshold: str = "") -> None:
    """Choose the PARTIAL files (named after `prefix`, so the field lists change) and run at N = 8."""
    train, ev = folder / f"{prefix}-train.jsonl", folder / f"{prefix}-eval.jsonl"
    train.write_text(
        "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in PARTIAL_TRAIN),
        encoding="utf-8",
    )
    ev.write_text(
        "".join(json.dumps({"question": t}, ensure_ascii=False) + "\n" for t in PARTIAL_EVAL),
        encoding="utf-8",
    )
    choose_file(page, "train", train, ["text"])
    choose_file(page, "eval", ev, ["question"])
    page.fill("#setting-n", "8")
    page.fill("#setting-threshold", threshold)
    assert run(page) == "done", page.text_content("#error")


@pytest.fixture(scope="module")
def tab(browser_context, base_url):
    """One tab for the contamination tests (the runtime boots once); the example run awaited."""
    p = open_page(browser_context, base_url)
    assert wait_for_runs(p, 1) == "done", p.text_content("#error")
    yield p
    close_page(p)


def run(page) -> str:
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    return wait_for_runs(page, before + 1, RUN_TIMEOUT_MS)


def settled(page, table: str, query: str = "", sort: str | None = None) -> None:
    """Wait until `table` (paged in Python: ui/paged-table.js) shows the page drawn for this
    search (the box waits a moment after typing) and, when given, this sort ("key dir")."""
    page.wait_for_function(
        "([t, q, s]) => { const d = document.querySelector(t).dataset;"
        " return d.loading === undefined && d.query === q && (s === null || d.sort === s); }",
        arg=[table, query, sort],
        timeout=30_000,
    )


def shown_rows(page, table: str = "#contaminated") -> list[int]:
    settled(page, table, page.input_value(f"{table}-filter"))
    return [
        int(x)
        for x in page.eval_on_selector_all(
            f"{table} tbody tr", "trs => trs.map(t => t.dataset.row)"
        )
    ]


def marks(page, row: int, table: str = "#contaminated") -> list[str]:
    return page.eval_on_selector_all(
        f'{table} tr[data-row="{row}"] td[data-col="eval_text"] mark',
        "ms => ms.map(m => m.textContent)",
    )


def last_result(page, key: str) -> dict:
    return page.evaluate(
        f"window.__workerMessages.filter(m => m.type === 'result' && m.data && m.data.{key}).at(-1).data"
    )


def summary_counts(text: str) -> dict[str, int]:
    """'0.75–0.80: 1, …, below 0.75 (left of the chart): 2.' -> {'0.75–0.80': 1, …, 'below': 2}."""
    got = {m.group(1): int(m.group(2)) for m in re.finditer(r"(\d\.\d\d–\d\.\d\d): (\d+)", text)}
    below = re.search(r"below [\d.]+ \(left of the chart\): (\d+)", text)
    got["below"] = int(below.group(1)) if below else 0
    return got


# --------------------------------------------------------------------------- rows


def test_example_row_shows_its_own_text_with_the_shared_words_marked(tab):
    assert tab.get_attribute("#results", "data-label") == "example"
    assert shown_rows(tab) == [1, 2, 3]  # the three planted rows (build.py EXAMPLE_EVAL)
    question = EXAMPLE_EVAL[2][0]
    # Hand check: row 3 differs from training record 7 (Morse code) only in case and
    # punctuation ("TELEGRAPH OPERATORS", "minute;", "dashes!"), so every word of it is
    # shared and the mark is the row's own text, ";" and "!" included.
    assert question.startswith("TELEGRAPH OPERATORS could send") and question.endswith(
        "dots and dashes!"
    )
    assert marks(tab, 3) == [question]
    cell = tab.text_content('#contaminated tr[data-row="3"] td[data-col="eval_text"]')
    assert cell.startswith(question)
    # beside it, the training excerpt (normalised training words around the first match)
    excerpt = tab.text_content('#contaminated tr[data-row="3"] td[data-col="training_excerpt"]')
    assert "telegraph operators could send" in excerpt and "rhythm" in excerpt
    # the training record it is traced to: its file, its number there and its own id
    source = tab.text_content('#contaminated tr[data-row="3"] td[data-col="training_record"]')
    assert "train.jsonl" in source and "record 7" in source and "id doc-7" in source
    for row in (1, 2):
        assert marks(tab, row) == [EXAMPLE_EVAL[row - 1][0]]
    # one table of every row (the rung that caught it is a column and a filter)
    assert tab.text_content('#contaminated tr[data-row="3"] td[data-col="rung"]').startswith(
        "ngram"
    )
    cols = tab.eval_on_selector_all("#contaminated thead th", "ths => ths.map(t => t.dataset.col)")
    assert cols == [
        "eval_row",
        "rung",
        "containment",
        "training_record",
        "eval_text",
        "training_excerpt",
    ]


def test_sorting_by_a_header_reorders_rows_and_sets_aria_sort(tab):
    # training records (1-based in EXAMPLE_TRAIN): row 1 -> 3 (bees), row 2 -> 2 (sourdough),
    # row 3 -> 7 (Morse code)
    assert (
        "waggle dance" in EXAMPLE_TRAIN[2]
        and "Sourdough" in EXAMPLE_TRAIN[1]
        and "Morse" in EXAMPLE_TRAIN[6]
    )
    header = '#contaminated th[data-col="training_record"]'
    tab.click(f"{header} button")
    settled(tab, "#contaminated", sort="training_record ascending")
    assert shown_rows(tab) == [2, 1, 3]
    assert tab.get_attribute(header, "aria-sort") == "ascending"
    assert tab.get_attribute('#contaminated th[data-col="eval_row"]', "aria-sort") == "none"
    tab.click(f"{header} button")
    settled(tab, "#contaminated", sort="training_record descending")
    assert shown_rows(tab) == [3, 1, 2]
    assert tab.get_attribute(header, "aria-sort") == "descending"
    tab.click('#contaminated th[data-col="eval_row"] button')
    settled(tab, "#contaminated", sort="eval_row ascending")
    assert shown_rows(tab) == [1, 2, 3]


def test_the_filter_box_narrows_rows(tab):
    box = "#contaminated-filter"
    assert tab.get_attribute(box, "aria-controls") == "contaminated"
    tab.fill(box, "telegraph")
    assert shown_rows(tab) == [3]
    # 1 row passes the search and the filter (caught by a rung) of the example's 8 rows
    assert tab.text_content("#contaminated-filter ~ .table-count") == "1 of 8 rows shown"
    tab.fill(box, "flour water")  # both words: row 2 only
    assert shown_rows(tab) == [2]
    tab.fill(box, "flour telegraph")
    assert shown_rows(tab) == []
    tab.fill(box, "")
    assert shown_rows(tab) == [1, 2, 3]


def test_a_partly_shared_row_is_marked_at_the_right_characters(tab, tmp_path):
    want = contamination(PARTIAL_EVAL, PARTIAL_TRAIN, n=8)["rows"]
    assert [r["status"] for r in want] == ["contaminated", "clean", "contaminated"]
    run_partial(tab, tmp_path, "partial")
    evals = PARTIAL_EVAL
    assert shown_rows(tab) == [1, 3]
    # Hand check: the shared words are "honey bees … waggle dance" (11 words: 4 of the row's
    # 10 8-grams, containment 0.4); the mark runs from "HONEY" to the end of "dance,".
    assert marks(tab, 1) == ["HONEY bees communicate the direction of flowers with a waggle dance,"]
    assert tab.text_content('#contaminated tr[data-row="1"] td[data-col="containment"]').startswith(
        "0.4000"
    )
    assert want[0]["containment"] == pytest.approx(0.4)
    # After an emoji (2 UTF-16 units, 1 code point) and full-width letters (NFKC: "honey");
    # "—" is punctuation, so the mark ends at "dance".
    assert marks(tab, 3) == [
        "Ｈｏｎｅｙ bees communicate the direction of flowers with a waggle dance"
    ]
    assert tab.text_content('#contaminated tr[data-row="3"] td[data-col="eval_text"]') == evals[2]
    # containment sorts as a number
    tab.click('#contaminated th[data-col="containment"] button')
    settled(tab, "#contaminated", sort="containment ascending")
    assert shown_rows(tab) == [1, 3]
    tab.click('#contaminated th[data-col="containment"] button')
    settled(tab, "#contaminated", sort="containment descending")
    assert shown_rows(tab) == [3, 1]


def test_tables_grow_with_the_page_no_inner_scroll_box(tab):
    wrap = tab.evaluate("""() => {
        const w = document.querySelector('#contaminated').closest('.table-wrap');
        const s = getComputedStyle(w);
        return {maxHeight: s.maxHeight, client: w.clientHeight, scroll: w.scrollHeight};
    }""")
    assert wrap["maxHeight"] == "none"
    assert wrap["scroll"] <= wrap["client"] + 1, wrap  # nothing hidden below a fold


# --------------------------------------------------------------------------- charts


def chart_facts(page, sel: str) -> dict:
    return page.evaluate(
        """(sel) => {
        const s = document.querySelector(sel);
        const tick = s.querySelector('text.x-tick');
        const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
        const bar = s.querySelector('rect.bar:not(.above)'), above = s.querySelector('rect.bar.above');
        const lum = (r) => r && getComputedStyle(r).fill.match(/\\d+/g).slice(0, 3).map(Number).reduce((a, b) => a + b, 0);
        return {
            widthAttr: s.getAttribute('width'), width: s.getBoundingClientRect().width,
            parent: s.parentElement.getBoundingClientRect().width, viewport: window.innerWidth,
            tickPx: Math.min(...[...s.querySelectorAll('text.tick')].map(px)),
            ticks: [...s.querySelectorAll('text.x-tick')].map((t) => t.textContent),
            xTitle: s.querySelector('text.x-title')?.textContent ?? '', yTitle: s.querySelector('text.y-title')?.textContent ?? '',
            thresholdLabel: s.querySelector('text.threshold-label')?.textContent ?? null,
            bars: [...s.querySelectorAll('rect.bar')].map((b) => [Number(b.dataset.bin), Number(b.dataset.count), b.classList.contains('above'), Number(b.dataset.lo)]),
            lumBelow: lum(bar), lumAbove: lum(above), domain: s.dataset.domain, below: Number(s.dataset.below),
            described: document.getElementById(s.getAttribute('aria-describedby'))?.textContent ?? '',
        };
    }""",
        sel,
    )


def test_containment_histogram_reads_at_420_px(tab, tmp_path):
    tab.set_viewport_size({"width": 420, "height": 900})
    try:
        run_partial(tab, tmp_path, "chart", threshold="0.5")
        f = chart_facts(tab, "#cont-histogram")
    finally:
        tab.set_viewport_size({"width": 1280, "height": 1000})
    assert f["widthAttr"] is None and f["width"] <= f["parent"] + 0.5 and f["width"] <= 420
    assert f["tickPx"] >= 12, f
    assert f["xTitle"].startswith("containment") and f["yTitle"] == "eval rows"
    assert f["ticks"] == ["0", "0.2", "0.4", "0.6", "0.8", "1"] and f["domain"] == "0 1"
    assert f["thresholdLabel"] == "threshold 0.50"
    hist = last_result(tab, "view")["view"]["histogram"]["counts"]
    # rows 1 (0.4000) and 3 (4 of 6 8-grams: 0.6667) are scored; row 2 too (containment 0)
    assert hist == [1, 0, 0, 0, 1, 0, 1, 0, 0, 0]
    assert [c for _, c, _, _ in f["bars"]] == hist
    assert [b for b, _, above, _ in f["bars"] if above] == [5, 6, 7, 8, 9]
    assert f["lumAbove"] < f["lumBelow"], "bars above the threshold are the darker, stronger colour"
    got = summary_counts(f["described"])
    assert [got[f"{i / 10:.2f}–{(i + 1) / 10:.2f}"] for i in range(10)] == hist and got[
        "below"
    ] == 0
    assert "Containment of 3 eval rows" in f["described"]
    assert "Threshold 0.50 (red line): the bars right of it hold 1 eval row." in f["described"]


# --------------------------------------------------------------------------- paraphrases


@pytest.fixture(scope="module")
def para(browser_context, base_url):
    p = open_page(browser_context, base_url, "index.html#paraphrases")
    p.wait_for_function(
        "() => Number(document.querySelector('#para-status').dataset.runs || 0) >= 1",
        timeout=RUN_TIMEOUT_MS,
    )
    assert p.get_attribute("#para-status", "data-state") == "done", p.text_content("#para-error")
    yield p
    close_page(p)


def test_paraphrase_groups_show_their_members_text_and_pairs_are_searchable(para):
    from evalsieve.paraphrase import WORKED_EXAMPLE

    g = '#para-groups tr[data-members="1 2 3"]'
    texts = para.eval_on_selector_all(
        f"{g} .member-text", "xs => xs.map(x => x.textContent.trim())"
    )
    assert texts == list(WORKED_EXAMPLE[:3])
    assert para.is_visible(f"{g} li[data-row='3'] .member-text")

    # pairs at 0.90: 1-2, 2-3, 4-5 (paraphrase.py WORKED_EXAMPLE)
    def pairs():
        settled(para, "#para-pairs", para.input_value("#para-pairs-filter"))
        return para.eval_on_selector_all(
            "#para-pairs tbody tr",
            "trs => trs.map(t => [Number(t.dataset.rowA), Number(t.dataset.rowB)])",
        )

    assert sorted(pairs()) == [[1, 2], [2, 3], [4, 5]]
    para.fill("#para-pairs-filter", "france")
    assert pairs() == [[4, 5]]
    para.fill("#para-pairs-filter", "password reset")
    assert sorted(pairs()) == [[1, 2], [2, 3]]  # row 3 does not say "reset", row 2 does
    para.fill("#para-pairs-filter", "")
    settled(para, "#para-pairs")
    para.click('#para-pairs th[data-col="row_a"] button')
    settled(para, "#para-pairs", sort="row_a ascending")
    para.click('#para-pairs th[data-col="row_a"] button')
    settled(para, "#para-pairs", sort="row_a descending")
    assert pairs() == [[4, 5], [2, 3], [1, 2]]
    assert para.get_attribute('#para-pairs th[data-col="row_a"]', "aria-sort") == "descending"
    # the groups search looks in the members' text
    para.fill("#para-groups-filter", "capital")
    settled(para, "#para-groups", "capital")
    assert para.eval_on_selector_all(
        "#para-groups tbody tr", "trs => trs.map(t => t.dataset.members)"
    ) == ["4 5"]
    para.fill("#para-groups-filter", "")


def test_nearest_neighbour_histogram_spans_the_slider(para):
    para.set_viewport_size({"width": 420, "height": 900})
    try:
        f = chart_facts(para, "#para-histogram")
        lo, hi = para.eval_on_selector("#para-threshold", "s => [s.min, s.max]")
    finally:
        para.set_viewport_size({"width": 1280, "height": 1000})
    from evalsieve import constants

    assert (float(lo), float(hi)) == (constants.PARA_FLOOR, constants.PARA_THRESHOLD_MAX)
    assert f["domain"] == f"{float(lo):g} {float(hi):g}"
    assert f["ticks"][0] == "0.75" and f["ticks"][-1] == "1"
    assert min(b[3] for b in f["bars"]) == pytest.approx(float(lo))
    assert f["widthAttr"] is None and f["width"] <= f["parent"] + 0.5 and f["width"] <= 420
    assert f["tickPx"] >= 12, f
    assert "cosine" in f["xTitle"] and f["yTitle"] == "rows"
    assert f["thresholdLabel"] == "threshold 0.90"
    hist = last_result(para, "figures")["figures"]["nn_histogram"]["counts"]
    assert sum(hist) == 6
    assert [(b, c) for b, c, _, _ in f["bars"]] == [(i, hist[i]) for i in range(15, 20)]
    assert f["below"] == sum(hist[:15])
    assert [b for b, _, above, _ in f["bars"] if above] == [18, 19]  # bins ending above 0.90
    got = summary_counts(f["described"])
    assert [got[f"{i / 20:.2f}–{(i + 1) / 20:.2f}"] for i in range(15, 20)] == hist[15:]
    assert got["below"] == sum(hist[:15])
    assert "Nearest-neighbour cosine of 6 rows" in f["described"]
    want = sum(hist[18:])
    assert (
        f"Threshold 0.90 (red line): the bars right of it hold {want} row{'' if want == 1 else 's'}."
        in f["described"]
    )
