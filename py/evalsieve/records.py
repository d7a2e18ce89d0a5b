"""Records: push parsers for JSON Lines, CSV, TSV and plain text.

A driver (the CLI or the page's worker) reads a file in chunks, decodes UTF-8 (BOM removed)
and hands the text to :class:`RecordReader` with ``feed``; the reader returns every record
completed so far and carries any incomplete one (a partial line, or a CSV record whose
quoted field holds a newline) over to the next chunk. ``finish`` flushes the last record.

Each :class:`Record` keeps ``raw``, the exact text of the record including its line ending
(so ``"".join(r.raw for r in kept).encode("utf-8")`` is byte-for-byte those rows of a
UTF-8 input), and ``value``, the parsed record (a dict).
"""

from __future__ import annotations

import csv
import json
import re
from typing import NamedTuple

from . import constants
from .constants import binary_kind
from .errors import bad_input

FORMATS = ("jsonl", "csv", "tsv", "text")

_EXT_HINTS = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "text",
}


class Record(NamedTuple):
    """One record of an input file.

    Attributes:
        index: 1-based record number (header and blank lines not counted).
        line: 1-based line number where the record starts.
        raw: the record's exact text including its line ending (empty ending at EOF).
        value: dict; JSONL: the parsed object; CSV/TSV: header -> cell; text: {"text": line}.
    """
    index: int
    line: int
    raw: str
    value: dict


def _strip_gz(name: str) -> str:
    low = name.lower()
    return name[:-3] if low.endswith(".gz") else name


def format_hint(name: str) -> str | None:
    """The format a file name suggests (``.jsonl`` -> ``"jsonl"`` ...), or None.

    A trailing ``.gz`` is ignored (gzip is detected from content, not the name).
    """
    base = _strip_gz(name).lower()
    for ext, fmt in _EXT_HINTS.items():
        if base.endswith(ext):
            return fmt
    return None


#: Magic bytes of files that are not text (checked on the first bytes after gunzip, before
#: decoding): the table is constants.BINARY_MAGIC, which the page's worker/files.js receives
#: in the worker's ``ready`` message.
BINARY_MAGIC = constants.BINARY_MAGIC


def refuse_binary(name: str, head: bytes) -> None:
    """Refuse a file whose first bytes say it is not text (ZIP, Parquet, UTF-16, ...).

    Args:
        name: the file's name, for the message.
        head: its first bytes (after gunzip); 16 are enough.
    Raises:
        EvalsieveError(bad_input): "unsupported format: this looks like a ZIP archive; ...".
    """
    kind = binary_kind(head)
    if kind is not None:
        what, todo = kind
        raise bad_input(f"unsupported format: this looks like {what}", file=name,
                        expected=f"JSONL, CSV, TSV or plain text in UTF-8 ({todo})")


def sniff_format(name: str, head: str) -> str:
    """Guess a file's format from its first lines, with its name as a hint.

    Args:
        name: the file's name (only its extension is used, as a hint).
        head: the decoded start of the file (a few KB is plenty).
    Returns:
        One of ``FORMATS``.
    Raises:
        EvalsieveError(bad_input): the content is a JSON array (not JSON Lines), empty, holds
        NUL bytes (binary, or UTF-16 without a byte-order mark), ends its lines with a lone
        CR (classic Mac), or is a ``;``-separated file named .csv.

    Rule: a first non-blank line starting with ``{`` is JSONL, whatever the name; one
    starting with ``[`` is a JSON array and refused; otherwise the extension decides
    (.csv, .tsv, .txt, .jsonl); with no useful extension, a tab in the first line means TSV,
    a comma means CSV, else plain text (one record per line). Lines end with LF or CRLF;
    a lone CR inside a line is a character of that line.
    """
    nul = head.find("\x00")
    if nul >= 0:
        raise bad_input("the file holds NUL bytes: it looks like binary data, or UTF-16 text "
                        "without a byte-order mark", file=name, line=head.count("\n", 0, nul) + 1,
                        expected="JSONL, CSV, TSV or plain text in UTF-8 (re-encode UTF-16 with "
                                 "iconv -f UTF-16LE -t UTF-8 FILE)")
    lone_cr = head.count("\r") - head.count("\r\n")
    if lone_cr and lone_cr > head.count("\n"):
        raise bad_input("the lines end with a lone carriage return (CR, classic Mac style)",
                        file=name, expected="lines ending with LF or CRLF (convert with: "
                                            "tr '\\r' '\\n' < FILE > NEW)")
    first = ""
    for ln in head.split("\n"):
        if ln.strip():
            first = ln.strip()
            break
    if not first:
        raise bad_input("the file is empty (no non-blank line)", file=name,
                        expected="JSON Lines, CSV, TSV or plain text with at least one row")
    if first.startswith("{"):
        return "jsonl"
    if first.startswith("["):
        raise bad_input("this is a JSON array, not JSON Lines", file=name, line=1,
                        expected="one JSON object per line (convert with: jq -c '.[]' FILE)")
    hint = format_hint(name)
    if hint == "csv" and ";" in first and "," not in first and "\t" not in first:
        raise bad_input("this CSV separates its fields with ';'", file=name, line=1,
                        expected="comma-separated fields (re-export with ',' as the separator, "
                                 "or save as TSV)", detail=_clip(first))
    if hint is not None:
        return hint
    if "\t" in first:
        return "tsv"
    if "," in first:
        return "csv"
    return "text"


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[:n] + "…"


