"""``eval.deduplicated.*``: the eval file with one row per paraphrase group.

SemHash and text-dedup users expect the deduplicated set itself, not only the pairs. At a
threshold, every row not in a group is kept and each group keeps one row (the setting
``keep``, :data:`evalsieve.constants.DEDUP_KEEP_RULES`: the first, or the longest); the rows it
leaves out are listed in ``paraphrase-dropped.csv`` with their group and the row kept for it.
The kept rows are written as the input's own bytes, through the mechanism of
``eval.clean.*`` (:func:`evalsieve.raw_rows.rows_text`), so a kept line's bytes are the input
line's. Rows with an empty text field are in no group and are kept: the file holds
``effective_rows + rows_empty`` rows (``effective_rows`` when no row is empty).
"""

from __future__ import annotations

from . import constants
from .errors import bad_input

DROPPED_COLUMNS = ["eval_row", "group", "kept_row", "label", "kept_label"]


def check_keep(keep) -> str:
    """``keep`` as a rule name of :data:`evalsieve.constants.DEDUP_KEEP_RULES`.

    Raises:
        EvalsieveError(bad_input): another value.
    """
    if keep not in constants.DEDUP_KEEP_RULES:
        raise bad_input(
            f"unknown rule {keep!r} for the row a group keeps",
            expected=" or ".join(constants.DEDUP_KEEP_RULES),
        )
    return keep


def kept_member(members: list[int], texts: list[str], keep: str) -> int:
    """The node a group keeps: its first (lowest row; members are ascending), or the one with
    the longest text (ties: the first)."""
    if keep == "first":
        return members[0]
    return max(members, key=lambda m: (len(texts[m]), -m))


def dropped_rows(
    groups, rows: list[int], texts: list[str], labels: list[str], keep: str
) -> list[list]:
    """The rows left out, in row order: ``[eval_row, group (1-based, as the groups CSV
    numbers them), kept_row, label, kept_label]`` (labels "" without a label field).

    Args:
        groups: the grouping's groups (members: node ids, ascending).
        rows: node id -> 1-based eval row; texts, labels: by node id.
        keep: a rule of :data:`evalsieve.constants.DEDUP_KEEP_RULES`.
    """
    out = []
    for k, grp in enumerate(groups):
        kept = kept_member(grp.members, texts, keep)
        for m in grp.members:
            if m != kept:
                out.append(
                    [
                        rows[m],
                        k + 1,
                        rows[kept],
                        labels[m] if labels else "",
                        labels[kept] if labels else "",
                    ]
                )
    out.sort(key=lambda r: r[0])
    return out


def kept_positions(record_numbers: list[int], dropped: list[list]) -> list[int]:
    """0-based positions (into the records read, ``record_numbers`` their 1-based numbers in
    file order) of the rows ``eval.deduplicated.*`` keeps, ascending."""
    gone = {r[0] for r in dropped}
    return [i for i, n in enumerate(record_numbers) if n not in gone]


def dedup_name(fmt: str) -> str:
    """``eval.deduplicated.jsonl``, or ``.csv``/``.tsv``/``.txt``/``.parquet`` after the eval
    file's format (``csv-semicolon`` is ``.csv``)."""
    base = fmt if fmt == "parquet" else fmt.split("-")[0]
    return constants.DEDUP_NAME_BY_FORMAT[base]
