"""In the real page: inputs as people have them and what the result says about them.

Quoted TSV (the issue's minimal case), a `;`-separated file with lone-CR line ends named .tsv,
chat data narrowed to user turns with an element filter (shown in the field list with the
default marked and its reason), Parquet read in the worker (fields from the schema; the clean
Parquet file is checked in test_e2e_parquet_clean.py), the clean setting,
the containment histogram and the too-short warning. Expected values come from the
independent reference (gpt3_reference.py) over Python's csv/json parse of the same bytes, or
from the CLI (pyarrow) for Parquet.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from hostile_common import read_csv_export, read_stamped
from pagekit import choose_file, wait_for_runs
from gpt3_reference import contamination

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUN_TIMEOUT_MS = 120_000
USER = "messages[role=user].content"


def settings(page, n="", threshold="", clean="scored") -> None:
    page.fill("#setting-n", n)
    page.fill("#setting-threshold", threshold)
    page.select_option("#setting-clean", clean)


def run(page) -> str:
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    return wait_for_runs(page, before + 1, RUN_TIMEOUT_MS)


def count(page, label: str) -> int:
    return int(page.text_content(f'#counts dd[data-count="{label}"]').strip().replace(",", ""))


def last_result(page) -> dict:
    msgs = page.evaluate(
        "window.__workerMessages.filter(m => m.type === 'result' && m.data && m.data.exports)"
    )
    return msgs[-1]["data"]


def download(page, name: str, folder: Path) -> bytes:
    with page.expect_download() as info:
        page.click(f'button[data-export="{name}"]')
    target = folder / name
    info.value.save_as(target)
    assert info.value.suggested_filename == name
    return target.read_bytes()


def report(text: str, stamp_text: str | None = None) -> tuple:
    """(fingerprint, rows) of a CSV export; (stamp, rows) with the run's run-stamp.json."""
    return read_stamped(text, stamp_text) if stamp_text else read_csv_export(text)


def field_paths(page, role: str, selector: str = ".field-list:not(.filter-list)") -> list[str]:
    return page.eval_on_selector_all(
        f"#{role}-fields {selector} input", "xs => xs.map(x => x.dataset.path)"
    )


def tick(page, role: str, fields: list[str]) -> None:
    """Tick exactly `fields` in a side's field list (plain and element-filter paths)."""
    for box in page.query_selector_all(f"#{role}-fields input[type=checkbox]"):
        if box.is_checked() != (box.get_attribute("data-path") in fields):
            box.click()
    for f in fields:
        assert page.is_checked(f'#{role}-fields input[data-path="{f}"]'), f


def train_jsonl(folder: Path, texts: list[str]) -> Path:
    p = folder / "train.jsonl"
    p.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return p


def test_quoted_tsv_minimal_case_is_one_row_correctly_scored(tab, tmp_path):
    # the printf, byte for byte
    data = (
        b'question\tanswer\n"What did Nixon mean by ""I am not a crook""?"\t"He was answering '
        b"a question about his personal finances\nduring a press conference in Orlando in "
        b'1973"\n'
    )
    path = tmp_path / "quoted.tsv"
    path.write_bytes(data)
    rows = list(csv.DictReader(io.StringIO(data.decode(), newline=""), delimiter="\t"))
    assert len(rows) == 1  # Python's csv reader: one record
    want = contamination([rows[0]["answer"]], [rows[0]["answer"]], n=8)["rows"]
    assert want[0]["total"] == 10  # 17 words, N = 8

    choose_file(tab, "train", path, ["answer"])
    choose_file(tab, "eval", path, ["answer"])
    assert "tsv" in tab.text_content("#eval-fields legend")
    assert field_paths(tab, "eval") == ["question", "answer"]
    settings(tab, n="8")
    assert run(tab) == "done", tab.text_content("#error")
    assert count(tab, "eval rows scanned") == 1
    assert count(tab, "scored") == 1 and count(tab, "contaminated") == 1
    _, got = report(
        next(
            x["text"]
            for x in last_result(tab)["exports"]
            if x["name"] == "contamination-report.csv"
        )
    )
    assert [(r["eval_row"], r["containment"], r["ngrams_total"]) for r in got] == [
        ("1", "1.0000", str(want[0]["total"]))
    ]


