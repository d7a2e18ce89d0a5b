"""The command line: the same jobs as the page, under CPython, for files of any size.

    evalsieve contamination EVAL TRAIN --out DIR [--eval-field F ...] [--train-field F ...]
                            [--n N] [--no-boilerplate] [--threshold X] [--json]
                            [--fail-on-contamination]
                            [--scores FILE [--score-field F ...] [--score-key F[=EVAL_F]]
                             [--score-filter NAME]]

    evalsieve paraphrases EVAL --out DIR [--field F] [--label-field F] [--threshold 0.90]
                          [--model-dir DIR] [--json] [--scores FILE ...]

Exit status: 0 done; 1 done and ``--fail-on-contamination`` saw a contaminated row;
2 bad input or usage (a message names the file, the line and what was expected; no export
is written).

This is the only module that touches argv, paths and the clock.
"""

from __future__ import annotations

import argparse
import codecs
import datetime
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
import zlib

from . import __version__, constants
from .contamination import ContaminationConfig, ContaminationJob
from .errors import EvalsieveError, bad_input
from .records import refuse_binary
from .sample import check_fields, inspect_head
from .stamps import InputFile

CHUNK_BYTES = 4 << 20
HEAD_BYTES = 1 << 20
HEAD_MAX_BYTES = 64 << 20   # the head goes on to the first line end, up to this much


class _Gunzip:
    """Inflate gzip incrementally, member after member (RFC 1952 allows concatenation)."""

    def __init__(self, name: str):
        self.name = name
        self.d = zlib.decompressobj(31)

    def feed(self, raw: bytes) -> bytes:
        """Inflate the next raw bytes; returns the decompressed bytes (possibly empty).

        Raises:
            EvalsieveError(bad_input): corrupt gzip data.
        """
        try:
            out = [self.d.decompress(raw)]
            while self.d.eof and self.d.unused_data:
                rest = self.d.unused_data
                self.d = zlib.decompressobj(31)
                out.append(self.d.decompress(rest))
        except zlib.error as e:
            raise bad_input(f"corrupt gzip data ({e})", file=self.name,
                            expected="a gzip file (or plain text)")
        return b"".join(out)

    def close(self) -> bytes:
        """Flush at the end of the file. Raises EvalsieveError(bad_input) if truncated."""
        tail = self.d.flush()
        if not self.d.eof:
            raise bad_input("the gzip stream is truncated (it ends mid-member)",
                            file=self.name, expected="a complete gzip file")
        return tail


class FileSource:
    """Streams one input file as UTF-8 text, whatever its size.

    gzip is detected by its magic bytes (1f 8b), not the name, and inflated member by member
    (concatenated gzip works); ZIP, Parquet, UTF-16 and other binary formats are refused by
    their magic bytes (``records.refuse_binary``); the UTF-8 BOM is removed; invalid UTF-8 is
    an error naming the byte offset and the line. After a full read, ``sha256`` and ``bytes``
    describe the file as given.

    Args:
        path: the file's path.
    Raises:
        EvalsieveError(bad_input): missing file, truncated gzip, binary format, invalid UTF-8.
    """

    def __init__(self, path: str):
        self.path = path
        self.name = os.path.basename(path)
        if not os.path.isfile(path):
            raise bad_input("no such file", file=path, expected="a readable file")
        with open(path, "rb") as f:
            self.gzip = f.read(2) == b"\x1f\x8b"
        self.sha256 = ""
        self.bytes = 0

    def chunks(self, limit: int | None = None):
        """Yield decoded text chunks; with ``limit``, stop after about that many bytes
        (cut at the last line end), without hashing."""
        h = hashlib.sha256()
        dec = codecs.getincrementaldecoder("utf-8")("strict")
        inflater = _Gunzip(self.name) if self.gzip else None
        first = True
        offset = 0   # decoded-stream byte offset, for error messages
        self._lines = 0  # line ends decoded so far, for error messages
        total = 0
        with open(self.path, "rb") as f:
            while True:
                raw = f.read(CHUNK_BYTES if limit is None else min(CHUNK_BYTES, limit))
                if not raw:
                    break
                total += len(raw)
                h.update(raw)
                data = inflater.feed(raw) if inflater else raw
                if offset == 0 and data:
                    refuse_binary(self.name, data[:16])
                text = self._decode(dec, data, offset)
                offset += len(data)
                self._lines += data.count(b"\n")
                if first and text:
                    if text.startswith("\ufeff"):
                        text = text[1:]
                    first = False
                # the head ends at a line end: past `limit`, read on to the first one
                if limit is not None and total >= limit and ("\n" in text
                                                             or total >= HEAD_MAX_BYTES):
                    cut = text.rfind("\n")
                    yield text[:cut + 1] if cut >= 0 else text
                    return
                if text:
                    yield text
            if inflater is not None and limit is None:
                tail = inflater.close()
                if tail:
                    if offset == 0:
                        refuse_binary(self.name, tail[:16])
                    yield self._decode(dec, tail, offset)
            try:
                rest = dec.decode(b"", final=True)
            except UnicodeDecodeError:
                raise bad_input("the file ends inside a UTF-8 character", file=self.name,
                                expected="UTF-8 text")
            if rest:
                yield rest
        if limit is None:
            self.sha256 = h.hexdigest()
            self.bytes = total

    def _decode(self, dec, data: bytes, offset: int) -> str:
        try:
            return dec.decode(data)
        except UnicodeDecodeError as e:
            line = self._lines + data.count(b"\n", 0, e.start) + 1
            raise bad_input(f"invalid UTF-8 at byte {offset + e.start}", file=self.name,
                            line=line,
                            expected="UTF-8 text (re-encode the file, e.g. iconv -t UTF-8)")

    def head(self) -> str:
        """About the first MB of text, cut at a line end (for sniffing and field lists)."""
        return "".join(self.chunks(limit=HEAD_BYTES))

    def info(self, role: str, fmt: str) -> InputFile:
        """The file as the run stamp names it (after a full read: sha256 and size set)."""
        return InputFile(role, self.name, self.sha256, self.bytes,
                         fmt + ("+gzip" if self.gzip else ""))


