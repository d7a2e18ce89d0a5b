"""The score impact of a contamination run: per-row scores joined to the eval rows.

:class:`ScoreImpact` is the part of :class:`evalsieve.contamination_job.ContaminationJob`
that takes a scores file (:meth:`ScoreImpact.set_scores`) and, at the end of
:meth:`~evalsieve.contamination_job.ContaminationJob.finish`, joins it to the eval rows and
puts the figures of :mod:`evalsieve.scores` in the summary (``score_impact``).
"""

from __future__ import annotations

from .errors import bad_input
from .verdict import leaves_clean


class ScoreImpact:
    """Mixin of the contamination job: the scores file and its impact figures (the job
    holds the state: ``score_run``, ``summary``, the eval rows and the ladder's verdict)."""

    def set_scores(self, run) -> None:
        """Attach per-row scores (a :class:`evalsieve.scores.ScoreRun`) before :meth:`finish`:
        the stamp records the file and its settings, the summary gains ``score_impact``, the
        exports gain ``score-impact.csv`` and ``scores-unmatched.csv``."""
        self.score_run = run

    def _score_impact(self) -> None:
        from .scores import contamination_impact, contamination_summary

        run = self.score_run
        if any(t[0] < 0 for t in self._skipped):
            raise bad_input(
                "score impact cannot join scores to an eval file with skipped "
                "lines (the scores' rows would be matched to the wrong eval rows)",
                file=self.eval_name,
                expected="an eval file without malformed lines, or no scores file",
            )
        head = self._eval_reader.header_raw or ""
        run.join_eval(
            self.eval_format,
            self.eval_name,
            lambda: (
                head + ("" if not head or head.endswith("\n") else "\n") + "".join(self._eval_raw)
            ),
            len(self._eval_raw),
        )
        # "contaminated" = the row leaves eval.clean (caught by an excluded rung); a row a
        # kept rung caught counts as clean when scored
        ex = self.config.excluded
        status = {
            r.eval_row: (
                "contaminated"
                if leaves_clean(self._caught[i], ex)
                else "clean"
                if r.scored
                else r.ngram_status
            )
            for i, r in enumerate(self.scores)
        }
        rung = {r.eval_row: self.rung[i] for i, r in enumerate(self.scores)}
        rows = range(1, len(self._eval_raw) + 1)
        run.figures = contamination_impact(
            run.table,
            run.join,
            [status[i] for i in rows],
            [rung[i] for i in rows],
            self.config.rungs,
        )
        self.summary["score_impact"] = contamination_summary(run.figures[0])
        if len(run.figures) > 1:
            self.summary["score_impact_more"] = [contamination_summary(f) for f in run.figures[1:]]
