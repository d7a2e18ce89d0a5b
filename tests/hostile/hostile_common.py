"""Helpers for the hostile-input tests: run the CLI in-process with a time limit, read its
exports, and check the promises every result must keep."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))

from evalsieve import cli  # noqa: E402

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CONTAMINATION_EXPORTS = ("contamination-report.csv", "too-short-to-score.csv",
                         "overlap-report.html")
PARAPHRASE_EXPORTS = ("paraphrase-pairs.csv", "paraphrase-groups.csv")


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    """Fail (instead of hanging the suite) when the body runs longer than `seconds`."""
    def on_alarm(signum, frame):
        raise Hang(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_cli(argv: list[str], capsys, seconds: int = 120) -> tuple[int, str, str]:
    """`evalsieve ARGV` in this process. Returns (status, stdout, stderr).

    An exception escaping main() is what a user would see as a traceback: it fails the test
    with that traceback.
    """
    capsys.readouterr()
    with time_limit(seconds):
        rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def read_csv_export(text: str) -> tuple[dict, list[dict]]:
    """(stamp, rows) of a CSV export: line 1 is `# run_stamp {json}`, the header is line 2."""
    first, rest = text.split("\n", 1)
    assert first.startswith("# run_stamp "), first[:80]
    stamp = json.loads(first[len("# run_stamp "):].rstrip("\r"))
    return stamp, list(csv.DictReader(io.StringIO(rest, newline="")))


def check_error(rc: int, err: str, out_dir: Path, name: str, words: list[str],
                line: int | None) -> None:
    """Exit 2, one message naming the file (and line), the expected words, no traceback,
    no export written."""
    assert rc == 2, f"exit {rc}, stderr: {err}"
    assert "Traceback" not in err, err
    assert f"evalsieve: error: {name}" in err, err
    low = err.lower()
    for w in words:
        assert w.lower() in low, f"{w!r} not in: {err}"
    if line is not None:
        assert f"line {line}:" in err, f"line {line} not named: {err}"
    written = [p.name for p in out_dir.iterdir()] if out_dir.exists() else []
    assert written == [], f"exports written on error: {written}"


def check_csv_cells_safe(text: str, where: str) -> int:
    """No CSV cell starts like a spreadsheet formula. Returns how many cells were
    neutralised (start with ' followed by a formula character)."""
    _, rows = read_csv_export(text)
    neutralised = 0
    for r in rows:
        for k, v in r.items():
            assert not (v or "").startswith(FORMULA_START), f"{where}: formula cell {k}={v!r}"
            if v and v.startswith("'") and v[1:].startswith(FORMULA_START):
                neutralised += 1
    return neutralised


def check_html_inert(html: str) -> None:
    """The report is self-contained and shows markup from the data as text."""
    assert not re.search(r"<\s*(script|img|iframe|textarea|object|embed)\b", html, re.I), \
        "markup leaked"
    assert not re.search(r"<[^>]*\bon\w+\s*=", html, re.I), "an event handler attribute leaked"
    assert "</textarea" not in html.lower()


def check_contamination_result(out_dir: Path, summary: dict, rows: list[bytes],
                               header: bytes, bom: bytes = b"") -> dict[str, list[int]]:
    """The partition and byte-exactness promises for one eval file.

    Args:
        rows: each eval record's exact bytes (from the case's construction, not evalsieve).
        header: the CSV/TSV header line's bytes, or b"".
        bom: the file's byte-order mark (b"" without one): eval.clean.* starts with it when
            it holds anything.
    Returns:
        {"clean": [...], "contaminated": [...], "too_short": [...]} 1-based eval rows.
    """
    names = sorted(p.name for p in out_dir.iterdir())
    clean_name = summary["clean_file"]
    assert names == sorted((clean_name,) + CONTAMINATION_EXPORTS), names
    report = (out_dir / "contamination-report.csv").read_text(encoding="utf-8")
    short = (out_dir / "too-short-to-score.csv").read_text(encoding="utf-8")
    _, scored = read_csv_export(report)
    _, unscored = read_csv_export(short)
    got = {"clean": [], "contaminated": [], "too_short": []}
    for r in scored:
        got[r["status"]].append(int(r["eval_row"]))
    got["too_short"] = [int(r["eval_row"]) for r in unscored]
    every = got["clean"] + got["contaminated"] + got["too_short"]
    assert sorted(every) == list(range(1, len(rows) + 1)), (got, len(rows))
    assert summary["rows_scanned"] == len(rows)
    assert summary["rows_kept"] == len(got["clean"])
    assert summary["rows_contaminated"] == len(got["contaminated"])
    expected = header + b"".join(rows[i - 1] for i in sorted(got["clean"]))
    expected = bom + expected if expected else expected
    assert (out_dir / clean_name).read_bytes() == expected
    check_csv_cells_safe(report, "contamination-report.csv")
    check_csv_cells_safe(short, "too-short-to-score.csv")
    check_html_inert((out_dir / "overlap-report.html").read_text(encoding="utf-8"))
    return got


def model_dir_or_none() -> str | None:
    """The encoder's folder when the CLI's paraphrase job can run here, else None."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
        return cli.find_model_dir(None)
    except Exception:
        return None


def summary_of(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def clear(folder: Path) -> None:
    if folder.exists():
        for p in folder.iterdir():
            os.unlink(p)
