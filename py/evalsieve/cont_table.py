"""The contamination result as the page's one table of rows, and a training record opened.

Every eval row of a finished run is one row of :func:`contamination_source` (the page filters
it by rung, status and a containment or semantic-score range, searches and sorts it, one page
at a time: :func:`evalsieve.result_table.query_rows`). Each row names its *source*: the training
record that its first rung caught it with, as (file, record number in that file, the record's
own id, its byte offset and length in the file), so the page can read that one record again
with ``File.slice`` and hand its text to :func:`open_record`, which marks the words it shares
with the eval row. No second pass over the training data.
"""

from __future__ import annotations

from .contamination_exports import containment_bin, eval_text_marks
from .errors import bad_input
from .exports import fmt_float
from .fields import FieldExtractor
from .highlight import ngram_spans
from .records import RecordReader, parse_record_line
from .result_table import TableSource
from .results import ContaminationResult

#: Categories of the rung filter: the ladder's rungs, and "none" (no rung caught the row).
RUNG_NONE = "none"


def _file_index(res: ContaminationResult, name: str) -> int:
    names = list(res.train_names) or [res.train_name]
    try:
        return names.index(name) if name else 0
    except ValueError:
        return 0


def row_source(res: ContaminationResult, i: int) -> dict:
    """The training record row ``i`` (0-based) is traced to.

    The n-gram rung's first record (the report's ``training_file``, ``training_record``,
    ``training_id``) when the row shares an n-gram; else the exact rung's copy (the report
    names it too: :func:`evalsieve.verdict.report_records`); else, when the semantic rung
    caught it, that rung's record (``semantic_training_*`` in the report).

    Returns:
        ``{training_file, training_file_index (0-based in the corpus), training_record
        (1-based in that file; 0 = none), training_id ("" = none), training_offset (UTF-8
        byte offset in the file after its BOM; -1 = unknown: a Parquet row, a record only the
        semantic rung found), training_bytes, source_rung ("ngram", "exact", "semantic" or ""),
        exact_file, exact_record (the exact rung's whole-record copy; "" / 0 = none)}``.
    """
    r = res.scores[i]
    names = list(res.train_names) or [res.train_name]
    name, rec, rung = r.training_file, r.training_record or 0, "ngram"
    ex = res.exact.get(i)
    if not rec and ex:
        name, rec, rung = names[ex[0]] if ex[0] < len(names) else res.train_name, ex[1], "exact"
    if not rec and res.semantic is not None and res.semantic[i].caught:
        m = res.semantic[i]
        name, rec, rung = m.training_file or res.train_name, m.training_record or 0, "semantic"
    f = _file_index(res, name)
    off, size, ident = res.source_of(f, rec) if rec else (-1, 0, "")
    return {
        "training_file": name if rec else "",
        "training_file_index": f,
        "training_record": rec,
        "training_id": ident,
        "training_offset": off,
        "training_bytes": size,
        "source_rung": rung if rec else "",
        "exact_file": (names[ex[0]] if ex[0] < len(names) else res.train_name) if ex else "",
        "exact_record": ex[1] if ex else 0,
    }


def contamination_source(res: ContaminationResult) -> TableSource:
    """Every eval row of a finished run as one table (kept in the result's cache after the
    first call).

    Row (``TableSource.row``): ``{eval_row, status, rung ("none" when no rung caught it),
    leaves_clean, containment (float or None), containment_text, ngrams_matched, ngrams_total,
    words, shared_passage, training_excerpt, semantic_score, semantic_cosine, training_window,
    eval_text, eval_marks}`` + :func:`row_source`. Numbers as the CSV prints them.
    Filters: ``where`` on ``rung``, ``status``, ``leaves_clean`` ("yes"/"no"); ``range``
    and the sort on ``containment``, ``semantic_score``, ``eval_row``, ``ngrams_matched``,
    ``training_record``; ``bin`` on ``containment`` (:func:`containment_bin`: the
    histogram's bars). Search: the eval text, the excerpt or window, the file and the id.
    """
    cached = res.cache.get("table_source")
    if cached is not None:
        return cached
    scores, rungs = res.scores, res.rungs
    sem = res.semantic

    def row(i: int) -> dict:
        r = scores[i]
        m = sem[i] if sem is not None else None
        return {
            "eval_row": r.eval_row,
            "status": r.status,
            "rung": rungs[i] or RUNG_NONE,
            "leaves_clean": res.excluded(i),
            "containment": r.containment if r.scored else None,
            "containment_text": fmt_float(r.containment) if r.scored else "",
            "ngrams_matched": r.ngrams_matched,
            "ngrams_total": r.ngrams_total,
            "words": r.words,
            "shared_passage": r.shared_passage,
            "training_excerpt": r.excerpt,
            "semantic_score": fmt_float(m.score) if m else "",
            "semantic_cosine": fmt_float(m.cosine) if m else "",
            "training_window": m.window if m else "",
            **row_source(res, i),
            **eval_text_marks(res, i),
        }

    def text(i: int) -> str:
        r = scores[i]
        m = sem[i] if sem is not None else None
        s = row_source(res, i)
        return "\n".join(
            (
                str(r.eval_row),
                res.eval_text(i),
                r.excerpt,
                m.window if m else "",
                s["training_file"],
                s["training_id"],
            )
        )

    src = TableSource(
        n=len(scores),
        row=row,
        text=text,
        cats={
            "rung": lambda i: rungs[i] or RUNG_NONE,
            "status": lambda i: scores[i].status,
            "leaves_clean": lambda i: "yes" if res.excluded(i) else "no",
        },
        nums={
            "containment": lambda i: scores[i].containment if scores[i].scored else None,
            "semantic_score": (lambda i: sem[i].score) if sem is not None else (lambda i: None),
            "eval_row": lambda i: scores[i].eval_row,
            "ngrams_matched": lambda i: scores[i].ngrams_matched,
            "training_record": lambda i: scores[i].training_record or None,
        },
        bins={"containment": containment_bin},
    )
    res.cache["table_source"] = src
    return src


