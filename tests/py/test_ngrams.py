import json
import os
import random

import pytest

import reference
from evalsieve.errors import EvalsieveError
from evalsieve.ngrams import (
    EvalIndex,
    TrainingScan,
    boilerplate_cutoff,
    containment_scores,
    ngram_size,
)


def score(eval_texts, train_texts, n=None, **kw):
    idx = EvalIndex([[t] for t in eval_texts], n)
    scan = TrainingScan(idx)
    scan.scan([(i + 1, [t]) for i, t in enumerate(train_texts)])
    scan.records = len(train_texts)
    return idx, containment_scores(idx, scan, **kw)


def test_ngram_size_nearest_rank_and_clamp():
    # k = 20: rank ceil(1.0) = 1 -> the smallest count
    assert ngram_size([30] * 19 + [9])[0] == 9
    # k = 21: rank ceil(1.05) = 2 -> the second smallest
    assert ngram_size([30] * 19 + [9, 11])[0] == 11
    # clamps: 8..13
    assert ngram_size([3] * 50)[0] == 8
    assert ngram_size([40] * 50)[0] == 13
    # empty rows are ignored
    assert ngram_size([0, 0, 10])[0] == 10
    n, how = ngram_size(list(range(1, 101)))
    assert n == 8 and "nearest rank 5 of 100" in how and "= 5 words" in how
    with pytest.raises(EvalsieveError):
        ngram_size([0, 0])


def test_boilerplate_cutoff():
    assert boilerplate_cutoff(0) == 10
    assert boilerplate_cutoff(10_000) == 10
    assert boilerplate_cutoff(10_001) == 11  # ceil(10.001)
    assert boilerplate_cutoff(2_000_000) == 2000


def test_quoted_inside_longer_document_scores_one():
    q = "how many apples does mary have left after giving away three of her twelve apples today"
    doc = "lorem " * 300 + q.upper() + "!" + " ipsum" * 300
    _, (scores, _) = score([q], [doc], n=8)
    s = scores[0]
    assert s.status == "contaminated" and s.containment == 1.0
    assert s.ngrams_total == len(q.split()) - 8 + 1 == s.ngrams_matched
    assert s.training_record == 1 and s.shared_passage == q


def test_one_word_changed_hand_computed():
    q = " ".join(f"w{i}" for i in range(20))  # 20 words, n = 8 -> 13 n-grams
    changed = q.replace("w10", "zzz")
    # n-grams covering position 10 start at 3..10: 8 of 13 are lost
    _, (scores, _) = score([q], [changed], n=8)
    s = scores[0]
    assert (s.ngrams_matched, s.ngrams_total) == (5, 13)
    assert s.containment == pytest.approx(5 / 13)
    # longest run covered: w0..w9 (starts 0,1,2 cover up to w9); the tail run w11..w19 is 9
    assert s.shared_passage == " ".join(f"w{i}" for i in range(10))


def test_ngrams_never_span_fields_or_records():
    q = " ".join(f"w{i}" for i in range(8))
    idx = EvalIndex([[q]], 8)
    scan = TrainingScan(idx)
    scan.scan([(1, ["w0 w1 w2 w3", "w4 w5 w6 w7"]), (2, ["w0 w1 w2 w3"]), (3, ["w4 w5 w6 w7"])])
    scan.records = 3
    scores, _ = containment_scores(idx, scan)
    assert scores[0].ngrams_matched == 0


def test_too_short_empty_and_no_ngram():
    idx = EvalIndex(
        [["a b c"], [""], ["a b c d e", "f g h i j"], [" ".join("x" * 1 for _ in range(9))]], 8
    )
    scan = TrainingScan(idx)
    scan.records = 0
    scores, _ = containment_scores(idx, scan)
    assert [s.status for s in scores] == ["too_short", "empty", "no_ngram", "clean"]
    assert [s.words for s in scores] == [3, 0, 10, 9]


