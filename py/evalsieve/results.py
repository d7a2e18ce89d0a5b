"""What a run gives back in Python: the summary, the stamp, the exports, and views of them.

A result is frozen: its exports are the texts the CLI writes (the Parquet clean file as
bytes), and every view (``rows``, ``to_pandas()``, ``clean_rows()``) is a function of them
and of the kept row positions.
"""

from __future__ import annotations

import csv
import io
import types
from dataclasses import dataclass, field

from .verdict import kept_positions, leaves_clean, report_records

__all__ = ["ContaminationResult", "ParaphraseResult", "csv_rows"]


def csv_rows(text: str) -> list[dict]:
    """The rows of a CSV export as dicts of strings (the cells as written)."""
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _write(out_dir: str, exports, job: str) -> None:
    """Every export and, with pyarrow, the reports' Parquet versions, as the CLI writes them
    (:class:`outdir.OutDir`: the folder checked first, every export or none, an earlier
    run's stale exports of the same job removed, another job's folder refused).

    Raises:
        EvalsieveError: ``environment`` (the folder cannot be made or written, disk full),
        ``bad_input`` (it holds another job's exports).
    """
    from .outdir import OutDir
    from .run_io import parquet_reports

    def writer(data: bytes):
        def write(path: str) -> None:
            with open(path, "wb") as f:
                f.write(data)

        return write

    out = OutDir(out_dir, job).prepare()
    files = {k: writer(v) if isinstance(v, bytes) else v for k, v in exports.items()}
    try:
        out.write({**files, **parquet_reports(exports, lambda msg: None)})
    except BaseException:
        out.discard()
        raise


def _frame(text: str):
    """A pandas DataFrame of a CSV export (pandas needed)."""
    import pandas as pd

    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


