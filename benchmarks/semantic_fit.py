"""Fitting the semantic rung's verifier on labelled pairs (numpy; benchmarks only).

A *run* is one set through the ladder job: its scan (``job.semantic``, closed and verified
once), the pair cosines, the set's labels. Refitting never embeds again: the verifier is
re-run on the same cosines with other weights (``SemanticScan.verify(cosines, weights)``).

* :class:`Run`: per pair of a run, the verifier's features (``semantic_verifier.features``)
  and a label (:func:`pair_labels`: 1 for the copy, 0 for other pairs).
* :func:`fit_weights`: L2-penalised logistic regression (Newton's method), first on every
  pair, then on the copies against each clean row's best-scoring pair (hard negatives: a
  row's verdict is its best pair); every run weighted equally (a set of 300 rows and one of
  78 count the same) and, inside a run, copies and negatives equally.
* :func:`choose_threshold`: the lowest threshold at which the clean rows caught are ≤ 1% of
  the clean rows of the runs with clean negatives, each run weighing the same (MRPC's and
  STS-B's negatives are graded-similarity pairs, not clean rows: they are fitted on, not
  held to the false-positive target); :func:`choose_thresholds` does so for prose rows and
  for code rows apart (each over the runs' clean rows of that kind).
* :func:`leave_one_out`: each run scored at weights and a threshold chosen without it.
"""

from __future__ import annotations

import numpy as np

from evalsieve.semantic_verifier import features

#: Runs whose negatives are near-paraphrases (graded similarity), not clean rows.
GRADED = frozenset({"mrpc", "stsb"})
#: L2 penalty of the logistic regression (on the weights, not the intercept).
L2 = 1e-3


class Run:
    """One set through the job: ``b`` (semantic_sets.BenchSet), ``scan`` (the SemanticScan
    after request()), ``cos`` (its pair cosines)."""

    def __init__(self, b, scan, cos):
        self.b, self.scan, self.cos = b, scan, cos
        self.name = b.name
        self.raw = scan.pair_features(cos)
        self.X = np.array([features(*f) for f in self.raw], dtype=np.float64).reshape(-1, 3)
        self.code_row = [bool(row.code) for row in scan.rows]
        labels = pair_labels(b, scan, cos)
        self.fitted = np.array([y is not None for y in labels])
        self.y = np.array([y or 0 for y in labels], dtype=np.float64)

    def verdicts(self, weights, threshold):
        """Per eval row: caught at ``weights`` and ``threshold`` (the rung's own verify):
        one number for every row, or ``(prose rows, code rows)``."""
        m = self.scan.verify(self.cos, weights=tuple(weights))
        prose, code = threshold if isinstance(threshold, tuple) else (threshold, threshold)
        return [
            x.score is not None and x.score >= (code if k else prose)
            for x, k in zip(m, self.code_row)
        ], m

    def rates(self, weights, threshold):
        caught, _ = self.verdicts(weights, threshold)
        return rates(self.b, caught)


def _spans_of(b, row):
    w = b.where.get(row)
    if w is None:
        return []
    return w if isinstance(w, list) else [w]


def pair_labels(b, scan, cos=None) -> list:
    """Per pair: 1, 0 or None (not fitted on).

    A pair *overlaps* when its row is contaminated and its span overlaps a planted text.
    Per (row, planted record), the overlapping pair of the highest cosine is the copy (1):
    the probe that was planted (the question, in gsm8k_stem) reads it best, while the row's
    other probes on the same text (its answer beside the rephrased question) are not copies
    of it, nor clean, and are left out (None). Every other pair is 0. Without ``cos`` every
    overlapping pair is 1 (for the candidate stage's recall).
    """
    out, best = [], {}
    for p, x in enumerate(scan.pairs):
        row = scan.probes[x.probe].row
        w = scan._windows[x.window]
        n = len(scan._span_text(x).split())
        rec = next(
            (
                rec
                for rec, s, e in _spans_of(b, row)
                if w.record == rec + 1 and x.start < e and x.start + n > s
            ),
            None,
        )
        hit = row in b.positive and rec is not None
        out.append(1 if hit else 0)
        if hit and cos is not None:
            key = (row, rec)
            if key not in best or cos[p] > cos[best[key]]:
                best[key] = p
    if cos is not None:
        keep = set(best.values())
        out = [None if y == 1 and p not in keep else y for p, y in enumerate(out)]
    return out


def candidate_recall(b, scan) -> float:
    """Share of contaminated rows with a candidate span overlapping their planted text."""
    labels = pair_labels(b, scan)
    rows = {scan.probes[x.probe].row for x, y in zip(scan.pairs, labels) if y}
    return len(rows & b.positive) / max(1, len(b.positive))


