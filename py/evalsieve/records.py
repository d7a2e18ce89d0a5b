"""Records: push parsers for JSON Lines, delimited text (CSV, TSV, ``;``/``|``) and plain text.

A driver (the CLI or the page's worker) reads a file in chunks, decodes UTF-8 and hands the
text to :class:`RecordReader` with ``feed``; the reader returns every record completed so far
and carries any incomplete one (a partial line, or a CSV record whose quoted field holds a
newline) over to the next chunk. ``finish`` flushes the last record. A leading byte-order
mark is kept aside (``RecordReader.bom``); bytes that are not UTF-8 make a record malformed
(:mod:`evalsieve.decoding`).

Each :class:`Record` keeps ``raw``, the exact text of the record including its line ending
(so ``"".join(r.raw for r in kept).encode("utf-8")`` is byte-for-byte those rows of a
UTF-8 input), and ``value``, the parsed record (a dict).

A *format* is a base (``jsonl``, ``csv``, ``tsv``, ``text``) with its dialect spelled out in
the name, so the page and the CLI pass one string around: ``csv-semicolon`` and
``csv-pipe`` are delimited files separated by ``;`` and ``|``; a ``-cr`` suffix
(``text-cr``, ``csv-cr`` ...) means the lines end with a lone carriage return (classic Mac).
Delimited files are read as Python's csv module and pandas write them (RFC 4180 quoting:
a field that starts with ``"`` ends with ``"``, inner quotes doubled), TSV included; every
row must have as many fields as the header, or the reader stops at that line.
"""

from __future__ import annotations

import csv
import io
import re
from functools import partial
from typing import NamedTuple

from .decoding import (
    BINARY_MAGIC,  # noqa: F401
    BOM,
    ESCAPED,
    PARQUET_MAGIC,  # noqa: F401 (named here)
    invalid_utf8,
    is_parquet,  # noqa: F401
    SKIPPING,
    refuse_binary,  # noqa: F401
)
from .errors import EvalsieveError, bad_input
from .json_lines import (
    MAX_JSON_DEPTH,  # noqa: F401
    _clip,
    _no_lone_surrogates,  # noqa: F401 (named here)
    parse_jsonl_line,
)

#: A line's text back to the file's bytes (a byte that is not UTF-8 was read as one lone
#: surrogate, decoding.SKIPPING): mapped over every line of a reader that counts offsets.
_ENCODE_AS_READ = partial(str.encode, encoding="utf-8", errors=SKIPPING)

FORMATS = ("jsonl", "csv", "tsv", "text")
#: The stamp's words for ``skip_bad_lines`` (the per-file counts are ``skipped_lines``).
SKIP_RULE = (
    "on: malformed JSON Lines / CSV / TSV records are skipped, not read; each is "
    "listed in skipped-lines.csv; a skipped eval line is no row and is not in "
    "eval.clean; a skipped record keeps its record number"
)
#: Columns of ``skipped-lines.csv``: the file's name, the 1-based line where the skipped
#: record starts, what was wrong and what was expected.
SKIPPED_COLUMNS = ["file", "line", "error"]
#: Field separator of each delimited format (the csv module's ``delimiter``).
DELIMITERS = {"csv": ",", "tsv": "\t", "csv-semicolon": ";", "csv-pipe": "|"}
_DELIM_NAME = {v: k for k, v in DELIMITERS.items()}
_DELIM_WORD = {",": "comma", "\t": "tab", ";": "';'", "|": "'|'"}
#: Bytes of the head the delimiter is sniffed from.
SNIFF_CHARS = 64 << 10


def split_format(fmt: str) -> tuple[str, str | None, bool]:
    """``(base, delimiter, lone_cr)`` of a format name.

    Example: ``split_format("csv-semicolon-cr") == ("csv", ";", True)``;
    ``split_format("jsonl") == ("jsonl", None, False)``.
    Raises:
        EvalsieveError(bad_input): an unknown format name.
    """
    name = fmt[:-3] if fmt.endswith("-cr") else fmt
    cr = name != fmt
    if name in DELIMITERS:
        return ("tsv" if name == "tsv" else "csv"), DELIMITERS[name], cr
    if name in ("jsonl", "text") or fmt == "parquet":
        return name, None, cr
    raise bad_input(
        f"unknown format {fmt!r}",
        expected="jsonl, csv, tsv, csv-semicolon, "
        "csv-pipe or text, optionally with -cr (lone CR line ends)",
    )


_EXT_HINTS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "text",
}


