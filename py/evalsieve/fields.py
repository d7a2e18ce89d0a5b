"""Fields: which parts of a record are text to score.

A *field path* names a leaf of a record: nested JSON objects are flattened with dots
(``meta.source``) and list elements are written ``[]`` (``messages[].content``); CSV/TSV
fields are header names; plain-text files have the single field ``text``.

A path may hold several values in one record (``messages[].content`` on a chat with five
messages); each value is a separate *segment*, and an n-gram never spans two segments.
"""

from __future__ import annotations

import json
from typing import Iterable, Iterator, NamedTuple

from .errors import bad_input


class FieldInfo(NamedTuple):
    """What the sample of a file's head says about one field.

    Attributes:
        path: the field path (see module docstring).
        fill: share of sampled records with a non-empty value, in [0, 1].
        avg_chars: mean length in characters of the field's text over the records that have
            it (all segments of a record added up).
        kind: ``"text"`` if every value is a JSON string (or CSV/TSV/text cell), else
            ``"other"`` (numbers, booleans; these are scored as their JSON text).
        constant: True when one value is shared by more than half of the sampled records
            (a system prompt, an instruction template): shown, but not selected by default.
        reason: why the field is not selected by default, or "".
    """
    path: str
    fill: float
    avg_chars: float
    kind: str
    constant: bool
    reason: str


def _leaf_text(v) -> str | None:
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def flatten(value, prefix: str = "") -> Iterator[tuple[str, object]]:
    """Yield ``(path, leaf)`` for every leaf of a parsed JSON value.

    Example:
        >>> list(flatten({"q": "hi", "messages": [{"content": "a"}, {"content": "b"}]}))
        [('q', 'hi'), ('messages[].content', 'a'), ('messages[].content', 'b')]
    """
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list):
        for v in value:
            yield from flatten(v, prefix + "[]")
    else:
        yield prefix, value


def discover_fields(values: Iterable[dict]) -> list[FieldInfo]:
    """Describe every leaf field seen in a sample of records.

    Args:
        values: the ``value`` dicts of the sampled records (the head of the file).
    Returns:
        One :class:`FieldInfo` per path, in first-seen order.
    """
    order: list[str] = []
    filled: dict[str, int] = {}
    chars: dict[str, int] = {}
    texty: dict[str, bool] = {}
    seen_vals: dict[str, dict[str, int]] = {}
    total = 0
    for value in values:
        total += 1
        per: dict[str, list[str]] = {}
        for path, leaf in flatten(value):
            if path not in filled:
                order.append(path)
                filled[path] = 0
                chars[path] = 0
                texty[path] = True
                seen_vals[path] = {}
            if leaf is not None and not isinstance(leaf, str):
                texty[path] = False
            t = _leaf_text(leaf)
            if t is not None:
                per.setdefault(path, []).append(t)
        for path, segs in per.items():
            joined = "\x1f".join(segs)
            if joined.strip():
                filled[path] += 1
                chars[path] += sum(len(s) for s in segs)
                counts = seen_vals[path]
                if len(counts) < 10000:
                    counts[joined] = counts.get(joined, 0) + 1
    out = []
    for path in order:
        f = filled[path]
        top = max(seen_vals[path].values(), default=0)
        constant = top >= 2 and top * 2 > total
        reason = ""
        if constant:
            reason = f"the same value on {top} of {total} sampled rows (a shared template)"
        elif f == 0:
            reason = "empty on every sampled row"
        out.append(FieldInfo(path, f / total if total else 0.0,
                             chars[path] / f if f else 0.0,
                             "text" if texty[path] else "other", constant, reason))
    return out


def default_fields(infos: list[FieldInfo]) -> list[str]:
    """The preselected field: the longest text field that is not constant and not empty.

    Falls back to the longest non-constant field of any kind; returns ``[]`` if every field
    is constant or empty (the user must choose).
    """
    usable = [f for f in infos if not f.constant and f.fill > 0]
    text = [f for f in usable if f.kind == "text"] or usable
    if not text:
        return []
    best = max(text, key=lambda f: (f.avg_chars * f.fill, f.avg_chars))
    return [best.path]


class FieldExtractor:
    """Pulls the chosen fields' text out of records, as a list of segments per record.

    Args:
        fmt: the file's format (``jsonl`` walks nested paths; others look up flat keys).
        paths: the chosen field paths (at least one).
        name: the file's name, for errors.
    Raises:
        EvalsieveError(bad_input): no field chosen.
    """

    def __init__(self, fmt: str, paths: list[str], name: str = "input"):
        if not paths:
            raise bad_input("no field chosen", file=name,
                            expected="at least one text field (see the field list)")
        self.paths = list(paths)
        self.nested = fmt == "jsonl"
        self._steps = [self._split(p) for p in self.paths]

    @staticmethod
    def _split(path: str) -> list[str]:
        steps: list[str] = []
        for part in path.split("."):
            base = part  # "a[][]" -> "a", "[]", "[]"
            brackets = 0
            while base.endswith("[]"):
                base = base[:-2]
                brackets += 1
            if base:
                steps.append(base)
            steps.extend(["[]"] * brackets)
        return steps

    def segments(self, value: dict) -> list[str]:
        """The text segments of one record: every value at every chosen path, in order."""
        out: list[str] = []
        if not self.nested:
            for p in self.paths:
                v = value.get(p)
                if v:
                    out.append(v)
            return out
        for steps in self._steps:
            _walk(value, steps, 0, out)
        return out


def _walk(v, steps: list[str], i: int, out: list[str]) -> None:
    if i == len(steps):
        t = _leaf_text(v)
        if t:
            out.append(t)
        return
    s = steps[i]
    if s == "[]":
        if isinstance(v, list):
            for x in v:
                _walk(x, steps, i + 1, out)
    elif isinstance(v, dict):
        if s in v:
            _walk(v[s], steps, i + 1, out)
