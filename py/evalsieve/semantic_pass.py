"""The semantic rung's scan of the training files in the CLI (:func:`semantic_pass`): its
second read of the corpus, after the n-gram pass, every record through
:meth:`semantic.SemanticScan.scan`.

CLI side only (threads; the page feeds the scan from its own reader). With the kernel, a
reader thread reads, parses, batches and splits the next block's records into words (in a
kernel instance of its own: :class:`semantic_kernel.WordSplitter`) while this thread's
kernel instance looks the words up and scans the windows of the block before; both leave
the GIL in the kernel's calls. The results are those of the unthreaded scan
(``tests/py/test_semantic_kernel_hostile.py``).
"""

from __future__ import annotations

import codecs
import gc
import pickle
import sys
import threading
from contextlib import contextmanager

from .corpus import Task, _lines_before, _raw_blocks, is_url, line_cuts
from .decoding import SKIPPING
from .errors import EvalsieveError, bad_input
from .fields import FieldExtractor
from .readahead import read_ahead
from .records import RecordReader
from .run_io import open_input
from .semantic_kernel import WordSplitter
from .semantic_shards import merge_shard, shard_state

#: The GIL's switch interval during the threaded scan, in seconds (Python's default: 0.005).
#: The scan's thread takes the GIL back after every kernel call; while the reader thread
#: parses it waits for the interval's end each time, ~8% of the pass at the default.
SWITCH_INTERVAL = 0.001


_SETTINGS = {"passes": 0}  # passes running in this process; the settings before the first
_SETTINGS_LOCK = threading.Lock()


@contextmanager
def _threads_that_hand_over():
    """The pass's process settings, restored after it: the GIL handed over sooner
    (:data:`SWITCH_INTERVAL`), and the cycle collector paused (the pass makes millions of
    short-lived containers, a record's dict, list and tuple, and no cycle: the collector's
    passes over them cost ~8% of it). Passes on several threads at once (library calls)
    share them: the first sets them, the last restores what was there before the first."""
    with _SETTINGS_LOCK:
        if not _SETTINGS["passes"]:
            _SETTINGS.update(interval=sys.getswitchinterval(), collecting=gc.isenabled())
            sys.setswitchinterval(min(_SETTINGS["interval"], SWITCH_INTERVAL))
            gc.disable()
        _SETTINGS["passes"] += 1
    try:
        yield
    finally:
        with _SETTINGS_LOCK:
            _SETTINGS["passes"] -= 1
            if not _SETTINGS["passes"]:
                sys.setswitchinterval(_SETTINGS["interval"])
                if _SETTINGS["collecting"]:
                    gc.enable()


def semantic_pass(
    job,
    files: list[dict],
    log,
    kernel: bool = True,
    clock=None,
    workers: int = 1,
    run=None,
    check=None,
) -> None:
    """The semantic rung's scan of every training record (no candidate filter can serve it),
    after the n-gram pass; records count from 1 in each file. With ``kernel`` its window
    scan runs in the compiled kernel when it can (:meth:`SemanticScan.use_kernel`; the log
    says where it runs); the results are the same.

    Args:
        files: per training file ``{path, name, fmt, fields, gzip, size}``, in corpus order.
        clock: a callable giving seconds: the scan's own time (``scan_seconds``) is kept
            with it, for the benchmarks.
        workers, run: with ``run(payload, tasks, fn, on_result)``, which runs tasks with
            task function ``fn`` (``engines.run_local`` with ``--workers``, or
            ``ray_engine.run_ray``), a corpus of more than 2 x :data:`SHARD_MIN_BYTES` is
            cut into shards of about corpus / ``workers`` bytes (:func:`shard_tasks`), each
            scanned on its own (:func:`semantic_task`) and merged here, in corpus order,
            into the job's scan (:func:`semantic_shards.merge_shard`: the same result).
        check: called with no argument before each block of records (one process) or as
            each shard's result arrives (the CLI's ``run`` calls it while the shards run
            too: ``engines.run_local``'s ``check``); what it raises stops the pass (the
            API's cancel event: :func:`progress.check_cancel`).
    Raises:
        EvalsieveError(bad_input): as the readers; whatever ``check`` raises.
    """
    sem = job.semantic
    sem.clock = clock
    why = sem.use_kernel() if kernel else "--filter off or numpy: pure Python"
    log(
        f"semantic: reading {len(files)} training file(s) once more for the windows; the "
        + (
            "window scan runs in the kernel"
            if why is None
            else f"window scan runs in Python ({why})"
        )
    )
    skip = job.config.skip_bad_lines
    tasks = shard_tasks(files, workers) if run is not None else []
    check = check or (lambda: None)
    if len(tasks) > 1:
        _sharded(job, tasks, run, why is None, log, check)
    else:
        sources = [
            (k, f["path"], f["name"], f["fmt"], f["fields"], None) for k, f in enumerate(files)
        ]
        _scan(sem, sources, why is None, skip, check=check)
    if sem.kernel_note:
        log(f"semantic: {sem.kernel_note}")


