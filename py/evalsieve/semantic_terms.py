"""Terms of the semantic rung (standard library only): words as terms, numbers, code tokens.

Words are compared as *terms* (:func:`word_terms`): NFKC, lowercase, runs of letters and runs
of digits ("$1,200" gives "1200"; ``has_close_elements`` gives has, close, element), English
number words as digits ("four" = "4", "twice" = "2"), one plural/-ing/-ed/-ly suffix removed
(:func:`term`). Code is read as abstracted tokens (:func:`code_tokens`: Type-2 clone
normalisation) and their n-grams (:func:`code_shingles`); a code row's docstring is its prose
(:func:`docstring_of`).
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
import unicodedata
from itertools import chain

from . import constants

#: English number words read as their digits, so "four minutes" meets "4 minutes".
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
NUMBER_WORDS.update(
    {
        "twenty": "20",
        "thirty": "30",
        "forty": "40",
        "fifty": "50",
        "sixty": "60",
        "seventy": "70",
        "eighty": "80",
        "ninety": "90",
        "hundred": "100",
        "thousand": "1000",
        "million": "1000000",
        "dozen": "12",
        "twice": "2",
        "double": "2",
        "thrice": "3",
        "triple": "3",
    }
)

#: Length n of the code shingles (n-grams of abstracted code tokens) of the code channel.
CODE_NGRAM = constants.SEMANTIC_CODE_NGRAM_DEFAULT
#: A row is code when it defines a function or class: a line that begins with Python's
#: ``def f(`` / ``class C:``, JavaScript's ``function f(a) {``, a C/C++ ``#include`` line.
#: "the function f(x) = 2x" and "a class of 30 students:" are prose.
CODE_ROW = re.compile(
    r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+[A-Za-z_]\w*[ \t]*[(:]|"
    r"\bfunction\s+[A-Za-z_$][\w$]*\s*\([^()]*\)\s*\{|^[ \t]*#include\s*[<\"]",
    re.MULTILINE,
)
#: Names a code token keeps (the language's words, not the author's): Python's keywords and
#: lowercase built-ins (``len``, ``range``, ``True``...). Every other name becomes ``I``.
CODE_KEEP = frozenset(keyword.kwlist) | frozenset(
    n for n in dir(builtins) if n.islower() and not n.startswith("_")
)
#: Code tokens dropped: ``pass`` is a statement that does nothing, so it carries no shape; the
#: rephrasings in llm-decontaminator's HumanEval set insert it ("a meaningless command to
#: bypass n-gram check") precisely to break runs of tokens.
CODE_DROP = frozenset({"pass"})
#: Suffixes a term loses (light stemming, after Harman 1991's S-stemmer plus -ing/-ed/-ly),
#: when at least 3 characters remain.
SUFFIXES = ("ies", "es", "s", "ing", "ed", "ly")


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
            return word[: -len(suf)]
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
_CODE_TOKEN = re.compile(
    r"(?<![\w)\]])-?\d[\w.]*|\d[\w.]*|[^\W\d]\w*|>>>|\*\*=|//=|\.\.\.|"
    r"==|!=|<=|>=|\*\*|//|->|\+=|-=|\*=|/=|%=|&&|\|\||[^\s\w]"
)


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
    return frozenset("\x01" + " ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


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
    before = text[: m.start()].rstrip()
    if before.endswith(":"):
        n = _DOC_QUOTE.search(text, m.end())
        doc = text[m.end() : n.start() if n else len(text)]
    else:
        doc = before
    doc = " ".join(doc.split())
    return doc if len(doc.split()) >= DOCSTRING_MIN_WORDS else None


def _set(per_word: list[tuple]) -> frozenset:
    return frozenset(chain.from_iterable(per_word))
