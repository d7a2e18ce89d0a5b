"""Word normalisation: the rule every n-gram in evalsieve is built from.

The rule (GPT-3, Brown et al. 2020, App. C, as evalsieve states it):

1. Unicode NFKC;
2. lowercase (``str.lower``, full Unicode case mapping);
3. delete every character whose Unicode general category is punctuation (``P*``:
   Pc, Pd, Pe, Pf, Pi, Po, Ps). Symbols (``S*``: ``$ + < = > ^ ` | ~``) are kept;
4. split on white space (``str.split()`` with no argument).

Worked example: ``"Natalia sold clips to 48 of her friends in April, and then..."`` gives
``['natalia', 'sold', 'clips', 'to', '48', 'of', 'her', 'friends', 'in', 'april', 'and',
'then']``. ``"don't"`` becomes ``"dont"`` and ``"state-of-the-art"`` becomes
``"stateoftheart"`` (the apostrophe and hyphens are punctuation and are deleted, not
replaced by a space).

The punctuation table comes from the running Python's ``unicodedata``; its Unicode version
(``UNICODE_VERSION``) is printed in every run stamp, since CPython and Pyodide may differ.
"""

from __future__ import annotations

import re
import sys
import unicodedata

UNICODE_VERSION = unicodedata.unidata_version

# ASCII fast path: for pure-ASCII text NFKC is the identity, lowercase maps A-Z to a-z and
# the ASCII punctuation characters are exactly these (checked against the general path in
# tests/py/test_text.py).
_ASCII_LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))
_ASCII_PUNCT = bytes(c for c in range(128) if unicodedata.category(chr(c)).startswith("P"))

_NON_ASCII = re.compile("[^\x00-\x7f]")

_punct_table: dict[int, None] | None = None


def punctuation_table() -> dict[int, None]:
    """``{codepoint: None}`` for every codepoint of general category P*, for ``str.translate``.

    Built once, lazily (about 0.3 s in CPython), from this interpreter's ``unicodedata``.
    """
    global _punct_table
    if _punct_table is None:
        cat = unicodedata.category
        _punct_table = {c: None for c in range(sys.maxunicode + 1) if cat(chr(c))[0] == "P"}
    return _punct_table


def normalize_text(text: str) -> str:
    """Apply steps 1-3 of the rule (NFKC, lowercase, delete P*) to ``text``.

    Args:
        text: any string; white space and line breaks are kept (split them with
            ``str.split()``).
    Returns:
        The normalised string. Two fast paths give the same result as the plain definition
        (``NFKC(text).lower().translate(punctuation_table())``, checked in the tests):
        pure-ASCII text is lowercased and stripped at byte level; other text has its ASCII
        punctuation deleted at byte level (UTF-8 continuation bytes are never ASCII) and
        each distinct non-ASCII punctuation character it holds removed with ``str.replace``.
    """
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_LOWER, _ASCII_PUNCT).decode("ascii")
    t = unicodedata.normalize("NFKC", text).lower()
    if t.isascii():
        return t.encode("ascii").translate(None, _ASCII_PUNCT).decode("ascii")
    # surrogatepass: JSON may carry lone surrogates ("\\ud800"); keep them as they are
    t = (
        t.encode("utf-8", "surrogatepass")
        .translate(None, _ASCII_PUNCT)
        .decode("utf-8", "surrogatepass")
    )
    cat = unicodedata.category
    for c in set(_NON_ASCII.findall(t)):
        if cat(c)[0] == "P":
            t = t.replace(c, "")
    return t


#: The code points whose characters the filters may normalise one by one (see char_table):
#: the whole Basic Multilingual Plane. (The filters read text as UTF-16 code units; above
#: U+FFFF a character sends its record to Python.)
SAFE_BLOCKS = ((0x80, 0xFFFF),)

#: Characters whose lowercase depends on their neighbours (Unicode Final_Sigma, the only
#: context ``str.lower`` applies): no character whose NFKC form holds one (Σ, and Ϲ which
#: NFKC turns into Σ) is normalised one by one.
CONTEXT_CASED = frozenset({0x03A3})


def composition_seconds() -> frozenset[int]:
    """Characters that canonical composition joins to the starter before them: the second
    character of every primary composite (accents such as U+0301; among starters, the Hangul
    vowel and trailing jamo and a few vowel signs of Indic scripts, such as U+09BE; among the
    viramas, Sinhala's U+0DCA), from this Python's ``unicodedata`` (about 0.15 s, once)."""
    return _composites()[1]


def composition_firsts() -> frozenset[int]:
    """The first characters of every primary composite (the starters a following character
    can compose with: ``e`` before U+0301, a Hangul leading jamo or LV syllable)."""
    return _composites()[0]


def _composites() -> tuple[frozenset[int], frozenset[int]]:
    global _seconds
    if _seconds is None:
        dec, nfc = unicodedata.decomposition, unicodedata.normalize
        firsts, seconds = set(), set()
        for c in range(sys.maxunicode + 1):
            d = dec(chr(c))
            if not d or d[0] == "<" or d.count(" ") != 1:
                continue
            a, b = (chr(int(x, 16)) for x in d.split())
            if nfc("NFC", a + b) == chr(c):  # not a composition exclusion
                firsts.add(ord(a))
                seconds.add(ord(b))
        for c in range(0xAC00, 0xD7A4):  # Hangul syllables compose by algorithm: LV, LV + T
            parts = nfc("NFD", chr(c))
            seconds.add(ord(parts[-1]))
            firsts.add(ord(parts[0]) if len(parts) == 2 else c - (c - 0xAC00) % 28)
        _seconds = (frozenset(firsts), frozenset(seconds))
    return _seconds


