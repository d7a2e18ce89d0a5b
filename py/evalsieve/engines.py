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

Ray (``pip install 'evalsieve[ray]'``) is :mod:`evalsieve.ray_engine`; it runs the same
:func:`_run_task` in its tasks.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time

from .corpus import Task, open_binary, scan_task
from .errors import EvalsieveError, from_dict

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
            if r.get("skipped"):  # --skip-bad-lines
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
    buf = bytearray(4 << 20)  # one buffer, reused; few reads, so few waits for the GIL
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
#: Seconds between two calls of a run's ``check`` while its workers compute.
CHECK_S = 0.25


def run_local(
    payload: dict, tasks: list[Task], workers: int, on_result, on_bytes, fn=None, check=None
) -> None:
    """Run the tasks here (workers = 1) or in ``workers`` forked processes (they inherit
    ``payload``; nothing of it is pickled), each taking the next task of ``tasks`` (largest
    first) when it is free.

    A worker that dies (the out-of-memory killer's SIGKILL, a crash) stops the run within
    a moment, naming its task: the driver watches every worker's process, not only its
    answers (``multiprocessing.Pool`` would replace the worker and wait for its task
    forever).

    Args:
        fn: the task function, ``fn(payload, task, progress=None) -> result dict`` with
            ``bytes`` (default :func:`corpus.scan_task`; purify passes its shard writer).
        on_result: called with each task's result, in the driver, as tasks finish.
        on_bytes: called with bytes read (per block with one worker, per task otherwise).
        check: called with no argument every :data:`CHECK_S` seconds while workers compute
            (and before each task here, with one worker); what it raises stops the run (the
            API's cancel event, for tasks that report no bytes as they go).
    Raises:
        EvalsieveError: the first task error; ``environment`` when a worker died (the other
            workers are stopped; nothing is merged after).
        KeyboardInterrupt: Ctrl-C (the workers are terminated).
    """
    fn = fn or scan_task
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            if check is not None:
                check()
            on_result(fn(payload, t, on_bytes))
        return
    import multiprocessing as mp

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    pool = _Workers(ctx, payload, fn)
    ok = False
    try:
        pool.start(min(workers, len(tasks)))
        pool.run(tasks, on_result, on_bytes, check)
        ok = True
    finally:
        pool.stop(ok)


class _Workers:
    """Worker processes of :func:`run_local`, each with a pipe of its own: the driver sends
    a task, the worker answers with its result (or its error as a dict); ``None`` tells it
    to exit. The driver waits on the pipes and on the processes' sentinels together, so a
    worker's death is seen at once."""

    def __init__(self, ctx, payload: dict, fn=scan_task):
        self.ctx, self.payload, self.fn = ctx, payload, fn
        self.procs: list = []
        self.conns: list = []
        self.told: set[int] = set()  # workers told to exit

    def start(self, n: int) -> None:
        """Start ``n`` workers. A Ctrl-C meanwhile is held back until they all exist, then
        raised (the caller's ``stop`` then terminates them): a Python signal handler runs in
        the main thread, whichever thread got the signal, and only the main thread may set
        one."""
        interrupted: list[int] = []
        hold = threading.current_thread() is threading.main_thread()
        previous = (
            signal.signal(signal.SIGINT, lambda s, f: interrupted.append(s)) if hold else None
        )
        try:
            for _ in range(n):
                mine, theirs = self.ctx.Pipe()
                # a forked worker inherits the driver's ends of its own pipe and of every
                # earlier worker's: it closes them, so that a driver that is gone is EOF
                drivers = [*self.conns, mine]
                p = self.ctx.Process(
                    target=_worker_loop,
                    args=(theirs, self.payload, self.fn, os.getpid(), drivers),
                    daemon=True,
                )
                p.start()
                theirs.close()  # the worker's end lives in the worker only: EOF if it dies
                self.procs.append(p)
                self.conns.append(mine)
        finally:
            if hold:
                signal.signal(signal.SIGINT, previous)
        if interrupted:
            raise KeyboardInterrupt

    #: Tasks each worker holds (the one it runs and the next, waiting in its pipe): a worker
    #: that ends a task starts the next at once, without waiting for the driver's turn.
    AHEAD = 2

    def run(self, tasks: list[Task], on_result, on_bytes, check=None) -> None:
        """Hand out ``tasks`` in order (largest first) to the workers, each holding at most
        ``AHEAD``, the next to whichever answers, until every result is in; ``check`` as
        :func:`run_local`'s."""
        from multiprocessing.connection import wait

        todo = iter(tasks)
        busy: dict[int, list[Task]] = {i: [] for i in range(len(self.procs))}
        for _ in range(self.AHEAD):
            for i in busy:
                self._give(i, next(todo, None), busy)
        while any(busy.values()):
            live = [i for i, held in busy.items() if held]
            ready = set(
                wait(
                    [self.conns[i] for i in live] + [self.procs[i].sentinel for i in live],
                    None if check is None else CHECK_S,
                )
            )
            if check is not None:
                check()
            for i in live:
                conn = self.conns[i]
                if conn not in ready and self.procs[i].sentinel not in ready:
                    continue
                try:  # a result first, even from a worker that has exited since
                    res = conn.recv() if conn.poll() else None
                except (EOFError, OSError):
                    res = None
                if res is None:
                    raise self._died(i, busy[i][0])
                busy[i].pop(0)
                if "error" in res:
                    raise _error_from(res["error"])
                self._give(i, next(todo, None), busy)  # before the merge: no idle worker
                on_bytes(res["bytes"])
                on_result(res)

    def _give(self, i: int, task: Task | None, busy: dict) -> None:
        """Send worker ``i`` a task, or (``None``) tell it to exit after those it holds."""
        if task is None:
            if i in self.told:
                return
            self.told.add(i)
        try:
            self.conns[i].send(task)
        except OSError:
            if task is not None or busy[i]:
                raise self._died(i, (busy[i] or [task])[0]) from None
            return  # it was to exit anyway
        if task is not None:
            busy[i].append(task)

    def _died(self, i: int, task: Task) -> EvalsieveError:
        p = self.procs[i]
        p.join(timeout=2)
        code = p.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "an unknown signal"
            how = f"was killed by signal {-code} ({name}"
            how += ", which the out-of-memory killer sends)" if -code == signal.SIGKILL else ")"
        else:
            how = f"exited with status {code}"
        part = (  # a purify shard (purify_shards.ShardTask) is a whole file
            "the whole file"
            if getattr(task, "whole", True)
            else f"bytes {task.start} to {task.start + task.nbytes} of it"
        )
        n = len(self.procs)
        name, verb = pass_name(self.fn)
        return EvalsieveError(
            "environment",
            f"worker process {p.pid} of {name} {how} while it {verb} {part}; the run "
            "stopped and wrote no export",
            file=task.name,
            expected=f"memory for every worker: run again with fewer --workers (this run "
            f"had {n}), or with more free memory",
        )

    def stop(self, ok: bool) -> None:
        """End every worker: after a run that finished they are exiting (told so) and are
        waited for; otherwise they are terminated (SIGTERM, then SIGKILL)."""
        for c in self.conns:
            c.close()
        for p in self.procs:
            if not ok and p.exitcode is None:
                p.terminate()
        for p in self.procs:
            p.join(timeout=10 if ok else 2)
            if p.exitcode is None:
                p.kill()
                p.join()


