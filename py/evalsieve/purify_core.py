"""Purify: remove the eval set's n-grams from training records (the pure core).

The rule is the contamination job's own (:mod:`evalsieve.ngrams`): the same eval index, the
same words (:mod:`evalsieve.text`), the same N and the same boilerplate cut-off. What it
removes follows the GPT-3 / NeMo Curator recipe (Brown et al. 2020, App. C; NeMo Curator
``TaskDecontamination``; the lm-evaluation-harness janitor):

* ``drop``: a training record holding a *counted* eval n-gram in a chosen field is left out;
* ``cut`` (the default): every occurrence of a counted n-gram in a field value is removed
  together with ``radius`` (R = 200) characters on each side; the pieces of the value
  between cuts are kept when at least ``min_piece`` (200) characters long; a record cut in
  more than ``max_splits`` (10) places is dropped.

Counted n-grams: the non-boilerplate n-grams of the eval rows that count (``rows``):
``"scored"`` = every row that got a containment, ``"contaminated"`` = only the rows the
contamination job calls contaminated. A boilerplate n-gram (in more than the cut-off's
training records) cuts nothing, as it scores nothing.

Where a cut goes, exactly (characters are Python code points of the field value as read,
e.g. a JSON string after its escapes are decoded):

1. An n-gram's span runs from the first to the last original character of its N words:
   each normalised word maps back to the characters it came from (:func:`word_spans`), so
   NFKC and deleted punctuation never shift a cut; ``"(Don't,"`` gives the word ``dont``
   spanning ``Don't``.
2. Its region is every white-space-separated token of the value that overlaps
   ``[start - R, end + R)`` (clamped to the value): a cut never splits a token, and the
   white space around a region stays with the pieces, so joining pieces makes no new word.
3. Overlapping or touching regions merge; a record's *splits* are its merged regions, over
   all its chosen field values. More than ``max_splits`` drops the record (NeMo Curator
   counts its pieces; the janitor counts matched windows, so one long copy drops a
   document there; here one copied passage is one region).
4. The value becomes its pieces between regions, those shorter than ``min_piece``
   characters left out, joined with nothing in between. Every kept piece is a substring
   of the original value.
5. A record whose chosen fields keep no word, or whose joined pieces would hold a counted
   n-gram again, is dropped.

Standard library only (runs in Pyodide too).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .errors import EvalsieveError, bad_input
from .text import normalize_text

MODES = ("cut", "drop")
#: Which eval rows' n-grams a purify removes (stamped with these words).
ROWS = {
    "scored": "every scored eval row (containment computed), contaminated or not",
    "contaminated": "only the eval rows the contamination job calls contaminated",
}
RADIUS = 200
MIN_PIECE = 200
MAX_SPLITS = 10
#: The largest R, minimum piece and maximum splits a user may set (the CLI and the page).
SETTING_MAX = 10**9
#: How the output is checked after writing: rescan every output file, or only the records
#: it changed (the others are the bytes the scan read).
SELF_CHECKS = ("changed", "full")
RULE = (
    "Counted n-grams: the eval n-grams of the chosen rows that are not boilerplate, "
    "under the contamination rule. drop: a training record holding one in a chosen "
    "field is left out. cut: each occurrence's span (its words' original characters) "
    "plus R characters each side, widened to whole white-space-separated tokens, is "
    "removed; pieces shorter than the minimum are left out, the rest joined as they "
    "are; a record with more cut regions than the maximum is dropped, as is a record "
    "left without a word. Source: GPT-3 (Brown et al. 2020, App. C), NeMo Curator "
    "TaskDecontamination, lm-evaluation-harness janitor."
)

_TOKEN = re.compile(r"\S+")
_ASCII_PUNCT = "".join(chr(c) for c in range(128) if unicodedata.category(chr(c))[0] == "P")
_ASCII_PUNCT_DEL = str.maketrans("", "", _ASCII_PUNCT)


@dataclass(frozen=True)
class PurifyConfig:
    """Settings of a purify run (every one is stamped).

    Attributes:
        mode: ``"cut"`` (default) or ``"drop"``.
        radius: R, characters removed on each side of a matched span (>= 0; 200).
        min_piece: pieces of a cut value shorter than this many characters are left out
            (>= 0; 200).
        max_splits: a record with more cut regions than this is dropped (>= 0; 10).
        rows: which eval rows' n-grams count, a key of :data:`ROWS` (``"scored"``).
    Raises:
        EvalsieveError(bad_input): an unknown mode or rows choice, or a number that is not
        a whole number from 0 to :data:`SETTING_MAX`.

    Example: ``PurifyConfig()`` is NeMo Curator's defaults; ``PurifyConfig("drop")`` leaves
    out every record holding a counted n-gram.
    """

    mode: str = "cut"
    radius: int = RADIUS
    min_piece: int = MIN_PIECE
    max_splits: int = MAX_SPLITS
    rows: str = "scored"

    def __post_init__(self):
        if self.mode not in MODES:
            raise bad_input(f"unknown purify mode {self.mode!r}", expected="cut or drop")
        if self.rows not in ROWS:
            raise bad_input(f"unknown rows choice {self.rows!r}", expected=" or ".join(ROWS))
        for name in ("radius", "min_piece", "max_splits"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= SETTING_MAX:
                raise bad_input(
                    f"{name} = {v!r} is not a whole number from 0 to {SETTING_MAX}",
                    expected=f"an integer from 0 to {SETTING_MAX}",
                )

    def settings(self) -> dict:
        """The settings as plain JSON values, for the run stamp."""
        return {
            "purify_mode": self.mode,
            "purify_radius_chars": self.radius,
            "purify_min_piece_chars": self.min_piece,
            "purify_max_splits": self.max_splits,
            "purify_rows": ROWS[self.rows],
            "purify_rule": RULE,
        }


# -- words back to their characters ---------------------------------------------------------
def word_spans(text: str) -> list[tuple[str, int, int]]:
    """The normalised words of ``text`` with the original characters they came from.

    Args:
        text: one field value.
    Returns:
        ``[(word, start, end)]`` in order: ``[w for w, _, _ in result] ==
        normalize_text(text).split()`` (checked by :func:`segment_matches` on every use, and
        by property tests), and ``text[start:end]`` holds every character that contributed
        to ``word`` (from the first to the last; deleted punctuation inside a word is
        inside the span, at its edges outside).

    How: white space is a boundary of the rule (normalising each white-space-separated
    token alone gives the same words as normalising the text; tests/py/test_purify.py checks
    every white-space character). Inside a token, each starter with its combining marks is
    normalised alone when that gives the token's normal form (it does unless NFKC composes
    across them or a final sigma depends on its neighbours); else the token's words all
    span the whole token.
    """
    out: list[tuple[str, int, int]] = []
    ascii_text = text.isascii()
    for m in _TOKEN.finditer(text):
        tok = m.group()
        s0 = m.start()
        if ascii_text or tok.isascii():
            word = tok.translate(_ASCII_PUNCT_DEL).lower()
            if not word:
                continue
            lead = len(tok) - len(tok.lstrip(_ASCII_PUNCT))
            trail = len(tok) - len(tok.rstrip(_ASCII_PUNCT))
            out.append((word, s0 + lead, s0 + len(tok) - trail))
            continue
        out.extend(_token_words(tok, s0))
    return out


def _token_words(tok: str, s0: int) -> list[tuple[str, int, int]]:
    """The words of one non-ASCII token (no white space in it) with their spans."""
    whole = normalize_text(tok)
    if not whole.split():
        return []
    comb = unicodedata.combining
    starts = [i for i, c in enumerate(tok) if i == 0 or not comb(c)]
    bounds = starts + [len(tok)]
    parts = [normalize_text(tok[bounds[k] : bounds[k + 1]]) for k in range(len(starts))]
    if "".join(parts) != whole:  # composition across clusters, or a context-cased letter
        return [(w, s0, s0 + len(tok)) for w in whole.split()]
    owner = [k for k, p in enumerate(parts) for _ in p]  # normalised char -> cluster
    out = []
    for m in _TOKEN.finditer(whole):
        first, last = owner[m.start()], owner[m.end() - 1]
        out.append((m.group(), s0 + bounds[first], s0 + bounds[last + 1]))
    return out


# -- matches and cuts -----------------------------------------------------------------------
def segment_matches(text: str, index, counted) -> tuple[set, list[tuple[int, int, int]]]:
    """The eval n-grams of one field value, and where the counted ones are.

    Args:
        text: the field value as read.
        index: the :class:`ngrams.EvalIndex`.
        counted: a container of the n-gram ids to remove.
    Returns:
        ``(found, matches)``: every eval n-gram id in the value (what
        :meth:`TrainingScan.scan` finds in it), and one ``(start, end, id)`` per occurrence
        of a counted n-gram, in order of position (character offsets into ``text``).
    Raises:
        EvalsieveError(internal): the word map disagrees with the rule's words (a bug).
    """
    ws = word_spans(text)
    n = index.n
    found: set = set()
    matches: list[tuple[int, int, int]] = []
    if len(ws) < n:
        return found, matches
    words = [w for w, _, _ in ws]
    if words != normalize_text(text).split():
        raise EvalsieveError(
            "internal", "the words' character map disagrees with the rule's words", detail=text[:80]
        )
    id_of = index.id_of
    for i in range(len(words) - n + 1):
        gid = id_of(" ".join(words[i : i + n]))
        if gid is None:
            continue
        found.add(gid)
        if gid in counted:
            matches.append((ws[i][1], ws[i + n - 1][2], gid))
    return found, matches


def cut_regions(text: str, spans, radius: int) -> list[tuple[int, int]]:
    """Merged cut regions of a value: each span widened by ``radius`` characters each side,
    then to every white-space-separated token it overlaps.

    Args:
        text: the field value; spans: ``(start, end, ...)`` character spans (ascending
            start not needed); radius: R >= 0.
    Returns:
        Disjoint ``(start, end)`` regions in order; two regions that would overlap or touch
        are one. A region starts at a token's first character and ends after a token's
        last, so ``text[start - 1]`` and ``text[end]`` are white space (or outside).

    Example: in ``"aaa bbb ccc ddd"`` the span of ``bbb`` is (4, 7); with R = 1 it widens
    to [3, 8), which overlaps the token ``bbb`` only: ``[(4, 7)]``; with R = 2 to [2, 9),
    which overlaps ``aaa``, ``bbb`` and ``ccc``: ``[(0, 11)]``.
    """
    size = len(text)
    out: list[list[int]] = []
    for sp in sorted(spans):
        a, b = max(0, sp[0] - radius), min(size, sp[1] + radius)
        # first token overlapping [a, b): back to the start of the token holding a, or on
        # to the next token when a is white space
        if text[a].isspace():
            while a < b and text[a].isspace():
                a += 1
        else:
            while a > 0 and not text[a - 1].isspace():
                a -= 1
        # last token overlapping [a, b): on to the end of the token holding b - 1
        if text[b - 1].isspace():
            while b > a and text[b - 1].isspace():
                b -= 1
        else:
            while b < size and not text[b].isspace():
                b += 1
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def cut_regions_raw(spans) -> list[tuple[int, int]]:
    """``(start, end)`` spans (ascending start) with overlapping or touching ones merged."""
    out: list[list[int]] = []
    for sp in spans:
        if out and sp[0] <= out[-1][1]:
            out[-1][1] = max(out[-1][1], sp[1])
        else:
            out.append([sp[0], sp[1]])
    return [(a, b) for a, b in out]


def kept_pieces(size: int, regions, min_piece: int) -> list[tuple[int, int]]:
    """The pieces of a value of ``size`` characters between ``regions`` (disjoint, in
    order) that are at least ``min_piece`` characters long, as ``(start, end)``."""
    out, at = [], 0
    for a, b in list(regions) + [(size, size)]:
        if a - at >= max(min_piece, 1):
            out.append((at, a))
        at = b
    return out


@dataclass
class RecordPlan:
    """What purify does to one training record.

    Attributes:
        action: ``""`` (untouched), ``"cut"`` or ``"dropped"``.
        reason: why a record is dropped (``"drop mode"``, ``"split N times (more than M)"``,
            ``"no word left"``, ``"the joined pieces hold an eval n-gram"``), else "".
        values: per segment, its new text, or None when it is unchanged (cut only).
        regions: per segment, its cut regions ``(start, end)`` (empty when none; a record
            dropped for its splits keeps them, to count them).
        matched: per segment, the counted n-grams' spans, overlapping ones merged.
        chars_removed: characters of the chosen fields removed (all of them when dropped).
        ngrams: counted n-gram ids matched in the record (sorted).
        occurrences: counted n-gram occurrences matched.
        found: every eval n-gram id in the record (what the training scan found in it).
    """

    action: str = ""
    reason: str = ""
    values: list = field(default_factory=list)
    regions: list = field(default_factory=list)
    matched: list = field(default_factory=list)
    chars_removed: int = 0
    ngrams: list = field(default_factory=list)
    occurrences: int = 0
    found: set = field(default_factory=set)

    @property
    def splits(self) -> int:
        """Cut regions over all the record's chosen field values."""
        return sum(len(r) for r in self.regions)


