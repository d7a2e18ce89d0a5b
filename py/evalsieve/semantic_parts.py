"""The semantic rung's records (standard library only): the probes an eval row is looked for
as, the training windows kept as candidates, the (probe, span) pairs, and the verdict per row.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A field value is a probe of its own when it has at least this many words.
PART_MIN_WORDS = 8


def probe_parts(segments: list[str]) -> list[tuple[int, str]]:
    """The probes of an eval row: ``(part, text)`` with part 0 = the whole row, k = its k-th
    field value (1-based), texts white-space collapsed.

    Every value of ≥ :data:`PART_MIN_WORDS` words is a probe; the whole row is one too when
    some non-empty value is shorter or none is that long. A row of one non-empty value is one
    probe (part 0); an empty row has none. Identical texts are probed once (the first part).

    Example: ``probe_parts(["Tom has 3 red apples and 2 green pears; how many fruit?", "5"])``
    is ``[(1, "Tom has 3 ... fruit?"), (0, "Tom has 3 ... fruit? 5")]``.
    """
    vals = [(k + 1, " ".join(v.split())) for k, v in enumerate(segments)]
    vals = [(k, v) for k, v in vals if v]
    if not vals:
        return []
    whole = " ".join(v for _, v in vals)
    if len(vals) == 1:
        return [(0, whole)]
    long = [(k, v) for k, v in vals if len(v.split()) >= PART_MIN_WORDS]
    out, seen = [], set()
    for k, v in long + ([(0, whole)] if len(long) < len(vals) else []):
        if v not in seen:
            seen.add(v)
            out.append((k, v))
    return out


@dataclass
class Probe:
    """One text an eval row is looked for as (:func:`probe_parts`), and its terms."""

    row: int  # 0-based eval row
    part: int  # 0 = the whole row, k = its k-th field value
    text: str
    words: int
    terms: frozenset
    numbers: frozenset
    keys: tuple = ()  # (term, weight) of its key terms
    key_weight: float = 0.0
    anchors: frozenset = frozenset()  # its terms rare in the background (place its spans)
    code: frozenset | None = None  # its code shingles when its row is code (is_code)
    docstring: str | None = None  # its docstring prose when its row is code


@dataclass
class SemanticRow:
    """The eval side of one row: its text and its probes (indices into ``SemanticScan.probes``)."""

    text: str
    words: int
    probes: tuple = ()
    code: bool = False


@dataclass
class Window:
    """One training window kept as a candidate, with a window of context either side."""

    record: int  # 1-based training record
    start: int  # the window's first word (0-based) in the record
    end: int  # the word after its last
    context_start: int  # the context's first word in the record
    context: list  # the context's words
    file: str = ""  # the training file (set_file; "" = the only one)
    serial: int = 0  # the window's number in scan order (1-based)


@dataclass
class SemanticMatch:
    """The semantic rung's verdict on one eval row.

    Attributes:
        score: the final score of the best pair in [0, 1] (None: no candidate window).
        cosine: that pair's cosine; lexical, numbers: its lexical evidence in [0, 1]
            (numbers None when the probe has no number); code: the share of its code
            shingles found (None when the row is not code or the code channel is off);
            docstring_cosine: the cosine of the probe's and the span's docstrings (None when
            either has none); rival: the best score another eval row has on the same
            window (None: no other row has it among its candidates); code_runner_up: the
            probe's best code share in a window elsewhere (another record, or a window whose
            context does not overlap this one's; 0.0 when there is none; None when not code).
        part: the probe of the best pair: 0 = the whole row, k = its k-th field value.
        training_record: 1-based record of that span (0 = none), in ``training_file`` ("" =
            the only training file); window_start: the span's first word in the record.
        window: the span's text.
        caught: score ≥ threshold.
    """

    score: float | None = None
    cosine: float | None = None
    lexical: float | None = None
    numbers: float | None = None
    training_record: int = 0
    window_start: int = 0
    window: str = ""
    caught: bool = False
    training_file: str = ""
    code: float | None = None
    docstring_cosine: float | None = None
    rival: float | None = None
    code_runner_up: float | None = None
    part: int | None = None


@dataclass
class Pair:
    """One (probe, fitted span) pair to verify, with its lexical evidence."""

    probe: int  # index into SemanticScan.probes
    window: int  # index into the kept windows
    start: int  # the span's first word in the record
    words: int  # the span's length in words
    text: int  # index of the span's text in the request's window_texts
    lexical: float
    numbers: float | None
    code: float | None
    doc: int | None = None  # index of its docstring pair in the request's pairs
