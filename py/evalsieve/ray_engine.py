"""The training pass on a Ray cluster (``--engine ray``; ``pip install 'evalsieve[ray]'``).

CLI side only. The eval index and filters go into the object store once (``ray.put``), and
each worker process fetches them once (:func:`_ray_task`); one
task per file or byte range (:func:`engines._run_task`, the local workers' function); tasks
are pure functions of their inputs, so Ray's retries (a worker lost, or
:class:`corpus.TaskFault`) give the same result.

Faults (docs/CLI.md, "Faults"):

* Ray prints its notes on stdout (a worker's death: "(raylet) A worker died..."); they go to
  stderr, so that stdout holds only the CLI's summary (``--json``: one JSON document).
* When Ray loses the node the driver runs on, its own C++ code ends the process (status 1,
  no Python exception). So the CLI runs the Ray driver in a forked child process that
  streams the tasks' results back over a pipe: the CLI sees the child end, and stops with
  one ``evalsieve: error:`` line and status 3. A Ray error the driver does see (a task that
  failed on every retry, the local raylet gone, a cluster it cannot reach) is the same.
* A Ray already started in this process (a library caller's ``ray.init``) is used in place.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from .corpus import Task, TaskFault, scan_task
from .engines import CHECK_S, _run_task, exit_when_orphaned
from .errors import EvalsieveError, environment, from_dict

_CLUSTER = (
    "a working Ray cluster (ray status shows its nodes), or --engine local "
    "(processes on this machine)"
)
#: Seconds the Ray driver may take to start or join Ray (ray.init) before the run stops: Ray
#: itself retries an address where no cluster answers for minutes on end.
CONNECT_S = 180


def run_ray(
    payload: dict,
    tasks: list[Task],
    address: str | None,
    cpus: int | None,
    on_result,
    on_bytes,
    max_retries: int = 3,
    fn=None,
    check=None,
) -> None:
    """Run the tasks as Ray tasks.

    Args:
        fn: the task function (default :func:`corpus.scan_task`), as for
            :func:`engines.run_local`.
        address: ``ray.init`` address (``"auto"``, ``"ray://host:10001"``...), or None to
            start a local Ray with ``cpus`` CPUs.
        on_result: called with each task's result, in this process, as tasks finish.
        on_bytes: called with the bytes each task read.
        max_retries: retries of a task whose worker died or that raised
            :class:`corpus.TaskFault` or OSError (tasks are idempotent).
        check: as :func:`engines.run_local`'s (called here, in the CLI's process).
    Raises:
        EvalsieveError: ``environment`` when Ray is missing; the first task error (other tasks
            are cancelled); ``environment`` when Ray fails (the cluster cannot be reached,
            a task failed on every retry, the driver's node was lost).
        KeyboardInterrupt: Ctrl-C (the Ray driver is stopped).
    """
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise environment(
            "--engine ray needs Ray, which is not installed",
            expected="pip install 'evalsieve[ray]'",
        )
    ray = sys.modules.get("ray")
    import multiprocessing as mp

    if (ray is not None and ray.is_initialized()) or "fork" not in mp.get_all_start_methods():
        import ray

        with _stdout_to_stderr():
            _drive(
                ray,
                payload,
                tasks,
                address,
                cpus,
                on_result,
                on_bytes,
                max_retries,
                fn=fn,
                check=check,
            )
        return
    _drive_in_child(
        mp.get_context("fork"),
        payload,
        tasks,
        address,
        cpus,
        on_result,
        on_bytes,
        max_retries,
        fn,
        check,
    )


def _drive(
    ray,
    payload,
    tasks,
    address,
    cpus,
    on_result,
    on_bytes,
    max_retries,
    on_start=lambda: None,
    fn=None,
    check=None,
) -> None:
    """The Ray driver: start or join Ray (then ``on_start()``), submit every task, hand each
    result on (``check``: as :func:`run_ray`'s)."""
    started = False
    try:
        if not ray.is_initialized():
            kw = {"address": address} if address else {"num_cpus": cpus}
            ray.init(**kw, include_dashboard=False, log_to_driver=False, runtime_env=_runtime_env())
            started = True
        on_start()
        ref = ray.put(payload)
        remote = ray.remote(_ray_task).options(
            max_retries=max_retries, retry_exceptions=[TaskFault, OSError]
        )
        # the ref goes in a list, so that Ray hands it over unresolved: each worker process
        # then gets the payload once (_ray_task), not once per task
        pending = {remote.remote([ref], t, fn or scan_task): t for t in tasks}
        try:
            while pending:
                done, _ = ray.wait(
                    list(pending), num_returns=1, timeout=None if check is None else CHECK_S
                )
                if check is not None:
                    check()
                for obj in done:
                    task = pending.pop(obj)
                    try:
                        res = ray.get(obj)
                    except ray.exceptions.RayError as e:
                        raise _ray_failure(e, task) from e
                    if "error" in res:
                        raise from_dict(res["error"])
                    on_bytes(res["bytes"])
                    on_result(res)
        finally:
            for obj in pending:
                ray.cancel(obj, force=True)
    except (ConnectionError, ray.exceptions.RayError) as e:
        raise _ray_failure(e, None) from e
    finally:
        if started:
            ray.shutdown()


def _ray_failure(e: BaseException, task: Task | None) -> EvalsieveError:
    first = (str(e).strip().splitlines() or [""])[0][:300]
    what = (
        (f"Ray failed while it ran the task ({type(e).__name__}: {first}); the run wrote no export")
        if task
        else f"Ray failed ({type(e).__name__}: {first})"
    )
    return environment(what, file=task.name if task else None, expected=_CLUSTER)


def _drive_in_child(
    ctx, payload, tasks, address, cpus, on_result, on_bytes, max_retries, fn=None, check=None
) -> None:
    """:func:`_drive` in a forked child; its results come back over a pipe and are handed
    on here. The child's end, whenever it comes before its last message, is an error; so is
    a Ray that has not started (or been joined) within ``CONNECT_S``."""
    from multiprocessing.connection import wait

    mine, theirs = ctx.Pipe(duplex=False)
    child = ctx.Process(
        target=_child_main,
        daemon=True,
        args=(theirs, payload, tasks, address, cpus, max_retries, fn),
    )
    ok = False
    joined = False
    deadline = time.monotonic() + CONNECT_S
    try:
        child.start()
        theirs.close()
        while True:
            left = None if joined else max(0.0, deadline - time.monotonic())
            if check is not None:
                left = CHECK_S if left is None else min(left, CHECK_S)
            got = wait([mine, child.sentinel], left)
            if check is not None:
                check()
            if not got:
                if joined or time.monotonic() < deadline:
                    continue  # a check's tick
                raise environment(
                    f"Ray did not start or answer within {CONNECT_S} s"
                    + (f" at --ray-address {address}" if address else ""),
                    expected=_CLUSTER,
                )
            try:
                kind, value = mine.recv() if mine.poll() else (None, None)
            except (EOFError, OSError):
                kind = value = None
            if kind is None:
                child.join(timeout=5)
                code = child.exitcode
                how = (
                    f"was killed by signal {-code}"
                    if code is not None and code < 0
                    else f"ended with status {code}: Ray ends its driver so when it loses its "
                    "node or object store (its messages are above)"
                )
                raise environment(
                    f"the Ray driver process {how}, before the training pass "
                    "was done; the run wrote no export",
                    expected=_CLUSTER,
                )
            if kind == "started":
                joined = True
                continue
            if kind == "done":
                ok = True
                return
            if kind == "error":
                raise from_dict(value)
            on_bytes(value["bytes"])
            on_result(value)
    finally:
        mine.close()
        if child.exitcode is None and not ok:
            child.terminate()  # Ray's own SIGTERM handler shuts its local cluster down
        # (a child stuck in ray.init runs no Python signal handler: it is killed sooner)
        child.join(timeout=30 if ok else 15 if joined else 3)
        if child.exitcode is None:
            child.kill()
            child.join()


def _child_main(conn, payload, tasks, address, cpus, max_retries, fn=None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the CLI handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler (Ray sets its own)
    # the CLI killed (SIGKILL, or SIGTERM with no handler): end this driver too, even inside
    # ray.init's retries (a local Ray started here shares its fate: Ray ends its processes
    # with the driver)
    threading.Thread(target=exit_when_orphaned, args=(os.getppid(),), daemon=True).start()
    try:  # whatever Ray writes on stdout goes to stderr (this process writes no summary)
        os.dup2(2, 1)
    except OSError:
        pass
    sys.stdout = sys.stderr
    try:
        import ray

        _drive(
            ray,
            payload,
            tasks,
            address,
            cpus,
            lambda res: conn.send(("result", res)),
            lambda n: None,
            max_retries,
            lambda: conn.send(("started", None)),
            fn,
        )
        conn.send(("done", None))
    except EvalsieveError as e:
        conn.send(("error", e.to_dict()))
    except BaseException as e:  # noqa: B902 - told to the CLI, which ends the run
        conn.send(
            (
                "error",
                environment(
                    f"the Ray driver failed ({type(e).__name__}: {e})", expected=_CLUSTER
                ).to_dict(),
            )
        )
    finally:
        conn.close()


@contextlib.contextmanager
def _stdout_to_stderr():
    """Send what is written on stdout meanwhile to stderr (Ray's notes, from its threads
    and processes): both ``sys.stdout`` and file descriptor 1, restored after."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError):
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


#: This Ray worker process's payload, by its object id: one at a time, the latest run's.
_PAYLOAD: dict = {}


def _ray_task(boxed: list, task: Task, fn=scan_task) -> dict:
    """One task on a Ray worker. ``boxed`` is ``[ref]``, the payload's ObjectRef, resolved
    here once per worker process: unpickling the payload (8 MB for GSM8K test's index) and
    laying out its kernel (:meth:`kernel.KernelFilter.scanner`, kept on the filter) took
    about 0.1 s, which a task of a few MB paid each time when Ray resolved the argument."""
    import ray

    key = boxed[0].hex()
    payload = _PAYLOAD.get(key)
    if payload is None:
        payload = ray.get(boxed[0])
        _PAYLOAD.clear()
        _PAYLOAD[key] = payload
    return _run_task(payload, task, retried=(TaskFault, OSError), fn=fn)


def _runtime_env() -> dict:
    """Workers of a local Ray import evalsieve from the same place as the driver."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH", "")
    env = {"PYTHONPATH": here + (os.pathsep + path if path else "")}
    for hook in ("EVALSIEVE_FAIL_ONCE", "EVALSIEVE_KILL_ONCE", "EVALSIEVE_TASK_DELAY_S"):
        if os.environ.get(hook):  # the tests' fault injection (fault_hooks.py)
            env[hook] = os.environ[hook]
    return {"env_vars": env}
