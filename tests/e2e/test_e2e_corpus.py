"""A training corpus on the page: a folder, or several files, scanned as one corpus.

The corpus is built here from tests/fixtures/train_mix.jsonl: three shards of different
formats and fields (JSONL `text`, gzip JSONL `text`, CSV `content`), two of them in a
subfolder. The page's exports must equal the CLI's (evalsieve.cli.main, in-process) on the
same files, apart from the run stamp; the report's training_file names each record's file
as both name it (the relative path inside a dropped folder, the base name of a file chosen
alone), and training_record counts from 1 in each file.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

from hostile_common import read_csv_export, read_stamped
from pagekit import choose_file, wait_for_runs
from test_e2e_cli_parity import without_stamp
from test_e2e_contamination import download_all, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EVAL = FIXTURES / "gsm8k_test_sample.jsonl"


def build_corpus(root: Path) -> list[Path]:
    """shards/a/part-0.jsonl (lines 1-40), shards/a/part-1.jsonl.gz (41-80) and
    shards/b/part-2.csv (the rest, column `content`); returns them in corpus order."""
    lines = (FIXTURES / "train_mix.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    a, b = root / "shards" / "a", root / "shards" / "b"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "part-0.jsonl").write_text("".join(lines[:40]), encoding="utf-8")
    with gzip.open(a / "part-1.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("".join(lines[40:80]))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "content"])
    for i, line in enumerate(lines[80:]):
        w.writerow([f"r{i}", json.loads(line)["text"]])
    (b / "part-2.csv").write_text(buf.getvalue(), encoding="utf-8")
    (b / "notes.md").write_text("not a training file: a folder skips it\n", encoding="utf-8")
    return [a / "part-0.jsonl", a / "part-1.jsonl.gz", b / "part-2.csv"]


def cli_exports(train: list[str], out: Path, train_fields: list[str]) -> dict[str, bytes]:
    """The CLI's exports for EVAL (`question`) against the TRAIN arguments, in-process."""
    import sys

    sys.path.insert(0, str(ROOT / "py"))
    from evalsieve.cli import main

    argv = [
        "contamination",
        str(EVAL),
        *train,
        "--out",
        str(out),
        "--quiet",
        "--eval-field",
        "question",
    ]
    for f in train_fields:
        argv += ["--train-field", f]
    assert main(argv) == 0
    return {p.name: p.read_bytes() for p in out.iterdir()}


def report_rows(data: bytes) -> list[tuple[str, str, str, str]]:
    """(eval_row, training_file, training_record, containment) of every report row."""
    return [
        (r["eval_row"], r["training_file"], r["training_record"], r["containment"])
        for r in read_csv_export(data.decode("utf-8"))[1]
    ]


def run_page_corpus(page, tmp_path: Path, how: str, files: list[Path]) -> dict:
    wait_for_runs(page, 1)
    choose_file(page, "eval", EVAL, ["question"])
    if how == "folder":
        page.set_input_files("#train-folder", str(files[0].parents[1]))
        first = "shards/a/part-0.jsonl"
    else:
        page.set_input_files("#train-file", [str(p) for p in reversed(files)])  # any order
        first = files[0].name
    page.wait_for_selector(
        f'#train-fields[data-file="{first}"][data-state="ready"]', timeout=120_000
    )
    legend = page.text_content("#train-fields legend")
    assert "3 files" in legend and "csv" in legend and "jsonl (gzip)" in legend, legend
    for box in page.query_selector_all("#train-fields input[type=checkbox]"):
        if box.is_checked() != (box.get_attribute("data-path") in ("text", "content")):
            box.click()
    assert run_and_wait(page) == "done", page.text_content("#error")
    out = tmp_path / f"page-{how}"
    out.mkdir()
    return download_all(page, out)


