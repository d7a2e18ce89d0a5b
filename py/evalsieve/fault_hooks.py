"""Fault injection for the tests of the training pass, switched on by environment variables.

Every task of :func:`corpus.scan_task` calls :func:`fault_hook` first; without the variables
it does nothing. The engines pass the variables on to Ray's workers (ray_engine.py).
"""

from __future__ import annotations

import os


def fault_hook(task) -> None:
    """Fault injection for the tests: with ``EVALSIEVE_FAIL_ONCE=DIR`` every task fails on
    its first attempt (a marker file in DIR records the attempt); with
    ``EVALSIEVE_TASK_DELAY_S=S`` every task first waits S seconds (so a test can interrupt
    a training pass that is surely running, whatever the machine's speed); with
    ``EVALSIEVE_KILL_ONCE=DIR`` the first task to start (of the run, DIR/killed records it)
    kills the process it runs in with SIGKILL, as the out-of-memory killer would."""
    delay = os.environ.get("EVALSIEVE_TASK_DELAY_S")
    if delay:
        import time

        time.sleep(float(delay))
    kill = os.environ.get("EVALSIEVE_KILL_ONCE")
    if kill:
        try:
            os.close(os.open(os.path.join(kill, "killed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
    d = os.environ.get("EVALSIEVE_FAIL_ONCE")
    if not d:
        return
    marker = os.path.join(d, f"task-{task.file}-{task.part}")
    if not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write("failed once\n")
        raise TaskFault(f"injected fault in task {task.file}.{task.part} (first attempt)")


class TaskFault(RuntimeError):
    """A transient task failure (injected by the retry test); Ray retries it."""
