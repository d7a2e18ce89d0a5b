"""Arrow IPC files for the CLI: the shards of a Hugging Face ``datasets`` cache and of a
``save_to_disk`` folder (``data-00000-of-00001.arrow``, ``gsm8k-train.arrow``).

``datasets`` writes its tables as Arrow IPC *streams* (they start with the continuation
marker ``FF FF FF FF``); Feather v2 / the IPC *file* format starts with ``ARROW1``. Both are
read with pyarrow, the Parquet extra (``pip install 'evalsieve[parquet]'``), imported lazily,
and memory-mapped: a shard is not copied into memory. The rows go through the same path as a
Parquet file's (the format ``parquet`` in the jobs means "rows as values read by pyarrow";
the log and the run stamp say ``arrow``). The page does not read Arrow.
"""

from __future__ import annotations

import os

from .errors import bad_input
from .parquet_io import BATCH_ROWS, plain, schema_paths

#: The first bytes of an Arrow IPC file (Feather v2) and of an IPC stream (its first
#: message's continuation marker, as pyarrow >= 0.15 and ``datasets`` write it).
ARROW_FILE_MAGIC = b"ARROW1"
ARROW_STREAM_MAGIC = b"\xff\xff\xff\xff"


def is_arrow(head: bytes) -> bool:
    """True when a file's first bytes say it is Arrow IPC (a stream or a file)."""
    return head.startswith(ARROW_FILE_MAGIC) or head.startswith(ARROW_STREAM_MAGIC)


def _pa(name: str):
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401
    except ImportError:
        raise bad_input(
            "this is an Arrow file (the format of a Hugging Face datasets cache "
            "and of save_to_disk), and reading it needs pyarrow, which is not "
            "installed",
            file=name,
            expected="pip install 'evalsieve[parquet]' (or save the dataset as "
            "Parquet or JSON Lines: Dataset.to_parquet / to_json)",
        ) from None
    return pyarrow


class ArrowSource:
    """One Arrow IPC input file, read in record batches (a ``ParquetSource`` stand-in:
    ``paths``, ``rows``, ``row_groups`` (record batches), ``columns_for``, ``values``).

    Args:
        path: the file's path.
    Raises:
        EvalsieveError(bad_input): pyarrow missing, or not a readable Arrow file (the file
        and pyarrow's reason named).
    """

    file_format = "arrow"

    def __init__(self, path: str):
        self.path = path
        self.name = os.path.basename(path)
        pa = _pa(self.name)
        try:
            with open(path, "rb") as f:
                head = f.read(8)
            source = pa.memory_map(path, "r")
            if head.startswith(ARROW_FILE_MAGIC):
                self.table = pa.ipc.open_file(source).read_all()
            else:
                self.table = pa.ipc.open_stream(source).read_all()
        except Exception as e:  # pyarrow.ArrowInvalid, OSError, ...
            raise bad_input(
                f"not a readable Arrow file ({type(e).__name__}: {e})",
                file=self.name,
                expected="an Arrow IPC stream or file (a datasets cache or save_to_disk shard)",
            ) from None
        self.schema = self.table.schema
        self.rows = self.table.num_rows
        self.row_groups = max(1, len(self.table.to_batches()))
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
        """Yield lists of row values (JSON-like dicts), one list per batch of at most
        ``BATCH_ROWS`` rows, in file order; at most ``limit`` rows in all."""
        table = self.table.select(columns) if columns is not None else self.table
        seen = 0
        for batch in table.to_batches(max_chunksize=BATCH_ROWS):
            rows = [plain(r) for r in batch.to_pylist()]
            if limit is not None and seen + len(rows) > limit:
                rows = rows[: limit - seen]
            seen += len(rows)
            yield rows
            if limit is not None and seen >= limit:
                return


def open_columnar(path: str):
    """A ``ParquetSource`` or an :class:`ArrowSource` for a local file, by its magic."""
    with open(path, "rb") as f:
        head = f.read(8)
    if is_arrow(head):
        return ArrowSource(path)
    from .parquet_io import ParquetSource

    return ParquetSource(path)