def _utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def _runtime() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def _pick_fields(src: FileSource, requested: list[str] | None, role: str, log
                 ) -> tuple[str, list[str], str]:
    head = src.head()
    info = inspect_head(src.name, head)
    if requested:
        check_fields(src.name, info["format"], requested, head)
        fields = requested
    else:
        fields = info["default_fields"]
        if not fields:
            raise bad_input("no field could be chosen by default (all are constant or empty)",
                            file=src.name, expected=f"--{role}-field PATH")
    log(f"{role}: {src.name}: {info['format']}{' (gzip)' if src.gzip else ''}, "
        f"fields {', '.join(fields)}")
    return info["format"], fields, head


def run_contamination(args, log) -> tuple[dict, dict[str, str]]:
    """Run the contamination job for parsed CLI args. Returns (summary, exports)."""
    ev, tr = FileSource(args.eval), FileSource(args.train)
    ev_fmt, ev_fields, _ = _pick_fields(ev, args.eval_field, "eval", log)
    tr_fmt, tr_fields, tr_head = _pick_fields(tr, args.train_field, "train", log)
    cfg = ContaminationConfig(tuple(ev_fields), tuple(tr_fields), args.n,
                              not args.no_boilerplate, args.threshold)
    job = ContaminationJob(cfg, ev.name, ev_fmt, tr.name, tr_fmt)
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
    job.set_background(tr_head)
    for text in ev.chunks():
        job.feed_eval(text)
    e = job.end_eval()
    log(f"eval: {e['rows']} rows, N = {e['n']} ({e['n_how']}), {e['eval_ngrams']} distinct n-grams")
    t0 = time.perf_counter()
    for text in tr.chunks():
        job.feed_train(text)
    summary = job.finish(ev.info("eval", ev_fmt), tr.info("train", tr_fmt), _utc_now(),
                         runtime=_runtime())
    dt = time.perf_counter() - t0
    summary["seconds_training_pass"] = round(dt, 3)
    log(f"train: {summary['training_records']} records, {tr.bytes / 1e6:.1f} MB in {dt:.1f} s "
        f"({summary['training_chars'] / 1e6 / max(dt, 1e-9):.1f} M chars/s)")
    exports = {name: job.export(name)[1] for name in job.export_names()}
    _log_join(scores, log)
    return summary, exports


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
    for text in src.chunks():
        reader.feed(text)
    table = reader.finish()
    log(f"scores: {src.name}: {table.source}, {len(table.keys)} rows, metric(s) "
        f"{', '.join(table.metrics)}" + (f", filter {table.filter}" if table.filter else "")
        + (f" ({table.rows_other_filter} rows of other filters skipped)"
           if table.rows_other_filter else ""))
    return ScoreRun(spec, table, src.info("scores", fmt))


