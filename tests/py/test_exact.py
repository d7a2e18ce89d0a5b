"""The exact rung: every row with a word has a key, the filters' probes, and the rung in the
job (rows too short for n-grams, copies whose words are split over training fields)."""

import json
import os
import sys

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.contamination_html import report_html
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.ladder import ladder_view
from evalsieve.ngrams import EvalIndex
from evalsieve.stamps import InputFile

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hostile")
)


def read_csv_export(text: str):
    """hostile_common.read_csv_export, the tests' one reader of CSV exports (skips where
    tests/hostile is absent: Pyodide's run holds tests/py only)."""
    return pytest.importorskip(
        "hostile_common", reason="reads CSV exports with tests/hostile/hostile_common.py"
    ).read_csv_export(text)


def _exact():
    from evalsieve import exact  # (imported here: the job's tests run on any version)

    return exact


def test_keys_are_every_row_with_a_word_joined_across_fields():
    exact = _exact()
    index = EvalIndex(
        [
            ["What is", "two plus two?"],
            ["Hi!"],
            [""],
            ["...", "—"],
            ["one two three four five six seven eight nine"],
        ],
        n=8,
    )
    # rows 2 (one word) and 0 (five words over two fields) have keys; empty rows have none
    assert index.exact_keys == {
        "what is two plus two": [0],
        "hi": [1],
        "one two three four five six seven eight nine": [4],
    }
    assert exact.row_key([["a", "b"], [], ["c"]]) == "a b c" and exact.row_key([[]]) == ""


def test_probes_prefixes_for_jsonl_the_key_for_text():
    exact = _exact()
    assert exact.probe_words("a b c", "text") == [["a", "b", "c"]]
    assert exact.probe_words("a b c", "jsonl") == [["a"], ["a", "b"], ["a", "b", "c"]]
    # a number-like first word may be a number leaf (one word): the rest's prefixes too
    assert exact.probe_words("12 apples left", "jsonl") == [
        ["12"],
        ["12", "apples"],
        ["12", "apples", "left"],
        ["apples"],
        ["apples", "left"],
    ]
    assert exact.probe_starts("1e+20 true 3 x".split(), "jsonl") == [0, 1, 2, 3]
    assert exact.probe_starts("x 12".split(), "jsonl") == [0]
    assert [
        w
        for w in ("12", "15e+20", "1e05", "true", "false", "nan", "infinity")
        if exact.scalar_word(w)
    ] == ["12", "15e+20", "1e05", "true", "false", "nan", "infinity"]
    assert not any(exact.scalar_word(w) for w in ("e5", "12a", "truth", "", "-1"))
    assert exact.scalar_only("7 true") and not exact.scalar_only("7 apples")


def test_probe_hash_by_hand():
    exact = _exact()
    # FNV-1a of "a" (UTF-16 unit 0x61): (0x811C9DC5 ^ 0x61) * 0x01000193 mod 2**32
    fnv_a = ((0x811C9DC5 ^ 0x61) * 0x01000193) & 0xFFFFFFFF
    assert fnv_a == 0xE40C292C == exact.word_hash("a")
    assert exact.segment_probe(["a"]) == (fnv_a + 0x85EBCA6B) & 0xFFFFFFFF == 0x69F7F397
    # two words: h = fnv(a) * MIX + fnv(b), plus 2 * count_mix
    fnv_b = ((0x811C9DC5 ^ 0x62) * 0x01000193) & 0xFFFFFFFF
    two = (fnv_a * 0x9E3779B1 + fnv_b + 2 * 0x85EBCA6B) & 0xFFFFFFFF
    assert exact.segment_probe(["a", "b"]) == two
    # a character beyond U+FFFF is two UTF-16 units, as JavaScript's charCodeAt reads it
    h = 0x811C9DC5
    for u in (0xD83D, 0xDE00):
        h = ((h ^ u) * 0x01000193) & 0xFFFFFFFF
    assert exact.word_hash("\U0001f600") == h
    spec = exact.prefilter_exact(["a b", "a"], "jsonl")
    assert spec["probes"] == sorted({exact.segment_probe(["a"]), two})
    assert exact.prefilter_exact(["a b", "a"], "text")["probes"] == sorted(
        {exact.segment_probe(["a"]), two}
    )
    assert exact.prefilter_exact(["x y z"], "text")["probes"] == [
        exact.segment_probe(["x", "y", "z"])
    ]
    assert not spec["scalar_only"] and exact.prefilter_exact(["42"], "jsonl")["scalar_only"]


