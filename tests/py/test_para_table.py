"""The paraphrase result's tables as the page pages them (para.rows): every pair and every
group at a threshold, searched, sorted, filtered, with where a truncated row's encoder window
ended; and result_table's own rules (natural order of categories, missing numbers last)."""

import json

import pytest

from evalsieve.bridge import call as _call
from evalsieve.result_table import TableSource, query_rows

ROWS = [
    "How do I reset my password?",
    "I forgot my password, how do I reset it?",
    "I forgot my password, what should I do?",
    "What is the capital of France?",
    "Which city is the capital of France?",
    "Name a mammal that can fly.",
]


def call(op, args, text=None):
    r = json.loads(_call(op, json.dumps(args), text))
    assert r["ok"], r
    return r["value"]


@pytest.fixture()
def handle():
    h = call(
        "para.start",
        {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"}, "threshold": 0.9},
    )["handle"]
    call("para.feed_eval", {"handle": h}, "".join(json.dumps({"q": q}) + "\n" for q in ROWS))
    call("para.end_eval", {"handle": h})
    from evalsieve.bridge import _jobs

    # 1-2 0.95, 2-3 0.93, 1-3 0.85 (chained at 0.90), 4-5 0.97; row 2's window ended at 13
    _jobs[h].set_similarity(
        [(0, 1, 0.95), (1, 2, 0.93), (0, 2, 0.85), (3, 4, 0.97)],
        [0.95, 0.95, 0.93, 0.97, 0.97, 0.1],
        [1, 0, 1, 4, 3, 0],
        0,
    )
    _jobs[h].cuts = {1: 13}
    yield h
    call("close", {"handle": h})


def rows(h, **q):
    return call("para.rows", {"handle": h, "threshold": 0.9, **q})


def test_every_pair_closest_first_searched_and_sorted(handle):
    p = rows(handle, table="pairs")
    assert [(r["row_a"], r["row_b"], r["cosine"]) for r in p["rows"]] == [
        (4, 5, "0.970"),
        (1, 2, "0.950"),
        (2, 3, "0.930"),
    ]
    assert p["matched"] == p["total"] == 3
    assert (
        p["rows"][1]["text_b"] == ROWS[1]
        and p["rows"][1]["cut_b"] == 13
        and p["rows"][1]["cut_a"] is None
    )
    assert [r["row_a"] for r in rows(handle, table="pairs", query="password RESET")["rows"]] == [
        1,
        2,
    ]
    assert [
        r["row_a"]
        for r in rows(handle, table="pairs", sort={"key": "row_a", "dir": "descending"})["rows"]
    ] == [4, 2, 1]
    assert rows(handle, table="pairs", range={"key": "cosine", "min": 0.94})["matched"] == 2
    assert (
        rows(handle, table="pairs", where={"group": ["2"]})["matched"] == 1
    )  # 4-5: the second group
    assert rows(handle, table="pairs", threshold=0.96)["matched"] == 1


def test_every_group_with_its_members_and_the_chained_filter(handle):
    g = rows(handle, table="groups")
    assert [(r["group"], r["size"], r["chained"]) for r in g["rows"]] == [
        (1, 3, True),
        (2, 2, False),
    ]
    first = g["rows"][0]
    assert [m["row"] for m in first["members"]] == [1, 2, 3] and first["members"][1]["cut"] == 13
    assert first["lowest"] == "0.850" and first["lowest_pair"] == [1, 3]
    assert [
        r["group"] for r in rows(handle, table="groups", where={"chained": ["no"]})["rows"]
    ] == [2]
    assert [r["group"] for r in rows(handle, table="groups", query="capital")["rows"]] == [2]
    bad = json.loads(
        _call("para.rows", json.dumps({"handle": handle, "threshold": 0.9, "table": "rows"}))
    )
    assert bad["error"]["code"] == "bad_input"


def test_categories_sort_naturally_and_missing_numbers_sort_last():
    vals = ["row 10", "row 9", "Row 2", None]
    src = TableSource(
        n=4,
        row=lambda i: {"i": i},
        text=lambda i: "",
        cats={"name": lambda i: vals[i] or ""},
        nums={"x": lambda i: [3, None, 1, 2][i]},
    )
    assert [
        r["i"] for r in query_rows(src, {"sort": {"key": "name", "dir": "ascending"}})["rows"]
    ] == [3, 2, 1, 0]
    assert [
        r["i"] for r in query_rows(src, {"sort": {"key": "x", "dir": "ascending"}})["rows"]
    ] == [2, 3, 0, 1]
    assert [
        r["i"] for r in query_rows(src, {"sort": {"key": "x", "dir": "descending"}})["rows"]
    ] == [0, 3, 2, 1]
    page = query_rows(src, {"limit": 3, "offset": 3})
    assert (page["offset"], [r["i"] for r in page["rows"]]) == (3, [3])
