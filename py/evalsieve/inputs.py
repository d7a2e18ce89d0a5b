"""The API's inputs as files the drivers read: paths as they are, in-memory tables as JSON
Lines.

Kinds, told apart by what the object has (no library is imported to look):

* a ``str`` or ``os.PathLike``, or a list/tuple of them: paths (files, folders, globs);
* ``pandas``: has ``iloc`` and ``to_dict``;  ``polars``: has ``to_dicts``;
* ``arrow``: a pyarrow Table (``to_pylist`` and ``take``);
* ``hf``: a Hugging Face ``Dataset`` (``select`` and ``to_pandas``; iterating gives dicts);
* ``rows``: anything else iterable whose items are mappings (an ``IterableDataset`` too).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import os
from collections.abc import Mapping

__all__ = ["input_paths", "kind_of", "records_of", "select_rows"]


def kind_of(obj) -> str:
    """``path``, ``pandas``, ``polars``, ``arrow``, ``hf`` or ``rows`` (see the module
    docstring)."""
    if isinstance(obj, (str, os.PathLike)) or (
        isinstance(obj, (list, tuple))
        and obj
        and all(isinstance(x, (str, os.PathLike)) for x in obj)
    ):
        return "path"
    if hasattr(obj, "iloc") and hasattr(obj, "to_dict"):
        return "pandas"
    if hasattr(obj, "to_dicts"):
        return "polars"
    if hasattr(obj, "to_pylist") and hasattr(obj, "take"):
        return "arrow"
    if hasattr(obj, "select") and hasattr(obj, "to_pandas"):
        return "hf"
    return "rows"


def records_of(obj, kind: str) -> list[dict]:
    """The rows of an in-memory input, as dicts, in order.

    Raises:
        TypeError: not iterable, or an item is not a mapping (names its position).
    """
    if kind == "pandas":
        rows = obj.to_dict(orient="records")
    elif kind == "polars":
        rows = obj.to_dicts()
    elif kind == "arrow":
        rows = obj.to_pylist()
    else:
        try:
            rows = list(obj)
        except TypeError:
            raise TypeError(
                f"an input is a path, a DataFrame, a pyarrow Table, a Hugging "
                f"Face Dataset or an iterable of dicts, not "
                f"{type(obj).__name__}"
            ) from None
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise TypeError(
                f"row {i} of the input is a {type(r).__name__}, not a dict "
                "(a mapping of field names to values)"
            )
    return [dict(r) for r in rows]


def _plain(v):
    """A JSON value for a cell: numpy scalars and arrays, dates, decimals; NaN and the
    pandas missing values are null.

    Raises:
        TypeError: a value JSON cannot hold (bytes, an image, ...), named by type.
    """
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if type(v).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(v, "tolist"):  # numpy scalar or array
        return _plain(v.tolist())
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    raise TypeError(
        f"a cell of type {type(v).__name__} has no JSON form "
        "(give the text columns only, or convert it to str)"
    )


def input_paths(obj, role: str, tmp: str) -> tuple[list[str], list[dict] | None]:
    """``(paths, rows)``: the paths to read, and for an in-memory input its rows (written
    to ``tmp/<role>.jsonl``, one JSON object per line, UTF-8), else None.

    Raises:
        TypeError: as :func:`records_of`, :func:`_plain`.
    """
    kind = kind_of(obj)
    if kind == "path":
        items = [obj] if isinstance(obj, (str, os.PathLike)) else list(obj)
        return [os.fspath(p) for p in items], None
    rows = records_of(obj, kind)
    path = os.path.join(tmp, f"{role}.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(_plain(r), ensure_ascii=False) + "\n")
    return [path], rows


def select_rows(obj, kind: str, rows: list[dict] | None, kept: list[int]):
    """The rows at the 0-based positions ``kept`` in ``obj``'s own type: a DataFrame's
    rows (pandas keeps its index), a Table's, a ``Dataset.select``; an ``IterableDataset``
    filtered by position; else a list of the row dicts."""
    if kind == "pandas":
        return obj.iloc[kept]
    if kind == "polars":
        return obj[kept] if kept else obj.clear()
    if kind == "arrow":
        return obj.take(kept)
    if kind == "hf":
        return obj.select(kept)
    if hasattr(obj, "filter") and hasattr(obj, "features"):  # an IterableDataset
        keep = set(kept)
        return obj.filter(lambda _row, i: i in keep, with_indices=True)
    rows = rows if rows is not None else records_of(obj, kind)
    return [rows[i] for i in kept]
