"""The semantic rung's code channel: Type-2 code tokens and shingles, code-row detection,
docstring extraction, and the verifier on code rows. Expectations are computed by hand in
the comments; no encoder (cosines are given as the driver would)."""

import math

import pytest

from evalsieve.errors import EvalsieveError
from evalsieve.semantic import (
    SemanticConfig,
    SemanticScan,
    code_shingles,
    code_tokens,
    docstring_of,
    features,
    idf,
    is_code,
    verifier_score,
)
from evalsieve.semantic_verifier import (
    VERIFIER_CODE_THRESHOLD,
    VERIFIER_THRESHOLD,
    VERIFIER_WEIGHTS,
)


def sigma(*f):
    """The committed verifier on features (meaning, lexical, facts), by hand."""
    z = VERIFIER_WEIGHTS[0] + sum(b * x for b, x in zip(VERIFIER_WEIGHTS[1:], f))
    return 1 / (1 + math.exp(-z))


def tokens_of(text):
    return [t for w in text.split() for t in code_tokens(w)]


# -- tokens, shingles, detection, docstrings ----------------------------------------------
def test_code_tokens_of_a_small_function():
    # names -> I (keywords and built-ins kept), literals -> N, a sign glued to a literal
    # after "(" "," "[" is part of it, "n-1" is a subtraction
    assert tokens_of("def f(xs, n): return len(xs[n-1]) + -2 == 0.5") == [
        "def",
        "I",
        "(",
        "I",
        ",",
        "I",
        ")",
        ":",
        "return",
        "len",
        "(",
        "I",
        "[",
        "I",
        "-",
        "N",
        "]",
        ")",
        "+",
        "N",
        "==",
        "N",
    ]
    assert tokens_of(">>> f([1, -3], 'a b') True") == [
        ">>>",
        "I",
        "(",
        "[",
        "N",
        ",",
        "N",
        "]",
        ",",
        "Q",
        "I",
        "I",
        "Q",
        ")",
        "True",
    ]
    assert code_tokens("x**=2") == ("I", "**=", "N")
    assert code_tokens("") == ()


def test_a_renamed_copy_has_the_same_tokens():
    a = "def add(a, b): return a + b"
    b = "def plus(left,right):\n    return left + right"
    assert (
        tokens_of(a)
        == tokens_of(b)
        == ["def", "I", "(", "I", ",", "I", ")", ":", "return", "I", "+", "I"]
    )


def test_code_shingles():
    assert code_shingles(("I", "(", "I", ")"), 3) == {"\x01I ( I", "\x01( I )"}
    assert code_shingles(("I", "("), 3) == frozenset()
    # 12 tokens give 10 distinct 3-grams
    assert len(code_shingles(tokens_of("def add(a, b): return a + b"), 3)) == 10


def test_is_code():
    assert is_code("def has_close_elements(numbers: List[float]) -> bool:")
    assert is_code("from typing import List\n\n\n    def f(x):\n    return x")
    assert is_code("class Stack: pass") and is_code("function add(a, b) { return a + b }")
    assert is_code("#include <stdio.h>\nint main() {}")
    assert not is_code("x = 1; def f(): pass")  # def must begin a line
    assert not is_code("Janet's class has 30 students; define the average of 4 and 6.")
    assert not is_code("What is the function of the liver?")


def test_docstring_of():
    assert (
        docstring_of('def f(x): """Add one to x. >>> f(1) 2 """ return x + 1')
        == "Add one to x. >>> f(1) 2"
    )
    # a window that begins inside a docstring: the text before the closing quotes
    assert docstring_of("of x and y. ''' return x") == "of x and y."
    # a window that ends inside one: from the opening quotes to the end
    assert docstring_of('def g(): """Return the answer to') == "Return the answer to"
    assert docstring_of("def g(): return 1") is None
    assert docstring_of('def g(): """Hi there""" return 1') is None  # < 3 words


def test_config_checks_the_code_settings():
    assert SemanticConfig().settings()["semantic_code_ngram"] == 3
    assert "semantic_docstring_cosine" not in SemanticConfig().settings()
    for bad in (-1, 9):
        with pytest.raises(EvalsieveError):
            SemanticConfig(code_ngram=bad)


# -- the scan and the verifier on code rows -------------------------------------------------
EVAL = [["def add(a, b): return a + b"], ["Janet has 16 ducks"]]
BACKGROUND = ["the cat and the dog", "a b c", "d e f"]


