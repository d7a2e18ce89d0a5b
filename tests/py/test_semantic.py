"""The semantic rung's standard-library parts: windows, candidate stage, verifier; and the
ladder in the contamination job (rung assignment, the clean-file rule). No encoder here: the
cosines are given by hand, as the driver would."""

import json
import math

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.contamination_html import report_html
from evalsieve.contamination_job import RUNGS, ContaminationConfig, ContaminationJob, assign_rungs
from evalsieve.errors import EvalsieveError
from evalsieve.semantic import (
    SemanticConfig,
    SemanticScan,
    idf,
    is_number,
    pair_cosines,
    term,
    verifier_score,
    window_size,
    window_spans,
    word_terms,
)
from evalsieve.semantic_verifier import VERIFIER_WEIGHTS
from evalsieve.stamps import InputFile


# -- windows ------------------------------------------------------------------------------
def test_window_spans_worked_examples():
    assert window_spans(10, 4) == [(0, 4), (2, 6), (4, 8), (6, 10)]
    assert window_spans(12, 5) == [(0, 5), (3, 8), (6, 11), (7, 12)]  # stride ⌈5/2⌉ = 3
    assert window_spans(4, 4) == [(0, 4)]
    assert window_spans(3, 4) == [(0, 3)]
    assert window_spans(0, 4) == []


@pytest.mark.parametrize("size", [4, 5, 16, 17])
def test_every_short_passage_lies_inside_one_window(size):
    """Property of the 50% stride: a passage of ≤ ⌊size/2⌋ words is whole in some window,
    and every word is in some window."""
    half = size // 2
    for n in range(1, 4 * size):
        spans = window_spans(n, size)
        assert all(0 <= s < e <= n and e - s == min(n, size) for s, e in spans)
        for a in range(n):
            for length in range(1, min(half, n - a) + 1):
                assert any(s <= a and a + length <= e for s, e in spans), (n, a, length)


def test_window_size_is_the_lower_median_clamped():
    assert window_size([10, 20, 30, 0]) == (20, "median probe length 20 words")
    assert window_size([40, 30, 20, 50]) == (30, "median probe length 30 words")
    assert window_size([3, 5])[0] == 16 and "clamped to 16" in window_size([3, 5])[1]
    assert window_size([500, 400, 900])[0] == 160
    with pytest.raises(EvalsieveError):
        window_size([0, 0])


def test_small_helpers():
    assert is_number("12") and is_number("3rd") and not is_number("twelve")
    assert idf(0, 9) == pytest.approx(math.log(10))
    assert idf(9, 9) == pytest.approx(0.0)
    assert [term(w) for w in ("four", "twice", "eggs", "baking", "bus", "has", "12", "dozen")] == [
        "4",
        "2",
        "egg",
        "bak",
        "bus",
        "has",
        "12",
        "12",
    ]
    # the verifier: σ(b0 + b1·cosine + b2·lexical + b3·facts), facts = the lexical share
    # without numbers, the numbers' share with them
    b = (-1.0, 2.0, 1.0, 0.5)
    assert verifier_score(0.8, 0.4, None, weights=b) == pytest.approx(
        1 / (1 + math.exp(-(-1 + 1.6 + 0.4 + 0.2)))
    )
    assert verifier_score(0.8, 0.4, 1.0, weights=b) == pytest.approx(
        1 / (1 + math.exp(-(-1 + 1.6 + 0.4 + 0.5)))
    )
    assert pair_cosines([[1.0, 0.0], [0.6, 0.8]], [[0.6, 0.8]], [(0, 0), (1, 0)]) == pytest.approx(
        [0.6, 1.0]
    )


def test_word_terms_split_code_and_read_numbers():
    assert word_terms("has_close_elements(numbers:") == ("has", "close", "element", "number")
    assert word_terms("$80,000.") == ("80000",)
    assert word_terms("2.5kg") == ("2.5", "kg")
    assert word_terms("Four") == ("4",) and word_terms("ＦＯＵＲ") == ("4",)  # NFKC
    assert word_terms("—") == ()


def test_config_rejects_bad_values():
    for kw in (
        {"threshold": 0},
        {"threshold": 1.5},
        {"candidates": 0},
        {"window_words": 2},
        {"rare_share": 0},
    ):
        with pytest.raises(EvalsieveError):
            SemanticConfig(**kw)


# -- candidate stage ----------------------------------------------------------------------
EVAL = [
    ["Janet has 16 ducks and sells each egg for 2 dollars"],  # row 0
    ["Paris weather tomorrow"],
]  # row 1
BACKGROUND = [
    "the cat and the dog",
    "has a dollars for each",
    "sells and has for",
    "a b c",
    "d e f",
    "g h i",
    "j k l",
    "m n o",
    "p q r",
    "s t u",
]


