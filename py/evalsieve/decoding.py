"""Text decoding rules the readers share: the byte-order mark, and bytes that are not UTF-8.

* A UTF-8 byte-order mark (EF BB BF) at the start of a file is no record's text: the reader
  takes it off (``RecordReader.bom``) and ``eval.clean.*`` starts with it again, so that the
  clean file is the input's own bytes.
* Invalid UTF-8 stops the run with the file, line and byte, unless malformed lines are
  skipped (``--skip-bad-lines``, the page's "skip malformed lines"). Then the driver decodes
  with Python's ``surrogateescape`` error handler: an invalid byte 0xXY becomes the lone
  surrogate U+DCXY, which valid UTF-8 never decodes to, and the record holding it is a
  malformed record (:func:`invalid_utf8`), skipped and listed in skipped-lines.csv like a
  line that is not JSON.
* A file whose first bytes say it is not text (ZIP, Parquet, UTF-16...) is refused before
  decoding (:func:`refuse_binary`).
"""

from __future__ import annotations

import re

from . import constants
from .constants import binary_kind
from .errors import EvalsieveError, bad_input

BOM = "\ufeff"
#: What a byte that is not UTF-8 becomes under ``surrogateescape``.
ESCAPED = re.compile("[\udc80-\udcff]")
#: The error handler a driver decodes with when malformed lines are skipped.
SKIPPING = "surrogateescape"


def invalid_utf8(raw: str, name: str, line: int) -> EvalsieveError | None:
    """The error of a record whose text holds bytes that are not UTF-8 (decoded with
    ``surrogateescape``), or None when it holds none.

    Example: ``invalid_utf8('{"a": "caf\\udce9"}\\n', "t.jsonl", 3)`` is bad_input "invalid
    UTF-8: the byte 0xE9 at character 11 of the record" (t.jsonl, line 3).
    """
    m = ESCAPED.search(raw)
    if m is None:
        return None
    return bad_input(
        f"invalid UTF-8: the byte 0x{ord(m.group()) - 0xDC00:02X} at character "
        f"{m.start() + 1} of the record",
        file=name,
        line=line,
        expected="UTF-8 text (re-encode the file, e.g. iconv -t UTF-8)",
    )


#: Magic bytes of files that are not text (checked on the first bytes after gunzip, before
#: decoding): the table is constants.BINARY_MAGIC, which the page's worker/files.js receives
#: in the worker's ``ready`` message.
BINARY_MAGIC = constants.BINARY_MAGIC
PARQUET_MAGIC = b"PAR1"


def is_parquet(head: bytes) -> bool:
    """True when a file's first bytes are the Parquet magic ``PAR1``."""
    return head.startswith(PARQUET_MAGIC)


def refuse_binary(name: str, head: bytes, parquet_ok: bool = False) -> None:
    """Refuse a file whose first bytes say it is not text (ZIP, Parquet, UTF-16, ...).

    Args:
        name: the file's name, for the message.
        head: its first bytes (after gunzip); 16 are enough.
        parquet_ok: let Parquet through (the CLI reads it with pyarrow).
    Raises:
        EvalsieveError(bad_input): "unsupported format: this looks like a ZIP archive; ...".
    """
    kind = binary_kind(head)
    if kind is not None and not (parquet_ok and head.startswith(PARQUET_MAGIC)):
        what, todo = kind
        raise bad_input(
            f"unsupported format: this looks like {what}",
            file=name,
            expected=f"JSONL, CSV, TSV or plain text in UTF-8 ({todo})",
        )
