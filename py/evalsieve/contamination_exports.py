"""The contamination job's exports as pure functions of a finished run's
:class:`evalsieve.results.ContaminationResult`: ``eval.clean.*``, the report CSVs,
``skipped-lines.csv``, ``run-stamp.json``, the score exports, and the page's view
(``overlap-report.html`` is :mod:`evalsieve.contamination_html`). It imports no job.
"""

from __future__ import annotations

from . import constants
from .errors import bad_input
from .exports import MarkedText, fmt_float, score_impact_csv, stamp_json, unmatched_csv, write_csv
from .ladder import RUNG_COLUMNS
from .raw_rows import refuse_parquet, rows_text
from .records import SKIPPED_COLUMNS
from .results import ContaminationResult


def containment_bin(c: float) -> int:
    """The histogram's bin of a containment in [0, 1]: ``min(9, int(c × 10))`` (ten bins of
    0.1 from 0, the last one closed)."""
    return min(9, int(c * 10))


#: The export columns and reasons of the contamination job.
REPORT_COLUMNS = [
    "eval_row",
    "status",
    "containment",
    "ngrams_matched",
    "ngrams_total",
    "ngrams_boilerplate",
    "words",
    "training_file",
    "training_record",
    "training_id",
    "shared_passage",
    "training_excerpt",
]
TOO_SHORT_COLUMNS = ["eval_row", "words", "n", "reason"]
#: The export listing skipped records (with ``skip_bad_lines`` only).
SKIPPED_EXPORT = constants.SKIPPED_EXPORT
SEMANTIC_COLUMNS = [
    "semantic_score",
    "semantic_cosine",
    "semantic_lexical",
    "semantic_numbers",
    "semantic_code",
    "semantic_docstring_cosine",
    "semantic_rival",
    "semantic_code_runner_up",
    "semantic_part",
    "semantic_training_file",
    "semantic_training_record",
    "training_window",
]

_REASONS = {
    "empty": "empty: no words in the chosen fields",
    "too_short": "fewer than N words",
    "no_ngram": "no single field value has N words (n-grams never span two fields)",
    "boilerplate_only": "boilerplate only: every n-gram is in more training records than the "
    "cut-off",
}


def export_names(res: ContaminationResult) -> list[str]:
    """The names :func:`export` accepts, in the order the page lists them
    (``skipped-lines.csv`` only with ``skip_bad_lines``; ``run-stamp.json`` last)."""
    extra = list(constants.SCORE_EXPORTS) if res.score_run else []
    if res.config.skip_bad_lines:
        extra.append(SKIPPED_EXPORT)
    return [res.clean_name, *constants.CONTAMINATION_REPORTS, *extra, constants.STAMP_EXPORT]


def export(res: ContaminationResult, name: str) -> tuple[str, str]:
    """One export's ``(mime type, text)``.

    Raises:
        EvalsieveError(bad_input): unknown name (a Parquet clean file: :func:`clean_text`).
    """
    if name == res.clean_name:
        return "application/octet-stream", clean_text(res)
    if name == "contamination-report.csv":
        return "text/csv", report_csv(res)
    if name == "too-short-to-score.csv":
        return "text/csv", too_short_csv(res)
    if name == "overlap-report.html":
        from .contamination_html import report_html

        return "text/html", report_html(res)
    if name == SKIPPED_EXPORT and res.config.skip_bad_lines:
        return "text/csv", write_csv(res.run_stamp, SKIPPED_COLUMNS, res.skipped)
    if name == "score-impact.csv" and res.score_run:
        return "text/csv", score_impact_csv(res.run_stamp, res.score_run.figures)
    if name == "scores-unmatched.csv" and res.score_run:
        return "text/csv", unmatched_csv(res.run_stamp, res.score_run.join)
    if name == constants.STAMP_EXPORT:
        return "application/json", stamp_json(res.run_stamp)
    raise bad_input(f"no export named {name!r}", expected=", ".join(export_names(res)))


def histogram(res: ContaminationResult) -> dict:
    """Containment of the scored rows in ten bins of 0.1, the last one closed ([0.9, 1.0]):
    ``{bin_width: 0.1, counts: [10 ints]}`` (the overlap report's histogram)."""
    counts = [0] * 10
    for r in res.scores:
        if r.scored:
            counts[containment_bin(r.containment)] += 1
    return {"bin_width": 0.1, "counts": counts}


