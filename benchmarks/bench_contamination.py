"""Contamination throughput, page and CLI, on one generated training file, in one run.

Prints, for the same ≥200 MB English JSONL training file (benchmarks/make_training.py:
WikiText-2 sentences, ~1 KB records, a GSM8K test question planted every 5,000 records)
scanned against GSM8K test questions:

* raw   — the page's File.stream() read + sha256 + UTF-8 decode, no Python (the ceiling);
* page  — the page's training pass (read + prefilter.js in its own worker + Pyodide for the
          candidates), via the real worker; the whole run (eval pass, index, exports) too;
* cli   — ``evalsieve contamination`` under CPython, in this process (pure Python);

each as MB/s of the file's bytes (decoded text is the same size: the file is ASCII-heavy
UTF-8), medians of --repeat runs, and the ratios between them. Reference points measured
on this machine class (see the issue): a plain JS rolling-hash scanner ~71 MB/s, a careful
pure-Python scanner ~44 MB/s, lm-eval-harness janitor 2 MB/s (C++ 14), datatrove 0.5 MB/s.

    python3 build.py bench                      # all benchmarks
    .venv/bin/python benchmarks/bench_contamination.py --mb 200 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))
SHARED = Path(os.environ.get("EVALSIEVE_SHARED", ROOT.parent / "shared")) / "data"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

REFERENCE = {"plain JS rolling hash": 71, "careful pure Python": 44,
             "lm-eval janitor (Python)": 2, "lm-eval janitor (C++)": 14, "datatrove": 0.5}


def training_file(mb: float) -> Path:
    import make_training
    out = ROOT / ".cache" / "bench" / f"train{int(mb)}.jsonl"
    if not out.exists() or out.stat().st_size < mb * 1e6:
        out.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {out} ({mb:.0f} MB)...", flush=True)
        make_training.generate(str(out), mb)
    return out


def eval_file() -> Path:
    p = SHARED / "gsm8k" / "test.jsonl"
    return p if p.exists() else ROOT / "tests" / "fixtures" / "gsm8k_test_sample.jsonl"


def bench_cli(ev: Path, tr: Path, repeat: int) -> list[float]:
    """The CLI's training pass, MB/s of the file (its own timer: the pass alone)."""
    from evalsieve import cli
    speeds = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            args = cli.build_parser().parse_args(
                ["contamination", str(ev), str(tr), "--eval-field", "question",
                 "--train-field", "text", "--out", out, "--quiet"])
            summary, _ = cli.run_contamination(args, lambda m: None)
        speeds.append(tr.stat().st_size / 1e6 / summary["seconds_training_pass"])
        print(f"  cli  {speeds[-1]:6.1f} MB/s  ({summary['rows_contaminated']} contaminated, "
              f"{summary['training_records']} records)", flush=True)
    return speeds


PAGE_JS = """
async ([op, args]) => {
  const files = {eval: document.querySelector('#bench-eval').files[0],
                 train: document.querySelector('#bench-train').files[0]};
  const w = new Worker('worker/worker.js', {type: 'module'});
  const done = new Promise((resolve) => {
    w.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'log' && m.data && m.data.kind === 'prefilter') window.__pf = m.data;
      if (m.type === 'result' || m.type === 'error' || m.type === 'fatal') resolve(m);
    };
  });
  w.postMessage({type: 'init'});
  await new Promise((r) => { const h = (e) => { if (e.data.type === 'ready') { w.removeEventListener('message', h); r(); } }; w.addEventListener('message', h); });
  const t = performance.now();
  w.postMessage({type: 'run', id: 1, op, args, files});
  const m = await done;
  const secs = (performance.now() - t) / 1000;
  w.terminate();
  return {m, secs, pf: window.__pf || null};
}
"""


