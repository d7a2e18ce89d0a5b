"""The semantic rung's pair-level rule (standard library only): where in a candidate window a
probe's copy sits (:func:`best_span`), the evidence of a pair, and the verifier.

The verifier is a logistic regression on three features of a (probe, span) pair
(:func:`features`), fitted on labelled public pairs; its coefficients are constants here,
printed and checked by ``benchmarks/bench_semantic.py`` (``--fit`` refits them; every fitting
set is scored at coefficients fitted without it, leave-one-set-out; docs/SEMANTIC.md).
"""

from __future__ import annotations

import math

#: A fitted span is sought among spans of this many words per word of its probe: a rephrasing
#: is longer than its source, and the search must hold it whole. Words of copy ÷ words of
#: source, median and 95th percentile: GPT-4 rephrasings of GSM8K test questions 1.14× and
#: 1.41×; MRPC test paraphrases 1.0× and 1.35×; HumanEval's rephrased programs 1.24× (75th
#: percentile 1.5×).
SPAN_RATIO = 1.5
#: The search span is never shorter than this many words (a 3-word probe is sought in 8).
SPAN_MIN_WORDS = 8
#: The span compared is then cut to the probe's rare terms found in it, with this many words
#: per probe word on either side (at least 1): the encoder averages over every word, so 20
#: unrelated words around a 40-word copy lower its cosine (0.65 → 0.84 on the 40 weakest
#: GSM8K copies of benchmarks/bench_semantic.py against a 1.5× span).
SPAN_PAD = 0.05
#: ... and is never shorter than this share of the probe's words.
SPAN_MIN_SHARE = 0.5

#: The verifier's logistic regression: ``P = σ(b0 + b1·meaning + b2·lexical + b3·facts)``
#: (:func:`features`). Fitted by ``benchmarks/bench_semantic.py --fit`` on
#: its nine fitting sets (gsm8k, humaneval, gsm8k_stem, gsm8k_long, mrpc, stsb, bigbench, web,
#: codealpaca; every set weighted equally; L2 penalty 1e-3; the copies against every pair,
#: then three times against each clean row's best-scoring pair); the held-out sets unused.
#: Each fitting set scored at weights fitted without it: docs/SEMANTIC.md.
VERIFIER_WEIGHTS = (-8.844, 9.684, 1.624, 2.782)
#: The probability at or over which a row is caught, chosen with the weights for each kind of
#: row apart (a threshold calibrates a false-positive rate, and the features of a code row and
#: a prose row are not alike: the encoder finds any two programs similar): for prose rows, the
#: lowest at which the fitting sets with clean prose negatives (all but mrpc and stsb) have
#: ≤ 1% of those rows caught, each set weighing the same; for code rows
#: (:data:`VERIFIER_CODE_THRESHOLD`) the same over the sets' code rows.
VERIFIER_THRESHOLD = 0.694
VERIFIER_CODE_THRESHOLD = 0.621


