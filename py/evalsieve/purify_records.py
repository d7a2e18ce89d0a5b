"""Rewrite one training record with new values in its chosen fields, every other byte kept.

A purified record changes only the chosen text fields; the rest of its raw text stays as it
was (key order, spacing, number spellings, other strings' escapes, CSV quoting of the other
cells, the line end):

* JSON Lines: the record is scanned once more for the exact character span of every string
  token on the chosen paths (:func:`json_leaves`, the same walk as
  :class:`fields.FieldExtractor`, so the n-th segment is the n-th leaf), and only those
  tokens are replaced, each by ``json.dumps`` of its new value; non-ASCII characters are
  escaped (``\\uXXXX``) when the original token escaped them, written as UTF-8 when it did
  not. Duplicate keys: the last one is the value (as ``json.loads`` reads it), and only it
  is replaced.
* CSV/TSV: the cell spans of the record are found with the csv module's quoting rules
  (checked against the reader's cells); a changed cell is quoted when it was quoted, or when
  it now holds the separator, a quote or a line end.
* text: the line is its value plus its line end; the line end stays.

Standard library only.
"""

from __future__ import annotations

import json
import math
import re

from .errors import EvalsieveError
from .fields import FieldExtractor, _leaf_text
from .records import _no_lone_surrogates, _strip_end, parse_record_line, split_format

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_CONSTS = (
    ("true", True),
    ("false", False),
    ("null", None),
    ("NaN", math.nan),
    ("Infinity", math.inf),
    ("-Infinity", -math.inf),
)
_scanstring = json.decoder.scanstring


class _Node:
    """A JSON value with its character span in the raw text."""

    __slots__ = ("kind", "value", "start", "end")

    def __init__(self, kind: str, value, start: int, end: int):
        self.kind, self.value, self.start, self.end = kind, value, start, end

    def plain(self):
        """The value as ``json.loads`` gives it (strings as the reader cleans them)."""
        if self.kind == "o":
            return {k: v.plain() for k, v in self.value.items()}
        if self.kind == "a":
            return [v.plain() for v in self.value]
        return self.value


def _parse(s: str, i: int, surrogates: bool) -> _Node:
    i = _WS.match(s, i).end()
    c = s[i : i + 1]
    if c == '"':
        v, end = _scanstring(s, i + 1)
        return _Node("s", _no_lone_surrogates(v) if surrogates else v, i, end)
    if c == "{":
        out: dict = {}
        j = _WS.match(s, i + 1).end()
        if s[j : j + 1] == "}":
            return _Node("o", out, i, j + 1)
        while True:
            j = _WS.match(s, j).end()
            k, j = _scanstring(s, j + 1)
            if surrogates:
                k = _no_lone_surrogates(k)
            j = _WS.match(s, j).end() + 1  # the colon
            node = _parse(s, j, surrogates)
            out.pop(k, None)
            out[k] = node
            j = _WS.match(s, node.end).end()
            if s[j] == "}":
                return _Node("o", out, i, j + 1)
            j += 1  # the comma
    if c == "[":
        items = []
        j = _WS.match(s, i + 1).end()
        if s[j : j + 1] == "]":
            return _Node("a", items, i, j + 1)
        while True:
            node = _parse(s, j, surrogates)
            items.append(node)
            j = _WS.match(s, node.end).end()
            if s[j] == "]":
                return _Node("a", items, i, j + 1)
            j += 1
    for word, value in _CONSTS:
        if s.startswith(word, i):
            return _Node("v", value, i, i + len(word))
    m = _NUMBER.match(s, i)
    return _Node("v", json.loads(m.group()), i, m.end())


def _leaf_of(node: _Node | None) -> str | None:
    if node is None or node.kind in ("o", "a"):
        return None
    return _leaf_text(node.value)


def _walk(node: _Node, steps: list, i: int, out: list) -> None:
    """fields._walk over span nodes: the same leaves, in the same order."""
    if i == len(steps):
        t = _leaf_of(node)
        if t:
            out.append(node)
        return
    s = steps[i]
    if s == "[]":
        if node.kind == "a":
            for x in node.value:
                _walk(x, steps, i + 1, out)
    elif isinstance(s, tuple):
        if node.kind == "a":
            _, key, want = s
            for x in node.value:
                if x.kind == "o" and _leaf_of(x.value.get(key)) == want:
                    _walk(x, steps, i + 1, out)
    elif node.kind == "o":
        if s in node.value:
            _walk(node.value[s], steps, i + 1, out)


def json_leaves(raw: str, fields: FieldExtractor) -> list[_Node]:
    """The leaf nodes of a JSON Lines record on the chosen paths, in segment order.

    Args:
        raw: the record's text (one JSON object; white space around it allowed), already
            accepted by :func:`records.parse_jsonl_line`.
        fields: the training fields.
    Returns:
        One node per segment (``node.start:node.end`` is the token's span in ``raw``;
        ``node.kind == "s"`` for a string).
    """
    root = _parse(raw, 0, "\\ud" in raw or "\\uD" in raw)
    out: list[_Node] = []
    for steps in fields._steps:
        _walk(root, steps, 0, out)
    return out


