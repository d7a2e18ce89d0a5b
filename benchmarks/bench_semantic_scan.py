#!/usr/bin/env python3
"""Marginal throughput of the semantic rung's window scan against the n-gram rung's (prints
figures; not a test).

GSM8K test (1,319 questions) against the first 20 MB and 200 MB of the benchmark corpus
(benchmarks/make_training.py, as bench_contamination.py builds it). For each size:

* n-gram rung: ``evalsieve contamination`` as a subprocess without ``--semantic`` (``--workers``
  1 unless given; the scan kernel's filter), its own ``seconds_training_pass``;
* semantic rung, embedding excluded: the CLI's second read of the corpus for the rung
  (``semantic_pass.semantic_pass``: the same reader, field extractor and ``SemanticScan.scan``,
  its window scan in the compiled kernel; with ``--workers`` > 1 in the n-gram pass's tasks,
  the shards merged), then ``SemanticScan.request()`` (the fitted spans), in this process;
  with ``--python`` the same with the window scan in Python (the oracle).

The embedding is bounded by k × probes whatever the corpus size, so the *marginal* rate,
Δbytes / Δseconds between the two sizes, is what grows with the corpus: printed for both rungs
and as their ratio, per round (every size once, both rungs) and as the median over rounds. On
a shared machine compare the ratio, not the absolute rates.

    .venv/bin/python benchmarks/bench_semantic_scan.py [--mb 20,200] [--repeat 3] [--workers 1]
        [--corpus FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from evalsieve import semantic_pass  # noqa: E402
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob  # noqa: E402
from evalsieve.semantic import SemanticConfig  # noqa: E402


def head_file(corpus: Path, mb: float, out_dir: Path) -> Path:
    """The corpus's first ``mb`` MB, cut at a line end."""
    out = out_dir / f"head{int(mb)}.jsonl"
    want = int(mb * 1e6)
    with open(corpus, "rb") as f, open(out, "wb") as g:
        data = f.read(want)
        g.write(data[: data.rfind(b"\n") + 1])
    return out


def ngram_seconds(ev: Path, tr: Path, out: Path, workers: int = 1) -> tuple[float, float]:
    """The CLI's ``seconds_training_pass`` and ``cpu_seconds_training_pass``."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalsieve.cli",
            "contamination",
            str(ev),
            str(tr),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--workers",
            str(workers),
            "--out",
            str(out),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr)
    s = json.loads(proc.stdout)
    return s["seconds_training_pass"], s["cpu_seconds_training_pass"]


def semantic_seconds(
    ev: Path, tr: Path, kernel: bool = True, workers: int = 1
) -> tuple[float, float, dict]:
    """The rung's scan of ``tr`` and its request, as the CLI runs them (embedding excluded;
    with ``workers`` > 1 in the n-gram pass's tasks, forked workers): wall and CPU seconds
    (of this process and its finished workers), and the rung's figures."""
    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",), semantic=SemanticConfig()),
        ev.name,
        "jsonl",
        tr.name,
        "jsonl",
    )
    with open(tr, encoding="utf-8") as f:
        job.set_background(f.read(1 << 20))
    job.feed_eval(ev.read_text(encoding="utf-8"))
    job.end_eval()
    files = [{"name": tr.name, "path": str(tr), "fmt": "jsonl", "fields": ["text"]}]
    files[0].update(gzip=False, size=tr.stat().st_size)
    run = None
    if workers > 1:
        from evalsieve.engines import run_local

        def run(payload, tasks, fn, on_result):
            run_local(payload, tasks, workers, on_result, lambda n: None, fn=fn)

    t0, c0 = time.perf_counter(), _cpu()
    semantic_pass.semantic_pass(
        job, files, lambda msg: None, kernel, time.perf_counter, workers, run
    )
    job.semantic.request()
    return time.perf_counter() - t0, _cpu() - c0, job.semantic.figures()


def _cpu() -> float:
    """CPU seconds of this process and its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", default="20,200")
    ap.add_argument(
        "--repeat", type=int, default=3, help="rounds of every size, the ratio's median printed"
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="both rungs in this many forked workers (the n-gram pass's tasks)",
    )
    ap.add_argument(
        "--python",
        action="store_true",
        help="also time the window scan in Python (the oracle; --filter off's path)",
    )
    ap.add_argument(
        "--corpus",
        default=None,
        help="a make_training.py corpus at least as large as the largest size "
        "(default: bench_contamination.py's, generated when missing)",
    )
    a = ap.parse_args()
    sizes = [float(x) for x in a.mb.split(",")]
    if a.corpus:
        corpus = Path(a.corpus)
    else:
        import bench_contamination

        corpus = bench_contamination.training_file(max(sizes))
    import bench_contamination

    ev = bench_contamination.eval_file()
    with open(ev, encoding="utf-8") as f:
        n_eval = sum(1 for line in f if line.strip())
    print(f"eval {ev} ({n_eval} rows; EVALSIEVE_SHARED names the shared folder); corpus {corpus}")
    tmp = Path(tempfile.mkdtemp(prefix="evalsieve-semscan-"))
    files = [head_file(corpus, mb, tmp) for mb in sizes]
    ratios = {"wall clock": [], "CPU time": []}
    for round_ in range(a.repeat):
        rows = []
        for mb, tr in zip(sizes, files):
            size = tr.stat().st_size
            t_ng, c_ng = ngram_seconds(ev, tr, tmp / f"out{int(mb)}", a.workers)
            t_sem, c_sem, fig = semantic_seconds(ev, tr, workers=a.workers)
            t_py = semantic_seconds(ev, tr, kernel=False)[0] if a.python else None
            rows.append((size, t_ng, t_sem, c_ng, c_sem, t_py))
            print(
                f"round {round_ + 1}, {size / 1e6:6.1f} MB: n-gram pass {t_ng:7.1f} s "
                f"({size / 1e6 / t_ng:6.1f} MB/s); semantic scan + spans {t_sem:7.1f} s "
                f"({size / 1e6 / t_sem:5.2f} MB/s; {fig['windows']:,} windows, "
                f"{fig['windows'] / t_sem:,.0f} windows/s, {fig['windows_embedded']:,} spans for "
                f"{fig['probes']:,} probes); CPU seconds: n-gram {c_ng:.1f}, semantic {c_sem:.1f}"
                + (f"; the scan in Python: {t_py:.1f} s" if t_py is not None else ""),
                flush=True,
            )
        if len(rows) < 2:
            continue
        lo, b = rows[0], rows[-1]
        mb = (b[0] - lo[0]) / 1e6
        for label, i, j in (("wall clock", 1, 2), ("CPU time", 3, 4)):
            ng = mb / max(b[i] - lo[i], 1e-9)
            sem = mb / max(b[j] - lo[j], 1e-9)
            ratios[label].append(sem / ng)
            print(
                f"  marginal by {label} ({mb:.0f} MB more): n-gram {ng:.1f} MB/s, semantic "
                f"{sem:.2f} MB/s (embedding excluded); semantic / n-gram = {sem / ng:.3f}"
            )
        if a.python:
            py = mb / max(b[5] - lo[5], 1e-9)
            print(f"  the window scan in Python (the oracle): {py:.2f} MB/s marginal")
    for label, rs in ratios.items():
        if rs:
            print(
                f"semantic / n-gram marginal by {label}, median of {len(rs)} round(s): "
                f"{statistics.median(rs):.3f} (each: {', '.join(f'{r:.3f}' for r in rs)})"
            )


if __name__ == "__main__":
    main()
