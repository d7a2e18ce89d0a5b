"""The CLI's semantic rung end to end (needs the encoder extra and dist/assets/model).

Fixture (tests/fixtures/make_semantic_fixture.py): the 40 GSM8K test rows of
gsm8k_test_sample.jsonl against WikiText paragraphs, 60 GSM8K train questions (same topic,
other problems) and the GPT-4 rephrasings of eval rows 3 and 15 planted inside paragraphs.
No eval row shares an n-gram with this training file, so only the semantic rung can catch them.
"""

import json
import os
import re

import pytest

from evalsieve.cli import main
from hostile_common import read_csv_export

pytest.importorskip("onnxruntime", reason="the semantic rung needs the encoder extra "
                    "(pip install -e .[encoder]); python3 build.py test installs it")
pytest.importorskip("tokenizers", reason="needs the encoder extra")


def rows_of(text):
    return read_csv_export(text)[1]


def run_code(fixtures, model_dir, out, capsys, *flags):
    """The CLI with --semantic on the code fixture (HumanEval programs 0-11 against MBPP
    records with the rephrasings of rows 3 and 12 planted) and `flags`; its JSON summary and
    report rows."""
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    assert main(["contamination", ev, tr, "--eval-field", "text", "--train-field", "text",
                 "--semantic", *flags, "--threads", "1", "--model-dir", model_dir,
                 "--out", str(out), "--json", "--quiet"]) == 0
    s = json.loads(capsys.readouterr().out)
    return s, rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))


