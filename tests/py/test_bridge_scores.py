"""Scores from plain JSON (what a page bridge op will pass): score_run_from_json plus
ContaminationJob.set_scores give the same score_impact, stamp and exports as the CLI."""

import hashlib
import json
import os

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.cli import main
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.errors import EvalsieveError
from evalsieve.scores import score_run_from_json
from evalsieve.stamps import InputFile
from hostile_common import without_fingerprint


def test_json_scores_on_the_job_equal_the_cli(fixtures, tmp_path, capsys):
    paths = [
        os.path.join(fixtures, n)
        for n in ("gsm8k_test_sample.jsonl", "train_mix.jsonl", "samples_gsm8k_sample.jsonl")
    ]
    ev, tr, sc = (open(p, encoding="utf-8", newline="").read() for p in paths)
    info = {
        "name": "samples_gsm8k_sample.jsonl",
        "format": "jsonl",
        "sha256": hashlib.sha256(sc.encode()).hexdigest(),
        "bytes": len(sc.encode()),
    }
    with pytest.raises(EvalsieveError) as e:  # two filters, no choice
        score_run_from_json(info, sc)
    assert e.value.line == 41
    run = score_run_from_json({**info, "filter": "strict-match"}, sc)
    assert (run.table.source, len(run.table.keys), run.table.rows_other_filter) == (
        "lm-evaluation-harness samples",
        40,
        40,
    )
    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",)),
        "gsm8k_test_sample.jsonl",
        "jsonl",
        "train_mix.jsonl",
        "jsonl",
    )
    job.set_scores(run)
    job.feed_eval(ev)
    job.end_eval()
    job.feed_train(tr)
    files = [
        InputFile(
            role,
            os.path.basename(p),
            hashlib.sha256(t.encode()).hexdigest(),
            len(t.encode()),
            "jsonl",
        )
        for role, p, t in (("eval", paths[0], ev), ("train", paths[1], tr))
    ]
    s = job.finish(*files, "2026-01-01T00:00:00+00:00", runtime="x").summary
    assert (
        main(
            [
                "contamination",
                paths[0],
                paths[1],
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(tmp_path),
                "--quiet",
                "--json",
                "--scores",
                paths[2],
                "--score-filter",
                "strict-match",
            ]
        )
        == 0
    )
    cli = json.loads(capsys.readouterr().out)
    assert s["score_impact"] == cli["score_impact"]
    assert s["stamp"]["inputs"][2] == cli["stamp"]["inputs"][2]
    assert s["stamp"]["settings"] == cli["stamp"]["settings"]
    assert cx.export_names(job.result)[-3:] == [
        "score-impact.csv",
        "scores-unmatched.csv",
        "run-stamp.json",
    ]
    with open(tmp_path / "score-impact.csv", encoding="utf-8", newline="") as f:
        assert without_fingerprint(
            cx.export(job.result, "score-impact.csv")[1]
        ) == without_fingerprint(f.read())


def test_paraphrase_scores_before_the_eval_pass_only():
    from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob

    job = ParaphraseJob(ParaphraseConfig("q"), "e.jsonl", "jsonl")
    job.feed_eval('{"q": "a"}\n')
    run = score_run_from_json({"name": "s.csv", "format": "csv", "key": "q"}, "q,acc\na,1\n")
    with pytest.raises(EvalsieveError) as e:
        job.set_scores(run)
    assert "before the eval pass" in str(e.value)


# -- the page's bridge ops: cont.scores / para.scores (worker/jobs/scores.js) ---------------
def _call(op, args, text=None, data=None):
    from evalsieve import bridge

    return json.loads(bridge.call(op, json.dumps(args), text, data))


