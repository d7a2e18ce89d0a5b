"""The ladder's verdict on each eval row: the rungs that caught it, its first rung, its status.

The one place a row's status is derived from the ladder (exact -> ngram -> semantic). A row
that any rung caught is ``contaminated``, and its ``rung`` is the first rung that caught it,
whatever the n-gram rung alone said (an exact copy too short for n-grams, a reworded copy
sharing no n-gram). A row no rung caught keeps the n-gram rung's status (``clean``,
``too_short``, ``no_ngram``, ``empty``, ``boilerplate_only``): clean *at these rungs*.
Which caught rows leave ``eval.clean.*`` is a separate setting (``exclude_rungs``): a row
caught only by a rung the user keeps stays in the clean file and is still ``contaminated``.
Every export and view (contamination-report.csv, too-short-to-score.csv, overlap-report.html,
the summary, the page's view) reads the status and rung set here.
"""

from __future__ import annotations

#: The ladder, in order: a row's ``rung`` is the first of these that caught it.
RUNGS = ("exact", "ngram", "semantic")


def caught_rungs(
    exact: list[bool], ngram_status: list[str], semantic: list[bool] | None
) -> list[tuple[str, ...]]:
    """Per eval row, every rung that caught it, in ladder order.

    Args:
        exact: per row, whether a training record equals it (the exact rung).
        ngram_status: per row, the n-gram rung's status (``"contaminated"`` = caught).
        semantic: per row, the semantic rung's verdict, or None when it did not run.
    Returns:
        Per row a tuple, a subsequence of :data:`RUNGS` (``()``: no rung caught it).
    """
    out = []
    for i, ex in enumerate(exact):
        out.append(
            tuple(
                r
                for r, hit in zip(
                    RUNGS,
                    (ex, ngram_status[i] == "contaminated", semantic is not None and semantic[i]),
                )
                if hit
            )
        )
    return out


def assign_rungs(
    exact_record: list[int], ngram_status: list[str], semantic_caught: list[bool] | None
) -> list[str]:
    """The first rung of the ladder (exact, ngram, semantic) that caught each eval row.

    Args:
        exact_record: per row, the 1-based training record equal to it after normalisation
            (0 = none).
        ngram_status: per row, the n-gram rung's status ("contaminated" = caught).
        semantic_caught: per row, the semantic rung's verdict, or None when it did not run.
    Returns:
        Per row ``"exact"``, ``"ngram"``, ``"semantic"`` or ``""`` (no rung caught it).
    """
    caught = caught_rungs([bool(r) for r in exact_record], ngram_status, semantic_caught)
    return [c[0] if c else "" for c in caught]


def apply_ladder(scores: list, caught: list[tuple[str, ...]]) -> list[str]:
    """Set each row's ``status`` and ``rung`` from the ladder (in place).

    Args:
        scores: the :class:`evalsieve.ngrams.RowScore` of every row (``ngram_status`` set).
        caught: :func:`caught_rungs` for the same rows.
    Returns:
        The rung per row (``""`` = none), as set.
    """
    for r, c in zip(scores, caught):
        r.rung = c[0] if c else ""
        r.status = "contaminated" if c else r.ngram_status
    return [r.rung for r in scores]


def report_records(
    scores: list, exact: dict, names: list[str], fallback: str
) -> list[tuple[str, int | str]]:
    """Per row, the report's ``(training_file, training_record)``: the first record holding
    a matched n-gram, else the exact rung's copy (``('', '')``: neither; the semantic rung's
    record has its own columns).

    Args:
        scores: the rows' RowScores; exact: row -> (file index, record), the exact rung's
            first copies (TrainingScan.exact); names: the training files' names by index;
            fallback: the name of a file index past ``names``.
    """
    out = []
    for i, r in enumerate(scores):
        if r.training_record:
            out.append((r.training_file, r.training_record))
        elif i in exact:
            f, rec = exact[i]
            out.append((names[f] if f < len(names) else fallback, rec))
        else:
            out.append(("", ""))
    return out


def leaves_clean(caught: tuple, excluded) -> bool:
    """Does a row leave ``eval.clean.*``? When a rung whose rows leave it (``excluded``,
    ``ContaminationConfig.excluded``) caught it (``caught``: :func:`caught_rungs`'s tuple)."""
    return any(r in excluded for r in caught)


def kept_positions(caught: list[tuple], scored: list[bool], excluded, clean: str) -> list[int]:
    """0-based positions of the rows ``eval.clean.*`` keeps, ascending: not
    :func:`leaves_clean`, and under the default ``clean`` rule (``"scored"``) scored only
    (``"not-contaminated"`` keeps rows too short to score too)."""
    return [
        i
        for i, c in enumerate(caught)
        if not leaves_clean(c, excluded) and (clean == "not-contaminated" or scored[i])
    ]
