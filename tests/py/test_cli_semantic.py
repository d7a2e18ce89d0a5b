"""The CLI's semantic rung end to end (needs the encoder extra and dist/assets/model).

Fixture (tests/fixtures/make_semantic_fixture.py): the 40 GSM8K test rows of
gsm8k_test_sample.jsonl against WikiText paragraphs, 60 GSM8K train questions (same topic,
other problems) and the GPT-4 rephrasings of eval rows 3 and 15 planted inside paragraphs.
No eval row shares an n-gram with this training file, so only the semantic rung can catch them.
"""

import math
import json
import os
import re

import pytest

from evalsieve.cli import main
from evalsieve.semantic_verifier import (
    VERIFIER_CODE_THRESHOLD,
    VERIFIER_THRESHOLD,
    VERIFIER_WEIGHTS,
)
from hostile_common import read_csv_export

pytest.importorskip(
    "onnxruntime",
    reason="the semantic rung needs the encoder extra "
    "(pip install -e .[encoder]); python3 build.py test installs it",
)
pytest.importorskip("tokenizers", reason="needs the encoder extra")


def rows_of(text):
    return read_csv_export(text)[1]


def run_code(fixtures, model_dir, out, capsys, *flags):
    """The CLI with --semantic on the code fixture (HumanEval programs 0-11 against MBPP
    records with the rephrasings of rows 3 and 12 planted) and `flags`; its JSON summary and
    report rows."""
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    assert (
        main(
            [
                "contamination",
                ev,
                tr,
                "--eval-field",
                "text",
                "--train-field",
                "text",
                "--semantic",
                *flags,
                "--threads",
                "1",
                "--model-dir",
                model_dir,
                "--out",
                str(out),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    s = json.loads(capsys.readouterr().out)
    return s, rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))


def test_planted_rephrasings_are_caught_and_clean_rows_are_not(
    tmp_path, fixtures, model_dir, capsys
):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_train.jsonl")
    out = tmp_path / "o"
    code = main(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--semantic",
            "--threads",
            "1",
            "--out",
            str(out),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rows_contaminated_by_rung"] == {"exact": 0, "ngram": 0, "semantic": 2}
    assert s["rows_scanned"] == 40 and s["rows_contaminated"] == 2 and s["rows_kept"] == 38
    settings = s["stamp"]["settings"]
    assert settings["rungs"] == ["exact", "ngram", "semantic"]
    assert settings["semantic_threshold"] == VERIFIER_THRESHOLD
    assert settings["semantic_code_threshold"] == VERIFIER_CODE_THRESHOLD
    assert settings["semantic_candidates_per_row"] == 8
    assert s["stamp"]["assets"]["encoder_provider"] == "CPUExecutionProvider"
    report = rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))
    caught = {r["eval_row"]: r for r in report if r["rung"]}
    assert sorted(caught, key=int) == ["3", "15"]
    with open(tr, encoding="utf-8") as f:
        train = [json.loads(line)["text"] for line in f]
    for r in caught.values():
        assert r["rung"] == "semantic" and r["status"] == "contaminated"  # caught: dirty
        assert float(r["semantic_score"]) >= VERIFIER_THRESHOLD
        assert float(r["semantic_cosine"]) > 0.7 and r["semantic_part"] == "row"
        # the window is a span of the planted record's words
        assert r["training_window"] in " ".join(
            train[int(r["semantic_training_record"]) - 1].split()
        )
    assert "house" in caught["3"]["training_window"]
    clean = [r for r in report if not r["rung"]]
    assert len(clean) == 38
    assert all(float(r["semantic_score"] or 0) < VERIFIER_THRESHOLD for r in clean)
    assert {r["status"] for r in clean} == {"clean"}
    kept = (out / "eval.clean.jsonl").read_text(encoding="utf-8").splitlines()
    with open(ev, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert kept == [l for i, l in enumerate(lines, 1) if i not in (3, 15)]
    html = (out / "overlap-report.html").read_text(encoding="utf-8")
    assert "Rung semantic (2 rows caught)" in html and "clean at these rungs" in html
    cpu = "all-MiniLM-L6-v2 int8 (encoder.onnx) on CPUExecutionProvider"
    assert re.search(">encoder</td><td[^>]*>" + re.escape(cpu) + "</td>", html)
    assert "Contaminated rows (2)" in html and "Caught first by the semantic rung (2)" in html
    listed = html.split("<h2>Contaminated rows")[1].split("<h2>")[0]
    assert [int(x) for x in re.findall(r'<tr><td class="num">(\d+)</td>', listed)] == [3, 15]


def test_semantic_rows_kept_in_eval_clean_are_still_contaminated(
    tmp_path, fixtures, model_dir, capsys
):
    """--exclude-rungs exact,ngram keeps the semantic rung's rows in eval.clean; the summary,
    the report and the HTML list still count them as contaminated."""
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    out = tmp_path / "o"
    assert (
        main(
            [
                "contamination",
                ev,
                os.path.join(fixtures, "semantic_train.jsonl"),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--semantic",
                "--exclude-rungs",
                "exact,ngram",
                "--threads",
                "1",
                "--model-dir",
                model_dir,
                "--out",
                str(out),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    s = json.loads(capsys.readouterr().out)
    assert s["rows_contaminated"] == 2 and s["rows_kept"] == 40
    assert s["rows_contaminated_by_rung"]["semantic"] == 2
    report = rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))
    assert [(r["eval_row"], r["status"]) for r in report if r["rung"]] == [
        ("3", "contaminated"),
        ("15", "contaminated"),
    ]
    with open(ev, "rb") as f:
        assert (out / "eval.clean.jsonl").read_bytes() == f.read()
    html = (out / "overlap-report.html").read_text(encoding="utf-8")
    assert "Contaminated rows (2)" in html and "Caught first by the semantic rung (2)" in html


def test_exclude_rungs_needs_a_rung_that_runs(tmp_path, fixtures, capsys):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    code = main(
        ["contamination", ev, ev, "--exclude-rungs", "semantic", "--out", str(tmp_path), "--quiet"]
    )
    assert code == 2 and "cannot exclude rung(s) semantic" in capsys.readouterr().err


def test_rephrased_programs_are_caught_by_the_code_channel(tmp_path, fixtures, model_dir, capsys):
    """HumanEval programs 0-11 against MBPP records with the GPT-4 rephrasings of rows 3 and
    12 planted (make_semantic_code_fixture.py): caught with the code channel (scores 0.974
    and 0.943 here; every other row under 0.11); without it both score lower (0.30 and
    0.78) and row 3 is missed."""
    caught, scores = {}, {}
    for ngram in ("3", "0"):
        s, report = run_code(
            fixtures, model_dir, tmp_path / ngram, capsys, "--semantic-code-ngram", ngram
        )
        assert s["stamp"]["settings"]["semantic_code_ngram"] == int(ngram)
        assert s["semantic"]["code_rows"] == (12 if ngram == "3" else 0)
        assert (s["semantic"]["docstring_pairs"] > 0) is (ngram == "3")
        caught[ngram] = sorted(int(r["eval_row"]) for r in report if r["rung"] == "semantic")
        scores[ngram] = {int(r["eval_row"]): float(r["semantic_score"]) for r in report}
    on, off = scores["3"], scores["0"]
    assert on[3] > 0.9 and on[12] > 0.9
    assert max(v for k, v in on.items() if k not in (3, 12)) < 0.2
    assert off[3] < on[3] and off[12] < on[12] and off[3] < VERIFIER_THRESHOLD
    assert caught["3"] == [3, 12] and 3 not in caught["0"]


def test_code_columns_recompute_the_score(tmp_path, fixtures, model_dir, capsys):
    """The report's code evidence and docstring cosine columns: every row's score recomputed
    from its own columns by the rule written out again (semantic_verifier.py): σ(b0 +
    b1·max(cosine, docstring cosine) + b2·lexical + b3·(code + max(0, code − runner-up))),
    less max(0, rival − score)."""
    s, rows = run_code(fixtures, model_dir, tmp_path / "o", capsys)
    assert s["semantic"]["docstring_pairs"] > 0
    with_doc = [r for r in rows if r["semantic_docstring_cosine"]]
    assert with_doc  # the planted rows' windows hold their docstrings
    for r in rows:
        assert r["semantic_code"] != "" and r["semantic_code_runner_up"] != ""
        assert abs(final(r) - float(r["semantic_score"])) <= 5e-4, r["eval_row"]


def final(r: dict) -> float:
    """The final score from a report row's own columns, by the rule written out again."""
    f = lambda k: float(r[k]) if r[k] else None  # noqa: E731
    meaning = max(f("semantic_cosine"), f("semantic_docstring_cosine") or -1.0)
    margin = max(0.0, f("semantic_code") - f("semantic_code_runner_up"))
    b = VERIFIER_WEIGHTS
    z = b[0] + b[1] * meaning + b[2] * f("semantic_lexical") + b[3] * (f("semantic_code") + margin)
    score = 1 / (1 + math.exp(-z))
    if r["semantic_rival"]:
        score = max(0.0, score - max(0.0, f("semantic_rival") - score))
    return score


def test_the_verifier_switches_are_gone(tmp_path, fixtures, capsys):
    """The docstring cosine, explaining away and the code margin are parts of the fitted
    verifier now, not settings: their old flags are usage errors, not ignored."""
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    for flag in (
        ["--no-semantic-explain-away"],
        ["--semantic-code-margin", "0"],
        ["--no-semantic-docstring-cosine"],
    ):
        with pytest.raises(SystemExit) as e:
            main(["contamination", ev, tr, "--semantic", *flag, "--out", str(tmp_path / "o")])
        assert e.value.code == 2
        assert f"unrecognized arguments: {flag[0]}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_semantic_threshold_sets_the_threshold_of_every_row(tmp_path, fixtures, model_dir, capsys):
    """--semantic-threshold X replaces both fitted thresholds (prose and code rows): on the
    code fixture (rows 3 and 12 score 0.974 and 0.943, both over VERIFIER_CODE_THRESHOLD)
    X = 0.95 leaves row 12 out."""
    s, report = run_code(
        fixtures, model_dir, tmp_path / "t", capsys, "--semantic-threshold", "0.95"
    )
    st = s["stamp"]["settings"]
    assert st["semantic_threshold"] == st["semantic_code_threshold"] == 0.95
    scores = {int(r["eval_row"]): float(r["semantic_score"] or 0) for r in report}
    assert scores[12] == pytest.approx(0.943, abs=2e-3) and scores[3] > 0.95
    assert VERIFIER_CODE_THRESHOLD < scores[12]
    assert [int(r["eval_row"]) for r in report if r["rung"] == "semantic"] == [3]


def test_semantic_settings_without_semantic_are_a_usage_error(tmp_path, fixtures, capsys):
    """A new user's find: --semantic-code-ngram 5 without --semantic ran and ignored it."""
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    with pytest.raises(SystemExit) as e:
        main(
            [
                "contamination",
                ev,
                tr,
                "--eval-field",
                "text",
                "--train-field",
                "text",
                "--semantic-code-ngram",
                "5",
                "--semantic-threshold",
                "0.9",
                "--out",
                str(tmp_path / "o"),
            ]
        )
    assert e.value.code == 2
    assert (
        "--semantic-threshold, --semantic-code-ngram only apply with --semantic"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "o").exists()
