import csv
import io
import json
import os
import re

import pytest

import reference
from evalsieve.contamination import REPORT_COLUMNS, ContaminationConfig, ContaminationJob
from evalsieve.stamps import InputFile


def run_job(eval_text, train_text, eval_fmt="jsonl", train_fmt="jsonl", eval_fields=("question",),
            train_fields=("text",), chunk=997, **cfg):
    job = ContaminationJob(ContaminationConfig(tuple(eval_fields), tuple(train_fields), **cfg),
                           "eval." + eval_fmt, eval_fmt, "train." + train_fmt, train_fmt)
    job.set_background(train_text[:5000])
    for i in range(0, len(eval_text), chunk):
        job.feed_eval(eval_text[i:i + chunk])
    job.end_eval()
    for i in range(0, len(train_text), chunk):
        job.feed_train(train_text[i:i + chunk])
    summary = job.finish(InputFile("eval", "eval", "e" * 64, len(eval_text)),
                         InputFile("train", "train", "t" * 64, len(train_text)),
                         "2026-01-01T00:00:00+00:00")
    return job, summary


def read_csv_export(text):
    lines = text.split("\r\n", 1)
    assert lines[0].startswith("# run_stamp {")
    stamp = json.loads(lines[0][len("# run_stamp "):])
    return stamp, list(csv.DictReader(io.StringIO(lines[1])))


