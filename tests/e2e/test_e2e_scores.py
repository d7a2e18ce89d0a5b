"""Score impact in the real page: drop an eval file, a training file and a per-row
scores file, read the plot and the table, download score-impact.csv and hold it to the CLI's
on the same three files (evalsieve.cli.main in-process). Bad scores files end in an error
that names the file and the line.

Fixtures (tests/fixtures/README.md): gsm8k_test_sample.jsonl (40 GSM8K test rows),
train_mix.jsonl (7 of them contaminated), samples_gsm8k_sample.jsonl (an lm-eval
--log_samples file for the 40 rows: filters strict-match then flexible-extract).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostile_common import read_csv_export, read_stamped
from pagekit import choose_file, close_page, open_page, wait_for_runs
from test_e2e_contamination import check_protocol, run_and_wait, worker_messages

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EVAL = FIXTURES / "gsm8k_test_sample.jsonl"
TRAIN = FIXTURES / "train_mix.jsonl"
SAMPLES = FIXTURES / "samples_gsm8k_sample.jsonl"
SCORE_EXPORTS = ["score-impact.csv", "scores-unmatched.csv"]


def read_export(text: str, stamp_text: str | None = None) -> tuple:
    """(fingerprint, rows) of one of our CSV exports; (stamp, rows) with run-stamp.json."""
    return read_stamped(text, stamp_text) if stamp_text else read_csv_export(text)


def cli_contamination(tmp_path: Path, scores: Path, *extra: str) -> tuple[dict, dict]:
    """`evalsieve contamination EVAL TRAIN --scores ...` in-process: (JSON summary, exports)."""
    from evalsieve.cli import main

    out = tmp_path / "cli"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(
            [
                "contamination",
                str(EVAL),
                str(TRAIN),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(out),
                "--quiet",
                "--json",
                "--scores",
                str(scores),
                *extra,
            ]
        )
    assert code == 0
    return json.loads(buf.getvalue()), {
        n: (out / n).read_text(encoding="utf-8") for n in (*SCORE_EXPORTS, "run-stamp.json")
    }


def choose_scores(page, path: Path, prefix: str = "", filter_name: str = "") -> None:
    page.set_input_files(f"#{prefix}scores-file", str(path))
    page.wait_for_selector(
        f'#{prefix}scores-drop[data-file="{path.name}"][data-state="ready"]', timeout=60_000
    )
    page.select_option(f"#{prefix}score-filter", filter_name)


def download(page, name: str, folder: Path) -> str:
    with page.expect_download() as info:
        page.click(f'button[data-export="{name}"]')
    assert info.value.suggested_filename == name
    target = folder / name
    info.value.save_as(target)
    return target.read_text(encoding="utf-8")


def plot_points(page, box: str) -> list[dict]:
    """The plot's points as drawn: key, label, mean/lo/hi (data-*), and its SVG parts."""
    return page.evaluate(
        """(box) => [...document.querySelectorAll(`${box} svg.score-plot g.point`)].map((g) => ({
        key: g.dataset.point, label: g.querySelector('text.label').textContent,
        mean: Number(g.dataset.mean), lo: Number(g.dataset.lo), hi: Number(g.dataset.hi),
        whiskers: g.querySelectorAll('line.whisker').length, dots: g.querySelectorAll('circle.mean').length,
        cx: Number(g.querySelector('circle.mean')?.getAttribute('cx')),
        x1: Number(g.querySelector('line.whisker')?.getAttribute('x1')),
        x2: Number(g.querySelector('line.whisker')?.getAttribute('x2')) }))""",
        box,
    )


@pytest.fixture
def page(browser_context, base_url):
    p = open_page(browser_context, base_url)
    wait_for_runs(p, 1)  # the worked example at load
    yield p
    close_page(p)


