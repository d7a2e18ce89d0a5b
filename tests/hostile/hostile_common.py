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
CONTAMINATION_EXPORTS = (
    "contamination-report.csv",
    "too-short-to-score.csv",
    "overlap-report.html",
    "run-stamp.json",
)
PARAPHRASE_EXPORTS = ("paraphrase-pairs.csv", "paraphrase-groups.csv", "run-stamp.json")


def with_parquet(names) -> tuple:
    """`names` and, when pyarrow is installed (the CLI then writes them), the Parquet
    version of each CSV report."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return tuple(names)
    return (
        *names,
        *(
            n[:-4] + ".parquet"
            for n in names
            if n.endswith(".csv") and not n.startswith("eval.clean")
        ),
    )


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


FINGERPRINT = re.compile(r"[0-9a-f]{64}")


def read_csv_export(text: str) -> tuple[str | None, list[dict]]:
    """(run fingerprint, rows) of a CSV export: plain CSV, the header on line 1 with
    `run_fingerprint` last, that column the same 64 hex digits in every row (None when the
    export has no rows). The rows are returned without that column."""
    assert not text.startswith("#"), text[:80]
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames and reader.fieldnames[-1] == "run_fingerprint", reader.fieldnames
    rows = list(reader)
    prints = {r.pop("run_fingerprint") for r in rows}
    assert len(prints) <= 1, prints
    fp = prints.pop() if prints else None
    assert fp is None or FINGERPRINT.fullmatch(fp), fp
    for r in rows:
        assert None not in r and None not in r.values(), r  # no ragged row
    return fp, rows


def without_fingerprint(text: str) -> str:
    """A CSV export's text without its `run_fingerprint` column (header and rows, re-written
    by the csv module): what two runs with other settings or drivers must agree on."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows and rows[0][-1] == "run_fingerprint", rows[:1]
    buf = io.StringIO()
    csv.writer(buf).writerows(r[:-1] for r in rows)
    return buf.getvalue()


def comparable(folder: Path, name: str):
    """An export of a run folder in the form two runs of the same inputs and rule must agree
    on, whatever the driver, engine, workers or filter: the CSVs as they are (fingerprint
    and all), run-stamp.json without its time, overlap-report.html above its stamp, a
    Parquet report as (schema, rows, its stamp without the time)."""
    path = Path(folder, name)
    if name.endswith(".parquet") and not name.startswith("eval.clean"):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        stamp = json.loads(table.schema.metadata[b"evalsieve.run_stamp"])
        stamp.pop("utc")
        return str(table.schema.remove_metadata()), table.to_pylist(), stamp
    if name.endswith(".parquet"):
        return path.read_bytes()
    text = path.read_text(encoding="utf-8")
    if name == "run-stamp.json":
        stamp = json.loads(text)
        stamp.pop("utc")
        return stamp
    if name.endswith(".html"):
        return text.split("<h2>Run stamp</h2>")[0]
    return text


def read_stamped(text: str, stamp_text: str) -> tuple[dict, list[dict]]:
    """(stamp, rows): :func:`read_csv_export` of `text`, and the stamp from the text of the
    run's run-stamp.json, checked to be the stamp of the CSV's run."""
    fp, rows = read_csv_export(text)
    stamp = json.loads(stamp_text)
    assert fp is None or stamp["fingerprint"] == fp, (fp, stamp["fingerprint"])
    return stamp, rows


def read_export(folder: Path, name: str) -> tuple[dict, list[dict]]:
    """(stamp, rows) of the CSV export `name` in `folder`, beside its run-stamp.json."""
    return read_stamped(
        Path(folder, name).read_text(encoding="utf-8"),
        Path(folder, "run-stamp.json").read_text(encoding="utf-8"),
    )


def check_error(
    rc: int, err: str, out_dir: Path, name: str, words: list[str], line: int | None
) -> None:
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
    assert not re.search(r"<\s*(script|img|iframe|textarea|object|embed)\b", html, re.I), (
        "markup leaked"
    )
    assert not re.search(r"<[^>]*\bon\w+\s*=", html, re.I), "an event handler attribute leaked"
    assert "</textarea" not in html.lower()


def check_contamination_result(
    out_dir: Path, summary: dict, rows: list[bytes], header: bytes, bom: bytes = b""
) -> dict[str, list[int]]:
    """The partition and byte-exactness promises for one eval file.

    Args:
        rows: each eval record's exact bytes (from the case's construction, not evalsieve).
        header: the CSV/TSV header line's bytes, or b"".
        bom: the file's byte-order mark (b"" without one): eval.clean.* starts with it when
            it holds anything.
    Returns:
        {"clean": [...], "contaminated": [...], "too_short": [...]} 1-based eval rows (a
        row too short to score that a rung caught is under contaminated only).
    """
    names = sorted(p.name for p in out_dir.iterdir())
    clean_name = summary["clean_file"]
    assert names == sorted(with_parquet((clean_name,) + CONTAMINATION_EXPORTS)), names
    report = (out_dir / "contamination-report.csv").read_text(encoding="utf-8")
    short = (out_dir / "too-short-to-score.csv").read_text(encoding="utf-8")
    _, scored = read_csv_export(report)
    _, unscored = read_csv_export(short)
    got = {"clean": [], "contaminated": [], "too_short": []}
    for r in scored:
        got[r["status"]].append(int(r["eval_row"]))
    # a row too short to score that a rung caught (an exact copy) is contaminated in the
    # report, with no containment, and listed too short with that rung: counted once
    caught = [int(r["eval_row"]) for r in unscored if r["rung"]]
    assert caught == [int(r["eval_row"]) for r in scored if r["containment"] == ""], caught
    got["too_short"] = [int(r["eval_row"]) for r in unscored if not r["rung"]]
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


def scan_state(scan) -> tuple:
    """Everything a finished semantic scan (``semantic.SemanticScan``) holds that its result
    depends on, for comparing two scans: its request, window counts, heaps, kept windows
    (record, span, context, file), windows seen and windows with a key."""
    req = scan.request()
    windows = {
        s: (w.record, w.start, w.end, w.context_start, w.context, w.file)
        for s, w in scan._kept.items()
    }
    heaps = [sorted(h) for h in scan._heaps]
    return req, scan.window_df, heaps, windows, scan.windows_seen, scan.windows_with_key
