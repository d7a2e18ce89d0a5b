"""Fields: which parts of a record are text to score.

A *field path* names a leaf of a record: nested JSON objects are flattened with dots
(``meta.source``) and list elements are written ``[]`` (``messages[].content``); CSV/TSV
fields are header names; plain-text files have the single field ``text``.

A path may hold several values in one record (``messages[].content`` on a chat with five
messages); each value is a separate *segment*, and an n-gram never spans two segments.

An *element filter* ``[key=value]`` in place of ``[]`` keeps only the list elements (objects)
whose ``key`` equals ``value``: ``messages[role=user].content`` is the user turns of a chat.
Discovery offers these paths when a list of objects has a role-like key (``ROLE_KEYS``).
"""

from __future__ import annotations

import json
import re
from typing import Iterable, Iterator, NamedTuple

from .errors import bad_input
from .records import split_format
from .text import normalize_many

#: Keys of chat-turn objects whose value names the turn's role (``role`` in OpenAI-style
#: messages, ``from`` in ShareGPT, ``speaker``/``author``/``sender`` elsewhere).
ROLE_KEYS = ("role", "from", "speaker", "author", "sender")
#: Role values offered as filters must be short plain labels (no ``[ ] . =``).
_LABEL = re.compile(r"^[^\[\].=]{1,40}$")
#: At most this many distinct values of one role key become filter paths.
MAX_ROLE_VALUES = 8
_STEP = re.compile(r"\[(?:([^\[\]=]+)=([^\[\]]*))?\]")


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
        avg_words: mean count of *prose words* per sampled record (records without the field
            count 0): words under the contamination rule (NFKC, lowercase, punctuation
            deleted) that hold at least one letter, so numbers, sums and URLs (one word
            once punctuation is gone) count little.
        text_share: share of sampled records whose value is non-empty text (a string).
        filter: True for an element-filter path (``messages[role=user].content``).
    """
    path: str
    fill: float
    avg_chars: float
    kind: str
    constant: bool
    reason: str
    avg_words: float = 0.0
    text_share: float = 0.0
    filter: bool = False


def _leaf_text(v) -> str | None:
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def flatten(value, prefix: str = "", filters: bool = False) -> Iterator[tuple[str, object]]:
    """Yield ``(path, leaf)`` for every leaf of a parsed JSON value.

    With ``filters``, a list element that is an object with a role-like key (``ROLE_KEYS``)
    whose value is a short label also yields its other leaves under the filtered path
    (``messages[role=user].content``), after the plain ``[]`` ones.

    Example:
        >>> list(flatten({"q": "hi", "messages": [{"content": "a"}, {"content": "b"}]}))
        [('q', 'hi'), ('messages[].content', 'a'), ('messages[].content', 'b')]
    """
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else str(k), filters)
    elif isinstance(value, list):
        for v in value:
            yield from flatten(v, prefix + "[]", filters)
        if filters:
            for v in value:
                if not isinstance(v, dict):
                    continue
                key = next((k for k in ROLE_KEYS if isinstance(v.get(k), str)
                            and _LABEL.match(v[k])), None)
                if key is None:
                    continue
                sel = f"{prefix}[{key}={v[key]}]"
                for k, x in v.items():
                    if k != key:
                        yield from flatten(x, f"{sel}.{k}", False)
    else:
        yield prefix, value


def prose_words(texts: list[str]) -> list[int]:
    """How many prose words each text holds: words of the contamination rule
    (:func:`evalsieve.text.normalize_many`) holding at least one letter.

    Example: ``prose_words(["Natalia sold 48/2 = <<48/2=24>>24 clips", "https://x.org/a"])``
    is ``[3, 1]`` (the sums are numbers; the URL is one word).
    """
    return [sum(1 for w in t.split() if not w.isdigit() and any(c.isalpha() for c in w))
            for t in normalize_many(texts)]


def discover_fields(values: Iterable[dict], filters: bool = True) -> list[FieldInfo]:
    """Describe every leaf field seen in a sample of records.

    Args:
        values: the ``value`` dicts of the sampled records (the head of the file).
        filters: also describe element-filter paths (``messages[role=user].content``).
    Returns:
        One :class:`FieldInfo` per path, plain paths in first-seen order, then the filter
        paths in first-seen order. The constant flag is per path: a system turn shared by
        every record makes ``messages[role=system].content`` constant, not the user turns.
    """
    order: list[str] = []
    filled: dict[str, int] = {}
    texts: dict[str, int] = {}
    chars: dict[str, int] = {}
    texty: dict[str, bool] = {}
    seen_vals: dict[str, dict[str, int]] = {}
    word_texts: dict[str, list[str]] = {}
    total = 0
    for value in values:
        total += 1
        per: dict[str, list[str]] = {}
        strs: dict[str, bool] = {}
        for path, leaf in flatten(value, filters=filters):
            if path not in filled:
                order.append(path)
                filled[path] = texts[path] = chars[path] = 0
                texty[path] = True
                seen_vals[path] = {}
                word_texts[path] = []
            if leaf is not None and not isinstance(leaf, str):
                texty[path] = False
            elif isinstance(leaf, str) and leaf.strip():
                strs[path] = True
            t = _leaf_text(leaf)
            if t is not None:
                per.setdefault(path, []).append(t)
        for path in strs:
            texts[path] += 1
        for path, segs in per.items():
            joined = "\x1f".join(segs)
            if joined.strip():
                filled[path] += 1
                chars[path] += sum(len(s) for s in segs)
                word_texts[path].append("\n".join(segs))
                counts = seen_vals[path]
                if len(counts) < 10000:
                    counts[joined] = counts.get(joined, 0) + 1
    out = []
    plain = [p for p in order if "=" not in p]
    filtered = [p for p in order if "=" in p]
    for path in plain + filtered:
        f = filled[path]
        top = max(seen_vals[path].values(), default=0)
        constant = top >= 2 and top * 2 > total
        reason = ""
        if constant:
            reason = f"the same value on {top} of {total} sampled rows (a shared template)"
        elif f == 0:
            reason = "empty on every sampled row"
        words = sum(prose_words(word_texts[path])) if word_texts[path] else 0
        out.append(FieldInfo(path, f / total if total else 0.0,
                             chars[path] / f if f else 0.0,
                             "text" if texty[path] else "other", constant, reason,
                             words / total if total else 0.0,
                             texts[path] / total if total else 0.0, path in filtered))
    return out


def default_choice(infos: list[FieldInfo]) -> tuple[list[str], str]:
    """The preselected field and why: ``([path], reason)``, or ``([], reason)``.

    Rule: among plain (unfiltered) fields that are text on most sampled rows (text share
    > 0.5) and not constant, the one with the most prose words per row on average
    (:attr:`FieldInfo.avg_words`; ties: more characters). Without such a field, the
    non-constant field with the most words of any kind; none at all: ``[]`` (choose).
    """
    usable = [f for f in infos if not f.constant and f.fill > 0 and not f.filter]
    text = [f for f in usable if f.text_share > 0.5]
    if text:
        best = max(text, key=lambda f: (f.avg_words, f.avg_chars * f.fill))
        return [best.path], (f"the most words per row ({best.avg_words:.1f} on average) among "
                             f"the {len(text)} field{'s' * (len(text) != 1)} that are text on "
                             "most rows and not constant")
    if usable:
        best = max(usable, key=lambda f: (f.avg_words, f.avg_chars * f.fill))
        return [best.path], ("no field is text on most rows; the non-constant field with the "
                             f"most words per row ({best.avg_words:.1f})")
    return [], "every field is constant or empty: choose one"


def default_fields(infos: list[FieldInfo]) -> list[str]:
    """The preselected field (see :func:`default_choice`), or ``[]``."""
    return default_choice(infos)[0]


class FieldExtractor:
    """Pulls the chosen fields' text out of records, as a list of segments per record.

    Args:
        fmt: the file's format (``jsonl`` and ``parquet`` walk nested paths; others look up
            flat keys).
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
        self.nested = split_format(fmt)[0] in ("jsonl", "parquet")
        self._steps = [self._split(p) for p in self.paths]

    @staticmethod
    def _split(path: str) -> list:
        """Steps of a path: key strings, ``"[]"``, and ``("=", key, value)`` for a filter.

        ``"a.b[role=user][].c"`` -> ``["a", "b", ("=", "role", "user"), "[]", "c"]``.
        """
        steps: list = []
        for part in _split_dots(path):
            m = _STEP.search(part)
            base = part[:m.start()] if m else part
            if base or not m:
                steps.append(base)
            while m:
                steps.append("[]" if m.group(1) is None else ("=", m.group(1), m.group(2)))
                m2 = _STEP.match(part, m.end())
                if m2 is None and m.end() != len(part):
                    steps.append(part[m.end():])  # not a bracket after all: a plain key
                m = m2
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
    elif isinstance(s, tuple):
        if isinstance(v, list):
            _, key, want = s
            for x in v:
                if isinstance(x, dict) and _leaf_text(x.get(key)) == want:
                    _walk(x, steps, i + 1, out)
    elif isinstance(v, dict):
        if s in v:
            _walk(v[s], steps, i + 1, out)


def _split_dots(path: str) -> list[str]:
    """Split a path at dots outside brackets (a filter value may not hold one, but be safe)."""
    parts, depth, cur = [], 0, []
    for c in path:
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        if c == "." and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def unfiltered(path: str) -> str:
    """The path with every element filter written ``[]``: ``m[role=user].c`` -> ``m[].c``."""
    return _STEP.sub("[]", path)