def _scan(sem, sources: list, kernel: bool, skip: bool, count=None, check=None) -> None:
    """Every record of ``sources`` (``(file index, path, name, format, fields, task or
    None)``, in order) through ``sem.scan``. With the kernel, a reader thread reads, parses,
    batches and splits the next block's records (in a kernel instance of its own) while the
    kernel scans the block before (its calls leave the GIL); in Python a thread would only
    contend for it. ``count``: as :func:`_records` (one source); ``check``: as
    :func:`semantic_pass`."""

    def items(note=None):
        split = WordSplitter() if kernel else None
        for k, path, name, fmt, fields, task in sources:
            yield ("file", k, name)
            for recs in _records(path, name, fmt, fields, skip, task, count):
                yield ("records", recs, sem.batches(recs, split))

    with _threads_that_hand_over():
        for item in read_ahead(items, None) if kernel else items():
            if check is not None:
                check()
            if item[0] == "file":
                sem.set_file(item[1], item[2])
            else:
                sem.scan(item[1], item[2])


#: The least bytes a shard of the sharded scan holds (each shard pays for a kernel instance
#: and for learning the words it meets: about what scanning 10 MB costs). A corpus of at
#: most twice this is scanned in one process.
SHARD_MIN_BYTES = 32 << 20


def shard_tasks(files: list[dict], workers: int) -> list[list]:
    """The sharded scan's shards, in corpus order: each a list of ``corpus.Task`` read one
    after another, about ``max(SHARD_MIN_BYTES, corpus bytes / workers)`` bytes. A local,
    uncompressed JSONL or text file of more than that is cut at line ends into ranges of at
    least it, each a shard; other files are whole, a big one a shard alone, consecutive small
    ones packed into one. Empty (one process) for one worker or a corpus of at most
    2 x SHARD_MIN_BYTES."""
    total = sum(f["size"] for f in files)
    if workers < 2 or total <= 2 * SHARD_MIN_BYTES:
        return []
    target = max(SHARD_MIN_BYTES, total // workers)
    shards: list[list] = []
    group: list = []
    group_bytes = 0
    for i, f in enumerate(files):
        splittable = not f["gzip"] and f["fmt"] in ("jsonl", "text") and not is_url(f["path"])
        fields = tuple(f["fields"])
        if splittable and f["size"] > target:
            if group:
                shards.append(group)
                group, group_bytes = [], 0
            n = f["size"] // target
            cuts = line_cuts(f["path"], f["size"], [f["size"] * j // n for j in range(1, n)])
            for k in range(len(cuts) - 1):
                end = cuts[k + 1] if k + 2 < len(cuts) else -1
                args = (f["path"], f["name"], f["fmt"], fields, cuts[k], end, False, f["size"])
                shards.append([Task(i, k, *args)])
            continue
        task = Task(i, 0, f["path"], f["name"], f["fmt"], fields, 0, -1, f["gzip"], f["size"])
        if f["size"] >= target:  # a big file read whole (gzip, CSV, Parquet): a shard alone
            if group:
                shards.append(group)
                group, group_bytes = [], 0
            shards.append([task])
            continue
        group.append(task)
        group_bytes += f["size"]
        if group_bytes >= target:
            shards.append(group)
            group, group_bytes = [], 0
    if group:
        shards.append(group)
    return shards


def _records(path: str, name: str, fmt: str, fields, skip: bool, task=None, count=None):
    """Lists of ``(record number, field values)``, in order: of the file, or of ``task``'s
    byte range (numbers from 1 at its start); at the end ``count[0]`` is how many records
    were read (a skipped record, ``skip``, keeps its number: the n-gram pass lists it)."""
    seg = FieldExtractor(fmt, list(fields), name).segments
    if fmt == "parquet":
        src = open_input(path, name)
        n = 0
        for values in src.values(src.columns_for(list(fields))):
            yield [(n + i + 1, seg(v)) for i, v in enumerate(values)]
            n += len(values)
        if count is not None:
            count[0] = n
        return
    # the reader takes a file's byte-order mark off (one: a second is the first line's, as
    # the n-gram pass reads it); a range that starts mid-file has none
    mid_file = task is not None and task.start > 0
    reader = RecordReader(fmt, name, skip, at_start=not mid_file)
    if task is None or task.whole:
        texts = open_input(path, name).chunks(skip_bad=skip, keep_bom=True)
    else:
        texts = _range_texts(task, skip)
    for text in texts:
        yield [(r.index, seg(r.value)) for r in reader.feed(text)]
    yield [(r.index, seg(r.value)) for r in reader.finish()]
    if count is not None:
        count[0] = reader.records_read


def _range_texts(task, skip: bool):
    """The decoded text of a task's byte range (a JSONL or text file read in ranges: never
    gzip, which is read whole)."""
    dec = codecs.getincrementaldecoder("utf-8")(SKIPPING if skip else "strict")
    at, lines = task.start, 0  # the block's first byte in the file; line ends before it
    for data in _raw_blocks(task, None, None):
        try:
            yield dec.decode(data)
        except UnicodeDecodeError as e:  # lines count from the range (semantic_task adds)
            raise bad_input(
                f"invalid UTF-8 at byte {at + e.start}",
                file=task.name,
                line=lines + data.count(b"\n", 0, max(0, e.start)) + 1,
                expected="UTF-8 text (the file changed since the n-gram pass read it?)",
            ) from e
        at += len(data)
        lines += data.count(b"\n")
    yield dec.decode(b"", final=True)


def semantic_task(payload: dict, task, progress=None) -> dict:
    """One shard of the rung's scan (a task function of ``engines.run_local`` and
    ``ray_engine.run_ray``): the job's scan, unpickled fresh, reads the task's records.

    Args:
        payload: ``{"semantic": the pickled SemanticScan before any scan, "kernel": bool,
            "skip_bad": bool, "shards": {(file, part) of a shard's first task: its tasks}}``
            (a task not named there is a shard alone).
    Returns:
        ``{file, part, records, bytes, shard}``: the shard is
        :func:`semantic_shards.shard_state`; records, those of the shard's file (0 for a
        shard of several whole files: no later shard continues them).
    Raises:
        EvalsieveError(bad_input): as the readers (lines counted from the file's start).
    """
    scan = pickle.loads(payload["semantic"])
    kernel = payload["kernel"] and scan.use_kernel() is None
    group = payload["shards"].get((task.file, task.part), [task])
    n = [0]
    try:
        sources = [(t.file, t.path, t.name, t.fmt, t.fields, t) for t in group]
        _scan(scan, sources, kernel, payload["skip_bad"], n)
    except EvalsieveError as e:
        if e.line is not None and task.start:
            e.line += _lines_before(task)
        raise
    nbytes = sum(t.nbytes for t in group)
    if len(group) > 1:
        n[0] = 0
    if progress:
        progress(nbytes)
    out = {"file": task.file, "part": task.part, "bytes": nbytes}
    return {**out, "records": n[0], "shard": shard_state(scan)}


semantic_task.pass_name = "the semantic rung's pass"  # in a killed worker's message


def _sharded(job, tasks: list, run, kernel: bool, log, check) -> None:
    """The pass as tasks (``tasks``: :func:`shard_tasks`), their shards merged in corpus
    order as they come (a shard waits for the ones before it: the merged state stays one
    scan's, bounded by the heaps)."""
    sem = job.semantic
    sem._kernel = None  # use_kernel() said whether the tasks' kernels can scan; they do
    sem.clock = None
    firsts = [group[0] for group in tasks]
    payload = {
        "semantic": pickle.dumps(sem),
        "kernel": kernel,
        "skip_bad": job.config.skip_bad_lines,
        "shards": {(g[0].file, g[0].part): g for g in tasks if len(g) > 1},
    }
    waiting: dict[tuple[int, int], dict] = {}
    order = [(t.file, t.part) for t in firsts]
    offsets: dict[int, int] = {}

    def on_result(res: dict) -> None:
        check()
        waiting[(res["file"], res["part"])] = res
        while order and order[0] in waiting:
            r = waiting.pop(order.pop(0))
            merge_shard(sem, r["shard"], offsets.get(r["file"], 0))
            offsets[r["file"]] = offsets.get(r["file"], 0) + r["records"]

    size = {(g[0].file, g[0].part): sum(t.nbytes for t in g) for g in tasks}
    run(payload, sorted(firsts, key=lambda t: -size[(t.file, t.part)]), semantic_task, on_result)
    if order or waiting:  # pragma: no cover - every engine returns every task or raises
        raise EvalsieveError("internal", "the semantic pass ended with tasks missing")
    log(f"semantic: {len(tasks)} shards of the corpus scanned on their own, merged")