def test_planted_rephrasings_are_caught_and_clean_rows_are_not(tmp_path, fixtures, model_dir,
                                                              capsys):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_train.jsonl")
    out = tmp_path / "o"
    code = main(["contamination", ev, tr, "--eval-field", "question", "--train-field", "text",
                 "--semantic", "--threads", "1", "--out", str(out), "--json", "--quiet"])
    assert code == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rows_contaminated_by_rung"] == {"exact": 0, "ngram": 0, "semantic": 2}
    assert s["rows_scanned"] == 40 and s["rows_contaminated"] == 2 and s["rows_kept"] == 38
    settings = s["stamp"]["settings"]
    assert settings["rungs"] == ["exact", "ngram", "semantic"]
    assert settings["semantic_threshold"] == 0.65 and settings["semantic_candidates_per_row"] == 8
    assert s["stamp"]["assets"]["encoder_provider"] == "CPUExecutionProvider"
    report = rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))
    caught = {r["eval_row"]: r for r in report if r["rung"]}
    assert sorted(caught, key=int) == ["3", "15"]
    with open(tr, encoding="utf-8") as f:
        train = [json.loads(line)["text"] for line in f]
    for r in caught.values():
        assert r["rung"] == "semantic" and r["status"] == "contaminated"   # caught: dirty
        assert float(r["semantic_score"]) >= 0.65 and float(r["semantic_cosine"]) > 0.7
        # the window is a span of the planted record's words
        assert r["training_window"] in " ".join(train[int(r["semantic_training_record"]) - 1]
                                                .split())
    assert "house" in caught["3"]["training_window"]
    clean = [r for r in report if not r["rung"]]
    assert len(clean) == 38 and all(float(r["semantic_score"] or 0) < 0.65 for r in clean)
    assert {r["status"] for r in clean} == {"clean"}
    kept = (out / "eval.clean.jsonl").read_text(encoding="utf-8").splitlines()
    with open(ev, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert kept == [l for i, l in enumerate(lines, 1) if i not in (3, 15)]
    html = (out / "overlap-report.html").read_text(encoding="utf-8")
    assert "Rung semantic (2 rows caught)" in html and "clean at these rungs" in html
    assert "Contaminated rows (2)" in html and "Caught first by the semantic rung (2)" in html
    listed = html.split("<h2>Contaminated rows")[1].split("<h2>")[0]
    assert [int(x) for x in re.findall(r'<tr><td class="num">(\d+)</td>', listed)] == [3, 15]


def test_semantic_rows_kept_in_eval_clean_are_still_contaminated(tmp_path, fixtures, model_dir,
                                                                 capsys):
    """--exclude-rungs exact,ngram keeps the semantic rung's rows in eval.clean; the summary,
    the report and the HTML list still count them as contaminated."""
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    out = tmp_path / "o"
    assert main(["contamination", ev, os.path.join(fixtures, "semantic_train.jsonl"),
                 "--eval-field", "question", "--train-field", "text", "--semantic",
                 "--exclude-rungs", "exact,ngram", "--threads", "1", "--model-dir", model_dir,
                 "--out", str(out), "--json", "--quiet"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rows_contaminated"] == 2 and s["rows_kept"] == 40
    assert s["rows_contaminated_by_rung"]["semantic"] == 2
    report = rows_of((out / "contamination-report.csv").read_text(encoding="utf-8"))
    assert [(r["eval_row"], r["status"]) for r in report if r["rung"]] == [
        ("3", "contaminated"), ("15", "contaminated")]
    with open(ev, "rb") as f:
        assert (out / "eval.clean.jsonl").read_bytes() == f.read()
    html = (out / "overlap-report.html").read_text(encoding="utf-8")
    assert "Contaminated rows (2)" in html and "Caught first by the semantic rung (2)" in html


def test_exclude_rungs_needs_a_rung_that_runs(tmp_path, fixtures, capsys):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    code = main(["contamination", ev, ev, "--exclude-rungs", "semantic", "--out",
                 str(tmp_path), "--quiet"])
    assert code == 2 and "cannot exclude rung(s) semantic" in capsys.readouterr().err


def test_rephrased_programs_are_caught_by_the_code_channel(tmp_path, fixtures, model_dir,
                                                           capsys):
    """HumanEval programs 0-11 against MBPP records with the GPT-4 rephrasings of rows 3 and
    12 planted (make_semantic_code_fixture.py): caught with the code channel (scores 0.77
    and 0.72 here; every other row under 0.41), not without it (0.65 and 0.46)."""
    caught = {}
    for ngram in ("3", "0"):
        s, report = run_code(fixtures, model_dir, tmp_path / ngram, capsys,
                             "--semantic-code-ngram", ngram)
        assert s["stamp"]["settings"]["semantic_code_ngram"] == int(ngram)
        assert s["semantic"]["code_rows"] == (12 if ngram == "3" else 0)
        assert (s["semantic"]["docstring_pairs"] > 0) is (ngram == "3")
        caught[ngram] = sorted(int(r["eval_row"]) for r in report if r["rung"] == "semantic")
        scores = {int(r["eval_row"]): float(r["semantic_score"]) for r in report}
        if ngram == "3":
            assert scores[3] > 0.7 and scores[12] > 0.7
            assert max(v for k, v in scores.items() if k not in (3, 12)) < 0.5
    assert caught == {"3": [3, 12], "0": []}


def test_code_columns_and_docstring_setting(tmp_path, fixtures, model_dir, capsys):
    """The report's code evidence and docstring cosine columns, and
    --no-semantic-docstring-cosine: no docstring pair is embedded, the column stays empty and
    the score is the whole reading, (cosine + (lexical + code) / 2) / 2, recomputed here from
    the row's own columns."""
    reports = {}
    for flag in ("--semantic-docstring-cosine", "--no-semantic-docstring-cosine"):
        s, rows = run_code(fixtures, model_dir, tmp_path / flag, capsys, flag)
        on = flag == "--semantic-docstring-cosine"
        assert s["stamp"]["settings"]["semantic_docstring_cosine"] is on
        assert (s["semantic"]["docstring_pairs"] > 0) is on
        reports[on] = rows
    for r in reports[False]:
        assert r["semantic_docstring_cosine"] == "" and r["semantic_code"] != ""
        whole = (float(r["semantic_cosine"]) + (float(r["semantic_lexical"])
                                                 + float(r["semantic_code"])) / 2) / 2
        assert abs(final(whole, r) - float(r["semantic_score"])) <= 5e-4, r["eval_row"]
    with_doc = [r for r in reports[True] if r["semantic_docstring_cosine"]]
    assert with_doc   # the planted rows' windows hold their docstrings
    for r in with_doc:  # the better of the whole reading and (docstring cosine + code) / 2
        whole = (float(r["semantic_cosine"]) + (float(r["semantic_lexical"])
                                                 + float(r["semantic_code"])) / 2) / 2
        doc = (float(r["semantic_docstring_cosine"]) + float(r["semantic_code"])) / 2
        assert abs(final(max(whole, doc), r) - float(r["semantic_score"])) <= 5e-4, r["eval_row"]


def final(score: float, r: dict) -> float:
    """The final score from a report row's own columns, by the rule written out again:
    less max(0, rival − score), plus 0.25 × max(0, code − code runner-up)."""
    if r["semantic_rival"]:
        score -= max(0.0, float(r["semantic_rival"]) - score)
    return score + 0.25 * max(0.0, float(r["semantic_code"]) - float(r["semantic_code_runner_up"]))


def test_explain_away_and_code_margin_flags(tmp_path, fixtures, model_dir, capsys):
    """--no-semantic-explain-away and --semantic-code-margin 0 reach the config and the
    stamp; with both off, the rival and runner-up columns stay empty and the score is the
    verifier's own reading."""
    s, rows = run_code(fixtures, model_dir, tmp_path / "off", capsys,
                       "--no-semantic-explain-away", "--semantic-code-margin", "0")
    assert s["stamp"]["settings"]["semantic_explain_away"] is False
    assert s["stamp"]["settings"]["semantic_code_margin"] == 0
    assert rows and all(r["semantic_rival"] == "" and r["semantic_code_runner_up"] == ""
                        for r in rows)
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    with pytest.raises(SystemExit):
        main(["contamination", ev, tr, "--semantic", "--semantic-code-margin", "1.5",
              "--out", str(tmp_path / "bad")])
    assert "outside [0, 1]" in capsys.readouterr().err


def test_semantic_settings_without_semantic_are_a_usage_error(tmp_path, fixtures, capsys):
    """A new user's find: --semantic-code-ngram 5 without --semantic ran and ignored it."""
    ev = os.path.join(fixtures, "humaneval_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_code_train.jsonl")
    with pytest.raises(SystemExit) as e:
        main(["contamination", ev, tr, "--eval-field", "text", "--train-field", "text",
              "--semantic-code-ngram", "5", "--no-semantic-docstring-cosine",
              "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    assert ("--semantic-code-ngram, --[no-]semantic-docstring-cosine only apply with --semantic"
            in capsys.readouterr().err)
    assert not (tmp_path / "o").exists()