@dataclass(frozen=True)
class ContaminationResult:
    """A finished contamination run: what :meth:`ContaminationJob.finish` returns.

    Every export, the HTML report, the page's view and tables are functions of it
    (:mod:`evalsieve.contamination_exports`, :mod:`evalsieve.contamination_html`,
    :mod:`evalsieve.ladder`, :mod:`evalsieve.cont_table`); it holds no reference to the job.

    Attributes:
        summary: the CLI's ``--json`` summary (dict; the CLI driver adds its timing figures).
        run_stamp: the :class:`evalsieve.stamps.RunStamp` (``stamp`` is its dict).
        config: the run's :class:`ContaminationConfig`.
        eval_name, eval_format: the eval file's; train_name: the last training file's name
            (the name of a file index past ``train_names``).
        train_names: the training files' names, by corpus index.
        n: the n-gram size; cutoff: the boilerplate cut-off in training records (0 = off).
        scores: per eval row, the n-gram rung's ``ngrams.RowScore`` (with the ladder's
            ``status`` and ``rung``).
        caught: per eval row, every rung that caught it (``verdict.caught_rungs``).
        rungs: per eval row, the first rung that caught it (``"exact"``, ``"ngram"``,
            ``"semantic"``) or ``""``.
        semantic: per eval row, the semantic rung's ``semantic.SemanticMatch``, or None when
            the rung did not run.
        eval_segments: per row, its chosen fields' values; eval_numbers: its 1-based record
            number; eval_raw: its own text (line ending included; "" for Parquet rows).
        eval_header_raw, eval_cr, eval_bom: the eval file's header line (CSV/TSV), lone-CR
            line ends, byte-order mark (``eval.clean.*`` is the input's own bytes).
        exact: row (0-based) -> (training file index, record), the exact rung's first copies.
        sources: (file index, record) -> [byte offset, bytes, id] of first-matching records.
        train_meta: file index -> (name, format, fields, CSV/TSV header or None).
        skipped: ``(file, line, error)`` of every skipped record (skipped-lines.csv's rows).
        score_run: the ``scores.ScoreRun`` joined to the rows (figures set), or None.
        ngrams, row_ngram_ids, ngram_found: the eval n-grams, each row's n-gram ids and per
            n-gram the training records holding it (the page's marks of a training record).
        files: exports written outside the result (a Parquet eval file's clean file as bytes,
            set by the API); source, source_rows, source_kind: the API's eval input.
    """

    summary: dict
    run_stamp: object
    config: object
    eval_name: str
    eval_format: str
    train_name: str
    train_names: tuple
    n: int
    cutoff: int
    scores: tuple
    caught: tuple
    rungs: tuple
    semantic: tuple | None
    eval_segments: tuple
    eval_numbers: tuple
    eval_raw: tuple
    eval_header_raw: str | None = None
    eval_cr: bool = False
    eval_bom: str = ""
    exact: types.MappingProxyType = field(default_factory=dict, repr=False)
    sources: types.MappingProxyType = field(default_factory=dict, repr=False)
    train_meta: types.MappingProxyType = field(default_factory=dict, repr=False)
    skipped: tuple = ()
    score_run: object = field(default=None, repr=False)
    ngrams: tuple = field(default=(), repr=False)
    row_ngram_ids: tuple = field(default=(), repr=False)
    ngram_found: object = field(default=(), repr=False)
    files: types.MappingProxyType = field(default_factory=dict, repr=False)
    source: object = field(default=None, repr=False)  # the eval input
    source_rows: list | None = field(default=None, repr=False)  # its rows, when in memory
    source_kind: str = "path"
    cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # views

    def __post_init__(self):
        for name in ("exact", "sources", "train_meta", "files"):
            object.__setattr__(self, name, types.MappingProxyType(dict(getattr(self, name))))

    # -- the rows, as every export reads them ----------------------------------------------
    @property
    def stamp(self) -> dict:
        """The run stamp as JSON values (``summary["stamp"]``)."""
        return self.summary["stamp"]

    def excluded(self, i: int) -> bool:
        """Row ``i`` (0-based) leaves the clean file: a rung of ``config.excluded`` caught it."""
        return leaves_clean(self.caught[i], self.config.excluded)

    @property
    def kept(self) -> tuple:
        """0-based positions of the eval rows ``eval.clean.*`` keeps, ascending."""
        if "kept" not in self.cache:
            self.cache["kept"] = tuple(
                kept_positions(
                    self.caught,
                    [r.scored for r in self.scores],
                    self.config.excluded,
                    self.config.clean,
                )
            )
        return self.cache["kept"]

    @property
    def clean_name(self) -> str:
        """``eval.clean.jsonl``, or ``.csv``/``.tsv``/``.txt``/``.parquet`` after the eval
        file's format (``csv-semicolon`` is ``.csv``)."""
        return clean_name(self.eval_format)

    def file_name(self, f: int) -> str:
        """The name of training file ``f`` (0-based)."""
        return self.train_names[f] if f < len(self.train_names) else self.train_name

    @property
    def exact_record(self) -> list[int]:
        """Per eval row, the 1-based training record (in its file, :attr:`exact_file`) whose
        normalised words equal the row's (the exact rung; 0 = none)."""
        ex = self.exact
        return [ex[i][1] if i in ex else 0 for i in range(len(self.scores))]

    @property
    def exact_file(self) -> list[str]:
        """Per eval row, the training file of :attr:`exact_record` ('' = none)."""
        ex = self.exact
        return [self.file_name(ex[i][0]) if i in ex else "" for i in range(len(self.scores))]

    def training_records(self) -> list[tuple[str, int | str]]:
        """Per row, the report's ``(training_file, training_record)`` (verdict.report_records)."""
        if "records" not in self.cache:
            self.cache["records"] = report_records(
                self.scores, self.exact, list(self.train_names), self.train_name
            )
        return self.cache["records"]

    def training_id(self, i: int) -> str:
        """Row ``i``'s (0-based) training record's own id (``training_id``; "" = none): of the
        record :meth:`training_records` names (the n-gram rung's first match, else the exact
        copy)."""
        from .ngrams import source_id

        r = self.scores[i]
        if r.training_record:
            return r.training_id
        at = self.exact.get(i)
        return source_id(self.sources.get(at)) if at else ""

    def source_of(self, file: int, record: int) -> list:
        """The source of training record ``record`` (1-based) of file ``file`` (0-based):
        ``[offset, bytes, id]`` (``[-1, 0, ""]`` when unknown: not a first match)."""
        src = self.sources.get((file, record))
        return list(src) if src else [-1, 0, ""]

    def eval_text(self, i: int) -> str:
        """Row ``i``'s (0-based) chosen fields' values, joined with a newline: the eval text
        the page and the report show beside the training excerpt."""
        return "\n".join(self.eval_segments[i])

    def eval_text_marks(self, i: int) -> dict:
        """Row i's (0-based) own text and where it holds its shared passage, for the page.

        Returns:
            ``{eval_text: the chosen fields' values joined with a newline, eval_marks:
            [[start, end], ...] in UTF-16 code units (highlight.passage_spans; [] when the
            row shares no n-gram)}``.
        """
        from .highlight import passage_spans

        return {
            "eval_text": self.eval_text(i),
            "eval_marks": passage_spans(list(self.eval_segments[i]), self.scores[i].shared_passage),
        }

    def contaminated(self) -> list:
        """``(position, score)`` of every contaminated row (caught by any rung), in eval-file
        order (ascending ``eval_row``): the page's order and overlap-report.html's."""
        return [(i, r) for i, r in enumerate(self.scores) if r.status == "contaminated"]

    # -- the API's views ---------------------------------------------------------------------
    @property
    def exports(self) -> types.MappingProxyType:
        """Export name -> text (bytes for a Parquet clean file, from :attr:`files`), in the
        order the CLI writes them (:func:`contamination_exports.export_names`)."""
        if "exports" not in self.cache:
            from .contamination_exports import export, export_names

            self.cache["exports"] = types.MappingProxyType(
                {
                    k: self.files[k] if k in self.files else export(self, k)[1]
                    for k in export_names(self)
                }
            )
        return self.cache["exports"]

    @property
    def rows(self) -> list[dict]:
        """``contamination-report.csv``: one dict per eval row (strings, as written)."""
        return csv_rows(self.exports["contamination-report.csv"])

    def to_pandas(self, name: str = "contamination-report.csv"):
        """An export (default the per-row report) as a pandas DataFrame."""
        return _frame(self.exports[name])

    def to_arrow(self, name: str = "contamination-report.csv"):
        """An export as a pyarrow Table (pyarrow needed)."""
        import pyarrow as pa

        return pa.Table.from_pandas(self.to_pandas(name), preserve_index=False)

    def clean_rows(self):
        """The kept eval rows in the eval input's own type (a DataFrame for a DataFrame,
        a ``Dataset`` for a ``Dataset``, a list of dicts for dicts); for a path, the clean
        export itself (text, or bytes for Parquet)."""
        if self.source_kind == "path":
            return self.exports[self.clean_name]
        from .inputs import select_rows

        return select_rows(self.source, self.source_kind, self.source_rows, list(self.kept))

    def clean(self, eval):
        """The kept rows of ``eval`` (the eval set, or any table row-aligned with it, e.g.
        with more columns) in its own type.

        Raises:
            ValueError: ``eval`` has another row count than the run's eval set.
        """
        from .inputs import kind_of, records_of, select_rows

        kind = kind_of(eval)
        if kind == "path":
            raise ValueError(
                "clean(eval) takes the rows themselves; for the file, use clean_rows() or write()"
            )
        rows = records_of(eval, kind) if kind == "rows" else None
        n = len(rows) if rows is not None else len(eval)
        if n != self.summary["rows_scanned"]:
            raise ValueError(f"eval has {n} rows; the run read {self.summary['rows_scanned']}")
        return select_rows(eval, kind, rows, list(self.kept))

    def write(self, out_dir: str) -> None:
        """Write every export to ``out_dir`` (the CLI's files and bytes), or none (as the
        CLI: :func:`_write`)."""
        _write(out_dir, self.exports, "contamination")


