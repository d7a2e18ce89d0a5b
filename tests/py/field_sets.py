"""The public eval sets the default-field rule is held to, the chat sets built from them,
and docs/FIELDS.md's table of what the rule picks and the reason it prints.

``python3 tests/py/field_sets.py`` rewrites the table in docs/FIELDS.md from
``../shared/data`` (EVALSIEVE_SHARED_DATA names another folder); test_default_fields.py
fails when the file and the code disagree.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "py"))

from evalsieve.cli import describe, open_input  # noqa: E402

FIELDS_MD = os.path.join(ROOT, "docs", "FIELDS.md")
HEADS = os.path.join(ROOT, "tests", "fixtures", "public_heads")
BEGIN, END = "<!-- default-fields -->", "<!-- /default-fields -->"

#: An OpenAI-style system turn, the same in every row (what made every MBPP row look
#: contaminated when the default was messages[].content).
SYSTEM_PROMPT = (
    "You are an expert Python programmer, and here is your task: write a "
    "function that passes the tests below. Answer with code only."
)
#: A ShareGPT system turn, the same in every row.
TUTOR_PROMPT = (
    "You are a careful math tutor. Think step by step and give the final number "
    "after the four hash signs."
)

#: (set, file below ../shared/data, file in tests/fixtures/public_heads or None, the
#: field a person picks, how the file is built: None (as it is), "openai" or "sharegpt").
SETS = (
    ("GSM8K", "gsm8k/test.jsonl", "gsm8k_test.jsonl", "question", None),
    ("TruthfulQA", "truthfulqa/TruthfulQA.csv", "TruthfulQA.csv", "Question", None),
    ("MMLU", "mmlu/test/anatomy_test.csv", "mmlu_anatomy_test.csv", "question", None),
    (
        "ARC-Challenge",
        "arc_challenge/arc_challenge_test.jsonl",
        "arc_challenge_test.jsonl",
        "question",
        None,
    ),
    ("MBPP", "mbpp/mbpp.jsonl", "mbpp.jsonl", "text", None),
    ("HumanEval", "humaneval/HumanEval.jsonl.gz", "HumanEval.jsonl.gz", "prompt", None),
    ("MATH-500", "math500/math500.jsonl", "math500.jsonl", "problem", None),
    ("GSM-Hard", "gsm_hard_pal/gsmhardv2.jsonl", None, "input", None),
    (
        "OpenAI chat (MBPP, shared system turn)",
        "mbpp/mbpp.jsonl",
        "mbpp.jsonl",
        "messages[role=user].content",
        "openai",
    ),
    (
        "ShareGPT chat (GSM8K, shared system turn)",
        "gsm8k/test.jsonl",
        "gsm8k_test.jsonl",
        "conversations[from=human].value",
        "sharegpt",
    ),
)


def read_rows(path: str) -> list[dict]:
    """The JSON Lines records of a (gzip or plain) file."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def openai_chat(rows: list[dict], prompt: str = SYSTEM_PROMPT) -> list[dict]:
    """MBPP-shaped rows as OpenAI chat records: system (the same in every row), user (the
    task text), assistant (the code)."""
    return [
        {
            "messages": [
                {"role": "system", "content": prompt},
                {"role": "user", "content": r["text"]},
                {"role": "assistant", "content": r["code"]},
            ]
        }
        for r in rows
    ]


def sharegpt_chat(rows: list[dict], prompt: str = TUTOR_PROMPT) -> list[dict]:
    """GSM8K-shaped rows as ShareGPT records: an id, then system (the same in every row),
    human (the question), gpt (the answer)."""
    return [
        {
            "id": f"gsm8k-{i}",
            "conversations": [
                {"from": "system", "value": prompt},
                {"from": "human", "value": r["question"]},
                {"from": "gpt", "value": r["answer"]},
            ],
        }
        for i, r in enumerate(rows)
    ]


def as_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def inspect_set(path: str, build: str | None) -> dict:
    """What `evalsieve fields` reads for a set's file (cli.describe: the file's head, as
    sampled by sample.inspect_head): the file itself, or the chat file built from it,
    written to a temporary folder first."""
    if build:
        rows = read_rows(path)
        rows = openai_chat(rows) if build == "openai" else sharegpt_chat(rows)
        with tempfile.TemporaryDirectory() as d:
            chat = os.path.join(d, f"{build}_{os.path.basename(path).split('.')[0]}.jsonl")
            with open(chat, "w", encoding="utf-8") as f:
                f.write(as_jsonl(rows))
            return describe(open_input(chat))[0]
    return describe(open_input(path))[0]


def table(shared: str) -> str:
    """docs/FIELDS.md's table: one row per set with the field the rule picks and the reason
    `evalsieve fields` prints for it, from the full files in ``shared``."""
    lines = ["| set | file | default field | reason printed |", "|---|---|---|---|"]
    for name, rel, _, _, build in SETS:
        info = inspect_set(os.path.join(shared, rel), build)
        field = info["default_fields"][0] if info["default_fields"] else "(none)"
        what = (
            f"`{rel}`"
            + {
                None: "",
                "openai": " as OpenAI `messages`",
                "sharegpt": " as ShareGPT `conversations`",
            }[build]
        )
        reason = info["default_reason"].replace("|", "\\|")
        lines.append(f"| {name} | {what} | `{field}` | {reason} |")
    return "\n".join(lines) + "\n"


def documented() -> str:
    """The table as docs/FIELDS.md holds it (between the BEGIN and END markers)."""
    text = open(FIELDS_MD, encoding="utf-8").read()
    return text.split(BEGIN, 1)[1].split(END, 1)[0].lstrip("\n")


def documented_fields() -> dict[str, str]:
    """``{set: default field}`` from docs/FIELDS.md's table."""
    out = {}
    for line in documented().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        out[cells[0]] = cells[2].strip("`")
    return out


def write(shared: str) -> None:
    text = open(FIELDS_MD, encoding="utf-8").read()
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(FIELDS_MD, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + table(shared) + END + tail)


if __name__ == "__main__":
    write(
        os.environ.get(
            "EVALSIEVE_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data")
        )
    )
