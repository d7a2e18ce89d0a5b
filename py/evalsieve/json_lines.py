"""One JSON Lines record parsed, with errors naming file, line and column
(:func:`parse_jsonl_line`; :mod:`evalsieve.records` reads the files and names it too)."""

from __future__ import annotations

import json
import re

from .errors import bad_input


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[:n] + "…"


#: Deeper JSON is refused before parsing: Pyodide's stack overflows (a JS RangeError, not a
#: Python RecursionError) a few thousand levels down.
MAX_JSON_DEPTH = 400
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _json_depth(raw: str) -> int:
    """The deepest nesting of objects/arrays in a JSON text (brackets inside strings ignored)."""
    depth = deepest = 0
    for c in _JSON_STRING.sub("", raw):
        if c in "{[":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif c in "}]":
            depth -= 1
    return deepest


def parse_jsonl_line(raw: str, name: str, line: int) -> dict:
    """Parse one JSON Lines record.

    Raises:
        EvalsieveError(bad_input): not JSON, or JSON that is not an object (file, line,
        column and the offending text in the message).
    """
    # the line without its end: an error's column is then the same whether the line came
    # with its "\n" (the reader) or without (a filter's candidate line)
    raw = raw.rstrip("\r\n")
    try:
        if raw.count("{") + raw.count("[") > MAX_JSON_DEPTH and _json_depth(raw) > MAX_JSON_DEPTH:
            raise RecursionError
        value = json.loads(raw)
    except RecursionError:
        raise bad_input(
            "JSON nested too deeply to read",
            file=name,
            line=line,
            expected=f"one JSON object per line, nested at most {MAX_JSON_DEPTH} levels deep",
            detail=_clip(raw.rstrip("\r\n")),
        ) from None
    except ValueError as e:
        raise bad_input(
            "not valid JSON: " + _json_error_text(e),
            file=name,
            line=line,
            expected="one JSON object per line",
            detail=_clip(raw.rstrip("\r\n")),
        ) from None
    if not isinstance(value, dict):
        raise bad_input(
            f"a JSON {type(value).__name__} where an object was expected",
            file=name,
            line=line,
            expected="one JSON object per line",
            detail=_clip(raw.rstrip("\r\n")),
        )
    if "\\ud" in raw or "\\uD" in raw:
        value = _no_lone_surrogates(value)
    return value


def _json_error_text(e: ValueError) -> str:
    """The json module's message with its column: ``Expecting value at column 7``. Some
    messages end in "at" already (``Unterminated string starting at``), so the column follows
    without a second "at"."""
    msg = str(getattr(e, "msg", e)).rstrip()
    col = getattr(e, "colno", None)
    if not col:
        return msg
    return f"{msg} column {col}" if msg.endswith(" at") else f"{msg} at column {col}"


def _no_lone_surrogates(v):
    # A JSON escape such as \ud800 decodes to a lone surrogate, which no UTF-8 export (nor
    # the tokenizer) can hold: it becomes U+FFFD, as it does when the page writes a Blob.
    if isinstance(v, str):
        return v.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(v, dict):
        return {_no_lone_surrogates(k): _no_lone_surrogates(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_no_lone_surrogates(x) for x in v]
    return v
