"""The paraphrase job: which rows of one eval set ask the same thing in other words?

:class:`ParaphraseJob` is the state machine both drivers run: feed the eval file's text, end
the eval pass (the rows' texts go to the encoder), hand back the encoder side's results
(candidate pairs with cosine ≥ the floor, each row's nearest neighbour, the embeddings for
exact cosines of non-candidate pairs), then group at any threshold as often as the user
moves the slider (no re-embedding), and export at any threshold. Every threshold is an
argument: the job holds no "current threshold" (the exports' threshold is the one in the
stamp they are built with).

The encoder (the driver's business): sentence-transformers all-MiniLM-L6-v2, int8 weights,
ONNX; mean pooling over the attention mask, L2 normalisation; 256 word pieces per row
including [CLS] and [SEP] (longer rows are truncated and counted). Cosine = dot product of
the unit vectors. The settings, the encoder's stamped description and the page's worked
example live in :mod:`evalsieve.para_config` (re-exported here).
"""

from __future__ import annotations

from array import array

from . import constants
from .errors import bad_input
from .fields import FieldExtractor
from .record_id import id_text
from .grouping import Grouping, PairGraph, group_paraphrases
from .dedup import check_keep, dropped_rows, kept_positions
from .para_config import DIM, MODEL_ID, NORMALISATION, POOLING, ParaphraseConfig, check_threshold
from .para_config import WORKED_EXAMPLE, worked_example_jsonl  # noqa: F401 (re-exported)
from .para_exports import GROUP_COLUMNS, PAIR_COLUMNS  # noqa: F401 (re-exported)
from .records import Record, RecordReader
from .results import ParaphraseResult
from .stamps import InputFile, RunStamp

VIEW_PAIRS, VIEW_GROUPS, VIEW_MEMBERS, VIEW_CHARS = 50, 20, 8, 240
#: Member pairs a regroup may spend on the shown groups' lowest pairs and representatives,
#: largest group first; a group whose m(m−1)/2 does not fit what is left shows them as null
#: (the exports compute them). A count, not a clock: the same input gives the same view.
#: 20,000 pairs of 384-dimension dot products are ~0.1 s of CPython.
VIEW_DETAIL_PAIRS = 20_000

#: Groupings kept per job (the slider goes back and forth; each is O(rows) of memory).
KEEP_GROUPINGS = 4


def _cos3(x: float) -> str:
    return f"{x:.3f}"


