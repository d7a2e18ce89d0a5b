"""A plain, independent implementation of the contamination rule, for checking the page.

GPT-3's rule (Brown et al. 2020, App. C) as evalsieve states it: NFKC, lowercase, delete
Unicode punctuation (categories P*), split on white space; N = the 5th-percentile word count
of the non-empty eval rows (nearest rank), clamped to 8..13; n-grams found in more than
max(10, ceil(0.001 x training records)) training records are boilerplate and dropped;
containment = matched distinct n-grams / scorable distinct n-grams of the eval row. Written
from that text only (no evalsieve import), deliberately slow and obvious.
"""

from __future__ import annotations

import math
import unicodedata


def words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    return text.split()


def ngrams(ws: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def choose_n(eval_texts: list[str]) -> int:
    counts = sorted(len(words(t)) for t in eval_texts if words(t))
    rank = max(1, math.ceil(0.05 * len(counts)))
    return min(13, max(8, counts[rank - 1]))


def contamination(
    eval_texts: list[str],
    train_texts: list[str],
    n: int | None = None,
    boilerplate: bool = True,
    threshold: float | None = None,
) -> dict:
    """Score eval rows against training records.

    Returns: {"n", "cutoff", "rows": [{"row" (1-based), "status", "containment",
        "matched", "total"}]}; status is contaminated / clean / too_short / boilerplate_only.
    """
    n = n or choose_n(eval_texts)
    row_grams = [ngrams(words(t), n) for t in eval_texts]
    wanted = set().union(*row_grams) if row_grams else set()
    records_with = dict.fromkeys(wanted, 0)
    for t in train_texts:
        for g in ngrams(words(t), n) & wanted:
            records_with[g] += 1
    cutoff = max(10, math.ceil(0.001 * len(train_texts))) if boilerplate else None
    rows = []
    for i, grams in enumerate(row_grams, start=1):
        if not grams:
            rows.append(
                {"row": i, "status": "too_short", "containment": None, "matched": 0, "total": 0}
            )
            continue
        scorable = {g for g in grams if cutoff is None or records_with[g] <= cutoff}
        if not scorable:
            rows.append(
                {
                    "row": i,
                    "status": "boilerplate_only",
                    "containment": None,
                    "matched": 0,
                    "total": 0,
                }
            )
            continue
        matched = sum(1 for g in scorable if records_with[g] > 0)
        c = matched / len(scorable)
        dirty = matched > 0 if threshold is None else c >= threshold
        rows.append(
            {
                "row": i,
                "status": "contaminated" if dirty else "clean",
                "containment": c,
                "matched": matched,
                "total": len(scorable),
            }
        )
    return {"n": n, "cutoff": cutoff, "rows": rows}
