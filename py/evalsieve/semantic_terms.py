"""The semantic rung's words and scores: windows, key terms (light stemming, number words),
code tokens and shingles, docstrings, and the verifier's score (cosine, lexical evidence,
explaining away, the code margin). Pure functions; :mod:`evalsieve.semantic` runs them.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
import unicodedata
from itertools import chain

from . import constants
from .errors import bad_input

#: Clamp of the window size in words (160 English words ≈ 210 word pieces < 256).
WINDOW_MIN, WINDOW_MAX = 16, 160
#: A word is a key term (rare) when it is in at most this share of the background records.
RARE_SHARE = 0.05
#: English number words read as their digits, so "four minutes" meets "4 minutes".
NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
NUMBER_WORDS.update({"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
                     "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
                     "hundred": "100", "thousand": "1000", "million": "1000000",
                     "dozen": "12", "twice": "2", "double": "2", "thrice": "3", "triple": "3"})
#: Length n of the code shingles (n-grams of abstracted code tokens) of the code channel.
CODE_NGRAM = constants.SEMANTIC_CODE_NGRAM_DEFAULT
#: A row is code when it defines a function or class: a line that begins with Python's
#: ``def f(`` / ``class C:``, JavaScript's ``function f(a) {``, a C/C++ ``#include`` line.
#: "the function f(x) = 2x" and "a class of 30 students:" are prose.
CODE_ROW = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+[A-Za-z_]\w*[ \t]*[(:]|"
                      r"\bfunction\s+[A-Za-z_$][\w$]*\s*\([^()]*\)\s*\{|^[ \t]*#include\s*[<\"]",
                      re.MULTILINE)
#: Names a code token keeps (the language's words, not the author's): Python's keywords and
#: lowercase built-ins (``len``, ``range``, ``True``...). Every other name becomes ``I``.
CODE_KEEP = frozenset(keyword.kwlist) | frozenset(
    n for n in dir(builtins) if n.islower() and not n.startswith("_"))
#: Code tokens dropped: ``pass`` is a statement that does nothing, so it carries no shape; the
#: rephrasings in llm-decontaminator's HumanEval set insert it ("a meaningless command to
#: bypass n-gram check") precisely to break runs of tokens.
CODE_DROP = frozenset({"pass"})
#: Suffixes a term loses (light stemming, after Harman 1991's S-stemmer plus -ing/-ed/-ly),
#: when at least 3 characters remain.
SUFFIXES = ("ies", "es", "s", "ing", "ed", "ly")


def window_size(word_counts: list[int]) -> tuple[int, str]:
    """The rule's window size: median of the non-empty rows' word counts, clamped to 16..160.

    Args:
        word_counts: words per eval row (0 for empty rows).
    Returns:
        ``(W, how)``; ``how`` says how W was chosen.
    Raises:
        EvalsieveError(bad_input): no row has a word.
    """
    xs = sorted(c for c in word_counts if c > 0)
    if not xs:
        raise bad_input("no eval row has a word", expected="at least one non-empty eval row")
    m = xs[(len(xs) - 1) // 2]  # lower median (a real row's length)
    w = min(WINDOW_MAX, max(WINDOW_MIN, m))
    how = f"median eval row length {m} words" + ("" if w == m else f", clamped to {w}")
    return w, how


def window_spans(n_words: int, size: int) -> list[tuple[int, int]]:
    """Word spans ``[start, end)`` of the windows of a record of ``n_words`` words.

    Stride ⌈size/2⌉; the last window ends at the record's end (it may overlap its neighbour
    by more than half). A record of ≤ size words is one window; an empty record has none.

    Example: ``window_spans(10, 4) == [(0, 4), (2, 6), (4, 8), (6, 10)]``.
    """
    if n_words <= 0:
        return []
    if n_words <= size:
        return [(0, n_words)]
    stride = (size + 1) // 2
    out = []
    s = 0
    while s + size < n_words:
        out.append((s, s + size))
        s += stride
    out.append((n_words - size, n_words))
    return out


def is_number(word: str) -> bool:
    """True when a normalised word holds a decimal digit ("12", "3rd", "250")."""
    return any(ch.isdigit() for ch in word)


def idf(df: int, n: int) -> float:
    """Smoothed inverse document frequency ``ln((1 + n) / (1 + df))`` (≥ 0; a word in every
    document weighs about 0)."""
    return math.log((1 + n) / (1 + df))


def term(word: str) -> str:
    """The term a normalised word counts as: its digits for an English number word, else the
    word without one plural/-ing/-ed/-ly suffix (when 3 characters remain).

    Examples: ``term("four") == "4"``, ``term("eggs") == "egg"``, ``term("baking") == "bak"``,
    ``term("bus") == "bus"``, ``term("12") == "12"``.
    """
    n = NUMBER_WORDS.get(word)
    if n is not None:
        return n
    for suf in SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[:-len(suf)]
    return word


#: A token: a run of digits (with "," or "." between digits) or a run of letters.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_MEMO_MAX = 1 << 19


def word_terms(word: str) -> tuple:
    """The terms of one white-space word: NFKC, lowercase, then its runs of letters (each
    through :func:`term`) and runs of digits (commas dropped: "80,000" = "80000").

    Code identifiers split where a letter run ends: ``has_close_elements(numbers:`` gives
    ``("has", "close", "element", "number")``.
    """
    out = []
    for t in _TOKEN.findall(unicodedata.normalize("NFKC", word).lower()):
        out.append(t.replace(",", "") if t[0].isdigit() else term(t))
    return tuple(out)


def terms_of(words: list[str], memo: dict) -> list[tuple]:
    """``[word_terms(w) for w in words]`` with a memo dict (cleared past 2^19 words)."""
    out = []
    for w in words:
        t = memo.get(w)
        if t is None:
            if len(memo) > _MEMO_MAX:
                memo.clear()
            t = memo[w] = word_terms(w)
        out.append(t)
    return out


#: A code token: a number literal (with its sign when nothing that ends an operand is right
#: before it: "-3" in "[1, -3]" is a literal, "n-1" is n, -, 1), a name, a three-character
#: or two-character operator, or any other single non-space character.
_CODE_TOKEN = re.compile(r"(?<![\w)\]])-?\d[\w.]*|\d[\w.]*|[^\W\d]\w*|>>>|\*\*=|//=|\.\.\.|"
                         r"==|!=|<=|>=|\*\*|//|->|\+=|-=|\*=|/=|%=|&&|\|\||[^\s\w]")


def code_tokens(word: str) -> tuple:
    """Abstracted code tokens of one white-space word (Type-2 clone normalisation: names and
    literals abstracted, the language kept; Roy, Cordy & Koschke 2009).

    A number literal becomes ``N``; a name becomes ``I`` unless it is a Python keyword or a
    lowercase built-in (:data:`CODE_KEEP`: ``for``, ``len``, ``True`` stay); ``pass``, a
    statement that does nothing, is dropped (:data:`CODE_DROP`); a quote
    character becomes ``Q`` (so a string's content is read as its words); operators and
    brackets stay as they are.

    Example: ``code_tokens("l[i]+-1==0:")`` gives ``("I", "[", "I", "]", "+", "N", "==",
    "N", ":")``.
    """
    out = []
    for t in _CODE_TOKEN.findall(word):
        c = t[0]
        if c.isdigit() or (c == "-" and len(t) > 1):
            out.append("N")
        elif c.isalpha() or c == "_":
            if t not in CODE_DROP:
                out.append(t if t in CODE_KEEP else "I")
        elif c in "\"'`":
            out.append("Q")
        else:
            out.append(t)
    return tuple(out)


def code_shingles(tokens: list[str] | tuple, n: int) -> frozenset:
    """The distinct n-grams of a token sequence, each as one string ``"\x01" + " ".join``
    (the prefix keeps them apart from word terms); a sequence shorter than n has none.

    Example: ``code_shingles(("I", "(", "I", ")"), 3) == {"\x01I ( I", "\x01( I )"}``.
    """
    return frozenset("\x01" + " ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def is_code(text: str) -> bool:
    """True when an eval row is code: it defines a function or class (:data:`CODE_ROW`).

    Args:
        text: the row's raw text (its line breaks kept: ``def`` must begin a line).
    """
    return CODE_ROW.search(text) is not None


_DOC_QUOTE = re.compile(r'"""|\'\'\'')
#: A docstring needs this many words to be embedded on its own.
DOCSTRING_MIN_WORDS = 3


def docstring_of(text: str) -> str | None:
    '''The docstring prose of a code text whose white space is collapsed (a window may begin
    or end inside it), or None.

    The first triple quote (three double or three single quotes) opens a docstring when the
    text before it ends with ":" (``def f(x) -> int: """``), and the docstring runs to the
    next triple quote or the text's end; otherwise the text began inside a docstring, which
    is the text before it. None when there is no triple quote or the docstring has fewer
    than 3 words.

    Examples: ``docstring_of('def f(x): """Add one to x. >>> f(1) 2 """ return x + 1')``
    is ``'Add one to x. >>> f(1) 2'``; ``docstring_of('of x and y. """ return x')`` is
    ``'of x and y.'``.
    '''
    m = _DOC_QUOTE.search(text)
    if m is None:
        return None
    before = text[:m.start()].rstrip()
    if before.endswith(":"):
        n = _DOC_QUOTE.search(text, m.end())
        doc = text[m.end():n.start() if n else len(text)]
    else:
        doc = before
    doc = " ".join(doc.split())
    return doc if len(doc.split()) >= DOCSTRING_MIN_WORDS else None


def _set(per_word: list[tuple]) -> frozenset:
    return frozenset(chain.from_iterable(per_word))


def verifier_score(cosine: float, lexical: float, numbers: float | None,
                   code: float | None = None, docstring_cosine: float | None = None) -> float:
    """The verifier's score of one pair, in [-0.5, 1].

    ``(meaning + evidence) / 2``: equal weight to meaning and to facts.

    * A code row: ``(cosine + (lexical + code) / 2) / 2`` (its numbers are literals,
      abstracted into the code shingles). With a docstring cosine, the better of that and
      ``(docstring_cosine + code) / 2``: the prose says what the program does (the encoder
      reads prose better than code) and the code shingles whether the program has the same
      shape, leaving out the words, which a rephrasing renames; the whole reading stays for
      a window that holds only part of a docstring.
    * Prose: ``(cosine + (lexical + numbers) / 2) / 2`` when the row has a number, else
      ``(cosine + lexical) / 2``.
    """
    if code is not None:
        whole = (cosine + (lexical + code) / 2) / 2
        return whole if docstring_cosine is None else max(whole, (docstring_cosine + code) / 2)
    ev = lexical if numbers is None else (lexical + numbers) / 2
    return (cosine + ev) / 2


def rival_penalty(score: float, rival: float | None) -> float:
    """Explaining away: ``score − max(0, rival − score)``, the pair's score less the amount by
    which another eval row scores higher on the same window (``rival``: that row's best
    score there, None when no other row has the window among its candidates).

    Two eval rows about nearly the same task (HumanEval's ``sort_third`` and ``sort_even``)
    both match a rephrasing of one of them; the rephrased row matches it better, so the other
    row's match is more likely its twin's. A row that wins its window loses nothing.

    Example: ``rival_penalty(0.6, 0.7) == 0.5``; ``rival_penalty(0.7, 0.6) == 0.7``.
    """
    return score if rival is None or rival <= score else 2 * score - rival


def final_score(score: float, rival: float | None, code: float | None,
                code_runner_up: float | None, code_margin: float) -> float:
    """A pair's final score: :func:`rival_penalty`, plus, for a code row,
    ``code_margin × max(0, code − code_runner_up)``.

    ``code`` is the pair's code evidence (:meth:`SemanticScan.code_evidence`) and
    ``code_runner_up`` the row's best code evidence in windows elsewhere: a rephrased program
    keeps its own shape in one place, while the shared template every Python function has
    (signature, docstring, doctest lines) is found everywhere; a match that stands out from
    the row's other candidates is stronger evidence than the same share found in many
    places. The margin is one-sided (never lowers a score), and the sum is capped at 1 (a
    score stays ≤ 1, the highest threshold). Prose rows have no code evidence and are not
    changed.

    Example: ``final_score(0.6, 0.7, 0.8, 0.4, 0.25) == 0.5 + 0.25 * 0.4 == 0.6``.
    """
    s = rival_penalty(score, rival)
    if code is not None and code_runner_up is not None and code_margin:
        s = min(1.0, s + code_margin * max(0.0, code - code_runner_up))
    return s


def pair_cosines(eval_vectors, window_vectors, pairs) -> list[float]:
    """Dot products of unit vectors for each ``(row, window)`` pair, in pure Python.

    Args:
        eval_vectors, window_vectors: sequences of equal-length float sequences (unit L2 norm).
        pairs: ``(row, window)`` index pairs.
    Returns:
        One cosine per pair. (The CLI does the same with numpy.)
    """
    return [sum(a * b for a, b in zip(eval_vectors[i], window_vectors[j])) for i, j in pairs]
