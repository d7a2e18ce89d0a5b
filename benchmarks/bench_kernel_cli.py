#!/usr/bin/env python3
"""The CLI's scan kernel against the plain-JS peer, round by round, and across scripts.

bench_contamination.py runs every scanner ``--repeat`` times one after the other; on a
shared machine the load then drifts between the peer's runs and the CLI's. This runs them
in turns instead (one run of each per round, A B A B ...), and prints each round's ratio
and the median of the ratios, for:

* ``cli 1 process (kernel)`` (``evalsieve contamination --workers 1 --filter kernel``,
  training-pass MB/s: the CLI's own timer, eval index to merged results) against
  ``ref plain JS (Node)`` (benchmarks/ref_scan.mjs, its own scan timer) on the Latin corpus
  of bench_contamination.py (make_training.py), GSM8K test (N = 13); both must find the
  same contaminated eval rows (exit status 1 if not);
* with ``--scripts``: the CLI's kernel on the Hangul, Arabic and Devanagari corpora of the
  same size (make_training.py --script: real gettext text and synthetic words) in the same
  rounds, each one's MB/s and its ratio to the Latin run of the round; the records the
  kernel sent to Python are counted in each run's ``candidate_lines``.

CPU-time figures (MB per CPU second of the training pass) are printed too: other load
disturbs them less.

    .venv/bin/python benchmarks/bench_kernel_cli.py --mb 50 --repeat 5
    .venv/bin/python benchmarks/bench_kernel_cli.py --mb 50 --repeat 3 --scripts
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_contamination import SCRIPTS, bench_cli, bench_refs, eval_file, training_file  # noqa: E402

KERNEL = {"cli 1 process (kernel)": ["--workers", "1", "--filter", "kernel"]}
JS = "ref plain JS (Node)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--scripts",
        action="store_true",
        help="also the Hangul, Arabic and Devanagari corpora of the same size",
    )
    a = ap.parse_args()
    ev = eval_file()
    corpora = {"latin": training_file(a.mb)}
    if a.scripts:
        corpora.update({s: training_file(a.mb, s) for s in SCRIPTS})
    print(
        f"eval {ev.name}; corpora {', '.join(f'{k} {p.stat().st_size / 1e6:.0f} MB' for k, p in corpora.items())}; "
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    runs: dict = {k: [] for k in ["js", *corpora]}
    cpu: dict = {k: [] for k in ["js", *corpora]}
    cands: dict = {}
    same = True
    for r in range(a.repeat):
        js = bench_refs(ev, corpora["latin"], 1, names=(JS,))[JS]
        runs["js"].append(js["scan"])
        cpu["js"].append(js["scan_cpu"])
        for script, tr in corpora.items():
            got = bench_cli(ev, tr, 1, KERNEL)["cli 1 process (kernel)"]
            runs[script].append(got["scan"])
            cpu[script].append(got["scan_cpu"])
            cands[script] = (got.get("candidates"), got.get("records"))
            if script == "latin" and got["rows"] != js["rows"]:
                same = False
                print(f"  DIFFERENT contaminated rows: cli {got['rows']}, plain JS {js['rows']}")
        print(
            f"round {r + 1}: cli kernel / plain JS {runs['latin'][-1] / runs['js'][-1]:.2f}"
            + "".join(
                f"; {s} / latin {runs[s][-1] / runs['latin'][-1]:.2f}"
                for s in corpora
                if s != "latin"
            )
            + f" (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    med = statistics.median
    print(
        f"\nmedians of {a.repeat} rounds (MB/s of the training file; load average "
        f"{os.getloadavg()[0]:.1f} at the end):"
    )
    print(
        "| scanner | MB/s | CPU MB/s | ratio (median of the rounds' ratios) | records to Python |"
    )
    print("|---|---|---|---|---|")
    print(
        f"| plain-JS peer (Node), Latin | {med(runs['js']):.1f} | {med(cpu['js']):.1f} | 1.00 | |"
    )

    def to_py(s):
        c, n = cands[s]
        return f"{c:,} of {n:,}" if c is not None and n else ""

    ratio = med([c / j for c, j in zip(runs["latin"], runs["js"])])
    cratio = med([c / j for c, j in zip(cpu["latin"], cpu["js"])])
    print(
        f"| CLI kernel, 1 process, Latin | {med(runs['latin']):.1f} | {med(cpu['latin']):.1f} | "
        f"{ratio:.2f}x plain JS (CPU time {cratio:.2f}x; target >= 2.5) | {to_py('latin')} |"
    )
    for s in corpora:
        if s == "latin":
            continue
        rs = med([x / l for x, l in zip(runs[s], runs["latin"])])
        cs = med([x / l for x, l in zip(cpu[s], cpu["latin"])])
        print(
            f"| CLI kernel, 1 process, {s} | {med(runs[s]):.1f} | {med(cpu[s]):.1f} | "
            f"{rs:.2f}x Latin (CPU time {cs:.2f}x; target >= 0.5) | {to_py(s)} |"
        )
    print(f"contaminated eval rows: {'the same' if same else 'DIFFERENT'} in the CLI and the peer")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