@pytest.fixture
def fixture_run(fixtures):
    with open(os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8", newline="") as f:
        ev = f.read()
    with open(os.path.join(fixtures, "train_mix.jsonl"), encoding="utf-8", newline="") as f:
        tr = f.read()
    return ev, tr


def test_fixture_matches_reference_and_partitions_rows(fixture_run):
    ev, tr = fixture_run
    job, s = run_job(ev, tr)
    ev_rows = [[json.loads(l)["question"]] for l in ev.splitlines()]
    tr_rows = [[json.loads(l)["text"]] for l in tr.splitlines()]
    n, ref, short = reference.contamination(ev_rows, tr_rows)
    assert s["n"] == n
    expected_dirty = sorted(i + 1 for i, (m, _) in ref.items() if m)
    _, report = read_csv_export(job.export("contamination-report.csv")[1])
    assert [int(r["eval_row"]) for r in report if r["status"] == "contaminated"] == expected_dirty
    for r in report:
        m, t = ref[int(r["eval_row"]) - 1]
        assert (int(r["ngrams_matched"]), int(r["ngrams_total"])) == (m, t)
        assert float(r["containment"]) == pytest.approx(m / t, abs=5e-5)
    # the planted cases: rows 5 and 12 quoted whole (1.0), row 7 with one number changed
    by = {int(r["eval_row"]): r for r in report}
    assert by[5]["containment"] == "1.0000" and by[12]["containment"] == "1.0000"
    assert 0 < float(by[7]["containment"]) < 1
    # nothing lost: clean + contaminated + too short = every row, once
    lines = ev.splitlines(keepends=True)
    clean = job.export("eval.clean.jsonl")[1]
    _, short_rows = read_csv_export(job.export("too-short-to-score.csv")[1])
    kept = [i + 1 for i, l in enumerate(lines) if l in clean.splitlines(keepends=True)]
    dirty = [int(r["eval_row"]) for r in report if r["status"] == "contaminated"]
    shorts = [int(r["eval_row"]) for r in short_rows]
    assert sorted(kept + dirty + shorts) == list(range(1, len(lines) + 1))
    assert clean == "".join(lines[i - 1] for i in kept)
    assert s["rows_kept"] == len(kept) and s["rows_contaminated"] == len(dirty)


def test_clean_export_is_byte_exact_with_crlf_escapes_and_no_final_newline():
    ev = ('{"question": "alpha beta gamma delta epsilon zeta eta theta iota kappa"}\r\n'
          '{"b": 1, "question":"caf\\u00e9 one two three four five six seven eight nine"}\n'
          '{"question": "lambda mu nu xi omicron pi rho sigma tau upsilon"}')
    tr = '{"text": "Alpha, beta, gamma, delta, epsilon, zeta, eta, theta: iota kappa!"}\n'
    job, s = run_job(ev, tr, chunk=7)
    assert s["rows_contaminated"] == 1
    clean = job.export("eval.clean.jsonl")[1]
    lines = ev.splitlines(keepends=True)
    assert clean == lines[1] + lines[2]
    assert clean.encode("utf-8") == (lines[1] + lines[2]).encode("utf-8")


def test_csv_eval_keeps_header_and_quoted_rows():
    ev = ('id,question\r\n1,"alpha beta gamma delta, epsilon zeta eta theta iota kappa"\r\n'
          '2,"lambda mu ""nu"" xi omicron\r\npi rho sigma tau upsilon"\r\n')
    tr = '{"text": "alpha beta gamma delta epsilon zeta eta theta iota kappa"}\n'
    job, s = run_job(ev, tr, eval_fmt="csv", chunk=5)
    assert job.clean_name == "eval.clean.csv"
    assert job.export("eval.clean.csv")[1] == ("id,question\r\n2,\"lambda mu \"\"nu\"\" xi omicron"
                                               "\r\npi rho sigma tau upsilon\"\r\n")


def test_report_columns_stamp_and_formula_guard():
    ev = '{"question": "=cmd one two three four five six seven eight nine ten"}\n'
    tr = '{"text": "=cmd one two three four five six seven eight nine ten"}\n'
    job, s = run_job(ev, tr, n=8)
    stamp, rows = read_csv_export(job.export("contamination-report.csv")[1])
    assert list(rows[0].keys()) == REPORT_COLUMNS + ["rung"]   # the ladder's column
    assert rows[0]["rung"] == "exact"              # the row equals the training record
    # "=" is a symbol (kept by the rule); the cell must not start a formula
    assert rows[0]["shared_passage"].startswith("'=cmd")
    assert stamp["settings"]["n"] == 8 and stamp["settings"]["n_how"] == "set by the user"
    assert stamp["settings"]["threshold"] == "any overlap"
    assert stamp["inputs"][0]["sha256"] == "e" * 64
    assert re.fullmatch(r"[0-9a-f]{64}", stamp["fingerprint"])
    assert stamp["utc"] == "2026-01-01T00:00:00+00:00"


def test_html_report_is_self_contained_and_escapes_rows():
    ev = '{"question": "<script>alert(1)</script> one two three four five six seven eight"}\n'
    tr = '{"text": "<script>alert(1)</script> one two three four five six seven eight"}\n'
    job, s = run_job(ev, tr, n=8)
    page = job.export("overlap-report.html")[1]
    assert "<script" not in page.lower()
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page, re.I)
    assert "GPT-3, Brown et al. 2020, App. C" in page
    assert "rows contaminated" in page and "> 10 training records" not in page
    assert s["rows_contaminated"] == 1


def test_gsm_hard_near_copies_are_found(shared):
    """GSM-Hard rows are GSM8K test questions with a number changed: high but < 1 overlap."""
    with open(os.path.join(shared, "gsm8k", "test.jsonl"), encoding="utf-8", newline="") as f:
        ev = f.read()
    with open(os.path.join(shared, "gsm_hard_pal", "gsmhardv2.jsonl"), encoding="utf-8") as f:
        hard = [json.loads(l)["input"] for l in f]
    tr = "".join(json.dumps({"text": h}) + "\n" for h in hard)
    job, s = run_job(ev, tr, chunk=200_000)
    ev_rows = [[json.loads(l)["question"]] for l in ev.splitlines()]
    n, ref, short = reference.contamination(ev_rows, [[h] for h in hard])
    got = {sc.eval_row - 1: (sc.ngrams_matched, sc.ngrams_total) for sc in job.scores if sc.scored}
    assert got == ref
    assert s["rows_contaminated"] == sum(1 for m, _ in ref.values() if m) > 1000
