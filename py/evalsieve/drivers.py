"""The drivers of the two jobs: read the inputs, run the passes, return (summary, exports).

The CLI (:mod:`evalsieve.cli`), the Python API (:mod:`evalsieve.api`) and purify call them;
the settings come as an argparse-like namespace (``cli.build_parser`` names them).
"""

from __future__ import annotations

import os
import sys
import threading
import time

from . import constants
from .contamination_exports import export, export_names
from .para_exports import export as para_export, export_names as para_export_names
from .contamination_job import ContaminationConfig, ContaminationJob
from .errors import EvalsieveError, bad_input
from .corpus import expand_inputs, plan_tasks, size_of
from .driver_scores import _ci_text, _load_scores, _log_join  # noqa: F401 (_ci_text: cli.py)
from .layouts import eval_input
from .record_id import default_id_field, has_id_field
from .results import ContaminationResult, ParaphraseResult
from .run_io import (
    Progress,
    _check_encoder_extra,
    _check_parquet_fields,
    _cpu_seconds,
    _feed,
    _input_info,
    _pick_fields,
    _runtime,
    _sha256_file,
    _utc_now,
    check_cancel,
    check_fields,
    describe,
    find_model_dir,
    open_input,
    report,
)
from .sample import corpus_defaults
from .semantic_pass import semantic_pass
from .stamps import InputFile

PAGE_COSINE_FLOOR = constants.PARA_FLOOR


def run_contamination(args, log) -> tuple[dict, dict]:
    """Run the contamination job for parsed CLI args. Returns (summary, exports): each
    export is text, or for a Parquet eval file's clean export a function writing it."""
    res, files = contamination_run(args, log)
    return res.summary, export_files(res, files)


def export_files(res: ContaminationResult, files: dict) -> dict:
    """Every export of ``res`` by name, in the order the CLI writes them: its text
    (:func:`contamination_exports.export`), or the entry of ``files`` (a Parquet clean
    file's writer)."""
    return {
        name: files[name] if name in files else export(res, name)[1] for name in export_names(res)
    }


