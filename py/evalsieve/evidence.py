"""Evidence for choosing fields: sample values per field, and how many rows a choice leaves
too short to score at the rule's own N.

Both read the records :mod:`evalsieve.sample` parsed from a file's head; the page's field
picker shows them (``inspect``'s ``samples`` per field and ``short_check``).
"""

from __future__ import annotations

from .fields import FieldExtractor
from .ngrams import mostly_too_short, ngram_size
from .text import normalize_many

#: Sample values shown per field.
SAMPLES_PER_FIELD = 3
#: A sample value is cut to this many characters (an ellipsis marks the cut).
SAMPLE_CHARS = 120


def clip(text: str, limit: int = SAMPLE_CHARS) -> str:
    """``text`` with runs of white space (line ends too) made one space, cut to ``limit``
    characters; a cut text ends with "…" (counted in the limit).

    Example: ``clip("a  b\\nc", 4)`` is ``"a b…"``.
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def field_samples(
    fmt: str, values: list, paths: list[str], name: str = "input", k: int = SAMPLES_PER_FIELD
) -> dict[str, list[str]]:
    """The first ``k`` non-empty values of each field, in file order, clipped (:func:`clip`).

    Args:
        fmt: the file's format (as :class:`evalsieve.fields.FieldExtractor` takes it).
        values: the sampled records' values (dicts), in file order.
        paths: field paths (plain or element-filter).
        name: the file's name (for errors).
        k: values per field.
    Returns:
        ``{path: [text, ...]}`` with at most ``k`` texts per path; a record holding several
        segments at a path (``messages[].content``) gives them joined by " ⏎ ".
    """
    out: dict[str, list[str]] = {}
    for path in paths:
        ex = FieldExtractor(fmt, [path], name)
        got: list[str] = []
        for v in values:
            segs = [s for s in ex.segments(v) if s.strip()]
            if segs:
                got.append(clip(" ⏎ ".join(segs)))
                if len(got) == k:
                    break
        out[path] = got
    return out


def short_check(fmt: str, values: list, paths: list[str], name: str = "input") -> dict:
    """How the sampled rows fare when ``paths`` are scored at the rule's own N.

    N is :func:`evalsieve.ngrams.ngram_size` of the rows' word counts (the run computes it
    the same way over every row); a row with words is *too short* when none of its segments
    holds N words (no n-gram: the run's ``too_short`` and ``no_ngram`` rows). ``mostly_short``
    is the run's own warning rule (contamination.py: more than half of the rows with words).

    Args:
        fmt, values, name: as :func:`field_samples`.
        paths: the chosen fields (at least one).
    Returns:
        ``{"fields", "rows", "rows_with_words", "n", "n_how", "rows_too_short",
        "mostly_short"}``; with no word in any row, ``n`` and ``n_how`` are None and
        ``mostly_short`` is True.
    Raises:
        EvalsieveError(bad_input): no field given.
    """
    ex = FieldExtractor(fmt, paths, name)
    rows = [ex.segments(v) for v in values]
    flat = normalize_many([s for segs in rows for s in segs])
    seg_words: list[list[int]] = []
    i = 0
    for segs in rows:
        seg_words.append([len(w.split()) for w in flat[i : i + len(segs)]])
        i += len(segs)
    worded = [ws for ws in seg_words if sum(ws) > 0]
    base = {"fields": list(paths), "rows": len(rows), "rows_with_words": len(worded)}
    if not worded:
        return {**base, "n": None, "n_how": None, "rows_too_short": 0, "mostly_short": True}
    n, how = ngram_size([sum(ws) for ws in worded])
    short = sum(1 for ws in worded if max(ws) < n)
    return {
        **base,
        "n": n,
        "n_how": how,
        "rows_too_short": short,
        "mostly_short": mostly_too_short(short, len(worded)),
    }