def best_span(
    word_terms: list[tuple],
    weight: dict,
    length: int,
    anchors=None,
    pad: int | None = 0,
    min_length: int = 1,
) -> tuple[int, int, float]:
    """Where in a window's context a probe's copy sits: ``(start, end, value)``.

    1. The ``length``-word span that holds the most of the probe's terms by weight: its value
       is Σ weight(t) over the probe's distinct terms t in it; the first of the highest value
       wins (the whole context when it is no longer than ``length``).
    2. That span cut to its first and last *anchor* words (words holding one of ``anchors``,
       the probe's rare terms), ``pad`` words added on either side: common words that happen
       to match around the copy neither widen nor move it. A span of no anchor stays whole.
    3. Grown about its middle to ``min_length`` words when shorter (inside the context).

    Args:
        word_terms: the context's words as their terms (one tuple per word).
        weight: the probe's terms -> weight (idf); other terms count 0.
        length: the search span's words.
        anchors: the terms that place the span (default: every term of ``weight``).
        pad: words kept beyond the first and last anchor; None keeps the search span whole.
        min_length: the fewest words of the result.
    Returns:
        ``(start, end, value)``: the span ``[start, end)`` of the context and the search
        span's value (rounded to 9 decimals).

    Example: ``best_span([("a",), ("x",), ("b",), ("y",), ("z",)], {"x": 1, "y": 1}, 4)``
    is ``(1, 4, 2.0)``: words 0..3 hold x and y first, cut to words 1..3.
    """
    n = len(word_terms)
    length = min(length, n)
    count: dict = {}
    value = 0.0

    def add(i, d):
        nonlocal value
        for t in word_terms[i]:
            w = weight.get(t)
            if w is None:
                continue
            c = count.get(t, 0)
            if d > 0 and c == 0:
                value += w
            elif d < 0 and c == 1:
                value -= w
            count[t] = c + d

    for i in range(length):
        add(i, 1)
    best, best_start = round(value, 9), 0
    for s in range(1, n - length + 1):
        add(s - 1, -1)
        add(s + length - 1, 1)
        v = round(value, 9)  # rounded: sums of floats in another order must tie
        if v > best:
            best, best_start = v, s
    anchors = weight if anchors is None else anchors
    hits = [
        i
        for i in range(best_start, best_start + length)
        if any(t in anchors for t in word_terms[i])
    ]
    if not hits or pad is None:
        return best_start, best_start + length, best
    start, end = max(0, hits[0] - pad), min(n, hits[-1] + 1 + pad)
    if end - start < min_length:
        start = max(0, min(n - min_length, start - (min_length - (end - start)) // 2))
        end = min(n, start + min_length)
    return start, end, best


def span_length(probe_words: int) -> int:
    """Words of a probe's search span: ⌈SPAN_RATIO × probe words⌉, at least SPAN_MIN_WORDS."""
    return max(SPAN_MIN_WORDS, math.ceil(SPAN_RATIO * probe_words))


def span_cut(probe_words: int) -> tuple[int, int]:
    """``(pad, min_length)`` of a probe's compared span: max(1, round(SPAN_PAD × words)) and
    ⌈SPAN_MIN_SHARE × words⌉."""
    return max(1, round(SPAN_PAD * probe_words)), math.ceil(SPAN_MIN_SHARE * probe_words)


def share(terms, found, weight: dict) -> float:
    """Σ weight(t) over ``terms`` in ``found`` ÷ Σ weight(t) over ``terms`` (0.0 when the
    weights sum to 0): the IDF-weighted share of a probe's terms found in a span."""
    tot = hit = 0.0
    for t in terms:
        x = weight[t]
        tot += x
        if t in found:
            hit += x
    return hit / tot if tot else 0.0


def features(
    cosine: float,
    lexical: float,
    numbers: float | None,
    code: float | None = None,
    docstring_cosine: float | None = None,
    code_runner_up: float | None = None,
) -> tuple[float, float, float]:
    """The verifier's three features of a pair: ``(meaning, lexical, facts)``.

    * meaning: the cosine; for a code probe whose docstring was embedded with the span's
      docstring, the better of the two cosines (the encoder reads prose better than code);
    * lexical: the IDF-weighted share of the probe's terms found in the span;
    * facts: for a prose probe with numbers, the share of its numbers found, add-one
      smoothed (shared ÷ (numbers + 1)); for a code probe, the IDF-weighted share of its code
      shingles found (names and literals abstracted) plus how far that share exceeds its
      best share in windows elsewhere (``code_runner_up``; a rephrased program's shape is
      found in one place, the template every function shares in many); else the lexical
      share.

    Example: ``features(0.6, 0.3, None, code=0.7, code_runner_up=0.4) == (0.6, 0.3, 1.0)``
    (0.7 + 0.3, to float rounding).
    """
    meaning = cosine if docstring_cosine is None else max(cosine, docstring_cosine)
    if code is not None:
        facts = code + max(0.0, code - (code_runner_up if code_runner_up is not None else code))
    elif numbers is not None:
        facts = numbers
    else:
        facts = lexical
    return meaning, lexical, facts


def verifier_score(
    cosine: float,
    lexical: float,
    numbers: float | None,
    code: float | None = None,
    docstring_cosine: float | None = None,
    code_runner_up: float | None = None,
    weights=VERIFIER_WEIGHTS,
) -> float:
    """The verifier's probability that a pair is a copy: ``σ(b · (1, features))`` in (0, 1).

    Args:
        cosine, lexical, numbers, code, docstring_cosine, code_runner_up: as in
            :func:`features`.
        weights: ``(b0, b1, b2, b3)``; :data:`VERIFIER_WEIGHTS` unless refitting.
    """
    f = features(cosine, lexical, numbers, code, docstring_cosine, code_runner_up)
    z = weights[0] + sum(b * x for b, x in zip(weights[1:], f))
    if z < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def rival_penalty(score: float, rival: float | None) -> float:
    """Explaining away: ``score − max(0, rival − score)``, the pair's score less the amount by
    which another eval row scores higher on the same window (``rival``: that row's best
    score there, over its probes; None when no other row has the window among its
    candidates). Floored at 0.

    Two eval rows about nearly the same task (HumanEval's ``sort_third`` and ``sort_even``; an
    MMLU template with other numbers) both match a rephrasing of one of them; the rephrased
    row matches it better, so the other row's match is more likely its twin's. A row that
    wins its window loses nothing, and two rows that tie (exact duplicates) both keep theirs.

    Example: ``rival_penalty(0.6, 0.7) == 0.5``; ``rival_penalty(0.7, 0.6) == 0.7``.
    """
    return score if rival is None or rival <= score else max(0.0, 2 * score - rival)


def pair_cosines(eval_vectors, window_vectors, pairs) -> list[float]:
    """Dot products of unit vectors for each ``(probe, span)`` pair, in pure Python.

    Args:
        eval_vectors, window_vectors: sequences of equal-length float sequences (unit L2 norm).
        pairs: ``(eval text, window text)`` index pairs.
    Returns:
        One cosine per pair. (The CLI does the same with numpy.)
    """
    return [sum(a * b for a, b in zip(eval_vectors[i], window_vectors[j])) for i, j in pairs]
