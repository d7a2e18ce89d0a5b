"""The semantic rung's settings and window geometry (standard library only).

:class:`SemanticConfig` (the rung's settings, checked), :data:`RULE` (the rung's rule as the
stamps and the ladder print it), the window size rule (:func:`window_size`: the median probe
length clamped to :data:`WINDOW_MIN`..:data:`WINDOW_MAX`) and the windows of a record
(:func:`window_spans`); the key-term constants the candidate stage of
:class:`evalsieve.semantic.SemanticScan` uses. :mod:`evalsieve.semantic` re-exports them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import bad_input
from .semantic_terms import CODE_NGRAM
from .semantic_verifier import VERIFIER_CODE_THRESHOLD, VERIFIER_THRESHOLD, VERIFIER_WEIGHTS

#: Clamp of the window size in words (160 English words ≈ 210 word pieces < 256).
WINDOW_MIN, WINDOW_MAX = 16, 160
#: ... and in at most that share of the probes, or this many (a small eval set keeps its keys).
RARE_MIN_PROBES = 10
#: Key-term weights are summed in units of 2^-20 (integers: exact in any order).
KEY_UNITS = 1 << 20
#: A term is a key term (rare) when it is in at most this share of the background passages.
RARE_SHARE = 0.05

RULE = (
    "Semantic rung: each eval row is looked for as its probes (each chosen field value of "
    "≥ 8 words, and the whole row when a value is shorter); training records cut into "
    "windows of W words (W = median probe length in words, clamped to 16..160), stride "
    "⌈W/2⌉; candidate windows = the k with the highest IDF-weighted share of the probe's "
    "rare words and numbers (rare in the training head and among the probes; for a row "
    "that defines a function or class also its rare code shingles: n-grams of its tokens "
    "with names and literals abstracted, as Type-2 clone detection compares code); in "
    "each, the span holding most of the probe's rare terms, cut to them, is compared "
    "(for code, the window): probe and span embedded with all-MiniLM-L6-v2 (int8, 256 "
    "word pieces); a logistic regression fitted on labelled public pairs scores the "
    "cosine, the IDF-weighted share of the probe's terms in the span and the share of "
    "its numbers there (for code: of its code shingles, plus how far that share stands "
    "out from the probe's other candidates, and the docstrings' cosine); a pair then "
    "loses the amount by which another eval row scores higher on the same window "
    "(explaining away); a row is caught when its best probe scores ≥ threshold. It cannot "
    "see translations, heavy abstraction or a rewording that changes every name and "
    "number; a row it passes is clean at these rungs, not clean."
)


@dataclass(frozen=True)
class SemanticConfig:
    """Settings of the semantic rung.

    Attributes:
        window_words: window size W in words, or None for the rule's choice (median probe
            word count, clamped to 16..160).
        candidates: k, windows kept per probe by the candidate stage (≥ 1); each gives one
            fitted span to embed.
        threshold: verifier probability in (0, 1]; a prose row is caught when its best
            score ≥ threshold. The default is fitted with the verifier
            (:data:`VERIFIER_THRESHOLD`).
        code_threshold: the same for a code row (:func:`is_code`; fitted default
            :data:`VERIFIER_CODE_THRESHOLD`). The CLI's ``--semantic-threshold X`` and the
            page's ``threshold`` set both to X.
        rare_share: a term is a key term when it is in at most this share of background
            passages (W words each) and of the probes (or 10 probes), in (0, 1].
        code_ngram: n of the code channel's shingles (1..8), or 0 to turn the code channel
            off (code rows are then scored as prose).

    Example: ``SemanticConfig()`` sizes windows from the probes, embeds 8 fitted spans per
    probe and catches rows whose verifier probability is ≥ the fitted threshold.
    """

    window_words: int | None = None
    candidates: int = 8
    threshold: float = VERIFIER_THRESHOLD
    code_threshold: float = VERIFIER_CODE_THRESHOLD
    rare_share: float = RARE_SHARE
    code_ngram: int = CODE_NGRAM

    def __post_init__(self):
        from . import constants

        if self.window_words is not None and not 4 <= self.window_words <= 400:
            raise bad_input(
                f"semantic window of {self.window_words} words", expected="a window of 4..400 words"
            )
        if self.candidates < 1:
            raise bad_input(f"{self.candidates} candidates per row", expected="at least 1")
        for t in (self.threshold, self.code_threshold):
            if not 0 < t <= 1:
                raise bad_input(f"semantic threshold {t}", expected="a score in (0, 1]")
        if not 0 < self.rare_share <= 1:
            raise bad_input(f"rare share {self.rare_share}", expected="a share in (0, 1]")
        lo, hi = constants.SEMANTIC_CODE_NGRAM_MIN, constants.SEMANTIC_CODE_NGRAM_MAX
        if not lo <= self.code_ngram <= hi:
            raise bad_input(
                f"code shingles of {self.code_ngram} tokens",
                expected=f"{lo} (off) or {lo + 1}..{hi} tokens",
            )

    def settings(self) -> dict:
        """The settings as plain JSON values, for the run stamp."""
        return {
            "semantic_window_words_requested": self.window_words,
            "semantic_candidates_per_row": self.candidates,
            "semantic_threshold": self.threshold,
            "semantic_code_threshold": self.code_threshold,
            "semantic_rare_share": self.rare_share,
            "semantic_code_ngram": self.code_ngram,
            "semantic_verifier_weights": list(VERIFIER_WEIGHTS),
        }


def window_size(word_counts: list[int]) -> tuple[int, str]:
    """The rule's window size: median of the non-empty probes' word counts, clamped to 16..160.

    Args:
        word_counts: words per probe (0 for empty rows).
    Returns:
        ``(W, how)``; ``how`` says how W was chosen.
    Raises:
        EvalsieveError(bad_input): no row has a word.
    """
    xs = sorted(c for c in word_counts if c > 0)
    if not xs:
        raise bad_input("no eval row has a word", expected="at least one non-empty eval row")
    m = xs[(len(xs) - 1) // 2]  # lower median (a real probe's length)
    w = min(WINDOW_MAX, max(WINDOW_MIN, m))
    how = f"median probe length {m} words" + ("" if w == m else f", clamped to {w}")
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


def semantic_config_of(sem) -> SemanticConfig | None:
    """``args.semantic`` of the page's ``cont.start`` (bridge.py): null (the rung is off) or
    ``{window_words?, candidates?, threshold?, code_ngram?}`` (missing or null keys take
    SemanticConfig's defaults; ``threshold`` a number, for prose and code rows alike, the
    others whole numbers)."""
    if sem is None or sem is False:
        return None
    if not isinstance(sem, dict):
        raise bad_input(f"semantic = {sem!r}", expected="null, or an object of rung settings")
    known = ("window_words", "candidates", "threshold", "code_ngram")
    bad = [k for k in sem if k not in known]
    if bad:
        raise bad_input(f"unknown semantic setting(s) {', '.join(bad)}", expected=", ".join(known))
    kw = {k: sem[k] for k in known if sem.get(k) is not None}
    for k, v in kw.items():
        real = k == "threshold"
        ok = isinstance(v, (int, float)) if real else isinstance(v, int)
        if isinstance(v, bool) or not ok:
            raise bad_input(
                f"semantic {k} = {v!r}", expected="a number" if real else "a whole number"
            )
    if "threshold" in kw:  # one threshold for every row, as the CLI's --semantic-threshold
        kw["code_threshold"] = kw["threshold"]
    return SemanticConfig(**kw)