def clean_name(fmt: str) -> str:
    """The clean export's name after the eval file's format (constants.CLEAN_NAME_BY_FORMAT)."""
    from . import constants
    from .records import split_format

    base = "parquet" if fmt == "parquet" else split_format(fmt)[0]
    return constants.CLEAN_NAME_BY_FORMAT[base]


@dataclass(frozen=True)
class ParaphraseResult:
    """A finished paraphrase run at one threshold: what :meth:`ParaphraseJob.finish` returns.

    Every export (:mod:`evalsieve.para_exports`) is a function of it; it holds no reference
    to the job.

    Attributes:
        summary: the CLI's ``--json`` summary (dict); run_stamp: the
            :class:`evalsieve.stamps.RunStamp` (``stamp`` is its dict).
        config: the run's ``ParaphraseConfig``; eval_name, eval_format: the eval file's.
        threshold: the cosine the groups are cut at; keep: the row each group keeps in
            ``eval.deduplicated.*`` (a key of ``constants.DEDUP_KEEP_RULES``).
        grouping: the ``grouping.Grouping`` at ``threshold`` (every group's details computed).
        node_rows: per embedded node, its 1-based eval record number; texts, labels: its text and
            label ("" when no label field: ``labels`` is empty).
        raw, raw_rows: every record's own text and 1-based number (empty rows too);
            header_raw, cr, bom: the eval file's header line, lone-CR line ends, byte-order
            mark (``eval.deduplicated.*`` is the input's own bytes).
        skipped: ``(line, error)`` of the eval file's skipped records.
        score_run, score_figures: the joined ``scores.ScoreRun`` and its per-metric figures
            at ``threshold`` (None and () without scores).
        kept: 0-based positions of the records ``eval.deduplicated.*`` keeps, ascending;
            dropped: the rows it leaves out (``dedup.dropped_rows``).
        files: exports written outside the result (a Parquet eval file's deduplicated file
            as bytes, set by the API).
    """

    summary: dict
    run_stamp: object
    config: object
    eval_name: str
    eval_format: str
    threshold: float
    keep: str
    grouping: object = field(repr=False)
    node_rows: tuple = field(default=(), repr=False)
    texts: tuple = field(default=(), repr=False)
    labels: tuple = field(default=(), repr=False)
    raw: tuple = field(default=(), repr=False)
    raw_rows: tuple = field(default=(), repr=False)
    header_raw: str | None = None
    cr: bool = False
    bom: str = ""
    skipped: tuple = ()
    score_run: object = field(default=None, repr=False)
    score_figures: tuple = ()
    kept: tuple = ()
    dropped: tuple = field(default=(), repr=False)
    files: types.MappingProxyType = field(default_factory=dict, repr=False)
    cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "files", types.MappingProxyType(dict(self.files)))

    @property
    def stamp(self) -> dict:
        """The run stamp as JSON values (``summary["stamp"]``)."""
        return self.summary["stamp"]

    @property
    def dedup_name(self) -> str:
        """``eval.deduplicated.<ext>`` after the eval file's format."""
        from .dedup import dedup_name

        return dedup_name(self.eval_format)

    def label_of(self, node: int) -> str:
        """Node ``node``'s label ("" without a label field)."""
        return self.labels[node] if self.labels else ""

    @property
    def exports(self) -> types.MappingProxyType:
        """Export name -> text (``paraphrase-pairs.csv``, ``paraphrase-groups.csv``, ...;
        bytes for a Parquet deduplicated file, from :attr:`files`), in the CLI's order."""
        if "exports" not in self.cache:
            from .para_exports import export, export_names

            self.cache["exports"] = types.MappingProxyType(
                {
                    k: self.files[k] if k in self.files else export(self, k)[1]
                    for k in export_names(self)
                }
            )
        return self.cache["exports"]

    @property
    def rows(self) -> list[dict]:
        """``paraphrase-groups.csv``: one dict per group (strings, as written)."""
        return csv_rows(self.exports["paraphrase-groups.csv"])

    @property
    def pairs(self) -> list[dict]:
        """``paraphrase-pairs.csv``: one dict per pair above the threshold."""
        return csv_rows(self.exports["paraphrase-pairs.csv"])

    def to_pandas(self, name: str = "paraphrase-groups.csv"):
        """An export (default the groups) as a pandas DataFrame."""
        return _frame(self.exports[name])

    def write(self, out_dir: str) -> None:
        """Write every export to ``out_dir`` (the CLI's files and bytes), or none (as the
        CLI: :func:`_write`)."""
        _write(out_dir, self.exports, "paraphrases")
