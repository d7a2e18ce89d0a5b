"""The default-field rule (fields.default_choice) on the public eval sets and on chat sets
built from them, the reasons it prints, and docs/FIELDS.md's table of both."""

import gzip
import json
import os
import sys

import pytest

from field_sets import (
    FIELDS_MD,
    HEADS,
    SETS,
    SYSTEM_PROMPT,
    as_jsonl,
    documented,
    documented_fields,
    inspect_set,
    openai_chat,
    read_rows,
    sharegpt_chat,
    table,
)
from evalsieve.cli import main
from evalsieve.field_names import name_kind, prompt_rank
from evalsieve.fields import PASSAGE_WORDS, default_choice, discover_fields, shared_passage

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hostile")
)
from hostile_common import read_csv_export  # noqa: E402

WIKI = (
    "The river rises in the hills above the old mill town and runs north through "
    "water meadows, where herons stand in the shallows and the towpath follows the bank "
    "past three locks and a ruined abbey"
)


def run(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- the public sets ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,rel,head,want,build", SETS, ids=[s[0] for s in SETS])
def test_public_set_default_is_the_prompt(shared, name, rel, head, want, build):
    path = os.path.join(shared, rel)
    if not os.path.isfile(path):
        pytest.skip(f"{path} is absent")
    info = inspect_set(path, build)
    assert info["default_fields"] == [want]
    by = {f["path"]: f for f in info["fields"] + info["filter_fields"]}
    # the reason quotes the chosen field's own figure
    assert f"{by[want]['avg_words']:.1f} prose words per row" in info["default_reason"]


@pytest.mark.parametrize(
    "name,rel,head,want,build", [s for s in SETS if s[2]], ids=[s[0] for s in SETS if s[2]]
)
def test_committed_heads_give_the_documented_field(name, rel, head, want, build):
    # the first 40 records of each set (tests/fixtures/public_heads): the core suite holds
    # the rule, and docs/FIELDS.md's field column, to the sets' real shapes
    info = inspect_set(os.path.join(HEADS, head), build)
    assert info["default_fields"] == [want]


def test_fields_md_field_column_is_the_rules_field():
    # the field column without ../shared/data (the reasons' figures need the whole sets)
    if not os.path.isfile(FIELDS_MD):
        pytest.skip(f"{FIELDS_MD} is not here (the Pyodide run copies tests/ only)")
    assert documented_fields() == {name: want for name, _, _, want, _ in SETS}


def test_fields_md_table_is_what_the_code_prints(shared):
    for _, rel, *_ in SETS:
        if not os.path.isfile(os.path.join(shared, rel)):
            pytest.skip(f"{rel} is absent from {shared}")
    assert table(shared) == documented(), (
        "docs/FIELDS.md is stale: rewrite it with python3 tests/py/field_sets.py"
    )


def test_every_mmlu_subject_defaults_to_question(shared):
    folder = os.path.join(shared, "mmlu", "test")
    if not os.path.isdir(folder):
        pytest.skip(f"{folder} is absent")
    got = {
        f: inspect_set(os.path.join(folder, f), None)["default_fields"]
        for f in sorted(os.listdir(folder))
        if f.endswith(".csv")
    }
    assert len(got) == 57 and all(v == ["question"] for v in got.values()), got


def test_truthfulqa_reason_names_the_longer_answer_lists(shared):
    path = os.path.join(shared, "truthfulqa", "TruthfulQA.csv")
    if not os.path.isfile(path):
        pytest.skip(f"{path} is absent")
    info = inspect_set(path, None)
    by = {f["path"]: f for f in info["fields"]}
    assert info["default_reason"] == (
        f"named for the prompt ('question'), {by['Question']['avg_words']:.1f} prose words "
        f"per row; passed over: Incorrect Answers ({by['Incorrect Answers']['avg_words']:.1f}"
        f" words: named for an answer, a label or the choices), Correct Answers "
        f"({by['Correct Answers']['avg_words']:.1f} words: named for an answer, a label or "
        "the choices)"
    )


# -- a chat eval whose system turn is the same in every row -----------------------------------


def _chat_run(tmp_path, capsys, rows, extra=()):
    ev = tmp_path / "chat.jsonl"
    ev.write_text(as_jsonl(openai_chat(rows)), encoding="utf-8")
    tr = tmp_path / "train.jsonl"
    # the system prompt in 5 training records (under the boilerplate cut-off of 10)
    tr.write_text(
        as_jsonl([{"text": f"{SYSTEM_PROMPT} {WIKI} {i}"} for i in range(5)]), encoding="utf-8"
    )
    out = tmp_path / ("o" + str(len(extra)))
    code, stdout, err = run(
        ["contamination", str(ev), str(tr), "--out", str(out), "--json", *extra], capsys
    )
    assert code == 0, err
    _, rows_out = read_csv_export((out / "contamination-report.csv").read_text("utf-8"))
    return json.loads(stdout), rows_out, err


def test_shared_system_turn_does_not_make_every_chat_row_contaminated(tmp_path, capsys):
    rows = read_rows(os.path.join(HEADS, "mbpp.jsonl"))
    s, report, err = _chat_run(tmp_path, capsys, rows)
    assert s["rows_scanned"] == 40 and s["rows_contaminated"] == 0
    assert [r for r in report if r["status"] == "contaminated"] == []
    assert (
        "fields messages[role=user].content (default: the user turns of a chat (role=user)"
    ) in err
    assert "messages[].content also holds the same element on 40 of 40 sampled rows" in err
    # what the old default scored: every row shares the system turn's n-grams
    s, report, _ = _chat_run(tmp_path, capsys, rows, ("--eval-field", "messages[].content"))
    assert s["rows_contaminated"] == 40


def test_shared_system_turn_on_all_of_mbpp(shared, tmp_path, capsys):
    path = os.path.join(shared, "mbpp", "mbpp.jsonl")
    if not os.path.isfile(path):
        pytest.skip(f"{path} is absent")
    s, _, _ = _chat_run(tmp_path, capsys, read_rows(path))
    assert s["rows_scanned"] == 974 and s["rows_contaminated"] == 0


def test_sharegpt_default_is_the_human_turns(tmp_path, capsys):
    rows = read_rows(os.path.join(HEADS, "gsm8k_test.jsonl"))
    f = tmp_path / "sharegpt.jsonl"
    f.write_text(as_jsonl(sharegpt_chat(rows)), encoding="utf-8")
    code, out, _ = run(["fields", str(f)], capsys)
    assert code == 0
    assert (
        "default field: conversations[from=human].value (the user turns of a chat "
        "(from=human)" in out
    )
    assert (
        "conversations[].value also holds the same element on 40 of 40 sampled rows "
        "('You are a careful math tutor." in out
    )
    assert (
        "* conversations[from=human].value" in out and "a chat turn that is not the user's" in out
    )  # the gpt turns' note


# -- the rule's parts, by hand -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path,kind",
    [
        ("question", ("prompt", "question")),
        ("Question", ("prompt", "question")),
        ("doc.question", ("prompt", "question")),
        ("original_question", ("prompt", "question")),
        ("Incorrect Answers", ("answer", "answers")),
        ("Best Answer", ("answer", "answer")),
        ("choice0", ("answer", "choice")),
        ("answerKey", ("answer", "answer")),
        ("options[].text", ("answer", "options")),
        ("choices.text[]", ("answer", "choices")),
        ("canonical_solution", ("answer", "solution")),
        ("code", ("code", "code")),
        ("test_list[]", ("code", "test")),
        ("entry_point", ("code", "entry")),
        ("answer_text", ("answer", "answer")),
        ("tags[].key", ("neutral", "")),
        ("task_id", ("meta", "id")),
        ("question_id", ("meta", "id")),
        ("Source", ("meta", "source")),
        ("messages[role=user].content", ("user_turn", "user")),
        ("conversations[from=human].value", ("user_turn", "human")),
        ("conversations[from=gpt].value", ("turn", "gpt")),
        ("messages[role=system].content", ("turn", "system")),
        ("messages[].content", ("neutral", "")),
        ("turns[]", ("neutral", "")),
        ("arguments.gen_args_0.arg_0", ("neutral", "")),
    ],
)
def test_name_kind(path, kind):
    assert name_kind(path) == kind


def test_prompt_rank_exact_name_first_then_word_order():
    assert prompt_rank("question") == (0, 0) and prompt_rank("Question") == (0, 0)
    assert prompt_rank("original_question") == (1, 0)
    assert prompt_rank("text") == (0, 6) and prompt_rank("input") == (0, 5)
    rows = [
        {
            "original_question": f"old words of row {i} go here and there",
            "question": f"new short question {i}",
        }
        for i in range(4)
    ]
    assert default_choice(discover_fields(rows))[0] == ["question"]


def test_shared_passage_worked_example():
    run_words = "below is an instruction that describes a task write a response".split()
    rows = [[["intro", str(i)] + run_words + [f"q{i}", "more"]] for i in range(3)]
    rows.append([["nothing", "shared", "here"]])
    k, words = shared_passage(rows, total=4)
    # the 8-grams inside the 11 shared words are each on 3 of 4 rows; extended both ways
    assert (k, words) == (3, run_words)
    assert shared_passage(rows, total=6) == (0, [])  # 3 of 6 is not more than half
    assert PASSAGE_WORDS == 8


def test_constant_element_inside_a_list_is_found_with_its_figures():
    rows = [
        {"turns": ["Answer in one word please.", f"what colour is object number {i}?"]}
        for i in range(5)
    ]
    rows.append({"turns": ["a different first turn", "and a second one"]})
    info = {f.path: f for f in discover_fields(rows)}["turns[]"]
    assert not info.constant and info.shared_rows == 5
    assert info.shared == "the same element on 5 of 6 sampled rows ('Answer in one word please.')"
    assert info.reason == (
        "holds the same element on 5 of 6 sampled rows ('Answer in one word "
        "please.'): a shared system turn, template or preamble"
    )
    chosen, why = default_choice(discover_fields(rows))
    # nothing better to take: chosen, with the warning
    assert chosen == ["turns[]"] and "; warning: it holds the same element on 5 of 6" in why


