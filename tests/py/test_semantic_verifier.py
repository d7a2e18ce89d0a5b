"""The semantic rung's probes, fitted spans and verifier (semantic.py probe_parts,
semantic_verifier.py). Expectations are worked by hand in the comments."""

import math

import pytest

from evalsieve.semantic import PART_MIN_WORDS, probe_parts
from evalsieve.semantic_verifier import (
    SPAN_MIN_SHARE,
    SPAN_MIN_WORDS,
    SPAN_PAD,
    SPAN_RATIO,
    VERIFIER_THRESHOLD,
    VERIFIER_WEIGHTS,
    best_span,
    features,
    rival_penalty,
    share,
    span_cut,
    span_length,
    verifier_score,
)

Q = "Tom has 3 red apples and 2 green pears; how many fruit?"  # 12 words


# -- probes ---------------------------------------------------------------------------------
def test_probe_parts_worked_examples():
    assert PART_MIN_WORDS == 8
    # one value: the row is its own probe
    assert probe_parts([Q]) == [(0, Q)]
    assert probe_parts(["  a   b  "]) == [(0, "a b")]
    assert probe_parts([]) == [] and probe_parts(["", "  "]) == []
    # a long question and a short answer: the question alone, and the whole row
    assert probe_parts([Q, "5"]) == [(1, Q), (0, Q + " 5")]
    # two long values: each on its own; no whole row (every value is a probe)
    a = "He adds 3 and 2 to get 5 fruit in all, so 5."  # 13 words
    assert probe_parts([Q, a]) == [(1, Q), (2, a)]
    # no long value: the whole row only
    assert probe_parts(["What is an ecclesia?", "a state church"]) == [
        (0, "What is an ecclesia? a state church")
    ]
    # an empty value is not a value; identical texts are probed once
    assert probe_parts([Q, " "]) == [(0, Q)] and probe_parts([" ", Q]) == [(0, Q)]
    assert probe_parts([Q, Q]) == [(1, Q)]
    # parts are numbered by the value's place, empty values included
    assert probe_parts(["", Q, "7"]) == [(2, Q), (0, Q + " 7")]


# -- fitted spans ---------------------------------------------------------------------------
def test_span_length():
    assert SPAN_RATIO == 1.5 and SPAN_MIN_WORDS == 8
    assert span_length(12) == 18 and span_length(13) == 20  # ⌈19.5⌉
    assert span_length(3) == 8 and span_length(0) == 8


def test_best_span_docstring_example():
    assert best_span([("a",), ("x",), ("b",), ("y",), ("z",)], {"x": 1, "y": 1}, 4) == (1, 4, 2.0)


def test_best_span_weighs_distinct_terms_and_cuts_to_the_anchors():
    ctx = [(w,) for w in "p q x x x r s y z t u v".split()]
    w = {"x": 1.0, "y": 2.0, "z": 0.5}
    # 4-word search spans: "x x x r" holds only x (1.0, counted once); "x r s y" (words 4..7)
    # holds x and y (3.0) first; "r s y z" y and z (2.5). Cut to its anchors x (4), y (7)
    assert best_span(ctx, w, 4) == (4, 8, 3.0)
    # 6-word spans: 2..7 holds x and y (3.0); 3..8 holds x, y and z (3.5) first (4..9 too);
    # its anchors are words 3, 4, 7, 8
    assert best_span(ctx, w, 6) == (3, 9, 3.5)
    assert best_span(ctx, w, 6, pad=1) == (2, 10, 3.5)  # a word either side
    # y alone places it: word 7; grown about its middle to 4 words: start 7 − ⌊3 / 2⌋ = 6
    assert best_span(ctx, w, 6, anchors={"y"}) == (7, 8, 3.5)
    assert best_span(ctx, w, 6, anchors={"y"}, min_length=4) == (6, 10, 3.5)
    # a search span as long as the context, or longer: the whole context, cut to 2..8
    assert best_span(ctx, w, 12) == best_span(ctx, w, 40) == (2, 9, 3.5)
    # no term of the probe at all: the first search span, whole
    assert best_span(ctx, {"nope": 1.0}, 4) == (0, 4, 0.0)


def test_best_span_grows_a_lone_hit_inside_the_context():
    ctx = [(w,) for w in "a b c d e f g h i j".split()]
    # only "c" (word 2) matches: the span is that word; grown to 5 words about it: start
    # 2 − ⌊4 / 2⌋ = 0; "h" (word 7): start min(10 − 5, 7 − 2) = 5, the context's end
    assert best_span(ctx, {"c": 1.0}, 5) == (2, 3, 1.0)
    assert best_span(ctx, {"c": 1.0}, 5, min_length=5) == (0, 5, 1.0)
    assert best_span(ctx, {"h": 1.0}, 5, min_length=5) == (5, 10, 1.0)
    assert best_span(ctx, {"h": 1.0}, 5, min_length=4) == (6, 10, 1.0)


def test_span_cut():
    assert SPAN_PAD == 0.05 and SPAN_MIN_SHARE == 0.5
    assert span_cut(40) == (2, 20) and span_cut(10) == (1, 5) and span_cut(9) == (1, 5)


def test_share_is_idf_weighted():
    assert share({"a", "b"}, {"a"}, {"a": 3.0, "b": 1.0}) == pytest.approx(0.75)
    assert share({"a"}, set(), {"a": 0.0}) == 0.0


# -- the verifier -----------------------------------------------------------------------------
def test_features_by_probe_kind():
    # prose with numbers: facts = the numbers' share
    assert features(0.8, 0.5, 0.25) == (0.8, 0.5, 0.25)
    # prose without numbers: facts = the lexical share
    assert features(0.8, 0.5, None) == (0.8, 0.5, 0.5)
    # code: facts = the code share plus its margin over the runner-up (0.9 + 0.5); meaning =
    # the better cosine; the numbers' share is not read (numbers are literals, abstracted)
    assert features(0.6, 0.3, 0.5, code=0.9, docstring_cosine=0.7, code_runner_up=0.4) == (
        0.7,
        0.3,
        pytest.approx(1.4),
    )
    assert features(0.6, 0.3, None, code=0.3, code_runner_up=0.4) == (0.6, 0.3, 0.3)
    assert features(0.6, 0.3, None, code=0.7, code_runner_up=0.4) == (0.6, 0.3, pytest.approx(1.0))


def test_verifier_score_is_the_logistic_of_the_weighted_features():
    b = (-2.0, 1.0, 2.0, 3.0)
    # z = −2 + 0.8 + 2 × 0.5 + 3 × 0.25 = 0.55
    assert verifier_score(0.8, 0.5, 0.25, weights=b) == pytest.approx(1 / (1 + math.exp(-0.55)))
    assert verifier_score(0.0, 0.0, None, weights=(-100.0, 0, 0, 0)) == 0.0
    # the committed weights: a strong copy scores over the threshold, a stranger under it
    assert len(VERIFIER_WEIGHTS) == 4 and 0 < VERIFIER_THRESHOLD <= 1
    assert verifier_score(0.95, 0.9, 0.9) >= VERIFIER_THRESHOLD
    assert verifier_score(0.2, 0.05, 0.0) < VERIFIER_THRESHOLD


def test_rival_penalty():
    assert rival_penalty(0.6, 0.7) == pytest.approx(0.5)
    assert rival_penalty(0.7, 0.6) == 0.7 and rival_penalty(0.7, None) == 0.7
    assert rival_penalty(0.7, 0.7) == 0.7  # duplicates both keep their score
    assert rival_penalty(0.2, 0.9) == 0.0  # floored at 0
