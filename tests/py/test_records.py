import random

import pytest

from evalsieve.errors import EvalsieveError
from evalsieve.records import RecordReader, refuse_binary, sniff_format


def read_all(fmt, text, name="f", pieces=None):
    r = RecordReader(fmt, name)
    out = []
    if pieces is None:
        out += r.feed(text)
    else:
        cuts = sorted(pieces)
        last = 0
        for c in cuts + [len(text)]:
            out += r.feed(text[last:c])
            last = c
    out += r.finish()
    return r, out


def test_jsonl_keeps_raw_lines_and_numbers():
    text = '{"a": "x"}\r\n\n{"a":"y",  "b": 1}\n{"a": "\\u00e9"}'
    _, recs = read_all("jsonl", text)
    assert [r.index for r in recs] == [1, 2, 3]
    assert [r.line for r in recs] == [1, 3, 4]
    assert "".join(r.raw for r in recs) == text.replace("\n\n", "\n")
    assert recs[0].raw == '{"a": "x"}\r\n'
    assert recs[2].raw == '{"a": "\\u00e9"}'  # last line: no newline added
    assert recs[2].value == {"a": "é"}


def test_chunking_does_not_change_records():
    text = "".join('{"q": "row %d, with a comma"}\n' % i for i in range(200))
    _, whole = read_all("jsonl", text)
    rng = random.Random(3)
    for _ in range(20):
        cuts = rng.sample(range(1, len(text)), 15)
        _, parts = read_all("jsonl", text, pieces=cuts)
        assert parts == whole


def test_malformed_jsonl_line_is_named():
    text = '{"a": 1}\n{"a": 2}\n{"a": oops}\n'
    with pytest.raises(EvalsieveError) as e:
        read_all("jsonl", text, name="eval.jsonl")
    assert e.value.code == "bad_input"
    assert e.value.file == "eval.jsonl" and e.value.line == 3
    assert "not valid JSON" in e.value.message


def test_jsonl_non_object_is_refused():
    with pytest.raises(EvalsieveError) as e:
        read_all("jsonl", '{"a": 1}\n"just a string"\n')
    assert e.value.line == 2 and "str" in e.value.message


def test_csv_quoted_newlines_across_chunks_and_raw_bytes():
    text = 'id,question\r\n1,"two\r\nlines, and ""quotes"""\r\n2,plain\r\n'
    for cut in range(1, len(text)):
        r, recs = read_all("csv", text, pieces=[cut])
        assert r.header == ["id", "question"]
        assert r.header_raw == "id,question\r\n"
        assert [x.value for x in recs] == [
            {"id": "1", "question": 'two\r\nlines, and "quotes"'},
            {"id": "2", "question": "plain"},
        ]
        assert "".join(x.raw for x in recs) == text[len("id,question\r\n") :]
        assert [x.line for x in recs] == [2, 4]


def test_csv_duplicate_headers_and_ragged_rows_stop_at_the_line():
    _, recs = read_all("csv", "a,a,b\n1,2,3\n")
    assert recs[0].value == {"a": "1", "a (2)": "2", "b": "3"}
    for text, line, got in (("a,a,b\n1,2,3\n1,2\n", 3, 2), ("a,b\n1,2\n\n3,4,5,6\n", 4, 4)):
        with pytest.raises(EvalsieveError) as e:
            read_all("csv", text, name="r.csv")
        assert e.value.file == "r.csv" and e.value.line == line
        assert f"this row has {got} fields but the header has" in e.value.message


def test_csv_unclosed_quote_names_the_line():
    with pytest.raises(EvalsieveError) as e:
        read_all("csv", 'a,b\n1,"open\n2,3\n', name="x.csv")
    assert e.value.line == 2 and "never closed" in e.value.message


#: The issue's minimal case: a TSV as Python's csv module and pandas write it.
NIXON_TSV = (
    'question\tanswer\n"What did Nixon mean by ""I am not a crook""?"\t"He was answering '
    "a question about his personal finances\nduring a press conference in Orlando in "
    '1973"\n'
)


def test_tsv_is_quoted_as_the_csv_module_writes_it():
    assert sniff_format("quoted.tsv", NIXON_TSV, complete=True) == "tsv"
    for cut in range(1, len(NIXON_TSV), 7):
        r, recs = read_all("tsv", NIXON_TSV, pieces=[cut])
        assert len(recs) == 1 and recs[0].line == 2
        assert recs[0].value == {
            "question": 'What did Nixon mean by "I am not a crook"?',
            "answer": "He was answering a question about his personal finances\nduring a press "
            "conference in Orlando in 1973",
        }
        assert r.header_raw + recs[0].raw == NIXON_TSV
    # a quoted tab stays in its field; the reference is the csv module itself
    import csv
    import io

    text = 'q\tlabel\n"hi\tthere"\tx\nplain "mid" quote\ty\n'
    want = list(csv.reader(io.StringIO(text), delimiter="\t"))
    _, recs = read_all("tsv", text)
    assert [list(r.value.values()) for r in recs] == want[1:]


def test_tsv_unclosed_quote_names_the_line():
    with pytest.raises(EvalsieveError) as e:
        read_all("tsv", 'q\tlabel\n"hi\tthere\n', name="t.tsv")
    assert e.value.line == 2 and "never closed" in e.value.message


def test_text_format_one_record_per_line():
    _, recs = read_all("text", "first line\n\nsecond\r\nthird")
    assert [r.value["text"] for r in recs] == ["first line", "second", "third"]
    assert [r.line for r in recs] == [1, 3, 4]


