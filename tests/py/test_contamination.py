import json
import os
import re

import pytest

import reference
from hostile_common import read_csv_export, read_stamped
import evalsieve.contamination_exports as cx
from evalsieve.contamination_exports import REPORT_COLUMNS
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.results import ContaminationResult
from evalsieve.ladder import RUNGS
from evalsieve.stamps import InputFile


def run_job(
    eval_text,
    train_text,
    eval_fmt="jsonl",
    train_fmt="jsonl",
    eval_fields=("question",),
    train_fields=("text",),
    chunk=997,
    **cfg,
):
    job = ContaminationJob(
        ContaminationConfig(tuple(eval_fields), tuple(train_fields), **cfg),
        "eval." + eval_fmt,
        eval_fmt,
        "train." + train_fmt,
        train_fmt,
    )
    job.set_background(train_text[:5000])
    for i in range(0, len(eval_text), chunk):
        job.feed_eval(eval_text[i : i + chunk])
    job.end_eval()
    for i in range(0, len(train_text), chunk):
        job.feed_train(train_text[i : i + chunk])
    summary = job.finish(
        InputFile("eval", "eval", "e" * 64, len(eval_text)),
        InputFile("train", "train", "t" * 64, len(train_text)),
        "2026-01-01T00:00:00+00:00",
    ).summary
    return job, summary


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
    _, report = read_csv_export(cx.export(job.result, "contamination-report.csv")[1])
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
    clean = cx.export(job.result, "eval.clean.jsonl")[1]
    _, short_rows = read_csv_export(cx.export(job.result, "too-short-to-score.csv")[1])
    kept = [i + 1 for i, l in enumerate(lines) if l in clean.splitlines(keepends=True)]
    dirty = [int(r["eval_row"]) for r in report if r["status"] == "contaminated"]
    shorts = [int(r["eval_row"]) for r in short_rows]
    assert sorted(kept + dirty + shorts) == list(range(1, len(lines) + 1))
    assert clean == "".join(lines[i - 1] for i in kept)
    assert s["rows_kept"] == len(kept) and s["rows_contaminated"] == len(dirty)


def test_clean_export_is_byte_exact_with_crlf_escapes_and_no_final_newline():
    ev = (
        '{"question": "alpha beta gamma delta epsilon zeta eta theta iota kappa"}\r\n'
        '{"b": 1, "question":"caf\\u00e9 one two three four five six seven eight nine"}\n'
        '{"question": "lambda mu nu xi omicron pi rho sigma tau upsilon"}'
    )
    tr = '{"text": "Alpha, beta, gamma, delta, epsilon, zeta, eta, theta: iota kappa!"}\n'
    job, s = run_job(ev, tr, chunk=7)
    assert s["rows_contaminated"] == 1
    clean = cx.export(job.result, "eval.clean.jsonl")[1]
    lines = ev.splitlines(keepends=True)
    assert clean == lines[1] + lines[2]
    assert clean.encode("utf-8") == (lines[1] + lines[2]).encode("utf-8")


def test_csv_eval_keeps_header_and_quoted_rows():
    ev = (
        'id,question\r\n1,"alpha beta gamma delta, epsilon zeta eta theta iota kappa"\r\n'
        '2,"lambda mu ""nu"" xi omicron\r\npi rho sigma tau upsilon"\r\n'
    )
    tr = '{"text": "alpha beta gamma delta epsilon zeta eta theta iota kappa"}\n'
    job, s = run_job(ev, tr, eval_fmt="csv", chunk=5)
    assert job.result.clean_name == "eval.clean.csv"
    assert cx.export(job.result, "eval.clean.csv")[1] == (
        'id,question\r\n2,"lambda mu ""nu"" xi omicron\r\npi rho sigma tau upsilon"\r\n'
    )


def test_report_columns_stamp_and_formula_guard():
    ev = '{"question": "=cmd one two three four five six seven eight nine ten"}\n'
    tr = '{"text": "=cmd one two three four five six seven eight nine ten"}\n'
    job, s = run_job(ev, tr, n=8)
    stamp, rows = read_stamped(
        cx.export(job.result, "contamination-report.csv")[1],
        cx.export(job.result, "run-stamp.json")[1],
    )
    assert list(rows[0].keys()) == REPORT_COLUMNS + ["rung"]  # the ladder's column
    assert rows[0]["rung"] == "exact"  # the row equals the training record
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
    page = cx.export(job.result, "overlap-report.html")[1]
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


@pytest.mark.parametrize(
    "kw, what",
    [
        ({"threshold": 0}, "threshold"),
        ({"threshold": -0.5}, "threshold"),
        ({"threshold": 1.01}, "threshold"),
        ({"threshold": float("nan")}, "threshold"),
        ({"threshold": "0.5"}, "threshold"),
        ({"threshold": True}, "threshold"),
        ({"n": 0}, "N"),
        ({"n": 1001}, "N"),
        ({"n": 2.5}, "N"),
        ({"n": True}, "N"),
        ({"boilerplate": "yes"}, "boilerplate"),
    ],
)
def test_config_refuses_bad_settings_on_construction(kw, what):
    from evalsieve.errors import EvalsieveError

    with pytest.raises(EvalsieveError) as e:
        ContaminationConfig(("question",), ("text",), **kw)
    assert e.value.code == "bad_input" and what in e.value.message
    assert e.value.expected


def test_config_accepts_the_range_ends():
    assert ContaminationConfig(("q",), ("t",), n=1, threshold=1.0).threshold == 1.0
    assert ContaminationConfig(("q",), ("t",), n=1000, threshold=1e-9).n == 1000
    assert ContaminationConfig(("q",), ("t",)).threshold is None