class RssSampler:
    """Peak resident memory (MB) of the browser's processes (all of them: the tab's renderer
    and its workers), sampled every 50 ms from /proc while a run goes on."""

    def __init__(self, marker: str):
        self.marker = marker.encode()
        self.peak = 0.0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _total(self) -> float:
        total = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if self.marker not in f.read():
                        continue
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                continue
        return total / 1024

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            time.sleep(0.05)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def bench_page(ev: Path, tr: Path, repeat: int) -> tuple[list[float], list[float], dict]:
    from playwright.sync_api import sync_playwright
    sys.path.insert(0, str(ROOT))
    import build
    build.DistHandler.log_message = lambda *a, **k: None
    server = build.make_server(ROOT / "dist", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://%s:%d/index.html" % server.server_address[:2]
    raw, page_speed, whole, extra = [], [], [], {}
    chromium = os.environ.get("EVALSIEVE_CHROMIUM", "/usr/bin/chromium")
    with tempfile.TemporaryDirectory() as prof, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(prof, executable_path=chromium, headless=True,
                                                    args=FLAGS)
        page = ctx.new_page()
        page.goto(url)
        page.evaluate("""() => { for (const id of ['bench-eval', 'bench-train']) {
            const i = document.createElement('input'); i.type = 'file'; i.id = id;
            i.hidden = true; document.body.append(i); } }""")
        page.set_input_files("#bench-eval", str(ev))
        page.set_input_files("#bench-train", str(tr))
        size = tr.stat().st_size
        for _ in range(repeat):
            r = page.evaluate(PAGE_JS, ["bench.read", {"role": "train"}])
            assert r["m"]["type"] == "result", r["m"]
            raw.append(size / 1e6 / r["m"]["data"]["seconds"])
            print(f"  raw  {raw[-1]:6.1f} MB/s", flush=True)
        args = {"eval": {"format": "jsonl", "fields": ["question"]},
                "train": {"format": "jsonl", "fields": ["text"]}, "n": None,
                "boilerplate": True, "threshold": None}
        for _ in range(repeat):
            with RssSampler(prof) as rss:
                r = page.evaluate(PAGE_JS, ["cont.run", args])
            assert r["m"]["type"] == "result", r["m"]
            d = r["m"]["data"]
            page_speed.append(d["timing"]["train_mbps"])
            whole.append(size / 1e6 / d["timing"]["seconds"])
            extra = {"contaminated": d["summary"]["rows_contaminated"], "prefilter": r["pf"],
                     "browser_peak_rss_mb": round(rss.peak)}
            print(f"  page {page_speed[-1]:6.1f} MB/s training pass, {whole[-1]:6.1f} MB/s whole run "
                  f"({extra['contaminated']} contaminated; "
                  f"prefilter {r['pf']}; browser peak RSS {rss.peak:.0f} MB)", flush=True)
        ctx.close()
    server.shutdown()
    extra["whole_run_mbps"] = statistics.median(whole)
    return raw, page_speed, extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-page", action="store_true")
    ap.add_argument("--skip-cli", action="store_true")
    a = ap.parse_args()
    tr, ev = training_file(a.mb), eval_file()
    print(f"training {tr.name}: {tr.stat().st_size / 1e6:.0f} MB; eval {ev.name}")
    res = {}
    if not a.skip_page:
        raw, page, extra = bench_page(ev, tr, a.repeat)
        res["raw File.stream"] = statistics.median(raw)
        res["page scan"] = statistics.median(page)
        res["page details"] = extra
    if not a.skip_cli:
        res["cli scan"] = statistics.median(bench_cli(ev, tr, a.repeat))
    print("\nmedians (MB/s of the training file):")
    for k, v in res.items():
        if isinstance(v, float):
            print(f"  {k:18s} {v:7.1f}")
    if "page scan" in res:
        print(f"  page / raw ceiling  {res['page scan'] / res['raw File.stream']:.2f}")
        for name, ref in REFERENCE.items():
            print(f"  page / {name:26s} {res['page scan'] / ref:5.2f}")
    if "cli scan" in res:
        for name, ref in REFERENCE.items():
            print(f"  cli  / {name:26s} {res['cli scan'] / ref:5.2f}")
    print(json.dumps({k: v for k, v in res.items()}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