def scan_of(records, **cfg):
    s = SemanticScan(EVAL, SemanticConfig(window_words=4, rare_share=0.1, **cfg), BACKGROUND)
    s.scan(records)
    return s


def test_key_terms_are_rare_words_and_numbers():
    s = scan_of([])
    # terms: "ducks" -> duck, "sells" -> sell, "dollars" -> dollar ("has" keeps its s: only 2
    # letters would remain). The background in passages of W = 4 words: "the cat and the dog"
    # and "has a dollars for each" are 2 passages each, the 8 others 1: 12 passages; cap =
    # max(1, 0.1 × 12) = 1.2. "has"/"and"/"for" are in 2 (not key); "sell"/"each"/"dollar"
    # in 1 (key, idf ln(13/2)); words in none get ln(13).
    assert s.background_records == 12
    assert len(s.probes) == 2 and s.rows[0].probes == (0,) and s.probes[0].part == 0
    keys = dict(s.probes[0].keys)
    assert set(keys) == {"janet", "16", "duck", "sell", "each", "egg", "2", "dollar"}
    assert keys["janet"] == pytest.approx(math.log(13))
    assert keys["sell"] == keys["each"] == pytest.approx(math.log(13 / 2))
    assert s.postings["pari"] == [1] and "has" not in s.postings


def test_a_long_background_record_is_many_passages():
    # one record of 12 words: 3 passages of 4 words; "zebra" in the first only is in 1 of
    # 3 passages (rare at 0.5: cap 1.5), where counting records would put it in 1 of 1
    s = SemanticScan(
        [["zebra crossing"]],
        SemanticConfig(window_words=4, rare_share=0.5),
        ["zebra a b c d e f g h i j k"],
    )
    assert s.background_records == 3 and dict(s.probes[0].keys) == {
        "zebra": pytest.approx(math.log(4 / 2)),
        "cross": pytest.approx(math.log(4)),
    }


def test_a_term_most_probes_share_is_no_key_term():
    # 30 eval rows all hold "zebra" (30 of 30 probes > max(10, 5% of 30)); each holds its own
    # number too (1 probe each): only the numbers are keys, though "zebra" is rare in the
    # background (no passage holds it); "zebra" still places the spans (an anchor)
    ev = [[f"zebra number {i}"] for i in range(30)]
    s = SemanticScan(ev, SemanticConfig(window_words=4), BACKGROUND)
    assert [w for w, _ in s.probes[7].keys] == ["7"] and "zebra" not in s.postings
    assert "zebra" in s.probes[7].anchors and "number" in s.probes[7].anchors
    # 10 rows sharing it keep it: the floor of 10 probes
    s = SemanticScan(ev[:10], SemanticConfig(window_words=4), BACKGROUND)
    assert "zebra" in dict(s.probes[7].keys) and len(s.postings["zebra"]) == 10


def test_ties_between_windows_keep_the_earlier_one():
    # key weights are summed as integers (2^-20 units): a window's sum is the same in any
    # order, and of two windows holding the same key terms the earlier one is kept
    ev = [["Janet sells duck eggs"]]
    s = SemanticScan(ev, SemanticConfig(window_words=4, candidates=1), BACKGROUND)
    s.scan([(1, ["eggs duck Janet sells"]), (2, ["Janet sells duck eggs"])])
    s.request()
    assert [w.record for w in s._windows] == [1]
    assert all(isinstance(v, int) for v in s._key_units.values())


def test_candidate_stage_keeps_the_best_windows_and_skips_the_rest():
    recs = [
        (1, ["a b c d e f"]),  # windows (0,4) (2,6): no key term
        (2, ["Janet owns 16 ducks"]),  # one window: janet 16 ducks
        (3, ["ducks quack loudly"]),  # one window: ducks
        (4, ["the Paris weather is mild"]),
    ]  # windows (0,4), (1,5)
    s = scan_of(recs, candidates=1)
    req = s.request()
    f = s.figures()
    assert f["windows"] == 2 + 1 + 1 + 2 and f["windows_sharing_a_key_term"] == 1 + 1 + 2
    # row 0 keeps record 2 (3 key terms beat 1); row 1 keeps record 4's first window
    # (both hold "paris weather"; the tie goes to the earlier window)
    assert req["window_texts"] == ["Janet owns 16 ducks", "the Paris weather is"]
    assert req["pairs"] == [[0, 0], [1, 1]]
    assert req["eval_texts"] == [
        "Janet has 16 ducks and sells each egg for 2 dollars",
        "Paris weather tomorrow",
    ]
    assert f["windows_embedded"] == 2


def test_candidates_are_released_when_pushed_out():
    s = scan_of([(1, ["ducks ducks ducks"]), (2, ["Janet 16 ducks"])], candidates=1)
    s.request()
    assert [w.record for w in s._windows] == [2]


