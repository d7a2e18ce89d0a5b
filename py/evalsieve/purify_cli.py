"""``evalsieve purify``: the subcommand's arguments and its printout (cli.py dispatches).

    evalsieve purify EVAL TRAIN [TRAIN ...] --out DIR [--mode cut|drop] [--radius 200]
                     [--min-piece 200] [--max-splits 10] [--rows scored|contaminated]
                     [--self-check full|changed] [--eval-field F ...] [--train-field F ...]
                     [--n N] [--no-boilerplate] [--threshold X] [--workers N]
                     [--engine local|ray] [--ray-address ADDR] [--filter auto|numpy|off]
                     [--json] [--quiet]

A subcommand, not a ``contamination --purify-train`` flag: its output is a copy of the
training corpus (a folder tree mirroring TRAIN), not the eval-side exports ``--out`` means
for ``contamination``; its settings (mode, R, pieces, splits, rows, self-check) mean nothing
to the contamination job; and a rerun into the same folder resumes, which an export folder
does not. It runs the contamination scan itself, with the same options and rule.
"""

from __future__ import annotations

import json

from .purify_core import MAX_SPLITS, MIN_PIECE, MODES, RADIUS, ROWS, SELF_CHECKS, SETTING_MAX


def add_purify_parser(sub) -> None:
    """Add the ``purify`` subcommand to cli.py's subparsers."""
    from .cli import _DEFAULT_FIELD, _INPUTS, ENGINES, _bounded, _n, _threshold, _workers

    chars = _bounded(int, 0, SETTING_MAX, "a whole number of characters from 0")
    count = _bounded(int, 0, SETTING_MAX, "a whole number from 0")
    p = sub.add_parser(
        "purify",
        help="write a copy of the training data without the eval set's n-grams",
        description="Remove the eval set's n-grams from the training files (GPT-3 / NeMo "
        "Curator recipe: each matched n-gram plus R characters each side, pieces under the "
        "minimum dropped, records split too often dropped; or drop whole records), with "
        "the contamination job's rule, index and boilerplate cut-off. Writes each training "
        "file under DIR at its name, purify-report.csv, purify-summary.json and "
        "run-stamp.json; a rerun into DIR skips files already complete.",
    )
    p.add_argument("eval", help="eval file: " + _INPUTS)
    p.add_argument(
        "train",
        nargs="+",
        metavar="TRAIN",
        help="training files, directories or globs (as for contamination)",
    )
    p.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="output folder (local or an fsspec URL); not inside a TRAIN folder",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="cut",
        help="cut (default): remove each matched n-gram with --radius characters "
        "each side; drop: leave out every record holding one",
    )
    p.add_argument(
        "--radius",
        type=chars,
        default=RADIUS,
        metavar="R",
        help=f"characters removed each side of a match (default {RADIUS})",
    )
    p.add_argument(
        "--min-piece",
        type=chars,
        default=MIN_PIECE,
        metavar="C",
        help=f"pieces between cuts shorter than this are left out (default {MIN_PIECE})",
    )
    p.add_argument(
        "--max-splits",
        type=count,
        default=MAX_SPLITS,
        metavar="K",
        help=f"a record cut in more than K places is dropped (default {MAX_SPLITS})",
    )
    p.add_argument(
        "--rows",
        choices=tuple(ROWS),
        default="scored",
        help="whose n-grams to remove: 'scored' (default) = "
        + ROWS["scored"]
        + "; 'contaminated' = "
        + ROWS["contaminated"],
    )
    p.add_argument(
        "--self-check",
        choices=SELF_CHECKS,
        default=SELF_CHECKS[0],
        help="after writing, rescan only the records it changed (changed, default: "
        "the others are the bytes the scan read) or every output file (full)",
    )
    p.add_argument(
        "--eval-field",
        action="append",
        metavar="F",
        help="eval field path (repeatable; default: " + _DEFAULT_FIELD + ")",
    )
    p.add_argument(
        "--train-field",
        action="append",
        metavar="F",
        help="training field path to purify (repeatable; default: "
        + _DEFAULT_FIELD
        + "); only these fields change",
    )
    p.add_argument(
        "--n",
        type=_n,
        default=None,
        help="n-gram size in words (default: the contamination rule's)",
    )
    p.add_argument(
        "--no-boilerplate",
        action="store_true",
        help="also remove n-grams shared by many training records",
    )
    p.add_argument(
        "--threshold",
        type=_threshold,
        default=None,
        metavar="X",
        help="contaminated when containment >= X (for --rows contaminated and "
        "the self-check; default: any overlap)",
    )
    p.add_argument(
        "--workers",
        type=_workers,
        default=None,
        metavar="N",
        help="processes (default: all cores); one task per file or byte range",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local processes (default) or a Ray cluster",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="Ray cluster to join (default: a local Ray with --workers CPUs)",
    )
    p.add_argument(
        "--filter",
        choices=("auto", "numpy", "off"),
        default="auto",
        help="candidate filter of the scans (output the same)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def run_purify(args, log) -> int:
    """Run ``evalsieve purify`` for parsed args; print the summary. Returns 0."""
    import os
    from .purify_run import purify

    res = purify(
        args.eval,
        args.train,
        args.out,
        eval_fields=args.eval_field,
        train_fields=args.train_field,
        n=args.n,
        boilerplate=not args.no_boilerplate,
        threshold=args.threshold,
        mode=args.mode,
        radius=args.radius,
        min_piece=args.min_piece,
        max_splits=args.max_splits,
        rows=args.rows,
        workers=args.workers or os.cpu_count() or 1,
        engine=args.engine,
        ray_address=args.ray_address,
        filter=args.filter,
        self_check=args.self_check,
        log=log,
    )
    s = res.summary
    if args.json:
        print(json.dumps(s, ensure_ascii=False))
        return 0
    c = s["self_check"]
    print(
        f"training records {s['training_records']} in {s['training_files']} file(s): cut "
        f"{s['records_cut']}, dropped {s['records_dropped']}, written {s['records_out']}; "
        f"{s['chars_removed']} characters removed"
    )
    print(
        f"  mode {s['mode']}; n-grams of {s['eval_rows_counted']} of {s['eval_rows']} eval "
        f"rows ({s['rows']}), N = {s['n']}, {s['ngrams_counted']} n-grams counted, "
        f"{s['ngrams_boilerplate']} boilerplate left alone"
    )
    print(
        f"  self-check ({c['mode']}): {c['rows_contaminated']} eval rows still "
        f"contaminated ({c['rows_asked_contaminated']} of the {c['rows_asked']} asked)"
    )
    if s["files_resumed"]:
        print(f"  {s['files_resumed']} file(s) complete from an earlier run, not rewritten")
    print(f"  output, purify-report.csv and run-stamp.json in {args.out}")
    return 0
