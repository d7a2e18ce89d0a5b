"""Where the training pass's tasks run: this process, a process pool, or a Ray cluster.

CLI side only. Every engine runs :func:`corpus.scan_task` over the same tasks and hands each
result to one merge (:meth:`ContaminationJob.merge_partial`), so the exports do not depend
on the engine, the number of workers or the order in which tasks finish:

* per eval n-gram, the counts of distinct training records add up (a record is inside
  exactly one task);
* per eval n-gram, the first (file, record) is the least over the tasks, a task's record
  numbers being shifted by the records of the earlier ranges of its file (known once those
  ranges are done: the merge of a range waits for its predecessors' counts, see
  :class:`Merger`).

Ray (``pip install 'evalsieve[ray]'``): the eval index and filters go into the object store
once (``ray.put``); one task per file or byte range; tasks are pure functions of their
inputs, so Ray's retries (worker lost, or :class:`corpus.TaskFault`) are safe.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading

from .corpus import Task, TaskFault, open_binary, scan_task
from .errors import EvalsieveError

ENGINES = ("local", "ray")


class Merger:
    """Merges task results into a job, exactly, in whatever order they arrive.

    A byte range's record numbers start at 1; its offset is the records of the earlier
    ranges of the same file. Results wait until their offset is known (in practice: until
    the earlier ranges are done), then merge.
    """

    def __init__(self, job, tasks: list[Task]):
        self.job = job
        self.parts: dict[int, int] = {}
        self.names = {t.file: t.name for t in tasks}
        for t in tasks:
            self.parts[t.file] = max(self.parts.get(t.file, 0), t.part + 1)
        self.waiting: dict[tuple[int, int], dict] = {}
        self.next_part: dict[int, int] = {f: 0 for f in self.parts}
        self.offset: dict[int, int] = {f: 0 for f in self.parts}
        self.sha256: dict[int, str] = {}
        self.candidates = 0
        self.filtered = True

    def add(self, res: dict) -> None:
        """Take one :func:`scan_task` result."""
        f = res["file"]
        self.waiting[(f, res["part"])] = res
        while (f, self.next_part[f]) in self.waiting:
            r = self.waiting.pop((f, self.next_part[f]))
            self.job.merge_partial(r["partial"], f, self.offset[f], r["chars"])
            self.offset[f] += r["records"]
            if r.get("skipped"):   # --skip-bad-lines
                self.job.add_skipped(f, self.names[f], r["skipped"])
            self.next_part[f] += 1
            if r["sha256"]:
                self.sha256[f] = r["sha256"]
            if r["candidates"] is None:
                self.filtered = False
            else:
                self.candidates += r["candidates"]

    def done(self) -> bool:
        """True when every task has merged."""
        return not self.waiting and all(self.next_part[f] == n for f, n in self.parts.items())


def hash_file(path: str, stop: threading.Event | None = None) -> str:
    """sha256 of a whole file, streamed in 4 MB reads (for files the tasks read in ranges);
    "" when ``stop`` is set first."""
    h = hashlib.sha256()
    buf = bytearray(4 << 20)   # one buffer, reused; few reads, so few waits for the GIL
    view = memoryview(buf)
    with open_binary(path) as f:
        while True:
            if stop is not None and stop.is_set():
                return ""
            n = f.readinto(buf)
            if not n:
                break
            h.update(view[:n])
    return h.hexdigest()


# -- engines -------------------------------------------------------------------------------------
def run_local(payload: dict, tasks: list[Task], workers: int, on_result, on_bytes,
              fn=None) -> None:
    """Run the tasks here (workers = 1) or in a pool of ``workers`` forked processes (they
    inherit ``payload``; nothing of it is pickled), each taking the next task of ``tasks``
    when it is free.

    Args:
        fn: the task function, ``fn(payload, task, progress=None) -> result dict`` with
            ``bytes`` (default :func:`corpus.scan_task`; purify passes its shard writer).
        on_result: called with each task's result, in the driver, as tasks finish.
        on_bytes: called with bytes read (per block with one worker, per task otherwise).
    Raises:
        EvalsieveError: the first task error (the pool is stopped; nothing is merged after).
        KeyboardInterrupt: Ctrl-C (the pool is terminated).
    """
    fn = fn or scan_task
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            on_result(fn(payload, t, on_bytes))
        return
    import multiprocessing as mp
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    # A Ctrl-C while the pool starts its processes would leave a pool that nothing
    # terminates: it is noted meanwhile and raised inside the try below, which terminates
    # it. (A Python signal handler runs in the main thread, whichever thread got the signal;
    # only the main thread may set one.)
    interrupted: list[int] = []
    hold = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda s, f: interrupted.append(s)) if hold else None
    try:
        pool = ctx.Pool(min(workers, len(tasks)), initializer=_init_worker,
                        initargs=(payload, fn))
    finally:
        if hold:
            signal.signal(signal.SIGINT, previous)
    ok = False
    try:
        if interrupted:
            raise KeyboardInterrupt
        # one task at a time, in the planned order (largest first): the workers end together
        for res in pool.imap_unordered(_run_in_worker, tasks, chunksize=1):
            if "error" in res:
                raise _error_from(res["error"])
            on_bytes(res["bytes"])
            on_result(res)
        ok = True
    finally:
        if ok:
            pool.close()
        else:
            pool.terminate()
        pool.join()


_PAYLOAD: dict | None = None
_FN = scan_task


def _init_worker(payload: dict, fn=scan_task) -> None:
    global _PAYLOAD, _FN
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the driver handles Ctrl-C
    _PAYLOAD, _FN = payload, fn


def _run_in_worker(task: Task) -> dict:
    try:
        return _FN(_PAYLOAD, task)
    except EvalsieveError as e:
        return {"error": e.to_dict()}


def _error_from(d: dict) -> EvalsieveError:
    return EvalsieveError(d["code"], d["message"], file=d["file"], line=d["line"],
                          expected=d["expected"], detail=d["detail"])


def run_ray(payload: dict, tasks: list[Task], address: str | None, cpus: int | None,
            on_result, on_bytes, max_retries: int = 3, fn=None) -> None:
    """Run the tasks as Ray tasks.

    Args:
        fn: the task function (default :func:`corpus.scan_task`), as for :func:`run_local`.
        address: ``ray.init`` address (``"auto"``, ``"ray://host:10001"``...), or None to
            start a local Ray with ``cpus`` CPUs.
        max_retries: retries of a task whose worker died or that raised
            :class:`corpus.TaskFault` or OSError (tasks are idempotent).
    Raises:
        EvalsieveError: ray missing, or the first task error (other tasks are cancelled).
    """
    try:
        import ray
    except ImportError:
        raise EvalsieveError("bad_input", "--engine ray needs Ray",
                             expected="pip install 'evalsieve[ray]'")
    started = False
    if not ray.is_initialized():
        kw = {"address": address} if address else {"num_cpus": cpus}
        ray.init(**kw, include_dashboard=False, log_to_driver=False,
                 runtime_env=_runtime_env())
        started = True
    try:
        ref = ray.put(payload)
        remote = ray.remote(_ray_task).options(max_retries=max_retries,
                                              retry_exceptions=[TaskFault, OSError])
        pending = {remote.remote(ref, t, fn or scan_task): t for t in tasks}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for obj in done:
                    pending.pop(obj)
                    res = ray.get(obj)
                    if "error" in res:
                        raise _error_from(res["error"])
                    on_bytes(res["bytes"])
                    on_result(res)
        finally:
            for obj in pending:
                ray.cancel(obj, force=True)
    finally:
        if started:
            ray.shutdown()


def _ray_task(payload: dict, task: Task, fn=scan_task) -> dict:
    try:
        return fn(payload, task)
    except EvalsieveError as e:
        return {"error": e.to_dict()}


def _runtime_env() -> dict:
    """Workers of a local Ray import evalsieve from the same place as the driver."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH", "")
    env = {"PYTHONPATH": here + (os.pathsep + path if path else "")}
    if os.environ.get("EVALSIEVE_FAIL_ONCE"):
        env["EVALSIEVE_FAIL_ONCE"] = os.environ["EVALSIEVE_FAIL_ONCE"]
    return {"env_vars": env}