class ParaphraseJob:
    """Drive one paraphrase run.

    Args:
        config: the settings.
        eval_name, eval_format: the eval file's name and format.
    Raises:
        EvalsieveError(bad_input): malformed input (from the reader), bad settings.
    """

    def __init__(self, config: ParaphraseConfig, eval_name: str, eval_format: str):
        check_threshold(config.threshold, config.floor)
        self.config = config
        self.eval_name, self.eval_format = eval_name, eval_format
        self._reader = RecordReader(eval_format, eval_name, config.skip_bad_lines)
        self._values = 0
        self._text = FieldExtractor(eval_format, list(self.fields), eval_name)
        self._label = (
            FieldExtractor(eval_format, [config.label_field], eval_name)
            if config.label_field
            else None
        )
        self.rows: list[int] = []  # 1-based eval record numbers of embedded rows
        self.texts: list[str] = []
        self.labels: list[str] = []
        self.empty_rows: list[int] = []
        self.graph: PairGraph | None = None
        self.nn: list[float] = []
        self.nn_index: list[int] = []
        self.truncated = 0
        # node -> UTF-16 offset in its text where the encoder's window ended (truncated rows,
        # as the driver measured it; shown by the page, not part of any rule or export)
        self.cuts: dict[int, int] = {}
        self.model: dict = {}
        self._groupings: dict[float, Grouping] = {}  # by threshold, most recent last
        self.score_run = None  # a scores.ScoreRun (set_scores), for the score impact
        self._raw: list[str] = []  # every record's own text (eval.deduplicated.*)
        self._raw_rows: list[int] = []  # and its 1-based record number
        self._impact: dict[float, list] = {}  # score-impact figures by threshold

    @property
    def fields(self) -> tuple:
        """The embedded field paths, in order (one or several)."""
        f = self.config.field
        return tuple(f) if isinstance(f, (tuple, list)) else (f,)

    def set_scores(self, run) -> None:
        """Attach per-row scores (a :class:`evalsieve.scores.ScoreRun`) before the eval pass:
        :meth:`stamp` then records them and :meth:`score_impact` gives the naive and
        clustered standard errors at a threshold; the exports gain ``score-impact.csv`` and
        ``scores-unmatched.csv``.

        Raises:
            EvalsieveError(bad_input): called after :meth:`feed_eval`.
        """
        if self._reader.records_read:
            raise bad_input(
                "scores must be set before the eval pass", expected="set_scores before feed_eval"
            )
        self.score_run = run

    # -- eval pass --------------------------------------------------------------------------
    def feed_eval(self, text: str) -> int:
        """Parse a chunk of the eval file. Returns rows read so far."""
        self._take(self._reader.feed(text))
        return self._reader.records_read

    def feed_eval_values(self, values: list[dict]) -> int:
        """Take eval rows given as parsed values (a Parquet row group read by the driver),
        numbered on from the rows before. Returns rows read so far."""
        start = self._values
        self._values += len(values)
        self._take(Record(start + i + 1, start + i + 1, "", v) for i, v in enumerate(values))
        return self._values

    def _take(self, records) -> None:
        for r in records:
            self._raw.append(r.raw)
            self._raw_rows.append(r.index)
            segs = self._text.segments(r.value)
            t = "\n".join(segs)
            if not t.strip():
                self.empty_rows.append(r.index)
                continue
            self.rows.append(r.index)
            self.texts.append(t)
            if self._label:
                # a label names its row as an id does: objects and lists as JSON text
                self.labels.append(" | ".join(self._label.segments(r.value, id_text)))

    def end_eval(self) -> dict:
        """Close the eval file. Returns ``{rows, rows_empty, texts}`` (texts to embed, in
        order; node id i is ``texts[i]``) and, with ``skip_bad_lines``, ``skipped_lines:
        {eval_name: count}`` (the count the stamp records; the page shows it).

        Raises:
            EvalsieveError(bad_input): no row has text in the field.
        """
        self._take(self._reader.finish())
        if not self.texts:
            raise bad_input(
                f"no row has text in the field {' + '.join(self.fields)!r}",
                file=self.eval_name,
                expected="a text field with values",
            )
        out = {"rows": len(self.texts), "rows_empty": len(self.empty_rows), "texts": self.texts}
        if self.config.skip_bad_lines:
            out["skipped_lines"] = {self.eval_name: len(self._reader.skipped)}
        return out

    # -- encoder results --------------------------------------------------------------------
    def set_similarity(
        self, candidates, nn, nn_index, truncated: int, embeddings=None, model: dict | None = None
    ) -> None:
        """Take the encoder side's results.

        Args:
            candidates: pairs ``(i, j, cos)`` (node ids, each pair once) with cos ≥
                ``config.floor``; or three flat sequences ``(I, J, C)`` of equal length.
            nn: per node, the highest cosine to any other node (len = rows).
            nn_index: per node, that neighbour's node id.
            truncated: rows longer than the token window (cut to it before embedding).
            embeddings: float32 unit vectors, row-major ``rows × 384`` (bytes or
                ``array('f')``), used for exact cosines of member pairs under the floor;
                the candidates' cosines must be their dot products up to float32 rounding
                (as the tile scan gives them).
            model: ``{"model_sha256", ...}`` for the stamp.
        Raises:
            EvalsieveError(bad_input): lengths that do not match the rows, a pair outside
                the rows or given twice.
        """
        n = len(self.texts)
        if isinstance(candidates, tuple) and len(candidates) == 3:
            candidates = zip(candidates[0], candidates[1], candidates[2])
        if len(nn) != n or len(nn_index) != n:
            raise bad_input(
                f"nearest-neighbour lists of {len(nn)}/{len(nn_index)} for {n} rows",
                expected="one entry per embedded row",
            )
        emb = None
        if embeddings is not None:
            emb = embeddings if isinstance(embeddings, array) else array("f", bytes(embeddings))
            if len(emb) != n * DIM:
                raise bad_input(
                    f"{len(emb)} embedding values for {n} rows",
                    expected=f"rows × {DIM} float32 values",
                )
        try:
            self.graph = PairGraph(
                n,
                candidates,
                self.config.floor,
                emb,
                DIM,
                cosine=None if emb is not None else _no_embeddings,
            )
        except ValueError as e:
            raise bad_input(
                f"similarity results: {e}", expected="each pair of embedded rows once"
            ) from None
        self.nn = [float(x) for x in nn]
        self.nn_index = [int(x) for x in nn_index]
        self.truncated = int(truncated)
        self.model = dict(model or {})
        self._groupings.clear()

    def cosine(self, i: int, j: int) -> float:
        """Exact cosine of nodes ``i`` and ``j`` from the embeddings (pure Python dot)."""
        if self.graph is None or self.graph.vectors is None:
            _no_embeddings(i, j)
        return self.graph.exact(i, j)

    # -- grouping ---------------------------------------------------------------------------
    def grouping(self, threshold: float) -> Grouping:
        """The :class:`Grouping` at ``threshold`` (kept for the last few thresholds, so the
        view's and the exports' on-demand details are computed once).

        Raises:
            EvalsieveError(bad_input): threshold outside [floor, 1], or no similarity yet.
        """
        if self.graph is None:
            raise bad_input("no similarity results yet", expected="set_similarity before group")
        t = check_threshold(threshold, self.config.floor)
        g = self._groupings.pop(t, None)
        if g is None:
            g = group_paraphrases(self.graph, t)
        self._groupings[t] = g
        while len(self._groupings) > KEEP_GROUPINGS:
            del self._groupings[next(iter(self._groupings))]
        return g

    def group(self, threshold: float) -> dict:
        """Group at ``threshold``: the figures plus a ``view`` for the page (at most 50
        pairs, 20 groups, 8 member labels per group, cells clipped). Cheap: no re-embedding;
        O(edges + rows), plus the lowest pairs and representatives of the (at most 20) groups
        shown, within :data:`VIEW_DETAIL_PAIRS` member pairs (a group that does not fit shows
        ``lowest``, ``lowest_pair`` and ``representative`` as null; its ``chained`` flag is
        always exact).

        Raises:
            EvalsieveError(bad_input): threshold outside [floor, 1], or no similarity yet.
        """
        g = self.grouping(threshold)
        best = (
            max(range(len(self.nn)), key=lambda i: (self.nn[i], -i)) if len(self.nn) > 1 else None
        )
        closest = None
        if best is not None and self.nn_index[best] >= 0:
            a, b = sorted((best, self.nn_index[best]))
            closest = {
                "row_a": self.rows[a],
                "row_b": self.rows[b],
                "cosine": round(self.nn[best], 6),
            }
        bins = [0] * 20
        for x in self.nn:
            bins[max(0, min(19, int(x * 20)))] += 1
        return {
            "threshold": g.threshold,
            "rows_scanned": g.rows,
            "rows_empty": len(self.empty_rows),
            "rows_in_groups": g.rows_in_groups,
            "groups": len(g.groups),
            "groups_chained": sum(1 for x in g.groups if x.chained),
            "pairs": g.pairs_total,
            "duplicate_share": round(100 * g.duplicate_share, 1),
            "effective_rows": g.effective_rows,
            "closest_pair": closest,
            "rows_truncated": self.truncated,
            "nn_histogram": {"bin_width": 0.05, "counts": bins},
            "view": self._view(g),
        }

    def _label_of(self, node: int) -> str:
        return self.labels[node] if self.labels else ""

    def _view(self, g: Grouping) -> dict:
        clip = lambda s: s if len(s) <= VIEW_CHARS else s[:VIEW_CHARS] + "…"
        pairs = [
            {
                "group": g.group_of(i) + 1,
                "row_a": self.rows[i],
                "row_b": self.rows[j],
                "label_a": self._label_of(i),
                "label_b": self._label_of(j),
                "cosine": _cos3(c),
                "text_a": clip(self.texts[i]),
                "text_b": clip(self.texts[j]),
            }
            for i, j, c in g.pairs(VIEW_PAIRS)
        ]
        groups = []
        budget = VIEW_DETAIL_PAIRS
        for k, grp in enumerate(g.groups[:VIEW_GROUPS]):
            if not grp.computed and grp.pair_count <= budget:
                budget -= grp.pair_count
                grp.detail()
            if not grp.computed:  # left to the exports (a large group)
                groups.append(
                    {
                        "group": k + 1,
                        "size": len(grp.members),
                        "members": [
                            {
                                "row": self.rows[m],
                                "label": self._label_of(m),
                                "text": clip(self.texts[m]),
                            }
                            for m in grp.members[:VIEW_MEMBERS]
                        ],
                        "more": max(0, len(grp.members) - VIEW_MEMBERS),
                        "lowest": None,
                        "lowest_pair": None,
                        "chained": grp.chained,
                        "representative": None,
                    }
                )
                continue
            d = grp.detail()
            groups.append(
                {
                    "group": k + 1,
                    "size": len(grp.members),
                    "members": [
                        {
                            "row": self.rows[m],
                            "label": self._label_of(m),
                            "text": clip(self.texts[m]),
                        }
                        for m in grp.members[:VIEW_MEMBERS]
                    ],
                    "more": max(0, len(grp.members) - VIEW_MEMBERS),
                    "lowest": _cos3(d.lowest),
                    "lowest_pair": [self.rows[d.lowest_pair[0]], self.rows[d.lowest_pair[1]]],
                    "chained": grp.chained,
                    "representative": self.rows[d.representative],
                }
            )
        return {
            "pairs": pairs,
            "pairs_total": g.pairs_total,
            "groups": groups,
            "groups_total": len(g.groups),
        }

    # -- stamp and exports ------------------------------------------------------------------
    def stamp(
        self,
        threshold: float,
        eval_file: InputFile,
        utc: str,
        assets: dict | None = None,
        runtime: str = "",
        environment: dict | None = None,
        keep: str = "first",
    ) -> RunStamp:
        """The run stamp of the exports at ``threshold``.

        ``environment``: how the page ran (RunStamp.environment: assets_from, threads,
        cross_origin_isolated, execution_provider); None in the CLI. ``keep``: the row each
        group keeps in ``eval.deduplicated.*`` (:data:`constants.DEDUP_KEEP_RULES`).

        Raises:
            EvalsieveError(bad_input): threshold outside [floor, 1]; an unknown ``keep``.
        """
        c = self.config
        settings = {
            "field": c.field if isinstance(c.field, str) else list(c.field),
            "label_field": c.label_field,
            "dedup_keep": constants.DEDUP_KEEP_RULES[check_keep(keep)],
            "threshold": check_threshold(threshold, c.floor),
            "slider_floor": c.floor,
            "model": MODEL_ID,
            "model_sha256": self.model.get("model_sha256", ""),
            "pooling": POOLING,
            "normalisation": NORMALISATION,
            "token_window": c.window,
            "rows_truncated": self.truncated,
        }
        if c.skip_bad_lines:  # stamped only when on
            from .records import SKIP_RULE

            settings["skip_bad_lines"] = SKIP_RULE
            settings["skipped_lines"] = {self.eval_name: len(self._reader.skipped)}
        inputs = (eval_file,)
        if self.score_run is not None:
            settings.update(self.score_run.settings())
            inputs += (self.score_run.file,)
        return RunStamp(
            "paraphrases",
            settings,
            inputs,
            utc,
            dict(assets or {}),
            runtime,
            dict(environment or {}),
        )

    def export_steps(self, threshold: float):
        """Compute what the exports at ``threshold`` need (every group's lowest pair and
        representative), yielding progress ``(pairs_done, pairs_total)`` in member pairs and
        ending at ``pairs_done == pairs_total``. The driver reports it and may stop (close the
        generator) to cancel; :meth:`export` finishes whatever is left. Reads no clock."""
        return self.grouping(threshold).details()

    def score_figures(self, threshold: float) -> list:
        """Per-metric score-impact figures at ``threshold`` (:func:`evalsieve.score_figures.
        paraphrase_impact`: naive and CR1 clustered SE over the paraphrase groups, one row
        per group), computed once per threshold; [] without scores.

        Raises:
            EvalsieveError(bad_input): threshold outside [floor, 1]; a join error from the
                scores (see :meth:`evalsieve.scores.ScoreRun.join_eval`).
        """
        if self.score_run is None:
            return []
        if self._reader.skipped:
            raise bad_input(
                "score impact cannot join scores to an eval file with skipped "
                "lines (the scores' rows would be matched to the wrong eval rows)",
                file=self.eval_name,
                expected="an eval file without malformed lines, or no scores file",
            )
        t = check_threshold(threshold, self.config.floor)
        if t not in self._impact:
            from .score_figures import paraphrase_impact

            run = self.score_run
            if run.join is None:
                head = self._reader.header_raw or ""
                run.join_eval(
                    self.eval_format,
                    self.eval_name,
                    lambda: (
                        head
                        + ("" if not head or head.endswith("\n") else "\n")
                        + "".join(self._raw)
                    ),
                    self._reader.records_read,
                )
            group_of, reps = {}, set()
            for k, grp in enumerate(self.grouping(t).groups):
                reps.add(self.rows[grp.detail().representative])
                for m in grp.members:
                    group_of[self.rows[m]] = k + 1
            self._impact[t] = paraphrase_impact(run.table, run.join, group_of, reps)
            run.figures = self._impact[t]
        return self._impact[t]

    def score_impact(self, threshold: float) -> dict | None:
        """The ``score_impact`` summary of the first metric at ``threshold``, or None
        without scores."""
        from .score_figures import paraphrase_summary

        figs = self.score_figures(threshold)
        return paraphrase_summary(figs[0]) if figs else None

    def result(self, stamp: RunStamp) -> ParaphraseResult:
        """The run at the stamp's threshold and keep rule (from :meth:`stamp`), frozen: every
        export is a function of it (:mod:`evalsieve.para_exports`). Computes every group's
        lowest pair and representative (what :meth:`export_steps` reports) and, with scores,
        the score figures.

        Raises:
            EvalsieveError(bad_input): a stamp not from :meth:`stamp`; a join error from the
                scores (:meth:`score_figures`).
        """
        if not isinstance(stamp, RunStamp) or stamp.job != "paraphrases":
            raise bad_input("exports need the paraphrase run's stamp", expected="job.stamp(...)")
        t = stamp.settings["threshold"]
        rule = {v: k for k, v in constants.DEDUP_KEEP_RULES.items()}[stamp.settings["dedup_keep"]]
        g = self.grouping(t)
        for _ in g.details():
            pass
        dropped = dropped_rows(g.groups, self.rows, self.texts, self.labels, rule)
        kept = kept_positions(self._raw_rows, dropped)
        figs = self.score_figures(t) if self.score_run is not None else []
        fig = self.group(t)
        summary = {
            k: fig[k]
            for k in (
                "rows_scanned",
                "rows_empty",
                "rows_in_groups",
                "groups",
                "groups_chained",
                "pairs",
                "duplicate_share",
                "effective_rows",
                "closest_pair",
                "rows_truncated",
                "threshold",
            )
        }
        summary["stamp"] = stamp.to_dict()
        if figs:
            from .score_figures import paraphrase_summary

            summary["score_impact"] = paraphrase_summary(figs[0])
            if len(figs) > 1:
                summary["score_impact_more"] = [paraphrase_summary(f) for f in figs[1:]]
        summary["rows_deduplicated"] = len(kept)
        r = self._reader
        return ParaphraseResult(
            summary=summary,
            run_stamp=stamp,
            config=self.config,
            eval_name=self.eval_name,
            eval_format=self.eval_format,
            threshold=t,
            keep=rule,
            grouping=g,
            node_rows=tuple(self.rows),
            texts=tuple(self.texts),
            labels=tuple(self.labels),
            raw=tuple(self._raw),
            raw_rows=tuple(self._raw_rows),
            header_raw=r.header_raw,
            cr=r.cr,
            bom=r.bom,
            skipped=tuple(r.skipped),
            score_run=self.score_run,
            score_figures=tuple(figs),
            kept=tuple(kept),
            dropped=tuple(dropped),
        )

    def finish(
        self,
        threshold: float,
        eval_file: InputFile,
        utc: str,
        assets: dict | None = None,
        runtime: str = "",
        environment: dict | None = None,
        keep: str = "first",
    ) -> ParaphraseResult:
        """Stamp the run at ``threshold`` (:meth:`stamp`, same arguments) and freeze it
        (:meth:`result`): the result's ``summary`` is what the CLI prints with ``--json``."""
        return self.result(
            self.stamp(threshold, eval_file, utc, assets, runtime, environment, keep)
        )


def _no_embeddings(i: int, j: int) -> float:
    raise bad_input("embeddings were not provided", expected="set_similarity(embeddings=)")