def contamination_run(args, log) -> tuple[ContaminationResult, dict]:
    """Run the contamination job for parsed CLI args: the finished run's
    :class:`ContaminationResult` and the exports it cannot give itself (for a Parquet eval
    file, ``{"eval.clean.parquet": writer(path)}``, written from the eval file; else {}).

    ``args.progress(stage, done, total)`` and ``args.cancel`` (``is_set()``), when the
    caller sets them, see stages "eval" (rows), "train" (bytes read) and "semantic"
    (0 of 1, then 1 of 1); a set cancel stops the run between blocks (one worker) or
    tasks, in both passes.

    Raises:
        EvalsieveError: bad input (bad_input), a missing extra (asset_load_failed or
        environment), a worker process killed or a Ray cluster lost (environment),
        ``args.cancel`` set (cancelled).

    TRAIN arguments are expanded into a corpus (:func:`corpus.expand_inputs`); the training
    pass runs as tasks (:func:`corpus.plan_tasks`) on the chosen engine and merges exactly.
    """
    from .corpus import make_payload
    from .engines import Merger, hash_file, run_local
    from .ray_engine import run_ray

    if args.semantic:
        _check_encoder_extra()
    notes: list[str] = []
    ev = open_input(*eval_input(args.eval, notes))
    if getattr(ev, "file_format", "") == "arrow":
        raise bad_input(
            "an Arrow file as the eval file: eval.clean is written in the eval "
            "file's own format, and the CLI does not write Arrow",
            file=ev.name,
            expected="the eval split as Parquet or JSON Lines (datasets: "
            "Dataset.to_parquet(F) or .to_json(F)); Arrow shards are read as "
            "TRAIN, and by evalsieve fields",
        )
    skip = args.skip_bad_lines
    for note in notes:
        log("eval: " + note)
    ev_fmt, ev_fields, _ = _pick_fields(ev, args.eval_field, "eval", log, skip_bad=skip)
    notes.clear()
    paths = expand_inputs(args.train, notes)
    for note in notes:
        log("train: " + note)
    files = []
    first_head = ""
    several = len(paths) > 1
    # several files and no --train-field: every file is described first, then each is read
    # with the corpus's defaults it has (sample.corpus_defaults)
    described = []
    by_name: list = []  # each training file's id field by name, in corpus order
    listed: list = []  # each training file's (name, field paths), for --train-id-field
    for k, (p, name) in enumerate(paths):
        src = open_input(p, name)
        info, head = describe(src, skip)
        by_name.append(default_id_field(info.get("fields") or []))
        listed.append(
            (
                name,
                [f["path"] for f in (info.get("fields") or []) + (info.get("filter_fields") or [])],
            )
        )
        if several and not args.train_field:
            first_head = first_head or head
            described.append((p, name, src, info))
            continue
        quiet = k >= 3 and len(paths) > 4
        fmt, fields, head = _pick_fields(
            src,
            args.train_field,
            "train",
            (lambda m: None) if quiet else log,
            any_of=several,
            skip_bad=skip,
            described=(info, head),
        )
        first_head = first_head or head  # the first text file's head: the filter words
        files.append(
            {
                "path": p,
                "name": name,
                "fmt": fmt,
                "fields": fields,
                "gzip": src.gzip,
                "size": size_of(p),
                "file_format": getattr(src, "file_format", fmt),
            }
        )
    if described:
        corpus = corpus_defaults([(name, info) for _, name, _, info in described])
        for k, (p, name, src, info) in enumerate(described):
            quiet = k >= 3 and len(paths) > 4
            fmt, fields, _ = _pick_fields(
                src,
                None,
                "train",
                (lambda m: None) if quiet else log,
                any_of=True,
                skip_bad=skip,
                described=(info, ""),
                corpus=corpus,
            )
            files.append(
                {
                    "path": p,
                    "name": name,
                    "fmt": fmt,
                    "fields": fields,
                    "gzip": src.gzip,
                    "size": size_of(p),
                    "file_format": getattr(src, "file_format", fmt),
                }
            )
    id_field = _train_id_field(args, by_name, listed, log)
    for f in files:
        f["id_field"] = id_field
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

        sem = SemanticConfig(
            **{
                k: v
                for k, v in (
                    ("window_words", args.semantic_window),
                    ("candidates", args.semantic_candidates),
                    ("threshold", args.semantic_threshold),
                    ("code_threshold", args.semantic_threshold),  # one threshold for every row
                    ("code_ngram", args.semantic_code_ngram),
                )
                if v is not None
            }
        )
    cfg = ContaminationConfig(
        tuple(ev_fields),
        tuple(tr_fields),
        args.n,
        not args.no_boilerplate,
        args.threshold,
        args.clean,
        sem,
        tuple(args.exclude_rungs) if args.exclude_rungs else None,
        skip_bad_lines=skip,
        train_id_field=id_field,
    )
    job = ContaminationJob(cfg, ev.name, ev_fmt, files[0]["name"], files[0]["fmt"])
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
    if first_head:
        job.set_background(first_head)
    _feed(ev, ev_fmt, ev_fields, job.feed_eval, job.feed_eval_values, skip)
    e = job.end_eval()
    report(args, "eval", e["rows"], e["rows"])
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
    if split:  # (no thread otherwise: Pyodide, where the CLI's tests also run, has none)
        hasher = threading.Thread(
            target=lambda: hashes.update({i: hash_file(files[i]["path"], stop) for i in split}),
            daemon=True,
        )
        hasher.start()
    prog = None
    try:
        payload = make_payload(job.index, formats={f["fmt"] for f in files}, kind=args.filter)
        if (
            args.filter in ("kernel", "numpy")
            and payload["filter"] != args.filter
            and {f["fmt"] for f in files} & {"jsonl", "text"}
        ):
            raise EvalsieveError(
                "environment",
                f"--filter {args.filter} cannot run: "
                + (payload["filter_note"] or "numpy's filter needs N >= 2"),
                expected="pip install 'evalsieve[fast]', or --filter off",
            )
        if payload["filter"] != "off" or payload["filter_note"]:
            log(
                f"filter: {payload['filter']}"
                + (
                    " (the scan kernel, kernels/prefilter.wasm under wasmtime)"
                    if payload["filter"] == "kernel"
                    else ""
                )
                + (f"; not the kernel: {payload['filter_note']}" if payload["filter_note"] else "")
            )
        payload["skip_bad"] = skip  # corpus.scan_task skips and lists malformed records
        merger = Merger(job, tasks)
        total = sum(f["size"] for f in files)
        prog = Progress(
            total,
            len(tasks),
            log,
            show_tasks=args.engine != "local" or workers > 1,
            hook=getattr(args, "progress", None),
            cancel=getattr(args, "cancel", None),
        )

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
        report(args, "semantic", 0, 1)
        kernel = args.filter in ("auto", "kernel")
        cancel = getattr(args, "cancel", None)

        def check():
            check_cancel(cancel)

        run = None
        if args.engine == "ray" or workers > 1:

            def run(payload, shards, fn, on_result):
                # the shards report no bytes as they go: the cancel is checked as they run
                if args.engine == "ray":
                    addr = args.ray_address
                    run_ray(
                        payload, shards, addr, workers, on_result, _no_bytes, fn=fn, check=check
                    )
                else:
                    run_local(payload, shards, workers, on_result, _no_bytes, fn=fn, check=check)

        semantic_pass(job, files, log, kernel, time.perf_counter, workers, run, check)
        report(args, "semantic", 0, 1)
        assets = _semantic_rung(job, args, log)
        report(args, "semantic", 1, 1)
    sha = {**merger.sha256, **hashes}
    train_inputs = [
        InputFile(
            "train",
            f["name"],
            sha.get(i, ""),
            f["size"],
            f.get("file_format", f["fmt"]) + ("+gzip" if f["gzip"] else ""),
        )
        for i, f in enumerate(files)
    ]
    res = job.finish(
        _input_info(ev, "eval", ev_fmt), train_inputs, _utc_now(), assets=assets, runtime=_runtime()
    )
    summary = res.summary
    dt = time.perf_counter() - t0
    summary["seconds_training_pass"] = round(dt, 3)
    summary["cpu_seconds_training_pass"] = round(_cpu_seconds() - c0, 3)
    summary["training_engine"] = {
        "engine": args.engine,
        "workers": workers,
        "tasks": len(tasks),
        "filter": payload["filter"],
        "candidate_lines": merger.candidates if merger.filtered and payload["filters"] else None,
    }
    log(
        f"train: {summary['training_records']} records in {len(files)} file(s); read "
        f"{total / 1e6:.1f} MB from disk in {dt:.1f} s ({total / 1e6 / max(dt, 1e-9):.1f} MB/s "
        f"read), decoded {summary['training_chars'] / 1e6:.1f} M characters of text "
        f"({summary['training_chars'] / 1e6 / max(dt, 1e-9):.1f} M chars/s)"
    )
    for w in summary["warnings"]:
        print(f"evalsieve: warning: {w}", file=sys.stderr)
    files: dict = {}
    if ev_fmt == "parquet":
        keep = list(res.kept)
        files[res.clean_name] = lambda path: ev.write_rows(path, keep)
    _log_join(scores, log)
    if skip:
        n = sum(summary["skipped_lines"].values())
        log(
            f"skipped {n} malformed record(s): "
            + ", ".join(f"{k} {v}" for k, v in summary["skipped_lines"].items())
            + "; listed in skipped-lines.csv"
        )
    return res, files