_seconds: tuple[frozenset[int], frozenset[int]] | None = None

#: The one canonical combining class whose marks the table holds: 9, the viramas of the
#: Indic and Southeast Asian scripts (U+094D in Devanagari). No virama composes with
#: anything, and marks of a single class never reorder among themselves; a virama after a
#: character whose decomposition ends in marks of a higher class moves before them, which
#: they still compose across (a class-9 mark blocks none of them). Marks of any other class
#: (accents, the nukta: they compose or reorder) send a record to Python.
TABLE_MARK_CLASS = 9


def char_table(blocks=SAFE_BLOCKS) -> dict[int, str]:
    """Non-ASCII characters whose normalisation does not depend on their neighbours.

    For each code point ``c`` in ``blocks`` that is a starter (canonical combining class 0)
    whose NFKC form is made of starters only, and whose decomposition does not start with a
    starter that composes with the one before it (:func:`composition_seconds`: a Hangul
    vowel or trailing jamo, say), and for each virama that composes with nothing
    (:data:`TABLE_MARK_CLASS`),
    ``table[c] = normalize_text(c)`` (NFKC, lower, punctuation
    deleted; white space kept as it is). For text made only of ASCII and these characters,
    ``normalize_text`` equals the concatenation of the characters' own results: a character
    of the table never composes with, or reorders against, its neighbours (tests/py/
    test_text.py checks the pairs that could). The filters (the scan kernel, prefilter.js,
    numpy's) use the table to read text of every script of the BMP exactly without Python;
    any other character sends the record to Python.

    Built once per process and ``blocks`` (about 0.2 s in CPython; the CLI builds it inside
    the timed training pass); each call returns a fresh copy.

    Returns:
        ``{code point: replacement string}`` (possibly empty: a deleted character).
    """
    table = _char_tables.get(blocks)
    if table is None:
        table = _char_tables[blocks] = _build_char_table(blocks)
    return dict(table)


_char_tables: dict = {}


def _build_char_table(blocks) -> dict[int, str]:
    """:func:`char_table`, computed. A character that NFKC leaves as it is skips the test of
    its NFKC form's characters (it is a starter already); one of category Lo (a letter
    without case, not punctuation: the 20,992 ideographs) is its own result. tests/py/
    test_text.py checks the table against the plain per-character definition."""
    comb = unicodedata.combining
    cat = unicodedata.category
    nfkc = unicodedata.normalize
    seconds = composition_seconds()
    out = {}
    for lo, hi in blocks:
        for c in range(lo, hi + 1):
            ch = chr(c)
            kind = cat(ch)
            if kind in ("Cn", "Cs", "Co") or c in seconds:
                continue
            if comb(ch):  # a mark: only the viramas (see TABLE_MARK_CLASS)
                if comb(ch) == TABLE_MARK_CLASS and nfkc("NFKD", ch) == ch:
                    out[c] = normalize_text(ch)
                continue
            if ord(nfkc("NFKD", ch)[0]) in seconds:
                continue
            k = nfkc("NFKC", ch)
            if k == ch:
                if c in CONTEXT_CASED:
                    continue
                if kind == "Lo":
                    out[c] = normalize_text(ch)
                    continue
            elif any(comb(x) or ord(x) in CONTEXT_CASED for x in k):
                continue
            out[c] = normalize_text(ch)
    return out


def normalize_text_reference(text: str) -> str:
    """The plain definition of :func:`normalize_text`, for tests: NFKC, lower, delete P*."""
    return unicodedata.normalize("NFKC", text).lower().translate(punctuation_table())


def normalize_words(text: str) -> list[str]:
    """The words of ``text`` under the rule (steps 1-4).

    Args:
        text: any string.
    Returns:
        List of words (non-empty strings without white space or punctuation).

    Example:
        >>> normalize_words("It's 9:30, Dr. O'Neil!")
        ['its', '930', 'dr', 'oneil']
    """
    return normalize_text(text).split()


def normalize_many(texts: list[str]) -> list[str]:
    """``[normalize_text(t) for t in texts]``, done in bulk.

    Pure-ASCII texts are joined and normalised in one C-level call (the ``\\x00`` separator is
    neither punctuation nor changed by the rule); others go one by one.

    Args:
        texts: list of strings.
    Returns:
        List of the same length, in the same order.
    """
    out: list[str | None] = [None] * len(texts)
    ascii_idx = []
    for i, t in enumerate(texts):
        if t.isascii() and "\x00" not in t:
            ascii_idx.append(i)
        else:
            out[i] = normalize_text(t)
    if ascii_idx:
        joined = "\x00".join([texts[i] for i in ascii_idx])
        parts = (
            joined.encode("ascii")
            .translate(_ASCII_LOWER, _ASCII_PUNCT)
            .decode("ascii")
            .split("\x00")
        )
        for i, p in zip(ascii_idx, parts):
            out[i] = p
    return out  # type: ignore[return-value]
