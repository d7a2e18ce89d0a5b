"""scores.py: reading harness samples and score tables, joining, figures by hand."""

import json
import os

import pytest

from evalsieve.errors import EvalsieveError
from evalsieve.impact import wilson_interval
from evalsieve.scores import (
    HARNESS,
    TABLE,
    ScoreSpec,
    contamination_impact,
    contamination_summary,
    eval_keys,
    join_scores,
    paraphrase_impact,
    paraphrase_summary,
    read_scores,
)


def harness_row(doc_id, filt, em, question="q"):
    # the key order and fields lm-evaluation-harness writes (evaluator.py, save_results_samples)
    return (
        json.dumps(
            {
                "doc_id": doc_id,
                "doc": {"question": question, "answer": "#### 1"},
                "target": "#### 1",
                "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {}}},
                "resps": [["x"]],
                "filtered_resps": ["x"],
                "filter": filt,
                "metrics": ["exact_match"],
                "doc_hash": "d",
                "prompt_hash": "p",
                "target_hash": "t",
                "exact_match": em,
            }
        )
        + "\n"
    )


def test_fixture_is_read_as_harness_samples(fixtures):
    with open(os.path.join(fixtures, "samples_gsm8k_sample.jsonl"), encoding="utf-8") as f:
        text = f.read()
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == 80 and {r["filter"] for r in rows} == {"strict-match", "flexible-extract"}
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(filter="flexible-extract"), text)
    assert t.source == HARNESS and t.metrics == ["exact_match"] and t.filter == "flexible-extract"
    assert t.keys == list(range(40)) and t.lines == list(range(41, 81))
    assert t.rows_other_filter == 40
    assert [v["exact_match"] for v in t.values] == [r["exact_match"] for r in rows[40:]]


def test_two_filters_without_a_choice_names_the_line():
    text = (
        harness_row(0, "strict-match", 1.0)
        + harness_row(1, "strict-match", 0.0)
        + harness_row(0, "flexible-extract", 1.0)
    )
    with pytest.raises(EvalsieveError) as e:
        read_scores("samples_gsm8k.jsonl", "jsonl", ScoreSpec(), text)
    assert e.value.file == "samples_gsm8k.jsonl" and e.value.line == 3
    assert "strict-match" in str(e.value) and "flexible-extract" in str(e.value)
    assert "--score-filter" in str(e.value)


def test_unknown_filter_lists_the_filters():
    text = harness_row(0, "strict-match", 1.0)
    with pytest.raises(EvalsieveError) as e:
        read_scores("s.jsonl", "jsonl", ScoreSpec(filter="none"), text)
    assert "strict-match" in str(e.value)


def test_a_key_used_twice_names_both_lines():
    text = harness_row(0, "f", 1.0) + harness_row(1, "f", 0.0) + harness_row(0, "f", 0.0)
    with pytest.raises(EvalsieveError) as e:
        read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    assert e.value.line == 3 and "lines 1 and 3" in str(e.value)


def test_bad_scores_are_errors_with_the_line():
    for bad in ('"yes"', "null", "[1, 2]"):
        text = harness_row(0, "f", 1.0) + harness_row(1, "f", 1.0).replace(
            '"exact_match": 1.0', f'"exact_match": {bad}'
        )
        with pytest.raises(EvalsieveError) as e:
            read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
        assert e.value.line == 2 and "exact_match" in str(e.value)
    with pytest.raises(EvalsieveError) as e:  # a metric that is not there
        read_scores("s.jsonl", "jsonl", ScoreSpec(metrics=("acc",)), harness_row(0, "f", 1.0))
    assert "acc" in str(e.value) and e.value.line == 1
    with pytest.raises(EvalsieveError) as e:  # a doc_id that is not a row number
        read_scores("s.jsonl", "jsonl", ScoreSpec(), harness_row(-1, "f", 1.0))
    assert "doc_id" in str(e.value)


def test_csv_table_with_a_key_and_booleans():
    text = "id,correct,logprob\nb,true,-1.5\na,FALSE,-0.5\nz,1,-2\n"
    t = read_scores("s.csv", "csv", ScoreSpec(metrics=("correct", "logprob"), key="id"), text)
    assert t.source == TABLE and t.keys == ["b", "a", "z"] and t.lines == [2, 3, 4]
    assert t.values == [
        {"correct": 1.0, "logprob": -1.5},
        {"correct": 0.0, "logprob": -0.5},
        {"correct": 1.0, "logprob": -2.0},
    ]
    keys = eval_keys("jsonl", "e.jsonl", '{"id": "a"}\n{"id": "b"}\n{"id": "c"}\n', "id")
    assert keys == ["a", "b", "c"]
    j = join_scores(t, 3, keys, "e.jsonl")
    assert j.rows == {1: t.values[1], 2: t.values[0]}
    assert j.unmatched == [(4, "z", "no eval row has this key")]
    assert j.unscored == [3]