class Record(NamedTuple):
    """One record of an input file.

    Attributes:
        index: 1-based record number (header and blank lines not counted).
        line: 1-based line number where the record starts.
        raw: the record's exact text including its line ending (empty ending at EOF).
        value: dict; JSONL: the parsed object; CSV/TSV: header -> cell; text: {"text": line}.
        offset: UTF-8 byte offset of the record's first byte in the text fed (the file after
            its BOM), from a reader made with ``offsets=True``; -1 otherwise.
    """

    index: int
    line: int
    raw: str
    value: dict
    offset: int = -1


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


def line_ends_cr(head: str) -> bool:
    """True when the text's lines end with a lone CR (classic Mac): more lone CRs than LFs.

    A lone CR inside a line of an LF or CRLF file (a quoted CSV cell) does not count.
    """
    lone_cr = head.count("\r") - head.count("\r\n")
    return bool(lone_cr) and lone_cr > head.count("\n")


def _lines_of(head: str, cr: bool) -> list[str]:
    return head.replace("\r\n", "\n").split("\r") if cr else head.split("\n")


def sniff_format(name: str, head: str, complete: bool = False) -> str:
    """Guess a file's format and dialect from its first lines, with its name as a hint.

    Args:
        name: the file's name (only its extension is used, as a hint).
        head: the decoded start of the file (a few KB is plenty), cut at a line end; a
            leading U+FEFF (the byte-order mark) is not looked at.
        complete: True when ``head`` is the whole file (its last record is whole).
    Returns:
        A format name (see :func:`split_format`): ``jsonl``, ``csv``, ``tsv``,
        ``csv-semicolon``, ``csv-pipe`` or ``text``, with ``-cr`` for lone-CR line ends.
    Raises:
        EvalsieveError(bad_input): the content is a JSON array (not JSON Lines), empty, or
        holds NUL bytes (binary, or UTF-16 without a byte-order mark).

    Rule: lines end with LF or CRLF, or with a lone CR when lone CRs outnumber LFs. A first
    non-blank line starting with ``{`` is JSONL, whatever the name; one starting with ``[``
    is a JSON array and refused. A ``.txt`` or ``.jsonl`` name decides next. Otherwise the
    separator is sniffed from content (:func:`sniff_delimiter`: the csv module's
    ``Sniffer``, restricted to ``, ; tab |``, checked by parsing); a ``.csv``/``.tsv`` name
    only breaks ties. A file with no consistent separator is CSV when named ``.csv``, TSV
    when named ``.tsv``; unnamed, a tab in the first line means TSV, a comma CSV, else
    plain text (one record per line).
    """
    if head.startswith(BOM):  # the file's byte-order mark (a second is line 1's text)
        head = head[1:]
    nul = head.find("\x00")
    if nul >= 0:
        raise bad_input(
            "the file holds NUL bytes: it looks like binary data, or UTF-16 text "
            "without a byte-order mark",
            file=name,
            line=head.count("\n", 0, nul) + 1,
            expected="JSONL, CSV, TSV or plain text in UTF-8 (re-encode UTF-16 with "
            "iconv -f UTF-16LE -t UTF-8 FILE)",
        )
    cr = line_ends_cr(head)
    suffix = "-cr" if cr else ""
    first = ""
    for ln in _lines_of(head, cr):
        if ln.strip():
            first = ln.strip()
            break
    if not first:
        raise bad_input(
            "the file is empty (no non-blank line)",
            file=name,
            expected="JSON Lines, CSV, TSV or plain text with at least one row",
        )
    if first.startswith("{"):
        return "jsonl" + suffix
    if first.startswith("["):
        raise bad_input(
            "this is a JSON array, not JSON Lines",
            file=name,
            line=1,
            expected="one JSON object per line (convert with: jq -c '.[]' FILE)",
        )
    hint = format_hint(name)
    if hint in ("text", "jsonl"):
        return hint + suffix
    if hint is None and not any(d in first for d in DELIMITERS.values()):
        return "text" + suffix
    delim = sniff_delimiter(head, cr, complete, DELIMITERS.get(hint or ""))
    if delim is None:
        if hint is not None:
            return hint + suffix
        delim = "\t" if "\t" in first else "," if "," in first else None
        if delim is None:
            return "text" + suffix
    return _DELIM_NAME[delim] + suffix


