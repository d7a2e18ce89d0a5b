"""The drivers' scores file: read ``--scores`` and log how it joined the eval rows.

Both drivers (:mod:`evalsieve.drivers`) use these: :func:`_load_scores` reads the file
into a :class:`evalsieve.scores.ScoreRun` before the passes, :func:`_log_join` logs the
join and the figures the JSON summary leaves to ``score-impact.csv`` after them, and
:func:`_ci_text` prints a 95% interval (the CLI's summary uses it too).
"""

from __future__ import annotations

from .corpus import FileSource
from .errors import bad_input


def _load_scores(args, log):
    """Read ``--scores`` (if given) into a :class:`evalsieve.scores.ScoreRun`."""
    from .records import sniff_format
    from .scores import ScoreReader, ScoreRun, ScoreSpec

    if not getattr(args, "scores", None):
        for opt in ("score_field", "score_key", "score_filter"):
            if getattr(args, opt, None):
                raise bad_input(f"--{opt.replace('_', '-')} needs --scores FILE")
        return None
    key = eval_key = None
    if args.score_key:
        key, _, eval_key = args.score_key.partition("=")
        key, eval_key = key.strip(), eval_key.strip() or None
    spec = ScoreSpec(tuple(args.score_field or ()), key or None, eval_key, args.score_filter)
    src = FileSource(args.scores)
    fmt = sniff_format(src.name, src.head())
    reader = ScoreReader(src.name, fmt, spec)
    for text in src.chunks(keep_bom=True):  # the reader takes the file's mark off
        reader.feed(text)
    table = reader.finish()
    log(
        f"scores: {src.name}: {table.source}, {len(table.keys)} rows, metric(s) "
        f"{', '.join(table.metrics)}"
        + (f", filter {table.filter}" if table.filter else "")
        + (
            f" ({table.rows_other_filter} rows of other filters skipped)"
            if table.rows_other_filter
            else ""
        )
    )
    return ScoreRun(spec, table, src.info("scores", fmt))


def _log_join(run, log) -> None:
    if run is None or run.join is None:
        return
    j = run.join
    log(
        f"scores: {len(j.rows)} eval rows joined, {len(j.unmatched)} score rows unmatched, "
        f"{len(j.unscored)} eval rows without a score (listed in scores-unmatched.csv)"
    )
    for line, key, reason in j.unmatched[:5]:
        log(f"  unmatched score line {line}: {str(key)[:60]!r}: {reason}")
    if j.unscored:
        shown = ", ".join(str(r) for r in j.unscored[:10])
        log(f"  eval rows without a score: {shown}{' ...' if len(j.unscored) > 10 else ''}")
    for f in run.figures:  # the figures the JSON summary leaves to score-impact.csv
        if "difference_clean_minus_all" in f:
            d, ts = f["difference_clean_minus_all"], f["too_short"]
            if d["estimate"] is not None:
                log(
                    f"{f['metric']}: clean - all {d['estimate']:+.5f} {_ci_text(d['ci95'], 5)} "
                    f"(MOVER); {ts['n']} joined rows too short to score"
                )
        if "one_per_group" in f:
            g, c = f["one_per_group"], f["clustered"]
            log(
                f"{f['metric']}: one row per paraphrase group: n {g['n']}, mean "
                f"{g['mean']:.4f} {_ci_text(g['ci95'])}; all rows, clustered 95% interval "
                f"{_ci_text(c['ci95'])} ({c['clusters']} clusters)"
            )


def _ci_text(ci, digits: int = 4) -> str:
    return "[-, -]" if ci[0] is None else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"
