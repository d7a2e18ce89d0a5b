"""How a CLI run that fails ends: one ``evalsieve: error:`` line on stderr and its exit status.

CLI side only. The statuses (``errors.EXIT_*``, docs/CLI.md) mean one thing each: 2 usage or
bad input, 3 I/O or environment, 4 a bug, 130 interrupted, 143 terminated. No traceback
reaches the user (``EVALSIEVE_DEBUG=1`` prints it first, for a bug report).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
import traceback

from . import __version__
from .errors import (
    EXIT_BY_CODE,
    EXIT_ENVIRONMENT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EvalsieveError,
    Terminated,
)

_REPORT = (
    "this is a bug in evalsieve " + __version__ + ": please report it with the command "
    "line and this message (EVALSIEVE_DEBUG=1 prints the traceback)"
)


def say(line: str) -> None:
    """One line on stderr; nothing when stderr is gone (``2>&1 | head``)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def exit_status(e: BaseException, written: bool = False) -> int:
    """Tell the user what stopped the run, in one ``evalsieve: error:`` line (an
    :class:`EvalsieveError`'s detail on a second, ``evalsieve:   here:``), and return the exit
    status. ``written``: the exports were written before it stopped (while printing the
    summary). SystemExit (argparse's usage errors) is raised again."""
    if isinstance(e, SystemExit):
        raise e
    if os.environ.get("EVALSIEVE_DEBUG") and not isinstance(e, KeyboardInterrupt):
        say("".join(traceback.format_exception(e)).rstrip())
    if isinstance(e, EvalsieveError):
        say(f"evalsieve: error: {e}")
        if e.detail:
            say(f"evalsieve:   here: {e.detail}")
        if e.code == "internal":
            say(f"evalsieve:   {_REPORT}")
        return EXIT_BY_CODE[e.code]
    if isinstance(e, KeyboardInterrupt):
        say(
            "evalsieve: error: "
            + ("terminated (SIGTERM)" if isinstance(e, Terminated) else "cancelled (Ctrl-C)")
            + ("; the exports were written" if written else "; no export was written")
        )
        return EXIT_TERMINATED if isinstance(e, Terminated) else EXIT_INTERRUPTED
    if isinstance(e, ImportError):  # an optional package a step needs (an extra)
        say(
            f"evalsieve: error: a package is missing or broken: {e} (expected the extra "
            "that provides it, e.g. pip install 'evalsieve[encoder]')"
        )
        return EXIT_ENVIRONMENT
    if isinstance(e, MemoryError):
        say(
            "evalsieve: error: out of memory (expected more free memory: fewer --workers, "
            "or a smaller eval file per run)"
        )
        return EXIT_ENVIRONMENT
    if isinstance(e, OSError):
        where = f"{e.filename}: " if e.filename else ""
        what = e.strerror or errno.errorcode.get(e.errno or 0, "") or str(e)
        say(
            f"evalsieve: error: {where}{what} (an I/O error; expected a readable input and a "
            "writable --out folder with free space)"
        )
        return EXIT_ENVIRONMENT
    say(f"evalsieve: error: internal error: {type(e).__name__}: {e}")
    say(f"evalsieve:   {_REPORT}")
    return EXIT_INTERNAL


@contextlib.contextmanager
def sigterm_raises():
    """Meanwhile SIGTERM raises :class:`errors.Terminated` in the main thread, so a run that
    is ``kill``-ed (``timeout``, a batch scheduler) cleans up as after Ctrl-C: its workers
    are stopped, no export is left half-written, and it ends with status 143. Later SIGTERMs
    are ignored while it cleans up (SIGKILL still ends it). A process forked meanwhile that
    gets SIGTERM before it sets its own handler (a worker, when ``kill`` or ``timeout``
    signals the whole process group) ends as by default, with no traceback. Does nothing
    outside the main thread, or when SIGTERM is not at its default (a caller that ignores
    or handles it)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    raised: list[int] = []
    owner = os.getpid()

    def handler(signum, frame):
        if os.getpid() != owner:  # a forked worker, before it set its own: die as by default
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if not raised:
            raised.append(signum)
            raise Terminated

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class SignalsHeld:
    """A context manager: meanwhile a SIGINT or SIGTERM is recorded, not acted on, so the
    exports' renames into place are not cut in two; one that came is acted on as the block
    ends (its handler is called then). ``done`` is True once a ``with`` ended without an
    exception (the exports are in place, whatever is raised next). Python handlers, not a
    signal mask: a mask holds one thread only, and another thread of the process (the
    encoder's, say) would take the signal. Outside the main thread it holds nothing."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.done = False
        self._before: dict = {}
        self._came: list[int] = []

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._before[sig] = signal.signal(sig, lambda s, f: self._came.append(s))
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.done = True
        for sig, handler in self._before.items():
            signal.signal(sig, handler)
        came, self._came, self._before = self._came, [], {}
        if came and kind is None:  # acted on now, as it would have been then
            handler = signal.getsignal(came[0])
            if callable(handler):
                handler(came[0], None)
            elif handler == signal.SIG_DFL:
                if came[0] == signal.SIGINT:
                    raise KeyboardInterrupt
                os.kill(os.getpid(), came[0])
        return False


def stdout_gone() -> None:
    """stdout's reader went away (``evalsieve ... | head``): point stdout at /dev/null, so
    that Python's flush at exit raises nothing, and go on quietly (what cat or grep do)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass
