"""Where the CLI's training pass spends its wall time: a timeline of each run.

Runs ``evalsieve contamination`` in a fresh process per run (the CLI's code path, through
``cli.main``; 1 and 2 workers alternated, so that both see the same load) with
timestamps wrapped around each stage of the pass: the payload (numpy import and filter
build), planning the tasks, the pool start (fork until each worker process ran), each
task in each worker (start and end, and the worker's CPU seconds for it), each merge in the
driver, the pool shutdown, the hasher thread and the job's finish. All times are seconds
from the pass's start (the CLI's own ``seconds_training_pass`` timer starts there, within
a few microseconds), on CLOCK_MONOTONIC, which every process shares.

    .venv/bin/python benchmarks/trace_pass.py --mb 200 --workers 1,2 --repeat 3

To compare two versions of the code, run the script of each checkout alternately (it times
the ``evalsieve`` next to it); each run also records the CPU other processes used
meanwhile (from /proc/stat), and the medians are printed over all runs and over the quiet
ones (``--quiet-below``).

It also prints each worker's busy time (sum of its tasks) against the pass's wall time:
``parallel efficiency = sum of busy time / (workers x wall)``, and a CPU-time critical
path: the pass's wall time modelled from CPU seconds alone, as if each process had a free
core (the driver's serial CPU + the busiest worker's CPU + half of the hasher thread's CPU
spent while the tasks ran). Other load on a shared machine disturbs that much less than
the wall clock; its ratio between 1 and 2 workers is the speed-up the code allows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))

EVENTS: list[tuple] = []  # (what, start, end, detail) in the driver
T0 = [0.0]


def _now() -> float:
    return time.perf_counter()


def install() -> None:
    """Wrap the stages of the pass with timestamps (before the pool forks, so the workers
    inherit the wrapped functions)."""
    from evalsieve import contamination_job as contamination, corpus, drivers, engines

    def timed(mod, name, label, first=False):
        fn = getattr(mod, name)

        def wrapper(*a, **k):  # in the main thread: its CPU time too
            s, c = _now(), time.thread_time()
            if first and not T0[0]:  # the pass starts with the first of them
                T0[0] = s
            try:
                return fn(*a, **k)
            finally:
                EVENTS.append((label, s, _now(), time.thread_time() - c))

        setattr(mod, name, wrapper)

    timed(corpus, "make_payload", "payload (filter build)", first=True)
    timed(drivers, "plan_tasks", "plan tasks (line cuts)", first=True)
    timed(contamination.ContaminationJob, "finish", "job.finish")
    hash_file = engines.hash_file

    def traced_hash(*a, **k):  # in the hasher thread: its own CPU time too
        s, c = _now(), time.thread_time()
        try:
            return hash_file(*a, **k)
        finally:
            EVENTS.append(
                ("hasher thread: sha256 of split file", s, _now(), time.thread_time() - c)
            )

    engines.hash_file = traced_hash

    scan = engines.scan_task

    def traced_scan(payload, task, progress=None):
        import gc
        import resource

        c = os.times()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        g0 = gc.get_stats()[2]["collections"]
        s = _now()
        res = scan(payload, task, progress)
        e = _now()
        c2 = os.times()
        f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        g1 = gc.get_stats()[2]["collections"]
        res["_trace"] = {
            "pid": os.getpid(),
            "start": s,
            "end": e,
            "part": task.part,
            "file": task.file,
            "mb": task.nbytes / 1e6,
            "cpu": (c2.user - c.user) + (c2.system - c.system),
            "faults": f1 - f0,
            "gc2": g1 - g0,
            "init": INIT.get("t"),
        }
        return res

    engines.scan_task = traced_scan

    loop = engines._worker_loop

    def traced_loop(*a, **k):  # a worker process starts
        INIT["t"] = _now()
        loop(*a, **k)

    engines._worker_loop = traced_loop

    add = engines.Merger.add

    def traced_add(self, res):
        tr = res.pop("_trace", None)
        s = _now()
        add(self, res)
        EVENTS.append(("merge", s, _now(), ""))
        if tr:
            TASKS.append(tr)
        RECV.append(s)

    engines.Merger.add = traced_add

    run_local = engines.run_local

    def traced_run_local(*a, **k):
        s, c, p = _now(), time.thread_time(), time.process_time()
        try:
            return run_local(*a, **k)
        finally:
            e, c2, p2 = _now(), time.thread_time(), time.process_time()
            EVENTS.append(("run_local (pool start .. pool joined), main thread", s, e, c2 - c))
            EVENTS.append(
                (
                    "  the driver's other threads meanwhile (pool handlers, hasher)",
                    s,
                    e,
                    (p2 - p) - (c2 - c),
                )
            )

    engines.run_local = traced_run_local  # drivers imports it inside contamination_run


INIT: dict = {}
TASKS: list[dict] = []
RECV: list[float] = []


def one_run(ev: Path, tr: Path, workers: int) -> dict:
    """One CLI run in this (fresh) process; returns its timeline."""
    from evalsieve import cli

    with tempfile.TemporaryDirectory() as d:
        argv = [
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
            "--workers",
            str(workers),
        ]
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = cli.main(argv)
        assert rc == 0, rc
        summary = json.loads(buf.getvalue())
    t0 = T0[0]
    return {
        "summary": {
            k: summary[k]
            for k in ("seconds_training_pass", "cpu_seconds_training_pass", "training_engine")
        },
        "events": [(label, s - t0, e - t0, d) for label, s, e, d in EVENTS],
        "tasks": [
            dict(
                t,
                start=t["start"] - t0,
                end=t["end"] - t0,
                init=t["init"] - t0 if t["init"] else None,
            )
            for t in TASKS
        ],
        "load": os.getloadavg()[0],
    }


def show(workers: int, run: dict) -> dict:
    """Print one run's timeline; returns its figures."""
    summary, tasks = run["summary"], run["tasks"]
    wall = summary["seconds_training_pass"]
    print(
        f"\n--workers {workers}: training pass {wall:.3f} s "
        f"(CPU {summary['cpu_seconds_training_pass']:.3f} s), "
        f"{summary['training_engine']['tasks']} tasks; load {run['load']:.1f}"
    )
    hasher = [(s, e, d) for label, s, e, d in run["events"] if label.startswith("hasher")]
    for label, s, e, d in run["events"]:
        if label != "merge":
            cpu_note = f" (CPU {d:.3f} s)" if d != "" else ""
            print(f"  {s:7.3f} .. {e:7.3f}  {e - s:6.3f} s  {label}{cpu_note}")
    merges = [e - s for label, s, e, _ in run["events"] if label == "merge"]
    print(f"  merges: {len(merges)}, {sum(merges):.4f} s in all")
    first = min(t["start"] for t in tasks)
    busy: dict[int, float] = {}
    cpu: dict[int, float] = {}
    for t in sorted(tasks, key=lambda t: t["start"]):
        busy[t["pid"]] = busy.get(t["pid"], 0) + t["end"] - t["start"]
        cpu[t["pid"]] = cpu.get(t["pid"], 0) + t["cpu"]
        init = f" (worker init at {t['init']:.3f})" if t["init"] is not None else ""
        print(
            f"  pid {t['pid']}: task {t['file']}.{t['part']:<3d} {t['mb']:6.1f} MB "
            f"{t['start']:7.3f} .. {t['end']:7.3f} ({t['end'] - t['start']:.3f} s, "
            f"CPU {t['cpu']:.3f}, {t['faults']} page faults, {t['gc2']} full gc){init}"
        )
    last_end = max(t["end"] for t in tasks)
    ends = {p: max(t["end"] for t in tasks if t["pid"] == p) for p in busy}
    tail = last_end - min(ends.values()) if len(ends) > 1 else 0.0
    eff = sum(busy.values()) / (workers * wall)
    # a model of the pass with a free core for each process: the driver's serial CPU (pass
    # CPU minus the tasks' and the hasher thread's) plus the busiest worker's CPU, plus
    # half the hasher's CPU spent while the tasks ran (it then shares the cores)
    task_cpu = sum(cpu.values())
    hash_cpu = sum(d for _, _, d in hasher)
    hash_late = sum(d * max(0.0, e - max(s, first)) / max(e - s, 1e-9) for s, e, d in hasher)
    ideal = (
        summary["cpu_seconds_training_pass"]
        - task_cpu
        - hash_cpu
        + max(cpu.values())
        + hash_late / 2
    )
    print(
        f"  first task starts at {first:.3f} s; last task ends at {last_end:.3f} s; "
        f"tail (a worker idle) {tail:.3f} s; after the last task: {wall - last_end:.3f} s"
    )
    print(
        "  busy per worker: "
        + ", ".join(f"{b:.3f} s (CPU {cpu[p]:.3f})" for p, b in busy.items())
        + f"; parallel efficiency {eff:.2f}; CPU-time critical path {ideal:.3f} s "
        f"(hasher CPU {hash_cpu:.3f} s, {hash_late:.3f} s of it while tasks ran)"
    )
    return {
        "wall": wall,
        "cpu": summary["cpu_seconds_training_pass"],
        "first": first,
        "tail": tail,
        "after": wall - last_end,
        "eff": eff,
        "busy": sum(busy.values()),
        "task_cpu": task_cpu,
        "cpu_path": ideal,
    }


