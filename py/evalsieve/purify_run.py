"""Purify a training corpus: the driver behind ``evalsieve purify`` and :func:`purify`.

CLI side (reads and writes files, runs engines). Three passes, each one task per file or
byte range on the chosen engine (:mod:`evalsieve.engines`), so ``--workers`` and Ray give
the same bytes as one process:

1. **scan**: the contamination job's own training pass (:func:`corpus.scan_task`, the same
   eval index, filter and merge), which also lists each record holding an eval n-gram
   (``EvalIndex.keep_hits``). The job's scores give the boilerplate cut-off and the rows
   that count; their non-boilerplate n-grams are the *counted* ones
   (:func:`purify.counted_ngrams`).
2. **write**: one task per training file (:func:`purify_shards.purify_shard`) writes its
   purified copy under ``out`` at the same relative name, atomically. A rerun skips a file
   whose output is there with the sha256 its state file records, for the same settings,
   input and records to change (state in ``out/.evalsieve-purify/``), so a killed run
   resumes and ends with the same bytes.
3. **self-check**: the output is scanned again with the n-gram rung (``full``: every output
   file through the same scan tasks; ``changed``: only the records purify rewrote, the
   untouched ones keeping the counts the first pass found in the same bytes) and the eval
   rows still contaminated are counted (:func:`purify.still_contaminated`). A row it was
   asked to clean that is still contaminated is an internal error: no report is written.

Exports in ``out``: ``purify-report.csv`` (one row per changed record; a plain CSV, header
on line 1, the run's fingerprint in column ``run_fingerprint``), ``purify-summary.json`` and
``run-stamp.json`` (the stamp, plus per output file its sha256, bytes and its input's
sha256), written last.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass

from .contamination_job import ContaminationConfig, ContaminationJob
from .corpus import expand_inputs, is_url, make_payload, plan_tasks, scan_task, size_of
from .engines import Merger, hash_file, run_local
from .errors import EvalsieveError, bad_input
from .ngrams import TrainingScan
from .purify_core import (
    SELF_CHECKS,
    PurifyConfig,
    boilerplate_ids,
    counted_ngrams,
    still_contaminated,
)
from .purify_report import (
    REPORT,
    STAMP,
    SUMMARY,
    check_verdict,
    export_texts,
    figures,
    outputs,
    purify_settings,
    rel_path as _rel,
    report_rows,
    rescan_changed,
)
from .purify_shards import AtomicOutput, ShardTask, purify_shard
from .ray_engine import run_ray
from .stamps import InputFile, RunStamp, canonical_json

STATE_DIR = ".evalsieve-purify"


@dataclass(frozen=True)
class PurifyResult:
    """What :func:`purify` returns.

    Attributes:
        summary: the figures (what ``evalsieve purify --json`` prints).
        report: one dict per changed record (the columns of ``purify-report.csv``).
        stamp: the run stamp (``run-stamp.json``), with ``outputs``.
    """

    summary: dict
    report: list
    stamp: dict


def purify(
    eval_path: str,
    train: list[str],
    out: str,
    *,
    eval_fields=None,
    train_fields=None,
    n: int | None = None,
    boilerplate: bool = True,
    threshold: float | None = None,
    mode: str = "cut",
    radius: int = 200,
    min_piece: int = 200,
    max_splits: int = 10,
    rows: str = "scored",
    workers: int = 1,
    engine: str = "local",
    ray_address: str | None = None,
    filter: str = "auto",
    self_check: str = "changed",
    log=None,
) -> PurifyResult:
    """Write a decontaminated copy of a training corpus.

    Args:
        eval_path: the eval file. train: training files, folders, globs or URLs (as
            ``evalsieve contamination`` takes them). out: the output folder (local or an
            fsspec URL); each training file goes to ``out/<its name>`` (a folder argument's
            name first, as the report names it).
        eval_fields, train_fields: field paths (default: the text field with the most
            words, as the contamination job picks it).
        n, boilerplate, threshold: the contamination rule's settings.
        mode, radius, min_piece, max_splits, rows: :class:`purify.PurifyConfig`.
        workers, engine, ray_address, filter: how the passes run (never what they find).
        self_check: ``"changed"`` (the default: rescan the records it rewrote; every other
            output record is the bytes the first scan read, which held no counted n-gram) or
            ``"full"`` (rescan every output file).
        log: ``callback(message)`` for progress lines (default: silent).
    Returns:
        A :class:`PurifyResult`.
    Raises:
        EvalsieveError(bad_input): bad settings or input (before any output is written, or
        naming the file); (internal): the self-check found a row still contaminated.
    """
    from .run_io import (
        _cpu_seconds,
        _feed,
        _input_info,
        _pick_fields,
        _runtime,
        _utc_now,
        open_input,
    )

    log = log or (lambda msg: None)
    config = PurifyConfig(mode, int(radius), int(min_piece), int(max_splits), rows)
    if self_check not in SELF_CHECKS:
        raise bad_input(f"unknown self-check {self_check!r}", expected=" or ".join(SELF_CHECKS))
    ev = open_input(eval_path)
    ev_fmt, ev_fields, _ = _pick_fields(ev, eval_fields, "eval", log)
    paths = expand_inputs(list(train))
    files, first_head = [], ""
    for k, (p, name) in enumerate(paths):
        src = open_input(p, name)
        quiet = k >= 3 and len(paths) > 4
        fmt, fields, head = _pick_fields(
            src, train_fields, "train", (lambda m: None) if quiet else log, any_of=len(paths) > 1
        )
        first_head = first_head or head
        files.append(
            {
                "path": p,
                "name": name,
                "fmt": fmt,
                "fields": fields,
                "gzip": src.gzip,
                "size": size_of(p),
                "out": _out_path(out, name),
                "mtime_ns": None if is_url(p) else os.stat(p).st_mtime_ns,
            }
        )
    _check_layout(out, files, train)
    tr_fields = list(dict.fromkeys(f for fl in files for f in fl["fields"]))
    cfg = ContaminationConfig(tuple(ev_fields), tuple(tr_fields), n, boilerplate, threshold)
    job = ContaminationJob(cfg, ev.name, ev_fmt, files[0]["name"], files[0]["fmt"])
    if first_head:
        job.set_background(first_head)
    _feed(ev, ev_fmt, ev_fields, job.feed_eval, job.feed_eval_values)
    e = job.end_eval()
    log(f"eval: {e['rows']} rows, N = {e['n']} ({e['n_how']}), {e['eval_ngrams']} distinct n-grams")
    index = job.index
    run = _Engine(engine, workers, ray_address)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    # 1. the scan
    payload = make_payload(index, formats={f["fmt"] for f in files}, kind=filter)
    if (
        filter == "numpy"
        and not payload["filters"]
        and {f["fmt"] for f in files} & {"jsonl", "text"}
    ):
        raise EvalsieveError(
            "environment",
            "--filter numpy needs numpy (and N >= 2)",
            expected="pip install 'evalsieve[fast]', or --filter off",
        )
    index.keep_hits = True
    try:
        hits, sha, records = _scan(run, payload, job, files, log)
    finally:
        index.keep_hits = False
    t_scan, c_scan = time.perf_counter() - t0, _cpu_seconds() - c0
    train_in = [
        InputFile(
            "train", f["name"], sha.get(i, ""), f["size"], f["fmt"] + ("+gzip" if f["gzip"] else "")
        )
        for i, f in enumerate(files)
    ]
    ev_info = _input_info(ev, "eval", ev_fmt)
    job.finish(ev_info, train_in, _utc_now(), runtime=_runtime())
    bp = boilerplate_ids(job.scan.counts, job.cutoff)
    counted, rows_of = counted_ngrams(index, job.scores, bp, rows)
    settings = purify_settings(cfg.settings(), index, boilerplate, job.cutoff, config, self_check)
    stamp = RunStamp("purify", settings, (ev_info, *train_in), _utc_now(), {}, _runtime())
    fingerprint = stamp.to_dict()["fingerprint"]
    # 2. the output files
    _clear_exports(out)
    t1, c1 = time.perf_counter(), _cpu_seconds()
    shards = [
        ShardTask(
            i,
            f["path"],
            f["name"],
            f["fmt"],
            tuple(f["fields"]),
            f["gzip"],
            f["size"],
            f["out"],
            tuple((r, tuple(g)) for r, g in hits[i] if counted.intersection(g)),
            records[i],
            sha.get(i, ""),
            f["mtime_ns"],
        )
        for i, f in enumerate(files)
    ]
    results = _write(
        run, {"index": index, "counted": counted, "config": config}, shards, settings, out, log
    )
    t_write, c_write = time.perf_counter() - t1, _cpu_seconds() - c1
    # 3. the self-check
    t2, c2 = time.perf_counter(), _cpu_seconds()
    counts_out = (
        _rescan_full(run, payload, files)
        if self_check == "full"
        else rescan_changed(index, job.scan.counts, results)
    )
    check = still_contaminated(index, job.scores, counts_out, bp, threshold, rows)
    t_check, c_check = time.perf_counter() - t2, _cpu_seconds() - c2
    log(
        f"self-check ({self_check} rescan of the output): {check['rows_contaminated']} eval "
        f"rows still contaminated, {check['rows_asked_contaminated']} of the "
        f"{check['rows_asked']} it was asked to clean"
    )
    check_verdict(check)
    names = [f["name"] for f in files]
    report = report_rows(fingerprint, names, results, rows_of)
    inputs_final = (
        ev_info,
        *[
            InputFile("train", f["name"], r["sha256"], f["size"], t.format)
            for f, r, t in zip(files, results, train_in)
        ],
    )
    stamp = RunStamp("purify", settings, inputs_final, stamp.utc, {}, _runtime())
    stamp_d = {**stamp.to_dict(), "outputs": outputs(names, results)}
    summary = {
        **figures(
            job,
            config,
            counted,
            bp,
            results,
            report,
            check,
            self_check,
            sum(f["size"] for f in files),
        ),
        "seconds": {
            "scan": round(t_scan, 3),
            "write": round(t_write, 3),
            "self_check": round(t_check, 3),
        },
        # user + system, this process and its joined worker processes
        "cpu_seconds": {
            "scan": round(c_scan, 3),
            "write": round(c_write, 3),
            "self_check": round(c_check, 3),
        },
        "engine": {"engine": engine, "workers": workers, "filter": payload["filter"]},
        "out": out,
        "fingerprint": fingerprint,
    }
    _write_exports(out, report, summary, stamp_d)
    return PurifyResult(summary, report, stamp_d)


# -- layout -------------------------------------------------------------------------------------
def _out_path(out: str, name: str) -> str:
    rel = _rel(name)
    return out.rstrip("/") + "/" + rel if is_url(out) else os.path.join(out, *rel.split("/"))


def _check_layout(out: str, files: list[dict], train: list[str]) -> None:
    """Refuse an output that would overwrite an input, collide, or be read as input."""
    outs = [f["out"] for f in files]
    if len(set(outs)) < len(outs):
        raise bad_input(
            "two training files would be written to the same output path",
            expected="training files with distinct names",
        )
    if is_url(out):
        return
    real_out = os.path.realpath(out)
    for f in files:
        if (
            os.path.basename(f["out"]) in (REPORT, SUMMARY, STAMP)
            and os.path.dirname(os.path.realpath(f["out"])) == real_out
        ):
            own = os.path.basename(f["out"])
            raise bad_input(
                f"a training file is named like purify's own {own}",
                file=f["name"],
                expected="another output folder layout",
            )
        if not is_url(f["path"]) and os.path.realpath(f["path"]) == os.path.realpath(f["out"]):
            raise bad_input(
                "the output would overwrite the training file",
                file=f["name"],
                expected="--out a folder other than the training files'",
            )
    for arg in train:
        if not is_url(arg) and os.path.isdir(arg):
            d = os.path.realpath(arg)
            if real_out == d or real_out.startswith(d + os.sep):
                raise bad_input(
                    "the output folder is inside a training folder (a rerun would "
                    "read the purified files as training input)",
                    file=arg,
                    expected="--out outside the training folders",
                )


def _clear_exports(out: str) -> None:
    """Remove an earlier run's report, summary and stamp (so that a run that fails leaves
    none that looks complete) and temporary files a killed run left behind."""
    if is_url(out):
        from .corpus import _fsspec

        fs, base = _fsspec(out).core.url_to_fs(out)
        for name in (STAMP, REPORT, SUMMARY):
            if fs.exists(base.rstrip("/") + "/" + name):
                fs.rm(base.rstrip("/") + "/" + name)
        return
    for name in (STAMP, REPORT, SUMMARY):
        p = os.path.join(out, name)
        if os.path.exists(p):
            os.unlink(p)
    _remove_temporaries(out)


def _remove_temporaries(out: str) -> None:
    """Remove the partial copies (``.NAME.purify-tmp-*``) under a local ``out``: those of a
    killed run, or of workers this run stopped (terminated, they cannot remove their own)."""
    if is_url(out) or not os.path.isdir(out):
        return
    for root, _, names in os.walk(out):
        for nm in names:
            if nm.startswith(".") and ".purify-tmp-" in nm:
                try:
                    os.unlink(os.path.join(root, nm))
                except FileNotFoundError:
                    pass


# -- engines ------------------------------------------------------------------------------------
class _Engine:
    """Runs a list of tasks with a task function on the chosen engine."""

    def __init__(self, engine: str, workers: int, address: str | None):
        if engine not in ("local", "ray"):
            raise bad_input(f"unknown engine {engine!r}", expected="local or ray")
        self.engine, self.workers, self.address = engine, max(1, int(workers)), address

    def plan_workers(self) -> int:
        return self.workers if self.engine == "local" else max(self.workers, 2)

    def __call__(self, payload, tasks, fn, on_result, on_bytes) -> None:
        if self.engine == "ray":
            run_ray(payload, tasks, self.address, self.workers, on_result, on_bytes, fn=fn)
        else:
            run_local(payload, tasks, self.workers, on_result, on_bytes, fn=fn)


def _scan(run: _Engine, payload: dict, job: ContaminationJob, files: list[dict], log):
    """Pass 1: the contamination scan, merged into ``job``. Returns ``(hits, sha256,
    records)``: per file the records holding an eval n-gram ``[(record, [ids])]`` (numbers
    in the file), the sha256 of each file, and its records."""
    from .run_io import Progress

    tasks = plan_tasks(files, run.plan_workers())
    merger = Merger(job, tasks)
    parts: dict = {}
    split = sorted({t.file for t in tasks if not t.whole})
    hashes: dict[int, str] = {}
    stop = threading.Event()
    hasher = None
    if split:
        hasher = threading.Thread(
            target=lambda: hashes.update({i: hash_file(files[i]["path"], stop) for i in split}),
            daemon=True,
        )
        hasher.start()
    prog = Progress(sum(f["size"] for f in files), len(tasks), log, show_tasks=len(tasks) > 1)

    def on_result(res):
        parts[(res["file"], res["part"])] = (res["records"], res["partial"].pop("hits", []))
        merger.add(res)
        prog.task_done()

    try:
        run(payload, tasks, scan_task, on_result, prog.add)
        if hasher is not None:
            hasher.join()
    finally:
        stop.set()
        prog.close()
    if not merger.done():  # pragma: no cover - every engine returns every task or raises
        raise EvalsieveError("internal", "the scan ended with tasks missing")
    hits: dict[int, list] = {i: [] for i in range(len(files))}
    records = {i: 0 for i in range(len(files))}
    for f, p in sorted(parts):
        n_rec, h = parts[(f, p)]
        hits[f] += [(r + records[f], g) for r, g in h]
        records[f] += n_rec
    return hits, {**merger.sha256, **hashes}, records


def _state_path(out: str, k: int, name: str) -> str:
    import hashlib

    tag = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    return _out_join(out, STATE_DIR, f"{k}-{tag}.json")


def _out_join(out: str, *parts: str) -> str:
    return "/".join([out.rstrip("/"), *parts]) if is_url(out) else os.path.join(out, *parts)


def _read(path: str) -> bytes | None:
    from .corpus import open_binary

    try:
        with open_binary(path) as f:
            return f.read()
    except EvalsieveError:
        return None


def _sha256_of(path: str) -> str:
    try:
        return hash_file(path)
    except (EvalsieveError, OSError):
        return ""


def _write(
    run: _Engine, payload: dict, shards: list[ShardTask], settings: dict, out: str, log
) -> list[dict]:
    """Pass 2: every output file, skipping those a previous run completed with the same
    key. Returns the shard results in corpus order."""
    keys, results, todo = {}, {}, []
    for t in shards:
        same = {k: v for k, v in settings.items() if k != "self_check"}
        keys[t.file] = canonical_json(
            {
                "settings": same,
                "name": t.name,
                "size": t.size,
                "sha256": t.sha256,
                "targets": t.targets,
                "records": t.records,
            }
        )
        state = _read(_state_path(out, t.file, t.name))
        if state is not None:
            try:
                st = json.loads(state)
            except ValueError:
                st = {}
            if (
                st.get("key") == keys[t.file]
                and t.sha256
                and _sha256_of(t.out) == st["result"]["out_sha256"]
            ):
                results[t.file] = {**st["result"], "resumed": True}
                continue
        todo.append(t)
    if len(todo) < len(shards):
        log(
            f"purify: {len(shards) - len(todo)} of {len(shards)} output files complete "
            "from an earlier run (skipped)"
        )
    total = sum(t.size for t in todo)
    done = {"files": 0, "bytes": 0, "last": time.perf_counter()}

    def on_bytes(n):
        done["bytes"] += n

    def on_result(res):
        t = shards[res["file"]]
        st = AtomicOutput(_state_path(out, t.file, t.name))
        st.write(
            json.dumps({"key": keys[t.file], "result": res}, ensure_ascii=False).encode("utf-8")
        )
        st.commit()
        results[t.file] = res
        done["files"] += 1
        now = time.perf_counter()
        if now - done["last"] >= 10 or done["files"] == len(todo) or len(todo) <= 20:
            done["last"] = now
            log(
                f"purify: {done['files']} of {len(todo)} files written, "
                f"{min(done['bytes'], total) / 1e6:.1f} of {total / 1e6:.1f} MB read "
                f"({t.name}: {res['cut']} cut, {res['dropped']} dropped)"
            )

    if todo:
        try:  # largest first: a pool ends on small files
            run(payload, sorted(todo, key=lambda t: -t.size), purify_shard, on_result, on_bytes)
        except BaseException:  # noqa: B902 - the engine stopped its workers: their partial copies go
            _remove_temporaries(out)
            raise
    return [results[t.file] for t in shards]


# -- the self-check -----------------------------------------------------------------------------
def _rescan_full(run: _Engine, payload: dict, files: list[dict]) -> list[int]:
    """Per n-gram id, the output's records holding it: every output file through the
    contamination scan's tasks, merged."""
    from .corpus import FileSource

    index = payload["index"]
    scan = TrainingScan(index)
    outs = []
    for f in files:
        if f["fmt"] == "parquet" and is_url(f["out"]):  # (the scan tasks read local Parquet)
            _scan_parquet_url(scan, f)
            continue
        gz = FileSource(f["out"]).gzip if f["fmt"] != "parquet" else False
        outs.append({**f, "path": f["out"], "gzip": gz, "size": size_of(f["out"])})
    tasks = plan_tasks(outs, run.plan_workers())
    run(
        payload,
        tasks,
        scan_task,
        lambda res: scan.merge(res["partial"], res["file"]),
        lambda n: None,
    )
    return scan.counts