def plan_record(segments: list[str], index, counted, config: PurifyConfig) -> RecordPlan:
    """Decide what purify does to one record, from its chosen field values.

    Args:
        segments: the record's field values, as :meth:`FieldExtractor.segments` gives them.
        index: the eval index; counted: the n-gram ids to remove; config: the settings.
    Returns:
        A :class:`RecordPlan` (``action == ""`` when the record holds no counted n-gram).
    """
    plan = RecordPlan()
    hits = []
    for text in segments:
        found, matches = segment_matches(text, index, counted)
        plan.found |= found
        hits.append(matches)
    gids = sorted({m[2] for ms in hits for m in ms})
    plan.regions = [[] for _ in segments]
    plan.matched = [cut_regions_raw(ms) for ms in hits]
    if not gids:
        plan.values = [None] * len(segments)
        return plan
    plan.ngrams = gids
    plan.occurrences = sum(len(ms) for ms in hits)
    total = sum(len(t) for t in segments)
    if config.mode == "drop":
        return _dropped(plan, "drop mode", total, segments)
    plan.regions = [
        cut_regions(t, ms, config.radius) if ms else [] for t, ms in zip(segments, hits)
    ]
    if plan.splits > config.max_splits:
        return _dropped(
            plan, f"split {plan.splits} times (more than {config.max_splits})", total, segments
        )
    values, removed = [], 0
    for text, regs in zip(segments, plan.regions):
        if not regs:
            values.append(None)
            continue
        new = "".join(text[a:b] for a, b in kept_pieces(len(text), regs, config.min_piece))
        removed += len(text) - len(new)
        values.append(new)
    after = [t if v is None else v for t, v in zip(segments, values)]
    if not any(normalize_text(t).split() for t in after):
        return _dropped(plan, "no word left", total, segments)
    if any(segment_matches(t, index, counted)[1] for t, v in zip(after, values) if v is not None):
        return _dropped(plan, "the joined pieces hold an eval n-gram", total, segments)
    plan.action, plan.values, plan.chars_removed = "cut", values, removed
    return plan


def _dropped(plan: RecordPlan, reason: str, total: int, segments) -> RecordPlan:
    plan.action, plan.reason, plan.chars_removed = "dropped", reason, total
    plan.values = [None] * len(segments)
    return plan


# -- which n-grams count, and the self-check ------------------------------------------------
def boilerplate_ids(counts: list[int], cutoff: int) -> frozenset:
    """The n-gram ids in more than ``cutoff`` training records (none when cutoff is 0: the
    boilerplate pass is off)."""
    return frozenset(g for g, c in enumerate(counts) if c > cutoff) if cutoff else frozenset()


def counted_ngrams(
    index, scores, boilerplate: frozenset, rows: str
) -> tuple[frozenset, dict[int, list[int]]]:
    """The n-grams purify removes and, per n-gram, the eval rows it belongs to.

    Args:
        index: the eval index; scores: the contamination job's :class:`RowScore` list (one
            per index row); boilerplate: from :func:`boilerplate_ids`; rows: a key of
            :data:`ROWS`.
    Returns:
        ``(ids, rows_of)``: the counted n-gram ids (frozenset), and for each of them the
        1-based eval row numbers (of the rows that count) holding it, ascending.
    """
    want = ("clean", "contaminated") if rows == "scored" else ("contaminated",)
    rows_of: dict[int, list[int]] = {}
    for row, score in zip(index.rows, scores):
        if score.status not in want:
            continue
        for g in row.ngram_ids:
            if g not in boilerplate:
                rows_of.setdefault(g, []).append(score.eval_row)
    return frozenset(rows_of), rows_of