def _worker_loop(conn, payload: dict, fn=scan_task, parent=None, drivers=()) -> None:
    """A worker of :class:`_Workers`: runs the tasks that arrive on ``conn`` until ``None``
    or EOF. ``parent``: the driver's pid (the worker exits when it is gone, even inside a
    task: a driver killed with SIGKILL runs no cleanup); ``drivers``: the driver's pipe ends
    this fork inherited, closed here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler: the driver ends us
    for c in drivers:
        c.close()
    if parent is not None:
        threading.Thread(target=exit_when_orphaned, args=(parent,), daemon=True).start()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the driver is gone
        if task is None:
            return
        conn.send(_run_task(payload, task, fn=fn))


def pass_name(fn) -> tuple[str, str]:
    """What a task function's tasks are, for messages: ``(name, verb)`` from its
    ``pass_name`` and ``pass_verb`` attributes (set beside the function), else
    :func:`corpus.scan_task`'s ("the training pass", "scanned")."""
    return getattr(fn, "pass_name", "the training pass"), getattr(fn, "pass_verb", "scanned")


#: How often (seconds) a worker looks whether its driver is still there.
ORPHAN_POLL_S = 0.5


def exit_when_orphaned(parent: int) -> None:
    """End this process (status 3) once ``parent`` is no longer its parent: the driver was
    killed (SIGKILL, or SIGTERM with no handler) and cannot stop its workers or collect
    them. Runs in a daemon thread of a worker; ``os._exit``, since the main thread may be
    inside a task (or Ray's retries) for minutes."""
    while True:
        time.sleep(ORPHAN_POLL_S)
        if os.getppid() != parent:
            os._exit(3)


def _run_task(payload: dict, task: Task, retried: tuple = (), fn=scan_task) -> dict:
    """One task in a worker (a process of :func:`run_local` or a Ray task): its result, or
    its error as a plain dict (what crosses the process boundary). Exceptions of the types
    in ``retried`` are raised (Ray retries them). ``fn``: the task function (default
    :func:`corpus.scan_task`; purify passes its shard writer)."""
    try:
        return fn(payload, task)
    except EvalsieveError as e:
        return {"error": e.to_dict()}
    except retried:
        raise
    except OSError as e:
        return {
            "error": EvalsieveError(
                "environment",
                f"an I/O error in a worker ({e.strerror or e})",
                file=task.name,
                expected="a readable file",
            ).to_dict()
        }
    except MemoryError:
        return {
            "error": EvalsieveError(
                "environment",
                "a worker ran out of memory",
                file=task.name,
                expected="fewer --workers, or more free memory",
            ).to_dict()
        }
    except Exception as e:  # a bug: named, with where it happened
        import traceback

        where = traceback.extract_tb(e.__traceback__)[-1]
        return {
            "error": EvalsieveError(
                "internal",
                f"{type(e).__name__} in a worker: {e}",
                file=task.name,
                detail=f"{os.path.basename(where.filename)}:{where.lineno}",
            ).to_dict()
        }


def _error_from(d: dict) -> EvalsieveError:
    return from_dict(d)