def _scan_parquet_url(scan: TrainingScan, f: dict) -> None:
    """A purified Parquet file at an fsspec URL through the n-gram rung, row group by row
    group (what :func:`corpus.scan_task` does for a local one)."""
    from .corpus import _fsspec
    from .fields import FieldExtractor
    from .parquet_io import _pa, plain

    _, pq = _pa(f["name"])
    seg = FieldExtractor("parquet", list(f["fields"]), f["name"]).segments
    with _fsspec(f["out"]).open(f["out"], "rb") as fh:
        pf = pq.ParquetFile(fh)
        cols = [
            c
            for c in dict.fromkeys(p.split(".")[0].split("[")[0] for p in f["fields"])
            if c in pf.schema_arrow.names
        ]
        n = 0
        for batch in pf.iter_batches(columns=cols):
            rows = batch.to_pylist()
            scan.scan(
                [(n + i + 1, seg({k: plain(v) for k, v in r.items()})) for i, r in enumerate(rows)]
            )
            n += len(rows)


# -- exports ------------------------------------------------------------------------------------
def _write_exports(out: str, report: list[dict], summary: dict, stamp: dict) -> None:
    """The report, the summary, then the stamp (last: its presence marks a complete run);
    each under a temporary name, then renamed."""
    for name, text in export_texts(report, summary, stamp):
        w = AtomicOutput(_out_join(out, name))
        w.write(text.encode("utf-8"))
        w.commit()
