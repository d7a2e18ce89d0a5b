"""The semantic rung and the ladder through the page's bridge ops (cont.start's semantic and
exclude_rungs, cont.semantic_request, cont.semantic_cosines, cont.view's ladder), against the
same job driven directly (tests/py/test_semantic.py's ladder_job)."""

import json
import re
import struct

import evalsieve.contamination_exports as cx
from evalsieve import bridge
from evalsieve.ladder import QUALITY_NOTE
from evalsieve.semantic_verifier import (
    VERIFIER_CODE_THRESHOLD,
    VERIFIER_THRESHOLD,
    VERIFIER_WEIGHTS,
)
from hostile_common import without_fingerprint

from test_semantic import EVAL_ROWS, TRAIN, _jsonl, ladder_job


def call(op, args=None, text=None, data=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text, data))


def start(semantic=None, exclude=None):
    return call(
        "cont.start",
        {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["q"]},
            "train": {"name": "t.jsonl", "format": "jsonl", "fields": ["t"]},
            "n": 8,
            "semantic": semantic,
            "exclude_rungs": exclude,
        },
    )


def run(exclude=None, cosine=0.95):
    """The ladder_job run through the bridge; the worker's cosines: `cosine` for the reworded
    row's pairs, 0.1 for the others (as ladder_job gives them)."""
    h = start({"window_words": 16}, exclude)["value"]["handle"]
    call("cont.feed_eval", {"handle": h}, _jsonl("q", EVAL_ROWS))
    call("cont.end_eval", {"handle": h})
    assert call("cont.prefilter_spec", {"handle": h})["value"] is None  # every record is read
    call("cont.feed_train", {"handle": h}, _jsonl("t", TRAIN))
    req = call("cont.semantic_request", {"handle": h})["value"]
    assert len(req["eval_texts"]) == len(EVAL_ROWS)
    assert req["figures"]["window_words"] == 16
    assert req["figures"]["windows_embedded"] == len(req["window_texts"])
    cos = [cosine if req["eval_texts"][i].startswith("Janet") else 0.1 for i, _ in req["pairs"]]
    block = struct.pack(f"<{len(cos)}f", *cos)
    bad = call("cont.semantic_cosines", {"handle": h, "pairs": len(cos) + 1}, None, block)
    assert bad["error"]["code"] == "internal" and "expected" in bad["error"]["message"]
    got = call("cont.semantic_cosines", {"handle": h, "pairs": len(cos)}, None, block)["value"]
    assert got == {"pairs": len(cos), "rows_caught": 1 if cosine > 0.5 else 0}
    inputs = {"eval": {"name": "e"}, "train": {"name": "t"}}  # as ladder_job names them
    page = {  # what worker/jobs/semantic.js hands cont.finish after a WebGPU run
        "assets": {
            "encoder": "all-MiniLM-L6-v2 fp32 (encoder-fp32.onnx)",
            "encoder_provider": "webgpu",
        },
        "environment": {"execution_provider": "webgpu", "provider_reason": "all 16 agree"},
    }
    s = call(
        "cont.finish",
        {"handle": h, "inputs": inputs, "utc": "2026-01-01T00:00:00+00:00", **page},
    )
    view = call("cont.view", {"handle": h})["value"]
    exports = {x["name"]: x["text"] for x in call("cont.exports", {"handle": h})["value"]}
    call("close", {"handle": h})
    return s["value"], view, exports


def test_bridge_ladder_equals_the_job_driven_directly():
    s, view, exports = run()
    job, direct = ladder_job()
    assert (
        s["rows_contaminated_by_rung"]
        == direct["rows_contaminated_by_rung"]
        == {"exact": 2, "ngram": 1, "semantic": 1}
    )  # row 5 "hi" is a one-word exact copy
    # the fingerprint differs (runtime)
    assert without_fingerprint(exports["contamination-report.csv"]) == without_fingerprint(
        cx.report_csv(job.result)
    )
    assert exports["eval.clean.jsonl"] == cx.clean_text(job.result) == _jsonl("q", EVAL_ROWS[3:4])
    lad = view["ladder"]
    assert lad["rungs"] == ["exact", "ngram", "semantic"]
    assert lad["excluded"] == ["exact", "ngram", "semantic"]
    assert lad["by_rung"] == {"exact": 2, "ngram": 1, "semantic": 1}
    assert lad["clean_at_these_rungs"] == 1 and lad["rows_total"] == 4
    assert [(r["eval_row"], r["rung"], r["leaves_clean"]) for r in lad["rows"]] == [
        (1, "exact", True),
        (2, "ngram", True),
        (3, "semantic", True),
        (5, "exact", True),
    ]
    exact, ngram, sem, short = lad["rows"]
    assert short["training_record"] == 4 and short["containment_text"] == ""
    assert exact["training_record"] == 1 and ngram["training_record"] == 2
    m = job.semantic.matches[2]
    assert sem["semantic_training_record"] == 3 == m.training_record
    assert sem["semantic_score"] == f"{m.score:.4f}" and float(sem["semantic_cosine"]) == 0.95
    assert "Janet owns 16 ducks" in sem["training_window"]
    assert lad["semantic"]["quality_note"] == QUALITY_NOTE
    want = "all-MiniLM-L6-v2 fp32 (encoder-fp32.onnx) on webgpu (all 16 agree)"
    assert lad["semantic"]["encoder"] == want  # printed beside the rung's figures
    assert re.search(
        ">encoder</td><td[^>]*>" + re.escape(want) + "</td>", exports["overlap-report.html"]
    )
    assert lad["semantic"]["threshold"] == VERIFIER_THRESHOLD and lad["semantic"]["candidates"] == 8
    assert lad["semantic"]["code_threshold"] == VERIFIER_CODE_THRESHOLD
    assert lad["semantic"]["figures"]["windows"] == s["semantic"]["windows"] > 0