@pytest.mark.parametrize(
    "name,head,fmt",
    [
        ("x.txt", '{"a": 1}\n', "jsonl"),  # content beats the name
        ("x.csv", "a,b\n1,2\n", "csv"),
        ("x", "a\tb\n", "tsv"),
        ("x", "a,b\n", "csv"),
        ("x", "just words\n", "text"),
        ("x.tsv.gz", "a b\n", "tsv"),
    ],
)
def test_sniff(name, head, fmt):
    assert sniff_format(name, head) == fmt


def test_sniff_refuses_json_array_and_empty():
    with pytest.raises(EvalsieveError, match="JSON array"):
        sniff_format("a.json", '[{"a": 1}]')
    with pytest.raises(EvalsieveError, match="empty"):
        sniff_format("a.jsonl", "\n  \n")


@pytest.mark.parametrize(
    "head,what",
    [
        (b"PK\x03\x04\x14\x00", "ZIP archive"),
        (b"PAR1\x15\x04", "Parquet"),
        (b"\xff\xfeh\x00i\x00", "UTF-16"),
        (b"\xfe\xff\x00h\x00i", "UTF-16"),
        (b"BZh91AY&SY\x00", "bzip2"),
    ],
)
def test_refuse_binary_by_magic_bytes(head, what):
    with pytest.raises(EvalsieveError, match=f"unsupported format: this looks like .*{what}"):
        refuse_binary("f.jsonl", head)


@pytest.mark.parametrize(
    "head,what,todo",
    [
        # a UTF-32 byte-order mark starts with the UTF-16 one: it must be named as UTF-32, and
        # the iconv line must not re-encode it as UTF-16 (that gives garbage)
        ("{}".encode("utf-32"), "UTF-32 text (little-endian", "iconv -f UTF-32 -t UTF-8"),
        (b"\x00\x00\xfe\xff\x00\x00\x00{", "UTF-32 text (big-endian", "iconv -f UTF-32 -t UTF-8"),
        ("{}".encode("utf-16"), "UTF-16 text (little-endian", "iconv -f UTF-16 -t UTF-8"),
    ],
)
def test_refuse_utf32_as_utf32_not_utf16(head, what, todo):
    with pytest.raises(EvalsieveError) as e:
        refuse_binary("f.jsonl", head)
    assert f"this looks like {what}" in e.value.message and todo in e.value.expected


def test_refuse_binary_leaves_text_alone():
    for head in (b'{"a": 1}\n', b"BZh is a word\n", b"\xef\xbb\xbfid,q\n", b"PK is a name\n"):
        refuse_binary("f.txt", head)


def test_sniff_refuses_nul_and_reads_lone_cr_and_semicolons():
    with pytest.raises(EvalsieveError, match="NUL") as e:
        sniff_format("a.txt", "one\ntw\x00o\n")
    assert e.value.line == 2
    assert sniff_format("a.txt", "one\rtwo\rthree\n") == "text-cr"
    assert sniff_format("a.csv", 'id,q\n1,"\rstarts with CR"\n') == "csv"  # a CR inside a cell
    semi = 'id;q\n1;x, y and z\n2;"a;b"\n'
    for name in ("a.csv", "a.tsv", "a"):  # content decides, whatever the name
        assert sniff_format(name, semi, complete=True) == "csv-semicolon"
    _, recs = read_all("csv-semicolon", semi)
    assert [r.value for r in recs] == [{"id": "1", "q": "x, y and z"}, {"id": "2", "q": "a;b"}]
    assert sniff_format("p", "a|b\n1|2\n", complete=True) == "csv-pipe"
    assert sniff_format("a.csv", "id,q\n1,x\n", complete=True) == "csv"
    # a tab file whose rows also hold exactly one comma: the name breaks the tie
    both = "a\tb,c\n1\t2,3\n"
    assert sniff_format("x.tsv", both, complete=True) == "tsv"
    assert sniff_format("x.csv", both, complete=True) == "csv"


def test_lone_cr_lines_across_every_chunk_cut():
    text = 'id,q\r1,"two\rlines"\r2,plain\r\n3,last'
    assert sniff_format("x.csv", text, complete=True) == "csv-cr"
    _, whole = read_all("csv-cr", text)
    assert [r.value for r in whole] == [
        {"id": "1", "q": "two\rlines"},
        {"id": "2", "q": "plain"},
        {"id": "3", "q": "last"},
    ]
    assert [r.line for r in whole] == [2, 4, 5]
    assert "id,q\r" + "".join(r.raw for r in whole) == text
    for cut in range(1, len(text)):
        assert read_all("csv-cr", text, pieces=[cut])[1] == whole
    _, lines = read_all("text-cr", "a\rb\r\rc")
    assert [(r.line, r.raw) for r in lines] == [(1, "a\r"), (2, "b\r"), (4, "c")]


def test_jsonl_nested_too_deeply_names_the_line():
    deep = '{"a": ' * 5000 + "1" + "}" * 5000
    with pytest.raises(EvalsieveError, match="nested too deeply") as e:
        read_all("jsonl", '{"a": 1}\n' + deep + "\n")
    assert e.value.line == 2


def test_jsonl_lone_surrogate_escape_becomes_replacement_char():
    raw = '{"q": "a \\ud800 b \\ud83d\\ude00"}\n'
    _, (rec,) = read_all("jsonl", raw)
    assert rec.value == {"q": "a \ufffd b \U0001f600"}
    assert rec.raw == raw


def test_csv_stray_quote_in_unquoted_field_is_a_character():
    text = 'id,q\n1,a 5" screen\n2,"multi\nline"\n3,the 7" single\n'
    _, recs = read_all("csv", text)
    assert [r.value["q"] for r in recs] == ['a 5" screen', "multi\nline", 'the 7" single']
    assert "".join(r.raw for r in recs) == text[len("id,q\n") :]
