"""eval.deduplicated.*: one row per paraphrase group, as the input's own bytes (the mechanism of
eval.clean.*), the row kept by the stamped rule (first or longest), the rows left out listed
with their group; its rows = effective rows (+ rows with an empty field, which are in no
group). Hand-built inputs and similarities; the expected files written out by hand."""

import csv
import io
import json

import pytest
from hostile_common import read_csv_export

import evalsieve.para_exports as px
from evalsieve import constants
from evalsieve.bridge import call as _call
from evalsieve.errors import EvalsieveError
from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob
from evalsieve.stamps import InputFile

# rows 1-3 one group (every pair >= 0.9), rows 4-5 another, row 6 alone, row 7 empty text
LINES = [
    '{"id": "a", "q": "How do I reset my password?"}\r\n',
    '{"id": "b", "q": "I forgot my password, how do I reset it?"}\r\n',
    '{"id": "c", "q": "Password reset: I forgot mine, how do I reset it – café?"}\r\n',
    '{"id": "d", "q": "What is the capital of France?"}\n',
    '{"id": "e", "q": "Which city is the capital of France?"}\n',
    '{"id": "f", "q": "Name a mammal that can fly."}\n',
    '{"id": "g", "q": ""}\n',
]
CANDS = [(0, 1, 0.95), (1, 2, 0.93), (0, 2, 0.91), (3, 4, 0.97)]  # node ids (row - 1)


def job_of(text, fmt="jsonl", field="q", cands=CANDS, nodes=6):
    job = ParaphraseJob(
        ParaphraseConfig(field, "id" if fmt == "jsonl" else None, 0.9), f"e.{fmt}", fmt
    )
    job.feed_eval(text[:50])
    job.feed_eval(text[50:])
    job.end_eval()
    job.set_similarity(cands, [0.9] * nodes, [0] * nodes, 0)
    return job


def exports(job, keep="first"):
    stamp = job.stamp(0.9, InputFile("eval", job.eval_name, "", 0), "t", keep=keep)
    res = job.result(stamp)
    return stamp, {n: px.export(res, n)[1] for n in px.export_names(res)}


def rows_of(text):
    return read_csv_export(text)[1]


def test_first_row_of_each_group_kept_as_the_inputs_bytes():
    text = "".join(LINES)
    job = job_of(text)
    stamp, out = exports(job)
    assert stamp.settings["dedup_keep"] == constants.DEDUP_KEEP_RULES["first"]
    dedup = out["eval.deduplicated.jsonl"]
    assert dedup == LINES[0] + LINES[3] + LINES[5] + LINES[6]  # rows 1, 4, 6 and the empty 7
    assert dedup.encode("utf-8") == b"".join(LINES[i].encode("utf-8") for i in (0, 3, 5, 6))
    f = job.group(0.9)
    assert f["effective_rows"] == 3 and f["rows_empty"] == 1
    assert len(dedup.splitlines()) == f["effective_rows"] + f["rows_empty"]
    dropped = rows_of(out["paraphrase-dropped.csv"])
    assert [
        (r["eval_row"], r["group"], r["kept_row"], r["label"], r["kept_label"]) for r in dropped
    ] == [("2", "1", "1", "b", "a"), ("3", "1", "1", "c", "a"), ("5", "2", "4", "e", "d")]


def test_longest_row_kept_and_stamped():
    job = job_of("".join(LINES))
    stamp, out = exports(job, keep="longest")
    assert stamp.settings["dedup_keep"] == constants.DEDUP_KEEP_RULES["longest"]
    # group 1: row 3 is the longest text; group 2: row 5 (36 characters against 30)
    assert out["eval.deduplicated.jsonl"] == LINES[2] + LINES[4] + LINES[5] + LINES[6]
    assert [r["eval_row"] for r in rows_of(out["paraphrase-dropped.csv"])] == ["1", "2", "4"]
    with pytest.raises(Exception) as e:
        job.stamp(0.9, InputFile("eval", "e", "", 0), "t", keep="shortest")
    assert e.value.code == "bad_input"


def test_csv_keeps_its_header_and_a_quoted_newline_and_counts_effective_rows():
    text = (
        'q,n\r\n"How do I reset my password?",1\r\n"I forgot my password,\nhow do I reset it?",2\r\n'
        '"What is the capital of France?",3\r\n"Name a mammal that can fly.",4\r\n'
    )
    job = job_of(text, fmt="csv", cands=[(0, 1, 0.95)], nodes=4)
    _, out = exports(job)
    assert out["eval.deduplicated.csv"] == (
        'q,n\r\n"How do I reset my password?",1\r\n'
        '"What is the capital of France?",3\r\n"Name a mammal that can fly.",4\r\n'
    )
    records = list(csv.reader(io.StringIO(out["eval.deduplicated.csv"])))
    assert len(records) - 1 == job.group(0.9)["effective_rows"] == 3  # no empty row: equal


