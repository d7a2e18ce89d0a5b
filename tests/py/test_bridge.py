import json
import os

from evalsieve import bridge
from evalsieve.cli import main
from hostile_common import read_csv_export, without_fingerprint


def call(op, args=None, text=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text))


def test_bridge_run_equals_cli_exports(fixtures, tmp_path, capsys):
    ev_path = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr_path = os.path.join(fixtures, "train_mix.jsonl")
    ev = open(ev_path, encoding="utf-8", newline="").read()
    tr = open(tr_path, encoding="utf-8", newline="").read()
    info = call("inspect", {"name": "gsm8k_test_sample.jsonl"}, ev)["value"]
    # named for the prompt (and the most prose words per row: the answers are mostly sums)
    assert info["format"] == "jsonl" and info["default_fields"] == ["question"]
    assert info["default_reason"] == "named for the prompt ('question'), 40.5 prose words per row"
    h = call(
        "cont.start",
        {
            "eval": {"name": "gsm8k_test_sample.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": "train_mix.jsonl", "format": "jsonl", "fields": ["text"]},
            "n": None,
            "boilerplate": True,
            "threshold": None,
        },
    )["value"]["handle"]
    assert call("cont.background", {"handle": h}, tr[:100000])["ok"]
    for i in range(0, len(ev), 4096):
        assert call("cont.feed_eval", {"handle": h}, ev[i : i + 4096])["ok"]
    e = call("cont.end_eval", {"handle": h})["value"]
    assert e["n"] == 13 and e["rows"] == 40
    for i in range(0, len(tr), 10000):
        call("cont.feed_train", {"handle": h}, tr[i : i + 10000])
    import hashlib

    inputs = {
        "eval": {"sha256": hashlib.sha256(ev.encode()).hexdigest(), "bytes": len(ev.encode())},
        "train": {"sha256": hashlib.sha256(tr.encode()).hexdigest(), "bytes": len(tr.encode())},
    }
    s = call("cont.finish", {"handle": h, "inputs": inputs, "utc": "2026-01-01T00:00:00+00:00"})[
        "value"
    ]
    exports = call("cont.exports", {"handle": h})["value"]
    call("close", {"handle": h})
    assert call("cont.end_eval", {"handle": h})["error"]["code"] == "bad_input"

    assert (
        main(
            [
                "contamination",
                ev_path,
                tr_path,
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    for x in exports:
        disk = open(tmp_path / x["name"], encoding="utf-8", newline="").read()
        if x["name"].startswith("eval.clean"):
            assert x["text"] == disk
        elif x["name"].endswith(".csv"):
            # identical but for the fingerprint (runtime and input hashes differ)
            assert without_fingerprint(x["text"]) == without_fingerprint(disk), x["name"]
            assert read_csv_export(x["text"])[0] in (s["stamp"]["fingerprint"], None)
        elif x["name"] == "run-stamp.json":
            page, cli = json.loads(x["text"]), json.loads(disk)
            assert page == s["stamp"] and page["settings"] == cli["settings"]
        else:
            cut = "<h2>Run stamp</h2>"
            assert x["text"].split(cut)[0] == disk.split(cut)[0]
            assert cut in disk
    assert s["rows_contaminated"] == 7


def test_bridge_errors_are_plain_objects():
    # a malformed line ending with its line end is an error, named by file and line (this
    # used to accept either outcome)
    r = call("inspect", {"name": "a.jsonl"}, '{"a": 1}\n{"a": \n')
    assert r["ok"] is False
    assert (r["error"]["code"], r["error"]["file"], r["error"]["line"]) == (
        "bad_input",
        "a.jsonl",
        2,
    )
    assert r["error"]["expected"] == "one JSON object per line"
    # the same bytes cut before the newline (a head that is not the whole file): the last
    # line is unfinished, so one row is sampled; as the whole file it is an error
    r = call("inspect", {"name": "a.jsonl"}, '{"a": 1}\n{"a": ')
    assert r["ok"] is True and r["value"]["rows_sampled"] == 1
    r = call("inspect", {"name": "a.jsonl", "complete": True}, '{"a": 1}\n{"a": ')
    assert r["ok"] is False and r["error"]["line"] == 2
    r = call(
        "cont.start",
        {
            "eval": {"name": "e", "format": "jsonl", "fields": []},
            "train": {"name": "t", "format": "jsonl", "fields": ["x"]},
        },
    )
    assert r["ok"] is False and r["error"]["code"] == "bad_input" and r["error"]["file"] == "e"
    r = call("cont.start", {})
    assert (
        r["ok"] is False
        and r["error"]["code"] == "internal"
        and "KeyError" in r["error"]["message"]
    )


def test_bridge_paraphrase_ops_with_binary_block():
    from array import array

    text = "".join('{"q": "row %d"}\n' % k for k in range(4))
    h = call(
        "para.start",
        {"eval": {"name": "e.jsonl", "format": "jsonl", "field": "q"}, "threshold": 0.9},
    )["value"]["handle"]
    call("para.feed_eval", {"handle": h}, text)
    assert call("para.end_eval", {"handle": h})["value"]["texts"] == [f"row {k}" for k in range(4)]
    # rows 0-1 at 0.95, 1-2 at 0.92, 0-2 at 0.80 (a chain), row 3 alone
    I, J, C = array("i", [0, 1, 0]), array("i", [1, 2, 2]), array("f", [0.95, 0.92, 0.80])
    NN, NNI = array("f", [0.95, 0.95, 0.92, 0.3]), array("i", [1, 0, 1, 0])
    blob = b"".join(a.tobytes() for a in (I, J, C, NN, NNI))
    r = json.loads(
        bridge.call(
            "para.similarity",
            json.dumps(
                {
                    "handle": h,
                    "rows": 4,
                    "pairs": 3,
                    "truncated": 1,
                    "embeddings": False,
                    "threshold": 0.9,
                }
            ),
            None,
            blob,
        )
    )
    f = r["value"]
    assert f["groups"] == 1 and f["groups_chained"] == 1 and f["effective_rows"] == 2
    assert f["view"]["groups"][0]["lowest"] == "0.800" and f["rows_truncated"] == 1
    assert f["closest_pair"] == {
        "row_a": 1,
        "row_b": 2,
        "cosine": 0.95,
    }  # float32, rounded to 6 places
    f = call("para.group", {"handle": h, "threshold": 0.93})["value"]
    assert f["groups"] == 1 and f["groups_chained"] == 0 and f["rows_in_groups"] == 2
    ev = {"name": "e.jsonl", "sha256": "0" * 64, "bytes": len(text)}
    out = call("para.finish", {"handle": h, "threshold": 0.93, "input": ev, "utc": "t"})["value"]
    assert [x["name"] for x in out["exports"]] == [
        "paraphrase-pairs.csv",
        "paraphrase-groups.csv",
        "eval.deduplicated.jsonl",
        "paraphrase-dropped.csv",
        "run-stamp.json",
    ]
    assert out["stamp"]["settings"]["threshold"] == 0.93
    groups_csv = out["exports"][1]["text"].split("\r\n")
    assert groups_csv[1] == "1,2,1 2,,0.950,1 2,no,1,row 0," + out["stamp"]["fingerprint"]
    # the exports name their threshold; the job keeps none (the last regroup was at 0.93)
    out = call("para.finish", {"handle": h, "threshold": 0.9, "input": ev, "utc": "t"})["value"]
    assert out["stamp"]["settings"]["threshold"] == 0.9
    groups_csv = out["exports"][1]["text"].split("\r\n")
    assert groups_csv[1] == "1,3,1 2 3,,0.800,1 3,yes,2,row 1," + out["stamp"]["fingerprint"]
    r = call("para.finish", {"handle": h, "input": ev, "utc": "t"})
    assert (
        r["ok"] is False
        and r["error"]["code"] == "bad_input"
        and "threshold" in r["error"]["message"]
    )
    r = call("para.group", {"handle": h})
    assert r["ok"] is False and r["error"]["code"] == "bad_input"
    env = {
        "assets_from": "cache",
        "threads": 2,
        "cross_origin_isolated": True,
        "hardware_concurrency": 2,
        "execution_provider": "wasm",
        "provider_reason": "no adapter",
    }
    out = call(
        "para.finish", {"handle": h, "threshold": 0.93, "input": ev, "utc": "t", "environment": env}
    )["value"]
    assert out["stamp"]["environment"] == env
    texts = {x["name"]: x["text"] for x in out["exports"]}
    assert json.loads(texts["run-stamp.json"])["environment"] == env
    bad = json.loads(
        bridge.call(
            "para.similarity", json.dumps({"handle": h, "rows": 4, "pairs": 3}), None, blob[:-4]
        )
    )
    assert bad["ok"] is False and "expected" in bad["error"]["message"]


def _start_args(**kw):
    return {
        "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["q"]},
        "train": {"name": "t.jsonl", "format": "jsonl", "fields": ["x"]},
        **kw,
    }


def test_cont_start_refuses_bad_settings_before_any_pass():
    # threshold 0 used to be accepted here and refused only after the whole training pass
    for kw, what in (
        ({"threshold": 0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"n": 0}, "N"),
        ({"n": 1001}, "N"),
    ):
        r = call("cont.start", _start_args(**kw))
        assert r["ok"] is False, kw
        assert r["error"]["code"] == "bad_input" and what in r["error"]["message"], r
    assert call("cont.start", _start_args(threshold=1, n=1000))["ok"] is True
    assert call("cont.start", _start_args(threshold="any"))["ok"] is True


def test_constants_op_is_constants_as_json():
    from evalsieve import constants

    v = call("constants")["value"]
    assert v == json.loads(json.dumps(constants.as_json()))
    assert (v["n_min"], v["n_max"], v["n_auto_min"], v["n_auto_max"]) == (1, 1000, 8, 13)
    assert (v["para_floor"], v["para_threshold_default"], v["para_threshold_max"]) == (
        0.75,
        0.9,
        1.0,
    )
    assert (v["para_window"], v["embedding_dims"], v["threshold_min_exclusive"]) == (256, 384, 0.0)
    assert v["export_names"]["clean_by_format"]["text"] == "eval.clean.txt"


def test_cont_view_and_exports_after_finish(fixtures):
    ev = open(
        os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8", newline=""
    ).read()
    tr = open(os.path.join(fixtures, "train_mix.jsonl"), encoding="utf-8", newline="").read()
    h = call(
        "cont.start",
        {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": "t.jsonl", "format": "jsonl", "fields": ["text"]},
        },
    )["value"]["handle"]
    assert call("cont.view", {"handle": h})["error"]["code"] == "bad_input"  # not finished
    call("cont.feed_eval", {"handle": h}, ev)
    call("cont.end_eval", {"handle": h})
    call("cont.feed_train", {"handle": h}, tr)
    s = call(
        "cont.finish",
        {
            "handle": h,
            "utc": "2026-01-01T00:00:00+00:00",
            "environment": {"assets_from": "network"},
        },
    )["value"]
    assert s["stamp"]["environment"] == {"assets_from": "network"}
    view = call("cont.view", {"handle": h})["value"]
    exports = call("cont.exports", {"handle": h})["value"]
    html = next(x["text"] for x in exports if x["name"] == "overlap-report.html")
    assert '<td class="clip">page: assets_from</td><td class="clip">network</td>' in html
    names = [x["name"] for x in exports]
    call("close", {"handle": h})
    assert names == [
        "eval.clean.jsonl",
        "contamination-report.csv",
        "too-short-to-score.csv",
        "overlap-report.html",
        "run-stamp.json",
    ]
    assert view["rows_total"] == s["rows_contaminated"] == 7 == len(view["rows"])
    assert sum(view["histogram"]["counts"]) == s["rows_scored"]


def test_bridge_finish_takes_a_list_of_training_inputs(fixtures):
    """cont.finish accepts {eval, train: {...}} (one file) and {eval, train: [{...}, ...]}."""
    ev = open(os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8").read()
    tr = open(os.path.join(fixtures, "train_mix.jsonl"), encoding="utf-8").read()
    stamps = []
    for train in (
        {"sha256": "ab" * 32, "bytes": 7},
        [
            {"name": "t1.jsonl", "sha256": "ab" * 32, "bytes": 7},
            {"name": "t2.jsonl.gz", "sha256": "cd" * 32, "bytes": 5, "format": "jsonl+gzip"},
        ],
    ):
        h = call(
            "cont.start",
            {
                "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["question"]},
                "train": {"name": "train_mix.jsonl", "format": "jsonl", "fields": ["text"]},
            },
        )["value"]["handle"]
        call("cont.feed_eval", {"handle": h}, ev)
        call("cont.end_eval", {"handle": h})
        call("cont.feed_train", {"handle": h}, tr)
        s = call(
            "cont.finish",
            {
                "handle": h,
                "inputs": {"eval": {}, "train": train},
                "utc": "2026-01-01T00:00:00+00:00",
            },
        )["value"]
        call("close", {"handle": h})
        stamps.append(s)
    one, two = stamps
    assert [(i["name"], i["bytes"]) for i in one["stamp"]["inputs"]] == [
        ("e.jsonl", 0),
        ("train_mix.jsonl", 7),
    ]
    assert [(i["name"], i["bytes"], i["format"]) for i in two["stamp"]["inputs"][1:]] == [
        ("t1.jsonl", 7, "jsonl"),
        ("t2.jsonl.gz", 5, "jsonl+gzip"),
    ]
    assert two["training_files"] == 2 and two["training_bytes"] == 12
    assert one["rows_contaminated"] == two["rows_contaminated"] == 7