def _train_id_field(args, by_name: list, listed: list, log) -> str | None:
    """The training records' id field: ``--train-id-field F`` (``none``: no id), else the
    first file's (in corpus order) that has one by name (``record_id.default_id_field``),
    as the page chooses it.

    Args:
        by_name: per training file, its id field by name or None; listed: per file,
            ``(name, field paths its description lists)``.
    Raises:
        EvalsieveError(bad_input): ``F`` is in no training file's sampled records (files
            that lack it are fine when another has it: their records have no id).
    """
    given = getattr(args, "train_id_field", None)
    if given is not None:
        if given == "none":
            return None
        if not any(has_id_field(fields, given) for _, fields in listed):
            names = [n for n, _ in listed]
            known = sorted({f for _, fields in listed for f in fields})
            raise bad_input(
                f"--train-id-field {given!r} is in no training file's sampled "
                f"records ({', '.join(names[:5])}"
                f"{f' and {len(names) - 5} more' if len(names) > 5 else ''})",
                expected="one of: " + ", ".join(known[:40]) + ", or none",
            )
        return given
    id_field = next((f for f in by_name if f), None)
    if id_field:
        log(
            f"train: record ids from field {id_field} (default: by name; "
            "--train-id-field F or none to change)"
        )
    return id_field


def _no_bytes(n: int) -> None:
    """The semantic pass's tasks report no progress (the pass is one step of it)."""


