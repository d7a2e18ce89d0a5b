"""evalsieve.evidence: sample values per field and the short-row check (hand-computed)."""

from evalsieve.evidence import clip, field_samples, short_check
from evalsieve.ngrams import ngram_size
from evalsieve.sample import describe_values, inspect_head

CHAT = [
    {
        "id": 1,
        "messages": [
            {"role": "user", "content": "hi there"},
            {"role": "assistant", "content": "hello"},
        ],
    },
    {"id": 2, "messages": []},
    {"id": 3, "messages": [{"role": "user", "content": "bye\n\nnow"}]},
]


def test_clip_collapses_white_space_and_marks_the_cut():
    assert clip("a  b\nc", 4) == "a b…"
    assert clip("a  b\nc", 5) == "a b c"
    assert clip("x" * 10, 10) == "x" * 10 and clip("x" * 11, 10) == "x" * 9 + "…"


def test_samples_are_the_first_non_empty_values_in_file_order():
    got = field_samples(
        "jsonl", CHAT, ["id", "messages[].content", "messages[role=user].content"], k=2
    )
    assert got == {
        "id": ["1", "2"],
        "messages[].content": ["hi there ⏎ hello", "bye now"],
        "messages[role=user].content": ["hi there", "bye now"],
    }


def test_short_check_counts_rows_without_an_n_gram_at_the_rules_n():
    # word counts 9 (one segment), 3+3+3 (three fields: 9 words, no segment of 8), 12, 2
    rows = [
        {"a": " ".join(["w"] * 9)},
        {"a": "x y z", "b": "p q r", "c": "s t u"},
        {"a": " ".join(["v"] * 12)},
        {"a": "Hello, world!"},
        {"a": ""},
    ]
    got = short_check("jsonl", rows, ["a", "b", "c"])
    n, how = ngram_size([9, 9, 12, 2])  # 5th percentile of 4 rows: rank 1 -> 2
    assert n == 8 and got["n"] == 8 and got["n_how"] == how
    assert (got["rows"], got["rows_with_words"], got["rows_too_short"]) == (5, 4, 2)
    assert got["mostly_short"] is False  # 2 of 4 is not more than half
    one = short_check("jsonl", rows, ["b"])
    assert (one["rows_with_words"], one["rows_too_short"], one["mostly_short"]) == (1, 1, True)
    none = short_check("jsonl", rows, ["nope"])
    assert none["n"] is None and none["mostly_short"] is True


def test_inspect_carries_samples_and_checks_the_default_or_the_chosen_fields():
    head = (
        '{"q": "What is the capital city of France in Europe today?", "a": "Paris"}\n'
        '{"q": "Name the largest planet of our solar system please.", "a": "Jupiter"}\n'
    )
    info = inspect_head("e.jsonl", head)
    f = {x["path"]: x for x in info["fields"]}
    assert f["a"]["samples"] == ["Paris", "Jupiter"]
    assert info["default_fields"] == ["q"]
    assert info["short_check"]["fields"] == ["q"] and info["short_check"]["rows_too_short"] == 0
    chosen = inspect_head("e.jsonl", head, check=["a"])["short_check"]
    assert (chosen["n"], chosen["rows_too_short"], chosen["mostly_short"]) == (8, 2, True)
    pq = describe_values([{"q": "one two"}], ["q", "r"], check=["q"])
    assert {x["path"]: x["samples"] for x in pq["fields"]} == {"q": ["one two"], "r": []}
    assert pq["short_check"]["rows_too_short"] == 1
