"""Scores from plain JSON (what a page bridge op will pass): score_run_from_json plus
ContaminationJob.set_scores give the same score_impact, stamp and exports as the CLI."""

import hashlib
import json
import os

import pytest

from evalsieve.cli import main
from evalsieve.contamination import ContaminationConfig, ContaminationJob
from evalsieve.errors import EvalsieveError
from evalsieve.scores import score_run_from_json
from evalsieve.stamps import InputFile


def test_json_scores_on_the_job_equal_the_cli(fixtures, tmp_path, capsys):
    paths = [os.path.join(fixtures, n) for n in ("gsm8k_test_sample.jsonl", "train_mix.jsonl",
                                                 "samples_gsm8k_sample.jsonl")]
    ev, tr, sc = (open(p, encoding="utf-8", newline="").read() for p in paths)
    info = {"name": "samples_gsm8k_sample.jsonl", "format": "jsonl",
            "sha256": hashlib.sha256(sc.encode()).hexdigest(), "bytes": len(sc.encode())}
    with pytest.raises(EvalsieveError) as e:          # two filters, no choice
        score_run_from_json(info, sc)
    assert e.value.line == 41
    run = score_run_from_json({**info, "filter": "strict-match"}, sc)
    assert (run.table.source, len(run.table.keys), run.table.rows_other_filter) == \
        ("lm-evaluation-harness samples", 40, 40)
    job = ContaminationJob(ContaminationConfig(("question",), ("text",)),
                           "gsm8k_test_sample.jsonl", "jsonl", "train_mix.jsonl", "jsonl")
    job.set_scores(run)
    job.feed_eval(ev)
    job.end_eval()
    job.feed_train(tr)
    files = [InputFile(role, os.path.basename(p), hashlib.sha256(t.encode()).hexdigest(),
                       len(t.encode()), "jsonl")
             for role, p, t in (("eval", paths[0], ev), ("train", paths[1], tr))]
    s = job.finish(*files, "2026-01-01T00:00:00+00:00", runtime="x")
    assert main(["contamination", paths[0], paths[1], "--eval-field", "question",
                 "--train-field", "text", "--out", str(tmp_path), "--quiet", "--json",
                 "--scores", paths[2], "--score-filter", "strict-match"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert s["score_impact"] == cli["score_impact"]
    assert s["stamp"]["inputs"][2] == cli["stamp"]["inputs"][2]
    assert s["stamp"]["settings"] == cli["stamp"]["settings"]
    assert job.export_names()[-2:] == ["score-impact.csv", "scores-unmatched.csv"]
    with open(tmp_path / "score-impact.csv", encoding="utf-8", newline="") as f:
        assert job.export("score-impact.csv")[1].split("\n", 1)[1] == f.read().split("\n", 1)[1]


def test_paraphrase_scores_before_the_eval_pass_only():
    from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob
    job = ParaphraseJob(ParaphraseConfig("q"), "e.jsonl", "jsonl")
    job.feed_eval('{"q": "a"}\n')
    run = score_run_from_json({"name": "s.csv", "format": "csv", "key": "q"}, "q,acc\na,1\n")
    with pytest.raises(EvalsieveError) as e:
        job.set_scores(run)
    assert "before the eval pass" in str(e.value)
