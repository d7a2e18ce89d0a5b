"""The paraphrase result as the page's two tables (pairs, groups) at a threshold, paged.

The page walks every pair and every group (the exports hold them all) one page at a time
through :func:`evalsieve.result_table.query_rows` (bridge ``para.rows``); nothing is clipped
here but a large group's member list (the CSV lists every member).
"""

from __future__ import annotations

from .errors import bad_input
from .paraphrase import VIEW_DETAIL_PAIRS, ParaphraseJob
from .result_table import TableSource

#: Members listed per group row (the rest are counted: ``more``).
MEMBERS = 50


def _cos3(x: float) -> str:
    return f"{x:.3f}"


def pairs_source(job: ParaphraseJob, threshold: float) -> TableSource:
    """Every pair at or above ``threshold`` (cosine descending, ties by rows).

    Row: ``{pair (1-based rank), group, row_a, row_b, label_a, label_b, cosine (3
    decimals, text), text_a, text_b, cut_a, cut_b}`` (the texts whole; ``cut_*``: where the
    encoder's window ended in a truncated row's text, a UTF-16 offset, else None).
    Filters: ``where`` on ``group``; ``range`` / sort on ``cosine``, ``row_a``, ``row_b``,
    ``group``. Search: both texts, labels and row numbers.
    """
    g = job.grouping(threshold)
    pair = g.graph.pair
    lab = job.labels

    def row(k: int) -> dict:
        i, j, c = pair(k)
        return {
            "pair": k + 1,
            "group": g.group_of(i) + 1,
            "row_a": job.rows[i],
            "row_b": job.rows[j],
            "label_a": lab[i] if lab else "",
            "label_b": lab[j] if lab else "",
            "cosine": _cos3(c),
            "text_a": job.texts[i],
            "text_b": job.texts[j],
            "cut_a": job.cuts.get(i),
            "cut_b": job.cuts.get(j),
        }

    def text(k: int) -> str:
        i, j, _ = pair(k)
        return "\n".join(
            (
                str(job.rows[i]),
                str(job.rows[j]),
                job.texts[i],
                job.texts[j],
                lab[i] if lab else "",
                lab[j] if lab else "",
            )
        )

    return TableSource(
        n=g.pairs_total,
        row=row,
        text=text,
        cats={"group": lambda k: str(g.group_of(pair(k)[0]) + 1)},
        nums={
            "cosine": lambda k: pair(k)[2],
            "row_a": lambda k: job.rows[pair(k)[0]],
            "row_b": lambda k: job.rows[pair(k)[1]],
            "group": lambda k: g.group_of(pair(k)[0]) + 1,
        },
    )


def groups_source(job: ParaphraseJob, threshold: float) -> TableSource:
    """Every group at ``threshold`` (largest first, as the exports number them).

    Row: ``{group, size, members: [{row, label, text, cut}] (at most MEMBERS), more, chained,
    lowest, lowest_pair, representative}`` (``lowest``..``representative`` null for a group
    of more than :data:`evalsieve.paraphrase.VIEW_DETAIL_PAIRS` member pairs: the CSV has
    them). Filters: ``where`` on ``chained`` ("yes"/"no"); ``range`` / sort on ``size``,
    ``group``. Search: the members' texts, labels and row numbers.
    """
    g = job.grouping(threshold)
    lab = job.labels

    def member(m: int) -> dict:
        return {
            "row": job.rows[m],
            "label": lab[m] if lab else "",
            "text": job.texts[m],
            "cut": job.cuts.get(m),
        }

    def row(k: int) -> dict:
        grp = g.groups[k]
        out = {
            "group": k + 1,
            "size": len(grp.members),
            "members": [member(m) for m in grp.members[:MEMBERS]],
            "more": max(0, len(grp.members) - MEMBERS),
            "chained": grp.chained,
            "lowest": None,
            "lowest_pair": None,
            "representative": None,
        }
        if grp.computed or grp.pair_count <= VIEW_DETAIL_PAIRS:
            d = grp.detail()
            out.update(
                lowest=_cos3(d.lowest),
                lowest_pair=[job.rows[d.lowest_pair[0]], job.rows[d.lowest_pair[1]]],
                representative=job.rows[d.representative],
            )
        return out

    def text(k: int) -> str:
        return "\n".join(
            f"{job.rows[m]} {lab[m] if lab else ''} {job.texts[m]}" for m in g.groups[k].members
        )

    return TableSource(
        n=len(g.groups),
        row=row,
        text=text,
        cats={"chained": lambda k: "yes" if g.groups[k].chained else "no"},
        nums={"size": lambda k: len(g.groups[k].members), "group": lambda k: k + 1},
    )


def para_source(job: ParaphraseJob, table: str, threshold: float) -> TableSource:
    """``table`` ("pairs" or "groups") at ``threshold``.

    Raises:
        EvalsieveError(bad_input): another table name; a threshold outside [floor, 1].
    """
    if table == "pairs":
        return pairs_source(job, threshold)
    if table == "groups":
        return groups_source(job, threshold)
    raise bad_input(f"no paraphrase table {table!r}", expected="pairs or groups")