# -- verifier -----------------------------------------------------------------------------
def test_evidence_and_verdict_by_hand():
    recs = [(1, ["Janet owns 16 ducks"]), (2, ["zebra"])]
    s = scan_of(recs, candidates=2, threshold=0.7)
    req = s.request()
    assert req["pairs"] == [[0, 0]]
    # the span: 11 probe words, a search span of ⌈16.5⌉ = 17 words holds the whole 4-word
    # record; its anchors (janet 16 duck, words 0..3) keep it whole
    assert req["window_texts"] == ["Janet owns 16 ducks"]
    x = s.pairs[0]
    assert (x.start, x.words) == (0, 4)
    # idf over the 2 windows scanned; row 0's distinct terms: janet 16 duck (df 1) and
    # has and sell each egg for 2 dollar (df 0)
    a, b = idf(1, 2), idf(0, 2)
    lex = 3 * a / (3 * a + 8 * b)
    assert x.lexical == pytest.approx(lex)
    assert x.numbers == pytest.approx(1 / 3)  # "16" shared, "2" not: 1 / (2 + 1)
    m = s.verify([0.9])
    b0, b1, b2, b3 = VERIFIER_WEIGHTS
    z = b0 + b1 * 0.9 + b2 * lex + b3 / 3
    assert m[0].score == pytest.approx(1 / (1 + math.exp(-z)))
    assert m[0].caught is (m[0].score >= 0.7) and m[0].training_record == 1
    assert m[0].window == "Janet owns 16 ducks" and m[0].cosine == pytest.approx(0.9)
    assert m[0].part == 0 and m[0].rival is None
    assert m[1].score is None and not m[1].caught and m[1].part is None  # no candidate
    with pytest.raises(EvalsieveError):
        s.verify([0.9, 0.1])


def test_a_short_copy_in_a_long_window_is_compared_alone():
    # W = 16; the copy (5 words) sits inside 30 words of other text: its span is the copy
    ev = [["Janet sells duck eggs daily"]]
    filler = " ".join(f"w{i}" for i in range(30))
    rec = filler[:40] + " Janet sells her duck eggs daily " + filler[40:]
    s = SemanticScan(ev, SemanticConfig(window_words=16), BACKGROUND)
    s.scan([(1, [rec])])
    req = s.request()
    words = rec.split()
    at = words.index("Janet")
    # search span max(8, ⌈7.5⌉) = 8 words; cut to janet .. daily (6 words), pad 1 either
    # side: 8 words; at least ⌈2.5⌉ = 3
    assert req["window_texts"] == [" ".join(words[at - 1 : at + 7])]
    assert s.pairs[0].lexical == pytest.approx(1.0)


def test_probes_of_a_row_of_two_fields():
    # a question and its answer: the question alone (it is ≥ 8 words), and the whole row
    # (the answer is shorter); the question's copy is matched by the question probe
    ev = [["Tom has 3 red apples and 2 green pears; how many fruit?", "5"]]
    s = SemanticScan(ev, SemanticConfig(window_words=16), BACKGROUND)
    assert [(p.part, p.words) for p in s.probes] == [(1, 12), (0, 13)]
    s.scan([(1, ["Tom owns 3 red apples plus 2 green pears: the fruit count?"])])
    req = s.request()
    assert req["eval_texts"] == [ev[0][0], ev[0][0] + " 5"]
    assert [p for p, _ in req["pairs"]] == [0, 1]
    m = s.verify([0.95, 0.80])
    assert m[0].part == 1 and m[0].cosine == pytest.approx(0.95)


# -- the ladder in the job ----------------------------------------------------------------
def test_assign_rungs_takes_the_first_rung():
    assert assign_rungs(
        [3, 0, 0, 0, 0],
        ["contaminated", "contaminated", "clean", "clean", "too_short"],
        [True, True, True, False, True],
    ) == ["exact", "ngram", "semantic", "", "semantic"]
    assert assign_rungs([0, 2], ["clean", "too_short"], None) == ["", "exact"]


def _jsonl(key, texts):
    return "".join(json.dumps({key: t}) + "\n" for t in texts)


EVAL_ROWS = [
    "the quick brown fox jumps over the lazy dog near the river bank today",  # exact
    "a farmer sells seventeen apples at the market every single sunday morning",  # n-gram
    "Janet has 16 ducks that lay eggs and she sells each egg for 2 dollars",  # reworded
    "what is the capital city of the country north of spain and south of belgium",  # clean
    "hi",  # too short
]
TRAIN = [
    "The quick brown fox jumps over the lazy dog near the river bank today!",
    "every week a farmer sells seventeen apples at the market every single sunday morning too",
    "wiki text before. Sixteen? No: Janet owns 16 ducks; each egg she sells costs 2 dollars. after",
    "hi",
]


