"""Field paths per training file: each file of a corpus is read with the --train-field paths
it has (element filters included), a file with none is refused by name, and without
--train-field each file's default reason quotes its own figures."""

import json
import os
import sys

import pytest

from evalsieve.cli import main
from evalsieve.corpus import plan_tasks

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hostile")
)
from hostile_common import read_csv_export  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GSM = os.path.join(HERE, "..", "fixtures", "gsm8k_test_sample.jsonl")
USER = "messages[role=user].content"
HUMAN = "conversations[from=human].value"
FILLER = (
    "The harbour wall was rebuilt twice in the last century after winter storms broke "
    "the old stones apart and the fishing boats moved to the river mouth"
)


def run(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def questions(k=6):
    with open(GSM, encoding="utf-8") as f:
        return [json.loads(line)["question"] for line in f][:k]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def openai(user_texts):
    return [
        {
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": u},
                {"role": "assistant", "content": f"{FILLER} {i}"},
            ]
        }
        for i, u in enumerate(user_texts)
    ]


def sharegpt(human_texts):
    return [
        {
            "conversations": [
                {"from": "human", "value": h},
                {"from": "gpt", "value": f"{FILLER} {i}"},
            ]
        }
        for i, h in enumerate(human_texts)
    ]


@pytest.fixture
def mixed(tmp_path):
    """An eval file of 6 GSM8K questions; an OpenAI file whose 2nd user turn is eval row 2;
    a ShareGPT file whose 3rd human turn is eval row 5."""
    q = questions()
    ev = write_jsonl(tmp_path / "eval.jsonl", [{"question": x} for x in q])
    oa = write_jsonl(tmp_path / "a_openai.jsonl", openai([FILLER + " one", q[1], FILLER]))
    sg = write_jsonl(tmp_path / "b_sharegpt.jsonl", sharegpt([FILLER, FILLER + " two", q[4]]))
    return tmp_path, ev, oa, sg


