"""Parquet for the CLI: read with pyarrow in record batches (never the whole file), field
paths from the schema, and the clean export with the input's schema.

pyarrow is an optional extra (``pip install 'evalsieve[parquet]'``), imported lazily: the
core package stays standard library only. The page reads Parquet with hyparquet in the
worker (worker/parquet.js) and feeds the values through bridge.py.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import os

from .errors import bad_input, environment

#: Rows per record batch read from the file (a row group is read in slices of this size).
BATCH_ROWS = 8192


def _pa(name: str):
    """``(pyarrow, pyarrow.parquet)``, or a clear error naming how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise environment(
            "this is a Parquet file, and reading Parquet needs pyarrow, which is not installed",
            file=name,
            expected="pip install 'evalsieve[parquet]' (or convert the file to JSON Lines)",
        ) from None
    return pyarrow, pyarrow.parquet


def schema_paths(schema) -> list[str]:
    """Every leaf field path of an Arrow schema, in schema order.

    Structs become dotted paths, lists ``[]`` (a list of structs ``messages[].content``),
    maps ``[].key`` and ``[].value`` (their entries are read as ``{"key", "value"}``).

    Example: ``id: int64, messages: list<struct<role: string, content: string>>`` gives
    ``["id", "messages[].role", "messages[].content"]``.
    """
    import pyarrow.types as t

    def walk(typ, prefix):
        if t.is_struct(typ):
            for i in range(typ.num_fields):
                f = typ.field(i)
                yield from walk(f.type, f"{prefix}.{f.name}" if prefix else f.name)
        elif t.is_map(typ):
            yield from walk(typ.key_type, prefix + "[].key")
            yield from walk(typ.item_type, prefix + "[].value")
        elif (
            t.is_list(typ)
            or t.is_large_list(typ)
            or t.is_fixed_size_list(typ)
            or (hasattr(t, "is_list_view") and (t.is_list_view(typ) or t.is_large_list_view(typ)))
        ):
            yield from walk(typ.value_type, prefix + "[]")
        else:
            yield prefix

    out = []
    for f in schema:
        out.extend(walk(f.type, f.name))
    return out


def plain(v):
    """A pyarrow Python value as a JSON value: strings, numbers, booleans and None as they
    are; structs as dicts; lists as lists; map entries ``(k, v)`` as ``{"key", "value"}``;
    dates, times and decimals as their ISO/decimal text; bytes as UTF-8 text when they are
    valid UTF-8, else ``base64:...`` (not words)."""
    if v is None or isinstance(v, (str, bool, int)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else None
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, tuple) and len(v) == 2:
        return {"key": plain(v[0]), "value": plain(v[1])}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (bytes, bytearray, memoryview)):
        b = bytes(v)
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(b).decode("ascii")
    if isinstance(v, (datetime.date, datetime.time, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, (decimal.Decimal, datetime.timedelta)):
        return str(v)
    return str(v)


class ParquetSource:
    """One Parquet input file, read in record batches.

    Args:
        path: the file's path.
    Raises:
        EvalsieveError: ``environment`` when pyarrow is missing (an extra, exit 3);
        ``bad_input`` when it is not a readable Parquet file (the file and pyarrow's reason
        named).
    """

    def __init__(self, path: str):
        self.path = path
        self.name = os.path.basename(path)
        pa, pq = _pa(self.name)
        try:
            self.file = pq.ParquetFile(path)
            self.schema = self.file.schema_arrow
        except Exception as e:  # pyarrow.ArrowInvalid, OSError, ...
            raise bad_input(
                f"not a readable Parquet file ({type(e).__name__}: {e})",
                file=self.name,
                expected="a valid Parquet file (written by pyarrow, "
                "pandas, Spark, DuckDB, Hugging Face datasets ...)",
            ) from None
        self.rows = self.file.metadata.num_rows
        self.row_groups = self.file.num_row_groups
        self.paths = schema_paths(self.schema)

    def columns_for(self, paths: list[str]) -> list[str]:
        """The top-level columns that hold ``paths`` (only these are read)."""
        tops = {f.name for f in self.schema}
        out = []
        for p in paths:
            top = p.split(".")[0].split("[")[0]
            if top in tops and top not in out:
                out.append(top)
        return out

    def values(self, columns: list[str] | None = None, limit: int | None = None):
        """Yield lists of row values (JSON-like dicts), one list per record batch, in file
        order; at most ``limit`` rows in all.

        Raises:
            EvalsieveError(bad_input): a corrupt row group (the file and reason named).
        """
        seen = 0
        try:
            for batch in self.file.iter_batches(batch_size=BATCH_ROWS, columns=columns):
                rows = [plain(r) for r in batch.to_pylist()]
                if limit is not None and seen + len(rows) > limit:
                    rows = rows[: limit - seen]
                seen += len(rows)
                yield rows
                if limit is not None and seen >= limit:
                    return
        except Exception as e:
            if getattr(e, "code", None):
                raise
            raise bad_input(
                f"cannot read a row group ({type(e).__name__}: {e})",
                file=self.name,
                expected="a valid Parquet file",
            ) from None

    def write_rows(self, out_path: str, keep: list[int]) -> int:
        """Write the rows at 0-based positions ``keep`` (ascending) to a new Parquet file
        with this file's schema (and its metadata), batch by batch. Returns rows written."""
        pa, pq = _pa(self.name)
        want = iter(keep)
        nxt = next(want, None)
        written = 0
        start = 0
        with pq.ParquetWriter(out_path, self.schema) as w:
            for batch in self.file.iter_batches(batch_size=BATCH_ROWS):
                take = []
                while nxt is not None and nxt < start + batch.num_rows:
                    take.append(nxt - start)
                    nxt = next(want, None)
                if take:
                    w.write_table(
                        pa.Table.from_batches(
                            [batch.take(pa.array(take, pa.int64()))], schema=self.schema
                        )
                    )
                    written += len(take)
                start += batch.num_rows
            if written == 0:
                w.write_table(self.schema.empty_table())
        return written


# -- the reports as Parquet (the CLI writes them beside the CSVs when pyarrow is installed) --
#: Report columns whose cells are numbers printed at a fixed precision (exports.fmt_float,
#: the paraphrase cosines): float64 in the Parquet versions. Every other column's type
#: follows its values: all integers int64, all numbers float64, all booleans bool (an
#: empty cell is null there), else text as written before the CSV's formula guard.
FLOAT_COLUMNS = frozenset(
    {
        "containment",
        "cosine",
        "lowest_internal_cosine",
        "semantic_score",
        "semantic_cosine",
        "semantic_lexical",
        "semantic_numbers",
        "semantic_code",
        "semantic_docstring_cosine",
        "semantic_rival",
        "semantic_code_runner_up",
    }
)
#: Key-value metadata keys of a Parquet report: the stamp (canonical JSON, as in
#: run-stamp.json) and its fingerprint.
STAMP_KEY, FINGERPRINT_KEY = b"evalsieve.run_stamp", b"evalsieve.run_fingerprint"


def have_pyarrow() -> bool:
    """Is pyarrow importable (the Parquet reports are written only then)?"""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def _column(pa, name: str, values: list):
    """One report column as a pyarrow array (types: see FLOAT_COLUMNS)."""
    given = [v for v in values if v is not None and v != ""]
    if name in FLOAT_COLUMNS:
        return pa.array([None if v is None or v == "" else float(v) for v in values], pa.float64())
    if given and all(isinstance(v, bool) for v in given):
        typ = pa.bool_()
    elif given and all(isinstance(v, int) and not isinstance(v, bool) for v in given):
        typ = pa.int64()
    elif given and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in given):
        typ = pa.float64()
    else:
        return pa.array([None if v is None else str(v) for v in values], pa.string())
    return pa.array([None if v is None or v == "" else v for v in values], typ)