def rates(b, caught) -> tuple[float, float, int, int]:
    """(recall, false-positive rate, caught contaminated rows, caught clean rows)."""
    tp = sum(1 for i in b.positive if caught[i])
    neg = [i for i in range(len(b.rows)) if i not in b.positive]
    fp = sum(1 for i in neg if caught[i])
    return tp / max(1, len(b.positive)), fp / max(1, len(neg)), tp, fp


def _lr(X, y, w, l2=L2, iters=60):
    """Weighted L2-penalised logistic regression (Newton's method) -> beta (intercept first)."""
    X = np.hstack([np.ones((len(X), 1)), X])
    beta = np.zeros(X.shape[1])
    pen = np.full(X.shape[1], l2)
    pen[0] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(X @ beta, -30, 30)))
        g = X.T @ (w * (p - y)) + pen * beta
        H = (X * (w * p * (1 - p))[:, None]).T @ X + np.diag(pen)
        step = np.linalg.solve(H, g)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return beta


def _examples(r, beta):
    """One run's fitting examples: its copies (label 1) and, with ``beta``, the best-scoring
    pair of each clean row (label 0, the pair that would make it a false positive); without
    ``beta``, every pair not left out."""
    if beta is None:
        keep = r.fitted
    else:
        z = beta[0] + r.X @ beta[1:]
        top: dict[int, int] = {}
        for p in np.flatnonzero(r.fitted & (r.y == 0)):
            row = r.scan.probes[r.scan.pairs[p].probe].row
            if row not in r.b.positive and (row not in top or z[p] > z[top[row]]):
                top[row] = p
        keep = r.fitted & (r.y > 0)
        keep[list(top.values())] = True
    X, y = r.X[keep], r.y[keep]
    pos, neg = y.sum(), len(y) - y.sum()
    return X, y, np.where(y > 0, 0.5 / max(pos, 1), 0.5 / max(neg, 1))


def fit_weights(runs, rounds=3) -> tuple[float, ...]:
    """The verifier's weights fitted on ``runs``: (b0, b1, b2, b3), 3 decimals.

    First on every pair; then ``rounds`` times on the copies against each clean row's
    best-scoring pair under the last fit (the row's verdict is its best pair, so that is the
    negative that matters). Every run weighs the same; inside a run, copies and negatives
    weigh half each."""
    beta = None
    for _ in range(rounds + 1):
        parts = [_examples(r, beta) for r in runs if len(r.y)]
        X = np.vstack([x for x, _, _ in parts])
        y = np.concatenate([y for _, y, _ in parts])
        w = np.concatenate([w for _, _, w in parts])
        beta = _lr(X, y, w / w.sum() * len(parts))
    return tuple(round(float(b), 3) for b in beta)


def choose_threshold(runs, weights, fp_target=0.01, code=None) -> float | None:
    """The lowest threshold (3 decimals) at which the false positives of the runs with clean
    negatives, each run weighing the same, are ≤ ``fp_target`` of their clean rows; with
    ``code`` True or False, of their clean code rows or clean prose rows only (runs without
    such a row left out; None when no run has one)."""
    held, negs = [], []
    for r in runs:
        if r.name in GRADED:
            continue
        clean = [
            i
            for i in range(len(r.b.rows))
            if i not in r.b.positive and (code is None or r.code_row[i] == code)
        ]
        if clean:
            held.append((r, clean))
    if not held:
        return None
    for r, clean in held:
        _, m = r.verdicts(weights, 2.0)
        negs += [(m[i].score or 0.0, 1.0 / len(clean) / len(held)) for i in clean]
    negs.sort(reverse=True)
    share = 0.0
    for score, w in negs:
        share += w
        if share > fp_target + 1e-12:  # this clean row must stay under the threshold
            return round(float(np.floor(score * 1000) / 1000 + 0.001), 3)
    return 0.001


def choose_thresholds(runs, weights, fp_target=0.01) -> tuple[float, float]:
    """``(prose rows, code rows)``: :func:`choose_threshold` for each kind of row (the code
    rows' is the prose rows' when no run has a clean code row)."""
    prose = choose_threshold(runs, weights, fp_target, code=False)
    code = choose_threshold(runs, weights, fp_target, code=True)
    return prose, (prose if code is None else code)


def leave_one_out(runs, fp_target=0.01):
    """Per run: (weights, (prose, code) thresholds, recall, FP rate) chosen on the other
    runs."""
    out = {}
    for r in runs:
        rest = [x for x in runs if x is not r]
        w = fit_weights(rest)
        t = choose_thresholds(rest, w, fp_target)
        rec, fpr, _, _ = r.rates(w, t)
        out[r.name] = (w, t, rec, fpr)
    return out