def test_boilerplate_dropped_from_both_sides():
    shared = "please read the following passage and answer the question below"  # 10 words
    q1 = shared + " what colour is the sky on a clear day"
    # the shared instruction occurs in 11 training records (> cutoff 10)
    train = [shared + f" unrelated text number {i}" for i in range(11)]
    _, (scores, cutoff) = score([q1, shared], train, n=8)
    assert cutoff == 10
    assert scores[1].status == "boilerplate_only" and scores[1].ngrams_boilerplate == 3
    s = scores[0]
    # q1 has 10 + 9 = 19 words -> 12 n-grams; the 3 inside the instruction are boilerplate
    assert (s.ngrams_boilerplate, s.ngrams_total, s.ngrams_matched) == (3, 9, 0)
    assert s.status == "clean"
    # with the pass off the instruction counts as a match
    _, (scores, cutoff) = score([q1, shared], train, n=8, boilerplate=False)
    assert cutoff == 0 and scores[0].ngrams_matched == 3 and scores[1].containment == 1.0


def test_threshold():
    q = " ".join(f"w{i}" for i in range(20))
    changed = q.replace("w10", "zzz")  # containment 5/13 = 0.385
    _, (s, _) = score([q], [changed], n=8, threshold=0.5)
    assert s[0].status == "clean"
    _, (s, _) = score([q], [changed], n=8, threshold=0.38)
    assert s[0].status == "contaminated"
    with pytest.raises(EvalsieveError):
        score([q], [changed], n=8, threshold=0)


def test_filter_words_do_not_change_results():
    rng = random.Random(5)
    vocab = [f"v{i}" for i in range(40)]
    ev = [" ".join(rng.choice(vocab) for _ in range(rng.randrange(5, 30))) for _ in range(60)]
    tr = [" ".join(rng.choice(vocab) for _ in range(rng.randrange(5, 80))) for _ in range(300)]
    tr += [ev[3], "x y " + ev[7] + " z", ev[11][: len(ev[11]) // 2]]
    base = None
    for bg in ({}, {w: rng.randrange(100) for w in vocab}):
        idx = EvalIndex([[t] for t in ev], 8, bg)
        scan = TrainingScan(idx)
        scan.scan([(i + 1, [t]) for i, t in enumerate(tr)])
        scan.records = len(tr)
        got = [
            (s.status, s.ngrams_matched, s.ngrams_total) for s in containment_scores(idx, scan)[0]
        ]
        base = base or got
        assert got == base
    n, ref, short = reference.contamination([[t] for t in ev], [[t] for t in tr], 8)
    for i, (status, m, t) in enumerate(base):
        if i in short:
            assert status in ("too_short", "empty", "no_ngram", "boilerplate_only")
        else:
            assert (m, t) == ref[i]


def test_self_containment_is_one():
    text = "The quick brown fox jumps over the lazy dog while the cat watches from the fence."
    _, (s, _) = score([text], [text], n=8)
    assert s[0].containment == 1.0


def test_gsm8k_test_vs_train_against_reference(shared):
    """GSM8K test questions vs train questions+answers: the shared README says 3 test
    questions share a 13-gram with train; the naive reference must agree row by row."""
    d = os.path.join(shared, "gsm8k")
    ev = reference.load_jsonl(os.path.join(d, "test.jsonl"), "question")
    with open(os.path.join(d, "train.jsonl"), encoding="utf-8") as f:
        tr = [[r["question"], r["answer"]] for r in map(json.loads, f)]
    n_ref, ref, short = reference.contamination(ev, tr)
    idx = EvalIndex(ev)
    assert idx.n == n_ref == 13
    scan = TrainingScan(idx)
    scan.scan([(i + 1, segs) for i, segs in enumerate(tr)])
    scan.records = len(tr)
    scores, _ = containment_scores(idx, scan)
    dirty = [s.eval_row for s in scores if s.status == "contaminated"]
    assert dirty == [i + 1 for i, (m, _) in sorted(ref.items()) if m] == [582, 603, 633]
    for s in scores:
        if s.scored:
            assert (s.ngrams_matched, s.ngrams_total) == ref[s.eval_row - 1]
    by_row = {s.eval_row: s for s in scores}
    assert by_row[603].ngrams_matched == 7 and by_row[603].ngrams_total == 13