def _semantic_rung(job: ContaminationJob, args, log) -> dict:
    """Embed the semantic rung's eval rows and candidate windows; give the job the cosines.

    onnxruntime uses every core (``--threads 0``) and the CUDA execution provider when
    onnxruntime-gpu sees a GPU. Returns the encoder's asset versions for the stamp.
    """
    from .native_encoder import NativeEncoder, _require

    model_dir = find_model_dir(args.model_dir, log)
    req = job.semantic_request()
    f = job.semantic.figures()
    log(
        f"semantic: {f['windows']} windows of {f['window_words']} words; the candidate stage "
        f"lets {f['windows_embedded']} through "
        f"({f['windows_embedded'] / max(1, f['windows']):.1%}) as fitted spans; embedding "
        f"them, {f['probes']} probes of {len(job.semantic.rows)} eval rows"
        + (
            f" and {len(req['eval_texts']) - f['probes']} + "
            f"{len(req['window_texts']) - f['windows_embedded']} docstrings of code"
            if f.get("docstring_pairs")
            else ""
        )
    )
    ort = _require("onnxruntime")
    providers = (
        ["CUDAExecutionProvider", "CPUExecutionProvider"]
        if "CUDAExecutionProvider" in ort.get_available_providers()
        else ["CPUExecutionProvider"]
    )
    enc = NativeEncoder(
        os.path.join(model_dir, "encoder.onnx"),
        os.path.join(model_dir, "tokenizer.json"),
        threads=args.threads,
        providers=providers,
    )
    np = enc.np
    t0 = time.perf_counter()
    ev_vecs, _ = enc.encode(req["eval_texts"])
    win_vecs, truncated = (
        enc.encode(req["window_texts"]) if req["window_texts"] else (ev_vecs[:0], 0)
    )
    dt = time.perf_counter() - t0
    n = len(req["eval_texts"]) + len(req["window_texts"])
    log(
        f"semantic: embedded {n} texts in {dt:.1f} s ({n / max(dt, 1e-9):.0f} texts/s, "
        f"{enc.session.get_providers()[0]}); {truncated} windows cut to 256 word pieces"
    )
    pairs = np.asarray(req["pairs"], dtype=np.int64).reshape(-1, 2)
    cos = np.einsum("ij,ij->i", ev_vecs[pairs[:, 0]], win_vecs[pairs[:, 1]])
    job.set_semantic_cosines(cos.tolist())
    return {
        "encoder": "all-MiniLM-L6-v2 int8 (encoder.onnx)",
        "encoder_sha256": _sha256_file(os.path.join(model_dir, "encoder.onnx")),
        "encoder_provider": enc.session.get_providers()[0],
        "semantic_windows_truncated": truncated,
    }


