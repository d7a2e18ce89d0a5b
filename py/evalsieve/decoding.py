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
"""

from __future__ import annotations

import re

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
    return bad_input(f"invalid UTF-8: the byte 0x{ord(m.group()) - 0xDC00:02X} at character "
                     f"{m.start() + 1} of the record", file=name, line=line,
                     expected="UTF-8 text (re-encode the file, e.g. iconv -t UTF-8)")