def test_template_in_one_string_is_demoted_below_a_clean_neutral_field():
    tmpl = "Below is an instruction that describes a task. Write a response that completes it."
    bodies = [
        "rivers run to the sea",
        "hills stand above the plain",
        "a lake lies still",
        "the wind moves the grass",
        "snow falls on high peaks",
        "fog hides the valley",
    ]
    rows = [
        {"prompt": f"{tmpl}\n### Instruction: name a river in country number {i}", "body": b}
        for i, b in enumerate(bodies)
    ]
    infos = {f.path: f for f in discover_fields(rows)}
    # the template's 14 words and the 7 words of "### Instruction: name a river in country
    # number" that follow it on every row
    assert infos["prompt"].shared.startswith(
        "a 21-word passage on 6 of 6 sampled rows ('below is an instruction that describes a"
    )
    chosen, why = default_choice(list(infos.values()))
    assert chosen == ["body"]
    assert why.startswith("no text field is named for the prompt; the most prose words")
    assert "passed over: prompt (" in why and "holds a 21-word passage on 6 of 6" in why


def test_short_prompt_named_field_counts_as_neutral():
    rows = [
        {
            "question_concept": "river",
            "passage": f"a longer neutral passage number {i} about the valley",
        }
        for i in range(4)
    ]
    assert default_choice(discover_fields(rows))[0] == ["passage"]


def test_code_looking_neutral_field_is_demoted():
    rows = [
        {"body": f"def f{i}(x):\n    return x + {i}\n", "note": f"adds {i} to a number"}
        for i in range(4)
    ]
    infos = {f.path: f for f in discover_fields(rows)}
    assert infos["body"].named == "looks_code"
    assert default_choice(list(infos.values()))[0] == ["note"]


def test_only_answers_left_is_said():
    rows = [{"answer": f"the answer is number {i} of the many answers"} for i in range(3)]
    chosen, why = default_choice(discover_fields(rows))
    assert chosen == ["answer"]
    assert why == (
        "no text field may hold the prompt by its name; this one is named for an "
        "answer, a label or the choices, with the most prose words per row (8.0)"
    )


def test_gzip_head_fixture_is_what_make_field_fixtures_writes():
    # the committed HumanEval head holds the first 40 problems, ids in order
    with gzip.open(os.path.join(HEADS, "HumanEval.jsonl.gz"), "rt", encoding="utf-8") as f:
        ids = [json.loads(line)["task_id"] for line in f]
    assert ids == [f"HumanEval/{i}" for i in range(40)]


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide has no subprocesses")
def test_figures_and_reasons_do_not_depend_on_string_hashing(tmp_path):
    # two elements on every row (a system turn and a fixed answer) tie: the first seen is
    # quoted, whatever PYTHONHASHSEED the process has (the page's Python and the CLI's differ)
    rows = [
        {
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": f"name river {i} of the long valley"},
                {"role": "assistant", "content": "The same answer every time."},
            ]
        }
        for i in range(3)
    ]
    f = tmp_path / "c.jsonl"
    f.write_text(as_jsonl(rows), encoding="utf-8")
    import subprocess

    code = (
        "import json, sys; from evalsieve.sample import inspect_head; "
        "print(json.dumps(inspect_head('c.jsonl', open(sys.argv[1]).read(), complete=True)))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code, str(f)],
            capture_output=True,
            text=True,
            check=True,
            env={
                **os.environ,
                "PYTHONHASHSEED": str(seed),
                "PYTHONPATH": os.path.join(HEADS, "..", "..", "..", "py"),
            },
        ).stdout
        for seed in range(6)
    }
    assert len(outs) == 1
    info = json.loads(outs.pop())
    whole = next(x for x in info["fields"] if x["path"] == "messages[].content")
    assert (
        whole["shared"] == "the same element on 3 of 3 sampled rows ('You are a helpful "
        "assistant.')"
    )