CLIPPED_TEXT = """(sel) => {
    // the <text>s of each chart that leave its box, and the pairs of them that overlap
    const out = [];
    for (const s of document.querySelectorAll(sel)) {
        const box = s.getBoundingClientRect();
        const room = s.parentElement.getBoundingClientRect();   // the chart fits its box and the window
        if (box.right > Math.min(room.right, window.innerWidth) + 0.5 || box.left < room.left - 0.5) out.push(`chart wider than its box: ${s.id || s.className.baseVal}`);
        const rs = [...s.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()]);
        for (const [t, r] of rs) {
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) out.push(`outside: ${t}`);
        }
        rs.forEach(([a, r], i) => rs.slice(i + 1).forEach(([b, q]) => {
            const w = Math.min(r.right, q.right) - Math.max(r.left, q.left), h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
            if (w > 0.5 && h > 0.5) out.push(`overlap: ${a} / ${b}`);
        }));
    }
    return out;
}"""


def test_three_files_plot_table_and_csv_equal_the_cli(page, tmp_path):
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", TRAIN, ["text"])
    choose_scores(page, SAMPLES, filter_name="strict-match")
    # the file's filters are a choice, each with its rows (40 of each in the fixture)
    options = page.eval_on_selector_all(
        "#score-filter option", "os => os.map((o) => o.textContent)"
    )
    assert options == [
        "choose one of 2 filters",
        "strict-match (40 rows)",
        "flexible-extract (40 rows)",
    ]
    assert run_and_wait(page) == "done", page.text_content("#error")
    # no chart label is clipped by its box or lies over another, at 420 and 1,280 px
    for width in (420, 1280):
        page.set_viewport_size({"width": width, "height": 1000})
        assert page.evaluate(CLIPPED_TEXT, "svg.score-plot, #cont-histogram") == [], width
    page.set_viewport_size({"width": 1280, "height": 1000})
    check_protocol(worker_messages(page))

    # The CSV: every figure equal to the CLI's on the same three files (the stamp line aside,
    # which holds the time and the page's assets; its inputs and settings must agree too).
    summary, cli = cli_contamination(tmp_path, SAMPLES, "--score-filter", "strict-match")
    got = {n: download(page, n, tmp_path) for n in (*SCORE_EXPORTS, "run-stamp.json")}
    page_stamp, page_rows = read_export(got["score-impact.csv"], got["run-stamp.json"])
    cli_stamp, cli_rows = read_export(cli["score-impact.csv"], cli["run-stamp.json"])
    assert page_rows == cli_rows
    assert page_stamp["inputs"] == cli_stamp["inputs"]  # names, sha256, bytes: scores included
    assert page_stamp["inputs"][2]["role"] == "scores"
    assert {k: v for k, v in page_stamp["settings"].items() if k.startswith("score_")} == {
        k: v for k, v in cli_stamp["settings"].items() if k.startswith("score_")
    }
    assert (
        read_export(got["scores-unmatched.csv"])[1]
        == read_export(cli["scores-unmatched.csv"])[1]
        == []
    )
    by = {r["subset"]: r for r in page_rows}
    # Hand check of the fixture: 7 contaminated rows, 1 of 40 right (doc_id 4 = eval row 5,
    # which train_mix.jsonl quotes: so 1/7 contaminated, 0/33 clean).
    assert (by["all"]["n"], by["clean"]["n"], by["contaminated"]["n"]) == ("40", "33", "7")
    assert float(by["all"]["mean"]) == 0.025

    # The plot: three points (all, clean, contaminated), each a dot and a whisker with caps,
    # at the CSV's means and intervals, left to right in the order of their values.
    pts = plot_points(page, "#score-impact")
    assert [p["key"] for p in pts] == ["all", "clean", "contaminated"]
    assert [p["label"] for p in pts] == [
        "all joined rows (n=40)",
        "clean rows (n=33)",
        "contaminated rows (n=7)",
    ]
    for p in pts:
        row = by[p["key"]]
        assert (p["dots"], p["whiskers"]) == (1, 3)
        assert p["mean"] == pytest.approx(float(row["mean"]), abs=5e-7)
        assert (p["lo"], p["hi"]) == (
            pytest.approx(float(row["ci95_lo"]), abs=5e-7),
            pytest.approx(float(row["ci95_hi"]), abs=5e-7),
        )
        assert p["x1"] <= p["cx"] <= p["x2"]
    assert pts[1]["cx"] < pts[0]["cx"] < pts[2]["cx"]  # 0 < 0.025 < 0.143

    # The table, and the settings printed beside it.
    cells = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#score-impact tr[data-subset]')]
        .map((tr) => [tr.dataset.subset, [...tr.children].map((td) => td.textContent)]))""")
    assert cells["contaminated"][1:4] == ["7", "0.1429", "[0.0257, 0.5131]"]
    assert cells["difference_contaminated_minus_clean"][2:4] == ["0.1429", "[-0.0140, 0.5131]"]
    assert summary["score_impact"]["difference_contaminated_minus_clean"]["ci95"][
        0
    ] == pytest.approx(-0.0140, abs=5e-5)
    setting = lambda k: page.text_content(f'#score-impact dd[data-score-setting="{k}"]')  # noqa: E731
    assert setting("filter").startswith("strict-match (40 rows of flexible-extract left out)")
    assert setting("join") == "doc_id = 0-based eval row (by order)"
    assert setting("N") == "13"


def test_two_filters_without_a_choice_name_the_file_and_line(page):
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", TRAIN, ["text"])
    choose_scores(page, SAMPLES)  # no filter chosen: strict-match and flexible-extract
    assert run_and_wait(page) == "error"
    text = page.text_content("#error")
    assert SAMPLES.name in text and "line 41" in text, text
    assert "more than one filter" in text and "flexible-extract" in text
    assert page.get_attribute("#error", "data-code") == "bad_input"
    assert page.is_hidden("#results")


def test_duplicated_doc_id_names_the_file_and_both_lines(page, tmp_path):
    lines = SAMPLES.read_text(encoding="utf-8").splitlines(keepends=True)[:40]  # strict-match
    bad = tmp_path / "samples_dup.jsonl"
    bad.write_text("".join(lines[:10] + [lines[3]] + lines[10:]), encoding="utf-8")
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", TRAIN, ["text"])
    choose_scores(page, bad)
    assert run_and_wait(page) == "error"
    text = page.text_content("#error")
    assert bad.name in text and "line 11" in text and "used twice (lines 4 and 11)" in text, text


def test_scores_keyed_by_question_with_an_unmatched_row(page, tmp_path):
    """A plain CSV table joined by a key (scores `q` = eval `question`): one score row
    matches no eval row and is listed in scores-unmatched.csv, as by the CLI."""
    qs = [json.loads(x)["question"] for x in EVAL.open(encoding="utf-8")]
    table = tmp_path / "scores_by_question.csv"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["q", "acc"])
    for i, q in enumerate(qs[:30]):
        w.writerow([q, 1 if i % 3 == 0 else 0])
    w.writerow(["a question that is not in the eval set", 1])
    table.write_text(buf.getvalue(), encoding="utf-8")
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", TRAIN, ["text"])
    choose_scores(page, table)
    page.select_option("#score-key", "q")
    page.select_option("#score-eval-key", "question")
    assert run_and_wait(page) == "done", page.text_content("#error")
    got = {n: download(page, n, tmp_path) for n in SCORE_EXPORTS}
    _, cli = cli_contamination(tmp_path, table, "--score-key", "q=question")
    assert read_export(got["score-impact.csv"])[1] == read_export(cli["score-impact.csv"])[1]
    unmatched = read_export(got["scores-unmatched.csv"])[1]
    assert unmatched == read_export(cli["scores-unmatched.csv"])[1]
    assert [(u["side"], u["score_line"]) for u in unmatched if u["side"] == "scores"] == [
        ("scores", "32")
    ]
    assert len([u for u in unmatched if u["side"] == "eval"]) == 10  # rows 31..40 unscored
    assert (
        page.text_content('#score-impact dd[data-score-setting="eval rows without a score"]')
        == "10"
    )


# --------------------------------------------------------------------------- paraphrases


def paired_rows(folder: Path) -> tuple[Path, Path]:
    """20 GSM8K questions and the same 20 with " (again)" appended (rows i and 20 + i are
    paraphrases), and a CSV of scores by id where both copies score alike (1 for even i)."""
    qs = [json.loads(x)["question"] for x in EVAL.open(encoding="utf-8")][:20]
    rows = [(f"a{i}", q) for i, q in enumerate(qs)] + [
        (f"b{i}", f"{q} (again)") for i, q in enumerate(qs)
    ]
    ev = folder / "paired.jsonl"
    ev.write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), encoding="utf-8"
    )
    sc = folder / "paired_scores.csv"
    sc.write_text(
        "id,acc\n" + "".join(f"{i},{1 - int(i[1:]) % 2}\n" for i, _ in rows), encoding="utf-8"
    )
    return ev, sc


def test_paraphrases_naive_and_clustered_se_in_the_page_equal_the_cli(
    browser_context, base_url, dist_dir, tmp_path
):
    from test_e2e_paraphrases import open_paraphrases, para_runs, wait_para_runs

    ev, sc = paired_rows(tmp_path)
    p = open_paraphrases(browser_context, base_url)
    try:
        before = para_runs(p)
        p.set_input_files("#para-file", str(ev))
        p.wait_for_selector(
            f'#para-fields[data-file="{ev.name}"][data-state="ready"]', timeout=60_000
        )
        p.check('#para-fields input[name="para-field"][data-path="text"]')
        choose_scores(p, sc, prefix="para-")
        p.select_option("#para-score-key", "id")
        p.select_option("#para-score-eval-key", "id")
        p.click("#para-run")
        assert wait_para_runs(p, before + 1) == "done", p.text_content("#para-error")
        threshold = p.get_attribute("#para-results", "data-threshold")
        assert p.text_content('#para-figures dd[data-figure="groups"]') == "20"
        # 20 clusters of two rows scoring alike: design effect = G/(G − 1) · 2 · (N − 1)/N
        # = 20/19 · 2 · 39/40 (hand-worked: each cluster's residual sum is twice a row's).
        deff = 20 / 19 * 2 * 39 / 40
        assert p.text_content('#para-score-impact dd[data-figure="design_effect"]') == f"{deff:.4f}"
        assert (
            p.text_content('#para-score-impact dd[data-figure="effective_n"]') == f"{40 / deff:.1f}"
        )
        pts = plot_points(p, "#para-score-impact")
        assert [q["key"] for q in pts] == ["naive", "clustered", "one_per_group"]
        assert [q["label"] for q in pts] == [
            "naive (n=40)",
            "clustered (G=20)",
            "one per group (n=20)",
        ]
        naive, clustered, one = pts
        assert naive["mean"] == clustered["mean"] == one["mean"] == 0.5
        assert clustered["x2"] - clustered["x1"] > naive["x2"] - naive["x1"]  # wider whisker
        with p.expect_download() as info:
            p.click('#para-downloads button[data-export="score-impact.csv"]')
        page_csv = tmp_path / "page-score-impact.csv"
        info.value.save_as(page_csv)
    finally:
        close_page(p)
    out = tmp_path / "cli-para"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalsieve.cli",
            "paraphrases",
            str(ev),
            "--out",
            str(out),
            "--field",
            "text",
            "--threshold",
            threshold,
            "--model-dir",
            str(dist_dir / "assets" / "model"),
            "--scores",
            str(sc),
            "--score-key",
            "id",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    page_rows = read_export(page_csv.read_text(encoding="utf-8"))[1]
    assert page_rows == read_export((out / "score-impact.csv").read_text(encoding="utf-8"))[1]
    clustered_row = next(r for r in page_rows if r["subset"] == "all_clustered")
    assert float(clustered_row["design_effect"]) == pytest.approx(deff, abs=5e-6)
