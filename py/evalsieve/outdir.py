"""The export folder of a CLI job (``--out DIR``): checked before the job, written at once.

CLI side only (it touches the file system). The rules, in docs/CLI.md ("The export folder"):

* :meth:`OutDir.prepare`, before the job reads any input: the folder is made if it is missing
  and a probe folder is made and removed inside it, so a path through a file, a read-only
  folder or file system, or a missing permission stop the run at once
  (``EvalsieveError("environment")``, exit 3), not after the scan. A folder that holds
  another job's exports is refused (``bad_input``, exit 2): names both jobs write
  (``skipped-lines.csv``, ``score-impact.csv``) would no longer say which run they are of.
* :meth:`OutDir.write`, after the job: every export is written into a hidden staging folder
  inside DIR (``.evalsieve-*``); only when all are written do they move into place (one
  rename each, on the same file system), and then the exports of an earlier run of the same
  job that this run did not write (``score-impact.csv`` of a run with ``--scores``...) are
  removed. DIR then holds exactly this run's exports, beside the user's other files. A
  failure while writing (disk full) removes the staging folder and leaves DIR as it was.
* :meth:`OutDir.discard`, when the job fails: DIR is removed if this run made it and it is
  still empty.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

from . import constants
from .errors import bad_input, environment
from .parquet_io import report_name


def _with_parquet(names) -> frozenset:
    """``names``, the run stamp, and the Parquet version of every CSV report among them
    (:func:`parquet_io.report_name`; a clean ``eval.clean.*`` is the input's bytes, no
    report)."""
    names = {*names, constants.STAMP_EXPORT}
    return frozenset(
        names
        | {report_name(n) for n in names if n.endswith(".csv") and not n.startswith("eval.clean.")}
    )


#: Every name each job may write into its folder (what a later run of it replaces).
#: purify writes its own outputs (a copy of the corpus, resumable file by file, too big to
#: stage): only its report, summary and stamp are listed, so that no other job's run mixes
#: with them (and purify refuses a folder of another job's exports).
JOB_EXPORTS = {
    "contamination": _with_parquet(
        [
            *constants.CLEAN_NAME_BY_FORMAT.values(),
            constants.PARQUET_KEPT_ROWS_NAME,
            *constants.CONTAMINATION_REPORTS,
            constants.SKIPPED_EXPORT,
            *constants.SCORE_EXPORTS,
        ]
    ),
    "paraphrases": _with_parquet(
        [*constants.PARAPHRASE_EXPORTS, constants.SKIPPED_EXPORT, *constants.SCORE_EXPORTS]
    ),
    "purify": frozenset(constants.PURIFY_EXPORTS),
}
STAGING_PREFIX = ".evalsieve-"
_FIX = "a folder you can write to, with free space"


def _why(e: OSError) -> str:
    return e.strerror or type(e).__name__


class OutDir:
    """One job's export folder.

    Args:
        path: the folder as the user gave it (``--out``).
        job: a key of :data:`JOB_EXPORTS`.
    Attributes:
        created: True when :meth:`prepare` made the folder.
    """

    def __init__(self, path: str, job: str):
        self.path = path
        self.job = job
        self.names = JOB_EXPORTS[job]
        self.created = False

    def prepare(self) -> OutDir:
        """Check, before the job runs, that the exports can be written here.

        Returns:
            self.
        Raises:
            EvalsieveError(environment): the folder cannot be made or written to (a file in
            the path, no permission, a read-only file system).
            EvalsieveError(bad_input): it holds another job's exports (named).
        """
        p = self.path
        existed = os.path.isdir(p)
        if existed:
            others = sorted(set(os.listdir(p)) & self._others())
            if others:
                job = next(j for j, names in JOB_EXPORTS.items() if others[0] in names)
                raise bad_input(
                    f"--out holds the exports of a {job} run ("
                    f"{', '.join(others[:3])}{' ...' if len(others) > 3 else ''})"
                    f", which this {self.job} run would mix with",
                    file=p,
                    expected="a folder of its own for each job (or remove them)",
                )
        else:
            try:
                os.makedirs(p, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise environment(
                    "--out is not a folder: it, or a folder on its path, is a file",
                    file=p,
                    expected=_FIX,
                ) from None
            except OSError as e:
                raise environment(
                    f"cannot make the --out folder ({_why(e)})", file=p, expected=_FIX
                ) from e
            self.created = True
        try:
            os.rmdir(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=p))
        except OSError as e:
            self.discard()
            raise environment(
                f"cannot write in the --out folder ({_why(e)})", file=p, expected=_FIX
            ) from e
        return self

    def _others(self) -> set[str]:
        """Names only other jobs write."""
        other = set().union(*(n for j, n in JOB_EXPORTS.items() if j != self.job))
        return other - self.names

    def write(self, exports: dict, moving=None) -> list[str]:
        """Write every export or none, then remove the stale ones of an earlier run.

        Args:
            exports: name -> text (written as UTF-8, line ends as they are), or a function
                that writes the file at the path it is given (a Parquet clean file).
            moving: a context manager to hold while the written exports are moved into
                place (the CLI's ``failures.SignalsHeld``: a Ctrl-C or SIGTERM then waits
                for the last rename, so the folder holds one run's set, whole).
        Returns:
            The names of the earlier run's exports that were removed, sorted.
        Raises:
            EvalsieveError(environment): an export could not be written (disk full, ...);
            the folder is as it was.
        """
        try:
            tmp = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.path)
        except OSError as e:
            raise environment(
                f"cannot write in the --out folder ({_why(e)})", file=self.path, expected=_FIX
            ) from e
        try:
            for name, text in exports.items():
                target = os.path.join(tmp, name)
                try:
                    if callable(text):
                        text(target)
                    else:
                        with open(target, "w", encoding="utf-8", newline="") as f:
                            f.write(text)
                except OSError as e:
                    raise environment(
                        f"cannot write {name} ({_why(e)}); no export was changed",
                        file=self.path,
                        expected=_FIX,
                    ) from e
            stale = sorted(
                n
                for n in os.listdir(self.path)
                if n in self.names
                and n not in exports
                and os.path.isfile(os.path.join(self.path, n))
            )
            try:
                with moving() if moving is not None else contextlib.nullcontext():
                    for name in exports:
                        os.replace(os.path.join(tmp, name), os.path.join(self.path, name))
                    for name in stale:
                        os.unlink(os.path.join(self.path, name))
            except OSError as e:  # (renames in one folder: the file system changed under us)
                raise environment(
                    f"cannot move the exports into place ({_why(e)}): the folder "
                    "may hold some of this run's exports beside an earlier "
                    "run's; their stamps tell them apart",
                    file=self.path,
                    expected=_FIX,
                ) from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return stale

    def discard(self) -> None:
        """After a failed run: remove the folder if :meth:`prepare` made it and it is empty."""
        if self.created:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
            self.created = False