#: Deeper JSON is refused before parsing: Pyodide's stack overflows (a JS RangeError, not a
#: Python RecursionError) a few thousand levels down.
MAX_JSON_DEPTH = 400
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _json_depth(raw: str) -> int:
    """The deepest nesting of objects/arrays in a JSON text (brackets inside strings ignored)."""
    depth = deepest = 0
    for c in _JSON_STRING.sub("", raw):
        if c in "{[":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif c in "}]":
            depth -= 1
    return deepest


def parse_jsonl_line(raw: str, name: str, line: int) -> dict:
    """Parse one JSON Lines record.

    Raises:
        EvalsieveError(bad_input): not JSON, or JSON that is not an object (file, line,
        column and the offending text in the message).
    """
    try:
        if raw.count("{") + raw.count("[") > MAX_JSON_DEPTH and _json_depth(raw) > MAX_JSON_DEPTH:
            raise RecursionError
        value = json.loads(raw)
    except RecursionError:
        raise bad_input("JSON nested too deeply to read", file=name, line=line,
                        expected=f"one JSON object per line, nested at most {MAX_JSON_DEPTH} "
                                 "levels deep", detail=_clip(raw.rstrip("\r\n")))
    except ValueError as e:
        msg = getattr(e, "msg", str(e))
        col = getattr(e, "colno", None)
        raise bad_input(f"not valid JSON: {msg}" + (f" at column {col}" if col else ""),
                        file=name, line=line, expected="one JSON object per line",
                        detail=_clip(raw.rstrip("\r\n")))
    if not isinstance(value, dict):
        raise bad_input(f"a JSON {type(value).__name__} where an object was expected",
                        file=name, line=line, expected="one JSON object per line",
                        detail=_clip(raw.rstrip("\r\n")))
    if "\\ud" in raw or "\\uD" in raw:
        value = _no_lone_surrogates(value)
    return value


