#!/usr/bin/env python3
"""Ray with its cluster already running against --workers 2, on the same 2 CPUs, in one run.

bench_contamination.py's Ray row lets the CLI start a local Ray each time (start-up inside
the training pass). Here one driver starts Ray once (``ray.init(num_cpus=2)``, as a running
cluster joined with ``--ray-address auto`` would be) and runs the CLI's training pass in
turns: ``--engine ray --workers 2`` and ``--workers 2``, rounds side by side; the first
round includes Ray's worker processes starting. Prints MB/s of the CLI's own training-pass
timer, the ratio per round, and the load average. Needs ray (pip install ray); without it
says so and exits 0.

    .venv/bin/python benchmarks/bench_ray_warm.py --mb 200 --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    a, _ = ap.parse_known_args()
    try:
        import ray
    except ImportError:
        print("skipped: ray is not installed (pip install ray)")
        return 0
    from bench_contamination import eval_file, training_file
    from evalsieve.cli import main as cli

    ev, tr = eval_file(), training_file(a.mb)
    size = tr.stat().st_size / 1e6
    t0 = time.time()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT / "py")}},
    )
    print(
        f"{tr.name}: {size:.0f} MB; ray.init {time.time() - t0:.1f} s; load average "
        f"{os.getloadavg()[0]:.1f}",
        flush=True,
    )

    def run(*extra) -> float:
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(out):
            code = cli(
                [
                    "contamination",
                    str(ev),
                    str(tr),
                    "--eval-field",
                    "question",
                    "--train-field",
                    "text",
                    "--out",
                    d,
                    "--json",
                    "--quiet",
                    *extra,
                ]
            )
        if code != 0:
            raise SystemExit(f"the CLI exited {code}")
        return size / json.loads(out.getvalue())["seconds_training_pass"]

    try:
        for rnd in range(a.repeat):
            on_ray = run("--engine", "ray", "--workers", "2")
            local = run("--workers", "2")
            print(
                f"round {rnd + 1}: ray (running, 2 CPUs) {on_ray:6.1f} MB/s, --workers 2 "
                f"{local:6.1f} MB/s: ray / --workers 2 = {on_ray / local:.2f} (target >= "
                f"0.85); load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
