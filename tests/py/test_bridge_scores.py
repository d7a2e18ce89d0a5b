"""The bridge's scores ops (cont.scores, para.scores): the same score_impact and exports as
the CLI, from plain JSON and the scores file's text."""

import hashlib
import json
import os

from evalsieve import bridge
from evalsieve.cli import main


def call(op, args=None, text=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text))


def test_cont_scores_equals_cli(fixtures, tmp_path, capsys):
    paths = [os.path.join(fixtures, n) for n in ("gsm8k_test_sample.jsonl", "train_mix.jsonl",
                                                 "samples_gsm8k_sample.jsonl")]
    ev, tr, sc = (open(p, encoding="utf-8", newline="").read() for p in paths)
    h = call("cont.start", {"eval": {"name": "gsm8k_test_sample.jsonl", "format": "jsonl",
                                     "fields": ["question"]},
                            "train": {"name": "train_mix.jsonl", "format": "jsonl",
                                      "fields": ["text"]}})["value"]["handle"]
    info = {"name": "samples_gsm8k_sample.jsonl", "format": "jsonl",
            "sha256": hashlib.sha256(sc.encode()).hexdigest(), "bytes": len(sc.encode())}
    err = call("cont.scores", {"handle": h, **info}, sc)
    assert not err["ok"] and err["error"]["line"] == 41          # two filters, no choice
    got = call("cont.scores", {"handle": h, **info, "filter": "strict-match"}, sc)["value"]
    assert got == {"source": "lm-evaluation-harness samples", "rows": 40,
                   "metrics": ["exact_match"], "filter": "strict-match",
                   "filters_seen": ["strict-match", "flexible-extract"], "rows_other_filter": 40}
    call("cont.feed_eval", {"handle": h}, ev)
    call("cont.end_eval", {"handle": h})
    call("cont.feed_train", {"handle": h}, tr)
    inputs = {k: {"sha256": hashlib.sha256(t.encode()).hexdigest(), "bytes": len(t.encode())}
              for k, t in (("eval", ev), ("train", tr))}
    s = call("cont.finish", {"handle": h, "inputs": inputs, "utc": "x"})["value"]
    exports = {e["name"]: e["text"] for e in call("cont.exports", {"handle": h})["value"]}
    call("close", {"handle": h})
    assert main(["contamination", paths[0], paths[1], "--eval-field", "question",
                 "--train-field", "text", "--out", str(tmp_path), "--quiet", "--json",
                 "--scores", paths[2], "--score-filter", "strict-match"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert s["score_impact"] == cli["score_impact"]
    assert s["stamp"]["fingerprint"] == cli["stamp"]["fingerprint"]
    with open(tmp_path / "score-impact.csv", encoding="utf-8", newline="") as f:
        assert exports["score-impact.csv"].split("\n", 1)[1] == f.read().split("\n", 1)[1]


def test_para_scores_before_the_eval_pass_only():
    h = call("para.start", {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"}})
    h = h["value"]["handle"]
    call("para.feed_eval", {"handle": h}, '{"q": "a"}\n')
    r = call("para.scores", {"handle": h, "name": "s.csv", "format": "csv", "key": "q"},
             "q,acc\na,1\n")
    assert not r["ok"] and "before the eval pass" in r["error"]["message"]
    call("close", {"handle": h})
