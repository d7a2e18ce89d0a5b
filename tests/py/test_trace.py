"""Each flagged row traced to its source: the training file, the record number in that file,
the record's own id (record_id.py) and its byte offset (so the page reads it again with
File.slice, cont.record); the same under every path of the training pass (plain reader, the
CLI's tasks merged in any order, --workers, the numpy filter). Hand-built files, expectations
worked by hand."""

import csv
import io
import json
import sys

import pytest
from hostile_common import read_csv_export

import evalsieve.contamination_exports as cx
from evalsieve.bridge import call as _call
from evalsieve.cli import main
from evalsieve.contamination_exports import REPORT_COLUMNS
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.ngrams import EvalIndex, TrainingScan
from evalsieve.record_id import IdReader, default_id_field
from evalsieve.records import RecordReader
from evalsieve.stamps import InputFile

Q1 = "the quick brown fox jumps over the lazy dog near the river bank"
Q2 = "a completely different sentence with many more words than needed here"
TRAIN = [
    {"doc_id": "d-1", "text": "nothing to see here at all, really nothing"},
    {
        "doc_id": "d-2",
        "text": "Héllo! " + Q1.replace("lazy", "LAZY") + " today",
    },  # record 2: first match
    {"doc_id": 33, "text": Q1},  # record 3: exact copy
    {"doc_id": "d-4", "text": "more filler text without the phrase"},
]


def call(op, args, text=None):
    r = json.loads(_call(op, json.dumps(args), text))
    assert r["ok"], r
    return r["value"]


def jsonl(rows):
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def test_default_id_field_by_name():
    assert default_id_field(["question", "answer", "task_id"]) == "task_id"
    assert default_id_field(["text", "_id", "id"]) == "id"  # id before _id
    assert default_id_field(["meta.id", "text"]) == "meta.id"  # a nested id
    assert default_id_field(["problem_id", "text"]) == "problem_id"  # ends in _id
    assert default_id_field(["question", "answer"]) is None
    assert default_id_field([{"path": "id", "fill": 0}, {"path": "uid", "fill": 1}]) == "uid"
    assert default_id_field(["messages[role=user].id"]) is None  # no element filters
    assert IdReader("jsonl", "doc_id")({"doc_id": 33}) == "33"
    assert IdReader("jsonl", "doc_id")({"text": "x"}) == ""
    assert IdReader("jsonl", None)({"doc_id": "a"}) == ""


def test_reader_offsets_are_utf8_bytes_of_each_record():
    text = '{"a": "é"}\n\n{"a": 2}\r\n{"a": 3}'
    r = RecordReader("jsonl", "x", offsets=True)
    recs = r.feed(text[:4]) + r.feed(text[4:]) + r.finish()
    # "é" is 2 bytes: line 1 is 12 bytes with its "\n", the blank line 1 more
    assert [x.offset for x in recs] == [0, 13, 23]
    data = text.encode()
    assert [data[x.offset : x.offset + len(x.raw.encode())].decode() for x in recs] == [
        x.raw for x in recs
    ]
    c = RecordReader("csv", "x", offsets=True)
    recs = c.feed('a,b\n1,"x\ny"\n\n2,é\n') + c.finish()
    assert [x.offset for x in recs] == [4, 13]  # a quoted newline: one record from byte 4
    assert RecordReader("jsonl", "x").feed('{"a": 1}\n')[0].offset == -1  # off by default


def run_job(train_text, id_field="doc_id", fmt="jsonl"):
    j = ContaminationJob(
        ContaminationConfig(("q",), ("text",), n=4, train_id_field=id_field),
        "e.jsonl",
        "jsonl",
        "t.jsonl",
        fmt,
    )
    j.feed_eval(jsonl([{"q": Q1}, {"q": Q2}]))
    j.end_eval()
    for k in range(0, len(train_text), 37):  # chunks that cut records and characters' lines
        j.feed_train(train_text[k : k + 37])
    j.finish(InputFile("eval", "e.jsonl", "", 0), InputFile("train", "t.jsonl", "", 0), "t")
    return j


