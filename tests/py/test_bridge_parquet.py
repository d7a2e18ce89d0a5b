"""The bridge ops the page uses for Parquet (values read in the worker, JSON into Python):
inspect (with `parquet`) describes the file as the CLI's `fields --json` does, and a run fed with
cont.feed_eval_values (training rows as JSON Lines, as the worker sends them through its
prefilter) scores as the CLI's pyarrow run; the page's
clean export for a Parquet eval file lists the rows the CLI's eval.clean.parquet keeps."""

import json
import os

import pytest

pq = pytest.importorskip(
    "pyarrow.parquet",
    reason="the reference run needs pyarrow (the parquet extra; python3 build.py test installs it)",
)

from evalsieve import bridge  # noqa: E402
from evalsieve.cli import main  # noqa: E402
from evalsieve.parquet_io import ParquetSource  # noqa: E402
from hostile_common import read_csv_export  # noqa: E402

FIELD = "messages[role=user].content"


def call(op, args=None, text=None):
    answer = json.loads(bridge.call(op, json.dumps(args or {}), text))
    assert answer["ok"], answer
    return answer["value"]


def rows_of(path, columns=None):
    """The file's rows as plain JSON values, one list per batch (what the worker sends)."""
    return list(ParquetSource(path).values(columns))


def body(csv_text):
    """A CSV export's rows as dicts, without the run_fingerprint column."""
    return read_csv_export(csv_text)[1]


def test_inspect_values_is_the_cli_field_list(fixtures, capsys):
    path = os.path.join(fixtures, "chat_eval.parquet")
    src = ParquetSource(path)
    assert src.paths == ["id", "meta.source", "meta.year", "messages[].role", "messages[].content"]
    values = [v for b in src.values(limit=1000) for v in b]
    got = call(
        "inspect",
        {
            "name": "chat_eval.parquet",
            "role": "eval",
            "parquet": {"paths": src.paths, "rows": 6, "row_groups": 2},
        },
        json.dumps(values),
    )
    assert main(["fields", path, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for k in (
        "format",
        "fields",
        "filter_fields",
        "default_fields",
        "default_reason",
        "rows_sampled",
    ):
        assert got[k] == cli[k], k
    assert got["format"] == "parquet" and got["rows"] == 6 and got["row_groups"] == 2
    filters = {f["path"]: f for f in got["filter_fields"]}
    assert FIELD in filters
    # the shared system prompt is constant on its own path, so never the default
    assert filters["messages[role=system].content"]["constant"] is True
    assert got["default_reason"]


@pytest.mark.parametrize("clean,kept", [("scored", [1, 3, 4]), ("not-contaminated", [1, 3, 4, 6])])
def test_values_run_equals_the_cli_parquet_run(fixtures, tmp_path, capsys, clean, kept):
    ev = os.path.join(fixtures, "chat_eval.parquet")
    tr = os.path.join(fixtures, "chat_train.parquet")
    h = call(
        "cont.start",
        {
            "eval": {"name": "chat_eval.parquet", "format": "parquet", "fields": [FIELD]},
            "train": {"name": "chat_train.parquet", "format": "jsonl", "fields": ["text"]},
            "n": 8,
            "boilerplate": True,
            "threshold": None,
            "clean": clean,
        },
    )["handle"]
    rows = 0
    for batch in rows_of(ev, ["messages"]):
        rows = call("cont.feed_eval_values", {"handle": h}, json.dumps(batch))["rows"]
    assert rows == 6
    assert call("cont.end_eval", {"handle": h})["n"] == 8
    for batch in rows_of(tr, ["text"]):
        lines = "".join(json.dumps(r) + "\n" for r in batch)
        records = call("cont.feed_train", {"handle": h}, lines)["records"]
    assert records == 4
    s = call(
        "cont.finish",
        {
            "handle": h,
            "inputs": {
                "eval": {"sha256": "0" * 64, "bytes": 1},
                "train": {"sha256": "0" * 64, "bytes": 1, "format": "parquet"},
            },
            "utc": "2026-01-01T00:00:00Z",
        },
    )
    listed = call("cont.exports", {"handle": h})
    exports = {x["name"]: x["text"] for x in listed}
    call("close", {"handle": h})

    # hand-computed: the user questions of rows 2 and 5 are quoted whole in the training
    # file; row 6's question has 4 words (too short at N = 8: kept only by not-contaminated)
    assert s["rows_contaminated"] == 2 and s["rows_too_short"] == 1
    assert s["rows_kept"] == len(kept)
    assert s["clean_file"] == "eval.clean.parquet"
    assert [i["format"] for i in s["stamp"]["inputs"]] == ["parquet", "parquet"]
    assert "eval.clean.parquet" not in exports
    assert [int(r["eval_row"]) for r in body(exports["eval.clean.rows.csv"])] == kept
    # what the worker writes eval.clean.parquet from (0-based, worker/parquet-write.js)
    assert listed[0]["kept_rows"] == [k - 1 for k in kept]
    assert listed[0]["clean_name"] == "eval.clean.parquet"
    report = body(exports["contamination-report.csv"])
    assert {
        int(r["eval_row"]): r["containment"] for r in report if r["status"] == "contaminated"
    } == {2: "1.0000", 5: "1.0000"}

    out = tmp_path / "o"
    assert (
        main(
            [
                "contamination",
                ev,
                tr,
                "--eval-field",
                FIELD,
                "--train-field",
                "text",
                "--n",
                "8",
                "--clean",
                clean,
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    disk = (out / "contamination-report.csv").read_bytes().decode("utf-8")
    assert report == body(disk)
    ids = [r["id"] for r in pq.read_table(out / "eval.clean.parquet").to_pylist()]
    assert ids == kept  # ids are the 1-based row numbers in this fixture


def test_feed_values_refuses_what_is_not_a_list():
    h = call(
        "cont.start",
        {
            "eval": {"name": "e.parquet", "format": "parquet", "fields": ["q"]},
            "train": {"name": "t.parquet", "format": "parquet", "fields": ["q"]},
        },
    )["handle"]
    bad = json.loads(bridge.call("cont.feed_eval_values", json.dumps({"handle": h}), '{"q": 1}'))
    call("close", {"handle": h})
    assert not bad["ok"] and bad["error"]["code"] == "bad_input"
    assert "JSON array" in bad["error"]["message"]