def _log_join(run, log) -> None:
    if run is None or run.join is None:
        return
    j = run.join
    log(f"scores: {len(j.rows)} eval rows joined, {len(j.unmatched)} score rows unmatched, "
        f"{len(j.unscored)} eval rows without a score (listed in scores-unmatched.csv)")
    for line, key, reason in j.unmatched[:5]:
        log(f"  unmatched score line {line}: {str(key)[:60]!r}: {reason}")
    if j.unscored:
        shown = ", ".join(str(r) for r in j.unscored[:10])
        log(f"  eval rows without a score: {shown}{' ...' if len(j.unscored) > 10 else ''}")
    for f in run.figures:   # the figures the JSON summary leaves to score-impact.csv
        if "difference_clean_minus_all" in f:
            d, ts = f["difference_clean_minus_all"], f["too_short"]
            if d["estimate"] is not None:
                log(f"{f['metric']}: clean - all {d['estimate']:+.5f} {_ci_text(d['ci95'], 5)} "
                    f"(MOVER); {ts['n']} joined rows too short to score")
        if "one_per_group" in f:
            g, c = f["one_per_group"], f["clustered"]
            log(f"{f['metric']}: one row per paraphrase group: n {g['n']}, mean "
                f"{g['mean']:.4f} {_ci_text(g['ci95'])}; all rows, clustered 95% interval "
                f"{_ci_text(c['ci95'])} ({c['clusters']} clusters)")


