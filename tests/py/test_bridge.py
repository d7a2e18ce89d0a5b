import json
import os

from evalsieve import bridge
from evalsieve.cli import main


def call(op, args=None, text=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text))


def test_bridge_run_equals_cli_exports(fixtures, tmp_path, capsys):
    ev_path = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr_path = os.path.join(fixtures, "train_mix.jsonl")
    ev = open(ev_path, encoding="utf-8", newline="").read()
    tr = open(tr_path, encoding="utf-8", newline="").read()
    info = call("inspect", {"name": "gsm8k_test_sample.jsonl"}, ev)["value"]
    # the most prose words per row: question (the answers are mostly sums)
    assert info["format"] == "jsonl" and info["default_fields"] == ["question"]
    assert info["default_reason"].startswith("the most words per row")
    h = call("cont.start", {"eval": {"name": "gsm8k_test_sample.jsonl", "format": "jsonl",
                                     "fields": ["question"]},
                            "train": {"name": "train_mix.jsonl", "format": "jsonl",
                                      "fields": ["text"]},
                            "n": None, "boilerplate": True, "threshold": None})["value"]["handle"]
    assert call("cont.background", {"handle": h}, tr[:100000])["ok"]
    for i in range(0, len(ev), 4096):
        assert call("cont.feed_eval", {"handle": h}, ev[i:i + 4096])["ok"]
    e = call("cont.end_eval", {"handle": h})["value"]
    assert e["n"] == 13 and e["rows"] == 40
    for i in range(0, len(tr), 10000):
        call("cont.feed_train", {"handle": h}, tr[i:i + 10000])
    import hashlib
    inputs = {"eval": {"sha256": hashlib.sha256(ev.encode()).hexdigest(), "bytes": len(ev.encode())},
              "train": {"sha256": hashlib.sha256(tr.encode()).hexdigest(), "bytes": len(tr.encode())}}
    s = call("cont.finish", {"handle": h, "inputs": inputs, "utc": "2026-01-01T00:00:00+00:00"})["value"]
    exports = call("cont.exports", {"handle": h})["value"]
    call("close", {"handle": h})
    assert call("cont.end_eval", {"handle": h})["error"]["code"] == "bad_input"

    assert main(["contamination", ev_path, tr_path, "--eval-field", "question", "--train-field",
                 "text", "--out", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    for x in exports:
        disk = open(tmp_path / x["name"], encoding="utf-8", newline="").read()
        if x["name"].startswith("eval.clean"):
            assert x["text"] == disk
        elif x["name"].endswith(".csv"):
            # identical but for the stamp line (time, runtime and input hashes differ)
            assert x["text"].split("\r\n", 1)[1] == disk.split("\r\n", 1)[1], x["name"]
            assert len(x["text"].splitlines()) > 1
        else:
            cut = "<h2>Run stamp</h2>"
            assert x["text"].split(cut)[0] == disk.split(cut)[0]
            assert cut in disk
    assert s["rows_contaminated"] == 7


def test_bridge_errors_are_plain_objects():
    r = call("inspect", {"name": "a.jsonl"}, '{"a": 1}\n{"a": \n')
    assert r["ok"] is False or r["value"]["rows_sampled"] == 1
    r = call("cont.start", {"eval": {"name": "e", "format": "jsonl", "fields": []},
                            "train": {"name": "t", "format": "jsonl", "fields": ["x"]}})
    assert r["ok"] is False and r["error"]["code"] == "bad_input" and r["error"]["file"] == "e"
    r = call("cont.start", {})
    assert r["ok"] is False and r["error"]["code"] == "internal" and "KeyError" in r["error"]["message"]


def test_bridge_paraphrase_ops_with_binary_block():
    from array import array
    text = "".join('{"q": "row %d"}\n' % k for k in range(4))
    h = call("para.start", {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"},
                            "threshold": 0.9})["value"]["handle"]
    call("para.feed_eval", {"handle": h}, text)
    assert call("para.end_eval", {"handle": h})["value"]["texts"] == [f"row {k}" for k in range(4)]
    # rows 0-1 at 0.95, 1-2 at 0.92, 0-2 at 0.80 (a chain), row 3 alone
    I, J, C = array("i", [0, 1, 0]), array("i", [1, 2, 2]), array("f", [0.95, 0.92, 0.80])
    NN, NNI = array("f", [0.95, 0.95, 0.92, 0.3]), array("i", [1, 0, 1, 0])
    blob = b"".join(a.tobytes() for a in (I, J, C, NN, NNI))
    r = json.loads(bridge.call("para.similarity", json.dumps(
        {"handle": h, "rows": 4, "pairs": 3, "truncated": 1, "embeddings": False}), None, blob))
    f = r["value"]
    assert f["groups"] == 1 and f["groups_chained"] == 1 and f["effective_rows"] == 2
    assert f["view"]["groups"][0]["lowest"] == "0.800" and f["rows_truncated"] == 1
    assert f["closest_pair"] == {"row_a": 1, "row_b": 2, "cosine": 0.95}   # float32, rounded to 6 places
    f = call("para.group", {"handle": h, "threshold": 0.93})["value"]
    assert f["groups"] == 1 and f["groups_chained"] == 0 and f["rows_in_groups"] == 2
    out = call("para.finish", {"handle": h, "input": {"name": "e.jsonl", "sha256": "0" * 64,
                                                      "bytes": len(text)}, "utc": "t"})["value"]
    assert [x["name"] for x in out["exports"]] == ["paraphrase-pairs.csv", "paraphrase-groups.csv"]
    assert out["stamp"]["settings"]["threshold"] == 0.93
    bad = json.loads(bridge.call("para.similarity", json.dumps(
        {"handle": h, "rows": 4, "pairs": 3}), None, blob[:-4]))
    assert bad["ok"] is False and "expected" in bad["error"]["message"]
