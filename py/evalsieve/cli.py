"""The command line: the same jobs as the page, under CPython, for files of any size.

    evalsieve contamination EVAL TRAIN [TRAIN ...] --out DIR [--eval-field F ...]
                            [--train-field F ...] [--n N] [--no-boilerplate] [--threshold X]
                            [--workers N] [--engine local|ray] [--ray-address ADDR]
                            [--filter auto|numpy|off] [--clean scored|not-contaminated] [--json]
                            [--fail-on-contamination] [--skip-bad-lines]
                            [--scores FILE [--score-field F ...] [--score-key F[=EVAL_F]]
                             [--score-filter NAME]] [--exclude-rungs LIST]
                            [--semantic [--semantic-threshold X] [--semantic-window W]
                             [--semantic-candidates K] [--semantic-code-ngram N]
                             [--model-dir DIR] [--threads T]]

    evalsieve paraphrases EVAL --out DIR [--field F] [--label-field F] [--threshold 0.90]
                          [--model-dir DIR] [--json] [--scores FILE ...] [--skip-bad-lines]

    evalsieve fields FILE [--json]

Exit status: 0 done; 1 done and ``--fail-on-contamination`` saw a contaminated row;
2 bad input or usage (a message names the file, the line and what was expected; no export
is written).

This is the only module that touches argv, paths and the clock.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import sys
import tempfile
import threading
import time

from . import __version__, constants
from .contamination import CLEAN_RULES, ContaminationConfig, ContaminationJob
from .engines import ENGINES
from .errors import EvalsieveError, bad_input
from .corpus import CHUNK_BYTES, HEAD_BYTES, FileSource, expand_inputs, plan_tasks, size_of  # noqa: F401
from .sample import check_fields, inspect_head
from .semantic_verifier import VERIFIER_THRESHOLD
from .stamps import InputFile



def _utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def _runtime() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def open_input(path: str, name: str | None = None):
    """A :class:`corpus.FileSource` for a text file, or a ``parquet_io.ParquetSource`` for a
    Parquet one (by its magic bytes ``PAR1``; pyarrow needed; local paths only).

    Raises:
        EvalsieveError(bad_input): as FileSource; a Parquet URL (not supported yet).
    """
    src = FileSource(path, name=name)
    if src.parquet:
        from .corpus import is_url
        from .parquet_io import ParquetSource
        if is_url(path):
            raise bad_input("Parquet files are read from local paths only", file=src.name,
                            expected="a local copy of the file, or JSON Lines at the URL")
        pq = ParquetSource(path)
        pq.name = src.name
        pq.gzip = False
        return pq
    return src


def describe(src, skip_bad: bool = False) -> tuple[dict, str]:
    """``(inspect result, head text)`` of an input: format, fields, default and why (see
    ``sample.inspect_head``; ``skip_bad``: around malformed lines); for Parquet the fields
    come from the schema, described from the first rows, and the head is ''."""
    if not hasattr(src, "chunks"):
        return _describe_parquet(src), ""
    head = src.head()
    return inspect_head(src.name, head, skip_bad=skip_bad), head


def _describe_parquet(src) -> dict:
    from .sample import SAMPLE_ROWS, describe_values
    values = [v for batch in src.values(limit=SAMPLE_ROWS) for v in batch]
    return {**describe_values(values, src.paths), "rows": src.rows,
            "row_groups": src.row_groups}


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


def _pick_fields(src, requested: list[str] | None, role: str, log,
                 any_of: bool = False, skip_bad: bool = False) -> tuple[str, list[str], str]:
    """(format, fields, head) of an input (text or Parquet). With ``any_of`` (a file of a
    corpus of several), the requested fields the file has are used, and at least one must be
    there. ``skip_bad``: the head is sampled around malformed lines (--skip-bad-lines)."""
    info, head = describe(src, skip_bad)
    parquet = info["format"] == "parquet"
    if requested:
        known_paths = {f["path"] for f in info["fields"]}
        # (a field the head's description lists needs no second look at the head)
        check = ((lambda fs: _check_parquet_fields(src, info, fs)) if parquet else
                 (lambda fs: None if set(fs) <= known_paths else
                  check_fields(src.name, info["format"], fs, head, skip_bad)))
        if any_of:
            known = {f["path"] for f in info["fields"]}
            fields = [f for f in requested if f in known] or requested
            if fields is requested:
                check(requested)   # none is known: raises, naming them (or finds a filter path)
        else:
            check(requested)
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


def _check_encoder_extra() -> None:
    """Stop before any pass over the files when the encoder extra is missing (a job that
    embeds: ``paraphrases``, ``contamination --semantic``).

    Raises:
        EvalsieveError(asset_load_failed): onnxruntime, tokenizers or numpy is not installed;
        the message names them and ``pip install 'evalsieve[encoder]'``.
    """
    import importlib.util
    missing = [m for m in ("onnxruntime", "tokenizers", "numpy")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise EvalsieveError(
            "asset_load_failed",
            f"the encoder needs {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed",
            expected="pip install 'evalsieve[encoder]'")


def run_contamination(args, log) -> tuple[dict, dict]:
    """Run the contamination job for parsed CLI args. Returns (summary, exports): each
    export is text, or for a Parquet eval file's clean export a function writing it.

    TRAIN arguments are expanded into a corpus (:func:`corpus.expand_inputs`); the training
    pass runs as tasks (:func:`corpus.plan_tasks`) on the chosen engine and merges exactly.
    """
    from .corpus import make_payload
    from .engines import Merger, hash_file, run_local, run_ray
    if args.semantic:
        _check_encoder_extra()
    ev = open_input(args.eval)
    skip = args.skip_bad_lines
    ev_fmt, ev_fields, _ = _pick_fields(ev, args.eval_field, "eval", log, skip_bad=skip)
    paths = expand_inputs(args.train)
    files = []
    first_head = ""
    for k, (p, name) in enumerate(paths):
        src = open_input(p, name)
        quiet = k >= 3 and len(paths) > 4
        fmt, fields, head = _pick_fields(src, args.train_field, "train",
                                         (lambda m: None) if quiet else log,
                                         any_of=len(paths) > 1, skip_bad=skip)
        first_head = first_head or head   # the first text file's head: the filter words
        files.append({"path": p, "name": name, "fmt": fmt, "fields": fields, "gzip": src.gzip,
                      "size": size_of(p)})
    if len(paths) > 4:
        log(f"train: {len(paths)} files in all")
    field_lists = []
    for f in files:
        if f["fields"] not in field_lists:
            field_lists.append(f["fields"])
    tr_fields = [x for fl in field_lists for x in fl]
    tr_fields = list(dict.fromkeys(tr_fields))
    sem = None
    if args.semantic:
        from .semantic import SemanticConfig
        sem = SemanticConfig(**{k: v for k, v in (
            ("window_words", args.semantic_window), ("candidates", args.semantic_candidates),
            ("threshold", args.semantic_threshold),
            ("code_ngram", args.semantic_code_ngram)) if v is not None})
    cfg = ContaminationConfig(tuple(ev_fields), tuple(tr_fields), args.n,
                              not args.no_boilerplate, args.threshold, args.clean, sem,
                              tuple(args.exclude_rungs) if args.exclude_rungs else None,
                              skip_bad_lines=skip)
    job = ContaminationJob(cfg, ev.name, ev_fmt, files[0]["name"], files[0]["fmt"])
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
    if first_head:
        job.set_background(first_head)
    _feed(ev, ev_fmt, ev_fields, job.feed_eval, job.feed_eval_values)
    e = job.end_eval()
    log(f"eval: {e['rows']} rows, N = {e['n']} ({e['n_how']}), {e['eval_ngrams']} distinct n-grams")
    t0, c0 = time.perf_counter(), _cpu_seconds()
    workers = args.workers or os.cpu_count() or 1
    tasks = plan_tasks(files, workers if args.engine == "local" else max(workers, 2))
    # files read in ranges are hashed whole by a thread, started first: it runs on a core
    # the filter build below leaves idle (hashlib and file reads release the GIL)
    split = sorted({t.file for t in tasks if not t.whole})
    hashes: dict[int, str] = {}
    stop = threading.Event()
    hasher = None
    if split:   # (no thread otherwise: Pyodide, where the CLI's tests also run, has none)
        hasher = threading.Thread(target=lambda: hashes.update(
            {i: hash_file(files[i]["path"], stop) for i in split}), daemon=True)
        hasher.start()
    prog = None
    try:
        payload = make_payload(job.index, fast=args.filter != "off",
                               formats={f["fmt"] for f in files})
        if args.filter == "numpy" and not payload["filters"] and \
                {f["fmt"] for f in files} & {"jsonl", "text"}:
            raise bad_input("--filter numpy needs numpy (and N >= 2)",
                            expected="pip install 'evalsieve[fast]', or --filter off")
        payload["skip_bad"] = skip   # corpus.scan_task skips and lists malformed records
        merger = Merger(job, tasks)
        total = sum(f["size"] for f in files)
        prog = Progress(total, len(tasks), log,
                        show_tasks=args.engine != "local" or workers > 1)

        def on_result(res):
            merger.add(res)
            prog.task_done()
        if args.engine == "ray":
            run_ray(payload, tasks, args.ray_address, workers, on_result, prog.add)
        else:
            run_local(payload, tasks, workers, on_result, prog.add)
        if hasher is not None:
            hasher.join()
    finally:
        stop.set()
        if prog is not None:
            prog.close()
    if not merger.done():  # pragma: no cover - every engine returns every task or raises
        raise EvalsieveError("internal", "the training pass ended with tasks missing")
    assets = {}
    if sem is not None:
        _semantic_pass(job, files, log)
        assets = _semantic_rung(job, args, log)
    sha = {**merger.sha256, **hashes}
    train_inputs = [InputFile("train", f["name"], sha.get(i, ""), f["size"],
                              f["fmt"] + ("+gzip" if f["gzip"] else ""))
                    for i, f in enumerate(files)]
    summary = job.finish(_input_info(ev, "eval", ev_fmt), train_inputs, _utc_now(),
                         assets=assets, runtime=_runtime())
    dt = time.perf_counter() - t0
    summary["seconds_training_pass"] = round(dt, 3)
    summary["cpu_seconds_training_pass"] = round(_cpu_seconds() - c0, 3)
    summary["training_engine"] = {"engine": args.engine, "workers": workers,
                                  "tasks": len(tasks),
                                  "filter": "numpy" if payload["filters"] else "off",
                                  "candidate_lines": merger.candidates
                                  if merger.filtered and payload["filters"] else None}
    log(f"train: {summary['training_records']} records in {len(files)} file(s); read "
        f"{total / 1e6:.1f} MB from disk in {dt:.1f} s ({total / 1e6 / max(dt, 1e-9):.1f} MB/s "
        f"read), decoded {summary['training_chars'] / 1e6:.1f} M characters of text "
        f"({summary['training_chars'] / 1e6 / max(dt, 1e-9):.1f} M chars/s)")
    for w in summary["warnings"]:
        print(f"evalsieve: warning: {w}", file=sys.stderr)
    exports: dict = {}
    for name in job.export_names():
        if name == job.clean_name and ev_fmt == "parquet":
            keep = job.kept_rows()
            exports[name] = lambda path, keep=keep: ev.write_rows(path, keep)
        else:
            exports[name] = job.export(name)[1]
    _log_join(scores, log)
    if skip:
        n = sum(summary["skipped_lines"].values())
        log(f"skipped {n} malformed record(s): " + ", ".join(
            f"{k} {v}" for k, v in summary["skipped_lines"].items())
            + "; listed in skipped-lines.csv")
    return summary, exports


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished child processes
    (the worker pool, once joined)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


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


class Progress:
    """Progress of the training pass on stderr.

    On a terminal with tqdm installed (the ``[progress]`` extra): a bar of bytes read from
    disk (compressed bytes for gzip), with MB/s and ETA, and tasks done / total when the pass
    runs as several tasks. Elsewhere: a plain line at most every 10 s.
    """

    def __init__(self, total: int, tasks: int, log, show_tasks: bool):
        self.total, self.tasks, self.log, self.show_tasks = total, tasks, log, show_tasks
        self.read = 0
        self.done = 0
        self.bar = None
        self.t0 = self.last = time.perf_counter()
        if log is not _silent and sys.stderr.isatty():
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1000,
                                desc="training bytes read", file=sys.stderr, leave=False,
                                dynamic_ncols=True)
            except ImportError:
                self.bar = None

    def add(self, nbytes: int) -> None:
        """Count bytes read from disk."""
        self.read += nbytes
        if self.bar is not None:
            self.bar.update(nbytes)
        self._maybe_line()

    def task_done(self) -> None:
        """Count one finished task (a file or a byte range)."""
        self.done += 1
        if self.bar is not None and self.show_tasks:
            self.bar.set_postfix_str(f"tasks {self.done}/{self.tasks}")
        self._maybe_line()

    def _maybe_line(self) -> None:
        now = time.perf_counter()
        if self.bar is not None or now - self.last < 10:
            return
        self.last = now
        dt = now - self.t0
        rate = self.read / 1e6 / max(dt, 1e-9)
        eta = (self.total - self.read) / 1e6 / rate if rate else float("nan")
        tasks = f", tasks {self.done}/{self.tasks}" if self.show_tasks else ""
        self.log(f"train: read {self.read / 1e6:.0f} of {self.total / 1e6:.0f} MB from disk, "
                 f"{rate:.1f} MB/s, ETA {eta:.0f} s{tasks}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _silent(msg: str) -> None:
    pass


def _semantic_pass(job: ContaminationJob, files: list[dict], log) -> None:
    """The semantic rung's scan of every training record (no candidate filter can serve it),
    here in the driver, after the n-gram pass; records count from 1 in each file.

    Raises:
        EvalsieveError(bad_input): as the readers.
    """
    from .fields import FieldExtractor
    from .records import RecordReader
    log(f"semantic: reading {len(files)} training file(s) once more for the windows")
    for k, f in enumerate(files):
        job.semantic.set_file(k, f["name"])
        seg = FieldExtractor(f["fmt"], list(f["fields"]), f["name"]).segments
        src = open_input(f["path"], f["name"])
        if f["fmt"] == "parquet":
            n = 0
            for values in src.values(src.columns_for(list(f["fields"]))):
                job.semantic.scan([(n + i + 1, seg(v)) for i, v in enumerate(values)])
                n += len(values)
            continue
        # skipped records are listed by the n-gram pass
        reader = RecordReader(f["fmt"], f["name"], job.config.skip_bad_lines)
        for text in src.chunks():
            job.semantic.scan([(r.index, seg(r.value)) for r in reader.feed(text)])
        job.semantic.scan([(r.index, seg(r.value)) for r in reader.finish()])


def _semantic_rung(job: ContaminationJob, args, log) -> dict:
    """Embed the semantic rung's eval rows and candidate windows; give the job the cosines.

    onnxruntime uses every core (``--threads 0``) and the CUDA execution provider when
    onnxruntime-gpu sees a GPU. Returns the encoder's asset versions for the stamp.
    """
    from .native_encoder import NativeEncoder, _require

    model_dir = find_model_dir(args.model_dir, log)
    req = job.semantic_request()
    f = job.semantic.figures()
    log(f"semantic: {f['windows']} windows of {f['window_words']} words; the candidate stage "
        f"lets {f['windows_embedded']} through "
        f"({f['windows_embedded'] / max(1, f['windows']):.1%}) as fitted spans; embedding "
        f"them, {f['probes']} probes of {len(job.semantic.rows)} eval rows"
        + (f" and {len(req['eval_texts']) - f['probes']} + "
           f"{len(req['window_texts']) - f['windows_embedded']} docstrings of code"
           if f.get("docstring_pairs") else ""))
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
    _check_encoder_extra()
    from .native_encoder import NativeEncoder, nearest_neighbours, pairs_above
    from .paraphrase import ParaphraseConfig, ParaphraseJob

    model_dir = find_model_dir(args.model_dir, log)
    ev = open_input(args.eval)
    fmt, fields, head = _pick_fields(ev, [args.field] if args.field else None, "para", log,
                                     skip_bad=args.skip_bad_lines)
    if args.label_field:
        if fmt == "parquet":
            _check_parquet_fields(ev, describe(ev)[0], [args.label_field])
        else:
            check_fields(ev.name, fmt, [args.label_field], head, args.skip_bad_lines)
    cfg = ParaphraseConfig(fields[0], args.label_field, args.threshold,
                           floor=min(PAGE_COSINE_FLOOR, args.threshold),
                           skip_bad_lines=args.skip_bad_lines)
    job = ParaphraseJob(cfg, ev.name, fmt)
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
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
    stamp = job.stamp(args.threshold, _input_info(ev, "eval", fmt), _utc_now(), runtime=_runtime())
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


_threshold = _bounded(float, constants.THRESHOLD_MIN_EXCLUSIVE, constants.THRESHOLD_MAX,
                      "a number in (0, 1] or 'any'", above_lo=True, any_ok=True)
#: The page's slider stops at constants.PARA_FLOOR (a lower threshold keeps many more
#: candidate pairs, slow in the browser); the CLI goes down to CLI_COSINE_FLOOR.
PAGE_COSINE_FLOOR = constants.PARA_FLOOR
CLI_COSINE_FLOOR = constants.PARA_CLI_FLOOR
_cosine = _bounded(float, CLI_COSINE_FLOOR, constants.PARA_THRESHOLD_MAX,
                   f"a cosine from {CLI_COSINE_FLOOR} to 1")
_n = _bounded(int, constants.N_MIN, constants.N_MAX,
              f"a whole number from {constants.N_MIN} to {constants.N_MAX}")
_workers = _bounded(int, 1, 4096, "a whole number of processes from 1")

_threshold_score = _bounded(float, 0, 1, "a number in (0, 1]", above_lo=True)
_threads = _bounded(int, 0, 1024, "a whole number of threads (0 = every core)")
_code_ngram = _bounded(int, constants.SEMANTIC_CODE_NGRAM_MIN, constants.SEMANTIC_CODE_NGRAM_MAX,
                       f"a whole number of tokens from {constants.SEMANTIC_CODE_NGRAM_MIN} (off) "
                       f"to {constants.SEMANTIC_CODE_NGRAM_MAX}")


def _rungs(s: str) -> list[str]:
    """An argparse type: comma-separated rung names."""
    names = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in names if x not in ("exact", "ngram", "semantic")]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{s!r}: rungs are exact, ngram, semantic")
    return names


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
    c.add_argument("train", nargs="+", metavar="TRAIN",
                   help="training files (" + _INPUTS + "), directories (read recursively: "
                   ".jsonl .ndjson .json .csv .tsv .tab .txt .parquet, each text one optionally "
                   ".gz) or globs; URLs (s3://, gs://, hf://, https://) with the [remote] extra; "
                   "one corpus, in this order")
    c.add_argument("--eval-field", action="append", metavar="F",
                   help="eval field path to score, e.g. question or messages[role=user].content "
                   "(repeatable; default: " + _DEFAULT_FIELD + ")")
    c.add_argument("--train-field", action="append", metavar="F",
                   help="training field path to search (repeatable; default: " + _DEFAULT_FIELD
                   + "; with several training files each must have at least one of them)")
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
    c.add_argument("--skip-bad-lines", action="store_true",
                   help="skip malformed JSONL/CSV/TSV records (eval and training files) instead "
                   "of stopping; each is listed in skipped-lines.csv (file, line, error) and "
                   "counted per file in the stamp; a skipped eval line is not in eval.clean "
                   "(Parquet: no effect)")
    c.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="processes for the training pass (default: all cores); files and "
                   "byte ranges of large uncompressed files run in parallel")
    c.add_argument("--engine", choices=ENGINES, default="local",
                   help="local processes (default) or a Ray cluster (pip install "
                   "'evalsieve[ray]')")
    c.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="Ray cluster to join (e.g. auto after `ray start --head`); default: "
                   "start a local Ray with --workers CPUs")
    c.add_argument("--filter", choices=("auto", "numpy", "off"), default="auto",
                   help="candidate filter in front of the exact check: numpy when installed "
                   "(auto), required (numpy), or none (off: pure Python); exports are the same")
    _add_score_options(c)
    c.add_argument("--exclude-rungs", type=_rungs, metavar="LIST",
                   help="rungs whose rows leave eval.clean, comma-separated from exact,ngram,"
                   "semantic (default: every rung that ran)")
    c.add_argument("--semantic", action="store_true",
                   help="also run the semantic rung: reworded eval rows inside training windows "
                   "(needs the encoder extra and the model)")
    c.add_argument("--semantic-threshold", type=_threshold_score, default=None, metavar="X",
                   help="verifier probability at which the semantic rung catches a row, in "
                   f"(0, 1] (default {VERIFIER_THRESHOLD}, fitted with the verifier)")
    c.add_argument("--semantic-window", type=_n, default=None, metavar="W",
                   help="window size in words (default: median probe length, 16..160)")
    c.add_argument("--semantic-candidates", type=_n, default=None, metavar="K",
                   help="candidate windows per probe, each embedded as one fitted span "
                   "(default 8)")
    c.add_argument("--semantic-code-ngram", type=_code_ngram, default=None, metavar="N",
                   help="shingle length of the code channel for eval rows that define a "
                   "function or class (default 3; 0 reads code rows as prose)")
    c.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json for --semantic (default: "
                   "derived on first use into the user cache folder)")
    c.add_argument("--threads", type=_threads, default=0, metavar="T",
                   help="onnxruntime threads for the semantic rung (default 0: every core)")
    q = sub.add_parser("paraphrases", help="groups of eval rows that ask the same thing",
                       description="Sentence embeddings (all-MiniLM-L6-v2, int8 ONNX, mean "
                       "pooling, L2-normalised, 256 word pieces); a pair is an edge when "
                       "cosine >= threshold; groups are connected components.")
    q.add_argument("eval", help="eval file: " + _INPUTS)
    q.add_argument("--field", metavar="F", help="text field to embed (default: "
                   + _DEFAULT_FIELD + ")")
    q.add_argument("--label-field", metavar="F", help="a field naming each row (an id)")
    q.add_argument("--threshold", type=_cosine, default=constants.PARA_THRESHOLD_DEFAULT, metavar="X",
                   help=f"cosine threshold for an edge, {CLI_COSINE_FLOOR}..1 (default 0.90; the "
                   f"page stops at {PAGE_COSINE_FLOOR} for speed)")
    q.add_argument("--model-dir", metavar="DIR",
                   help="folder with encoder.onnx and tokenizer.json (default: derived on "
                   "first use from the pinned model packages into the user cache folder; "
                   "needs pip install 'evalsieve[encoder]')")
    q.add_argument("--out", required=True, metavar="DIR", help="folder for the exports")
    q.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    q.add_argument("--skip-bad-lines", action="store_true",
                   help="skip malformed JSONL/CSV/TSV records instead of stopping; each is "
                   "listed in skipped-lines.csv and counted in the stamp (Parquet: no effect)")
    _add_score_options(q)
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "contamination" and not args.semantic:
        given = [flag for flag, v in (
            ("--semantic-threshold", args.semantic_threshold),
            ("--semantic-window", args.semantic_window),
            ("--semantic-candidates", args.semantic_candidates),
            ("--semantic-code-ngram", args.semantic_code_ngram)) if v is not None]
        if given:  # a setting of a rung that does not run would be ignored without a word
            parser.error(f"{', '.join(given)} only apply with --semantic")
    quiet = getattr(args, "quiet", False)

    def log(msg: str) -> None:
        if not quiet:
            print(f"evalsieve: {msg}", file=sys.stderr)
    if quiet:
        log = _silent  # noqa: F811 (Progress draws no bar for a silent log)

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
    print(f"  training: {s['training_records']} records in {s['training_files']} file(s), "
          f"{s['training_bytes']} bytes")
    if "score_impact" in s:
        for si in [s["score_impact"]] + s.get("score_impact_more", []):
            _print_impact(si)
    print(f"  {s['clean_file']} keeps {s['clean_rule']}")
    if "skipped_lines" in s:   # --skip-bad-lines
        print("  malformed records skipped (skipped-lines.csv): " + ", ".join(
            f"{k} {v}" for k, v in s["skipped_lines"].items()))
    by = s["rows_contaminated_by_rung"]
    print("  caught first by rung: " + ", ".join(
        f"{k} {'did not run' if v is None else v}" for k, v in by.items())
        + f"; eval.clean leaves out {', '.join(s['clean_file_excludes'])}")
    if s.get("semantic"):
        f = s["semantic"]
        print(f"  semantic: {f['windows']} windows of {f['window_words']} words, "
              f"{f['windows_embedded']} spans embedded for {f['probes']} probes; rows it "
              "passes are clean at these rungs, not clean")
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