def open_record(res: ContaminationResult, row: int, file: int, record: int, text: str) -> dict:
    """A training record read again by the page (its bytes at the source's offset), parsed as
    its file's records are, with the words it shares with an eval row marked.

    Args:
        res: a finished run.
        row: the eval row's 1-based number (``eval_row``).
        file, record: the record's 0-based file and 1-based record number (the row's source).
        text: the record's text as the page read it (``training_bytes`` from
            ``training_offset``, UTF-8 decoded; its line ending may be there).
    Returns:
        ``{file, record, id, format, value (the parsed record: JSON object; CSV/TSV header ->
        cell), text (the record as read, line ending dropped), fields: [{path, text, marks}]}``
        (``marks``: UTF-16 spans of the field's text covered by n-grams of the eval row found
        in the training data, :func:`evalsieve.highlight.ngram_spans`).
    Raises:
        EvalsieveError(bad_input): no such row or file; the text is not one record of that
            file's format; its id or length is not the one the run saw (the file changed).
    """
    try:
        i = res.eval_numbers.index(int(row))
    except ValueError:
        raise bad_input(f"no eval row {row}", expected="a row of the run") from None
    meta = res.train_meta.get(int(file))
    if meta is None:
        raise bad_input(f"no training file {file}", expected="a file of the run's corpus")
    name, fmt, fields, header = meta
    off, size, ident = res.source_of(int(file), int(record))
    if size and len(text.encode("utf-8")) != size:
        raise bad_input(
            f"record {record} of {name} is not the one the run read "
            f"({len(text.encode('utf-8'))} bytes, the run read {size})",
            file=name,
            expected="the same file as in the run (it changed?)",
        )
    raw = text.rstrip("\r\n")
    if fmt.split("-")[0] in ("csv", "tsv"):
        reader = RecordReader(fmt, name)
        reader.feed(_header_line(header, fmt) + "\n")
        recs = reader.feed(raw + "\n") + reader.finish()
        if len(recs) != 1:
            raise bad_input(
                f"the text read for record {record} is not one record",
                file=name,
                expected="one CSV/TSV record",
            )
        value = recs[0].value
    else:
        value = parse_record_line(fmt.split("-")[0], raw, name, 0)
    from .record_id import IdReader

    got = IdReader(fmt, res.config.train_id_field, name)(value)
    if ident and got != ident:
        raise bad_input(
            f"record {record} of {name} has id {got!r}, the run saw {ident!r}",
            file=name,
            expected="the same file as in the run (it changed?)",
        )
    grams = _shared_grams(res, i)
    out_fields = []
    for path in fields:
        segs = FieldExtractor(fmt, [path], name).segments(value)
        if segs:
            out_fields.append(
                {"path": path, "text": "\n".join(segs), "marks": ngram_spans(segs, grams, res.n)}
            )
    return {
        "file": name,
        "record": int(record),
        "id": got,
        "format": fmt,
        "value": value,
        "text": raw,
        "fields": out_fields,
    }


def _header_line(header: list[str] | None, fmt: str) -> str:
    if not header:
        raise bad_input("the file's header was not kept", expected="a CSV/TSV file of the run")
    sep = (
        "\t"
        if fmt.startswith("tsv")
        else {"csv-semicolon": ";", "csv-pipe": "|"}.get(fmt.replace("-cr", ""), ",")
    )
    return sep.join('"' + h.replace('"', '""') + '"' for h in header)


def _shared_grams(res: ContaminationResult, i: int) -> set[str]:
    """The n-grams of eval row ``i`` (0-based) found in the training data (any record)."""
    counts, grams = res.ngram_found, res.ngrams
    return {grams[g] for g in res.row_ngram_ids[i] if counts[g]}