def ladder_job(exclude=None, cosine=0.95, semantic=True):
    cfg = ContaminationConfig(
        ("q",),
        ("t",),
        n=8,
        exclude_rungs=exclude,
        semantic=SemanticConfig(window_words=16) if semantic else None,
    )
    job = ContaminationJob(cfg, "e.jsonl", "jsonl", "t.jsonl", "jsonl")
    job.feed_eval(_jsonl("q", EVAL_ROWS))
    job.end_eval()
    job.feed_train(_jsonl("t", TRAIN))
    if semantic:
        req = job.semantic_request()
        job.set_semantic_cosines(
            [
                cosine if job.semantic.probes[i].text.startswith("Janet") else 0.1
                for i, _ in req["pairs"]
            ]
        )
    f = InputFile("eval", "e", "0" * 64, 1)
    return job, job.finish(
        f, InputFile("train", "t", "0" * 64, 1), "2026-01-01T00:00:00+00:00"
    ).summary


def test_ladder_rungs_summary_and_columns():
    job, s = ladder_job()
    # "hi" (row 5) equals training record 4: too short to score, an exact copy all the same
    # (a one-word row equal to a one-word record); every caught row is contaminated
    assert job.rung == ["exact", "ngram", "semantic", "", "exact"]
    assert [r.status for r in job.scores] == ["contaminated"] * 3 + ["clean", "contaminated"]
    assert s["rows_contaminated_by_rung"] == {"exact": 2, "ngram": 1, "semantic": 1}
    assert s["rows_scored"] == 4 and s["rows_contaminated"] == 4 and s["rows_kept"] == 1
    header = cx.report_csv(job.result).split("\r\n")[0].split(",")
    assert header[-1] == "run_fingerprint"
    assert header[-14:-1] == [
        "rung",
        "semantic_score",
        "semantic_cosine",
        "semantic_lexical",
        "semantic_numbers",
        "semantic_code",
        "semantic_docstring_cosine",
        "semantic_rival",
        "semantic_code_runner_up",
        "semantic_part",
        "semantic_training_file",
        "semantic_training_record",
        "training_window",
    ]
    row3 = cx.report_csv(job.result).split("\r\n")[3].split(",")
    assert row3[0] == "3" and row3[header.index("semantic_part")] == "row"
    fp = job.stamp.to_dict()["fingerprint"]
    assert "\n5,1,8,fewer than N words,exact," + fp in cx.too_short_csv(
        job.result
    )  # "hi": rung exact
    html = report_html(job.result)
    for title in (
        "Rung exact (2)",
        "Contaminated rows (4)",
        "Rung semantic (1 rows caught)",
        "Caught first by the exact rung (2)",
        "Caught first by the semantic rung (1)",
        "clean at these rungs",
    ):
        assert title in html


def test_clean_file_excludes_the_ticked_rungs():
    assert cx.clean_text(ladder_job()[0].result) == _jsonl("q", EVAL_ROWS[3:4])
    job, s = ladder_job(exclude=("exact", "ngram"))
    assert cx.clean_text(job.result) == _jsonl("q", EVAL_ROWS[2:4])  # the reworded row stays
    assert s["rows_kept"] == 2 and s["clean_file_excludes"] == ["exact", "ngram"]
    job, _ = ladder_job(exclude=("semantic",))
    assert cx.clean_text(job.result) == _jsonl("q", EVAL_ROWS[0:2] + EVAL_ROWS[3:4])


def test_low_cosine_leaves_the_reworded_row_clean():
    job, s = ladder_job(cosine=0.1)
    assert job.rung[2] == "" and s["rows_contaminated_by_rung"]["semantic"] == 0


def test_semantic_off_adds_only_the_rung_column():
    job, s = ladder_job(semantic=False)
    assert s["rows_contaminated_by_rung"] == {"exact": 2, "ngram": 1, "semantic": None}
    assert (
        cx.report_csv(job.result).split("\r\n")[0].endswith("training_excerpt,rung,run_fingerprint")
    )
    assert cx.clean_text(job.result) == _jsonl("q", EVAL_ROWS[2:4])
    with pytest.raises(EvalsieveError):
        ContaminationConfig(("q",), ("t",), exclude_rungs=("semantic",))
    assert RUNGS == ("exact", "ngram", "semantic")


def test_finish_needs_the_cosines():
    cfg = ContaminationConfig(("q",), ("t",), n=8, semantic=SemanticConfig())
    job = ContaminationJob(cfg, "e.jsonl", "jsonl", "t.jsonl", "jsonl")
    job.feed_eval(_jsonl("q", EVAL_ROWS))
    job.end_eval()
    job.feed_train(_jsonl("t", TRAIN))
    f = InputFile("eval", "e", "0" * 64, 1)
    with pytest.raises(EvalsieveError, match="cosines"):
        job.finish(f, f, "2026-01-01T00:00:00+00:00")