def _widths(sample: str, delim: str, truncated: bool) -> list[int] | None:
    """Field count of each record of ``sample`` read with ``delim`` (blank lines skipped),
    or None when it does not parse. A truncated sample loses its last record (cut short)."""
    if truncated:
        sample = sample[: sample.rfind("\n") + 1]
    for _ in range(20):
        try:
            rows = list(csv.reader(io.StringIO(sample, newline=""), delimiter=delim, strict=True))
            break
        except csv.Error:
            if not truncated:
                return None
            # the cut fell inside a quoted field: drop one more line
            sample = sample[: sample.rfind("\n", 0, len(sample) - 1) + 1]
            if not sample:
                return None
    else:
        return None
    return [len(r) for r in rows if r and any(c.strip() for c in r)]


def sniff_delimiter(
    head: str, cr: bool = False, complete: bool = False, hint: str | None = None
) -> str | None:
    """The field separator of a delimited file, one of ``, ; tab |``, or None.

    Args:
        head: the start of the file, cut at a line end.
        cr: lines end with a lone CR.
        complete: ``head`` is the whole file.
        hint: the separator the file's name suggests (``,`` for .csv, tab for .tsv).
    Returns:
        A separator under which the first records (up to ``SNIFF_CHARS``) parse with RFC 4180
        quoting and all have the header's field count, which is at least 2: the hint if it
        qualifies, else ``csv.Sniffer``'s choice if it qualifies, else the only one that
        qualifies. None when none qualifies (a one-column file, or rows whose field counts
        disagree: the reader then names the first such line).
    Raises:
        EvalsieveError(bad_input): several separators qualify and neither the name nor the
        Sniffer tells them apart (the file is ambiguous: name it .csv or .tsv).
    """
    sample = head[:SNIFF_CHARS]
    if cr:
        sample = sample.replace("\r\n", "\n").replace("\r", "\n")
    truncated = len(head) > SNIFF_CHARS or not complete
    ok = []
    for d in (",", "\t", ";", "|"):
        w = _widths(sample, d, truncated)
        if w and w[0] >= 2 and all(x == w[0] for x in w):
            ok.append(d)
    if not ok:
        return None
    if hint in ok:
        return hint
    try:
        sniffed = csv.Sniffer().sniff(sample[: 16 << 10], delimiters=",;\t|").delimiter
    except csv.Error:
        sniffed = None
    if sniffed in ok:
        return sniffed
    if len(ok) == 1:
        return ok[0]
    raise bad_input(
        "cannot tell the field separator: the first rows split evenly on "
        + " and on ".join(_DELIM_WORD[d] for d in ok),
        expected="a file named .csv (comma) or .tsv (tab), or one separator per file",
    )


def parse_record_line(fmt: str, raw: str, name: str, line: int) -> dict:
    """The value of one line-based record (``jsonl`` or ``text``), as the reader parses it."""
    base = split_format(fmt)[0]
    if base == "jsonl":
        return parse_jsonl_line(raw, name, line)
    if base == "text":
        return {"text": raw.rstrip("\r\n")}
    raise bad_input(f"format {fmt!r} has no one-line records", expected="jsonl or text")


