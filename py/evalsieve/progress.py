"""Progress of the CLI's training pass on stderr (a tqdm bar on a terminal, else a line every
10 s; the Python API's ``progress`` callback and cancel event). CLI side only: it reads the
clock."""

from __future__ import annotations

import sys
import time

from .errors import EvalsieveError


class Progress:
    """Progress of the training pass on stderr.

    What it counts: bytes of the training files as they are on disk (compressed bytes for
    gzip), against their total size: with one process each block as it is read, with
    several each task's byte range when the task ends (``scan_task``'s ``bytes``); the
    counts add up to the total, so "read X of Y MB" never passes Y. On a terminal with tqdm
    installed (the ``[progress]`` extra): a bar of them, with MB/s and ETA, and tasks done /
    total when the pass runs as several tasks. Elsewhere: a plain line at most every 10 s.
    """

    def __init__(self, total: int, tasks: int, log, show_tasks: bool, hook=None, cancel=None):
        self.total, self.tasks, self.log, self.show_tasks = total, tasks, log, show_tasks
        self.hook, self.cancel = hook, cancel  # the API's callback and cancel event
        self.read = 0
        self.done = 0
        self.bar = None
        self.t0 = self.last = time.perf_counter()
        if log is not silent and sys.stderr.isatty():
            try:
                from tqdm import tqdm

                self.bar = tqdm(
                    total=total,
                    unit="B",
                    unit_scale=True,
                    unit_divisor=1000,
                    desc="training bytes read",
                    file=sys.stderr,
                    leave=False,
                    dynamic_ncols=True,
                )
            except ImportError:
                self.bar = None

    def add(self, nbytes: int) -> None:
        """Count bytes read from disk."""
        self.read += nbytes
        if self.bar is not None:
            self.bar.update(nbytes)
        self._tick()
        self._maybe_line()

    def task_done(self) -> None:
        """Count one finished task (a file or a byte range)."""
        self.done += 1
        if self.bar is not None and self.show_tasks:
            self.bar.set_postfix_str(f"tasks {self.done}/{self.tasks}")
        self._tick()
        self._maybe_line()

    def _tick(self) -> None:
        check_cancel(self.cancel)
        if self.hook is not None:
            self.hook("train", min(self.read, self.total), self.total)

    def _maybe_line(self) -> None:
        now = time.perf_counter()
        if self.bar is not None or now - self.last < 10:
            return
        self.last = now
        dt = now - self.t0
        rate = self.read / 1e6 / max(dt, 1e-9)
        eta = max(0, self.total - self.read) / 1e6 / rate if rate else float("nan")
        tasks = f", tasks {self.done}/{self.tasks}" if self.show_tasks else ""
        self.log(
            f"train: read {self.read / 1e6:.0f} of {self.total / 1e6:.0f} MB from disk, "
            f"{rate:.1f} MB/s, ETA {eta:.0f} s{tasks}"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def silent(msg: str) -> None:
    """The log of --quiet (Progress draws no bar for it)."""
    pass


_silent = silent  # the name the drivers know


def check_cancel(cancel) -> None:
    """Stop the run when ``cancel`` (anything with ``is_set()``, e.g. ``threading.Event``;
    or None) is set.

    Raises:
        EvalsieveError(cancelled): it is set.
    """
    if cancel is not None and cancel.is_set():
        raise EvalsieveError("cancelled", "the run was cancelled")
