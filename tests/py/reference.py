"""A deliberately naive reference of the contamination rule, written apart from the package
(no anchors, no fast paths): every n-gram of every training record goes into a set.

Used by the tests to compute expected values independently of the code under test.
"""

import json
import math
import unicodedata


def words(text):
    t = unicodedata.normalize("NFKC", text).lower()
    t = "".join(c for c in t if not unicodedata.category(c).startswith("P"))
    return t.split()


def grams(ws, n):
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def nearest_rank_p5(counts):
    c = sorted(x for x in counts if x > 0)
    return c[math.ceil(0.05 * len(c)) - 1]


def contamination(eval_rows, train_records, n=None, boilerplate=True):
    """eval_rows / train_records: lists of lists of field texts.

    Returns (n, {row_index: (matched, total)} for scorable rows, set of too-short indices).
    """
    ev = [[words(t) for t in segs] for segs in eval_rows]
    if n is None:
        n = min(13, max(8, nearest_rank_p5([sum(len(w) for w in segs) for segs in ev])))
    row_grams = [set().union(*[grams(w, n) for w in segs]) if segs else set() for segs in ev]
    counts = {}
    for segs in train_records:
        seen = set().union(*[grams(words(t), n) for t in segs]) if segs else set()
        for g in seen:
            counts[g] = counts.get(g, 0) + 1
    cutoff = max(10, math.ceil(0.001 * len(train_records))) if boilerplate else None
    out, short = {}, set()
    for i, gs in enumerate(row_grams):
        if cutoff is not None:
            gs = {g for g in gs if counts.get(g, 0) <= cutoff}
        if not gs:
            short.add(i)
            continue
        out[i] = (sum(1 for g in gs if g in counts), len(gs))
    return n, out, short


def load_jsonl(path, field):
    with open(path, encoding="utf-8") as f:
        return [[json.loads(l)[field]] for l in f if l.strip()]
