"""The page's corpus of several training files (bridge cont.train_file,
ContaminationJob.begin_train_file) gives the CLI's exports on the same files: JSONL, gzip
JSONL and CSV with another field name, records numbered in their own file."""

import csv
import gzip
import io
import json
import os

import pytest

from evalsieve import bridge
from evalsieve.cli import main
from hostile_common import read_stamped, without_fingerprint


def call(op, args=None, text=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text))


def shards(fixtures, root):
    """(path, name, format, fields, text) of three shards built from train_mix.jsonl."""
    lines = (
        open(os.path.join(fixtures, "train_mix.jsonl"), encoding="utf-8")
        .read()
        .splitlines(keepends=True)
    )
    os.makedirs(root / "c" / "sub")
    a, b = "".join(lines[:40]), "".join(lines[40:80])
    (root / "c" / "a.jsonl").write_text(a, encoding="utf-8")
    with gzip.open(root / "c" / "b.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(b)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["content"])
    for line in lines[80:]:
        w.writerow([json.loads(line)["text"]])
    (root / "c" / "sub" / "c.csv").write_text(buf.getvalue(), encoding="utf-8")
    return [
        (root / "c" / "a.jsonl", "c/a.jsonl", "jsonl", ["text"], a),
        (root / "c" / "b.jsonl.gz", "c/b.jsonl.gz", "jsonl", ["text"], b),
        (root / "c" / "sub" / "c.csv", "c/sub/c.csv", "csv", ["content"], buf.getvalue()),
    ]


def start(fixtures, first):
    ev = open(os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8").read()
    h = call(
        "cont.start",
        {
            "eval": {"name": "gsm8k_test_sample.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": first[1], "format": first[2], "fields": first[3]},
            "n": None,
            "boilerplate": True,
            "threshold": None,
        },
    )["value"]["handle"]
    call("cont.feed_eval", {"handle": h}, ev)
    call("cont.end_eval", {"handle": h})
    return h


def test_corpus_through_the_bridge_equals_the_cli(fixtures, tmp_path, capsys):
    files = shards(fixtures, tmp_path)
    h = start(fixtures, files[0])
    before = []
    for i, (_, name, fmt, fields, text) in enumerate(files):
        r = call(
            "cont.train_file",
            {"handle": h, "file": i, "name": name, "format": fmt, "fields": fields},
        )
        before.append(r["value"]["records"])
        for k in range(0, len(text), 7000):  # chunks cut records: the reader joins them
            call("cont.feed_train", {"handle": h}, text[k : k + 7000])
    assert before == [0, 40, 80]
    inputs = {
        "eval": {"bytes": 1},
        "train": [{"name": n, "format": f, "bytes": len(t)} for _, n, f, _, t in files],
    }
    s = call("cont.finish", {"handle": h, "inputs": inputs, "utc": "2026-01-01T00:00:00Z"})["value"]
    assert s["training_records"] == 127
    exports = {x["name"]: x["text"] for x in call("cont.exports", {"handle": h})["value"]}
    call("close", {"handle": h})

    out = tmp_path / "cli"
    assert (
        main(
            [
                "contamination",
                os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
                str(tmp_path / "c"),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--train-field",
                "content",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    disk = open(out / "contamination-report.csv", encoding="utf-8", newline="").read()
    page = exports["contamination-report.csv"]
    assert without_fingerprint(page) == without_fingerprint(disk)
    stamp, rows = read_stamped(page, exports["run-stamp.json"])
    hits = {(r["training_file"], r["training_record"]) for r in rows if r["training_file"]}
    # (file, record in that file): hand-checked against the shards (CSV record 36 = line 117)
    assert ("c/sub/c.csv", "36") in hits and ("c/a.jsonl", "22") in hits
    assert ("c/b.jsonl.gz", "21") in hits
    assert [i["name"] for i in stamp["inputs"] if i["role"] == "train"] == [f[1] for f in files]


def test_train_file_out_of_order_is_refused(fixtures, tmp_path):
    files = shards(fixtures, tmp_path)
    h = start(fixtures, files[0])
    call("cont.feed_train", {"handle": h}, files[0][4])
    r = call(
        "cont.train_file",
        {"handle": h, "file": 0, "name": "c/a.jsonl", "format": "jsonl", "fields": ["text"]},
    )
    assert r["error"]["code"] == "bad_input" and "out of order" in r["error"]["message"]
    r = call(
        "cont.train_file",
        {"handle": h, "file": 2, "name": "x", "format": "jsonl", "fields": ["text"]},
    )
    assert "out of order" in r["error"]["message"]
    with pytest.raises(RuntimeError, match="train_file|order|file"):
        raise_if_error(
            call(
                "cont.train_file",
                {"handle": h, "file": 1, "name": "y", "format": "jsonl", "fields": []},
            )
        )
    call("close", {"handle": h})


def raise_if_error(reply):
    if "error" in reply:
        raise RuntimeError(reply["error"]["message"])
    return reply