def view(res: ContaminationResult, limit: int = constants.VIEW_ROWS) -> dict:
    """What the page shows of a finished run, so it does not parse the CSV it downloads.

    Args:
        limit: most rows listed (the report CSV has them all).
    Returns:
        ``{rows, rows_total, histogram}``: ``rows`` are the contaminated rows (caught by
        any rung: :mod:`evalsieve.verdict`) in report order (eval-file order), at most
        ``limit``, each ``{eval_row, status ("contaminated"), rung (the first rung that
        caught it), containment (float, or None when the row has no n-gram),
        containment_text (as the CSV prints it), ngrams_matched, ngrams_total,
        training_record (as the CSV's; 0 = none), shared_passage, training_excerpt,
        eval_text (the chosen fields' values joined with a newline), eval_marks (where
        eval_text holds the shared passage: :func:`evalsieve.highlight.passage_spans`,
        UTF-16 offsets)}``;
        ``rows_total`` counts them all;
        ``histogram`` is :func:`histogram`.
    """
    rows, total = [], 0
    records = res.training_records()
    for i, r in res.contaminated():
        total += 1
        if len(rows) < limit:
            rows.append(
                {
                    "eval_row": r.eval_row,
                    "status": r.status,
                    "rung": r.rung,
                    "containment": r.containment,
                    "containment_text": fmt_float(r.containment),
                    "ngrams_matched": r.ngrams_matched,
                    "ngrams_total": r.ngrams_total,
                    "training_record": records[i][1] or 0,
                    "shared_passage": r.shared_passage,
                    "training_excerpt": r.excerpt,
                    **eval_text_marks(res, i),
                }
            )
    return {"rows": rows, "rows_total": total, "histogram": histogram(res)}


def eval_text_marks(res: ContaminationResult, i: int) -> dict:
    """Row i's (0-based) own text and where it holds its shared passage
    (:meth:`ContaminationResult.eval_text_marks`)."""
    return res.eval_text_marks(i)


def marked_eval_text(res: ContaminationResult, i: int) -> MarkedText:
    """Row i's eval text for the report's table: its shared passage inside <mark>, as
    the page marks it (:func:`eval_text_marks`)."""
    m = eval_text_marks(res, i)
    return MarkedText(m["eval_text"], m["eval_marks"])


def clean_text(res: ContaminationResult) -> str:
    """The kept rows' exact text (header line first for CSV/TSV), after the input's
    byte-order mark if it had one (and anything is kept); UTF-8 = input bytes.

    Raises:
        EvalsieveError(bad_input): a Parquet eval file (the driver writes its clean file
        from :attr:`ContaminationResult.kept`).
    """
    refuse_parquet(res.eval_format, "clean file")
    text = rows_text(res.eval_header_raw, res.eval_cr, res.eval_raw, res.kept)
    return res.eval_bom + text if text else text


def report_columns(res: ContaminationResult) -> list[str]:
    """``contamination-report.csv``'s header: REPORT_COLUMNS, ``rung``, and the semantic
    rung's columns when it ran."""
    return REPORT_COLUMNS + RUNG_COLUMNS + (SEMANTIC_COLUMNS if res.semantic else [])


def report_csv(res: ContaminationResult) -> str:
    """``contamination-report.csv``: one row per eval row that was scored or that a rung
    caught (columns :func:`report_columns`). ``status`` is the ladder's
    (:mod:`evalsieve.verdict`); a caught row with no n-gram (an exact copy too short to
    score) has an empty containment, 0 of 0 n-grams and the exact copy as its training
    record; it is listed in too-short-to-score.csv as well."""
    records = res.training_records()
    rows = (
        [
            r.eval_row,
            r.status,
            fmt_float(r.containment),
            r.ngrams_matched,
            r.ngrams_total,
            r.ngrams_boilerplate,
            r.words,
            records[i][0],
            records[i][1],
            res.training_id(i),
            r.shared_passage,
            r.excerpt,
        ]
        + _rung_cells(res, i)
        for i, r in enumerate(res.scores)
        if r.scored or r.rung
    )
    return write_csv(res.run_stamp, report_columns(res), rows)


def _rung_cells(res: ContaminationResult, i: int) -> list:
    cells = [res.rungs[i]]
    if res.semantic is not None:
        m = res.semantic[i]
        cells += [
            fmt_float(m.score),
            fmt_float(m.cosine),
            fmt_float(m.lexical),
            fmt_float(m.numbers),
            fmt_float(m.code),
            fmt_float(m.docstring_cosine),
            fmt_float(m.rival),
            fmt_float(m.code_runner_up),
            _part(m.part),
            (m.training_file or res.train_name) if m.training_record else "",
            m.training_record or "",
            m.window,
        ]
    return cells


def too_short_csv(res: ContaminationResult) -> str:
    """``too-short-to-score.csv``: every row the n-gram rung could not score, its word
    count and reason, and the rung that caught it anyway ('' = none: an exact copy too
    short for n-grams says ``exact``, and is contaminated in the report)."""
    rows = (
        [r.eval_row, r.words, res.n, _REASONS[r.ngram_status], res.rungs[i]]
        for i, r in enumerate(res.scores)
        if not r.scored
    )
    return write_csv(res.run_stamp, TOO_SHORT_COLUMNS + RUNG_COLUMNS, rows)


def _part(part: int | None) -> str:
    """The ``semantic_part`` cell: ``row`` (the whole row matched), ``value K`` (its K-th
    field value alone), or "" (no candidate)."""
    return "" if part is None else "row" if part == 0 else f"value {part}"
