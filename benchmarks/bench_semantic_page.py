"""The semantic rung's window scan in the page against the CLI's, on the same file (prints
figures; not a test).

GSM8K test against the first ``--mb`` MB of the benchmark corpus (make_training.py, as
bench_contamination.py builds it). Both sides time the window scan alone (the
``SemanticScan.scan`` calls: the compiled kernel, or Python for ``--python``), the reading of
the records and the embedding left out, on one thread each:

* page: a fresh worker (booted untimed) runs the contamination job with the rung on; the
  scan's seconds come from the rung's log event (``cont.semantic_request``'s
  ``scan_seconds``), and the worker is stopped there, before the embedding;
* CLI: ``semantic_pass.semantic_pass`` in this process (the CLI's second read of the corpus).

Rounds take turns (page, CLI); medians of ``--repeat``, and page / CLI.

    .venv/bin/python benchmarks/bench_semantic_page.py --mb 20 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "py"))
from bench_contamination import PAGE_BOOT, eval_file, page_with_files, training_file  # noqa: E402
from bench_semantic_scan import head_file  # noqa: E402

RUN = """
async (args) => {
  const files = {eval: document.querySelector('#bench-eval').files[0],
                 train: document.querySelector('#bench-train').files[0]};
  const w = window.__w;
  const logs = [];
  const done = new Promise((resolve) => {
    w.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'log') logs.push(m.message || '');
      if (m.type === 'log' && m.data && m.data.kind === 'semantic') resolve({semantic: m.data});
      if (['result', 'error', 'fatal'].includes(m.type)) resolve({end: m});
    };
  });
  w.postMessage({type: 'run', id: 1, op: 'cont.run', args, files});
  const r = await done;
  w.terminate();
  return {...r, logs};
}
"""


def cli_scan_seconds(ev: Path, tr: Path, kernel: bool) -> float:
    """The window scan's seconds in the CLI's semantic pass over ``tr``."""
    import time

    from evalsieve import semantic_pass
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
    from evalsieve.semantic import SemanticConfig

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
    semantic_pass.semantic_pass(
        job, files, lambda msg: None, kernel=kernel, clock=time.perf_counter
    )
    return job.semantic.scan_seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", action="store_true", help="the CLI's scan in Python (the oracle)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalsieve-sempage-") as tmp:
        return run(a, head_file(training_file(max(a.mb, 200)), a.mb, Path(tmp)))


def run(a, tr: Path) -> int:
    """The rounds on ``tr`` (a head of the corpus), and the medians."""
    ev = eval_file()
    size = tr.stat().st_size
    args = {
        "eval": {"format": "jsonl", "fields": ["question"]},
        "train": {"format": "jsonl", "fields": ["text"]},
        "semantic": {},
    }
    page_s, cli_s = [], []
    print(f"{tr.name}: {size / 1e6:.1f} MB; eval {ev.name}; load {os.getloadavg()[0]:.1f}")
    with page_with_files(ev, tr) as (page, _):
        for k in range(a.repeat):
            page.evaluate(PAGE_BOOT)
            r = page.evaluate(RUN, args)
            if "semantic" not in r:
                raise SystemExit(f"the page's run ended before the rung: {r}")
            where = [x for x in r["logs"] if "window scan runs" in x]
            page_s.append(r["semantic"]["scan_seconds"])
            cli_s.append(cli_scan_seconds(ev, tr, kernel=not a.python))
            print(
                f"  {k + 1}: page {page_s[-1]:.2f} s ({size / 1e6 / page_s[-1]:.1f} MB/s), "
                f"CLI {cli_s[-1]:.2f} s ({size / 1e6 / cli_s[-1]:.1f} MB/s); page: "
                f"{where[0] if where else '?'}",
                flush=True,
            )
    p, c = statistics.median(page_s), statistics.median(cli_s)
    print(
        f"window scan, medians of {a.repeat}: page {p:.2f} s, CLI {c:.2f} s "
        f"({'Python' if a.python else 'kernel'}); page / CLI = {p / c:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
