"""The settings of a contamination run: :class:`ContaminationConfig` and the ``clean`` rules.

Validated on construction, so a run fails at its start (the page's ``cont.start``), not after
the training pass; :meth:`ContaminationConfig.settings` is what the run stamp records.
:class:`evalsieve.contamination_job.ContaminationJob` runs a run with these settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import constants
from .errors import bad_input
from .records import SKIP_RULE
from .semantic import SemanticConfig
from .verdict import RUNGS

#: What ``eval.clean.*`` keeps, by the ``clean`` setting (stamped with these words; one
#: table in constants.py, which the page receives in ``ready.constants.clean_rules``).
CLEAN_RULES = constants.CLEAN_RULES


@dataclass(frozen=True)
class ContaminationConfig:
    """Settings of a contamination run.

    Attributes:
        eval_fields: field paths of the eval file to score (see :mod:`evalsieve.fields`).
        train_fields: field paths of the training file to search.
        n: n-gram size in words, or None for the rule's choice (5th percentile, 8..13).
        boilerplate: run the boilerplate pass (default on).
        threshold: contaminated when containment ≥ threshold, in (0, 1]; None = any overlap.
        clean: which rows ``eval.clean.*`` keeps (``CLEAN_RULES``): ``"scored"`` (default:
            scored and not contaminated; rows too short to score are left out) or
            ``"not-contaminated"`` (every row not contaminated, too-short rows kept).
        semantic: settings of the semantic rung, or None to skip it (the exact and n-gram rungs
            always run).
        exclude_rungs: rungs whose rows leave ``eval.clean.*`` (a subset of :data:`RUNGS`);
            None = every rung that ran.
        skip_bad_lines: skip malformed JSONL/CSV/TSV records of the eval and training files
            instead of stopping (see :class:`evalsieve.records.RecordReader`); each is listed
            in ``skipped-lines.csv`` and counted per file in the stamp. A skipped eval line is
            no row and is not in ``eval.clean.*``. Parquet is not line-based: no effect.
        train_id_field: the training records' id field (``training_id`` in the report:
            :mod:`evalsieve.record_id`), or None (no id). Stamped when set.

    Example: ``ContaminationConfig(["question"], ["question", "answer"])`` scores GSM8K test
    questions against train questions and answers, N chosen by the rule, any overlap dirty.
    """

    eval_fields: tuple
    train_fields: tuple
    n: int | None = None
    boilerplate: bool = True
    threshold: float | None = None
    clean: str = "scored"
    semantic: SemanticConfig | None = None
    exclude_rungs: tuple | None = None
    skip_bad_lines: bool = False
    train_id_field: str | None = None

    def __post_init__(self):
        """Refuse bad settings at construction, so a run fails at its start (the page's
        ``cont.start``), not after the training pass.

        Raises:
            EvalsieveError(bad_input): ``n`` not an integer in constants.N_MIN..N_MAX (1..1000),
            ``threshold`` not a number in (0, 1] (0 would call every row contaminated), or
            ``boilerplate`` not a bool, an unknown ``clean`` rule, or a rung to exclude that
            does not run.
        """
        n, t = self.n, self.threshold
        if n is not None and (
            isinstance(n, bool)
            or not isinstance(n, int)
            or not constants.N_MIN <= n <= constants.N_MAX
        ):
            raise bad_input(
                f"N = {n!r} is out of range",
                expected=f"an integer from {constants.N_MIN} to {constants.N_MAX}, "
                "or none for the rule's choice",
            )
        if t is not None and (
            isinstance(t, bool)
            or not isinstance(t, (int, float))
            or not constants.THRESHOLD_MIN_EXCLUSIVE < t <= constants.THRESHOLD_MAX
        ):
            raise bad_input(
                f"containment threshold {t!r} is out of range",
                expected="a number above 0 and at most 1, or 'any overlap'",
            )
        if not isinstance(self.boilerplate, bool):
            raise bad_input(
                f"boilerplate = {self.boilerplate!r} is not on or off", expected="true or false"
            )
        if self.clean not in CLEAN_RULES:
            raise bad_input(f"unknown clean rule {self.clean!r}", expected=" or ".join(CLEAN_RULES))
        bad = [r for r in (self.exclude_rungs or ()) if r not in self.rungs]
        if bad:
            raise bad_input(
                f"cannot exclude rung(s) {', '.join(map(str, bad))}",
                expected="rungs that run: " + ", ".join(self.rungs),
            )

    @property
    def rungs(self) -> tuple:
        """The rungs that run, in ladder order."""
        return RUNGS if self.semantic is not None else RUNGS[:2]

    @property
    def excluded(self) -> tuple:
        """The rungs whose rows leave the clean file."""
        return (
            self.rungs
            if self.exclude_rungs is None
            else tuple(r for r in self.rungs if r in self.exclude_rungs)
        )

    def settings(self) -> dict:
        """The settings as plain JSON values, for the run stamp."""
        out = {
            "eval_fields": list(self.eval_fields),
            "train_fields": list(self.train_fields),
            "n_requested": self.n,
            "boilerplate": self.boilerplate,
            "threshold": self.threshold if self.threshold is not None else "any overlap",
            "clean": CLEAN_RULES[self.clean],
            "rungs": list(self.rungs),
            "clean_file_excludes": list(self.excluded),
        }
        if self.semantic is not None:
            out.update(self.semantic.settings())
        if self.skip_bad_lines:  # stamped only when on (stamps of runs without it unchanged)
            out["skip_bad_lines"] = SKIP_RULE
        if self.train_id_field:
            out["train_id_field"] = self.train_id_field
        return out