EVAL = [
    "What is the sum of two and two, and then three more apples?",  # split over a and b
    "Paris",  # one word
    "a short row",  # three words
    "",  # empty
    "nothing like this is anywhere in the training data at all today",
    "the farmer sold seventeen apples at the market every sunday morning",
]
TRAIN = [
    {"a": "what is the sum of two", "b": "and two and then three more apples"},
    {"a": "PARIS."},
    {"b": "A short row!"},
    {"a": "", "b": "..."},
    {"a": "every week the farmer sold seventeen apples at the market every sunday morning"},
]


def job_of(clean="scored", exclude=None, n=8):
    cfg = ContaminationConfig(("q",), ("a", "b"), n=n, clean=clean, exclude_rungs=exclude)
    job = ContaminationJob(cfg, "e.jsonl", "jsonl", "t.jsonl", "jsonl")
    job.feed_eval("".join(json.dumps({"q": q}) + "\n" for q in EVAL))
    job.end_eval()
    job.feed_train("".join(json.dumps(r) + "\n" for r in TRAIN))
    f = InputFile("eval", "e.jsonl", "0" * 64, 1)
    s = job.finish(
        f, InputFile("train", "t.jsonl", "0" * 64, 1), "2026-01-01T00:00:00+00:00"
    ).summary
    return job, s


def test_exact_copies_too_short_or_split_are_caught_and_contaminated():
    job, s = job_of()
    assert job.rung == ["exact", "exact", "exact", "", "", "ngram"]
    assert [r.status for r in job.scores] == ["contaminated"] * 3 + [
        "empty",
        "clean",
        "contaminated",
    ]
    assert [r.ngram_status for r in job.scores] == [
        "clean",
        "too_short",
        "too_short",
        "empty",
        "clean",
        "contaminated",
    ]
    assert s["rows_contaminated"] == 4 and s["rows_contaminated_by_rung"]["exact"] == 3
    assert s["rows_scored"] == 3 and s["rows_too_short"] == 3 and s["rows_kept"] == 1
    _, report = read_csv_export(cx.report_csv(job.result))
    by = {int(r["eval_row"]): r for r in report}
    assert sorted(by) == [1, 2, 3, 5, 6]  # scored rows, and the caught short ones
    assert (
        by[2]["status"],
        by[2]["rung"],
        by[2]["containment"],
        by[2]["ngrams_total"],
        by[2]["training_file"],
        by[2]["training_record"],
    ) == ("contaminated", "exact", "", "0", "t.jsonl", "2")
    assert by[3]["training_record"] == "3" and by[1]["training_record"] == "1"
    assert (by[1]["containment"], by[1]["status"]) == ("0.0000", "contaminated")
    _, short = read_csv_export(cx.too_short_csv(job.result))
    assert [(r["eval_row"], r["reason"], r["rung"]) for r in short] == [
        ("2", "fewer than N words", "exact"),
        ("3", "fewer than N words", "exact"),
        ("4", "empty: no words in the chosen fields", ""),
    ]
    html = report_html(job.result)
    assert "Contaminated rows (4)" in html and "Caught first by the exact rung (3)" in html
    assert "Caught first by the ngram rung (1)" in html and "Rung exact (3)" in html
    view = cx.view(job.result)
    assert [(r["eval_row"], r["rung"], r["status"]) for r in view["rows"]] == [
        (1, "exact", "contaminated"),
        (2, "exact", "contaminated"),
        (3, "exact", "contaminated"),
        (6, "ngram", "contaminated"),
    ]
    assert view["rows"][1]["containment"] is None and view["rows"][1]["training_record"] == 2


