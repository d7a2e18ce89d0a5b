"""A training record's own id: which field holds it, and its text.

A flagged eval row names its first matching training record by (file, record number); with
an id-like field the report also gives the record's own id (``training_id``), so a person can
find it in their own tools. The field is chosen by the user (the page's field picker, the
CLI's ``--train-id-field``) or defaulted by name with :func:`default_id_field`.
"""

from __future__ import annotations

import json

from .fields import FieldExtractor

#: Field names taken as a record id, in order of preference (compared lowercase, on the
#: path's last step). After these, a top-level field whose name ends in ``_id`` or ``id``.
ID_NAMES = (
    "id",
    "_id",
    "uid",
    "uuid",
    "guid",
    "doc_id",
    "docid",
    "document_id",
    "task_id",
    "question_id",
    "qid",
    "example_id",
    "sample_id",
    "unique_id",
    "record_id",
    "idx",
    "key",
)
#: Longest id text kept (a longer value is clipped with "…").
ID_CHARS = 200


def _leaf(path: str) -> str:
    return path.rsplit(".", 1)[-1].lower()


def default_id_field(fields) -> str | None:
    """The id field of a file by the names of its fields, or None.

    Args:
        fields: the file's field paths in file order, as strings or as dicts/objects with a
            ``path`` (and optionally ``fill``: share of sampled records that have it; a field
            that no sampled record fills is never chosen, nor an element-filter path).
    Returns:
        Rule: the first of :data:`ID_NAMES` that is a top-level field; else that is the
        last step of any plain path (shortest path first); else the first top-level field
        whose name ends in ``_id`` or ``id`` (``problem_id``, ``uniqueid``); else None.
        Example: ``["question", "answer", "task_id"]`` -> ``"task_id"``.
    """
    paths = []
    for f in fields:
        path = (
            f
            if isinstance(f, str)
            else (f.get("path") if isinstance(f, dict) else getattr(f, "path", None))
        )
        fill = (
            1
            if isinstance(f, str)
            else (f.get("fill", 1) if isinstance(f, dict) else getattr(f, "fill", 1))
        )
        if path and fill and "[" not in path:
            paths.append(path)
    top = [p for p in paths if "." not in p]
    for name in ID_NAMES:
        for p in top:
            if p.lower() == name:
                return p
    for name in ID_NAMES:
        for p in sorted(paths, key=lambda p: p.count(".")):
            if _leaf(p) == name:
                return p
    for p in top:
        low = p.lower()
        if low.endswith("_id") or (low.endswith("id") and len(low) > 2):
            return p
    return None


def has_id_field(paths, path: str) -> bool:
    """Whether a file whose description lists the field ``paths`` has the id field ``path``:
    a listed path, or the object or list a listed path is inside (``meta`` for
    ``meta.src``, ``tags`` for ``tags[]``: such an id is its JSON text)."""
    return any(p == path or p.startswith((path + ".", path + "[")) for p in paths)


class IdReader:
    """The id text of records of one file.

    Args:
        fmt: the file's format; path: the id field's path, or None / "" (no id: every
            record's id is "").
        name: the file's name (for errors).
    """

    def __init__(self, fmt: str, path: str | None, name: str = "input"):
        self.path = path or None
        self._seg = FieldExtractor(fmt, [path], name).segments if path else None

    def __call__(self, value) -> str:
        """The record's id: its value at the path (several values joined with " | ";
        numbers, booleans, objects and lists as their JSON text, non-ASCII as written),
        clipped to :data:`ID_CHARS`; "" when absent, null or empty."""
        if self._seg is None or not isinstance(value, dict):
            return ""
        t = " | ".join(self._seg(value, id_text))
        return t if len(t) <= ID_CHARS else t[: ID_CHARS - 1] + "…"


def id_text(v) -> str | None:
    """One value at the id path as text: a string as it is; null, "", {} and [] as none;
    anything else (a number, a boolean, an object or list: a Parquet struct or list, a JSON
    object) as its JSON text, so an object id is the record's id rather than no id."""
    if v is None or v == "" or v == {} or v == []:
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)
