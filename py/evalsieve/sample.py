"""Inspect the head of a file: its format and its fields, before any run."""

from __future__ import annotations

from .errors import EvalsieveError, bad_input
from .evidence import field_samples, short_check
from .fields import FieldExtractor, default_choice, discover_fields, unfiltered
from .records import RecordReader, sniff_format, split_format

SAMPLE_ROWS = 1000


def inspect_head(
    name: str,
    head: str,
    complete: bool = False,
    fmt: str | None = None,
    check: list[str] | None = None,
    skip_bad: bool = False,
) -> dict:
    """The description of a file's head (see :func:`inspect_records`), as plain JSON values."""
    return inspect_records(name, head, complete, fmt, check, skip_bad)[0]


def _with_evidence(info: dict, fmt: str, values: list, name: str, check: list[str] | None) -> dict:
    """``info`` with ``samples`` on every field and ``short_check`` for ``check`` (default:
    the default fields) added (:mod:`evalsieve.evidence`)."""
    every = info["fields"] + info["filter_fields"]
    samples = field_samples(fmt, values, [f["path"] for f in every], name)
    for f in every:
        f["samples"] = samples[f["path"]]
    fields = list(check) if check else info["default_fields"]
    info["short_check"] = short_check(fmt, values, fields, name) if fields else None
    return info


def inspect_records(
    name: str,
    head: str,
    complete: bool = False,
    fmt: str | None = None,
    check: list[str] | None = None,
    skip_bad: bool = False,
) -> tuple[dict, list]:
    """Sniff the format of a file and describe its fields from a sample of its head.

    Args:
        name: the file's name (its extension is a hint).
        head: the decoded start of the file, ideally cut at a line end (<= ~1 MB).
        complete: True when ``head`` is the whole file (then its last line is parsed even
            without a final newline).
        fmt: force a format instead of sniffing.
        check: the fields for ``short_check`` (default: the default fields).
        skip_bad: sample around malformed records (``--skip-bad-lines``; see
            :class:`evalsieve.records.RecordReader`) instead of stopping at the first.
    Returns:
        ``{"format", "fields": [{path, fill, avg_chars, avg_words, text_share, kind,
        constant, reason, filter, samples}], "filter_fields": [same, for element-filter
        paths such as messages[role=user].content], "default_fields": [...],
        "default_reason", "rows_sampled", "separator", "short_check"}`` (``separator``: the
        delimited format's field separator, else None; ``samples``: the first values,
        clipped, :func:`evalsieve.evidence.field_samples`; ``short_check``:
        :func:`evalsieve.evidence.short_check` of ``check``, None without a field).
    Raises:
        EvalsieveError(bad_input): empty file, JSON array, malformed first rows (with line).
        The sampled records come second.
    """
    fmt = fmt or sniff_format(name, head, complete)
    reader = RecordReader(fmt, name, skip_bad)
    records = reader.feed(head)
    if complete:
        records += reader.finish()
    cause = None
    if not complete and not records:
        # a single long line without a newline yet: parse it as it stands
        try:
            records = reader.finish()
        except EvalsieveError as e:  # kept: why no record ends in the head (an open quote)
            records, cause = [], e
    records = records[:SAMPLE_ROWS]
    if not records and reader.skipped:  # skip_bad: every record sampled was malformed
        line, what = reader.skipped[0]
        raise bad_input(
            f"every record in the start of the file is malformed "
            f"({len(reader.skipped)} skipped; the first: {what})",
            file=name,
            line=line,
            expected=f"{fmt} records",
        )
    if not records and cause is not None:
        # the head may also end inside a first record longer than it: say both
        raise bad_input(
            f"no record ends in the first {len(head):,} characters of the file: "
            f"{cause.message} (or the first record is longer than that)",
            file=name,
            line=cause.line,
            expected=cause.expected or f"{fmt} records",
            detail=cause.detail,
        )
    if not records:
        raise bad_input(
            "no record found in the start of the file", file=name, expected=f"{fmt} records"
        )
    infos = discover_fields(r.value for r in records)
    chosen, why = default_choice(infos)
    info = {
        "format": fmt,
        "fields": [i._asdict() for i in infos if not i.filter],
        "filter_fields": [i._asdict() for i in infos if i.filter],
        "default_fields": chosen,
        "default_reason": why,
        "rows_sampled": len(records),
        "separator": split_format(fmt)[1],
    }
    return _with_evidence(info, fmt, [r.value for r in records], name, check), records


