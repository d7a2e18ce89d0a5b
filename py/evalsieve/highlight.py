"""Where a row's shared passage sits in its original text, for highlighting on the page.

The contamination view shows each flagged eval row's own text with the words it shares with
the training data marked. The shared passage (:func:`evalsieve.ngrams._longest_covered`) is a
run of *normalised* words (:mod:`evalsieve.text`: NFKC, lowercase, Unicode P* deleted, split
on white space), so it cannot be searched for in the original text as a string. This module
maps it back: each white-space token of a segment is normalised on its own (the rule never
joins or splits across white space, so the tokens' words, in order, are the segment's words;
a token that is all punctuation has none, one that NFKC widens may have several), the
passage's words are found as a contiguous run of the segment's words, and the span from the
first covering token's start to the last one's end is marked.

Worked example: segments ``["Natalia sold clips to 48 of her friends in April, and then"]``
and passage ``"friends in april and"`` give one span covering ``"friends in April, and"``
(characters 32-53), the comma inside it included.

Offsets are UTF-16 code units, as JavaScript indexes strings (a character outside the Basic
Multilingual Plane, e.g. an emoji, counts 2), so the page slices the text without converting.
"""

from __future__ import annotations

import re

from .text import normalize_many, normalize_words

_TOKEN = re.compile(r"\S+")  # str pattern: \s is str.isspace, the split of the rule's step 4


def passage_spans(segments: list[str], passage: str) -> list[list[int]]:
    """The spans of ``"\\n".join(segments)`` whose words are ``passage``'s words.

    Args:
        segments: a row's raw field values (the eval text is them joined by ``"\\n"``).
        passage: normalised words joined by one space (a row's ``shared_passage``); "" or
            white space gives no span.
    Returns:
        ``[[start, end], ...]``: half-open ranges in UTF-16 code units of the joined text, in
        text order, not overlapping; every non-overlapping occurrence inside one segment
        (a passage never spans two segments, as n-grams do not).
    """
    target = passage.split()
    if not target:
        return []
    k = len(target)
    spans: list[tuple[int, int]] = []
    base = 0
    joined_target = " ".join(target)
    for seg in segments:
        if joined_target not in " ".join(normalize_words(seg)):  # necessary; cheap for most
            base += len(seg) + 1
            continue
        found = list(_TOKEN.finditer(seg))
        tokens = [(m.start(), m.end()) for m in found]
        words: list[str] = []
        owner: list[int] = []  # words[j] comes from tokens[owner[j]]
        for t, norm in enumerate(normalize_many([m.group() for m in found])):
            for w in norm.split():
                words.append(w)
                owner.append(t)
        j = 0
        while j + k <= len(words):
            if words[j : j + k] == target:
                spans.append((base + tokens[owner[j]][0], base + tokens[owner[j + k - 1]][1]))
                j += k
            else:
                j += 1
        base += len(seg) + 1
    text = "\n".join(segments)
    if text.isascii():
        return [[a, b] for a, b in spans]
    return [[_utf16(text, a), _utf16(text, b)] for a, b in spans]


def _utf16(text: str, i: int) -> int:
    """Code-point offset ``i`` of ``text`` as a UTF-16 code-unit offset."""
    return i + sum(1 for c in text[:i] if ord(c) > 0xFFFF)


def code_points(text: str, spans: list[list[int]]) -> list[tuple[int, int]]:
    """``spans`` (UTF-16 code-unit offsets of ``text``, as :func:`passage_spans` gives them)
    as Python string indices (code points): the inverse of the conversion above.

    Worked example: ``text = "😀 friends in April"`` (the emoji is 2 UTF-16 units, 1 code
    point), span ``[3, 10]`` (``"friends"``) gives ``(2, 9)``.

    Raises:
        ValueError: an offset outside ``text`` or inside a surrogate pair (not a span this
            module made).
    """
    if text.isascii():
        pos = {i: i for i in range(len(text) + 1)}
    else:
        pos, u = {}, 0
        for i, c in enumerate(text):
            pos[u] = i
            u += 2 if ord(c) > 0xFFFF else 1
        pos[u] = len(text)
    out = []
    for a, b in spans:
        if a not in pos or b not in pos:
            raise ValueError(
                f"span [{a}, {b}] is not on a character boundary of a text of "
                f"{len(text)} characters"
            )
        out.append((pos[a], pos[b]))
    return out


def ngram_spans(segments: list[str], grams, n: int) -> list[list[int]]:
    """The spans of ``"\\n".join(segments)`` covered by any of ``grams``: where a training
    record holds the n-grams it shares with an eval row (the page's "open record").

    Args:
        segments: the record's raw field values.
        grams: a set of n-grams, each ``n`` normalised words joined by one space.
        n: words per n-gram (>= 1).
    Returns:
        ``[[start, end], ...]``: half-open UTF-16 ranges of the joined text, in text order,
        not overlapping: each maximal run of words covered by some n-gram of ``grams``,
        from its first token's start to its last token's end (n-grams never span two
        segments, so neither does a span).
    """
    spans: list[tuple[int, int]] = []
    base = 0
    for seg in segments:
        found = list(_TOKEN.finditer(seg))
        words: list[str] = []
        owner: list[int] = []
        for t, norm in enumerate(normalize_many([m.group() for m in found])):
            for w in norm.split():
                words.append(w)
                owner.append(t)
        covered = [False] * len(words)
        for i in range(len(words) - n + 1):
            if " ".join(words[i : i + n]) in grams:
                for j in range(i, i + n):
                    covered[j] = True
        j = 0
        while j < len(words):
            if not covered[j]:
                j += 1
                continue
            k = j
            while k + 1 < len(words) and covered[k + 1]:
                k += 1
            a, b = found[owner[j]].start(), found[owner[k]].end()
            if spans and spans[-1][1] >= base + a:  # two runs in one token
                spans[-1] = (spans[-1][0], base + b)
            else:
                spans.append((base + a, base + b))
            j = k + 1
        base += len(seg) + 1
    text = "\n".join(segments)
    if text.isascii():
        return [[a, b] for a, b in spans]
    return [[_utf16(text, a), _utf16(text, b)] for a, b in spans]
