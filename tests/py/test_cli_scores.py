"""`--scores` end to end: both jobs, the JSON summary's score_impact, the stamp, the exports.

Reference values come from the files themselves (the contamination report's statuses, the
samples file's exact_match) and statsmodels (Wilson intervals, clustered standard errors).
"""

import csv
import hashlib
import json
import os
import sys

import pytest

from evalsieve.cli import main
from hostile_common import read_export

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))


def rows_of(path):
    """(stamp, rows) of a CSV export, the stamp from the run-stamp.json beside it."""
    return read_export(os.path.dirname(path), os.path.basename(path))


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def reference(report_csv, samples, filt):
    """(statuses by eval row, exact_match by eval row) read straight from the files."""
    _, rows = rows_of(report_csv)
    status = {int(r["eval_row"]): r["status"] for r in rows}
    em = {}
    with open(samples, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["filter"] == filt:
                em[r["doc_id"] + 1] = r["exact_match"]
    return status, em


def check_against_reference(si, status, em):
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for name, rows in (
        ("all", list(em)),
        ("clean", [r for r in em if status.get(r) == "clean"]),
        ("contaminated", [r for r in em if status.get(r) == "contaminated"]),
    ):
        k = sum(em[r] for r in rows)
        assert si[name]["n"] == len(rows), name
        if rows:
            assert si[name]["mean"] == pytest.approx(k / len(rows))
            assert si[name]["ci95"] == pytest.approx(
                list(proportion.proportion_confint(k, len(rows), method="wilson")), abs=1e-12
            )


@pytest.fixture
def files(fixtures):
    return (
        os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
        os.path.join(fixtures, "train_mix.jsonl"),
        os.path.join(fixtures, "samples_gsm8k_sample.jsonl"),
    )


def test_contamination_with_harness_samples(files, tmp_path, capsys):
    ev, tr, sc = files
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--out",
            str(out),
            "--json",
            "--scores",
            sc,
            "--score-filter",
            "flexible-extract",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(stdout)
    si = s["score_impact"]
    assert list(si) == [
        "metric",
        "rows_joined",
        "rows_unmatched",
        "all",
        "clean",
        "contaminated",
        "difference_contaminated_minus_clean",
    ]
    assert si["metric"] == "exact_match" and si["rows_joined"] == 40 and si["rows_unmatched"] == 0
    status, em = reference(out / "contamination-report.csv", sc, "flexible-extract")
    check_against_reference(si, status, em)
    assert si["contaminated"]["n"] == s["rows_contaminated"] == 7
    d = si["difference_contaminated_minus_clean"]
    assert d["estimate"] == pytest.approx(si["contaminated"]["mean"] - si["clean"]["mean"])
    assert d["ci95"][0] < d["estimate"] < d["ci95"][1]
    # the stamp names the scores file, its sha256 and size, the metric, key and filter
    inputs = {i["role"]: i for i in s["stamp"]["inputs"]}
    with open(sc, "rb") as f:
        data = f.read()
    assert inputs["scores"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert inputs["scores"]["bytes"] == len(data) and inputs["scores"]["format"] == "jsonl"
    st = s["stamp"]["settings"]
    assert st["score_metrics"] == ["exact_match"] and st["score_filter"] == "flexible-extract"
    assert st["score_key"] == "doc_id" and st["score_source"] == "lm-evaluation-harness samples"
    # exports: score-impact.csv with the same stamp; the HTML section with an inline SVG
    stamp, rows = rows_of(out / "score-impact.csv")
    assert stamp["fingerprint"] == s["stamp"]["fingerprint"]
    by = {r["subset"]: r for r in rows}
    assert set(by) == {
        "all",
        "clean",
        "contaminated",
        "too_short",
        "contaminated_minus_clean",
        "clean_minus_all",
        "contaminated_rung_exact",
        "contaminated_rung_ngram",
    }
    # the rungs partition the contaminated rows (per rung, once there are several)
    assert int(by["contaminated_rung_exact"]["n"]) + int(by["contaminated_rung_ngram"]["n"]) == int(
        by["contaminated"]["n"]
    )
    assert float(by["clean"]["mean"]) == pytest.approx(si["clean"]["mean"], abs=1e-6)
    assert by["contaminated"]["interval"] == "Wilson score"
    assert float(by["clean_minus_all"]["mean"]) == pytest.approx(
        si["clean"]["mean"] - si["all"]["mean"], abs=1e-6
    )
    _, unmatched = rows_of(out / "scores-unmatched.csv")
    assert unmatched == []
    html = (out / "overlap-report.html").read_text(encoding="utf-8")
    assert "<h2>Score impact</h2>" in html and "<svg" in html and "<script" not in html
    assert "contaminated − clean" in html
    assert "scores: samples_gsm8k_sample.jsonl: lm-evaluation-harness samples, 40 rows" in err


def test_key_join_equals_order_join(files, tmp_path, capsys):
    ev, tr, sc = files
    common = [
        "contamination",
        ev,
        tr,
        "--eval-field",
        "question",
        "--json",
        "--quiet",
        "--scores",
        sc,
        "--score-filter",
        "strict-match",
    ]
    _, a, _ = run(common + ["--out", str(tmp_path / "a")], capsys)
    code, b, err = run(
        common + ["--out", str(tmp_path / "b"), "--score-key", "doc.question=question"], capsys
    )
    assert code == 0, err
    a, b = json.loads(a), json.loads(b)
    assert a["score_impact"] == b["score_impact"]
    assert b["stamp"]["settings"]["score_key"] == "doc.question"
    assert b["stamp"]["settings"]["score_eval_key"] == "question"


def test_unmatched_and_unscored_rows_are_listed(files, tmp_path, capsys):
    ev, tr, sc = files
    lines = open(sc, encoding="utf-8").read().splitlines(keepends=True)
    strict = [json.loads(x) for x in lines if '"strict-match"' in x]
    strict[0]["doc_id"] = 99  # past the 40 eval rows
    del strict[5]  # eval row 6 loses its score
    part = tmp_path / "samples_part.jsonl"
    part.write_text("".join(json.dumps(r) + "\n" for r in strict), encoding="utf-8")
    code, out, err = run(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--out",
            str(tmp_path / "o"),
            "--json",
            "--scores",
            str(part),
        ],
        capsys,
    )
    assert code == 0, err
    si = json.loads(out)["score_impact"]
    assert si["rows_joined"] == 38 and si["rows_unmatched"] == 1
    _, rows = rows_of(tmp_path / "o" / "scores-unmatched.csv")
    assert [(r["side"], r["score_line"], r["eval_row"]) for r in rows] == [
        ("scores", "1", ""),
        ("eval", "", "1"),
        ("eval", "", "6"),
    ]
    assert "1 score rows unmatched, 2 eval rows without a score" in err


def test_two_filters_without_a_choice_is_exit_2(files, tmp_path, capsys):
    ev, tr, sc = files
    code, out, err = run(
        ["contamination", ev, tr, "--out", str(tmp_path / "o"), "--scores", sc], capsys
    )
    assert code == 2 and not (tmp_path / "o").exists()
    assert "samples_gsm8k_sample.jsonl, line 41: more than one filter" in err
    assert "--score-filter" in err
    code, _, err = run(
        ["contamination", ev, tr, "--out", str(tmp_path / "o"), "--score-field", "acc"], capsys
    )
    assert code == 2 and "--score-field needs --scores FILE" in err


def test_gsm8k_test_against_train_with_a_log_samples_file(shared, tmp_path, capsys):
    """The README's worked example: all 1,319 GSM8K test rows against train, with a
    --log_samples file written as the harness writes it (tools/lm_eval_samples.py)."""
    from lm_eval_samples import write_samples

    ev = os.path.join(shared, "gsm8k", "test.jsonl")
    tr = os.path.join(shared, "gsm8k", "train.jsonl")
    sc = tmp_path / "samples_gsm8k_2026-12-01T00-00-00.000000.jsonl"
    assert write_samples(ev, str(sc)) == 2 * 1319
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--train-field",
            "question",
            "--train-field",
            "answer",
            "--out",
            str(out),
            "--json",
            "--scores",
            str(sc),
            "--score-filter",
            "strict-match",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(stdout)
    si = s["score_impact"]
    assert si["rows_joined"] == 1319 and si["rows_unmatched"] == 0
    assert si["contaminated"]["n"] == s["rows_contaminated"] == 3  # shared/data/README.md
    status, em = reference(out / "contamination-report.csv", str(sc), "strict-match")
    check_against_reference(si, status, em)
    assert sum(em.values()) == 28  # the rule baseline's exact matches (strict-match)


def test_paraphrases_with_scores_clustered_se_matches_statsmodels(tmp_path, model_dir, capsys):
    sm = pytest.importorskip("statsmodels.api")
    np = pytest.importorskip("numpy")
    from evalsieve.paraphrase import worked_example_jsonl

    ev = tmp_path / "ex.jsonl"
    ev.write_text(worked_example_jsonl())
    sc = tmp_path / "scores.csv"  # a table joined by key: rows ex1..ex6
    sc.write_text("id,correct\nex1,1\nex2,1\nex3,0\nex4,1\nex5,1\nex6,0\n")
    code, out, err = run(
        [
            "paraphrases",
            str(ev),
            "--field",
            "text",
            "--label-field",
            "id",
            "--out",
            str(tmp_path / "o"),
            "--json",
            "--scores",
            str(sc),
            "--score-key",
            "id",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(out)
    si = s["score_impact"]
    assert list(si) == [
        "metric",
        "n",
        "mean",
        "se_naive",
        "se_clustered",
        "design_effect",
        "effective_n",
    ]
    # groups (see test_cli_paraphrases): {1, 2, 3}, {4, 5}, {6}
    y = np.array([1, 1, 0, 1, 1, 0], float)
    fit = sm.OLS(y, np.ones((6, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": np.array([0, 0, 0, 1, 1, 2])}
    )
    assert si["n"] == 6 and si["mean"] == pytest.approx(4 / 6)
    assert si["se_clustered"] == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert si["se_naive"] == pytest.approx(float(sm.OLS(y, np.ones((6, 1))).fit().bse[0]))
    assert si["design_effect"] == pytest.approx((si["se_clustered"] / si["se_naive"]) ** 2)
    assert si["effective_n"] == pytest.approx(6 / si["design_effect"])
    assert {i["role"] for i in s["stamp"]["inputs"]} == {"eval", "scores"}
    _, rows = rows_of(tmp_path / "o" / "score-impact.csv")
    by = {r["subset"]: r for r in rows}
    # one row per group: representatives 2 (group 1, middle of the chain), 4 or 5, and 6
    assert by["one_per_group"]["n"] == "3"
    assert float(by["all_clustered"]["clusters"]) == 3


def test_csv_eval_csv_scores_key_join_and_a_continuous_metric(files, tmp_path, capsys):
    stats = pytest.importorskip("scipy.stats")
    ev_jsonl, tr, _ = files
    docs = [json.loads(x) for x in open(ev_jsonl, encoding="utf-8")]
    ev = tmp_path / "eval.csv"
    with open(ev, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer"])
        for i, d in enumerate(docs):
            w.writerow([f"q{i}", d["question"], d["answer"]])
    sc = tmp_path / "scores.csv"  # reversed order, a bool and a continuous column
    logprob = {f"q{i}": -((i * 7) % 11) / 4 for i in range(40)}
    with open(sc, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "correct", "logprob"])
        for i in reversed(range(40)):
            w.writerow([f"q{i}", "TRUE" if i % 3 == 0 else "false", logprob[f"q{i}"]])
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            str(ev),
            tr,
            "--eval-field",
            "question",
            "--out",
            str(out),
            "--json",
            "--scores",
            str(sc),
            "--score-key",
            "qid=id",
            "--score-field",
            "correct",
            "--score-field",
            "logprob",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["score_impact"]["metric"] == "correct"
    (lp,) = s["score_impact_more"]
    assert lp["metric"] == "logprob" and lp["rows_joined"] == 40
    _, rows = rows_of(out / "contamination-report.csv")
    status = {int(r["eval_row"]): r["status"] for r in rows}
    for name in ("clean", "contaminated"):
        ys = [logprob[f"q{r - 1}"] for r in range(1, 41) if status[r] == name]
        m = sum(ys) / len(ys)
        want = stats.t.interval(0.95, len(ys) - 1, loc=m, scale=stats.sem(ys))
        assert lp[name]["n"] == len(ys) and lp[name]["mean"] == pytest.approx(m)
        assert lp[name]["ci95"] == pytest.approx(list(want), rel=1e-10)
    _, impact = rows_of(out / "score-impact.csv")
    assert {(r["metric"], r["kind"]) for r in impact} == {
        ("correct", "binary"),
        ("logprob", "continuous"),
    }


@pytest.mark.parametrize("marks", [1, 2])
def test_a_scores_file_reads_its_byte_order_mark_as_the_eval_file_does(
    marks, files, tmp_path, capsys
):
    """One U+FEFF at the start is the file's byte-order mark; a second is line 1's own text
    (as in the eval and training files): the run does not take both off and read on."""
    ev, tr, sc = files
    bom = tmp_path / "samples_bom.jsonl"
    bom.write_bytes("\ufeff".encode() * marks + open(sc, "rb").read())
    argv = ["contamination", ev, tr, "--eval-field", "question", "--json"]
    argv += ["--score-filter", "flexible-extract"]
    got = [
        run(argv + ["--out", str(tmp_path / f"o{k}"), "--scores", p], capsys)
        for k, p in ((0, sc), (1, str(bom)))
    ]
    if marks == 1:
        assert got[1][0] == 0, got[1][2]
        assert json.loads(got[1][1])["score_impact"] == json.loads(got[0][1])["score_impact"]
        return
    code, stdout, err = got[1]
    assert code == 2 and stdout == "", err
    [line] = [ln for ln in err.splitlines() if ln.startswith("evalsieve: error:")]
    assert "samples_bom.jsonl, line 1" in line, line
    ebom = tmp_path / "eval_bom.jsonl"  # the eval file with two marks: the same error
    ebom.write_bytes("\ufeff\ufeff".encode() + open(ev, "rb").read())
    code, _, err = run(
        ["contamination", str(ebom), tr, "--eval-field", "question", "--out", str(tmp_path / "e")],
        capsys,
    )
    assert code == 2 and "eval_bom.jsonl, line 1" in err, err
