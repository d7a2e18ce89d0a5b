"""The paraphrase job's exports as pure functions of a finished run's
:class:`evalsieve.results.ParaphraseResult`: ``paraphrase-pairs.csv``,
``paraphrase-groups.csv``, ``eval.deduplicated.*``, ``paraphrase-dropped.csv``,
``skipped-lines.csv``, the score exports and ``run-stamp.json``. It imports no job.
"""

from __future__ import annotations

from . import constants
from .dedup import DROPPED_COLUMNS
from .errors import bad_input
from .exports import score_impact_csv, stamp_json, unmatched_csv, write_csv
from .raw_rows import refuse_parquet, rows_text
from .results import ParaphraseResult

PAIR_COLUMNS = ["group", "row_a", "row_b", "label_a", "label_b", "cosine", "text_a", "text_b"]
GROUP_COLUMNS = [
    "group",
    "size",
    "member_rows",
    "member_labels",
    "lowest_internal_cosine",
    "lowest_pair",
    "chained",
    "representative_row",
    "representative_text",
]


def cos3(x: float) -> str:
    """A cosine as the exports print it (three decimals)."""
    return f"{x:.3f}"


def export_names(res: ParaphraseResult) -> list[str]:
    """The names :func:`export` accepts (``run-stamp.json`` last)."""
    extra = list(constants.SCORE_EXPORTS) if res.score_run else []
    if res.config.skip_bad_lines:
        extra.append(constants.SKIPPED_EXPORT)
    return [
        *constants.PARAPHRASE_EXPORTS,
        res.dedup_name,
        constants.DEDUP_DROPPED_EXPORT,
        *extra,
        constants.STAMP_EXPORT,
    ]


def pairs_csv(res: ParaphraseResult) -> str:
    """``paraphrase-pairs.csv``: every pair at or above the threshold, full texts."""
    g, rows = res.grouping, res.node_rows
    out = (
        [
            g.group_of(i) + 1,
            rows[i],
            rows[j],
            res.label_of(i),
            res.label_of(j),
            cos3(c),
            res.texts[i],
            res.texts[j],
        ]
        for i, j, c in g.pairs()
    )
    return write_csv(res.run_stamp, PAIR_COLUMNS, out)


def groups_csv(res: ParaphraseResult) -> str:
    """``paraphrase-groups.csv``: one row per group (members, lowest internal cosine and
    its pair, chained or not, representative)."""
    rows = res.node_rows

    def out():
        for k, x in enumerate(res.grouping.groups):
            d = x.detail()
            yield [
                k + 1,
                len(x.members),
                " ".join(str(rows[m]) for m in x.members),
                " | ".join(res.label_of(m) for m in x.members) if res.labels else "",
                cos3(d.lowest),
                f"{rows[d.lowest_pair[0]]} {rows[d.lowest_pair[1]]}",
                "yes" if x.chained else "no",
                rows[d.representative],
                res.texts[d.representative],
            ]

    return write_csv(res.run_stamp, GROUP_COLUMNS, out())


def dedup_text(res: ParaphraseResult) -> str:
    """``eval.deduplicated.*``: the kept records' own text (header line first for CSV/TSV),
    after the input's byte-order mark, as eval.clean.

    Raises:
        EvalsieveError(bad_input): a Parquet eval file (written from ``res.kept``).
    """
    refuse_parquet(res.eval_format, "deduplicated file")
    text = rows_text(res.header_raw, res.cr, res.raw, res.kept)
    return res.bom + text if text else text


def export(res: ParaphraseResult, name: str) -> tuple[str, str]:
    """One export's ``(mime, text)`` at the result's threshold; every pair, every group,
    full cell texts.

    Raises:
        EvalsieveError(bad_input): unknown name.
    """
    stamp = res.run_stamp
    if name == "paraphrase-pairs.csv":
        return "text/csv", pairs_csv(res)
    if name == "paraphrase-groups.csv":
        return "text/csv", groups_csv(res)
    if name == res.dedup_name:
        return "application/octet-stream", dedup_text(res)
    if name == constants.DEDUP_DROPPED_EXPORT:
        return "text/csv", write_csv(stamp, DROPPED_COLUMNS, res.dropped)
    if name == constants.SKIPPED_EXPORT and res.config.skip_bad_lines:
        from .records import SKIPPED_COLUMNS

        return "text/csv", write_csv(
            stamp, SKIPPED_COLUMNS, ([res.eval_name, ln, m] for ln, m in res.skipped)
        )
    if name == "score-impact.csv" and res.score_run:
        return "text/csv", score_impact_csv(stamp, list(res.score_figures))
    if name == "scores-unmatched.csv" and res.score_run:
        return "text/csv", unmatched_csv(stamp, res.score_run.join)
    if name == constants.STAMP_EXPORT:
        return "application/json", stamp_json(stamp)
    raise bad_input(f"no export named {name!r}", expected=", ".join(export_names(res)))
