"""Inputs, CLI side: CSV/TSV dialects, element filters, the default field and its reason,
`evalsieve fields`, the --clean setting, and the lower paraphrase threshold."""

import json
import os

import pytest

from evalsieve import bridge
from evalsieve.cli import build_parser, main
from evalsieve.fields import FieldExtractor, default_choice, discover_fields, prose_words
from evalsieve.sample import inspect_head
from hostile_common import read_export

NIXON = (
    'question\tanswer\n"What did Nixon mean by ""I am not a crook""?"\t"He was answering a '
    'question about his personal finances\nduring a press conference in Orlando in 1973"\n'
)
ANSWER_WORDS = (
    "he was answering a question about his personal finances during a press "
    "conference in orlando in 1973"
).split()


def run(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def report_rows(folder):
    return read_export(folder, "contamination-report.csv")[1]


def test_issue_minimal_quoted_tsv_is_one_row_correctly_scored(tmp_path, capsys):
    f = tmp_path / "quoted.tsv"
    f.write_bytes(NIXON.encode())
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            str(f),
            str(f),
            "--eval-field",
            "answer",
            "--train-field",
            "answer",
            "--n",
            "8",
            "--out",
            str(out),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["rows_scanned"] == 1 and s["rows_scored"] == 1 and s["rows_contaminated"] == 1
    (row,) = report_rows(out)
    # every word after the quoted newline is scored: 17 words -> 17 - 8 + 1 = 10 n-grams
    assert int(row["words"]) == len(ANSWER_WORDS) == 17
    assert row["ngrams_total"] == row["ngrams_matched"] == "10"
    assert row["containment"] == "1.0000"
    # the clean file (no row kept) is the header alone: never a dangling quote
    assert (out / "eval.clean.tsv").read_bytes() == b"question\tanswer\n"


def test_semicolon_csv_named_tsv_is_read_and_clean_is_byte_exact(tmp_path, capsys):
    body = (
        "id;question\r\n1;The quiet harbour town, they say, kept seven lighthouses burning "
        'all winter long\r\n2;"A patient gardener; measured rainfall in copper buckets by '
        'the wall"\r\n3;short one\r\n'
    )
    ev = tmp_path / "export.tsv"
    ev.write_bytes(body.encode())
    tr = tmp_path / "train.jsonl"
    tr.write_text(
        json.dumps(
            {
                "text": "Notes: the quiet harbour town, they say, kept seven "
                "lighthouses burning all winter long. End."
            }
        )
        + "\n"
    )
    out = tmp_path / "o"
    code, stdout, err = run(
        ["contamination", str(ev), str(tr), "--out", str(out), "--json", "--n", "8"], capsys
    )
    assert code == 0, err
    assert "csv-semicolon, separated by ';'" in err and "fields question" in err
    s = json.loads(stdout)
    assert (s["rows_scanned"], s["rows_contaminated"], s["rows_kept"], s["rows_too_short"]) == (
        3,
        1,
        1,
        1,
    )
    lines = body.split("\r\n")
    assert (out / "eval.clean.csv").read_bytes() == (lines[0] + "\r\n" + lines[2] + "\r\n").encode()


def test_ragged_row_stops_with_file_and_line(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text("id,question\n1,one two three four five six seven eight nine\n2,a,b\n")
    code, _, err = run(["contamination", str(f), str(f), "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert "r.csv, line 3: this row has 3 fields but the header has 2" in err
    assert not (tmp_path / "o").exists() or not os.listdir(tmp_path / "o")


# -- element filters ---------------------------------------------------------------------------

SYSTEM = "You are a helpful assistant who answers questions about history and geography."
PLANTED = "Which river flows through the ancient city that hosted the first modern olympic games"


def chat(i, user):
    return {
        "id": i,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": user},
            {
                "role": "assistant",
                "content": f"Here is a long answer number {i} that talks about "
                "many unrelated things such as weather mountains lakes "
                "and old roads in considerable detail",
            },
        ],
    }


def test_filter_paths_discovered_and_constant_per_path():
    rows = [chat(i, f"user question {i} about some topic or other") for i in range(6)]
    infos = {f.path: f for f in discover_fields(rows)}
    assert infos["messages[role=system].content"].constant
    assert infos["messages[role=system].content"].filter
    assert not infos["messages[role=user].content"].constant
    assert not infos["messages[].content"].constant
    assert "messages[role=assistant].content" in infos
    assert "messages[role=user].role" not in infos  # the key itself is not offered
    # the system turn is one element of messages[].content on every row: the default is
    # the user turns
    assert infos["messages[].content"].shared.startswith("the same element on 6 of 6")
    assert default_choice(list(infos.values()))[0] == ["messages[role=user].content"]
    ex = FieldExtractor("jsonl", ["messages[role=user].content"])
    assert ex.segments(rows[2]) == ["user question 2 about some topic or other"]
    sharegpt = {
        "conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": "hello"}]
    }
    assert FieldExtractor("jsonl", ["conversations[from=gpt].value"]).segments(sharegpt) == [
        "hello"
    ]
    assert "conversations[from=human].value" in {f.path for f in discover_fields([sharegpt])}


def test_user_turn_filter_scores_the_planted_question_fully(tmp_path, capsys):
    ev = tmp_path / "chat.jsonl"
    ev.write_text(
        "".join(
            json.dumps(chat(i, q)) + "\n"
            for i, q in enumerate(
                [
                    PLANTED,
                    "Name three rivers of southern France and their "
                    "sources in the mountains please",
                ]
            )
        )
    )
    tr = tmp_path / "train.jsonl"
    tr.write_text(json.dumps({"text": "Quiz: " + PLANTED + "? Answer below."}) + "\n")
    got = {}
    for field in ("messages[].content", "messages[role=user].content"):
        out = tmp_path / field.replace("[", "_").replace("]", "_")
        code, stdout, err = run(
            [
                "contamination",
                str(ev),
                str(tr),
                "--eval-field",
                field,
                "--out",
                str(out),
                "--json",
                "--n",
                "8",
            ],
            capsys,
        )
        assert code == 0, err
        got[field] = {int(r["eval_row"]): float(r["containment"]) for r in report_rows(out)}
    # 15 words -> 8 n-grams, all in training; with the other turns the denominator grows
    assert got["messages[role=user].content"] == {1: 1.0, 2: 0.0}
    assert 0 < got["messages[].content"][1] < 0.5


def test_filter_that_selects_nothing_is_refused(tmp_path, capsys):
    ev = tmp_path / "chat.jsonl"
    ev.write_text(json.dumps(chat(1, PLANTED)) + "\n")
    code, _, err = run(
        [
            "contamination",
            str(ev),
            str(ev),
            "--eval-field",
            "messages[role=usr].content",
            "--out",
            str(tmp_path / "o"),
        ],
        capsys,
    )
    assert code == 2 and "selects nothing" in err and "messages[role=user].content" in err


# -- the default field ---------------------------------------------------------------------------


def test_prose_words_counts_words_with_letters():
    assert prose_words(
        [
            "Natalia sold 48/2 = <<48/2=24>>24 clips",
            "https://x.org/a-b",
            "It's 9:30, Dr. O'Neil!",
            "",
        ]
    ) == [3, 1, 3, 0]


def test_default_is_most_prose_words_among_mostly_text_fields():
    rows = [
        {
            "url": f"https://example.org/a/very/long/path/that/is/one/word/{i}" + "x" * 80,
            "body": f"how many apples are left in basket {i} now",
            "calc": f"3 + {i} = 7; 7 * 2 = 14; 14 - 1 = 13; 13 / 1 = 13 and done",
            "sparse": "many many words in this one field on a single row only here " * 3,
        }
        if i
        else {"url": "u", "body": "a question", "calc": "1", "sparse": ""}
        for i in range(4)
    ]
    rows[2]["sparse"] = rows[3]["sparse"] = ""
    infos = discover_fields(rows)
    by = {f.path: f for f in infos}
    assert not any(f.constant for f in infos)
    assert by["url"].avg_words == 1.0 and by["calc"].avg_words == 2 * 3 / 4  # "and done"
    assert by["body"].avg_words == (2 + 8 * 3) / 4  # "4" is not a word
    assert by["sparse"].text_share == 0.25 and by["sparse"].avg_words == 13 * 3 / 4
    chosen, why = default_choice(infos)
    assert chosen == ["body"]
    assert why == (
        "no text field is named for the prompt; the most prose words per row (6.5) among the others"
    )
    # with no field text on most rows, the most words of any kind
    assert default_choice([by["sparse"], by["url"]._replace(text_share=0.5)])[0] == ["sparse"]


def test_short_default_warns_on_stderr_and_in_the_summary(tmp_path, capsys):
    ev = tmp_path / "e.jsonl"
    ev.write_text(
        "".join(json.dumps({"q": f"short row {i} here"}) + "\n" for i in range(5))
        + json.dumps({"q": "this row is long enough to be scored at n eight words"})
        + "\n"
    )
    code, stdout, err = run(
        ["contamination", str(ev), str(ev), "--out", str(tmp_path / "o"), "--json", "--n", "8"],
        capsys,
    )
    assert code == 0
    s = json.loads(stdout)
    assert s["warnings"] == [
        "5 of 6 eval rows with words are too short to score at N = 8: "
        "choose a longer field or a smaller N (--n)"
    ]
    assert "evalsieve: warning: 5 of 6 eval rows with words are too short" in err
    assert "fields q (default: named for the prompt ('q'), " in err


def _shared_file(shared, *parts):
    path = os.path.join(shared, *parts)
    if not os.path.isfile(path):
        pytest.skip(f"{path} is absent")
    return path


def test_truthfulqa_default_is_not_the_source_url(shared, capsys):
    path = _shared_file(shared, "truthfulqa", "TruthfulQA.csv")
    code, out, _ = run(["fields", path, "--json"], capsys)
    info = json.loads(out)
    assert code == 0 and info["format"] == "csv"
    assert info["default_fields"] != ["Source"]
    by = {f["path"]: f for f in info["fields"]}
    assert by["Source"]["avg_words"] < 1.2 < by["Question"]["avg_words"]
    # the answer lists have three times the words, but the question is the prompt
    assert info["default_fields"] == ["Question"]
    assert by["Incorrect Answers"]["avg_words"] > 3 * by["Question"]["avg_words"]


def test_gsm8k_default_is_question(shared, capsys):
    path = _shared_file(shared, "gsm8k", "test.jsonl")
    code, out, _ = run(["fields", path, "--json"], capsys)
    info = json.loads(out)
    assert info["default_fields"] == ["question"]
    by = {f["path"]: f for f in info["fields"]}
    assert by["question"]["avg_words"] > by["answer"]["avg_words"]


# -- evalsieve fields ----------------------------------------------------------------------------


def test_fields_command_table_and_json(tmp_path, capsys):
    f = tmp_path / "c.jsonl"
    rows = [chat(i, f"user question number {i} about rivers") for i in range(3)]
    rows[1]["note"] = "x"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, _ = run(["fields", str(f), "--json"], capsys)
    assert code == 0
    info = json.loads(out)
    assert info["file"] == "c.jsonl" and info["format"] == "jsonl" and info["rows_sampled"] == 3
    by = {x["path"]: x for x in info["fields"]}
    assert list(by) == ["id", "messages[].role", "messages[].content", "note"]
    assert by["note"]["fill"] == pytest.approx(1 / 3) and by["note"]["avg_chars"] == 1.0
    assert by["id"]["kind"] == "other"
    assert by["messages[].role"]["constant"]
    user = next(x for x in info["filter_fields"] if x["path"] == "messages[role=user].content")
    assert user["avg_words"] == 5.0 and user["avg_chars"] == len(
        "user question number 0 about rivers"
    )
    assert info["default_fields"] == ["messages[role=user].content"]
    code, out, _ = run(["fields", str(f)], capsys)
    assert "c.jsonl: jsonl; 3 rows sampled" in out
    assert f"default field: messages[role=user].content ({info['default_reason']})" in out
    assert "element filters" in out and "messages[role=user].content" in out
    assert "constant: the same value on 3 of 3 sampled rows" in out


def test_inspect_bridge_op_carries_the_fields_information():
    text = "".join(json.dumps(chat(i, f"user question {i}")) + "\n" for i in range(3))
    v = json.loads(bridge.call("inspect", json.dumps({"name": "c.jsonl", "complete": True}), text))[
        "value"
    ]
    direct = inspect_head("c.jsonl", text, complete=True)
    # the bridge adds the training records' id field, by name (record_id.default_id_field)
    assert v.pop("default_id_field") == "id"
    assert v == json.loads(json.dumps(direct))
    assert {"path", "fill", "avg_chars", "kind", "constant", "reason", "avg_words"} <= set(
        v["fields"][0]
    )
    assert v["default_reason"] and "messages[role=user].content" in [
        x["path"] for x in v["filter_fields"]
    ]


# -- --clean -------------------------------------------------------------------------------------


def test_clean_setting_keeps_too_short_rows_and_is_stamped(tmp_path, capsys):
    ev = tmp_path / "e.jsonl"
    lines = [
        json.dumps({"q": t}) + "\n"
        for t in [
            "The quiet harbour town kept seven lighthouses burning through every winter storm",
            "too short",
            "A patient gardener measured rainfall in copper buckets along the wall",
        ]
    ]
    ev.write_text("".join(lines))
    tr = tmp_path / "t.jsonl"
    tr.write_text(
        json.dumps(
            {
                "text": "x The quiet harbour town kept seven lighthouses burning "
                "through every winter storm y"
            }
        )
        + "\n"
    )
    kept = {}
    for rule in ("scored", "not-contaminated"):
        out = tmp_path / rule
        code, stdout, err = run(
            [
                "contamination",
                str(ev),
                str(tr),
                "--out",
                str(out),
                "--json",
                "--n",
                "8",
                "--clean",
                rule,
            ],
            capsys,
        )
        assert code == 0, err
        s = json.loads(stdout)
        kept[rule] = (out / "eval.clean.jsonl").read_text()
        assert s["rows_kept"] == len(kept[rule].splitlines())
        assert s["stamp"]["settings"]["clean"] == s["clean_rule"]
        assert s["clean_rule"] in open(out / "overlap-report.html", encoding="utf-8").read()
    assert kept["scored"] == lines[2]
    assert kept["not-contaminated"] == lines[1] + lines[2]
    help_text = build_parser()._subparsers._group_actions[0].choices["contamination"].format_help()
    assert "'scored' (the default)" in " ".join(help_text.split())


def test_bridge_cont_start_accepts_the_clean_setting():
    ev = "".join(
        json.dumps({"q": t}) + "\n"
        for t in ["tiny", "one two three four five six seven eight nine ten"]
    )
    for rule, want in ((None, ""), ("not-contaminated", '{"q": "tiny"}\n')):
        args = {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["q"]},
            "train": {"name": "t.jsonl", "format": "jsonl", "fields": ["q"]},
            "n": 8,
        }
        if rule:
            args["clean"] = rule
        h = json.loads(bridge.call("cont.start", json.dumps(args)))["value"]["handle"]
        bridge.call("cont.feed_eval", json.dumps({"handle": h}), ev)
        bridge.call("cont.end_eval", json.dumps({"handle": h}))
        bridge.call("cont.feed_train", json.dumps({"handle": h}), '{"q": "nothing alike"}\n')
        s = json.loads(bridge.call("cont.finish", json.dumps({"handle": h})))["value"]
        exports = json.loads(bridge.call("cont.exports", json.dumps({"handle": h})))["value"]
        clean = next(x["text"] for x in exports if x["name"] == "eval.clean.jsonl")
        bridge.call("close", json.dumps({"handle": h}))
        assert clean == want + '{"q": "one two three four five six seven eight nine ten"}\n'
        assert s["stamp"]["settings"]["clean"].startswith(
            "every row" if rule else "scored and not contaminated"
        )


