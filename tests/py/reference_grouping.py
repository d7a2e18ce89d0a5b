"""The quadratic grouping as it was before the tile-graph rewrite (evalsieve commit 97c32dd,
``py/evalsieve/grouping.py``), kept verbatim as the reference the tests hold the package to:
every member pair of every group is visited, exactly as the definition reads.

Returns plain tuples so the comparison does not depend on the package's classes:
``(groups, pairs, rows_in_groups, effective_rows, duplicate_share)`` with each group
``(members, lowest, lowest_pair, chained, representative)``.
"""

from __future__ import annotations

from collections.abc import Callable

from evalsieve.grouping import connected_components


def reference_grouping(n, candidates, threshold, cosine, floor=None):
    """The old ``group_paraphrases``, flattened to tuples."""
    g = group_paraphrases(n, candidates, threshold, cosine, floor)
    return (
        [
            (x["members"], x["lowest"], x["lowest_pair"], x["chained"], x["representative"])
            for x in g["groups"]
        ],
        g["pairs"],
        g["rows_in_groups"],
        g["effective_rows"],
        g["duplicate_share"],
    )


def group_paraphrases(
    n: int,
    candidates: list[tuple[int, int, float]],
    threshold: float,
    cosine: Callable[[int, int], float],
    floor: float | None = None,
) -> dict:
    """Group rows whose cosine is at or above ``threshold`` (single linkage).

    Args:
        n: rows embedded (node ids 0..n-1).
        candidates: every pair ``(i, j, cos)`` with i < j and cos ≥ ``floor`` (the encoder
            side's tile scan), in any order.
        threshold: cosine; must be ≥ ``floor`` (pairs under the floor are not in
            ``candidates``).
        cosine: ``cosine(i, j)`` for any pair, used only for member pairs that are not
            candidates (needed for the lowest internal pair of a chained group).
        floor: the candidates' floor, or None if ``candidates`` holds every pair.
    Returns:
        A :class:`Grouping`.
    Raises:
        ValueError: threshold below the floor.
    """
    if floor is not None and threshold < floor:
        raise ValueError(f"threshold {threshold} is below the candidate floor {floor}")
    edges = [(i, j, c) for i, j, c in candidates if c >= threshold]
    edges.sort(key=lambda e: (-e[2], e[0], e[1]))
    comps = connected_components(n, ((i, j) for i, j, _ in edges))
    where = {}
    for g, members in enumerate(comps):
        for m in members:
            where[m] = g
    known: list[dict[tuple[int, int], float]] = [{} for _ in comps]
    for i, j, c in candidates:
        g = where.get(i)
        if g is not None and where.get(j) == g:
            known[g][(i, j) if i < j else (j, i)] = c
    group_edges: list[list[tuple[int, int, float]]] = [[] for _ in comps]
    for e in edges:
        group_edges[where[e[0]]].append(e)
    groups = []
    for g, members in enumerate(comps):
        cos = known[g]
        total = {m: 0.0 for m in members}
        lowest, lowest_pair = 2.0, (members[0], members[1])
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                c = cos.get((i, j))
                if c is None:
                    c = cosine(i, j)
                total[i] += c
                total[j] += c
                if c < lowest:
                    lowest, lowest_pair = c, (i, j)
        rep = max(members, key=lambda m: (total[m], -m))
        groups.append(
            {
                "members": members,
                "lowest": lowest,
                "lowest_pair": lowest_pair,
                "chained": lowest < threshold,
                "representative": rep,
            }
        )
    in_groups = sum(len(c) for c in comps)
    return {
        "groups": groups,
        "pairs": edges,
        "rows_in_groups": in_groups,
        "effective_rows": n - in_groups + len(comps),
        "duplicate_share": in_groups / n if n else 0.0,
    }
