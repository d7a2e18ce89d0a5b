"""The paraphrase job: which rows of one eval set ask the same thing in other words?

:class:`ParaphraseJob` is the state machine both drivers run: feed the eval file's text, end
the eval pass (the rows' texts go to the encoder), hand back the encoder side's results
(candidate pairs with cosine ≥ the floor, each row's nearest neighbour, the embeddings for
exact cosines of non-candidate pairs), then group at any threshold as often as the user
moves the slider (no re-embedding), and export.

The encoder (the driver's business): sentence-transformers all-MiniLM-L6-v2, int8 weights,
ONNX; mean pooling over the attention mask, L2 normalisation; 256 word pieces per row
including [CLS] and [SEP] (longer rows are truncated and counted). Cosine = dot product of
the unit vectors.
"""

from __future__ import annotations

import operator
from array import array
from dataclasses import dataclass

from . import constants
from .errors import bad_input
from .exports import write_csv
from .fields import FieldExtractor
from .grouping import Grouping, group_paraphrases
from .records import RecordReader
from .stamps import InputFile, RunStamp

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (int8 weights, ONNX)"
POOLING = "mean over the attention mask"
NORMALISATION = "L2 (unit vectors; cosine = dot product)"
DIM = constants.EMBEDDING_DIMS

PAIR_COLUMNS = ["group", "row_a", "row_b", "label_a", "label_b", "cosine", "text_a", "text_b"]
GROUP_COLUMNS = ["group", "size", "member_rows", "member_labels", "lowest_internal_cosine",
                 "lowest_pair", "chained", "representative_row", "representative_text"]

VIEW_PAIRS, VIEW_GROUPS, VIEW_MEMBERS, VIEW_CHARS = 50, 20, 8, 240

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
    return "".join(json.dumps({"id": f"ex{i + 1}", "text": t}) + "\n"
                   for i, t in enumerate(WORKED_EXAMPLE))