def write_report(path: str, export, stamp: dict) -> int:
    """Write a CSV export's rows as a Parquet file with the run stamp in its key-value
    metadata (``evalsieve.run_stamp``: canonical JSON; ``evalsieve.run_fingerprint``).

    Args:
        path: the file to write.
        export: an :class:`evalsieve.exports.CsvExport` (its ``header`` and raw ``rows``).
        stamp: the run stamp as a dict (:meth:`RunStamp.to_dict`, run-stamp.json).
    Returns:
        Rows written (the CSV's row count).
    Raises:
        ValueError: the stamp's fingerprint is not the export's.
    """
    from .stamps import canonical_json

    pa, pq = _pa(os.path.basename(path))
    if stamp.get("fingerprint") != export.fingerprint:
        raise ValueError("the stamp is not the export's run")
    names = export.header[:-1]
    cols = [_column(pa, n, [r[k] for r in export.rows]) for k, n in enumerate(names)]
    cols.append(pa.array([export.fingerprint] * len(export.rows), pa.string()))
    table = pa.table(cols, names=export.header).replace_schema_metadata(
        {
            STAMP_KEY: canonical_json(stamp).encode("utf-8"),
            FINGERPRINT_KEY: export.fingerprint.encode("ascii"),
        }
    )
    pq.write_table(table, path)
    return len(export.rows)


def report_name(csv_name: str) -> str:
    """The Parquet version's name of a CSV report: ``contamination-report.csv`` ->
    ``contamination-report.parquet``."""
    return csv_name[:-4] + ".parquet"


def report_writers(exports: dict, stamp: dict) -> dict:
    """``{"contamination-report.parquet": writer, ...}``: one Parquet writer for every CSV
    export in ``exports`` (``{name: text}``; an ``eval.clean.csv`` is the input's own bytes,
    not a report, and gets none). Each writer takes the path to write (as
    ``outdir.OutDir.write`` expects)."""
    from .exports import CsvExport

    out = {}
    for name, text in exports.items():
        if isinstance(text, CsvExport) and name.endswith(".csv"):
            out[report_name(name)] = lambda path, t=text: write_report(path, t, stamp)
    return out