def scan(records, **cfg):
    s = SemanticScan(EVAL, SemanticConfig(window_words=40, **cfg), BACKGROUND)
    s.scan(records)
    return s


def test_a_renamed_copy_verifies_and_a_different_function_of_the_same_shape_does_not():
    recs = [
        (1, ["def plus(x, y): return x + y"]),  # renamed copy
        (2, ["def sub(p, q): return p - q"]),  # same shape, other operation
        (3, ["the weather in Paris"]),
    ]  # prose
    s = scan(recs)
    assert s.code_rows == 1 and s.probes[0].code is not None and s.probes[1].code is None
    req = s.request()
    # both code records share rare shingles with row 0 (no background record has any), so
    # both are its candidates, compared whole (a code probe's span is its window); there is
    # no docstring, so there are no docstring pairs
    assert req["pairs"] == [[0, 0], [0, 1]] and len(s.pairs) == 2
    assert req["window_texts"] == [recs[0][1][0], recs[1][1][0]]
    copy, other = s.pairs
    assert copy.code == pytest.approx(1.0)
    # 10 shingles of row 0; 8 are in both records (df 2 of 3 windows, idf ln(4/3)); "return
    # I +" and "I + I" only in the copy (df 1, idf ln 2): 8 ln(4/3) / (8 ln(4/3) + 2 ln 2)
    a, b = idf(2, 3), idf(1, 3)
    k_other = 8 * a / (8 * a + 2 * b)
    assert other.code == pytest.approx(k_other) == pytest.approx(0.624, abs=1e-3)
    # both share only "def" and "return" (df 2) of row 0's words; add, a, b (df 0) are
    # renamed: lex = 2 ln(4/3) / (2 ln(4/3) + 3 ln 4) for both
    lex = 2 * a / (2 * a + 3 * idf(0, 3))
    assert copy.lexical == pytest.approx(lex) == other.lexical
    # the same cosine 0.8 for both; the copy's facts are its code share plus its margin
    # over the other record (its best code share elsewhere): 1 + (1 − 0.624); the other's
    # 0.624 + 0 (0.624 < 1)
    m = s.verify([0.8, 0.8])
    assert m[0].code_runner_up == pytest.approx(k_other)
    assert m[0].score == pytest.approx(sigma(0.8, lex, 1.0 + (1 - k_other)))
    assert m[0].caught and m[0].training_record == 1 and m[0].code == pytest.approx(1.0)
    assert m[0].rival is None  # row 1 (prose) has neither window among its candidates
    other_score = verifier_score(0.8, lex, None, k_other, None, 1.0)
    assert other_score == pytest.approx(sigma(0.8, lex, k_other))
    # the code channel sets them apart: at the same cosine the copy scores well over the
    # threshold, the other function of the same shape well under the copy
    assert m[0].score >= VERIFIER_THRESHOLD and m[0].score - other_score > 0.2
    # the code channel off: the row is prose, its code evidence None
    off = scan(recs, code_ngram=0)
    assert off.code_rows == 0 and off.probes[0].code is None


def test_code_rows_and_prose_rows_have_their_own_threshold():
    # row 0 is code, row 1 prose; the same code copy at cosine 0.8 (score sigma(0.8, lex,
    # 1 + (1 - 0.624)), about 0.2 with the committed weights) is caught or not by the code
    # threshold alone, whatever the prose threshold
    recs = [
        (1, ["def plus(x, y): return x + y"]),
        (2, ["def sub(p, q): return p - q"]),
        (3, ["the weather in Paris"]),
    ]
    a, b = idf(2, 3), idf(1, 3)
    score = sigma(0.8, 2 * a / (2 * a + 3 * idf(0, 3)), 1 + (1 - 8 * a / (8 * a + 2 * b)))
    for prose_t, code_t, caught in (
        (0.99, score - 1e-9, True),  # 1e-9: sums' rounding
        (score / 2, min(1.0, score + 0.01), False),
    ):
        s = scan(recs, threshold=prose_t, code_threshold=code_t)
        s.request()
        m = s.verify([0.8, 0.8])
        assert m[0].score == pytest.approx(score) and m[0].caught is caught
    assert SemanticConfig().code_threshold == VERIFIER_CODE_THRESHOLD
    assert SemanticConfig(code_threshold=0.3).settings()["semantic_code_threshold"] == 0.3
    with pytest.raises(EvalsieveError):
        SemanticConfig(code_threshold=0)