def find_model_dir(given: str | None) -> str:
    """Where encoder.onnx and tokenizer.json are: --model-dir, $EVALSIEVE_MODEL_DIR, or the
    repository's dist/assets/model (written by ``python3 build.py build``).

    Raises:
        EvalsieveError(asset_load_failed): none of them holds the two files.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    tries = [given, os.environ.get("EVALSIEVE_MODEL_DIR"),
             os.path.join(here, "..", "..", "dist", "assets", "model")]
    for d in tries:
        if d and all(os.path.isfile(os.path.join(d, f)) for f in ("encoder.onnx", "tokenizer.json")):
            return os.path.normpath(d)
    raise EvalsieveError("asset_load_failed", "the encoder model was not found",
                         expected="--model-dir DIR holding encoder.onnx and tokenizer.json "
                                  "(python3 build.py build writes them to dist/assets/model)")


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_paraphrases(args, log) -> tuple[dict, dict[str, str]]:
    """Run the paraphrase job for parsed CLI args. Returns (summary, exports)."""
    from .native_encoder import NativeEncoder, nearest_neighbours, pairs_above
    from .paraphrase import ParaphraseConfig, ParaphraseJob

    model_dir = find_model_dir(args.model_dir)
    ev = FileSource(args.eval)
    fmt, fields, _ = _pick_fields(ev, [args.field] if args.field else None, "eval", log)
    if args.label_field:
        check_fields(ev.name, fmt, [args.label_field], ev.head())
    cfg = ParaphraseConfig(fields[0], args.label_field, args.threshold)
    job = ParaphraseJob(cfg, ev.name, fmt)
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
    for text in ev.chunks():
        job.feed_eval(text)
    texts = job.end_eval()["texts"]
    enc = NativeEncoder(os.path.join(model_dir, "encoder.onnx"),
                        os.path.join(model_dir, "tokenizer.json"))
    t0 = time.perf_counter()
    emb, truncated = enc.encode(texts)
    dt = time.perf_counter() - t0
    log(f"embedded {len(texts)} rows in {dt:.1f} s ({len(texts) / max(dt, 1e-9):.0f} rows/s), "
        f"{truncated} truncated to {cfg.window} word pieces")
    cands = pairs_above(emb, cfg.floor)
    nn, nn_idx = nearest_neighbours(emb) if len(texts) > 1 else ([0.0], [-1])
    job.set_similarity(cands, list(nn), list(nn_idx), truncated, emb.astype("float32").tobytes(),
                       {"model_sha256": _sha256_file(os.path.join(model_dir, "encoder.onnx"))})
    figures = job.group(args.threshold)
    stamp = job.stamp(args.threshold, ev.info("eval", fmt), _utc_now(), runtime=_runtime())
    shown = 0
    for done, total in job.export_steps(args.threshold):   # lowest pairs of every group
        if total >= 1_000_000 and done >= shown + total // 10:
            shown = done
            log(f"groups' lowest pairs: {done:,} of at most {total:,} member pairs")
    summary = {k: figures[k] for k in ("rows_scanned", "rows_empty", "rows_in_groups", "groups",
                                       "groups_chained", "pairs", "duplicate_share",
                                       "effective_rows", "closest_pair", "rows_truncated",
                                       "threshold")}
    summary["stamp"] = stamp.to_dict()
    if scores is not None:
        figs = job.score_figures(args.threshold)
        from .scores import paraphrase_summary
        summary["score_impact"] = paraphrase_summary(figs[0])
        if len(figs) > 1:
            summary["score_impact_more"] = [paraphrase_summary(f) for f in figs[1:]]
    exports = {name: job.export(name, stamp)[1] for name in job.export_names()}
    _log_join(scores, log)
    return summary, exports


def write_exports(out_dir: str, exports: dict[str, str]) -> None:
    """Write every export or none: files go to a temp folder in ``out_dir``, then move."""
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".evalsieve-", dir=out_dir)
    try:
        for name, text in exports.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="") as f:
                f.write(text)
        for name in exports:
            os.replace(os.path.join(tmp, name), os.path.join(out_dir, name))
    finally:
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)


def _bounded(cast, lo: float, hi: float, what: str, above_lo: bool = False, any_ok: bool = False):
    """An argparse type: ``cast(s)`` within [lo, hi] (or (lo, hi] with ``above_lo``);
    ``any_ok`` also takes "any"/"none" as None."""
    def parse(s: str):
        if any_ok and s.lower() in ("any", "none"):
            return None
        try:
            x = cast(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{s!r} is not {what}")
        if not (lo < x <= hi if above_lo else lo <= x <= hi):
            raise argparse.ArgumentTypeError(
                f"{s} is outside {'(' if above_lo else '['}{lo}, {hi}]")
        return x
    return parse


_threshold = _bounded(float, constants.THRESHOLD_MIN_EXCLUSIVE, constants.THRESHOLD_MAX,
                      "a number in (0, 1] or 'any'", above_lo=True, any_ok=True)
_cosine = _bounded(float, constants.PARA_FLOOR, constants.PARA_THRESHOLD_MAX,
                   f"a cosine from {constants.PARA_FLOOR} (the candidate floor) to 1")
_n = _bounded(int, constants.N_MIN, constants.N_MAX,
              f"a whole number from {constants.N_MIN} to {constants.N_MAX}")


def _add_score_options(p) -> None:
    g = p.add_argument_group("score impact (docs/SCORE_IMPACT.md)")
    g.add_argument("--scores", metavar="FILE",
                   help="per-row scores: lm-evaluation-harness --log_samples JSONL, or a "
                        "JSONL/CSV/TSV with a key and numeric or true/false score columns")
    g.add_argument("--score-field", action="append", metavar="F",
                   help="score column(s) to sum up (repeatable; default: the harness row's "
                        "'metrics', or the table's only numeric column)")
    g.add_argument("--score-key", metavar="F[=EVAL_F]",
                   help="join on the scores field F equal to the eval field EVAL_F (default "
                        "F); default: doc_id = 0-based eval row")
    g.add_argument("--score-filter", metavar="NAME",
                   help="the harness filter to use when the file has several "
                        "(e.g. strict-match)")


def build_parser() -> argparse.ArgumentParser:
    """The ``evalsieve`` argument parser (subcommands ``contamination`` and ``paraphrases``)."""
    p = argparse.ArgumentParser(prog="evalsieve", description="Is your eval set clean? "
                                "Train/eval n-gram contamination and paraphrase groups.")
    p.add_argument("--version", action="version", version=f"evalsieve {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("contamination", help="which eval rows appear inside the training data",
                       description="Word n-gram containment of each eval row in the training "
                       "file (GPT-3, Brown et al. 2020, App. C).")
    c.add_argument("eval", help="eval file: JSONL, CSV, TSV or text, optionally gzip")
    c.add_argument("train", help="training file: JSONL, CSV, TSV or text, optionally gzip")
    c.add_argument("--eval-field", action="append", metavar="F",
                   help="eval field path to score (repeatable; default: the longest text field)")
    c.add_argument("--train-field", action="append", metavar="F",
                   help="training field path to search (repeatable; default: longest text field)")
    c.add_argument("--n", type=_n, default=None,
                   help="n-gram size in words (default: 5th-percentile eval row length, 8..13)")
    c.add_argument("--no-boilerplate", action="store_true",
                   help="keep n-grams shared by many training records")
    c.add_argument("--threshold", type=_threshold, default=None, metavar="X",
                   help="contaminated when containment >= X in (0, 1] (default: any overlap)")
    c.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    c.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    c.add_argument("--fail-on-contamination", action="store_true",
                   help="exit 1 when any eval row is contaminated (for CI gating)")
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _add_score_options(c)
    q = sub.add_parser("paraphrases", help="groups of eval rows that ask the same thing",
                       description="Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX, mean "
                       "pooling, L2-normalised, 256 word pieces); a pair is an edge when "
                       "cosine >= threshold; groups are connected components.")
    q.add_argument("eval", help="eval file: JSONL, CSV, TSV or text, optionally gzip")
    q.add_argument("--field", metavar="F", help="text field to embed (default: longest text field)")
    q.add_argument("--label-field", metavar="F", help="a field naming each row (an id)")
    q.add_argument("--threshold", type=_cosine, default=constants.PARA_THRESHOLD_DEFAULT, metavar="X",
                   help="cosine threshold for an edge, 0.75..1 (default 0.90)")
    q.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json (default: dist/assets/model)")
    q.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    q.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _add_score_options(q)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evalsieve`` command. Returns the exit status."""
    args = build_parser().parse_args(argv)
    quiet = getattr(args, "quiet", False)

    def log(msg: str) -> None:
        if not quiet:
            print(f"evalsieve: {msg}", file=sys.stderr)

    try:
        if args.command == "contamination":
            summary, exports = run_contamination(args, log)
        elif args.command == "paraphrases":
            summary, exports = run_paraphrases(args, log)
        else:  # pragma: no cover - argparse guards this
            raise bad_input(f"unknown command {args.command}")
        write_exports(args.out, exports)
    except EvalsieveError as e:
        print(f"evalsieve: error: {e}", file=sys.stderr)
        if e.detail:
            print(f"evalsieve:   here: {e.detail}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evalsieve: cancelled", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    elif args.command == "paraphrases":
        _print_paraphrases(summary, args.out)
    else:
        _print_summary(summary, args.out)
    if args.command == "contamination" and args.fail_on_contamination \
            and summary["rows_contaminated"]:
        return 1
    return 0


def _print_summary(s: dict, out: str) -> None:
    thr = "any overlap" if s["threshold"] is None else f"containment >= {s['threshold']}"
    print(f"rows scanned {s['rows_scanned']}, scored {s['rows_scored']}, too short "
          f"{s['rows_too_short']}, contaminated {s['rows_contaminated']}, kept {s['rows_kept']}")
    print(f"  N = {s['n']} ({s['n_how']}); threshold: {thr}; boilerplate cut-off: "
          f"{'> ' + str(s['boilerplate_cutoff']) + ' records' if s['boilerplate_cutoff'] else 'off'}")
    print(f"  training: {s['training_records']} records, {s['training_bytes']} bytes")
    if "score_impact" in s:
        for si in [s["score_impact"]] + s.get("score_impact_more", []):
            _print_impact(si)
    print(f"  exports in {out}")


def _ci_text(ci, digits: int = 4) -> str:
    return "[-, -]" if ci[0] is None else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _print_impact(si: dict) -> None:
    print(f"score impact, {si['metric']}: {si['rows_joined']} rows joined, "
          f"{si['rows_unmatched']} score rows unmatched (95% intervals)")
    for k in ("all", "clean", "contaminated"):
        f = si[k]
        mean = "-" if f["mean"] is None else f"{f['mean']:.4f}"
        print(f"  {k:<13} n {f['n']:>6}  mean {mean}  {_ci_text(f['ci95'])}")
    d = si["difference_contaminated_minus_clean"]
    est = "-" if d["estimate"] is None else f"{d['estimate']:+.4f}"
    print(f"  contaminated - clean: {est}  {_ci_text(d['ci95'])}")


def _print_paraphrases(s: dict, out: str) -> None:
    cp = s["closest_pair"]
    print(f"rows scanned {s['rows_scanned']}, groups {s['groups']} ({s['groups_chained']} chained), "
          f"rows in groups {s['rows_in_groups']} ({s['duplicate_share']}%), effective rows "
          f"{s['effective_rows']}")
    if cp:
        print(f"  closest pair: rows {cp['row_a']} and {cp['row_b']}, cosine {cp['cosine']:.3f}")
    print(f"  threshold {s['threshold']:.2f}; {s['rows_truncated']} rows truncated to 256 word "
          f"pieces; model all-MiniLM-L6-v2 int8")
    impacts = [s["score_impact"]] + s.get("score_impact_more", []) if s.get("score_impact") else []
    for si in impacts:
        fmt = lambda x, d=4: "-" if x is None else f"{x:.{d}f}"
        print(f"score impact, {si['metric']}: n {si['n']}, mean {fmt(si['mean'])}, SE naive "
              f"{fmt(si['se_naive'])}, SE clustered (CR1, paraphrase groups) "
              f"{fmt(si['se_clustered'])}, design effect {fmt(si['design_effect'], 3)}, "
              f"effective n {fmt(si['effective_n'], 1)}")
    print(f"  exports in {out}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