def test_a_caught_short_row_leaves_the_clean_file_with_the_exact_rung_excluded():
    # every row not contaminated is kept: the short rows too, but not the exact copies
    job, s = job_of(clean="not-contaminated")
    assert list(job.result.kept) == [3, 4] and s["rows_kept"] == 2
    # the exact rung's rows kept by choice: still contaminated in every export
    job, s = job_of(clean="not-contaminated", exclude=("ngram",))
    assert list(job.result.kept) == [0, 1, 2, 3, 4]
    assert s["rows_contaminated"] == 4 and s["clean_file_excludes"] == ["ngram"]
    _, report = read_csv_export(cx.report_csv(job.result))
    assert [r["status"] for r in report if r["rung"] == "exact"] == ["contaminated"] * 3
    assert [r["leaves_clean"] for r in ladder_view(job.result)["rows"]] == [
        False,
        False,
        False,
        True,
    ]


def test_an_empty_row_is_never_an_exact_copy():
    cfg = ContaminationConfig(("q",), ("a",), n=8)
    job = ContaminationJob(cfg, "e.jsonl", "jsonl", "t.jsonl", "jsonl")
    job.feed_eval('{"q": ""}\n{"q": "!!"}\n{"q": "one two three four five six seven eight"}\n')
    job.end_eval()
    job.feed_train('{"a": ""}\n{"a": "?"}\n{}\n')
    f = InputFile("eval", "e", "0" * 64, 1)
    s = job.finish(f, f, "2026-01-01T00:00:00+00:00").summary
    assert job.rung == ["", "", ""] and s["rows_contaminated"] == 0


@pytest.mark.parametrize("fmt", ["jsonl", "text"])
def test_the_numpy_filter_passes_on_exact_copies(fmt):
    """LineFilter: the lines holding an exact copy (and only those, here) are candidates."""
    pytest.importorskip("numpy")
    from evalsieve.fastscan import LineFilter

    index = EvalIndex(
        [["what is the sum of two and two"], ["Paris"], ["7"], ["12 apples left"]], n=8
    )
    f = LineFilter(index.ngrams, 8, fmt, list(index.exact_keys))
    if fmt == "text":
        lines = [
            "What is the sum of two and two?",
            "what is the sum",
            "Paris!",
            "paris is",
            "12 Apples, left",
        ]
        want = [0, 2, 4]
    else:
        lines = [
            '{"a": "What is the sum", "b": "of two and two?"}',
            '{"b": "of two and two", "a": "what is the sum"}',
            '{"a": "what is the", "x": 1}',  # a prefix: a candidate (a superset)
            '{"paris": "the city"}',  # a key, not a value
            '{"a": "the sum of two and two"}',
            '{"a": "Par\\u00eds"}',  # another word
            '{"a": 12, "b": "apples left"}',  # a number leaf, then the rest
            '{"a": "x", "b": "y"',  # its quotes pair up, but no '}'
            '{"a": "odd quote}',
        ]
        want = [0, 1, 2, 6, 7, 8]
    # each line alone (in one block the n-gram windows also span lines: more candidates)
    got = [i for i, line in enumerate(lines) if len(f.candidates((line + "\n").encode())[1])]
    if fmt == "jsonl":
        # the key "7" could be a record of number leaves only: with it, a line with a word
        # outside its strings (line 2's 1) is a candidate
        assert f.scalar_only and got == want
    else:
        assert got == want
    count, cands = f.candidates(("\n".join(lines) + "\n").encode())
    assert count == len(lines) and set(want) <= set(cands.tolist())
    g = LineFilter(index.ngrams, 8, "jsonl", ["what is the sum of two and two"])
    assert not g.scalar_only
    _, c = g.candidates(b'{"a": "what is the sum", "id": 3}\n{"a": "no", "id": 4}\n')
    assert c.tolist() == [0]