def test_semicolon_file_with_lone_cr_named_tsv(tab, tmp_path):
    qs = [
        "Which river flows through the old town of Heidelberg and joins the Rhine; near Mannheim?",
        "How many bridges crossed the river in the painted map of the city from the year 1620?",
        "Why did the village council move the weekly market from the square to the meadow?",
    ]
    lines = ["id;question\r"] + [f'{i + 1};"{q}"\r' for i, q in enumerate(qs)]
    path = tmp_path / "excel-export.tsv"
    path.write_bytes("".join(lines).encode())
    train = train_jsonl(tmp_path, ["A walking tour: " + qs[1] + " Nobody knows.", "Bread ovens."])
    parsed = list(csv.DictReader(io.StringIO("".join(lines), newline=""), delimiter=";"))
    assert [r["question"] for r in parsed] == qs
    want = contamination(qs, ["A walking tour: " + qs[1] + " Nobody knows.", "Bread ovens."], n=8)

    choose_file(tab, "train", train, ["text"])
    choose_file(tab, "eval", path, ["question"])
    assert field_paths(tab, "eval") == ["id", "question"]  # two columns, not one
    assert "csv-semicolon" in tab.text_content("#eval-fields legend")
    settings(tab, n="8")
    assert run(tab) == "done", tab.text_content("#error")
    assert count(tab, "eval rows scanned") == 3
    assert (
        count(tab, "contaminated") == sum(r["status"] == "contaminated" for r in want["rows"]) == 1
    )
    kept = [i for i, r in enumerate(want["rows"]) if r["status"] == "clean"]
    clean = download(tab, "eval.clean.csv", tmp_path)  # named after the format read: CSV
    assert clean == (lines[0] + "".join(lines[1 + i] for i in kept)).encode()  # own bytes, CRs


def chat_rows() -> tuple[list[dict], list[str]]:
    system = "You are a careful assistant who answers questions about geography and history."
    qs = [
        "Which mountain pass did the salt traders use when the lower road was flooded in spring?",
        "What was the name of the ship that carried the first mail across the northern sea route?",
        "Who rebuilt the lighthouse on the island after the great storm of the last winter?",
    ]
    answers = [
        "They used the high pass above the lake, which stayed dry through the melt.",
        "The records do not keep the name of that small schooner, only its captain.",
        "The harbour master and eleven captains of the fishing fleet paid for it.",
    ]
    rows = [
        {
            "id": i + 1,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": q},
                {"role": "assistant", "content": a},
            ],
        }
        for i, (q, a) in enumerate(zip(qs, answers))
    ]
    return rows, [
        "Exam sheet, part two. " + qs[0] + " Answer in one sentence.",
        "Notes: " + qs[2] + " See the parish records.",
    ]


def test_element_filter_in_the_picker_scores_user_turns(tab, tmp_path):
    from evalsieve.sample import inspect_head

    rows, train_texts = chat_rows()
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    info = inspect_head(path.name, path.read_text(encoding="utf-8"), complete=True)

    choose_file(tab, "train", train_jsonl(tmp_path, train_texts), ["text"])
    choose_file(tab, "eval", path)
    filters = field_paths(tab, "eval", ".filter-list")
    assert USER in filters and "messages[role=system].content" in filters
    assert filters == [f["path"] for f in info["filter_fields"]]
    marked = tab.eval_on_selector_all("#eval-fields li.default input", "xs => xs.map(x => x.value)")
    assert marked == info["default_fields"] and marked
    assert tab.is_visible("#eval-fields li.default .default-mark")
    assert info["default_reason"] in tab.text_content("#eval-fields .default-reason")
    sys_item = '#eval-fields li:has(input[data-path="messages[role=system].content"])'
    assert "constant" in tab.get_attribute(sys_item, "class").split()
    assert "the same value on 3 of 3 sampled rows" in tab.text_content(sys_item)

    tick(tab, "eval", [USER])
    settings(tab, n="8")
    assert run(tab) == "done", tab.text_content("#error")
    want = contamination([r["messages"][1]["content"] for r in rows], train_texts, n=8)["rows"]
    _, got = report(
        next(
            x["text"]
            for x in last_result(tab)["exports"]
            if x["name"] == "contamination-report.csv"
        )
    )
    assert [(int(r["eval_row"]), r["status"], r["containment"]) for r in got] == [
        (w["row"], w["status"], f"{w['containment']:.4f}") for w in want
    ]
    assert [r["containment"] for r in got if r["status"] == "contaminated"] == ["1.0000", "1.0000"]