def run_paraphrases(args, log) -> tuple[dict, dict[str, str]]:
    """Run the paraphrase job for parsed CLI args. Returns (summary, exports): each export
    is text, or for a Parquet eval file's deduplicated file a function writing it."""
    res, files = paraphrase_run(args, log)
    return res.summary, {
        name: files[name] if name in files else para_export(res, name)[1]
        for name in para_export_names(res)
    }


def paraphrase_run(args, log) -> tuple[ParaphraseResult, dict]:
    """Run the paraphrase job for parsed CLI args: the finished run's
    :class:`ParaphraseResult` and the exports it cannot give itself (for a Parquet eval
    file, ``{"eval.deduplicated.parquet": writer(path)}``; else {})."""
    _check_encoder_extra()
    from .native_encoder import NativeEncoder, nearest_neighbours, pairs_above
    from .paraphrase import ParaphraseConfig, ParaphraseJob

    model_dir = find_model_dir(args.model_dir, log)
    ev = open_input(args.eval)
    fmt, fields, head = _pick_fields(
        ev, _para_fields(args.field), "para", log, skip_bad=args.skip_bad_lines
    )
    if args.label_field:
        if fmt == "parquet":
            _check_parquet_fields(ev, describe(ev)[0], [args.label_field])
        else:
            check_fields(ev.name, fmt, [args.label_field], head, args.skip_bad_lines)
    cfg = ParaphraseConfig(
        fields[0] if len(fields) == 1 else tuple(fields),
        args.label_field,
        args.threshold,
        floor=min(PAGE_COSINE_FLOOR, args.threshold),
        skip_bad_lines=args.skip_bad_lines,
    )
    job = ParaphraseJob(cfg, ev.name, fmt)
    scores = _load_scores(args, log)
    if scores is not None:
        job.set_scores(scores)
    _feed(
        ev,
        fmt,
        fields + ([args.label_field] if args.label_field else []),
        job.feed_eval,
        job.feed_eval_values,
        args.skip_bad_lines,
    )
    texts = job.end_eval()["texts"]
    enc = NativeEncoder(
        os.path.join(model_dir, "encoder.onnx"), os.path.join(model_dir, "tokenizer.json")
    )
    t0 = time.perf_counter()
    report(args, "embed", 0, len(texts))
    emb, truncated = enc.encode(texts)
    report(args, "embed", len(texts), len(texts))
    dt = time.perf_counter() - t0
    log(
        f"embedded {len(texts)} rows in {dt:.1f} s ({len(texts) / max(dt, 1e-9):.0f} rows/s), "
        f"{truncated} truncated to {cfg.window} word pieces"
    )
    cands = pairs_above(emb, cfg.floor)
    nn, nn_idx = nearest_neighbours(emb) if len(texts) > 1 else ([0.0], [-1])
    job.set_similarity(
        cands,
        list(nn),
        list(nn_idx),
        truncated,
        emb.astype("float32").tobytes(),
        {"model_sha256": _sha256_file(os.path.join(model_dir, "encoder.onnx"))},
    )
    shown = 0
    for done, total in job.export_steps(args.threshold):  # lowest pairs of every group
        if total >= 1_000_000 and done >= shown + total // 10:
            shown = done
            log(f"groups' lowest pairs: {done:,} of at most {total:,} member pairs")
    res = job.finish(
        args.threshold,
        _input_info(ev, "eval", fmt),
        _utc_now(),
        runtime=_runtime(),
        keep=getattr(args, "dedup_keep", None) or "first",
    )
    files = {}
    if fmt == "parquet":
        keep = list(res.kept)
        files[res.dedup_name] = lambda path: ev.write_rows(path, keep)
    _log_join(scores, log)
    return res, files


def _para_fields(given) -> list[str] | None:
    """``--field`` as a list (repeated, or one string from the API), or None: the default."""
    if not given:
        return None
    return [given] if isinstance(given, str) else list(given)
