"""evalsieve.exports: CSV cells, the CSV layout and the HTML helpers (hand-computed)."""

import json
import re

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.exports import (
    CsvExport,
    MarkedText,
    fmt_float,
    html_page,
    html_table,
    marked_html,
    plain_text,
    safe_cell,
    stamp_json,
    stamp_section,
    write_csv,
)
from evalsieve.stamps import InputFile, RunStamp


@pytest.mark.parametrize(
    "cell, want",
    [
        # OWASP CSV injection: cells starting with = + - @ tab or carriage return get a leading '
        ("=1+1", "'=1+1"),
        ("+41 22", "'+41 22"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=x", "'\t=x"),
        ("\r=x", "'\r=x"),
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        # only the first character counts
        ("a=b", "a=b"),
        (" =x", " =x"),
        ("", ""),
        ("'=x", "'=x"),
        # numbers are written as they are (a negative number is a number, not a formula)
        (-3, "-3"),
        (7, "7"),
        (0.5, "0.5"),
        (-0.25, "-0.25"),
        (None, ""),
        (True, "true"),
        (False, "false"),
    ],
)
def test_safe_cell(cell, want):
    assert safe_cell(cell) == want


def stamp():
    return RunStamp(
        "paraphrases",
        {"threshold": 0.9, "note": "<b>"},
        (InputFile("eval", "e<1>.jsonl", "0" * 64, 3, "jsonl"),),
        "t",
    )


def test_write_csv_layout_hand_written():
    s = stamp()
    fp = s.to_dict()["fingerprint"]
    text = write_csv(
        s, ["a", "b", "c", "d", "e"], [["x,y", "=x", None, 1.5, 'q"q'], [1, "", "-", 0, "é"]]
    )
    # plain CSV: the header first, the stamp's fingerprint as the last column of every row
    assert text == (
        "a,b,c,d,e,run_fingerprint\r\n"
        + '"x,y",\'=x,,1.5,"q""q",'
        + fp
        + "\r\n"
        + "1,,'-,0,é,"
        + fp
        + "\r\n"
    )
    assert isinstance(text, CsvExport) and text.fingerprint == fp
    assert text.header == ["a", "b", "c", "d", "e", "run_fingerprint"]
    assert text.rows == [["x,y", "=x", None, 1.5, 'q"q'], [1, "", "-", 0, "é"]]  # as given
    assert write_csv(s, ["a"], []) == "a,run_fingerprint\r\n"


def test_write_csv_refuses_a_ragged_row_and_its_own_column():
    with pytest.raises(ValueError, match="2 cells under a header of 1"):
        write_csv(stamp(), ["a"], [["x", "y"]])
    with pytest.raises(ValueError, match="run_fingerprint"):
        write_csv(stamp(), ["a", "run_fingerprint"], [])


def test_stamp_json_is_the_stamp_with_its_fingerprint():
    s = stamp()
    text = stamp_json(s)
    assert json.loads(text) == s.to_dict() and text.endswith("}\n")
    assert text.startswith('{\n  "assets": {},\n')  # indented, keys sorted
    assert '"e<1>.jsonl"' in text  # UTF-8 and markup kept as they are


def test_fmt_float():
    assert fmt_float(None) == "" and fmt_float(0.5) == "0.5000" and fmt_float(2 / 3, 2) == "0.67"
    assert fmt_float(1) == "1.0000"


def test_html_helpers_escape_and_stay_self_contained():
    t = html_table(
        ["h<1>", "n"], [["<script>x</script>", 3], [None, "a&b"]], num_cols=frozenset({1})
    )
    # a number column right-aligns its numbers only; words in it ("a&b") stay left-aligned
    assert t == (
        '<table><thead><tr><th>h&lt;1&gt;</th><th class="num">n</th></tr></thead><tbody>'
        '<tr><td class="clip">&lt;script&gt;x&lt;/script&gt;</td><td class="num">3</td></tr>'
        '<tr><td class="clip"></td><td class="clip">a&amp;b</td></tr></tbody></table>'
    )
    page = html_page("a <title>", [t, stamp_section(stamp())])
    assert "<title>a &lt;title&gt;</title>" in page
    assert "<script" not in page.lower()
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page, re.I)
    d = stamp().to_dict()
    assert d["fingerprint"] in page and "e&lt;1&gt;.jsonl" in page and "setting: note" in page


@pytest.mark.parametrize(
    "value, want",
    [
        ({"version": "0.27.7", "sha256": "ab12"}, "version 0.27.7 · sha256 ab12"),
        (["question", "answer"], "question, answer"),
        (None, "none"),
        (True, "yes"),
        ({"ev.jsonl": 2, "tr.jsonl": 0}, "ev.jsonl 2 · tr.jsonl 0"),
        ([], "none"),
        (0.5, "0.5"),
    ],
)
def test_plain_text(value, want):
    assert plain_text(value) == want


