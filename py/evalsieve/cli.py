"""The command line: the same jobs as the page, under CPython, for files of any size.

    evalsieve contamination EVAL TRAIN --out DIR [--eval-field F ...] [--train-field F ...]
                            [--n N] [--no-boilerplate] [--threshold X] [--json]
                            [--fail-on-contamination] [--exclude-rungs LIST]
                            [--semantic [--semantic-threshold X] [--semantic-window W]
                             [--semantic-candidates K] [--model-dir DIR] [--threads T]]

    evalsieve paraphrases EVAL --out DIR [--field F] [--label-field F] [--threshold 0.90]
                          [--model-dir DIR] [--json]

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

from . import __version__
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
    sem = None
    if args.semantic:
        from .semantic import SemanticConfig
        sem = SemanticConfig(**{k: v for k, v in (
            ("window_words", args.semantic_window), ("candidates", args.semantic_candidates),
            ("threshold", args.semantic_threshold)) if v is not None})
    cfg = ContaminationConfig(tuple(ev_fields), tuple(tr_fields), args.n,
                              not args.no_boilerplate, args.threshold, sem,
                              tuple(args.exclude_rungs) if args.exclude_rungs else None)
    job = ContaminationJob(cfg, ev.name, ev_fmt, tr.name, tr_fmt)
    job.set_background(tr_head)
    for text in ev.chunks():
        job.feed_eval(text)
    e = job.end_eval()
    log(f"eval: {e['rows']} rows, N = {e['n']} ({e['n_how']}), {e['eval_ngrams']} distinct n-grams")
    t0 = time.perf_counter()
    for text in tr.chunks():
        job.feed_train(text)
    assets = _semantic_rung(job, args, log) if sem is not None else {}
    summary = job.finish(ev.info("eval", ev_fmt), tr.info("train", tr_fmt), _utc_now(),
                         assets=assets, runtime=_runtime())
    dt = time.perf_counter() - t0
    summary["seconds_training_pass"] = round(dt, 3)
    log(f"train: {summary['training_records']} records, {tr.bytes / 1e6:.1f} MB in {dt:.1f} s "
        f"({summary['training_chars'] / 1e6 / max(dt, 1e-9):.1f} M chars/s)")
    exports = {name: job.export(name)[1] for name in job.export_names()}
    return summary, exports


def _semantic_rung(job: ContaminationJob, args, log) -> dict:
    """Embed the semantic rung's eval rows and candidate windows; give the job the cosines.

    onnxruntime uses every core (``--threads 0``) and the CUDA execution provider when
    onnxruntime-gpu sees a GPU. Returns the encoder's asset versions for the stamp.
    """
    from .native_encoder import NativeEncoder, _require

    model_dir = find_model_dir(args.model_dir)
    req = job.semantic_request()
    f = job.semantic.figures()
    log(f"semantic: {f['windows']} windows of {f['window_words']} words; the candidate stage "
        f"lets {f['windows_embedded']} through "
        f"({f['windows_embedded'] / max(1, f['windows']):.1%}); embedding them and "
        f"{len(req['eval_texts'])} eval rows")
    ort = _require("onnxruntime")
    providers = (["CUDAExecutionProvider", "CPUExecutionProvider"]
                 if "CUDAExecutionProvider" in ort.get_available_providers()
                 else ["CPUExecutionProvider"])
    enc = NativeEncoder(os.path.join(model_dir, "encoder.onnx"),
                        os.path.join(model_dir, "tokenizer.json"), threads=args.threads,
                        providers=providers)
    np = enc.np
    t0 = time.perf_counter()
    ev_vecs, _ = enc.encode(req["eval_texts"])
    win_vecs, truncated = (enc.encode(req["window_texts"]) if req["window_texts"]
                           else (ev_vecs[:0], 0))
    dt = time.perf_counter() - t0
    n = len(req["eval_texts"]) + len(req["window_texts"])
    log(f"semantic: embedded {n} texts in {dt:.1f} s ({n / max(dt, 1e-9):.0f} texts/s, "
        f"{enc.session.get_providers()[0]}); {truncated} windows cut to 256 word pieces")
    pairs = np.asarray(req["pairs"], dtype=np.int64).reshape(-1, 2)
    cos = np.einsum("ij,ij->i", ev_vecs[pairs[:, 0]], win_vecs[pairs[:, 1]])
    job.set_semantic_cosines(cos.tolist())
    return {"encoder": "all-MiniLM-L6-v2 int8 (encoder.onnx)",
            "encoder_sha256": _sha256_file(os.path.join(model_dir, "encoder.onnx")),
            "encoder_provider": enc.session.get_providers()[0],
            "semantic_windows_truncated": truncated}


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
    stamp = job.finish(ev.info("eval", fmt), _utc_now(), runtime=_runtime())
    summary = {k: figures[k] for k in ("rows_scanned", "rows_empty", "rows_in_groups", "groups",
                                       "groups_chained", "pairs", "duplicate_share",
                                       "effective_rows", "closest_pair", "rows_truncated",
                                       "threshold")}
    summary["stamp"] = stamp
    exports = {name: job.export(name)[1] for name in job.export_names()}
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


_threshold = _bounded(float, 0, 1, "a number in (0, 1] or 'any'", above_lo=True, any_ok=True)
_cosine = _bounded(float, 0.75, 1, "a cosine from 0.75 (the candidate floor) to 1")
_n = _bounded(int, 1, 1000, "a whole number from 1 to 1000")
_threshold_score = _bounded(float, 0, 1, "a number in (0, 1]", above_lo=True)
_threads = _bounded(int, 0, 1024, "a whole number of threads (0 = every core)")


def _rungs(s: str) -> list[str]:
    """An argparse type: comma-separated rung names."""
    names = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in names if x not in ("exact", "ngram", "semantic")]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{s!r}: rungs are exact, ngram, semantic")
    return names


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
    c.add_argument("--exclude-rungs", type=_rungs, metavar="LIST",
                   help="rungs whose rows leave eval.clean, comma-separated from exact,ngram,"
                   "semantic (default: every rung that ran)")
    c.add_argument("--semantic", action="store_true",
                   help="also run the semantic rung: reworded eval rows inside training windows "
                   "(needs the encoder extra and the model)")
    c.add_argument("--semantic-threshold", type=_threshold_score, default=None, metavar="X",
                   help="verifier score for the semantic rung, in (0, 1] (default 0.65)")
    c.add_argument("--semantic-window", type=_n, default=None, metavar="W",
                   help="window size in words (default: median eval row length, 16..160)")
    c.add_argument("--semantic-candidates", type=_n, default=None, metavar="K",
                   help="candidate windows embedded per eval row (default 8)")
    c.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json (default: dist/assets/model)")
    c.add_argument("--threads", type=_threads, default=0, metavar="T",
                   help="onnxruntime threads for the semantic rung (default 0: every core)")
    q = sub.add_parser("paraphrases", help="groups of eval rows that ask the same thing",
                       description="Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX, mean "
                       "pooling, L2-normalised, 256 word pieces); a pair is an edge when "
                       "cosine >= threshold; groups are connected components.")
    q.add_argument("eval", help="eval file: JSONL, CSV, TSV or text, optionally gzip")
    q.add_argument("--field", metavar="F", help="text field to embed (default: longest text field)")
    q.add_argument("--label-field", metavar="F", help="a field naming each row (an id)")
    q.add_argument("--threshold", type=_cosine, default=0.90, metavar="X",
                   help="cosine threshold for an edge, 0.75..1 (default 0.90)")
    q.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json (default: dist/assets/model)")
    q.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    q.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
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
    by = s["rows_contaminated_by_rung"]
    print("  caught first by rung: " + ", ".join(
        f"{k} {'did not run' if v is None else v}" for k, v in by.items())
        + f"; eval.clean leaves out {', '.join(s['clean_file_excludes'])}")
    if s.get("semantic"):
        f = s["semantic"]
        print(f"  semantic: windows of {f['window_words']} words, {f['windows_embedded']} of "
              f"{f['windows']} embedded; rows it passes are clean at these rungs, not clean")
    print(f"  exports in {out}")


def _print_paraphrases(s: dict, out: str) -> None:
    cp = s["closest_pair"]
    print(f"rows scanned {s['rows_scanned']}, groups {s['groups']} ({s['groups_chained']} chained), "
          f"rows in groups {s['rows_in_groups']} ({s['duplicate_share']}%), effective rows "
          f"{s['effective_rows']}")
    if cp:
        print(f"  closest pair: rows {cp['row_a']} and {cp['row_b']}, cosine {cp['cosine']:.3f}")
    print(f"  threshold {s['threshold']:.2f}; {s['rows_truncated']} rows truncated to 256 word "
          f"pieces; model all-MiniLM-L6-v2 int8")
    print(f"  exports in {out}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