def test_openai_and_sharegpt_files_each_use_the_role_filter_they_have(mixed, capsys):
    tmp, ev, oa, sg = mixed
    out = tmp / "o"
    code, stdout, err = run(
        [
            "contamination",
            ev,
            oa,
            sg,
            "--train-field",
            USER,
            "--train-field",
            HUMAN,
            "--out",
            str(out),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["rows_contaminated"] == 2
    _, rows = read_csv_export((out / "contamination-report.csv").read_text("utf-8"))
    got = {
        int(r["eval_row"]): (r["training_file"], int(r["training_record"]))
        for r in rows
        if r["status"] == "contaminated"
    }
    assert got == {2: ("a_openai.jsonl", 2), 5: ("b_sharegpt.jsonl", 3)}
    assert (
        f"train: a_openai.jsonl: jsonl, fields {USER} (chosen with --train-field; this "
        "file has 1 of the 2)"
    ) in err
    assert f"train: b_sharegpt.jsonl: jsonl, fields {HUMAN} (chosen with" in err


def test_a_file_with_none_of_the_paths_is_refused_by_name(mixed, capsys):
    tmp, ev, oa, sg = mixed
    other = write_jsonl(tmp / "c_plain.jsonl", [{"prompt": FILLER, "answer": "x"}])
    code, _, err = run(
        [
            "contamination",
            ev,
            oa,
            sg,
            other,
            "--train-field",
            USER,
            "--train-field",
            HUMAN,
            "--out",
            str(tmp / "o"),
        ],
        capsys,
    )
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"evalsieve: error: c_plain.jsonl: this file has none of the --train-field paths "
        f"asked for ({USER}, {HUMAN}) (expected at least one of them in every training file; "
        "this one has: prompt, answer)"
    )
    assert not (tmp / "o").exists()


def test_a_role_value_the_listing_leaves_out_is_still_found(tmp_path, capsys):
    # MAX_ROLE_VALUES role values are listed; a filter on a later one selects rows too
    roles = [f"r{i}" for i in range(9)] + ["user"]
    rec = {"messages": [{"role": r, "content": f"{FILLER} {r}"} for r in roles]}
    q = questions(2)
    rec["messages"][-1]["content"] = q[0]
    ev = write_jsonl(tmp_path / "eval.jsonl", [{"question": x} for x in q])
    a = write_jsonl(tmp_path / "a.jsonl", [rec])
    b = write_jsonl(tmp_path / "b.jsonl", sharegpt([FILLER]))
    code, stdout, err = run(
        [
            "contamination",
            ev,
            a,
            b,
            "--train-field",
            USER,
            "--train-field",
            HUMAN,
            "--out",
            str(tmp_path / "o"),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(stdout)["rows_contaminated"] == 1


def test_parquet_chat_file_and_sharegpt_jsonl_together(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow", reason="the parquet extra (pip install -e .[parquet])")
    import pyarrow.parquet as pq

    q = questions()
    ev = write_jsonl(tmp_path / "eval.jsonl", [{"question": x} for x in q])
    pq.write_table(pa.Table.from_pylist(openai([FILLER, q[2]])), str(tmp_path / "a.parquet"))
    sg = write_jsonl(tmp_path / "b.jsonl", sharegpt([q[3], FILLER]))
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            ev,
            str(tmp_path / "a.parquet"),
            sg,
            "--train-field",
            USER,
            "--train-field",
            HUMAN,
            "--out",
            str(out),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    _, rows = read_csv_export((out / "contamination-report.csv").read_text("utf-8"))
    got = {
        int(r["eval_row"]): (r["training_file"], int(r["training_record"]))
        for r in rows
        if r["status"] == "contaminated"
    }
    assert got == {3: ("a.parquet", 2), 4: ("b.jsonl", 1)}


def test_corpus_defaults_each_file_with_its_own_figures(mixed, capsys):
    tmp, ev, oa, sg = mixed
    plain = write_jsonl(
        tmp / "c_plain.jsonl",
        [{"question": f"{FILLER} number {i} and more", "answer": "x"} for i in range(3)],
    )
    code, stdout, err = run(
        ["contamination", ev, oa, sg, plain, "--out", str(tmp / "o"), "--json"], capsys
    )
    assert code == 0, err
    reasons = {}
    for f in (oa, sg, plain):
        _, out, _ = run(["fields", f, "--json"], capsys)
        info = json.loads(out)
        reasons[os.path.basename(f)] = (info["default_fields"], info["default_reason"])
    assert reasons["a_openai.jsonl"][0] == [USER]
    assert reasons["b_sharegpt.jsonl"][0] == [HUMAN]
    assert reasons["c_plain.jsonl"][0] == ["question"]
    for name, (fields, why) in reasons.items():
        assert f"train: {name}: jsonl, fields {fields[0]} (default: {why})" in err
    # the figures differ from file to file: each line quotes its own
    assert len({why for _, why in reasons.values()}) == 3
    assert json.loads(stdout)["rows_contaminated"] == 2


def test_corpus_default_a_file_also_has_is_read_and_said(tmp_path, capsys):
    q = questions(3)
    ev = write_jsonl(tmp_path / "eval.jsonl", [{"question": x} for x in q])
    a = write_jsonl(tmp_path / "a.jsonl", [{"text": FILLER + f" {i}"} for i in range(3)])
    # b's own default is its question; it also has a text (a's default), which holds row 2
    b = write_jsonl(
        tmp_path / "b.jsonl",
        [
            {"question": "what is the harbour for", "text": q[1]},
            {"question": "where is the river mouth", "text": FILLER},
        ],
    )
    code, stdout, err = run(
        ["contamination", ev, a, b, "--out", str(tmp_path / "o"), "--json"], capsys
    )
    assert code == 0, err
    assert (
        "train: b.jsonl: jsonl, fields text, question (default: text: the default of "
        "a.jsonl, which this file also has; question: named for the prompt ('question'), "
        "5.0 prose words per row"
    ) in err
    assert json.loads(stdout)["rows_contaminated"] == 1


def test_plan_tasks_carries_each_files_own_fields():
    files = [
        {
            "path": "a.jsonl",
            "name": "a.jsonl",
            "fmt": "jsonl",
            "fields": [USER],
            "gzip": False,
            "size": 10,
        },
        {
            "path": "b.jsonl",
            "name": "b.jsonl",
            "fmt": "jsonl",
            "fields": [HUMAN],
            "gzip": False,
            "size": 20,
        },
    ]
    tasks = plan_tasks(files, 2)
    assert {t.name: t.fields for t in tasks} == {"a.jsonl": (USER,), "b.jsonl": (HUMAN,)}