def test_view_lists_contaminated_rows_in_report_order_with_histogram(fixture_run):
    ev, tr = fixture_run
    job, s = run_job(ev, tr)
    view = cx.view(job.result)
    _, report = read_csv_export(cx.export(job.result, "contamination-report.csv")[1])
    dirty = [r for r in report if r["status"] == "contaminated"]
    assert view["rows_total"] == len(dirty) == s["rows_contaminated"] == 7
    assert [r["eval_row"] for r in view["rows"]] == [int(r["eval_row"]) for r in dirty]
    questions = [json.loads(l)["question"] for l in ev.splitlines()]
    for v, r in zip(view["rows"], dirty):
        assert v["status"] == "contaminated"
        assert v["containment_text"] == r["containment"]
        assert v["containment"] == pytest.approx(float(r["containment"]), abs=5e-5)
        assert (v["ngrams_matched"], v["ngrams_total"]) == (
            int(r["ngrams_matched"]),
            int(r["ngrams_total"]),
        )
        assert v["training_record"] == int(r["training_record"])
        assert (v["shared_passage"], v["training_excerpt"]) == (
            r["shared_passage"],
            r["training_excerpt"],
        )
        assert v["eval_text"] == questions[v["eval_row"] - 1]
    # the histogram counts every scored row in tenths, the last bin closed: [0.9, 1.0]
    h = view["histogram"]
    assert h["bin_width"] == 0.1 and len(h["counts"]) == 10
    assert sum(h["counts"]) == s["rows_scored"] == len(report)
    want = [0] * 10
    for r in report:
        want[min(9, int(float(r["containment"]) * 10))] += 1
    assert h["counts"] == want and h["counts"][9] >= 2  # rows 5 and 12 at 1.0


def test_view_keeps_at_most_limit_rows_and_counts_them_all():
    ev = "".join(
        '{"question": "row %d alpha beta gamma delta epsilon zeta eta"}\n' % i for i in range(5)
    )
    tr = "".join(
        '{"text": "row %d alpha beta gamma delta epsilon zeta eta"}\n' % i for i in range(5)
    )
    job, s = run_job(ev, tr, n=8)
    assert s["rows_contaminated"] == 5
    view = cx.view(job.result, limit=2)
    assert view["rows_total"] == 5 and [r["eval_row"] for r in view["rows"]] == [1, 2]
    assert cx.view(job.result)["rows_total"] == 5 and len(cx.view(job.result)["rows"]) == 5


def test_html_report_rows_in_page_order_with_eval_text(fixture_run):
    """overlap-report.html lists the contaminated rows as the page does (view(): eval-file
    order) under the first rung that caught them, each with its eval text; no attribute
    handler, no script; the stamp JSON is in a collapsed <details>; every row of view() is
    in the report, in the same order within its rung."""
    ev, tr = fixture_run
    job, s = run_job(ev, tr)
    page = cx.export(job.result, "overlap-report.html")[1]
    rows = cx.view(job.result)["rows"]
    view = [r["eval_row"] for r in rows]
    assert view == sorted(view) and len(view) == s["rows_contaminated"] >= 3
    body = page.split("<h2>Contaminated rows")[1].split("<h2>")[0]
    cells = re.findall(r"<tr><td class=\"num\">(\d+)</td>", body)
    by_rung = sorted(rows, key=lambda r: (RUNGS.index(r["rung"]), r["eval_row"]))
    assert [int(c) for c in cells] == [r["eval_row"] for r in by_rung]
    assert {r["rung"] for r in rows} == {"exact", "ngram"}  # both groups hold rows
    questions = [json.loads(l)["question"] for l in ev.splitlines()]
    import html as h

    for r in view:  # the text as the file holds it, shared words inside <mark>
        cell = re.search(
            f'<tr><td class="num">{r}</td>(?:<td[^>]*>[^<]*</td>){{2}}'
            '<td class="clip(?: long)?">(.*?)</td>',
            body,
        ).group(1)
        assert "<mark>" in cell
        assert cell.replace("<mark>", "").replace("</mark>", "") == h.escape(questions[r - 1])
    assert "eval text (chosen fields)" in body
    assert "<script" not in page.lower() and not re.search(r"\son\w+\s*=", page, re.I)
    assert re.search(r"<details><summary>[^<]+</summary><pre>", page)
    assert "<details open" not in page


def test_the_exact_rung_list_is_built_a_few_times_not_once_per_row(monkeypatch):
    # _excluded(i) read the whole per-row list exact_record for each row i: 30,000 eval rows
    # took 6 minutes against a 7-record training file. Counted, not timed: the list may be
    # built a few times per run, never once per row.
    built = []
    prop = ContaminationResult.exact_record
    monkeypatch.setattr(
        ContaminationResult,
        "exact_record",
        property(lambda self: built.append(1) or prop.fget(self)),
    )
    rows = 300
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    ev = "".join(
        json.dumps({"question": " ".join(words[(i + k) % 12] for k in range(10)) + f" row {i}"})
        + "\n"
        for i in range(rows)
    )
    tr = json.dumps({"text": "alpha beta gamma delta epsilon zeta eta theta iota kappa row 0"})
    job, s = run_job(ev, tr + "\n")
    clean = cx.export(job.result, "eval.clean.jsonl")[1]
    assert s["rows_scanned"] == rows and s["rows_contaminated_by_rung"]["exact"] == 1
    assert s["rows_kept"] == rows - 1 and clean.count("\n") == rows - 1
    assert len(built) <= 10, f"exact_record built {len(built)} times for {rows} rows"