def test_bridge_exclude_rungs_keep_the_unticked_rungs_rows():
    s, view, exports = run(exclude=["exact", "ngram"])
    assert s["clean_file_excludes"] == ["exact", "ngram"]
    assert s["stamp"]["settings"]["clean_file_excludes"] == ["exact", "ngram"]
    assert exports["eval.clean.jsonl"] == _jsonl("q", EVAL_ROWS[2:4])  # the reworded row stays
    assert [r["leaves_clean"] for r in view["ladder"]["rows"]] == [True, True, False, True]
    s, view, _ = run(cosine=0.1)
    assert s["rows_contaminated_by_rung"]["semantic"] == 0
    assert [r["rung"] for r in view["ladder"]["rows"]] == ["exact", "ngram", "exact"]


def test_bridge_refuses_bad_rung_settings_at_start():
    e = start({"threshold": "high"})["error"]
    assert e["code"] == "bad_input" and "threshold" in e["message"]
    assert start({"windows": 4})["error"]["message"] == "unknown semantic setting(s) windows"
    assert "(0, 1]" in start({"threshold": 1.5})["error"]["expected"]
    e = start(None, ["semantic"])["error"]
    assert e["code"] == "bad_input" and "cannot exclude rung(s) semantic" in e["message"]
    h = start()["value"]["handle"]
    call("cont.feed_eval", {"handle": h}, _jsonl("q", EVAL_ROWS))
    call("cont.end_eval", {"handle": h})
    assert (
        call("cont.semantic_request", {"handle": h})["error"]["message"]
        == "the semantic rung is off"
    )
    call("close", {"handle": h})


def test_bridge_code_settings_reach_the_config_and_the_stamp():
    """The page's code setting (site/sections/semantic-settings.js) as cont.start takes
    it: stamped as the CLI's --semantic-code-ngram is; the verifier's fitted weights stamped
    beside it; the switches it once had are refused by name."""
    h = start({"code_ngram": 5, "threshold": 0.7})["value"]["handle"]
    call("cont.feed_eval", {"handle": h}, _jsonl("q", EVAL_ROWS))
    call("cont.end_eval", {"handle": h})
    call("cont.feed_train", {"handle": h}, _jsonl("t", TRAIN))
    req = call("cont.semantic_request", {"handle": h})["value"]
    cos = [0.1] * len(req["pairs"])
    call(
        "cont.semantic_cosines",
        {"handle": h, "pairs": len(cos)},
        None,
        struct.pack(f"<{len(cos)}f", *cos),
    )
    s = call(
        "cont.finish",
        {
            "handle": h,
            "inputs": {"eval": {"name": "e"}, "train": {"name": "t"}},
            "utc": "2026-01-01T00:00:00+00:00",
        },
    )["value"]
    call("close", {"handle": h})
    st = s["stamp"]["settings"]
    assert st["semantic_code_ngram"] == 5 and st["semantic_threshold"] == 0.7
    assert st["semantic_code_threshold"] == 0.7  # one threshold for every row, as the CLI's
    assert st["semantic_verifier_weights"] == list(VERIFIER_WEIGHTS)
    assert "semantic_code_margin" not in st and "semantic_explain_away" not in st
    for gone in ("docstring_cosine", "explain_away", "code_margin"):
        e = start({gone: True})["error"]
        assert e["code"] == "bad_input" and e["message"] == f"unknown semantic setting(s) {gone}"
        assert e["expected"] == "window_words, candidates, threshold, code_ngram"
    assert start({"threshold": "0.5"})["error"]["expected"] == "a number"
    e = start({"code_ngram": 9})["error"]
    assert e["code"] == "bad_input" and e["expected"] == "0 (off) or 1..8 tokens"
    assert start({"code_ngram": True})["error"]["expected"] == "a whole number"


def test_the_encoder_line_says_which_graph_ran_where():
    from evalsieve.ladder import encoder_text

    cli = {"assets": {"encoder": "all-MiniLM-L6-v2 int8 (encoder.onnx)", "encoder_provider": "C"}}
    assert encoder_text(cli) == "all-MiniLM-L6-v2 int8 (encoder.onnx) on C"
    page = {**cli, "environment": {"execution_provider": "wasm", "provider_reason": "no adapter"}}
    assert encoder_text(page) == "all-MiniLM-L6-v2 int8 (encoder.onnx) on wasm (no adapter)"
    # the page embeds nothing when the candidate stage gives no (probe, window) pair
    assert encoder_text({"assets": {}, "environment": {}}).startswith(
        "none: no (probe, window) pair"
    )