def still_contaminated(
    index, scores, counts: list[int], boilerplate: frozenset, threshold: float | None, rows: str
) -> dict:
    """The self-check's verdict on the purified corpus, from its n-gram counts.

    The boilerplate set is the input run's (the one purify used): counting it again on the
    output would let an n-gram that the cuts made rarer turn scorable, and call a row
    contaminated that no record still quotes beyond the cut-off it was judged by.

    Args:
        counts: per n-gram id, the purified corpus's distinct records holding it.
        threshold: the contamination job's (None = any overlap).
        rows: the purify's rows choice (which rows it was asked to clean).
    Returns:
        ``{"rows_contaminated": k, "rows_asked": m, "rows_asked_contaminated": j,
        "rows": [eval row numbers still contaminated]}``: rows with a matched scorable
        n-gram and containment at or above the threshold; ``j`` counts those among the rows
        it was asked to clean (must be 0).
    """
    want = ("clean", "contaminated") if rows == "scored" else ("contaminated",)
    dirty, asked, asked_dirty = [], 0, 0
    for row, score in zip(index.rows, scores):
        scorable = [g for g in row.ngram_ids if g not in boilerplate]
        if not scorable:
            continue
        matched = sum(1 for g in scorable if counts[g])
        is_asked = score.status in want
        asked += is_asked
        if matched and (threshold is None or matched / len(scorable) >= threshold):
            dirty.append(score.eval_row)
            asked_dirty += is_asked
    return {
        "rows_contaminated": len(dirty),
        "rows_asked": asked,
        "rows_asked_contaminated": asked_dirty,
        "rows": dirty,
    }