def test_a_table_needs_a_key_and_one_score_column():
    with pytest.raises(EvalsieveError) as e:
        read_scores("s.csv", "csv", ScoreSpec(), "id,score\na,1\n")
    assert "doc_id" in str(e.value) and e.value.line == 2
    with pytest.raises(EvalsieveError) as e:
        read_scores("s.csv", "csv", ScoreSpec(key="id"), "id,acc,f1\na,1,0.5\n")
    assert "acc, f1" in str(e.value) and "--score-field" in str(e.value)
    t = read_scores("s.csv", "csv", ScoreSpec(key="id"), "id,acc,note\na,1,hello\n")
    assert t.metrics == ["acc"]


def test_eval_key_used_twice_is_an_error():
    t = read_scores("s.csv", "csv", ScoreSpec(key="q"), "q,acc\nx,1\n")
    with pytest.raises(EvalsieveError) as e:
        join_scores(t, 3, ["x", "y", "x"], "e.jsonl")
    assert e.value.file == "e.jsonl" and "rows 1 and 3" in str(e.value)


def test_join_by_order_lists_doc_ids_past_the_end():
    text = "".join(harness_row(i, "f", 1.0) for i in (0, 2, 5))
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    j = join_scores(t, 4)
    assert sorted(j.rows) == [1, 3]
    assert j.unscored == [2, 4]
    assert len(j.unmatched) == 1 and j.unmatched[0][:2] == (3, 5)


def test_harness_join_by_a_doc_field():
    text = harness_row(0, "f", 1.0, "what is 2+2") + harness_row(1, "f", 0.0, "what is 3+3")
    spec = ScoreSpec(key="doc.question", eval_key="question")
    t = read_scores("s.jsonl", "jsonl", spec, text)
    keys = eval_keys(
        "jsonl",
        "e.jsonl",
        '{"question": "what is 3+3"}\n{"question": "what is 2+2"}\n',
        spec.eval_field(),
    )
    j = join_scores(t, 2, keys)
    assert j.rows == {1: {"exact_match": 0.0}, 2: {"exact_match": 1.0}}


def test_contamination_figures_by_hand():
    # 10 eval rows: rows 1-6 clean (scores 1,1,0,0,0,1), rows 7-9 contaminated (1,1,1),
    # row 10 too short (0). Clean 3/6, contaminated 3/3, all 6/10.
    vals = [1, 1, 0, 0, 0, 1, 1, 1, 1, 0]
    text = "".join(harness_row(i, "f", float(v)) for i, v in enumerate(vals))
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    j = join_scores(t, 10)
    st = ["clean"] * 6 + ["contaminated"] * 3 + ["too_short"]
    (f,) = contamination_impact(t, j, st)
    assert f["kind"] == "binary" and f["rows_joined"] == 10
    assert f["all"]["mean"] == 0.6
    assert f["all"]["ci95"] == pytest.approx(list(wilson_interval(6, 10)))
    assert f["clean"]["n"] == 6 and f["clean"]["mean"] == 0.5
    assert f["contaminated"]["n"] == 3 and f["contaminated"]["mean"] == 1.0
    assert f["too_short"]["n"] == 1
    lc, uc = wilson_interval(3, 6)
    ld, ud = wilson_interval(3, 3)
    d = f["difference_contaminated_minus_clean"]
    assert d["estimate"] == pytest.approx(0.5)  # Newcombe: L = θ − √((1−ld)² + (uc−.5)²)
    assert d["ci95"][0] == pytest.approx(0.5 - ((1 - ld) ** 2 + (uc - 0.5) ** 2) ** 0.5)
    assert d["ci95"][1] == pytest.approx(0.5 + ((ud - 1) ** 2 + (0.5 - lc) ** 2) ** 0.5)
    # clean − all = (w_d + w_s)·m_c − w_d·m_d − w_s·m_s = .4·.5 − .3·1 − .1·0 = −0.1 = .5 − .6
    cma = f["difference_clean_minus_all"]
    assert cma["estimate"] == pytest.approx(0.5 - 0.6)
    assert cma["ci95"][0] < -0.1 < cma["ci95"][1]
    s = contamination_summary(f)
    assert list(s) == [
        "metric",
        "rows_joined",
        "rows_unmatched",
        "all",
        "clean",
        "contaminated",
        "difference_contaminated_minus_clean",
    ]
    assert list(s["all"]) == ["n", "mean", "ci95"]