def report_rows(text):
    return read_csv_export(text)[1]


def test_report_names_file_record_and_id_and_the_page_reads_the_record_back():
    train = jsonl(TRAIN)
    j = run_job(train)
    assert "training_id" in REPORT_COLUMNS
    [r1, r2] = report_rows(cx.export(j.result, "contamination-report.csv")[1])
    assert (r1["training_file"], r1["training_record"], r1["training_id"]) == (
        "t.jsonl",
        "2",
        "d-2",
    )
    assert r2["training_id"] == "" and r2["status"] == "clean"
    assert j.summary["stamp"]["settings"]["train_id_field"] == "doc_id"
    from evalsieve.cont_table import contamination_source, open_record
    from evalsieve.result_table import query_rows

    page = query_rows(contamination_source(j.result), {"where": {"rung": ["exact", "ngram"]}})
    [row] = page["rows"]
    assert page["matched"] == 1 and page["total"] == 2
    assert (row["rung"], row["training_record"], row["training_id"]) == ("exact", 2, "d-2")
    assert (row["exact_record"], row["exact_file"]) == (3, "t.jsonl")
    # record 2 starts after record 1's line; its bytes hold "é" (2 bytes)
    data = train.encode()
    line1 = len(jsonl(TRAIN[:1]).encode())
    assert row["training_offset"] == line1
    assert row["training_bytes"] == len(jsonl(TRAIN[1:2]).encode()) - 1  # without its "\n"
    raw = data[row["training_offset"] : row["training_offset"] + row["training_bytes"]].decode()
    rec = open_record(
        j.result, row["eval_row"], row["training_file_index"], row["training_record"], raw
    )
    assert rec["id"] == "d-2" and rec["value"] == TRAIN[1]
    [f] = rec["fields"]
    marked = [f["text"][a:b] for a, b in f["marks"]]
    assert marked == [Q1.replace("lazy", "LAZY")]  # "Héllo!" and "today" share nothing
    with pytest.raises(Exception) as e:  # another record's text: not the one the run read
        open_record(j.result, 1, 0, 2, jsonl(TRAIN[3:4]).rstrip("\n"))
    assert e.value.code == "bad_input"


def test_csv_training_file_offsets_and_record_opened_with_its_header():
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["doc_id", "text"])
    for r in TRAIN:
        w.writerow([r["doc_id"], r["text"]])
    train = buf.getvalue()
    j = run_job(train, fmt="csv")
    from evalsieve.cont_table import contamination_source, open_record

    row = contamination_source(j.result).row(0)
    assert (row["training_record"], row["training_id"]) == (2, "d-2")
    data = train.encode()
    raw = data[row["training_offset"] : row["training_offset"] + row["training_bytes"]].decode()
    assert raw.startswith("d-2,")
    rec = open_record(j.result, 1, 0, 2, raw)
    assert rec["value"] == {"doc_id": "d-2", "text": TRAIN[1]["text"]}


