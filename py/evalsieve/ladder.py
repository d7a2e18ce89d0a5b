"""What the page shows of the ladder (exact → ngram → semantic) of a finished contamination run.

The page parses no CSV: :func:`ladder_view` hands it, as plain JSON values, the counts per rung,
which rungs' rows leave ``eval.clean.*``, every caught row with the rung that caught it first
and that rung's figures, and (when the semantic rung ran) its settings, figures, rule and the
measured quality note. The values are the report CSV's (same formatting of numbers).
"""

from __future__ import annotations

from .contamination_job import QUALITY_NOTE, RUNGS, VIEW_ROWS, ContaminationJob
from .errors import bad_input
from .exports import fmt_float
from .semantic import RULE as SEMANTIC_RULE


def ladder_view(job: ContaminationJob, limit: int = VIEW_ROWS) -> dict:
    """The ladder of a finished run, for the page (``cont.view``'s ``ladder``).

    Args:
        job: a job after :meth:`ContaminationJob.finish`.
        limit: most caught rows listed (the report CSV has them all).
    Returns:
        ``{rungs, excluded, by_rung {exact, ngram, semantic: int or None (did not run)},
        clean_at_these_rungs, rows, rows_total, semantic}``. ``rows``: the eval rows any rung
        caught, in eval-file order, at most ``limit``, each ``{eval_row, rung (the first rung
        that caught it), leaves_clean (bool), containment_text, training_record (the n-gram
        rung's first record, or the exact rung's), semantic_score, semantic_cosine,
        semantic_training_record, training_window, eval_text, eval_marks}`` (numbers as the CSV
        prints them, '' when absent; eval_text and eval_marks as in ``ContaminationJob.view``:
        the row's own text and where it holds its n-gram shared passage). ``semantic``: None when the rung did not run, else ``{figures (the summary's
        ``semantic``), threshold, candidates, rule, quality_note}``.
    Raises:
        EvalsieveError(bad_input): called before ``finish``.
    """
    if job.scores is None or job.summary is None:
        raise bad_input("the run has not finished", expected="finish before view")
    c = job.config
    excluded = set(c.excluded)  # a row leaves when any rung that caught it is excluded
    exact_rec = job.exact_record
    sem = job.semantic.matches if job.semantic is not None else None
    rows, total = [], 0
    for i, rung in enumerate(job.rung):
        if not rung:
            continue
        total += 1
        if len(rows) >= limit:
            continue
        r = job.scores[i]
        m = sem[i] if sem is not None else None
        rows.append({
            "eval_row": r.eval_row, "rung": rung, "leaves_clean": job._excluded(i),
            "containment_text": fmt_float(r.containment) if r.scored else "",
            "training_record": (exact_rec[i] if rung == "exact" else r.training_record) or "",
            "semantic_score": fmt_float(m.score) if m else "",
            "semantic_cosine": fmt_float(m.cosine) if m else "",
            "semantic_training_record": (m.training_record or "") if m else "",
            "training_window": m.window if m else "",
            **job.eval_text_marks(i),
        })
    semantic = None
    if job.semantic is not None:
        semantic = {"figures": job.summary.get("semantic"), "threshold": c.semantic.threshold,
                    "candidates": c.semantic.candidates, "rule": SEMANTIC_RULE,
                    "quality_note": QUALITY_NOTE}
    by = job.summary["rows_contaminated_by_rung"]
    return {"rungs": list(c.rungs), "excluded": [k for k in RUNGS if k in excluded],
            "by_rung": dict(by), "clean_at_these_rungs": sum(1 for x in job.rung if not x),
            "rows": rows, "rows_total": total, "semantic": semantic}