@pytest.mark.parametrize(
    "cell, num",
    [
        (3, True),
        (0.25, True),
        ("0.5000", True),
        ("12/34", True),
        ("[0.1000, 0.2000]", True),
        ("+0.0123", True),
        ("−0.5", True),
        ("1,234", True),
        ("5%", True),
        ("-3", True),
        ("14.0.0", False),
        ("2026-12-01T00:00:00+00:00", False),
        ("0.5 (set)", False),
        ("any overlap", False),
        ("8 — the 5th percentile", False),
        ("did not run", False),
        ("", False),
        (None, False),
        (True, False),
    ],
)
def test_number_cells_right_aligned_only_when_numbers(cell, num):
    t = html_table(["x"], [[cell]], num_cols=frozenset({0}))
    assert ('<td class="num">' in t) is num


def test_stamp_section_plain_assets_and_collapsed_json():
    s = RunStamp(
        "contamination",
        {"eval_fields": ["q", "a"], "threshold": None},
        (InputFile("eval", "e.jsonl", "0" * 64, 3, "jsonl"),),
        "t",
        assets={"pyodide": {"version": "0.27.7", "sha256": "f" * 64}},
        environment={"threads": 4, "cross_origin_isolated": True},
    )
    html = stamp_section(s)
    assert 'asset: pyodide</td><td class="clip long">version 0.27.7 · sha256 ' + "f" * 64 in html
    table = html.split("<details>")[0]  # the table prints no Python or JSON syntax
    assert "{&#x27;" not in table and "{" not in table and "[&quot;" not in table
    assert 'setting: eval_fields</td><td class="clip">q, a<' in html
    assert 'page: threads</td><td class="num">4<' in html  # a number: right-aligned
    assert 'page: cross_origin_isolated</td><td class="clip">yes<' in html
    # the JSON is in a collapsed <details> (no "open"), wrapped by the page's CSS
    assert re.search(r"<details><summary>[^<]+</summary><pre>\{&quot;assets&quot;", html)
    page = html_page("t", [html])
    assert "pre{white-space:pre-wrap;overflow-wrap:anywhere" in page


def test_marked_html_utf16_spans_and_escaping():
    # "😀" is one code point but two UTF-16 units: the span [3, 10] of the page is "friends"
    assert marked_html("😀 friends <b>", [[3, 10]]) == "😀 <mark>friends</mark> &lt;b&gt;"
    # two emoji before, one inside: "a😀😀 x😀y z" -> "x😀y" is UTF-16 [6, 10]
    assert marked_html("a😀😀 x😀y z", [[6, 10]]) == "a😀😀 <mark>x😀y</mark> z"
    assert marked_html("a <i> b c", [[2, 5], [8, 9]]) == "a <mark>&lt;i&gt;</mark> b <mark>c</mark>"
    assert marked_html("plain", []) == "plain"
    with pytest.raises(ValueError, match="character boundary"):
        marked_html("😀x", [[1, 3]])  # inside the surrogate pair
    t = html_table(["t"], [[MarkedText("😀 <x> y", [[3, 6]])]])
    assert t.endswith('<tr><td class="clip">😀 <mark>&lt;x&gt;</mark> y</td></tr></tbody></table>')


def test_report_marks_shared_words_after_an_emoji():
    """overlap-report.html marks the eval row's shared words as the page does (hand-checked:
    the eval row's words after the emoji, 'natalia' … 'and', are training record 1's words
    2-12, so the 11-word passage is shared; its span in the original text runs from
    'Natalia' to 'and', the comma inside kept; 'then' and the markup after it are not)."""
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob

    ev = (
        '{"question": "😀 Natalia sold clips to 48 of her friends in April, and then <b>"}\n'
        '{"question": "nothing here is shared with the training text at all today ok"}\n'
    )
    tr = '{"text": "xyz natalia sold clips to 48 of her friends in april and more words"}\n'
    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",), n=8),
        "eval.jsonl",
        "jsonl",
        "train.jsonl",
        "jsonl",
    )
    job.set_background(tr)
    job.feed_eval(ev)
    job.end_eval()
    job.feed_train(tr)
    job.finish(
        InputFile("eval", "eval.jsonl", "e" * 64, len(ev)),
        InputFile("train", "train.jsonl", "t" * 64, len(tr)),
        "2026-01-01T00:00:00+00:00",
    )
    row = cx.view(job.result)["rows"]
    assert [r["eval_row"] for r in row] == [1]
    assert row[0]["shared_passage"] == "natalia sold clips to 48 of her friends in april and"
    # UTF-16: the emoji is 2 units, the space 1, so "Natalia" starts at 3; the span is 53 long
    assert row[0]["eval_marks"] == [[3, 56]]
    page = cx.export(job.result, "overlap-report.html")[1]
    body = page.split("<h2>Contaminated rows")[1].split("</table>")[0]
    assert (
        '<td class="clip long">😀 <mark>Natalia sold clips to 48 of her friends in April, '
        "and</mark> then &lt;b&gt;</td>"
    ) in body
    assert body.split("<table", 1)[1].count("<mark>") == 1  # the intro's example aside
    assert "<script" not in page.lower() and not re.search(r"\son\w+\s*=", page, re.I)
