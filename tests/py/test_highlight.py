"""evalsieve.highlight: where the shared passage sits in the row's own text (hand-worked)."""

import json

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.highlight import code_points, passage_spans
from evalsieve.text import normalize_words

from test_contamination import fixture_run, run_job  # noqa: F401 (fixture)


def marked(segments, passage):
    """The marked substrings, slicing the joined text by UTF-16 offsets as JavaScript does."""
    u16 = "\n".join(segments).encode("utf-16-le")
    return [u16[2 * a : 2 * b].decode("utf-16-le") for a, b in passage_spans(segments, passage)]


def test_the_module_docstring_example():
    seg = ["Natalia sold clips to 48 of her friends in April, and then"]
    assert passage_spans(seg, "friends in april and") == [[32, 53]]
    assert marked(seg, "friends in april and") == ["friends in April, and"]


def test_case_punctuation_and_a_punctuation_only_token_inside_the_passage():
    # "—" is all punctuation: it has no word, so the passage runs across it.
    seg = ["TELEGRAPH OPERATORS could — send it; now!"]
    assert marked(seg, "telegraph operators could send it now") == [
        "TELEGRAPH OPERATORS could — send it; now!"
    ]
    assert marked(seg, "could send") == ["could — send"]
    assert marked(seg, "") == [] and marked(seg, "   ") == []
    assert marked(seg, "send now") == []  # not contiguous


def test_every_occurrence_without_overlap_and_per_segment_offsets():
    segs = ["a b a b a", "x a b"]
    # "a b" at 0-3 and 4-7 in the first segment; the second starts at 10 (9 chars + "\n")
    assert passage_spans(segs, "a b") == [[0, 3], [4, 7], [12, 15]]
    assert passage_spans(segs, "a b a") == [[0, 5]]
    # a passage never runs across two segments
    assert passage_spans(["p q", "r s"], "q r") == []


def test_nfkc_and_utf16_offsets():
    # fullwidth letters normalise to ascii; the emoji (outside the BMP) counts 2 UTF-16 units
    segs = ["🙂 ＡＢＣ def!", "ghi"]
    assert passage_spans(segs, "abc def") == [[3, 11]]
    assert marked(segs, "abc def") == ["ＡＢＣ def!"]
    assert marked(segs, "def ghi") == []
    assert passage_spans(segs, "ghi") == [[12, 15]]


@pytest.mark.parametrize(
    "text", ["a¨b c", "It's 9:30, Dr. O'Neil!", "x\u3000y\u00a0z", "ΣΑΣ σας.", "— — —"]
)
def test_tokens_words_are_the_segments_words(text):
    # the rule never joins or splits across white space, so normalising token by token gives
    # the segment's words (U+00A8 widens to a space + combining mark under NFKC)
    assert [w for t in text.split() for w in normalize_words(t)] == normalize_words(text)


def test_the_view_marks_the_shared_passage_of_each_flagged_row(fixture_run):
    ev, tr = fixture_run
    job, _ = run_job(ev, tr)
    rows = cx.view(job.result)["rows"]
    assert len(rows) == 7
    for v in rows:
        assert v["eval_marks"], v["eval_row"]
        text = v["eval_text"]
        got = " ".join(w for a, b in v["eval_marks"] for w in normalize_words(text[a:b]))
        # each mark holds exactly the passage's words (ASCII text: code points = UTF-16 units)
        assert text.isascii()
        assert all(
            " ".join(normalize_words(text[a:b])) == v["shared_passage"] for a, b in v["eval_marks"]
        )
        assert v["shared_passage"] in got


def test_a_hand_checked_row():
    ev = (
        json.dumps({"question": "Q: how many Apples does Tom, the grocer, sell on Monday? (hand)"})
        + "\n"
    )
    tr = (
        json.dumps({"text": "notes: many apples does tom the grocer sell on monday each week"})
        + "\n"
    )
    job, s = run_job(ev, tr, n=3)
    [row] = cx.view(job.result)["rows"]
    assert row["shared_passage"] == "many apples does tom the grocer sell on monday"
    a, b = row["eval_marks"][0]
    assert row["eval_text"][a:b] == "many Apples does Tom, the grocer, sell on Monday?"


def test_code_points_inverts_the_utf16_offsets():
    # the docstring's example: the emoji is 2 UTF-16 units but 1 code point
    assert code_points("😀 friends in April", [[3, 10]]) == [(2, 9)]
    text = "a😀😀 x😀y z 𝔸b"  # 𝔸 (U+1D538) is non-BMP too
    spans = passage_spans([text], "xy")  # NFKC leaves the emoji; "x😀y" is one word
    # hand-checked: "a😀😀 " is 1 + 2 + 2 + 1 = 6 units, "x😀y" 4 units
    assert passage_spans([text], "x😀y") == [[6, 10]] and spans == []
    assert code_points(text, [[6, 10]]) == [(4, 7)] and text[4:7] == "x😀y"
    assert code_points(text, [[13, 16]]) == [(10, 12)] and text[10:12] == "𝔸b"
    assert code_points("abc", [[0, 3]]) == [(0, 3)]
    for bad in ([[2, 4]], [[0, 99]]):  # inside the pair; past the end
        with pytest.raises(ValueError):
            code_points("a😀b", bad)