class RecordReader:
    """Push parser for one input file.

    Args:
        fmt: a format name (see :func:`split_format`: ``jsonl``, ``csv``, ``tsv``,
            ``csv-semicolon``, ``csv-pipe``, ``text``, each optionally ``-cr``).
        name: the file's name, used in error messages.
        skip_bad: skip malformed records instead of stopping (CLI ``--skip-bad-lines``, the
            page's "skip malformed lines"): a JSON Lines line that is not one JSON object, a
            CSV/TSV record that cannot be parsed or has another field count than the header,
            a record with bytes that are not UTF-8 (:mod:`evalsieve.decoding`).
            A skipped record keeps its record number (the next record's number is the same
            as without the option) and becomes no record; ``skipped`` lists it. Not skipped:
            a malformed header, and a quoted field never closed before the end of the file
            (not one line: everything after its quote would go).
        offsets: count UTF-8 bytes, so each :class:`Record` has its ``offset``.
        at_start: the text fed begins at the file's start, where a U+FEFF is its byte-order
            mark (taken off); False for text after it (a byte range that starts mid-file, or
            a file whose mark the caller took off): a U+FEFF there is the line's own.
    Attributes:
        skipped: ``(line, message)`` of every skipped record, in file order (1-based line
            where the record starts; the message says what was wrong and what was expected).
        bom: ``"\ufeff"`` when the text began with a byte-order mark (taken off), else "".
    Raises (from ``feed``/``finish``):
        EvalsieveError(bad_input): a malformed line, or a row whose field count differs
        from the header's (which file, which line, what was expected); with ``skip_bad``
        only the two cases above.
    """

    def __init__(
        self,
        fmt: str,
        name: str,
        skip_bad: bool = False,
        offsets: bool = False,
        at_start: bool = True,
    ):
        self.base, self.delimiter, self.cr = split_format(fmt)
        self._offsets = offsets  # count bytes: each Record's offset
        self._bytes = 0  # UTF-8 bytes of the lines consumed so far
        self._starts: list[int] | None = None  # byte offset of each line being parsed
        self.fmt = fmt
        self.name = name
        self.skip_bad = bool(skip_bad)
        self.skipped: list[tuple[int, str]] = []
        self.header: list[str] | None = None
        self.header_raw: str | None = None
        self._carry = ""
        self._line = 0  # lines consumed so far
        self._count = 0  # records emitted so far
        self._pending: list[str] = []  # CSV: lines of a record whose quotes are still open
        self._pending_line = 0
        self._pending_offset = -1
        self._pending_quotes = 0
        self.bom, self._started = "", not at_start
        self._escaped = False  # the current text holds bytes that are not UTF-8

    # -- public -----------------------------------------------------------------------------
    def feed(self, text: str) -> list[Record]:
        """Parse ``text`` (the next piece of the file) and return the records it completes."""
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith(BOM):
                self.bom, text = BOM, text[1:]
        buf = self._carry + text
        # an ASCII text holds no escaped byte (isascii is O(1) in CPython): no regex pass
        self._escaped = not buf.isascii() and ESCAPED.search(buf) is not None
        if not self.cr:
            parts = buf.split("\n")
            self._carry = parts.pop()
            return self._lines([p + "\n" for p in parts])
        # lone-CR lines; a CR at the very end may be the first half of a CRLF
        pieces = _CR_SPLIT.split(buf)
        lines = [pieces[i] + pieces[i + 1] for i in range(0, len(pieces) - 1, 2)]
        self._carry = pieces[-1]
        if lines and not self._carry and lines[-1].endswith("\r"):
            self._carry = lines.pop()
        return self._lines(lines)

    def finish(self) -> list[Record]:
        """Flush the last record (a final line without a newline) and check for open quotes."""
        self._escaped = not self._carry.isascii() and ESCAPED.search(self._carry) is not None
        out = self._lines([self._carry]) if self._carry else []
        self._carry = ""
        if self._pending:
            raise bad_input(
                "a quoted field is never closed",
                file=self.name,
                line=self._pending_line,
                expected='a closing double quote (") before the end of the file',
            )
        return out

    @property
    def records_read(self) -> int:
        """How many records have been returned so far."""
        return self._count

    # -- internals --------------------------------------------------------------------------
    def _lines(self, lines: list[str]) -> list[Record]:
        if self._offsets:
            starts = [self._bytes]
            # a byte that is not UTF-8 is one lone surrogate (decoding.SKIPPING): encoding it
            # back gives the file's own bytes, so the offsets after a skipped line stay right
            for b in map(len, map(_ENCODE_AS_READ, lines)):
                starts.append(starts[-1] + b)
            self._bytes = starts.pop()
            self._starts = starts
        if self.base == "parquet":
            raise bad_input(
                "a Parquet file is not text",
                file=self.name,
                expected="its rows as values (the CLI reads Parquet with pyarrow)",
            )
        if self.base == "jsonl":
            return self._line_records(lines, lambda raw, ln: parse_jsonl_line(raw, self.name, ln))
        if self.base == "text":
            return self._line_records(lines, lambda raw, ln: {"text": raw.rstrip("\r\n")})
        return self._csv(lines)

    def _line_records(self, lines: list[str], parse) -> list[Record]:
        """Records of a one-line-per-record format. Blank lines are not records;
        ``parse(raw, line)`` gives the value, or None for a line that is not a record."""
        out = []
        ln = self._line
        n = self._count
        starts = self._starts
        for k, raw in enumerate(lines):
            ln += 1
            if not raw.strip():
                continue
            try:
                bad = self._escaped and invalid_utf8(raw, self.name, ln)
                if bad:
                    raise bad
                value = parse(raw, ln)
            except EvalsieveError as e:
                if not self._skip(e, ln):
                    raise
                n += 1  # a skipped record keeps its number
                continue
            if value is None:
                continue
            n += 1
            out.append(Record(n, ln, raw, value, starts[k] if starts else -1))
        self._line = ln
        self._count = n
        return out

    def _skip(self, e: EvalsieveError, line: int) -> bool:
        """Note a malformed record as skipped (True), or False when skipping is off."""
        if not self.skip_bad or e.code != "bad_input":
            return False
        self.skipped.append((line, skip_text(e)))
        return True

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

    def _expected(self) -> str:
        what = _DELIM_WORD[self.delimiter]
        return (
            f'{what}-separated fields, quoted with " when they hold the separator, '
            "quotes or line ends"
        )

    def _row(self, cells: list[str], line: int, raw: str) -> dict:
        h = self.header
        assert h is not None
        if len(cells) != len(h):
            raise bad_input(
                f"this row has {len(cells)} field{'s' * (len(cells) != 1)} but the "
                f"header has {len(h)}",
                file=self.name,
                line=line,
                expected=f"{len(h)} {_DELIM_WORD[self.delimiter]}-separated fields "
                "on every row, as in the header (quote a field that holds the "
                "separator; name a file of plain lines .txt)",
                detail=_clip(raw),
            )
        return dict(zip(h, cells))

    def _csv(self, lines: list[str]) -> list[Record]:
        # RFC 4180: a record is complete when its count of double quotes is even.
        out = []
        ln = self._line
        n = self._count
        starts = self._starts
        for k, raw in enumerate(lines):
            ln += 1
            if not self._pending:
                if not raw.strip():
                    continue
                self._pending_line = ln
                self._pending_offset = starts[k] if starts else -1
                self._pending_quotes = 0
            self._pending.append(raw)
            self._pending_quotes += raw.count('"')
            try:
                if self._pending_quotes % 2 and not (
                    len(self._pending) == 1 and self._stray_quote(raw, ln)
                ):
                    continue
            except EvalsieveError as e:  # one line, not CSV: skipped or raised
                self._pending = []
                if self.header is None or not self._skip(e, ln):
                    raise
                n += 1
                continue
            rec_raw = "".join(self._pending)
            start = self._pending_line
            self._pending = []
            try:
                bad = self._escaped and invalid_utf8(rec_raw, self.name, start)
                if bad:
                    raise bad
                cells = self._parse(rec_raw, start)
                if self.header is None:
                    self._set_header(cells, rec_raw)
                    continue
                value = self._row(cells, start, rec_raw)
            except EvalsieveError as e:
                if self.header is None or not self._skip(e, start):
                    raise
                n += 1  # a skipped record keeps its number
                continue
            n += 1
            out.append(Record(n, start, rec_raw, value, self._pending_offset))
        self._line = ln
        self._count = n
        return out

    def _parse(self, rec_raw: str, line: int) -> list[str]:
        if '"' not in rec_raw:  # no quoting: the csv module would split at the separator
            return _strip_end(rec_raw).split(self.delimiter)
        try:
            return next(csv.reader([_strip_end(rec_raw)], delimiter=self.delimiter, strict=True))
        except (csv.Error, StopIteration) as e:
            raise bad_input(
                f"malformed {self._kind()} record: {e}",
                file=self.name,
                line=line,
                expected=self._expected(),
                detail=_clip(rec_raw),
            ) from None

    def _kind(self) -> str:
        return "TSV" if self.delimiter == "\t" else "CSV"

    def _stray_quote(self, raw: str, ln: int) -> bool:
        """True when a one-line record with an odd count of quotes is complete: its quotes
        are characters of unquoted fields (``5" screen``), not an open quoted field."""
        try:
            next(csv.reader([_strip_end(raw)], delimiter=self.delimiter, strict=True))
        except csv.Error as e:
            if "unexpected end of data" in str(e):
                return False  # a quoted field goes on to the next line
            raise bad_input(
                f"malformed {self._kind()} record: {e}",
                file=self.name,
                line=ln,
                expected=self._expected(),
                detail=_clip(raw),
            ) from None
        return True


def skip_text(e: EvalsieveError) -> str:
    """A skipped record's ``error`` cell: the message and what was expected, without the file
    and line (their own columns of skipped-lines.csv)."""
    return e.message + (f" (expected {e.expected})" if e.expected else "")


_CR_SPLIT = re.compile(r"(\r\n?)")


def _strip_end(raw: str) -> str:
    """The record without its line end (one LF, CRLF or CR)."""
    if raw.endswith("\r\n"):
        return raw[:-2]
    if raw.endswith(("\n", "\r")):
        return raw[:-1]
    return raw
