"""Purify throughput against the contamination scan, and its peak memory, in one run.

On make_training.py's corpus (English JSONL, records of 100-600 words, a GSM8K test question
planted every 5,000 records; built and cached as bench_contamination.py does) against the
GSM8K test questions (N = 13), one process each (``--workers 1``), taking turns:

* ``contamination`` — ``evalsieve contamination``: its training pass (the CLI's own timer)
  and the whole process (wall clock);
* ``purify full`` / ``purify changed`` — ``evalsieve purify`` (cut mode) with the full
  rescan of the output as its self-check, and with the rescan of the changed records only:
  scan + write + self-check (purify's own timers: the same span the contamination timer
  covers, from the eval index to the end, plus writing and checking) and the whole process;

as MB/s of the training file's bytes (medians of ``--repeat``), the ratios purify /
contamination, and each process tree's peak resident memory. ``--memory-mb 800`` also runs
purify once on a corpus of that size and prints its peak memory beside the first one's
(flat memory in shard size: it should not grow with the file).

    .venv/bin/python benchmarks/bench_purify.py --mb 200 --repeat 1 --memory-mb 800
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_contamination import ROOT, eval_file, run_measured, training_file  # noqa: E402

BASE = ["--eval-field", "question", "--train-field", "text", "--json", "--quiet", "--workers", "1"]


def run_contamination(ev: Path, tr: Path, env: dict) -> tuple[float, float, float, float]:
    """(training-pass seconds, its CPU seconds, wall seconds, peak RSS MB)."""
    with tempfile.TemporaryDirectory() as d:
        out, wall, rss = run_measured(
            [
                sys.executable,
                "-m",
                "evalsieve.cli",
                "contamination",
                str(ev),
                str(tr),
                "--out",
                d,
                *BASE,
            ],
            env,
        )
    s = json.loads(out)
    return s["seconds_training_pass"], s["cpu_seconds_training_pass"], wall, rss


def run_purify(ev: Path, tr: Path, env: dict, check: str) -> tuple:
    """(scan + write + self-check seconds, their CPU seconds, wall seconds, peak RSS MB,
    summary)."""
    with tempfile.TemporaryDirectory() as d:
        out, wall, rss = run_measured(
            [
                sys.executable,
                "-m",
                "evalsieve.cli",
                "purify",
                str(ev),
                str(tr),
                "--out",
                d,
                "--self-check",
                check,
                *BASE,
            ],
            env,
        )
    s = json.loads(out)
    return sum(s["seconds"].values()), sum(s["cpu_seconds"].values()), wall, rss, s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--memory-mb",
        type=float,
        default=0,
        help="also purify a corpus of this size once, for its peak memory",
    )
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    ev = eval_file()
    tr = training_file(a.mb)
    size = tr.stat().st_size
    print(
        f"training {tr.name}: {size / 1e6:.0f} MB; eval {ev.name}; {os.cpu_count()} cores; "
        f"load average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    acc = {
        k: {"pass": [], "cpu": [], "whole": [], "rss": 0.0}
        for k in ("contamination", "purify full", "purify changed")
    }
    phases = {}
    for _ in range(a.repeat):
        t, cpu, wall, rss = run_contamination(ev, tr, env)
        acc["contamination"]["pass"].append(size / 1e6 / t)
        acc["contamination"]["cpu"].append(size / 1e6 / cpu)
        acc["contamination"]["whole"].append(size / 1e6 / wall)
        acc["contamination"]["rss"] = max(acc["contamination"]["rss"], rss)
        print(
            f"  contamination   {size / 1e6 / t:6.1f} MB/s training pass "
            f"({size / 1e6 / cpu:.1f} of CPU time), {size / 1e6 / wall:6.1f} MB/s whole; "
            f"peak RSS {rss:.0f} MB "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        for check in ("full", "changed"):
            t, cpu, wall, rss, s = run_purify(ev, tr, env, check)
            k = f"purify {check}"
            acc[k]["pass"].append(size / 1e6 / t)
            acc[k]["cpu"].append(size / 1e6 / cpu)
            acc[k]["whole"].append(size / 1e6 / wall)
            acc[k]["rss"] = max(acc[k]["rss"], rss)
            phases[k] = s["seconds"]
            print(
                f"  {k:15s} {size / 1e6 / t:6.1f} MB/s scan+write+check "
                f"({', '.join(f'{p} {v:.1f} s' for p, v in s['seconds'].items())}; "
                f"{size / 1e6 / cpu:.1f} of CPU time), "
                f"{size / 1e6 / wall:6.1f} MB/s whole; peak RSS {rss:.0f} MB; "
                f"{s['records_cut']} cut, {s['records_dropped']} dropped, self-check "
                f"{s['self_check']['rows_contaminated']} rows (load "
                f"{os.getloadavg()[0]:.1f})",
                flush=True,
            )
    med = {
        k: {m: statistics.median(v[m]) for m in ("pass", "cpu", "whole")} | {"rss": v["rss"]}
        for k, v in acc.items()
    }
    print(
        f"\nmedians of {a.repeat} (MB/s of {size / 1e6:.0f} MB; load average "
        f"{os.getloadavg()[0]:.1f} at the end):"
    )
    for k, v in med.items():
        print(
            f"  {k:15s} pass {v['pass']:6.1f}  pass CPU {v['cpu']:6.1f}  whole "
            f"{v['whole']:6.1f}  peak RSS {v['rss']:.0f} MB"
        )
    c = med["contamination"]
    print("ratios purify / contamination (target >= 0.7):")
    for k in ("purify full", "purify changed"):
        print(
            f"  {k:15s} pass {med[k]['pass'] / c['pass']:.2f}  pass CPU "
            f"{med[k]['cpu'] / c['cpu']:.2f}  whole {med[k]['whole'] / c['whole']:.2f}"
        )
    if a.memory_mb:
        big = training_file(a.memory_mb)
        _, _, wall, rss, s = run_purify(ev, big, env, "full")
        print(
            f"peak RSS of purify (full self-check): {med['purify full']['rss']:.0f} MB on "
            f"{size / 1e6:.0f} MB, {rss:.0f} MB on {big.stat().st_size / 1e6:.0f} MB "
            f"(ratio {rss / max(med['purify full']['rss'], 1):.2f}; "
            f"{big.stat().st_size / 1e6 / wall:.1f} MB/s whole)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