def _no_lone_surrogates(v):
    # A JSON escape such as \ud800 decodes to a lone surrogate, which no UTF-8 export (nor
    # the tokenizer) can hold: it becomes U+FFFD, as it does when the page writes a Blob.
    if isinstance(v, str):
        return v.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(v, dict):
        return {_no_lone_surrogates(k): _no_lone_surrogates(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_no_lone_surrogates(x) for x in v]
    return v


def parse_record_line(fmt: str, raw: str, name: str, line: int) -> dict:
    """The value of one line-based record (``jsonl`` or ``text``), as the reader parses it."""
    if fmt == "jsonl":
        return parse_jsonl_line(raw, name, line)
    if fmt == "text":
        return {"text": raw.rstrip("\r\n")}
    raise bad_input(f"format {fmt!r} has no one-line records", expected="jsonl or text")


class RecordReader:
    """Push parser for one input file.

    Args:
        fmt: one of ``FORMATS``.
        name: the file's name, used in error messages.
    Raises (from ``feed``/``finish``):
        EvalsieveError(bad_input): a malformed line (which file, which line, what was
        expected).
    """

    def __init__(self, fmt: str, name: str):
        if fmt not in FORMATS:
            raise bad_input(f"unknown format {fmt!r}", file=name, expected=" / ".join(FORMATS))
        self.fmt = fmt
        self.name = name
        self.header: list[str] | None = None
        self.header_raw: str | None = None
        self._carry = ""
        self._line = 0           # lines consumed so far
        self._count = 0          # records emitted so far
        self._pending: list[str] = []   # CSV: lines of a record whose quotes are still open
        self._pending_line = 0
        self._pending_quotes = 0

    # -- public -----------------------------------------------------------------------------
    def feed(self, text: str) -> list[Record]:
        """Parse ``text`` (the next piece of the file) and return the records it completes."""
        if not text:
            return []
        parts = (self._carry + text).split("\n")
        self._carry = parts.pop()
        return self._lines([p + "\n" for p in parts])

    def finish(self) -> list[Record]:
        """Flush the last record (a final line without a newline) and check for open quotes."""
        out = self._lines([self._carry]) if self._carry else []
        self._carry = ""
        if self._pending:
            raise bad_input("a quoted field is never closed", file=self.name,
                            line=self._pending_line,
                            expected='a closing double quote (") before the end of the file')
        return out

    @property
    def records_read(self) -> int:
        """How many records have been returned so far."""
        return self._count

    # -- internals --------------------------------------------------------------------------
    def _lines(self, lines: list[str]) -> list[Record]:
        if self.fmt == "jsonl":
            return self._line_records(lines, lambda raw, ln: parse_jsonl_line(raw, self.name, ln))
        if self.fmt == "text":
            return self._line_records(lines, lambda raw, ln: {"text": raw.rstrip("\r\n")})
        if self.fmt == "tsv":
            return self._line_records(lines, self._tsv_value)
        return self._csv(lines)

    def _line_records(self, lines: list[str], parse) -> list[Record]:
        """Records of a one-line-per-record format. Blank lines are not records;
        ``parse(raw, line)`` gives the value, or None for a line that is not a record."""
        out = []
        ln = self._line
        n = self._count
        for raw in lines:
            ln += 1
            if not raw.strip():
                continue
            value = parse(raw, ln)
            if value is None:
                continue
            n += 1
            out.append(Record(n, ln, raw, value))
        self._line = ln
        self._count = n
        return out

    def _tsv_value(self, raw: str, ln: int) -> dict | None:
        # TSV (IANA text/tab-separated-values): one record per line, no quoting.
        cells = raw.rstrip("\r\n").split("\t")
        if self.header is None:
            self._set_header(cells, raw)
            return None
        return self._row(cells)

    def _set_header(self, cells: list[str], raw: str) -> None:
        seen: dict[str, int] = {}
        header = []
        for i, c in enumerate(cells):
            c = c.strip() or f"column {i + 1}"
            if c in seen:
                seen[c] += 1
                c = f"{c} ({seen[c]})"
            else:
                seen[c] = 1
            header.append(c)
        self.header = header
        self.header_raw = raw

    def _row(self, cells: list[str]) -> dict:
        h = self.header
        assert h is not None
        if len(cells) <= len(h):
            return dict(zip(h, cells))
        d = dict(zip(h, cells))
        for i in range(len(h), len(cells)):
            d[f"column {i + 1}"] = cells[i]
        return d

    def _csv(self, lines: list[str]) -> list[Record]:
        # RFC 4180: a record is complete when its count of double quotes is even.
        out = []
        ln = self._line
        n = self._count
        for raw in lines:
            ln += 1
            if not self._pending:
                if not raw.strip():
                    continue
                self._pending_line = ln
                self._pending_quotes = 0
            self._pending.append(raw)
            self._pending_quotes += raw.count('"')
            if self._pending_quotes % 2 and not (len(self._pending) == 1
                                                 and self._stray_quote(raw, ln)):
                continue
            rec_raw = "".join(self._pending)
            start = self._pending_line
            self._pending = []
            try:
                cells = next(csv.reader([rec_raw.rstrip("\r\n")], strict=True))
            except (csv.Error, StopIteration) as e:
                raise bad_input(f"malformed CSV record: {e}", file=self.name, line=start,
                                expected="comma-separated fields, quoted with \" when they "
                                         "hold commas, quotes or newlines",
                                detail=_clip(rec_raw))
            if self.header is None:
                self._set_header(cells, rec_raw)
                continue
            n += 1
            out.append(Record(n, start, rec_raw, self._row(cells)))
        self._line = ln
        self._count = n
        return out

    def _stray_quote(self, raw: str, ln: int) -> bool:
        """True when a one-line record with an odd count of quotes is complete: its quotes
        are characters of unquoted fields (``5" screen``), not an open quoted field."""
        try:
            next(csv.reader([raw.rstrip("\r\n")], strict=True))
        except csv.Error as e:
            if "unexpected end of data" in str(e):
                return False  # a quoted field goes on to the next line
            raise bad_input(f"malformed CSV record: {e}", file=self.name, line=ln,
                            expected="comma-separated fields, quoted with \" when they "
                                     "hold commas, quotes or newlines", detail=_clip(raw))
        return True