def test_cont_scores_op_gives_the_view_every_metric(fixtures):
    """cont.scores (before the eval pass) then the usual ops: cont.view holds the figures and
    the settings the page prints; the summary's score_impact equals the figures'."""
    ev, tr, sc = (
        open(os.path.join(fixtures, n), encoding="utf-8", newline="").read()
        for n in ("gsm8k_test_sample.jsonl", "train_mix.jsonl", "samples_gsm8k_sample.jsonl")
    )
    h = _call(
        "cont.start",
        {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": "t.jsonl", "format": "jsonl", "fields": ["text"]},
        },
    )["value"]["handle"]
    info = {
        "handle": h,
        "name": "samples_gsm8k_sample.jsonl",
        "format": "jsonl",
        "sha256": "ab" * 32,
        "bytes": len(sc.encode()),
    }
    bad = _call("cont.scores", info, sc)  # two filters, no choice
    assert bad["ok"] is False
    assert (bad["error"]["code"], bad["error"]["file"], bad["error"]["line"]) == (
        "bad_input",
        "samples_gsm8k_sample.jsonl",
        41,
    )
    v = _call("cont.scores", {**info, "filter": "strict-match"}, sc)["value"]
    assert (v["rows_read"], v["rows_other_filter"], v["filters_seen"], v["score_filter"]) == (
        40,
        40,
        ["strict-match", "flexible-extract"],
        "strict-match",
    )
    assert v["file"] == {
        "name": "samples_gsm8k_sample.jsonl",
        "sha256": "ab" * 32,
        "bytes": len(sc.encode()),
        "format": "jsonl",
    }
    assert v["exports"] == ["score-impact.csv", "scores-unmatched.csv"]
    _call("cont.feed_eval", {"handle": h}, ev)
    _call("cont.end_eval", {"handle": h})
    _call("cont.feed_train", {"handle": h}, tr)
    s = _call("cont.finish", {"handle": h, "utc": "t"})["value"]
    view = _call("cont.view", {"handle": h})["value"]
    (f,) = view["score_figures"]
    # 40 rows, 1 right (0.025); 7 contaminated with 1 right, 33 clean with 0 (hand count of
    # the fixture: strict-match exact_match is 1 on doc_id 4 only, test row 5, which
    # train_mix.jsonl quotes inside a WikiText paragraph)
    assert (f["all"]["n"], f["clean"]["n"], f["contaminated"]["n"]) == (40, 33, 7)
    assert (f["all"]["mean"], f["clean"]["mean"], f["contaminated"]["mean"]) == (0.025, 0.0, 1 / 7)
    assert f["all"]["method"] == "wilson"
    assert s["score_impact"]["all"]["ci95"] == f["all"]["ci95"]
    assert (view["score_settings"]["rows_unmatched"], view["score_settings"]["rows_unscored"]) == (
        0,
        0,
    )
    assert [e["name"] for e in _call("cont.exports", {"handle": h})["value"]][-3:] == [
        "score-impact.csv",
        "scores-unmatched.csv",
        "run-stamp.json",
    ]


def test_para_scores_op_and_the_figures_at_each_threshold():
    """Four rows, one table of scores keyed by id; rows 1-2 at cosine 0.95, 2-3 at 0.92
    (the chain 1-2-3 at 0.9, the pair 1-2 at 0.93), row 4 alone. Scores 1, 1, 0, 0:
    naive SE = sd/√n = √(1/3)/2; at 0.93 the clusters are {1,2}, {3}, {4} with residual sums
    1, −0.5, −0.5, so SE_CR1² = 3/2 · 1.5 / 16 and the design effect = (9/64) / (1/12) = 27/16."""
    from array import array

    text = "".join(json.dumps({"id": f"r{k}", "q": f"row {k}"}) + "\n" for k in range(4))
    h = _call(
        "para.start",
        {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"}, "threshold": 0.9},
    )["value"]["handle"]
    table = "id,acc\nr0,1\nr1,1\nr2,0\nr3,0\n"
    v = _call("para.scores", {"handle": h, "name": "s.csv", "format": "csv", "key": "id"}, table)
    assert v["ok"] and v["value"]["score_join"] == "key" and v["value"]["score_eval_key"] == "id"
    _call("para.feed_eval", {"handle": h}, text)
    _call("para.end_eval", {"handle": h})
    late = _call("para.scores", {"handle": h, "name": "s.csv", "format": "csv", "key": "id"}, table)
    assert late["ok"] is False and "before the eval pass" in late["error"]["message"]
    I, J, C = array("i", [0, 1, 0]), array("i", [1, 2, 2]), array("f", [0.95, 0.92, 0.80])
    NN, NNI = array("f", [0.95, 0.95, 0.92, 0.3]), array("i", [1, 0, 1, 0])
    blob = b"".join(a.tobytes() for a in (I, J, C, NN, NNI))
    f = _call(
        "para.similarity",
        {"handle": h, "rows": 4, "pairs": 3, "embeddings": False, "threshold": 0.93},
        None,
        blob,
    )["value"]
    (s,) = f["score_figures"]
    c = s["clustered"]
    assert c["n"] == 4 and c["clusters"] == 3 and c["mean"] == 0.5
    assert c["se_naive"] == pytest.approx((1 / 3) ** 0.5 / 2)
    assert c["se_clustered"] == pytest.approx((1.5 * 1.5 / 16) ** 0.5)
    assert c["design_effect"] == pytest.approx(27 / 16)
    assert c["effective_n"] == pytest.approx(4 * 16 / 27)
    assert f["score_settings"]["rows_unscored"] == 0
    # the slider: at 0.9 rows 1-3 are one cluster (sums 1.0 − 0.5 = 0.5 and −0.5)
    g = _call("para.group", {"handle": h, "threshold": 0.9})["value"]["score_figures"][0]
    assert g["clustered"]["clusters"] == 2
    assert g["clustered"]["se_clustered"] == pytest.approx((2 * (0.25 + 0.25) / 16) ** 0.5)