@pytest.mark.parametrize("how", ["folder", "files"])
def test_page_corpus_equals_cli(page, tmp_path, how):
    files = build_corpus(tmp_path)
    page_files = run_page_corpus(page, tmp_path, how, files)
    train_args = [str(files[0].parents[1])] if how == "folder" else [str(p) for p in files]
    cli = cli_exports(train_args, tmp_path / "cli", ["text", "content"])
    names = (
        ["shards/a/part-0.jsonl", "shards/a/part-1.jsonl.gz", "shards/b/part-2.csv"]
        if how == "folder"
        else [p.name for p in files]
    )
    rows = report_rows(page_files["contamination-report.csv"])
    assert rows == report_rows(cli["contamination-report.csv"])
    hits = [r for r in rows if r[1]]
    # every shard holds a planted eval question, found in its own file and numbered there
    assert {r[1] for r in hits} == set(names), hits
    assert all(1 <= int(r[2]) <= 47 for r in hits), hits
    for name in page_files:
        page_x, cli_x = without_stamp(name, page_files[name]), without_stamp(name, cli[name])
        if name == "run-stamp.json":
            # known difference, not checked here: with `text` and `content` ticked the
            # page's stamp and the CLI's (--train-field text --train-field content) list
            # the training fields differently
            page_x["settings"].pop("train_fields"), cli_x["settings"].pop("train_fields")
        assert page_x == cli_x, name
    stamp, _ = read_stamped(
        page_files["contamination-report.csv"].decode("utf-8"),
        page_files["run-stamp.json"].decode("utf-8"),
    )
    listed = [i["name"] for i in stamp["inputs"] if i.get("role") == "train"]
    assert listed == names, stamp["inputs"]


def test_page_corpus_names_the_file_without_the_field(page, tmp_path):
    files = build_corpus(tmp_path)
    wait_for_runs(page, 1)
    choose_file(page, "eval", EVAL, ["question"])
    page.set_input_files("#train-file", [str(p) for p in files])
    page.wait_for_selector(
        '#train-fields[data-file="part-0.jsonl"][data-state="ready"]', timeout=120_000
    )
    for box in page.query_selector_all("#train-fields input[type=checkbox]"):
        if box.is_checked() != (box.get_attribute("data-path") == "text"):
            box.click()
    page.click("#run")
    page.wait_for_selector("#error:not([hidden])", timeout=30_000)
    text = page.text_content("#error")
    assert "part-2.csv" in text and "content" in text, text


def chat_corpus(root: Path) -> list[Path]:
    """a_openai.jsonl (OpenAI messages, a system turn on every row) and b_sharegpt.jsonl
    (ShareGPT conversations); eval rows 2 and 5 are user turns, one in each file."""
    qs = [json.loads(line)["question"] for line in EVAL.read_text(encoding="utf-8").splitlines()]
    filler = (
        "The harbour wall was rebuilt twice in the last century after winter storms "
        "broke the old stones apart and the boats moved to the river mouth"
    )
    other = [
        "Which lighthouse on the northern cape was the last to be kept by a family?",
        "How long does the ferry take to cross the bay when the tide is low?",
        "Why were the old mill races filled in when the new road was built?",
        "What did the parish records say about the great flood of that spring?",
    ]
    a = [
        {
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": u},
                {"role": "assistant", "content": filler},
            ]
        }
        for u in (other[0], qs[1], other[1])
    ]
    b = [
        {"conversations": [{"from": "human", "value": h}, {"from": "gpt", "value": filler}]}
        for h in (other[2], other[3], qs[4])
    ]
    paths = [root / "a_openai.jsonl", root / "b_sharegpt.jsonl"]
    for p, rows in zip(paths, (a, b)):
        p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths


def test_page_chat_corpus_defaults_user_turns_with_each_files_reason(page, tmp_path):
    from evalsieve.sample import inspect_head

    files = chat_corpus(tmp_path)
    infos = [inspect_head(p.name, p.read_text(encoding="utf-8"), complete=True) for p in files]
    wait_for_runs(page, 1)
    choose_file(page, "eval", EVAL, ["question"])
    page.set_input_files("#train-file", [str(p) for p in files])
    page.wait_for_selector(
        '#train-fields[data-file="a_openai.jsonl"][data-state="ready"]', timeout=120_000
    )
    checked = page.eval_on_selector_all("#train-fields input:checked", "xs => xs.map(x => x.value)")
    assert checked == ["messages[role=user].content", "conversations[from=human].value"]
    for p, info in zip(files, infos):
        item = f'#train-fields li:has(input[data-path="{info["default_fields"][0]}"])'
        # the reason under each default is its own file's, with that file's figures
        assert (
            page.text_content(f"{item} .default-reason")
            == f"Default: {p.name}: {info['default_reason']}."
        )
    assert run_and_wait(page) == "done", page.text_content("#error")
    out = tmp_path / "page"
    out.mkdir()
    page_files = download_all(page, out)
    cli = cli_exports(
        [str(p) for p in files],
        tmp_path / "cli",
        ["messages[role=user].content", "conversations[from=human].value"],
    )
    rows = report_rows(page_files["contamination-report.csv"])
    assert rows == report_rows(cli["contamination-report.csv"])
    assert [(r[0], r[1], r[2]) for r in rows if r[1]] == [
        ("2", "a_openai.jsonl", "2"),
        ("5", "b_sharegpt.jsonl", "3"),
    ]
