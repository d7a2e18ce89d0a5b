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
    """A finished contamination run.

    Attributes:
        summary: the CLI's ``--json`` summary (dict).
        stamp: the run stamp (``summary["stamp"]``).
        exports: export name -> text (bytes for a Parquet ``eval.clean.parquet``), in the
            order the CLI writes them.
        kept: 0-based positions of the eval rows the clean export keeps.
        clean_name: the clean export's name (``eval.clean.jsonl``, ...).
        scores: per eval row, the n-gram rung's ``ngrams.RowScore`` (status, containment,
            n-grams matched / total, first training file and record, shared passage).
        rungs: per eval row, the first rung that caught it (``"exact"``, ``"ngram"``,
            ``"semantic"``) or ``""`` (``ladder.assign_rungs``).
        semantic: per eval row, the semantic rung's ``semantic.SemanticMatch``, or None when
            the rung did not run.
    """

    summary: dict
    stamp: dict
    exports: types.MappingProxyType
    kept: tuple
    clean_name: str
    scores: tuple = ()
    rungs: tuple = ()
    semantic: tuple | None = None
    source: object = field(default=None, repr=False)        # the eval input
    source_rows: list | None = field(default=None, repr=False)   # its rows, when in memory
    source_kind: str = "path"

    def __post_init__(self):
        object.__setattr__(self, "exports", types.MappingProxyType(dict(self.exports)))

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
            raise ValueError("clean(eval) takes the rows themselves; for the file, use "
                             "clean_rows() or write()")
        rows = records_of(eval, kind) if kind == "rows" else None
        n = len(rows) if rows is not None else len(eval)
        if n != self.summary["rows_scanned"]:
            raise ValueError(f"eval has {n} rows; the run read {self.summary['rows_scanned']}")
        return select_rows(eval, kind, rows, list(self.kept))

    def write(self, out_dir: str) -> None:
        """Write every export to ``out_dir`` (the CLI's files and bytes), or none (as the
        CLI: :func:`_write`)."""
        _write(out_dir, self.exports, "contamination")


@dataclass(frozen=True)
class ParaphraseResult:
    """A finished paraphrase run.

    Attributes:
        summary: the CLI's ``--json`` summary; stamp: ``summary["stamp"]``;
        exports: export name -> text (``paraphrase-pairs.csv``, ``paraphrase-groups.csv``,
            ...; bytes for a Parquet ``eval.deduplicated.parquet``).
    """

    summary: dict
    stamp: dict
    exports: types.MappingProxyType

    def __post_init__(self):
        object.__setattr__(self, "exports", types.MappingProxyType(dict(self.exports)))

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