@dataclass(frozen=True)
class ParaphraseConfig:
    """Settings of a paraphrase run.

    Attributes:
        field: the text field path to embed (see :mod:`evalsieve.fields`); several values
            of one row (``messages[].content``) are joined with a newline.
        label_field: a field whose value names each row in the exports (an id), or None.
        threshold: cosine in [floor, 1]; a pair is an edge when cosine ≥ threshold.
        floor: the lowest threshold the slider allows; the encoder side keeps every pair
            with cosine ≥ floor.
        window: word pieces per row, including [CLS] and [SEP].

    Example: ``ParaphraseConfig("question", "id", 0.90)``.
    """
    field: str
    label_field: str | None = None
    threshold: float = constants.PARA_THRESHOLD_DEFAULT
    floor: float = constants.PARA_FLOOR
    window: int = constants.PARA_WINDOW


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
        if not config.floor <= config.threshold <= 1:
            raise bad_input(f"threshold {config.threshold} is out of range",
                            expected=f"a cosine from {config.floor} to 1")
        self.config = config
        self.eval_name, self.eval_format = eval_name, eval_format
        self._reader = RecordReader(eval_format, eval_name)
        self._text = FieldExtractor(eval_format, [config.field], eval_name)
        self._label = (FieldExtractor(eval_format, [config.label_field], eval_name)
                       if config.label_field else None)
        self.rows: list[int] = []        # 1-based eval record numbers of embedded rows
        self.texts: list[str] = []
        self.labels: list[str] = []
        self.empty_rows: list[int] = []
        self.ended = False
        self.candidates: list[tuple[int, int, float]] | None = None
        self.nn: list[float] = []
        self.nn_index: list[int] = []
        self.truncated = 0
        self._emb: array | None = None
        self.model: dict = {}
        self.grouping: Grouping | None = None
        self.stamp: RunStamp | None = None

    # -- eval pass --------------------------------------------------------------------------
    def feed_eval(self, text: str) -> int:
        """Parse a chunk of the eval file. Returns rows read so far."""
        self._take(self._reader.feed(text))
        return self._reader.records_read

    def _take(self, records) -> None:
        for r in records:
            segs = self._text.segments(r.value)
            t = "\n".join(segs)
            if not t.strip():
                self.empty_rows.append(r.index)
                continue
            self.rows.append(r.index)
            self.texts.append(t)
            if self._label:
                self.labels.append(" | ".join(self._label.segments(r.value)))

    def end_eval(self) -> dict:
        """Close the eval file. Returns ``{rows, rows_empty, texts}`` (texts to embed, in
        order; node id i is ``texts[i]``).

        Raises:
            EvalsieveError(bad_input): no row has text in the field.
        """
        self._take(self._reader.finish())
        self.ended = True
        if not self.texts:
            raise bad_input(f"no row has text in the field {self.config.field!r}",
                            file=self.eval_name, expected="a text field with values")
        return {"rows": len(self.texts), "rows_empty": len(self.empty_rows), "texts": self.texts}

    # -- encoder results --------------------------------------------------------------------
    def set_similarity(self, candidates, nn, nn_index, truncated: int, embeddings=None,
                       model: dict | None = None) -> None:
        """Take the encoder side's results.

        Args:
            candidates: pairs ``(i, j, cos)`` (node ids, i < j) with cos ≥ ``config.floor``;
                or three flat sequences ``(I, J, C)`` of equal length.
            nn: per node, the highest cosine to any other node (len = rows).
            nn_index: per node, that neighbour's node id.
            truncated: rows longer than the token window (cut to it before embedding).
            embeddings: float32 unit vectors, row-major ``rows × 384`` (bytes or
                ``array('f')``), used for exact cosines of member pairs under the floor.
            model: ``{"model_sha256", ...}`` for the stamp.
        Raises:
            EvalsieveError(bad_input): lengths that do not match the rows.
        """
        n = len(self.texts)
        if isinstance(candidates, tuple) and len(candidates) == 3:
            candidates = list(zip(candidates[0], candidates[1], candidates[2]))
        if len(nn) != n or len(nn_index) != n:
            raise bad_input(f"nearest-neighbour lists of {len(nn)}/{len(nn_index)} for {n} rows",
                            expected="one entry per embedded row")
        self.candidates = [(int(i), int(j), float(c)) if i < j else (int(j), int(i), float(c))
                           for i, j, c in candidates]
        self.nn = [float(x) for x in nn]
        self.nn_index = [int(x) for x in nn_index]
        self.truncated = int(truncated)
        if embeddings is not None:
            emb = embeddings if isinstance(embeddings, array) else array("f", bytes(embeddings))
            if len(emb) != n * DIM:
                raise bad_input(f"{len(emb)} embedding values for {n} rows",
                                expected=f"rows × {DIM} float32 values")
            self._emb = emb
        self.model = dict(model or {})

    def cosine(self, i: int, j: int) -> float:
        """Exact cosine of nodes ``i`` and ``j`` from the embeddings (pure Python dot)."""
        if self._emb is None:
            raise bad_input("embeddings were not provided", expected="set_similarity(embeddings=)")
        e = self._emb
        a = e[i * DIM:(i + 1) * DIM]
        b = e[j * DIM:(j + 1) * DIM]
        return sum(map(operator.mul, a, b))

    # -- grouping ---------------------------------------------------------------------------
    def group(self, threshold: float | None = None) -> dict:
        """Group at ``threshold`` (default: the config's). Cheap: no re-embedding.

        Returns:
            The figures plus a ``view`` for the page (at most 50 pairs, 20 groups, 8
            member labels per group, cells clipped).
        Raises:
            EvalsieveError(bad_input): threshold outside [floor, 1], or no similarity yet.
        """
        if self.candidates is None:
            raise bad_input("no similarity results yet", expected="set_similarity before group")
        t = self.config.threshold if threshold is None else float(threshold)
        if not self.config.floor <= t <= 1:
            raise bad_input(f"threshold {t} is out of range",
                            expected=f"a cosine from {self.config.floor} to 1")
        self.grouping = group_paraphrases(len(self.texts), self.candidates, t, self.cosine,
                                          self.config.floor)
        self._threshold = t
        return self.figures()

    def figures(self) -> dict:
        """The figures at the current threshold (see :func:`group`)."""
        g = self.grouping
        assert g is not None
        best = max(range(len(self.nn)), key=lambda i: (self.nn[i], -i)) if len(self.nn) > 1 else None
        closest = None
        if best is not None and self.nn_index[best] >= 0:
            a, b = sorted((best, self.nn_index[best]))
            closest = {"row_a": self.rows[a], "row_b": self.rows[b], "cosine": round(self.nn[best], 6)}
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
            "pairs": len(g.pairs),
            "duplicate_share": round(100 * g.duplicate_share, 1),
            "effective_rows": g.effective_rows,
            "closest_pair": closest,
            "rows_truncated": self.truncated,
            "nn_histogram": {"bin_width": 0.05, "counts": bins},
            "view": self._view(),
        }

    def _label_of(self, node: int) -> str:
        return self.labels[node] if self.labels else ""

    def _view(self) -> dict:
        g = self.grouping
        gid = self._group_ids()
        clip = lambda s: s if len(s) <= VIEW_CHARS else s[:VIEW_CHARS] + "…"
        pairs = [{"group": gid[i], "row_a": self.rows[i], "row_b": self.rows[j],
                  "label_a": self._label_of(i), "label_b": self._label_of(j),
                  "cosine": _cos3(c), "text_a": clip(self.texts[i]), "text_b": clip(self.texts[j])}
                 for i, j, c in g.pairs[:VIEW_PAIRS]]
        groups = []
        for k, grp in enumerate(g.groups[:VIEW_GROUPS]):
            groups.append({
                "group": k + 1, "size": len(grp.members),
                "members": [{"row": self.rows[m], "label": self._label_of(m),
                             "text": clip(self.texts[m])} for m in grp.members[:VIEW_MEMBERS]],
                "more": max(0, len(grp.members) - VIEW_MEMBERS),
                "lowest": _cos3(grp.lowest),
                "lowest_pair": [self.rows[grp.lowest_pair[0]], self.rows[grp.lowest_pair[1]]],
                "chained": grp.chained,
                "representative": self.rows[grp.representative]})
        return {"pairs": pairs, "pairs_total": len(g.pairs), "groups": groups,
                "groups_total": len(g.groups)}

    def _group_ids(self) -> dict[int, int]:
        out = {}
        for k, grp in enumerate(self.grouping.groups):
            for m in grp.members:
                out[m] = k + 1
        return out

    # -- stamp and exports ------------------------------------------------------------------
    def finish(self, eval_file: InputFile, utc: str, assets: dict | None = None,
               runtime: str = "", environment: dict | None = None) -> dict:
        """Build the run stamp for the current threshold. Returns its dict.

        ``environment``: how the page ran (RunStamp.environment: assets_from, threads,
        cross_origin_isolated, execution_provider); None in the CLI.
        """
        if self.grouping is None:
            self.group()
        c = self.config
        settings = {"field": c.field, "label_field": c.label_field,
                    "threshold": self._threshold, "slider_floor": c.floor,
                    "model": MODEL_ID, "model_sha256": self.model.get("model_sha256", ""),
                    "pooling": POOLING, "normalisation": NORMALISATION,
                    "token_window": c.window, "rows_truncated": self.truncated}
        self.stamp = RunStamp("paraphrases", settings, (eval_file,), utc, dict(assets or {}),
                              runtime, dict(environment or {}))
        return self.stamp.to_dict()

    def export_names(self) -> list[str]:
        """The names :meth:`export` accepts."""
        return list(constants.PARAPHRASE_EXPORTS)

    def export(self, name: str) -> tuple[str, str]:
        """One export's ``(mime, text)``; every pair, every group, full cell texts.

        Raises:
            EvalsieveError(bad_input): unknown name or called before :meth:`finish`.
        """
        if self.stamp is None:
            raise bad_input("the run has not finished", expected="finish before export")
        g = self.grouping
        gid = self._group_ids()
        if name == "paraphrase-pairs.csv":
            rows = ([gid[i], self.rows[i], self.rows[j], self._label_of(i), self._label_of(j),
                     _cos3(c), self.texts[i], self.texts[j]] for i, j, c in g.pairs)
            return "text/csv", write_csv(self.stamp, PAIR_COLUMNS, rows)
        if name == "paraphrase-groups.csv":
            rows = ([k + 1, len(x.members), " ".join(str(self.rows[m]) for m in x.members),
                     " | ".join(self._label_of(m) for m in x.members) if self.labels else "",
                     _cos3(x.lowest),
                     f"{self.rows[x.lowest_pair[0]]} {self.rows[x.lowest_pair[1]]}",
                     "yes" if x.chained else "no", self.rows[x.representative],
                     self.texts[x.representative]] for k, x in enumerate(g.groups))
            return "text/csv", write_csv(self.stamp, GROUP_COLUMNS, rows)
        raise bad_input(f"no export named {name!r}", expected=", ".join(self.export_names()))