def busy_seconds() -> float:
    """CPU seconds all processes of the machine have used (user + system + ..., /proc/stat,
    all but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--workers", default="1,2", help="e.g. 1,2: alternated per repeat")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--quiet-below",
        type=float,
        default=0.3,
        metavar="CORES",
        help="medians also over the runs during which other processes used "
        "fewer cores than this (default 0.3)",
    )
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    import bench_contamination as bench

    ev, tr = bench.eval_file(), bench.training_file(a.mb)
    if a.child is not None:  # one run in a fresh process, as the CLI runs
        install()
        print(json.dumps(one_run(ev, tr, a.child)))
        return 0
    import resource
    import subprocess

    ws = [int(x) for x in a.workers.split(",")]
    runs: dict[int, list[dict]] = {w: [] for w in ws}
    for k in range(a.repeat):
        for w in ws if k % 2 == 0 else ws[::-1]:  # alternated, so all see the same load
            b0, t0 = busy_seconds(), time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run(
                [sys.executable, __file__, "--mb", str(a.mb), "--child", str(w)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            mine = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            m = show(w, json.loads(out.strip().splitlines()[-1]))
            # the CPU other processes used meanwhile, in cores
            m["others"] = max(0.0, (busy_seconds() - b0 - mine) / (time.perf_counter() - t0))
            print(f"  other processes used {m['others']:.2f} cores meanwhile")
            runs[w].append(m)
    for label, keep in (
        ("all runs", lambda r: True),
        (f"runs with others under {a.quiet_below} cores", lambda r: r["others"] < a.quiet_below),
    ):
        sel = {w: [r for r in rs if keep(r)] for w, rs in runs.items()}
        if not all(sel.values()):
            print(f"\n{label}: none for some --workers")
            continue
        print(f"\nmedians, {label}:")
        for w, rs in sel.items():
            med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
            print(
                f"  --workers {w} ({len(rs)} runs): "
                + ", ".join(f"{k} {v:.3f}" for k, v in med.items())
            )
        if len(ws) > 1 and 1 in sel:
            for key in ("wall", "cpu_path"):
                one = statistics.median(r[key] for r in sel[1])
                for w in ws:
                    if w != 1:
                        m2 = statistics.median(r[key] for r in sel[w])
                        print(f"  {key} ratio workers 1 / {w}: {one / m2:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
