"""evalsieve.exports: CSV cells, the CSV layout and the HTML helpers (hand-computed)."""

import re

import pytest

from evalsieve.exports import (fmt_float, html_page, html_table, safe_cell, stamp_section,
                               write_csv)
from evalsieve.stamps import InputFile, RunStamp


@pytest.mark.parametrize("cell, want", [
    # OWASP CSV injection: cells starting with = + - @ tab or carriage return get a leading '
    ("=1+1", "'=1+1"), ("+41 22", "'+41 22"), ("-2", "'-2"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=x", "'\t=x"), ("\r=x", "'\r=x"),
    ('=HYPERLINK("http://x")', "'=HYPERLINK(\"http://x\")"),
    # only the first character counts
    ("a=b", "a=b"), (" =x", " =x"), ("", ""), ("'=x", "'=x"),
    # numbers are written as they are (a negative number is a number, not a formula)
    (-3, "-3"), (7, "7"), (0.5, "0.5"), (-0.25, "-0.25"),
    (None, ""), (True, "true"), (False, "false"),
])
def test_safe_cell(cell, want):
    assert safe_cell(cell) == want


def stamp():
    return RunStamp("paraphrases", {"threshold": 0.9, "note": "<b>"},
                    (InputFile("eval", "e<1>.jsonl", "0" * 64, 3, "jsonl"),), "t")


def test_write_csv_layout_hand_written():
    s = stamp()
    text = write_csv(s, ["a", "b", "c", "d", "e"], [["x,y", "=x", None, 1.5, 'q"q'], [1, "", "-", 0, "é"]])
    assert text == (s.line() + "\r\n" + "a,b,c,d,e\r\n"
                    + "\"x,y\",'=x,,1.5,\"q\"\"q\"\r\n"
                    + "1,,'-,0,é\r\n")


def test_fmt_float():
    assert fmt_float(None) == "" and fmt_float(0.5) == "0.5000" and fmt_float(2 / 3, 2) == "0.67"
    assert fmt_float(1) == "1.0000"


def test_html_helpers_escape_and_stay_self_contained():
    t = html_table(["h<1>", "n"], [["<script>x</script>", 3], [None, "a&b"]], num_cols=frozenset({1}))
    assert t == ("<table><thead><tr><th>h&lt;1&gt;</th><th>n</th></tr></thead><tbody>"
                 "<tr><td class=\"clip\">&lt;script&gt;x&lt;/script&gt;</td><td class=\"num\">3</td></tr>"
                 "<tr><td class=\"clip\"></td><td class=\"num\">a&amp;b</td></tr></tbody></table>")
    page = html_page("a <title>", [t, stamp_section(stamp())])
    assert "<title>a &lt;title&gt;</title>" in page
    assert "<script" not in page.lower()
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page, re.I)
    d = stamp().to_dict()
    assert d["fingerprint"] in page and "e&lt;1&gt;.jsonl" in page and "setting: note" in page
