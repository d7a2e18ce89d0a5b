"""What the ``evalsieve`` command prints on stdout: the summaries and ``evalsieve fields``.

:func:`_printed` runs a printer and keeps the run's exit status when stdout's reader goes
away (``| head``); :func:`run_fields` prints a file's fields (a table, or JSON);
``_print_summary`` and ``_print_paraphrases`` print a finished run's summary dict (the
``--json`` summary's keys). cli.py calls them after the job has written its exports.
"""

from __future__ import annotations

import json
import sys

from .drivers import _ci_text
from .failures import exit_status, stdout_gone
from .layouts import eval_input
from .run_io import describe, open_input


def _printed(show, status: int) -> int:
    """Run ``show`` (which prints on stdout) and return ``status``; when stdout's reader
    went away (``| head``), stop printing quietly, with the same status (the job ran)."""
    try:
        show()
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_gone()
    except BaseException as e:  # noqa: B902
        return exit_status(e, written=True)
    return status


def run_fields(args) -> int:
    """``evalsieve fields FILE``: print the file's fields (a table, or JSON). Returns 0."""
    notes: list[str] = []
    src = open_input(*eval_input(args.file, notes))
    for note in notes:
        print(note, file=sys.stderr)
    info, _ = describe(src)
    info = {"file": src.name, "gzip": bool(src.gzip), **info}
    if getattr(src, "file_format", None):  # an Arrow file: its rows read like Parquet's
        info["file_format"] = src.file_format
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    sep = {",": "comma", "\t": "tab", ";": "';'", "|": "'|'"}.get(info.get("separator"))
    print(
        f"{src.name}: {getattr(src, 'file_format', info['format'])}"
        f"{' (gzip)' if src.gzip else ''}"
        f"{f', separated by {sep}' if sep else ''}; {info['rows_sampled']} rows sampled"
    )
    if info["default_fields"]:
        print(f"default field: {info['default_fields'][0]} ({info['default_reason']})")
    else:
        print(f"default field: none ({info['default_reason']})")

    def table(rows):
        width = max([len("field")] + [len(r["path"]) for r in rows])
        print(f"  {'field':<{width}}  {'fill':>5}  {'words':>7}  {'chars':>8}  kind   note")
        for r in rows:
            note = "constant: " + r["reason"] if r["constant"] else r["reason"]
            mark = "*" if r["path"] in info["default_fields"] else " "
            print(
                f"{mark} {r['path']:<{width}}  {r['fill']:>5.0%}  {r['avg_words']:>7.1f}  "
                f"{r['avg_chars']:>8.1f}  {r['kind']:<5}  {note}".rstrip()
            )

    table(info["fields"])
    if info["filter_fields"]:
        print("element filters (list elements chosen by a role-like key):")
        table(info["filter_fields"])
    print(
        "words: prose words per row, all rows counted (numbers, sums and URLs count "
        "little); chars: per row that has the field; * the default"
    )
    return 0


def _print_summary(s: dict, out: str) -> None:
    thr = "any overlap" if s["threshold"] is None else f"containment >= {s['threshold']}"
    print(
        f"rows scanned {s['rows_scanned']}, scored {s['rows_scored']}, too short "
        f"{s['rows_too_short']}, contaminated {s['rows_contaminated']}, kept {s['rows_kept']}"
    )
    cut = s["boilerplate_cutoff"]
    print(
        f"  N = {s['n']} ({s['n_how']}); threshold: {thr}; boilerplate cut-off: "
        f"{'> ' + str(cut) + ' records' if cut else 'off'}"
    )
    print(
        f"  training: {s['training_records']} records in {s['training_files']} file(s), "
        f"{s['training_bytes']} bytes"
    )
    if "score_impact" in s:
        for si in [s["score_impact"]] + s.get("score_impact_more", []):
            _print_impact(si)
    print(f"  {s['clean_file']} keeps {s['clean_rule']}")
    if "skipped_lines" in s:  # --skip-bad-lines
        print(
            "  malformed records skipped (skipped-lines.csv): "
            + ", ".join(f"{k} {v}" for k, v in s["skipped_lines"].items())
        )
    by = s["rows_contaminated_by_rung"]
    print(
        "  caught first by rung: "
        + ", ".join(f"{k} {'did not run' if v is None else v}" for k, v in by.items())
        + f"; eval.clean leaves out {', '.join(s['clean_file_excludes'])}"
    )
    if s.get("semantic"):
        f = s["semantic"]
        print(
            f"  semantic: {f['windows']} windows of {f['window_words']} words, "
            f"{f['windows_embedded']} spans embedded for {f['probes']} probes; rows it "
            "passes are clean at these rungs, not clean"
        )
    print(f"  exports in {out}")


def _print_impact(si: dict) -> None:
    print(
        f"score impact, {si['metric']}: {si['rows_joined']} rows joined, "
        f"{si['rows_unmatched']} score rows unmatched (95% intervals)"
    )
    for k in ("all", "clean", "contaminated"):
        f = si[k]
        mean = "-" if f["mean"] is None else f"{f['mean']:.4f}"
        print(f"  {k:<13} n {f['n']:>6}  mean {mean}  {_ci_text(f['ci95'])}")
    d = si["difference_contaminated_minus_clean"]
    est = "-" if d["estimate"] is None else f"{d['estimate']:+.4f}"
    print(f"  contaminated - clean: {est}  {_ci_text(d['ci95'])}")


def _print_paraphrases(s: dict, out: str) -> None:
    cp = s["closest_pair"]
    print(
        f"rows scanned {s['rows_scanned']}, groups {s['groups']} "
        f"({s['groups_chained']} chained), "
        f"rows in groups {s['rows_in_groups']} ({s['duplicate_share']}%), effective rows "
        f"{s['effective_rows']}"
    )
    if cp:
        print(f"  closest pair: rows {cp['row_a']} and {cp['row_b']}, cosine {cp['cosine']:.3f}")
    print(
        f"  threshold {s['threshold']:.2f}; {s['rows_truncated']} rows truncated to 256 word "
        f"pieces; model all-MiniLM-L6-v2 int8"
    )
    impacts = [s["score_impact"]] + s.get("score_impact_more", []) if s.get("score_impact") else []
    for si in impacts:
        fmt = lambda x, d=4: "-" if x is None else f"{x:.{d}f}"
        print(
            f"score impact, {si['metric']}: n {si['n']}, mean {fmt(si['mean'])}, SE naive "
            f"{fmt(si['se_naive'])}, SE clustered (CR1, paraphrase groups) "
            f"{fmt(si['se_clustered'])}, design effect {fmt(si['design_effect'], 3)}, "
            f"effective n {fmt(si['effective_n'], 1)}"
        )
    print(f"  exports in {out}")
