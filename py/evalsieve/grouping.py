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

The cost of a regroup is bounded by the edges at the threshold, not by the member pairs:
:class:`PairGraph` holds the candidate pairs sorted once (cosine descending), so the edges
at a threshold are a prefix of it; a group is chained unless its edges form a clique, and
one member pair outside the edges is enough to prove it (see :func:`group_paraphrases`).
Each group's lowest internal pair and representative are computed on demand
(:meth:`Group.detail`, :meth:`Grouping.details`), exactly as the quadratic definition gives
them, for the groups a page shows and at export.
"""

from __future__ import annotations

import math
import operator
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Iterator


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


#: Bound on |candidate cosine − exact dot product| relative to |a|·|b|: the tile scan
#: multiplies float32 vectors of 384 dimensions (γ₃₈₄ ≈ 2.3e-5 for float32 accumulation),
#: then rounds to float32. Used only to decide which pairs cannot matter; every value that
#: does matter is the exact one.
PAIR_TOLERANCE = 1e-4
#: Groups up to this size get the plain quadratic pass (it is cheaper than the bounds).
SMALL_GROUP = 32
#: Member pairs of work between two progress yields of :meth:`Group.detail_steps`.
STEP_PAIRS = 20_000


class PairGraph:
    """The tile graph: every candidate pair (cosine ≥ floor), plus exact cosines on demand.

    Built once per similarity result; every threshold is then a prefix of the sorted pairs.

    Args:
        n: rows embedded (node ids 0..n-1).
        candidates: pairs ``(i, j, cos)`` with cos ≥ ``floor`` (the encoder side's tile
            scan), each unordered pair once, in any order and either orientation.
        floor: the candidates' floor, or None if ``candidates`` holds every pair.
        vectors: the embeddings, float32 row-major ``n × dim`` (``array('f')``), or None.
        dim: values per row of ``vectors`` (384 for all-MiniLM-L6-v2).
        cosine: ``cosine(i, j)`` for any pair, used when ``vectors`` is None.
    Raises:
        ValueError: a node id outside 0..n-1, a pair of a node with itself, a pair given
            twice, or no way to compute cosines of non-candidate pairs when needed.

    The value of a member pair is its candidate cosine when it is a candidate, else its
    exact dot product ``sum(a[k] * b[k])`` over the float32 values taken as doubles, summed
    in dimension order.
    """

    def __init__(
        self,
        n: int,
        candidates: Iterable[tuple[int, int, float]],
        floor: float | None = None,
        vectors: array | None = None,
        dim: int = 0,
        cosine: Callable[[int, int], float] | None = None,
    ):
        self.n, self.floor = n, floor
        self.vectors, self.dim, self._cosine = vectors, dim, cosine
        if vectors is not None and (dim <= 0 or len(vectors) != n * dim):
            raise ValueError(f"{len(vectors)} vector values for {n} rows of {dim}")
        keyed = []
        for i, j, c in candidates:
            i, j, c = int(i), int(j), float(c)
            if i > j:
                i, j = j, i
            if i == j or i < 0 or j >= n:
                raise ValueError(
                    f"candidate pair ({i}, {j}) is not two distinct rows of 0..{n - 1}"
                )
            keyed.append((-c, i, j))
        keyed.sort()
        self._neg = array("d", [k[0] for k in keyed])  # −cosine, ascending
        self._i = array("i", [k[1] for k in keyed])
        self._j = array("i", [k[2] for k in keyed])
        del keyed
        # each node's candidate neighbours (compressed rows): nbr[off[x]:off[x+1]]
        deg = [0] * (n + 1)
        for i in self._i:
            deg[i + 1] += 1
        for j in self._j:
            deg[j + 1] += 1
        for x in range(n):
            deg[x + 1] += deg[x]
        self._off = array("i", deg)
        pos = deg[:-1]
        k2 = 2 * len(self._i)
        self._nbr = array("i", bytes(4 * k2))
        self._pos = array("i", bytes(4 * k2))  # index of the pair in the sorted arrays
        for k, (i, j) in enumerate(zip(self._i, self._j)):
            p = pos[i]
            self._nbr[p], self._pos[p] = j, k
            pos[i] = p + 1
            p = pos[j]
            self._nbr[p], self._pos[p] = i, k
            pos[j] = p + 1
        for x in range(n):
            a, b = self._off[x], self._off[x + 1]
            if b - a > 1 and len(set(self._nbr[a:b])) != b - a:
                raise ValueError(f"a candidate pair of row {x} is given twice")

    def __len__(self) -> int:
        return len(self._i)

    def edge_count(self, threshold: float) -> int:
        """How many candidate pairs have cosine ≥ ``threshold`` (a prefix of the order)."""
        return bisect_right(self._neg, -threshold)

    def pair(self, k: int) -> tuple[int, int, float]:
        """The ``k``-th candidate ``(i, j, cos)`` in the order cosine descending, then i, j."""
        return self._i[k], self._j[k], -self._neg[k]

    def candidate_values(self, members: list[int]) -> dict[tuple[int, int], float]:
        """``{(i, j): cos}`` for the candidate pairs among ``members`` (i < j)."""
        inside = set(members)
        out = {}
        nbr, pos, off, neg = self._nbr, self._pos, self._off, self._neg
        for x in members:
            for p in range(off[x], off[x + 1]):
                y = nbr[p]
                if y > x and y in inside:
                    out[(x, y)] = -neg[pos[p]]
        return out

    def row(self, x: int):
        """Row ``x`` of the vectors as a tuple of floats (exact values of the float32s)."""
        d = self.dim
        return tuple(self.vectors[x * d : (x + 1) * d])

    def exact(self, i: int, j: int) -> float:
        """The exact cosine of a non-candidate pair (dot product, dimension order)."""
        if self.vectors is not None:
            return sum(map(operator.mul, self.row(i), self.row(j)))
        if self._cosine is None:
            raise ValueError("cosines of non-candidate pairs need vectors or a cosine function")
        return self._cosine(i, j)


@dataclass(frozen=True)
class GroupDetail:
    """The quadratic figures of one group, computed on demand.

    Attributes:
        lowest: the lowest cosine over all member pairs (edges or not).
        lowest_pair: the first member pair ``(i, j)`` (i < j, in ascending order of i then
            j) with that cosine.
        representative: the member with the highest sum of cosines to the others (ties: the
            earliest row): a suggestion for which row to keep.
    """

    lowest: float
    lowest_pair: tuple[int, int]
    representative: int


class Group:
    """One paraphrase group.

    Attributes:
        members: node ids (0-based positions among the embedded rows), ascending.
        chained: the lowest internal cosine is under the threshold (known without computing
            it: see :func:`group_paraphrases`).
        edge_count: member pairs with cosine ≥ threshold.
        lowest, lowest_pair, representative: see :class:`GroupDetail`; the first access
            computes them (for a group of m members, up to m(m−1)/2 cosines; far fewer in
            practice, see :meth:`detail_steps`).
    """

    __slots__ = ("members", "chained", "edge_count", "_graph", "_detail")

    def __init__(self, members: list[int], chained: bool, edge_count: int, graph: PairGraph):
        self.members, self.chained, self.edge_count = members, chained, edge_count
        self._graph, self._detail = graph, None

    @property
    def pair_count(self) -> int:
        """m(m−1)/2: the member pairs, an upper bound of the work of :meth:`detail_steps`."""
        m = len(self.members)
        return m * (m - 1) // 2

    def detail(self) -> GroupDetail:
        """Lowest internal pair and representative (computed once, then kept)."""
        if self._detail is None:
            for _ in self.detail_steps():
                pass
        return self._detail

    @property
    def lowest(self) -> float:
        return self.detail().lowest

    @property
    def lowest_pair(self) -> tuple[int, int]:
        return self.detail().lowest_pair

    @property
    def representative(self) -> int:
        return self.detail().representative

    @property
    def computed(self) -> bool:
        """Whether :meth:`detail` is known (no work left)."""
        return self._detail is not None

    def detail_steps(self, step: int = STEP_PAIRS) -> Iterator[int]:
        """Compute :meth:`detail`, yielding the member pairs of work done so far (at most
        :attr:`pair_count`; every ``step`` pairs of work and once at the end), so a driver can
        report progress, or spend a budget, and stop (close the generator) between steps.
        Reads no clock.

        Small groups (≤ 32 members) or graphs without vectors: every member pair, as the
        definition says. Larger groups, with vectors v₁…v_m:

        * representative: S = Σ vᵢ gives each member's sum of dot products in one pass,
          ``vᵢ·S − vᵢ·vᵢ``, within (m−1)·:data:`PAIR_TOLERANCE`·max|v|² of its sum of pair
          values; only members within twice that of the best get their exact sum;
        * lowest pair: the candidate pairs' minimum first; then the other pairs in order of
          the angle bound θᵢ + θⱼ (θ: angle to the direction of S; the angle between two
          vectors is at most θᵢ + θⱼ, so cos(θᵢ + θⱼ) bounds their cosine from below), stopping
          once the bound, less a margin for rounding, is above the lowest value found.

        Both give exactly the quadratic definition's values (same floats, same ties).
        """
        if self._detail is not None:
            yield self.pair_count
            return
        g, members = self._graph, self.members
        known = g.candidate_values(members)
        if len(members) <= SMALL_GROUP or g.vectors is None:
            gen = self._plain(known, step)
        else:
            gen = self._bounded(known, step)
        done = 0
        while True:
            try:
                done = next(gen)
            except StopIteration as stop:
                self._detail = stop.value
                break
            yield done
        yield self.pair_count

    def _plain(self, known, step):
        """Every member pair, in the definition's order."""
        members, g = self.members, self._graph
        total = {x: 0.0 for x in members}
        lowest, lowest_pair = 2.0, (members[0], members[1])
        work = shown = 0
        if g.vectors is not None:
            rows = {x: g.row(x) for x in members}
            value = lambda i, j: sum(map(operator.mul, rows[i], rows[j]))
        else:
            value = g.exact
        for a in range(len(members)):
            i = members[a]
            for b in range(a + 1, len(members)):
                j = members[b]
                c = known.get((i, j))
                if c is None:
                    c = value(i, j)
                total[i] += c
                total[j] += c
                if c < lowest:
                    lowest, lowest_pair = c, (i, j)
            work += len(members) - a - 1
            if work - shown >= step:
                shown = work
                yield work
        rep = max(members, key=lambda x: (total[x], -x))
        return GroupDetail(lowest, lowest_pair, rep)

    def _bounded(self, known, step):
        """Same values as :meth:`_plain`, skipping the pairs that cannot change them."""
        members, g = self.members, self._graph
        m, d = len(members), g.dim
        rows = {x: g.row(x) for x in members}
        dot = lambda u, v: sum(map(operator.mul, u, v))
        s = [0.0] * d
        for x in members:
            s = list(map(operator.add, s, rows[x]))
        sq = {x: dot(rows[x], rows[x]) for x in members}
        nmax2, nmin2 = max(sq.values()), min(sq.values())
        work = shown = m  # pair-equivalents: one dot per member

        def value(i, j):
            c = known.get((i, j) if i < j else (j, i))
            return dot(rows[i], rows[j]) if c is None else c

        # representative
        approx = {x: dot(rows[x], s) - sq[x] for x in members}
        tol = (m - 1) * (PAIR_TOLERANCE * nmax2 + 1e-12) + 1e-9
        top = max(approx.values())
        best_rep = None
        for x in members:
            if approx[x] < top - 2 * tol:
                continue
            t = 0.0
            for y in members:
                if y != x:
                    t += value(x, y)
            work += m - 1
            if best_rep is None or (t, -x) > best_rep:
                best_rep = (t, -x)
            if work - shown >= step:
                shown = work
                yield min(work, self.pair_count)
        rep = -best_rep[1]

        # lowest internal pair: candidates first, then the rest by the angle bound
        lowest, lowest_pair = 2.0, (members[0], members[1])
        for key, c in known.items():
            if c < lowest or (c == lowest and key < lowest_pair):
                lowest, lowest_pair = c, key
        if len(known) < self.pair_count:
            norm_s = math.sqrt(dot(s, s))
            if norm_s < 1e-6 * m:
                theta = {x: math.pi for x in members}  # no direction: bound useless
            else:
                theta = {}
                for x in members:
                    cos_t = dot(rows[x], s) / (norm_s * math.sqrt(sq[x])) if sq[x] > 0 else -1.0
                    theta[x] = math.acos(max(-1.0, min(1.0, cos_t)))
            order = sorted(members, key=lambda x: (-theta[x], x))
            margin = 1e-6

            def bound(a, b):  # a lower bound of the pair's dot product, less the margin
                t = theta[a] + theta[b] + 1e-5  # acos near 1 amplifies rounding to ~3e-7
                if t >= math.pi:
                    return -nmax2 - margin
                c = math.cos(t)
                return (nmin2 if c >= 0 else nmax2) * c - margin

            for a in range(m - 1):
                x = order[a]
                if bound(x, order[a + 1]) > lowest:
                    break
                for b in range(a + 1, m):
                    y = order[b]
                    if bound(x, y) > lowest:
                        break
                    key = (x, y) if x < y else (y, x)
                    if key in known:
                        continue
                    c = dot(rows[x], rows[y])
                    work += 1
                    if c < lowest or (c == lowest and key < lowest_pair):
                        lowest, lowest_pair = c, key
                if work - shown >= step:
                    shown = work
                    yield min(work, self.pair_count)
        return GroupDetail(lowest, lowest_pair, rep)


