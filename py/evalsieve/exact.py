"""The exact rung's key of an eval row, and what a candidate filter passes on for it.

The rule: an eval row is an exact copy of a training record when the row's words equal the
record's. A row's words are the normalised words (:mod:`evalsieve.text`) of every value of its
chosen fields, in order, joined across the values; a record's are read the same way over the
training fields. That word sequence, joined by one space, is the row's *key* (:func:`row_key`).
A row with no word has no key: an empty row is never an exact copy. Any other row has one,
however short: a one-word row equal to a one-word record is a copy, and a row too short for
n-grams is caught by this rung alone.

The candidate filters in front of Python (``fastscan.LineFilter`` in the CLI,
``worker/prefilter.js`` and ``kernels/prefilter.c`` in the page) drop records that provably
hold no eval n-gram. An exact copy may hold none (its words split over two training fields,
or fewer than N), so each filter also passes on a record with a *segment* (a value at a
training field path; a line of a text file) whose words equal one of the key's *probes*
(:func:`probe_starts`):

* text: the key itself (a line is its record's only segment);
* JSON Lines: every non-empty prefix of the key, and of the key without its first m words
  when each of those m words could be a number or boolean leaf (:func:`scalar_word`).

That is enough: the first segment with words of a JSON copy is either a string, whose words
are a prefix of the key, or a number or boolean leaf (``json.dumps`` of it, one word). After
m such leaves comes a string holding a prefix of the rest of the key, or nothing: a record made
only of leaves (:func:`scalar_only` keys; prefilter.js and the kernel pass on every record with
such a leaf anyway, the numpy filter every line with a word outside a string when a key is
scalar-only). The filters read a superset of Python's segments (every list element where a
path filters elements, every value of a duplicated key; numpy: every string of the line), so
extra segments only add candidates. Python confirms every candidate
(:class:`evalsieve.ngrams.TrainingScan`).

Probes are hashed for prefilter.js and the kernel by :func:`segment_probe` (the published
:data:`HASH`: the filters' word hash, FNV-1a over a normalised word's UTF-16 code units, and
the n-gram window's polynomial over a whole segment, with its word count mixed in); the numpy
filter hashes the same probes with its own word hash.
"""

from __future__ import annotations

import re

from .kernel_spec import COUNT_MIX, FNV_OFFSET, FNV_PRIME, MIX

#: The hash of a segment's words that prefilter.js and kernels/prefilter.c compute, as
#: published in the prefilter spec (``exact.hash``): word = 32-bit FNV-1a over the normalised
#: word's UTF-16 code units (``fnv_offset``, ``fnv_prime``; the n-gram filter's word hash);
#: segment h = h * ``mix`` + word over its words (mod 2**32, from 0; the n-gram window's
#: polynomial); probe = (h + words * ``count_mix``) mod 2**32, 0 stored as 1. The constants
#: are defined once, in :mod:`evalsieve.kernel_spec` (which writes them into kernels/spec.h).
HASH = {"fnv_offset": FNV_OFFSET, "fnv_prime": FNV_PRIME, "mix": MIX, "count_mix": COUNT_MIX}

_M32 = 0xFFFFFFFF
# json.dumps of an int, float or bool, normalised (sign and '.' deleted; 'e+' kept:
# '+' is a symbol), and Python's Infinity / NaN spellings
_SCALAR = re.compile(r"[0-9]+(?:e\+?[0-9]+)?|true|false|nan|infinity")


def row_key(segment_words: list[list[str]]) -> str:
    """A row's (or record's) key: the normalised words of its segments, in order, joined by
    one space ('' when it has no word: no key)."""
    return " ".join(w for words in segment_words for w in words)


def scalar_word(word: str) -> bool:
    """Could ``word`` be a number or boolean JSON leaf, normalised (``json.dumps`` of it:
    ``12``, ``15e+20`` from 1.5e+20, ``1e05`` from 1e-05, ``true``, ``infinity``, ``nan``)?"""
    return _SCALAR.fullmatch(word) is not None


def probe_starts(words: list[str], fmt: str) -> list[int]:
    """The m of a key's probes: for ``fmt`` ``"text"`` only 0 (the probe is the whole key);
    for JSON Lines 0 and every m whose first m words are each :func:`scalar_word` (the
    probes are then every non-empty prefix of ``words[m:]``, m < len(words))."""
    if fmt == "text":
        return [0]
    out = [0]
    for m, w in enumerate(words[:-1], 1):
        if not scalar_word(w):
            break
        out.append(m)
    return out


def probe_words(key: str, fmt: str) -> list[list[str]]:
    """Every probe of one key, as word lists (the definition; filters build theirs from
    :func:`probe_starts`)."""
    words = key.split()
    if fmt == "text":
        return [words] if words else []
    return [
        words[m : m + k] for m in probe_starts(words, fmt) for k in range(1, len(words) - m + 1)
    ]


def scalar_only(key: str) -> bool:
    """True when every word of the key could be a number or boolean leaf (a JSON copy of it
    may have no string segment at all)."""
    words = key.split()
    return bool(words) and all(scalar_word(w) for w in words)


def word_hash(word: str) -> int:
    """32-bit FNV-1a of a normalised word's UTF-16 code units (:data:`HASH`)."""
    h, p = HASH["fnv_offset"], HASH["fnv_prime"]
    data = word.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h = ((h ^ (data[i] | data[i + 1] << 8)) * p) & _M32
    return h


def segment_probe(words: list[str], cache: dict | None = None) -> int:
    """The probe value of a segment with these words (:data:`HASH`), in 1..2**32-1.

    Example: ``segment_probe(["a"])`` = FNV-1a("a") + 1 × count_mix (mod 2**32) =
    0xE40C292C + 0x85EBCA6B = 0x69F7F397.
    """
    mix = HASH["mix"]
    h = 0
    for w in words:
        wh = cache.get(w) if cache is not None else None
        if wh is None:
            wh = word_hash(w)
            if cache is not None:
                cache[w] = wh
        h = (h * mix + wh) & _M32
    return (h + len(words) * HASH["count_mix"]) & _M32 or 1


def prefilter_exact(keys: list[str], fmt: str) -> dict:
    """The prefilter spec's ``exact`` (prefilter.js, kernels/prefilter.c).

    Args:
        keys: the eval rows' keys (non-empty).
        fmt: the training file's format (``jsonl`` or ``text``).
    Returns:
        ``{"hash": HASH, "probes": sorted distinct probe values (ints), "scalar_only":
        bool}``: a segment whose :func:`segment_probe` is in ``probes`` makes its record a
        candidate.
    """
    cache: dict[str, int] = {}
    mix, cm = HASH["mix"], HASH["count_mix"]
    probes = set()
    for key in keys:
        words = key.split()
        if fmt == "text":
            probes.add(segment_probe(words, cache))
            continue
        hashes = [cache[w] if w in cache else cache.setdefault(w, word_hash(w)) for w in words]
        for m in probe_starts(words, fmt):
            h = 0
            for k, wh in enumerate(hashes[m:], 1):  # prefixes of words[m:], incrementally
                h = (h * mix + wh) & _M32
                probes.add((h + k * cm) & _M32 or 1)
    return {
        "hash": dict(HASH),
        "probes": sorted(probes),
        "scalar_only": any(scalar_only(k) for k in keys),
    }