def test_parquet_in_the_page(tab, tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet", reason="the reference run needs pyarrow")
    from evalsieve.cli import main

    ev, tr = FIXTURES / "chat_eval.parquet", FIXTURES / "chat_train.parquet"
    choose_file(tab, "train", tr, ["text"])
    choose_file(tab, "eval", ev)
    assert "parquet" in tab.text_content("#eval-fields legend")
    assert field_paths(tab, "eval") == [
        "id",
        "meta.source",
        "meta.year",
        "messages[].role",
        "messages[].content",
    ]
    assert USER in field_paths(tab, "eval", ".filter-list")
    logs = tab.evaluate(
        "window.__workerMessages.filter(m => m.type === 'log' && m.data && "
        "m.data.kind === 'inspected' && m.data.format === 'parquet')"
    )
    assert any("6 rows in 2 row groups" in m["message"] for m in logs), logs
    tick(tab, "eval", [USER])
    settings(tab, n="8", clean="not-contaminated")
    assert run(tab) == "done", tab.text_content("#error")
    assert count(tab, "eval rows scanned") == 6 and count(tab, "training records") == 4
    assert count(tab, "contaminated") == 2 and count(tab, "too short to score") == 1
    assert count(tab, "kept") == 4

    names = tab.eval_on_selector_all("button[data-export]", "xs => xs.map(x => x.dataset.export)")
    # the clean file itself: tests/e2e/test_e2e_parquet_clean.py reads it with pyarrow
    assert "eval.clean.parquet" in names and "eval.clean.rows.csv" not in names
    note = tab.text_content("#clean-rule")
    assert "eval.clean.parquet keeps 4 rows" in note and "every row not contaminated" in note
    stamp, _ = report(
        download(tab, "contamination-report.csv", tmp_path).decode(),
        download(tab, "run-stamp.json", tmp_path).decode(),
    )
    assert hashlib.sha256(ev.read_bytes()).hexdigest() in json.dumps(stamp)
    assert "every row not contaminated" in json.dumps(stamp)

    out = tmp_path / "cli"
    assert (
        main(
            [
                "contamination",
                str(ev),
                str(tr),
                "--eval-field",
                USER,
                "--train-field",
                "text",
                "--n",
                "8",
                "--clean",
                "not-contaminated",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    _, page_report = report(
        next(
            x["text"]
            for x in last_result(tab)["exports"]
            if x["name"] == "contamination-report.csv"
        )
    )
    _, cli_report = report((out / "contamination-report.csv").read_text(encoding="utf-8"))
    assert page_report == cli_report
    assert [r["id"] for r in pq.read_table(out / "eval.clean.parquet").to_pylist()] == [1, 3, 4, 6]


def test_broken_parquet_names_the_file(tab, tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    choose_file(tab, "eval", path)
    assert tab.get_attribute("#eval-fields", "data-state") == "error"
    text = tab.text_content("#error")
    assert "broken.parquet" in text and "not a readable Parquet file" in text


def test_compressed_parquet_pages_are_read(tab, tmp_path):
    pa = pytest.importorskip("pyarrow", reason="the fixtures are written with pyarrow")
    import pyarrow.parquet as pq

    qs = [
        "The quiet harbour town kept seven lighthouses burning through every winter storm",
        "A patient gardener measured rainfall in copper buckets along the northern wall",
        "Nineteen students carried heavy telescopes up the hill to watch the comet cross",
    ]
    train = train_jsonl(tmp_path, ["Log: " + qs[2] + " at midnight.", "Bread ovens."])
    choose_file(tab, "train", train, ["text"])
    for codec in ("gzip", "zstd", "brotli", "lz4"):
        path = tmp_path / f"{codec}-pages.parquet"
        pq.write_table(
            pa.table({"id": [1, 2, 3], "question": qs}), path, compression=codec, row_group_size=2
        )
        meta = pq.ParquetFile(path).metadata
        assert meta.row_group(0).column(1).compression.lower().startswith(codec[:3])
        choose_file(tab, "eval", path, ["question"])
        settings(tab, n="8")
        assert run(tab) == "done", f"{codec}: {tab.text_content('#error')}"
        assert count(tab, "eval rows scanned") == 3, codec
        _, got = report(
            next(
                x["text"]
                for x in last_result(tab)["exports"]
                if x["name"] == "contamination-report.csv"
            )
        )
        assert [(r["eval_row"], r["status"]) for r in got] == [
            ("1", "clean"),
            ("2", "clean"),
            ("3", "contaminated"),
        ], codec


def test_histogram_warning_and_clean_rule(tab, tmp_path):
    long = [
        "The quiet harbour town kept seven lighthouses burning through every winter storm",
        "A patient gardener measured rainfall in copper buckets along the northern wall",
    ]
    short = ["Too short here.", "Also short.", "Short one.", "Not enough words."]
    texts = long + short
    path = tmp_path / "mostly-short.jsonl"
    path.write_text("".join(json.dumps({"question": t}) + "\n" for t in texts), encoding="utf-8")
    train_texts = ["Log: " + long[0] + " and more.", "Unrelated notes on bread."]
    want = contamination(texts, train_texts, n=8, threshold=0.5)["rows"]

    choose_file(tab, "train", train_jsonl(tmp_path, train_texts), ["text"])
    choose_file(tab, "eval", path, ["question"])
    settings(tab, n="8", threshold="0.5")
    assert run(tab) == "done", tab.text_content("#error")
    assert tab.is_visible("#warnings")
    assert "4 of 6" in tab.text_content("#warnings") and "too short" in tab.text_content(
        "#warnings"
    )

    bars = tab.eval_on_selector_all(
        "#cont-histogram rect.bar",
        "xs => xs.map(x => [Number(x.dataset.bin), Number(x.dataset.count), x.classList.contains('above')])",
    )
    scored = [w for w in want if w["status"] in ("clean", "contaminated")]
    expect = [0] * 10
    for w in scored:
        expect[min(9, int(w["containment"] * 10))] += 1
    assert [c for _, c, _ in bars] == expect and sum(expect) == 2
    assert [b for b, _, above in bars if above] == [5, 6, 7, 8, 9]
    assert tab.get_attribute("#cont-histogram line.threshold", "data-threshold") == "0.50"
    assert "containment" in tab.text_content("#cont-histogram text.x-title")
    assert tab.text_content("#cont-histogram text.y-title") == "eval rows"
    rule = tab.text_content("#clean-rule")
    assert rule.startswith("eval.clean.jsonl keeps 1 row: scored and not contaminated")


def test_parquet_in_the_paraphrases_tab(browser_context, base_url, tmp_path):
    """Parquet rows reach the paraphrase job as JSON values: a repeated row is the only pair."""
    pa = pytest.importorskip("pyarrow", reason="the fixture is written with pyarrow")
    import pyarrow.parquet as pq
    from test_e2e_paraphrases import figures, number, open_paraphrases, para_runs, wait_para_runs

    texts = [
        "The quiet harbour town kept seven lighthouses burning through every winter storm",
        "Nineteen students carried heavy telescopes up the hill to watch the comet cross",
        "Engineers tested the suspension bridge with forty loaded trucks across its span",
    ]
    path = tmp_path / "para.parquet"
    pq.write_table(
        pa.table({"meta": [{"text": t} for t in texts + [texts[0]]]}),
        path,
        row_group_size=2,
        compression="zstd",
    )
    p = open_paraphrases(browser_context, base_url)
    try:
        before = para_runs(p)
        p.set_input_files("#para-file", str(path))
        p.wait_for_selector(
            f'#para-fields[data-file="{path.name}"][data-state="ready"]', timeout=60_000
        )
        assert p.eval_on_selector_all(
            '#para-fields input[name="para-field"]', "xs => xs.map(x => x.value)"
        ) == ["meta.text"]
        p.check('#para-fields input[name="para-field"][data-path="meta.text"]')
        p.click("#para-run")
        assert wait_para_runs(p, before + 1) == "done", p.text_content("#para-error")
        f = figures(p)
        assert number(f["rows_scanned"]) == 4
        assert number(f["pairs"]) == 1 and number(f["groups"]) == 1  # rows 1 and 4 only
        assert f["closest_pair"] == "rows 1 and 4, cosine 1.000"
    finally:
        p.close()


def test_slider_floor_is_explained_beside_the_slider(tab):
    """The page keeps its 0.75 floor for speed and says so beside the
    slider; the number is Python's (constants.PARA_FLOOR), the CLI goes lower."""
    from evalsieve import constants

    note = tab.text_content("#para-floor-note")
    assert f"stops at {constants.PARA_FLOOR}" in " ".join(note.split())
    assert "evalsieve paraphrases --threshold" in note and "goes lower" in note
    assert float(tab.get_attribute("#para-threshold", "min")) == constants.PARA_FLOOR
    assert constants.PARA_CLI_FLOOR < constants.PARA_FLOOR