def test_clean_minus_all_without_short_rows_is_the_scaled_difference():
    vals = [1, 0, 0, 1, 1, 1, 0, 1]
    text = "".join(harness_row(i, "f", float(v)) for i, v in enumerate(vals))
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    (f,) = contamination_impact(t, join_scores(t, 8), ["clean"] * 5 + ["contaminated"] * 3)
    d, cma = f["difference_contaminated_minus_clean"], f["difference_clean_minus_all"]
    w = 3 / 8
    assert cma["estimate"] == pytest.approx(-w * d["estimate"])
    assert cma["ci95"] == pytest.approx([-w * d["ci95"][1], -w * d["ci95"][0]])


def test_contaminated_rows_per_rung_by_hand():
    # rows 1-5 clean; rows 6-8 contaminated: row 6 caught first by exact (score 0), rows 7-8
    # by ngram (1, 1); the semantic rung ran and caught none: its subset is empty
    vals = [1, 0, 0, 1, 1, 0, 1, 1]
    text = "".join(harness_row(i, "f", float(v)) for i, v in enumerate(vals))
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    st = ["clean"] * 5 + ["contaminated"] * 3
    rungs = [""] * 5 + ["exact", "ngram", "ngram"]
    (f,) = contamination_impact(t, join_scores(t, 8), st, rungs, ("exact", "ngram", "semantic"))
    by = f["contaminated_by_rung"]
    assert list(by) == ["exact", "ngram", "semantic"]
    assert (by["exact"]["n"], by["exact"]["mean"]) == (1, 0.0)
    assert (by["ngram"]["n"], by["ngram"]["mean"]) == (2, 1.0)
    assert by["ngram"]["ci95"] == pytest.approx(list(wilson_interval(2, 2)))
    assert by["semantic"]["n"] == 0 and by["semantic"]["mean"] is None
    assert "contaminated_by_rung" not in contamination_impact(t, join_scores(t, 8), st)[0]


def test_paraphrase_figures_by_hand():
    # rows 1-2 a group (scores 1, 1), row 3 with row 5 a group (0, 1), row 4 single (0)
    vals = [1, 1, 0, 0, 1]
    text = "".join(harness_row(i, "f", float(v)) for i, v in enumerate(vals))
    t = read_scores("s.jsonl", "jsonl", ScoreSpec(), text)
    j = join_scores(t, 5)
    (f,) = paraphrase_impact(t, j, {1: 1, 2: 1, 3: 2, 5: 2}, {2, 5})
    c = f["clustered"]
    # mean .6, residuals .4 .4 −.6 −.6 .4; sums g1 .8, g2 −.2, row4 −.6: Σ² = 1.04, G = 3
    assert c["clusters"] == 3 and c["mean"] == pytest.approx(0.6)
    assert c["se_clustered"] == pytest.approx((1.5 * 1.04) ** 0.5 / 5)
    assert c["se_naive"] == pytest.approx((1.2 / 4) ** 0.5 / 5**0.5)
    # one row per group: row 2 (group 1's representative), row 4, row 5 → 1, 0, 1
    assert f["one_per_group"]["n"] == 3 and f["one_per_group"]["mean"] == pytest.approx(2 / 3)
    s = paraphrase_summary(f)
    assert list(s) == [
        "metric",
        "n",
        "mean",
        "se_naive",
        "se_clustered",
        "design_effect",
        "effective_n",
    ]
    assert s["effective_n"] == pytest.approx(5 / s["design_effect"])


def test_harness_filters_counts_line_1_after_the_files_byte_order_mark():
    """The page hands the scores file's head as the file starts: a byte-order mark before
    line 1 is the file's, and line 1 counts; a second mark makes line 1 malformed (not
    counted here; the run's reader names it)."""
    from evalsieve.scores import harness_filters

    row = '{"doc_id": %d, "filter": "%s", "metrics": ["exact_match"], "exact_match": 1}\n'
    text = row % (0, "strict-match") + row % (1, "strict-match") + row % (0, "flexible")
    want = [{"name": "strict-match", "rows": 2}, {"name": "flexible", "rows": 1}]
    assert harness_filters(text) == want
    assert harness_filters("\ufeff" + text) == want
    assert harness_filters("\ufeff\ufeff" + text) == [
        {"name": "strict-match", "rows": 1},
        {"name": "flexible", "rows": 1},
    ]
