"""The jobs' results are frozen and self-contained: every export, the page's view and table
are functions of the result alone (the job's state wiped after finish changes nothing)."""

import dataclasses

import pytest

import evalsieve.contamination_exports as cx
import evalsieve.para_exports as px
from evalsieve.cont_table import contamination_source
from evalsieve.contamination_html import report_html
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.ladder import ladder_view
from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob
from evalsieve.result_table import query_rows
from evalsieve.results import ContaminationResult, ParaphraseResult
from evalsieve.stamps import InputFile

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
EVAL = (
    "".join('{"q": "%s"}\n' % " ".join(WORDS[k:] + WORDS[:k]) for k in range(4)) + '{"q": "hi"}\n'
)
TRAIN = '{"t": "%s"}\n{"t": "hi"}\n' % " ".join(WORDS)


def contamination():
    job = ContaminationJob(
        ContaminationConfig(("q",), ("t",), n=8), "e.jsonl", "jsonl", "t.jsonl", "jsonl"
    )
    job.feed_eval(EVAL)
    job.end_eval()
    job.feed_train(TRAIN)
    res = job.finish(
        InputFile("eval", "e.jsonl", "0" * 64, len(EVAL)),
        InputFile("train", "t.jsonl", "1" * 64, len(TRAIN)),
        "t",
    )
    return job, res


def everything(res):
    return (
        {n: cx.export(res, n) for n in cx.export_names(res)},
        report_html(res),
        cx.view(res),
        ladder_view(res),
        query_rows(contamination_source(res), {}),
    )


def test_contamination_result_alone_gives_every_export():
    job, res = contamination()
    assert isinstance(res, ContaminationResult) and job.result is res
    # row 1 is the training record's words (exact and n-gram), rows 2-4 share n-grams with
    # it, row 5 ("hi") is too short for n-grams and an exact copy of training record 2
    assert list(res.rungs) == ["exact", "ngram", "ngram", "ngram", "exact"]
    assert res.summary["rows_contaminated"] == 5 and res.kept == ()
    before = everything(res)
    job.__dict__.clear()  # nothing after finish reads the job
    fresh = dataclasses.replace(res)  # and nothing hides in the result's cache
    assert everything(fresh) == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.scores = ()
    with pytest.raises(TypeError):
        res.exact[0] = (0, 1)


def test_paraphrase_result_alone_gives_every_export():
    text = "".join('{"q": "row %d"}\n' % k for k in range(4))
    job = ParaphraseJob(ParaphraseConfig("q", None, 0.9), "e.jsonl", "jsonl")
    job.feed_eval(text)
    job.end_eval()
    job.set_similarity([(0, 1, 0.95), (2, 3, 0.5)], [0.95, 0.95, 0.5, 0.5], [1, 0, 3, 2], 0)
    res = job.finish(0.9, InputFile("eval", "e.jsonl", "0" * 64, len(text)), "t")
    assert isinstance(res, ParaphraseResult)
    assert res.summary["groups"] == 1 and list(res.kept) == [0, 2, 3]
    before = {n: px.export(res, n) for n in px.export_names(res)}
    assert (
        before["eval.deduplicated.jsonl"][1] == '{"q": "row 0"}\n{"q": "row 2"}\n{"q": "row 3"}\n'
    )
    job.__dict__.clear()
    assert {n: px.export(res, n) for n in px.export_names(res)} == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.kept = ()
