"""The page's result tables, paged here: filter, search and sort every row, hand back one page.

A result can hold more rows than a page should draw (a run with every GSM8K test row flagged
has 1,319; a big eval set has 100,000). The page asks for one page at a time
(``cont.rows``, ``para.rows``) with its filters, its search and its sort, and draws at most
``limit`` rows; the counts it prints ("N of M rows shown") are counted here over every row,
so they are the exports' counts whatever the size of the result.

A :class:`TableSource` is a view of ``n`` rows by position: per key a function of the
position (categories and numbers for the filters and the sort), the text a search looks in,
and the row as the page draws it (made only for the rows of the page asked for).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable

from .errors import bad_input

#: The most rows one page may ask for.
MAX_LIMIT = 500


@dataclass
class TableSource:
    """Rows ``0 .. n-1`` of one result table.

    Attributes:
        n: the count of rows.
        row: position -> the row as the page draws it (a JSON-able dict).
        text: position -> the text a search looks in (matched lowercase).
        cats: key -> (position -> category string): the ``where`` filters, and facets.
        nums: key -> (position -> number or None): the ``range`` / ``bin`` filters, the sort.
        bins: key -> (number -> bin index): how ``bin`` filters cut a key (the histogram's own
            rule, so a clicked bar's rows are the bar's count).
        order: the default order (positions), or None for 0..n-1.
    """

    n: int
    row: Callable[[int], dict]
    text: Callable[[int], str]
    cats: dict = field(default_factory=dict)
    nums: dict = field(default_factory=dict)
    bins: dict = field(default_factory=dict)
    order: list | None = None
    _hay: list | None = None

    def haystack(self, i: int) -> str:
        """The lowercase search text of row ``i`` (computed once per row, kept)."""
        if self._hay is None:
            self._hay = [None] * self.n
        h = self._hay[i]
        if h is None:
            h = self._hay[i] = self.text(i).lower()
        return h


def _number(v, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise bad_input(f"{what} = {v!r} is not a number", expected="a number")
    return float(v)


def query_rows(src: TableSource, q: dict) -> dict:
    """One page of ``src`` under the page's filters, search and sort.

    Args:
        src: the table.
        q: ``{where?: {key: [category, ...]}, range?: {key, min?, max?} (inclusive),
            bin?: {key, index}, query?: str (every white-space-separated term, lowercase,
            in the row's text), sort?: {key, dir: "ascending" | "descending"}, offset?: int,
            limit?: int (1..MAX_LIMIT, default 100)}``. Missing numbers (None) never pass a
            range or bin filter and sort last in both directions; ties keep the default order.
    Returns:
        ``{rows: [row dicts of the page], matched: rows passing every filter, total: n,
        offset: the page's first position among the matched (clamped), limit,
        facets: {cat key: {category: rows of it among the matched}}}``.
    Raises:
        EvalsieveError(bad_input): an unknown key, a bad number, limit out of range.
    """
    where = q.get("where") or {}
    for k in where:
        if k not in src.cats:
            raise bad_input(f"no category {k!r} to filter on", expected=", ".join(src.cats))
    keep = [(src.cats[k], set(map(str, v))) for k, v in where.items() if v is not None]
    tests = []
    rng = q.get("range")
    if rng:
        key = rng.get("key")
        if key not in src.nums:
            raise bad_input(f"no number {key!r} to filter on", expected=", ".join(src.nums))
        lo = None if rng.get("min") is None else _number(rng["min"], "range min")
        hi = None if rng.get("max") is None else _number(rng["max"], "range max")
        f = src.nums[key]
        tests.append(
            lambda i, f=f, lo=lo, hi=hi: (
                (v := f(i)) is not None and (lo is None or v >= lo) and (hi is None or v <= hi)
            )
        )
    b = q.get("bin")
    if b:
        key = b.get("key")
        if key not in src.bins:
            raise bad_input(f"no histogram of {key!r}", expected=", ".join(src.bins))
        want, f, cut = int(_number(b.get("index"), "bin index")), src.nums[key], src.bins[key]
        tests.append(lambda i, f=f, cut=cut, want=want: (v := f(i)) is not None and cut(v) == want)
    terms = str(q.get("query") or "").lower().split()
    order = src.order if src.order is not None else range(src.n)
    matched = []
    for i in order:
        if keep and not all(fn(i) in allowed for fn, allowed in keep):
            continue
        if tests and not all(t(i) for t in tests):
            continue
        if terms:
            hay = src.haystack(i)
            if not all(t in hay for t in terms):
                continue
        matched.append(i)
    facets = {k: {} for k in src.cats}
    for k, fn in src.cats.items():
        counts = facets[k]
        for i in matched:
            c = fn(i)
            counts[c] = counts.get(c, 0) + 1
    sort = q.get("sort")
    if sort and sort.get("key"):
        key = sort["key"]
        desc = sort.get("dir") == "descending"
        if key in src.nums:
            f = src.nums[key]
            have = [i for i in matched if f(i) is not None]
            have.sort(key=f, reverse=desc)  # stable both ways: ties keep the default order
            matched = have + [i for i in matched if f(i) is None]
        elif key in src.cats:
            f = src.cats[key]
            matched.sort(key=lambda i: _natural(f(i)), reverse=desc)
        else:
            raise bad_input(
                f"no column {key!r} to sort by", expected=", ".join([*src.nums, *src.cats])
            )
    limit = q.get("limit", 100)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise bad_input(f"page limit {limit!r}", expected=f"a whole number from 1 to {MAX_LIMIT}")
    offset = q.get("offset", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise bad_input(f"page offset {offset!r}", expected="a whole number from 0")
    if offset >= len(matched):
        offset = max(0, (len(matched) - 1) // limit * limit)
    return {
        "rows": [src.row(i) for i in matched[offset : offset + limit]],
        "matched": len(matched),
        "total": src.n,
        "offset": offset,
        "limit": limit,
        "facets": facets,
    }


def _natural(s: str) -> tuple:
    """Sort key of a category: text casefolded, digit runs as numbers ("row 9" < "row 10")."""
    out, num = [], ""
    for c in s.casefold():
        if c.isdigit():
            num += c
            continue
        if num:
            out.append((0, int(num), ""))
            num = ""
        out.append((1, 0, c))
    if num:
        out.append((0, int(num), ""))
    return tuple(out)
