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
    assert info["format"] == "jsonl" and info["default_fields"] == ["answer"]
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