def test_bridge_keep_setting_and_parquet_rows_for_the_worker():
    text = "".join(LINES[:6])
    h = json.loads(
        _call(
            "para.start",
            json.dumps(
                {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"}, "threshold": 0.9}
            ),
        )
    )["value"]["handle"]
    _call("para.feed_eval", json.dumps({"handle": h}), text)
    _call("para.end_eval", json.dumps({"handle": h}))
    from evalsieve.bridge import _jobs

    _jobs[h].set_similarity(CANDS, [0.9] * 6, [0] * 6, 0)
    r = json.loads(
        _call("para.finish", json.dumps({"handle": h, "threshold": 0.9, "keep": "longest"}))
    )["value"]
    by = {x["name"]: x for x in r["exports"]}
    assert by["eval.deduplicated.jsonl"]["text"] == LINES[2] + LINES[4] + LINES[5]
    assert r["stamp"]["settings"]["dedup_keep"].startswith("the longest row")
    # a Parquet eval file: the kept rows' positions go to the worker, which writes the file
    pq = ParaphraseJob(ParaphraseConfig("q", None, 0.9), "e.parquet", "parquet")
    pq.feed_eval_values([json.loads(x) for x in LINES[:6]])
    pq.end_eval()
    pq.set_similarity(CANDS, [0.9] * 6, [0] * 6, 0)
    stamp = pq.stamp(0.9, InputFile("eval", "e.parquet", "", 0), "t")
    res = pq.result(stamp)
    assert list(res.kept) == [0, 3, 5]
    assert res.dedup_name == "eval.deduplicated.parquet"
    with pytest.raises(EvalsieveError):
        px.export(res, "eval.deduplicated.parquet")


def test_several_fields_are_embedded_together_joined_as_contamination_joins_them():
    from evalsieve import cli

    rows = [
        {"question": "Which of the following is true?", "choice0": "Paris", "choice1": "Rome"},
        {"question": "Which of the following is false?", "choice0": "Paris", "choice1": ""},
    ]
    job = ParaphraseJob(
        ParaphraseConfig(("question", "choice0", "choice1"), None, 0.9), "m.jsonl", "jsonl"
    )
    job.feed_eval("".join(json.dumps(r) + "\n" for r in rows))
    assert job.end_eval()["texts"] == [
        "Which of the following is true?\nParis\nRome",
        "Which of the following is false?\nParis",
    ]  # an empty value adds nothing
    stamp = job.stamp(0.9, InputFile("eval", "m.jsonl", "", 0), "t")
    assert stamp.settings["field"] == ["question", "choice0", "choice1"]
    one = ParaphraseJob(ParaphraseConfig("question", None, 0.9), "m.jsonl", "jsonl")
    assert (
        one.stamp(0.9, InputFile("eval", "m.jsonl", "", 0), "t").settings["field"] == "question"
    )  # as before
    args = cli.build_parser().parse_args(
        [
            "paraphrases",
            "m.jsonl",
            "--out",
            "o",
            "--field",
            "question",
            "--field",
            "choice0",
            "--dedup-keep",
            "longest",
        ]
    )
    assert args.field == ["question", "choice0"] and args.dedup_keep == "longest"
    with pytest.raises(Exception) as e:
        ParaphraseConfig(("question", ""))
    assert e.value.code == "bad_input"


def test_a_label_that_is_an_object_or_a_list_names_its_row_as_json():
    # --label-field is "a field naming each row (an id)": an object or list id is its JSON
    # text (as training_id gives it), not an empty label
    text = (
        '{"id": ["x", 1], "q": "How do I reset my password?"}\n'
        '{"id": {"k": 2}, "q": "I forgot my password, how do I reset it?"}\n'
        '{"id": null, "q": "Name a mammal that can fly."}\n'
    )
    job = job_of(text, cands=[(0, 1, 0.95)], nodes=3)
    _, out = exports(job)
    dropped = rows_of(out["paraphrase-dropped.csv"])
    assert [(r["eval_row"], r["label"], r["kept_label"]) for r in dropped] == [
        ("2", '{"k": 2}', '["x", 1]')
    ]
    [g] = rows_of(out["paraphrase-groups.csv"])
    assert g["member_labels"] == '["x", 1] | {"k": 2}'
