"""Domain errors with a code the page and the CLI can act on.

Codes (see docs/ARCHITECTURE.md): ``bad_input`` (the user's file is not what was expected),
``cancelled`` (the user stopped the run), ``asset_load_failed`` (a model/wasm file failed to
load or verify), ``environment`` (the machine failed the run: an export folder that cannot
be written, a full disk, a worker process killed, a Ray cluster lost; CLI only),
``internal`` (a bug: please report it).

Each code has one exit status of the CLI (``EXIT_BY_CODE``; docs/CLI.md has the table).
"""

from __future__ import annotations

CODES = ("bad_input", "cancelled", "asset_load_failed", "environment", "internal")

#: The CLI's exit statuses, one meaning each (docs/CLI.md).
EXIT_OK = 0  # the job ran (whatever it found)
EXIT_CONTAMINATED = 1  # it ran and found contamination, with --fail-on-contamination only
EXIT_BAD_INPUT = 2  # usage or bad input: nothing was written
EXIT_ENVIRONMENT = 3  # I/O or environment: --out not writable, disk full, a worker killed...
EXIT_INTERNAL = 4  # a bug in evalsieve (the message asks for a report)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as a shell reports it)
EXIT_TERMINATED = 143  # SIGTERM (128 + 15: kill, timeout, a scheduler's preemption)

#: Exit status of a run that stopped with an :class:`EvalsieveError` of each code.
EXIT_BY_CODE = {
    "bad_input": EXIT_BAD_INPUT,
    "cancelled": EXIT_INTERRUPTED,
    "asset_load_failed": EXIT_ENVIRONMENT,
    "environment": EXIT_ENVIRONMENT,
    "internal": EXIT_INTERNAL,
}


class Terminated(KeyboardInterrupt):
    """The CLI got SIGTERM (``kill``, ``timeout``, a batch scheduler ending the job). Raised
    in the main thread by the CLI's handler; a ``KeyboardInterrupt``, so every path that
    cleans up after Ctrl-C (workers stopped, the staging folder removed) does so for it."""


class EvalsieveError(Exception):
    """An error that names what was wrong, where, and what was expected.

    Args:
        code: one of ``CODES``.
        message: one sentence a person can act on.
        file: the input's name (as the user gave it), or None.
        line: 1-based line number in that file, or None.
        expected: what the file should have had at that place, or None.
        detail: extra context (e.g. the offending text, clipped), or None.

    Raises:
        ValueError: if ``code`` is not one of ``CODES``.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        expected: str | None = None,
        detail: str | None = None,
    ):
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.expected = expected
        self.detail = detail

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f", line {self.line}"
            where += ": "
        text = where + self.message
        if self.expected:
            text += f" (expected {self.expected})"
        return text

    def to_dict(self) -> dict:
        """A plain, JSON-serialisable form (what crosses ``postMessage``)."""
        return {
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "expected": self.expected,
            "detail": self.detail,
            "text": str(self),
        }


def bad_input(message: str, **where) -> EvalsieveError:
    """Shorthand for ``EvalsieveError("bad_input", message, **where)``."""
    return EvalsieveError("bad_input", message, **where)


def environment(message: str, **where) -> EvalsieveError:
    """Shorthand for ``EvalsieveError("environment", message, **where)``."""
    return EvalsieveError("environment", message, **where)


def from_dict(d: dict) -> EvalsieveError:
    """The error again from its :meth:`EvalsieveError.to_dict` (after a process boundary)."""
    return EvalsieveError(
        d["code"],
        d["message"],
        file=d.get("file"),
        line=d.get("line"),
        expected=d.get("expected"),
        detail=d.get("detail"),
    )
