"""What a paraphrase run is set up with: its settings, the encoder it stamps, the worked example.

:class:`ParaphraseConfig` holds one run's settings and refuses bad ones at construction;
:func:`check_threshold` is the one threshold rule (a cosine in [floor, 1]) that the config and
every grouping, stamp and score figure of :class:`evalsieve.paraphrase.ParaphraseJob` apply.
``MODEL_ID``, ``POOLING``, ``NORMALISATION`` and ``DIM`` describe the encoder the stamp
names. ``WORKED_EXAMPLE`` is the input the page runs before the user gives a file.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import constants
from .errors import bad_input

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (int8 weights, ONNX)"
POOLING = "mean over the attention mask"
NORMALISATION = "L2 (unit vectors; cosine = dot product)"
DIM = constants.EMBEDDING_DIMS

#: The page's worked example (shown, computed live by the real model, until the user runs a
#: file): rows 1-2 ask to reset a password, row 3 joins them only through row 2 (a chained
#: group at 0.90: cosines 1-2 0.941, 2-3 0.902, 1-3 0.829 with the int8 model); rows 4-5
#: ask for the capital of France (0.942); row 6 is unrelated.
WORKED_EXAMPLE = (
    "How do I reset my password?",
    "I forgot my password, how do I reset it?",
    "I forgot my password, what should I do?",
    "What is the capital of France?",
    "Which city is the capital of France?",
    "Name a mammal that can fly.",
)


def worked_example_jsonl() -> str:
    """The worked example as a JSONL eval file (fields ``id`` and ``text``)."""
    import json

    return "".join(
        json.dumps({"id": f"ex{i + 1}", "text": t}) + "\n" for i, t in enumerate(WORKED_EXAMPLE)
    )


@dataclass(frozen=True)
class ParaphraseConfig:
    """Settings of a paraphrase run.

    Attributes:
        field: the text field path to embed (see :mod:`evalsieve.fields`), or a tuple of
            paths embedded together (MMLU's ``question`` + ``choice0`` ...); the values of one
            row (several paths, or several values of ``messages[].content``) are joined with a
            newline, as the contamination job joins a row's fields.
        label_field: a field whose value names each row in the exports (an id), or None.
        threshold: the run's first threshold (cosine in [floor, 1]; a pair is an edge when
            cosine ≥ threshold); every grouping and export names its own threshold.
        floor: the lowest threshold the slider allows; the encoder side keeps every pair
            with cosine ≥ floor.
        window: word pieces per row, including [CLS] and [SEP].
        skip_bad_lines: skip malformed JSONL/CSV/TSV records instead of stopping (CLI
            ``--skip-bad-lines``; see :class:`evalsieve.records.RecordReader`): each keeps its
            row number, is listed in ``skipped-lines.csv`` and counted in the stamp.

    Example: ``ParaphraseConfig("question", "id", 0.90)``.
    """

    field: str
    label_field: str | None = None
    threshold: float = constants.PARA_THRESHOLD_DEFAULT
    floor: float = constants.PARA_FLOOR
    window: int = constants.PARA_WINDOW
    skip_bad_lines: bool = False

    def __post_init__(self):
        """Refuse bad settings at construction (the page's ``para.start``), before any pass.

        Raises:
            EvalsieveError(bad_input): ``field`` not a non-empty path; ``floor`` not a cosine
            in [0, 1] (the drivers set their own: the page constants.PARA_FLOOR, the CLI down
            to constants.PARA_CLI_FLOOR); ``threshold`` not in [floor, 1]; ``window`` not a
            whole number of word pieces in 3..constants.PARA_WINDOW.
        """
        paths = self.field if isinstance(self.field, (tuple, list)) else (self.field,)
        if not paths or not all(isinstance(p, str) and p for p in paths):
            raise bad_input(
                f"field {self.field!r} is not a field path",
                expected="a text field path, e.g. question, or several",
            )
        f = self.floor
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 <= f <= 1:
            raise bad_input(f"cosine floor {f!r} is out of range", expected="a cosine from 0 to 1")
        check_threshold(self.threshold, f)
        w = self.window
        if isinstance(w, bool) or not isinstance(w, int) or not 3 <= w <= constants.PARA_WINDOW:
            raise bad_input(
                f"token window {w!r} is out of range",
                expected=f"a whole number of word pieces from 3 to {constants.PARA_WINDOW}",
            )


def check_threshold(threshold, floor: float) -> float:
    """``threshold`` as a float in [floor, 1], or a bad_input error."""
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        t = None
    if t is None or not floor <= t <= 1:
        raise bad_input(
            f"threshold {threshold!r} is out of range", expected=f"a cosine from {floor} to 1"
        )
    return t