def test_sources_merge_in_any_order_to_the_single_scan():
    idx = EvalIndex([[Q1], [Q2]], n=4)
    items = [(k + 1, [r["text"]], [-1, 0, str(r["doc_id"])]) for k, r in enumerate(TRAIN * 2)]
    whole = TrainingScan(idx)
    whole.scan(items)
    parts = []
    for lo, hi in ((0, 3), (3, 8)):  # record numbers local to each part
        s = TrainingScan(idx)
        s.scan([(rec - lo, segs, src) for rec, segs, src in items[lo:hi]])
        s.records = hi - lo
        parts.append((json.loads(json.dumps(s.partial())), lo))  # through JSON, as Ray sends it
    for order in (parts, parts[::-1]):
        m = TrainingScan(idx)
        for part, off in order:
            m.merge(part, 0, off)
        assert m.first_record == whole.first_record and m.exact == whole.exact
        keys = {(0, r) for r in m.first_record if r} | set(m.exact.values())
        assert {k: list(m.sources[k]) for k in keys} == {k: list(whole.sources[k]) for k in keys}
    assert whole.sources[(0, 2)] == [-1, 0, "d-2"]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        pytest.param(
            ["--workers", "2"],
            marks=pytest.mark.skipif(
                sys.platform == "emscripten", reason="Pyodide has no processes"
            ),
        ),
        ["--filter", "off"],
        ["--train-id-field", "none"],
    ],
)
def test_cli_training_id_by_name_and_under_every_engine(tmp_path, capsys, extra):
    (tmp_path / "e.jsonl").write_text(jsonl([{"q": Q1}, {"q": Q2}]), encoding="utf-8")
    # enough records that --workers 2 may cut the file into ranges
    big = TRAIN + [
        {"doc_id": f"f-{k}", "text": f"filler record number {k} of the corpus"} for k in range(3000)
    ]
    (tmp_path / "t.jsonl").write_text(jsonl(big), encoding="utf-8")
    out = tmp_path / "out"
    assert (
        main(
            [
                "contamination",
                str(tmp_path / "e.jsonl"),
                str(tmp_path / "t.jsonl"),
                "--n",
                "4",
                "--eval-field",
                "q",
                "--train-field",
                "text",
                "--out",
                str(out),
                "--quiet",
            ]
            + extra
        )
        == 0
    )
    capsys.readouterr()
    [r1, _] = report_rows((out / "contamination-report.csv").read_text(encoding="utf-8"))
    want = "" if "none" in extra else "d-2"
    assert (r1["training_record"], r1["training_id"]) == ("2", want)


def test_bridge_rows_filters_count_as_the_report_and_reject_bad_queries():
    h = call(
        "cont.start",
        {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["q"]},
            "train": {
                "name": "t.jsonl",
                "format": "jsonl",
                "fields": ["text"],
                "id_field": "doc_id",
            },
            "n": 4,
        },
    )["handle"]
    call("cont.feed_eval", {"handle": h}, jsonl([{"q": Q1}, {"q": Q2}, {"q": "too short"}]))
    call("cont.end_eval", {"handle": h})
    call("cont.feed_train", {"handle": h}, jsonl(TRAIN))
    call("cont.finish", {"handle": h, "inputs": {"eval": {}, "train": {}}})
    rows = lambda **q: call("cont.rows", {"handle": h, **q})
    assert rows()["matched"] == 3
    assert rows(where={"status": ["contaminated"]})["matched"] == 1
    assert rows(where={"rung": ["none"]})["matched"] == 2
    assert rows(bin={"key": "containment", "index": 9})["matched"] == 1  # containment 1.0
    assert rows(bin={"key": "containment", "index": 0})["matched"] == 1  # row 2: 0.0
    assert (
        rows(range={"key": "containment", "min": 0.5})["matched"] == 1
    )  # the too-short row has none
    assert rows(query="RIVER bank")["matched"] == 1
    assert [r["eval_row"] for r in rows(sort={"key": "eval_row", "dir": "descending"})["rows"]] == [
        3,
        2,
        1,
    ]
    assert rows(limit=2, offset=2)["rows"][0]["eval_row"] == 3
    assert rows(limit=2, offset=99)["offset"] == 2  # past the end: the last page
    assert rows()["facets"]["status"] == {"contaminated": 1, "clean": 1, "too_short": 1}
    for bad in (
        {"where": {"colour": ["x"]}},
        {"limit": 0},
        {"sort": {"key": "nope"}},
        {"range": {"key": "containment", "min": "a"}},
    ):
        r = json.loads(_call("cont.rows", json.dumps({"handle": h, **bad})))
        assert r["error"]["code"] == "bad_input", bad
    assert call("inspect", {"name": "t.jsonl"}, jsonl(TRAIN))["default_id_field"] == "doc_id"
