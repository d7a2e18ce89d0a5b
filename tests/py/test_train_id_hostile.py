"""training_id under hostile ids: an id that is an object or a list is the record's id as
JSON text (not dropped), the same with one worker and with two that cut the file into byte
ranges; and ``--train-id-field`` naming a field no training file has is refused (a typo must
not give a report whose every training_id is silently empty). Hand-built files."""

import json
import sys

import pytest
from hostile_common import read_csv_export

from evalsieve.cli import main
from evalsieve.record_id import IdReader

Q1 = "the quick brown fox jumps over the lazy dog near the river bank today"
Q2 = "a journey of a thousand miles begins with a single step they always say"
Q3 = "all that glitters is not gold and not all those who wander are lost forever"


def jsonl(rows):
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def report(out):
    return read_csv_export((out / "contamination-report.csv").read_text(encoding="utf-8"))[1]


def test_id_reader_gives_objects_and_lists_as_json():
    ids = IdReader("jsonl", "id")
    assert ids({"id": {"a": 1, "b": [2, 3]}}) == '{"a": 1, "b": [2, 3]}'
    assert ids({"id": [1, "two", None]}) == '[1, "two", null]'
    assert ids({"id": {"é": "ü"}}) == '{"é": "ü"}'  # as written, not \\u escapes
    assert IdReader("jsonl", "id[]")({"id": [1, "two", None]}) == "1 | two"
    assert IdReader("jsonl", "meta.id")({"meta": {"id": {"k": 0}}}) == '{"k": 0}'
    assert IdReader("parquet", "id")({"id": {"k": 7}}) == '{"k": 7}'
    # unchanged: scalars, null, absent, empty
    assert (ids({"id": 17}), ids({"id": True}), ids({"id": None}), ids({}), ids({"id": ""})) == (
        "17",
        "true",
        "",
        "",
        "",
    )
    assert ids({"id": {}}) == "" and ids({"id": []}) == ""


@pytest.mark.parametrize(
    "workers",
    [
        "1",
        pytest.param(
            "2",
            marks=pytest.mark.skipif(
                sys.platform == "emscripten", reason="Pyodide has no processes"
            ),
        ),
    ],
)
def test_cli_object_and_list_ids_in_the_report(tmp_path, capsys, workers):
    (tmp_path / "e.jsonl").write_text(jsonl([{"q": Q1}, {"q": Q2}, {"q": Q3}]), encoding="utf-8")
    filler = [{"id": k, "text": f"filler record number {k} of the corpus"} for k in range(3000)]
    train = filler + [
        {"id": {"shard": 3, "n": [1, 2]}, "text": "x " + Q1},
        {"id": ["a", 2], "text": Q2 + " y"},
        {"text": Q3},
    ]  # no id at all
    (tmp_path / "t.jsonl").write_text(jsonl(train), encoding="utf-8")
    out = tmp_path / "out"
    assert (
        main(
            [
                "contamination",
                str(tmp_path / "e.jsonl"),
                str(tmp_path / "t.jsonl"),
                "--eval-field",
                "q",
                "--train-field",
                "text",
                "--train-id-field",
                "id",
                "--out",
                str(out),
                "--quiet",
                "--workers",
                workers,
            ]
        )
        == 0
    )
    capsys.readouterr()
    got = [(r["training_record"], r["training_id"]) for r in report(out)]
    assert got == [("3001", '{"shard": 3, "n": [1, 2]}'), ("3002", '["a", 2]'), ("3003", "")]


def test_cli_parquet_struct_id(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow", reason="Parquet needs the parquet extra")
    import pyarrow.parquet as pq

    (tmp_path / "e.jsonl").write_text(jsonl([{"q": Q1}]), encoding="utf-8")
    pq.write_table(
        pa.table({"meta": [{"src": "web", "n": 5}], "text": [Q1]}), tmp_path / "t.parquet"
    )
    out = tmp_path / "out"
    assert (
        main(
            [
                "contamination",
                str(tmp_path / "e.jsonl"),
                str(tmp_path / "t.parquet"),
                "--eval-field",
                "q",
                "--train-field",
                "text",
                "--train-id-field",
                "meta",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert [r["training_id"] for r in report(out)] == ['{"src": "web", "n": 5}']


def test_cli_refuses_an_id_field_that_no_training_file_has(tmp_path, capsys):
    (tmp_path / "e.jsonl").write_text(jsonl([{"q": Q1}]), encoding="utf-8")
    (tmp_path / "a.jsonl").write_text(jsonl([{"doc_id": "d1", "text": Q1}]), encoding="utf-8")
    (tmp_path / "b.txt").write_text(Q2 + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = [
        "contamination",
        str(tmp_path / "e.jsonl"),
        str(tmp_path / "a.jsonl"),
        str(tmp_path / "b.txt"),
        "--eval-field",
        "q",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args + ["--train-id-field", "docid"]) == 2
    err = capsys.readouterr().err
    assert "docid" in err and "a.jsonl" in err and "b.txt" in err and "doc_id" in err
    assert not out.exists() or not any(out.iterdir())
    # a field that only some files have is fine (the others' records have no id); so is a
    # path into an object id
    assert main(args + ["--train-id-field", "doc_id"]) == 0
    capsys.readouterr()
    assert [r["training_id"] for r in report(out)] == ["d1"]
