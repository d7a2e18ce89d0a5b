"""Score-impact figures: what the joined per-row scores say about a run, one dict per metric.

:func:`contamination_impact` sums the scores of a contamination run over all / clean /
contaminated / too-short rows (and per ladder rung); :func:`paraphrase_impact` gives the
naive and cluster-robust (CR1) standard errors over a paraphrase run's groups. The interval
rules (Wilson, t, MOVER, CR1) live in :mod:`evalsieve.impact` (docs/SCORE_IMPACT.md); the
scores and their join come from :mod:`evalsieve.scores` (``ScoreTable``, ``Join``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .impact import clustered_mean, empty_figure, is_binary, mean_interval, mover

if TYPE_CHECKING:
    from .scores import Join, ScoreTable


def _fig(values: list[float], binary: bool) -> dict:
    return mean_interval(values, binary) if values else empty_figure()


def _public(f: dict) -> dict:
    return {"n": f["n"], "mean": f["mean"], "ci95": list(f["ci95"])}


def contamination_impact(
    table: ScoreTable, join: Join, statuses: list[str], rungs: list[str] | None = None, rungs_run=()
) -> list[dict]:
    """Score figures of a contamination run, one dict per metric.

    Args:
        table, join: the scores and their join.
        statuses: per eval row (index = row − 1), ``clean``, ``contaminated``, or another
            status (too short / empty / boilerplate only: neither clean nor contaminated).
        rungs: per eval row, the ladder's first rung that caught it (``exact``, ``ngram``,
            ``semantic`` or ""), or None; rungs_run: the rungs that ran, in ladder order.
    Returns:
        Per metric: ``{metric, kind, rows_joined, rows_unmatched, rows_unscored,
        all, clean, contaminated, too_short, difference_contaminated_minus_clean,
        difference_clean_minus_all}``; each subset ``{n, mean, ci95, se, method}``. With
        ``rungs``, also ``contaminated_by_rung``: ``{rung: subset}`` for each rung that ran,
        over the contaminated rows that rung caught first (they partition ``contaminated``).

    clean − all over overlapping sets: all = clean ∪ contaminated ∪ too short, so with the
    shares w (of the joined rows) mean_all = w_c·m_c + w_d·m_d + w_s·m_s and
    clean − all = (w_d + w_s)·m_c − w_d·m_d − w_s·m_s, a linear combination of three
    independent subset means; its interval is MOVER (:func:`evalsieve.impact.mover`). With
    no too-short row it is −w_d × (contaminated − clean).
    """
    out = []
    joined = sorted(join.rows)
    for m in table.metrics:
        allv = [join.rows[r][m] for r in joined]
        binary = is_binary(allv)
        parts = {"clean": [], "contaminated": [], "too_short": []}
        for r in joined:
            st = statuses[r - 1]
            parts[st if st in ("clean", "contaminated") else "too_short"].append(join.rows[r][m])
        f_all = _fig(allv, binary)
        f = {k: _fig(v, binary) for k, v in parts.items()}
        n = len(allv)
        w_d, w_s = len(parts["contaminated"]) / n, len(parts["too_short"]) / n
        diff = (
            mover([(1, f["contaminated"]), (-1, f["clean"])])
            if f["clean"]["n"] and f["contaminated"]["n"]
            else {"estimate": None, "ci95": [None, None]}
        )
        cma = (
            mover([(w_d + w_s, f["clean"]), (-w_d, f["contaminated"]), (-w_s, f["too_short"])])
            if f["clean"]["n"]
            else {"estimate": None, "ci95": [None, None]}
        )
        fig = {
            "metric": m,
            "kind": "binary" if binary else "continuous",
            "rows_joined": n,
            "rows_unmatched": len(join.unmatched),
            "rows_unscored": len(join.unscored),
            "all": f_all,
            **f,
            "difference_contaminated_minus_clean": diff,
            "difference_clean_minus_all": cma,
        }
        if rungs is not None:
            by = {
                r: [
                    join.rows[x][m]
                    for x in joined
                    if statuses[x - 1] == "contaminated" and rungs[x - 1] == r
                ]
                for r in rungs_run
            }
            fig["contaminated_by_rung"] = {r: _fig(v, binary) for r, v in by.items()}
        out.append(fig)
    return out


def contamination_summary(fig: dict) -> dict:
    """The ``score_impact`` object of the contamination JSON summary :
    ``{metric, rows_joined, rows_unmatched, all, clean, contaminated,
    difference_contaminated_minus_clean}``, each subset ``{n, mean, ci95}``."""
    return {
        "metric": fig["metric"],
        "rows_joined": fig["rows_joined"],
        "rows_unmatched": fig["rows_unmatched"],
        "all": _public(fig["all"]),
        "clean": _public(fig["clean"]),
        "contaminated": _public(fig["contaminated"]),
        "difference_contaminated_minus_clean": {
            "estimate": fig["difference_contaminated_minus_clean"]["estimate"],
            "ci95": list(fig["difference_contaminated_minus_clean"]["ci95"]),
        },
    }


def paraphrase_impact(
    table: ScoreTable, join: Join, group_of: dict, representatives: set
) -> list[dict]:
    """Score figures of a paraphrase run, one dict per metric.

    Args:
        table, join: the scores and their join.
        group_of: eval row (1-based) -> paraphrase group number, for rows in a group; every
            other joined row is a singleton (its own cluster).
        representatives: the eval rows that stand for their group (one per group).
    Returns:
        Per metric: ``{metric, kind, rows_joined, rows_unmatched, rows_unscored, all,
        clustered: {n, clusters, mean, se_naive, se_clustered, design_effect, effective_n,
        ci95}, one_per_group}``; a 0/1 metric's clustered interval is clipped to [0, 1].
        ``one_per_group`` is the mean over the singletons plus, per group, its
        representative when scored, else its first scored member.
    """
    out = []
    joined = sorted(join.rows)
    clusters = [("g", group_of[r]) if r in group_of else ("row", r) for r in joined]
    keep = []
    seen_groups: set = set()
    for r in sorted(joined, key=lambda r: (r not in representatives, r)):
        g = group_of.get(r)
        if g is None:
            keep.append(r)
        elif g not in seen_groups:
            seen_groups.add(g)
            keep.append(r)
    keep.sort()
    for m in table.metrics:
        allv = [join.rows[r][m] for r in joined]
        binary = is_binary(allv)
        cl = (
            clustered_mean(allv, clusters)
            if len(allv) >= 2
            else {
                "n": len(allv),
                "clusters": len(set(clusters)),
                "mean": allv[0] if allv else None,
                "se_naive": None,
                "se_clustered": None,
                "design_effect": None,
                "effective_n": None,
                "ci95": [None, None],
            }
        )
        if binary and cl["ci95"][0] is not None:  # a proportion's interval stays in [0, 1]
            cl["ci95"] = [max(0.0, cl["ci95"][0]), min(1.0, cl["ci95"][1])]
        out.append(
            {
                "metric": m,
                "kind": "binary" if binary else "continuous",
                "rows_joined": len(allv),
                "rows_unmatched": len(join.unmatched),
                "rows_unscored": len(join.unscored),
                "all": _fig(allv, binary),
                "clustered": cl,
                "one_per_group": _fig([join.rows[r][m] for r in keep], binary),
            }
        )
    return out


def paraphrase_summary(fig: dict) -> dict:
    """The ``score_impact`` object of the paraphrase JSON summary :
    ``{metric, n, mean, se_naive, se_clustered, design_effect, effective_n}``."""
    c = fig["clustered"]
    return {
        "metric": fig["metric"],
        "n": c["n"],
        "mean": c["mean"],
        "se_naive": c["se_naive"],
        "se_clustered": c["se_clustered"],
        "design_effect": c["design_effect"],
        "effective_n": c["effective_n"],
    }
