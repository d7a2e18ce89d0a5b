"""Inspect the head of a file: its format and its fields, before any run."""

from __future__ import annotations

from .errors import EvalsieveError, bad_input
from .fields import FieldExtractor, default_fields, discover_fields
from .records import RecordReader, sniff_format

SAMPLE_ROWS = 1000


def inspect_head(name: str, head: str, complete: bool = False, fmt: str | None = None) -> dict:
    """Sniff the format of a file and describe its fields from a sample of its head.

    Args:
        name: the file's name (its extension is a hint).
        head: the decoded start of the file, ideally cut at a line end (<= ~1 MB).
        complete: True when ``head`` is the whole file (then its last line is parsed even
            without a final newline).
        fmt: force a format instead of sniffing.
    Returns:
        ``{"format", "fields": [{path, fill, avg_chars, kind, constant, reason}],
        "default_fields": [...], "rows_sampled"}``.
    Raises:
        EvalsieveError(bad_input): empty file, JSON array, malformed first rows (with line).
    """
    fmt = fmt or sniff_format(name, head)
    reader = RecordReader(fmt, name)
    records = reader.feed(head)
    if complete:
        records += reader.finish()
    elif not records:
        # a single long line without a newline yet: parse it as it stands
        try:
            records = reader.finish()
        except EvalsieveError:
            records = []
    records = records[:SAMPLE_ROWS]
    if not records:
        raise bad_input("no record found in the start of the file", file=name,
                        expected=f"{fmt} records")
    infos = discover_fields(r.value for r in records)
    return {"format": fmt,
            "fields": [i._asdict() for i in infos],
            "default_fields": default_fields(infos),
            "rows_sampled": len(records)}


def check_fields(name: str, fmt: str, paths: list[str], head: str) -> None:
    """Raise a clear error when a chosen field is absent from the sampled head.

    Raises:
        EvalsieveError(bad_input): naming the missing field and the fields that exist.
    """
    info = inspect_head(name, head, fmt=fmt)
    known = {f["path"] for f in info["fields"]}
    FieldExtractor(fmt, paths, name)
    for p in paths:
        if p not in known:
            raise bad_input(f"no field {p!r} in the first {info['rows_sampled']} rows",
                            file=name, expected="one of: " + ", ".join(sorted(known)))