class Grouping:
    """The result at one threshold.

    Attributes:
        threshold: cosine in [-1, 1]; a pair is an edge when cosine ≥ threshold.
        rows: rows scanned (embedded).
        groups: list of :class:`Group`, largest first (ties: smallest member first).
        pairs_total: the edges (candidate pairs with cosine ≥ threshold).
        rows_in_groups, effective_rows, duplicate_share: figures (share in [0, 1]).
    """

    def __init__(self, graph: PairGraph, threshold: float, groups: list[Group], where: array):
        self.graph, self.threshold, self.groups = graph, threshold, groups
        self._where = where
        self.rows = graph.n
        self.pairs_total = graph.edge_count(threshold)
        self.rows_in_groups = sum(len(x.members) for x in groups)
        self.effective_rows = self.rows - self.rows_in_groups + len(groups)
        self.duplicate_share = self.rows_in_groups / self.rows if self.rows else 0.0

    def group_of(self, node: int) -> int:
        """The 0-based index in :attr:`groups` of ``node``'s group, or −1."""
        return self._where[node]

    def pairs(self, limit: int | None = None) -> Iterator[tuple[int, int, float]]:
        """The edges ``(i, j, cos)``, cosine descending (ties: i, j ascending)."""
        stop = self.pairs_total if limit is None else min(limit, self.pairs_total)
        for k in range(stop):
            yield self.graph.pair(k)

    def details(self, groups: Iterable[int] | None = None) -> Iterator[tuple[int, int]]:
        """Compute the details of ``groups`` (indices; default all), yielding progress
        ``(pairs_done, pairs_total)`` in member pairs (:attr:`Group.pair_count`), ending at
        ``pairs_done == pairs_total``. Close the generator to stop (cancel)."""
        chosen = [self.groups[k] for k in (range(len(self.groups)) if groups is None else groups)]
        total = sum(x.pair_count for x in chosen)
        done = 0
        yield 0, total
        for x in chosen:
            for step in x.detail_steps():
                yield done + min(step, x.pair_count), total
            done += x.pair_count
        if not chosen:
            yield 0, 0