# -- paraphrase threshold --------------------------------------------------------------------------


def test_paraphrase_threshold_goes_down_to_half():
    p = build_parser()
    assert p.parse_args(["paraphrases", "e", "--out", "o", "--threshold", "0.5"]).threshold == 0.5
    with pytest.raises(SystemExit):
        p.parse_args(["paraphrases", "e", "--out", "o", "--threshold", "0.49"])


def test_paraphrases_run_at_half(fixtures, tmp_path, capsys):
    pytest.importorskip("onnxruntime", reason="needs the encoder extra")
    pytest.importorskip("tokenizers", reason="needs the encoder extra")
    from evalsieve.cli import find_model_dir

    try:
        model = find_model_dir(None)
    except Exception as e:  # pragma: no cover - depends on the checkout
        pytest.skip(f"no model: {e}")
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    got = {}
    for thr in ("0.5", "0.75"):
        code, out, err = run(
            [
                "paraphrases",
                ev,
                "--field",
                "question",
                "--threshold",
                thr,
                "--model-dir",
                model,
                "--out",
                str(tmp_path / thr),
                "--json",
                "--quiet",
            ],
            capsys,
        )
        assert code == 0, err
        got[thr] = json.loads(out)
    lo, hi = got["0.5"], got["0.75"]
    assert lo["threshold"] == 0.5 and lo["stamp"]["settings"]["slider_floor"] == 0.5
    assert hi["stamp"]["settings"]["slider_floor"] == 0.75
    # every pair at 0.75 is a pair at 0.5; the lower threshold finds more
    assert lo["pairs"] > hi["pairs"] and lo["groups"] >= 1
    assert lo["effective_rows"] <= hi["effective_rows"]
