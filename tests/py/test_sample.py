"""evalsieve.sample: the head of a file, its format and fields (hand-computed expectations)."""

import pytest

from evalsieve.errors import EvalsieveError
from evalsieve.sample import check_fields, inspect_head

JSONL = (
    '{"id": 1, "q": "What is two plus two?", "tags": ["a"]}\n'
    '{"id": 2, "q": "Name a colour."}\n'
    '{"id": 3, "q": "Why?", "tags": []}\n'
    '{"id": 4, "q"'
)  # the head was cut inside row 4


def fields(info):
    return {f["path"]: f for f in info["fields"]}


def test_jsonl_head_fields_hand_computed():
    info = inspect_head("e.jsonl", JSONL)
    assert info["format"] == "jsonl" and info["rows_sampled"] == 3  # the cut row 4 waits
    f = fields(info)
    assert list(f) == ["id", "q", "tags[]"]
    # q: 21 + 14 + 4 characters over 3 rows
    assert f["q"]["avg_chars"] == 13.0 and f["q"]["fill"] == 1.0 and f["q"]["kind"] == "text"
    # tags[]: only row 1 has a value ([] is empty)
    assert f["tags[]"]["fill"] == pytest.approx(1 / 3) and f["tags[]"]["avg_chars"] == 1.0
    assert f["id"]["kind"] == "other"  # numbers are not text
    assert info["default_fields"] == ["q"]


def test_csv_head_with_quoted_comma():
    info = inspect_head("e.csv", 'id,question\r\n1,"a, b"\r\n2,c\r\n')
    assert info["format"] == "csv" and info["rows_sampled"] == 2
    assert fields(info)["question"]["avg_chars"] == (4 + 1) / 2
    assert info["default_fields"] == ["question"]


def test_complete_head_parses_its_last_line_without_newline():
    assert inspect_head("x.txt", "hello\nworld")["rows_sampled"] == 1
    info = inspect_head("x.txt", "hello\nworld", complete=True)
    assert info["rows_sampled"] == 2 and fields(info)["text"]["avg_chars"] == 5.0
    # a single long line with no newline yet is parsed as it stands
    assert inspect_head("one.jsonl", '{"q": "only row"}')["rows_sampled"] == 1


def test_bad_heads_name_file_and_line():
    with pytest.raises(EvalsieveError) as e:
        inspect_head("a.jsonl", '{"a": 1}\n{"a": \n')
    assert (e.value.code, e.value.file, e.value.line) == ("bad_input", "a.jsonl", 2)
    with pytest.raises(EvalsieveError, match="the file is empty") as e:
        inspect_head("empty.jsonl", "")
    assert e.value.file == "empty.jsonl"
    with pytest.raises(EvalsieveError, match="no record found in the start") as e:
        inspect_head("h.csv", "id,q\r\n")  # a header and no row
    assert e.value.file == "h.csv" and e.value.expected == "csv records"


def test_check_fields_names_the_missing_field_and_the_known_ones():
    check_fields("e.jsonl", "jsonl", ["q", "tags[]"], JSONL)
    with pytest.raises(EvalsieveError) as e:
        check_fields("e.jsonl", "jsonl", ["question"], JSONL)
    assert "'question'" in e.value.message and "first 3 rows" in e.value.message
    assert e.value.expected == "one of: id, q, tags[]" and e.value.file == "e.jsonl"


def test_an_unclosed_quote_in_the_first_record_names_its_line():
    # the head holds no complete record: the reader's own error (line, what) is the reason
    head = 'id\tq\n1\t"What is the capital city of France?\n2\tHow many legs?\n'
    with pytest.raises(EvalsieveError, match="a quoted field is never closed") as e:
        inspect_head("e.tsv", head)
    assert (e.value.file, e.value.line) == ("e.tsv", 2)
    assert "closing double quote" in e.value.expected