def csv_cells(rec: str, delimiter: str) -> list[tuple[int, int, bool]]:
    """Cell spans of one delimited record without its line end: ``(start, end, quoted)``,
    the span including the quotes of a quoted cell (RFC 4180, as the csv module reads it:
    a cell is quoted when it starts with ``"``; ``""`` inside it is one quote)."""
    out, i, size = [], 0, len(rec)
    while True:
        if rec.startswith('"', i):
            j = i + 1
            while True:
                j = rec.index('"', j)
                if rec.startswith('"', j + 1):
                    j += 2
                    continue
                break
            out.append((i, j + 1, True))
            i = j + 1
        else:
            j = rec.find(delimiter, i)
            j = size if j < 0 else j
            out.append((i, j, False))
            i = j
        if i >= size:
            return out
        i += len(delimiter)
        if i == size:
            out.append((i, i, False))
            return out


def _cell_value(rec: str, span: tuple[int, int, bool]) -> str:
    a, b, quoted = span
    return rec[a + 1 : b - 1].replace('""', '"') if quoted else rec[a:b]


class RecordRewriter:
    """Parse a training record and write it back with new values in its chosen fields.

    Args:
        fmt: the file's format (jsonl, csv/tsv dialects, text; ``-cr`` allowed).
        fields: the chosen field paths.
        name: the file's name, for errors.
    """

    def __init__(self, fmt: str, fields: list[str], name: str):
        self.fmt, self.name = fmt, name
        self.base, self.delimiter, _ = split_format(fmt)
        self.fields = FieldExtractor(fmt, list(fields), name)

    def segments(self, value: dict) -> list[str]:
        """The record's chosen field values (as the training scan reads them)."""
        return self.fields.segments(value)

    def parse_line(self, raw: str, line: int) -> dict:
        """The value of a one-line record (jsonl/text), as the reader parses it."""
        return parse_record_line(self.fmt, raw, self.name, line)

    def rewrite(
        self, raw: str, segments: list[str], values: list, header: list[str] | None = None
    ) -> str | None:
        """The record's raw text with segment ``k`` replaced by ``values[k]`` (None = keep).

        Args:
            raw: the record's exact text, line end included.
            segments: its segments as :meth:`segments` read them (checked against the raw
                text's own leaves or cells).
            values: per segment, the new text or None.
            header: a delimited file's header cells (as the reader named them).
        Returns:
            The new raw text; or None when a value to change is not a string (a number or
            boolean leaf: its type cannot hold a cut), so the caller drops the record.
        Raises:
            EvalsieveError(internal): the raw text's own leaves or cells disagree with the
            reader's values (a bug).
        """
        if len(values) != len(segments):
            raise EvalsieveError(
                "internal",
                f"{len(values)} new values for {len(segments)} field values",
                file=self.name,
            )
        if self.base == "jsonl":
            return self._json(raw, segments, values)
        if self.base == "text":
            body = raw.rstrip("\r\n")
            self._check([body] if body else [], segments)
            return (body if values[0] is None else values[0]) + raw[len(body) :]
        return self._csv(raw, segments, values, header or [])

    def _check(self, found: list[str], segments: list[str]) -> None:
        if found != segments:
            raise EvalsieveError(
                "internal",
                "the record's raw text disagrees with its parsed field values",
                file=self.name,
                detail=repr(found)[:80],
            )

    def _json(self, raw: str, segments: list[str], values: list) -> str | None:
        leaves = json_leaves(raw, self.fields)
        self._check([_leaf_of(n) for n in leaves], segments)
        out, at = [], 0
        # in order of position (segment order is path order, not where the tokens are)
        for node, new in sorted(
            ((n, v) for n, v in zip(leaves, values) if v is not None), key=lambda nv: nv[0].start
        ):
            if node.kind != "s":
                return None
            token = raw[node.start : node.end]
            escaped = token.isascii() and not node.value.isascii()
            out.append(raw[at : node.start])
            out.append(json.dumps(new, ensure_ascii=escaped))
            at = node.end
        out.append(raw[at:])
        return "".join(out)

    def _csv(self, raw: str, segments: list[str], values: list, header: list[str]) -> str:
        body = _strip_end(raw)
        cells = csv_cells(body, self.delimiter)
        if len(cells) != len(header):
            raise EvalsieveError(
                "internal", f"{len(cells)} cells but {len(header)} header names", file=self.name
            )
        # the segments are the chosen columns that are not empty, in field order
        cols = [header.index(p) for p in self.fields.paths if p in header]
        cols = [c for c in cols if _cell_value(body, cells[c])]
        self._check([_cell_value(body, cells[c]) for c in cols], segments)
        new_cells = {}
        for c, new in zip(cols, values):
            if new is None:
                continue
            quoted = cells[c][2] or any(x in new for x in (self.delimiter, '"', "\r", "\n"))
            new_cells[c] = '"' + new.replace('"', '""') + '"' if quoted else new
        out, at = [], 0
        for c in sorted(new_cells):
            a, b, _ = cells[c]
            out += [body[at:a], new_cells[c]]
            at = b
        out.append(raw[at:])
        return "".join(out)