def test_docstring_pairs_follow_the_window_pairs():
    ev = [['def inc(x): """Add one to the number x. >>> inc(1) 2 """ return x + 1']]
    recs = [
        (1, ['def bump(n): """Increase the number n by one. >>> bump(4) 5 """ return n + 1']),
        (2, ["def bump(n): return n + 1"]),
    ]  # no docstring
    s = SemanticScan(ev, SemanticConfig(window_words=40), BACKGROUND)
    s.scan(recs)
    req = s.request()
    assert req["eval_texts"] == [ev[0][0], "Add one to the number x. >>> inc(1) 2"]
    assert req["window_texts"][:2] == [recs[0][1][0], recs[1][1][0]]
    assert req["window_texts"][2:] == ["Increase the number n by one. >>> bump(4) 5"]
    assert req["pairs"] == [[0, 0], [0, 1], [1, 2]]  # the docstring pair last
    m = s.verify([0.5, 0.6, 0.9])
    # record 1: meaning = the better of its cosine 0.5 and the docstrings' 0.9; record 2 has
    # no docstring: its cosine 0.6. Each one's code margin is over the other record
    p1, p2 = s.pairs
    s1 = sigma(0.9, p1.lexical, p1.code + max(0, p1.code - p2.code))
    s2 = sigma(0.6, p2.lexical, p2.code + max(0, p2.code - p1.code))
    assert m[0].score == pytest.approx(max(s1, s2))
    best = 1 if s1 >= s2 else 2
    assert m[0].training_record == best
    assert m[0].docstring_cosine == (pytest.approx(0.9) if best == 1 else None)
    assert s.figures()["docstring_pairs"] == 1
    with pytest.raises(EvalsieveError):
        s.verify([0.5, 0.6])  # the docstring pair's cosine is missing


def test_pass_is_dropped_from_code_tokens():
    # "while i < n: pass i += 1" and the same without the no-op read alike
    assert code_tokens("pass") == ()
    assert (
        tokens_of("while i < n: pass i += 1")
        == tokens_of("while i < n: i += 1")
        == ["while", "I", "<", "I", ":", "I", "+=", "N"]
    )


def test_explain_away_between_two_eval_rows():
    # two twin tasks and one window; row 0 matches it better, so row 1 loses the difference
    # (one record: no code share elsewhere, the runner-up is 0.0)
    ev = [["def inc(x): return x + 1"], ["def dec(x): return x - 1"]]
    s = SemanticScan(ev, SemanticConfig(window_words=40), BACKGROUND)
    s.scan([(1, ["def bump(n): return n + 1"])])
    req = s.request()
    assert req["pairs"] == [[0, 0], [1, 0]]
    base = [
        verifier_score(c, x.lexical, None, x.code, None, 0.0) for c, x in zip((0.9, 0.8), s.pairs)
    ]
    m = s.verify([0.9, 0.8])
    assert m[0].score == pytest.approx(base[0]) and m[0].rival == pytest.approx(base[1])
    assert base[0] > base[1]
    assert m[1].score == pytest.approx(max(0.0, 2 * base[1] - base[0]))
    assert m[1].rival == pytest.approx(base[0])


def test_verifier_features_on_code_rows():
    # facts = the code share (not the numbers' share); meaning = the better cosine
    assert features(0.8, 0.2, 0.5, code=0.6, code_runner_up=0.6) == (0.8, 0.2, 0.6)
    assert features(0.8, 0.2, None, code=0.6, docstring_cosine=0.7) == (0.8, 0.2, 0.6)
    assert features(0.5, 0.2, None, code=0.6, docstring_cosine=0.7) == (0.7, 0.2, 0.6)
    # the margin is one-sided: a runner-up above the pair's own code share adds nothing;
    # one below adds the difference
    assert features(0.5, 0.2, None, code=0.6, code_runner_up=0.8)[2] == 0.6
    assert features(0.5, 0.2, None, code=0.6, code_runner_up=0.2)[2] == pytest.approx(1.0)


def test_math_prose_is_not_code():
    # MATH-500 and MMLU write functions in prose; none of these is a code row
    assert not is_code("What is the domain of the function $f(x)=\\frac{2x-7}{x}$?")
    assert not is_code("The region bounded by the x-axis and the function f(x) = x/(1 + x^3)")
    assert not is_code("Consider the function $z(x,y)$ describing the paraboloid")
    assert not is_code("Marx said the working class into: a class in itself")
    assert not is_code("A class of 30 students took a test.\nThe class average: 84")