def describe_values(
    values: list,
    paths: list[str],
    fmt: str = "parquet",
    check: list[str] | None = None,
    name: str = "input",
) -> dict:
    """Describe a sample of parsed records (a Parquet file's first rows) like
    :func:`inspect_records`, with the schema's leaf ``paths`` (schema order) listed even
    when no sampled row fills them.

    Args:
        values: the sampled records as plain JSON values (dicts).
        paths: every leaf field path of the schema (structs dotted, lists ``[]``).
        fmt: the format named in the answer.
        check, name: the fields for ``short_check`` and the file's name, as
            :func:`inspect_records`.
    Returns:
        ``{"format", "fields", "filter_fields", "default_fields", "default_reason",
        "rows_sampled", "separator": None, "short_check"}`` as :func:`inspect_records`.
    Raises:
        EvalsieveError(bad_input): a sampled record is not an object.
    """
    from .fields import FieldInfo

    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise bad_input(f"row {i + 1} is not a record", expected="an object per row")
    infos = discover_fields(values)
    seen = {i.path for i in infos}
    for p in paths:  # schema fields with no value in the sample
        if p not in seen:
            infos.append(FieldInfo(p, 0.0, 0.0, "text", False, "empty on every sampled row"))
    order = {p: k for k, p in enumerate(paths)}
    infos.sort(key=lambda i: (i.filter, order.get(i.path, len(order))))
    chosen, why = default_choice(infos)
    info = {
        "format": fmt,
        "fields": [i._asdict() for i in infos if not i.filter],
        "filter_fields": [i._asdict() for i in infos if i.filter],
        "default_fields": chosen,
        "default_reason": why,
        "rows_sampled": len(values),
        "separator": None,
    }
    return _with_evidence(info, fmt, values, name, check)


def check_fields(name: str, fmt: str, paths: list[str], head: str, skip_bad: bool = False) -> None:
    """Raise a clear error when a chosen field is absent from the sampled head
    (``skip_bad``: sample around malformed records, as :func:`inspect_records`).

    Raises:
        EvalsieveError(bad_input): naming the missing field and the fields that exist.
    """
    info, records = inspect_records(name, head, fmt=fmt, skip_bad=skip_bad)
    known = {f["path"] for f in info["fields"]}
    FieldExtractor(fmt, paths, name)
    for p in paths:
        if p in known:
            continue
        if p != unfiltered(p) and unfiltered(p) in known:
            # an element filter: it must select something in the sampled rows
            ex = FieldExtractor(fmt, [p], name)
            if any(ex.segments(r.value) for r in records):
                continue
            raise bad_input(
                f"the filter {p!r} selects nothing in the first {info['rows_sampled']} rows",
                file=name,
                expected=("one of: " + ", ".join(f["path"] for f in info["filter_fields"]))
                if info["filter_fields"]
                else "a key=value that occurs in the list's objects",
            )
        raise bad_input(
            f"no field {p!r} in the first {info['rows_sampled']} rows",
            file=name,
            expected="one of: " + ", ".join(sorted(known)),
        )


def listed_paths(info: dict) -> list[str]:
    """Every path an ``inspect`` answer lists: plain fields, then element-filter paths."""
    return [f["path"] for f in info["fields"] + info["filter_fields"]]


def corpus_defaults(infos: list[tuple[str, dict]]) -> dict[str, str]:
    """The default fields of a corpus of several files: each file's own default
    (:func:`evalsieve.fields.default_choice`), in corpus order, each path once, with the
    first file that chose it. Each file is then read with those of these paths it lists
    (:func:`listed_paths`), as it is with the ``--train-field`` paths asked for, and as the
    page reads the fields ticked for a corpus.

    Args:
        infos: ``(file name, inspect answer)`` per file, in corpus order.
    Returns:
        ``{path: name of the first file whose default it is}``, in that order.
    """
    out: dict[str, str] = {}
    for name, info in infos:
        for p in info["default_fields"]:
            out.setdefault(p, name)
    return out
