"""Paraphrase groups: edges at a cosine threshold, connected components, chains.

Given sentence embeddings (unit vectors, so cosine = dot product) the encoder side finds
every pair with cosine ≥ a *floor* (tile by tile, never an n × n matrix) and each row's
nearest neighbour. This module keeps the graph logic, in pure Python:

* a pair is an *edge* when cosine ≥ threshold;
* groups are the connected components with two or more rows (single linkage), found with
  union-find (union by size, path halving);
* each group's *lowest internal pair* is the lowest cosine over ALL its member pairs, edges
  or not; a group whose lowest internal cosine is under the threshold is *chained* (A matched
  B, B matched C, but A and C did not);
* effective rows = rows scanned − rows in groups + groups (each group counts once: the
  number a confidence interval over the eval set should use; Kish's effective sample size
  with whole duplicates collapsed);
* duplicate share = rows in groups ÷ rows scanned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


class UnionFind:
    """Disjoint sets over 0..n-1 (union by size, path halving).

    Args:
        n: number of elements (>= 0).
    """

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x: int) -> int:
        """The representative of ``x``'s set."""
        p = self.parent
        while p[x] != x:
            p[x] = p[p[x]]
            x = p[x]
        return x

    def union(self, a: int, b: int) -> bool:
        """Merge the sets of ``a`` and ``b``; False if they were already one."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return True


def connected_components(n: int, edges) -> list[list[int]]:
    """Connected components with two or more members.

    Args:
        n: number of nodes (0..n-1).
        edges: iterable of ``(i, j)`` pairs.
    Returns:
        Components as sorted lists of node ids, ordered by (−size, smallest member). The
        result does not depend on the order of ``edges``.
    """
    uf = UnionFind(n)
    for i, j in edges:
        uf.union(i, j)
    comps: dict[int, list[int]] = {}
    for x in range(n):
        r = uf.find(x)
        if uf.size[r] > 1:
            comps.setdefault(r, []).append(x)
    return sorted(comps.values(), key=lambda c: (-len(c), c[0]))


@dataclass
class Group:
    """One paraphrase group.

    Attributes:
        members: node ids (0-based positions among the embedded rows), ascending.
        lowest: the lowest cosine over all member pairs.
        lowest_pair: the member pair ``(i, j)`` with that cosine.
        chained: ``lowest < threshold``.
        representative: the member with the highest mean cosine to the others (ties: the
            earliest row): a suggestion for which row to keep.
        edges: the group's pairs with cosine ≥ threshold, as ``(i, j, cos)``.
    """
    members: list[int]
    lowest: float
    lowest_pair: tuple[int, int]
    chained: bool
    representative: int
    edges: list[tuple[int, int, float]] = field(default_factory=list)


@dataclass
class Grouping:
    """The result at one threshold.

    Attributes:
        threshold: cosine in [-1, 1]; a pair is an edge when cosine ≥ threshold.
        rows: rows scanned (embedded).
        groups: list of :class:`Group`, largest first.
        pairs: every edge ``(i, j, cos)``, cosine descending (ties: i, j ascending).
        rows_in_groups, effective_rows, duplicate_share: figures (share in [0, 1]).
    """
    threshold: float
    rows: int
    groups: list[Group]
    pairs: list[tuple[int, int, float]]
    rows_in_groups: int
    effective_rows: int
    duplicate_share: float


def group_paraphrases(n: int, candidates: list[tuple[int, int, float]], threshold: float,
                      cosine: Callable[[int, int], float], floor: float | None = None
                      ) -> Grouping:
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
        groups.append(Group(members, lowest, lowest_pair, lowest < threshold, rep,
                            group_edges[g]))
    in_groups = sum(len(c) for c in comps)
    return Grouping(threshold, n, groups, edges, in_groups, n - in_groups + len(comps),
                    in_groups / n if n else 0.0)


def dot(a, b) -> float:
    """Dot product of two equal-length sequences of floats (pure Python)."""
    return sum(x * y for x, y in zip(a, b))