def group_paraphrases(graph: PairGraph, threshold: float) -> Grouping:
    """Group rows whose cosine is at or above ``threshold`` (single linkage).

    Cost: O(edges at the threshold + rows), plus, per group that is not a clique, one
    member pair outside the edges (almost always the first one looked at). Lowest pairs and
    representatives are left to :meth:`Group.detail`.

    A group of m members with m(m−1)/2 edges is a clique: every member pair has cosine ≥
    threshold, so it is not chained. Otherwise some member pair is not an edge; it is
    chained when that pair's value (candidate cosine, or exact dot product) is under the
    threshold, which a candidate that is not an edge always is.

    Args:
        graph: the candidate pairs (:class:`PairGraph`).
        threshold: cosine; must be ≥ the graph's floor (pairs under the floor are not
            candidates).
    Returns:
        A :class:`Grouping`.
    Raises:
        ValueError: threshold below the floor.
    """
    if graph.floor is not None and threshold < graph.floor:
        raise ValueError(f"threshold {threshold} is below the candidate floor {graph.floor}")
    n = graph.n
    e = graph.edge_count(threshold)
    gi, gj = graph._i, graph._j
    ordered = connected_components(n, zip(gi[:e], gj[:e]))
    where = array("i", [-1]) * n
    for g, members in enumerate(ordered):
        for x in members:
            where[x] = g
    counts = [0] * len(ordered)
    for k in range(e):
        counts[where[gi[k]]] += 1
    groups = []
    for g, members in enumerate(ordered):
        m = len(members)
        clique = counts[g] == m * (m - 1) // 2
        chained = False if clique else _has_pair_below(graph, members, threshold, e)
        groups.append(Group(members, chained, counts[g], graph))
    return Grouping(graph, threshold, groups, where)


def _has_pair_below(graph: PairGraph, members: list[int], threshold: float, e: int) -> bool:
    """Whether some member pair's value is under ``threshold``, given that the members'
    edges (the first ``e`` candidates) do not form a clique."""
    inside = set(members)
    nbr, pos, off = graph._nbr, graph._pos, graph._off
    for x in members:
        edge_nbrs = set()
        cand_nbrs = set()
        for p in range(off[x], off[x + 1]):
            y = nbr[p]
            if y in inside:
                (edge_nbrs if pos[p] < e else cand_nbrs).add(y)
        if len(edge_nbrs) == len(members) - 1:
            continue
        if cand_nbrs:
            return True  # a candidate that is not an edge: cosine < threshold
        for y in members:
            if y != x and y not in edge_nbrs and graph.exact(min(x, y), max(x, y)) < threshold:
                return True
    return False
