"""Some rows of an input file, as the file's own bytes: the subset exports.

``eval.clean.*`` (the contamination job) and ``eval.deduplicated.*`` (the paraphrase job)
keep some rows of the eval file and drop the others; both hold only the input's own text
(:attr:`evalsieve.records.Record.raw` of each kept record, its line ending included, and the
CSV/TSV header line first), so a kept line's UTF-8 bytes are the input's bytes.
"""

from __future__ import annotations

from .errors import bad_input


def rows_text(header_raw: str | None, cr: bool, raws: list[str], positions) -> str:
    """The header line (CSV/TSV) and the raw text of the records at ``positions``.

    Args:
        header_raw: the reader's ``header_raw`` (None for JSONL/text).
        cr: the file's lines end with a lone CR (the reader's ``cr``).
        raws: every record's raw text, in file order.
        positions: 0-based positions into ``raws`` to keep, ascending.
    Returns:
        The text; a header line that had no line ending (a file of a header only) gets the
        file's own (LF, or CR for lone-CR files) when rows follow it.
    """
    head = header_raw or ""
    kept = [raws[i] for i in positions]
    if kept and head and not head.endswith(("\n", "\r")):
        head += "\r" if cr else "\n"
    return head + "".join(kept)


def refuse_parquet(fmt: str, name: str) -> None:
    """A Parquet file's subset is written by the driver (pyarrow, or the page's writer) from
    the kept positions.

    Raises:
        EvalsieveError(bad_input): ``fmt`` is parquet.
    """
    if fmt == "parquet":
        raise bad_input(
            f"a Parquet {name} is written by the driver",
            expected="the kept rows' positions and pyarrow",
        )
