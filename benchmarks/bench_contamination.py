"""Contamination throughput: CLI engines, the page and two reference scanners, in one run.

Prints, for the same English JSONL training file (benchmarks/make_training.py, shaped like
a web-text pretraining corpus: records of 100-600 words of WikiText-2, Shakespeare and GSM8K-train text,
about 101,000 in 200 MB, a GSM8K test question planted every 5,000 records) scanned against
the GSM8K test questions (N = 13):

* raw   — the page's File.stream() read + sha256 + UTF-8 decode, no Python (the ceiling);
* page  — the page's training pass (read + prefilter.js in its own worker + Pyodide for the
          candidates), via the real worker;
* cli   — ``evalsieve contamination`` as a subprocess: one process with the numpy filter
          (``--workers 1``), the pure-Python path (``--filter off``), ``--workers 2``, and
          ``--engine ray`` on a local Ray with 2 CPUs, and two one-process runs started
          at once (the ceiling of two workers here); the training pass (the CLI's own
          timer, from the eval index to the merged scan, filter build and Ray start-up
          included) and the whole process (wall clock, Python start-up to exports written);
* refs  — a plain JavaScript rolling-hash scanner under Node (benchmarks/ref_scan.mjs) and
          a careful pure-Python scanner (benchmarks/ref_scan.py), run here on the same file;

each as MB/s of the file's bytes (medians of --repeat runs), the ratios the issue asks
for, and the peak resident memory of each process tree. For the CLI and the references it
also prints MB/s of CPU time (user + system) of the training pass or scan (the CLI's
``cpu_seconds_training_pass``, the references' own) and of the whole process tree (start-up
included), which other load on a shared machine disturbs much less than the wall clock, and
it checks that every scanner found the same contaminated eval rows (exit status 1 if not).
For the page, "wholeCPU" is MB per CPU second of every browser process during the raw read
and during the whole contamination run (/proc/PID/stat). ``--scaling 50,200,800`` instead
times the CLI (1 and 2 workers) on training files of those sizes (docs/SCALING.md).

    python3 build.py bench                      # all benchmarks
    .venv/bin/python benchmarks/bench_contamination.py --mb 200 --repeat 3
    .venv/bin/python benchmarks/bench_contamination.py --scaling 50,200,800 --skip-page
    .venv/bin/python benchmarks/bench_contamination.py --scripts --repeat 1
"""

from __future__ import annotations

import argparse
import contextlib
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
# ../shared/data beside the checkout (or beside the folder of worktrees it is in)
SHARED = (
    Path(
        os.environ.get("EVALSIEVE_SHARED")
        or next(
            (p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
            ROOT.parent / "shared",
        )
    )
    / "data"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

BENCH_DIR = Path(os.environ.get("EVALSIEVE_BENCH_DIR", ROOT / ".cache" / "bench"))


def training_file(mb: float, script: str = "latin") -> Path:
    import make_training

    tail = "" if script == "latin" else f"-{script}"  # make_training --script
    out = BENCH_DIR / f"corpus{int(mb)}{tail}.jsonl"  # make_training's issue-7-shaped corpus
    if not out.exists() or out.stat().st_size < mb * 1e6:
        out.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {out} ({mb:.0f} MB)...", flush=True)
        make_training.generate(str(out), mb, script=script)
    return out


SCRIPTS = ("hangul", "arabic", "devanagari")


def bench_scripts(ev: Path, mb: float, repeat: int, page: bool) -> int:
    """The CLI's kernel (1 process) and the page's training pass on the Latin corpus and on
    a Hangul, an Arabic and a Devanagari one of the same size (make_training --script):
    MB/s and the ratio to Latin, in the CLI's training-pass wall clock and CPU time."""
    rows = []
    latin = None
    for script in ("latin", *SCRIPTS):
        tr = training_file(mb, script)
        r = bench_cli(ev, tr, repeat, {"cli": ["--workers", "1", "--filter", "kernel"]})["cli"]
        if page:
            _, pg, _ = bench_page(ev, tr, repeat)
            r["page"] = statistics.median(pg)
        latin = latin or r
        rows.append((script, r))
    print(
        f"\n| corpus ({mb:.0f} MB) | CLI MB/s | × Latin | CLI CPU MB/s | × Latin | page MB/s "
        f"| × Latin |\n|---|---|---|---|---|---|---|"
    )
    for script, r in rows:
        pg = f"{r['page']:.1f} | {r['page'] / latin['page']:.2f}" if "page" in r else "not run | "
        print(
            f"| {script} | {r['scan']:.1f} | {r['scan'] / latin['scan']:.2f} | "
            f"{r['scan_cpu']:.1f} | {r['scan_cpu'] / latin['scan_cpu']:.2f} | {pg} |"
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


def eval_file() -> Path:
    p = SHARED / "gsm8k" / "test.jsonl"
    return p if p.exists() else ROOT / "tests" / "fixtures" / "gsm8k_test_sample.jsonl"


def tree_rss_mb(root: int) -> float:
    """Resident memory (MB) of a process and all its descendants, from /proc."""
    kids: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss[int(pid)] = int(line.split()[1])
            kids.setdefault(ppid, []).append(int(pid))
        except (OSError, ValueError, IndexError):
            continue
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total / 1024


def run_measured(cmd: list[str], env: dict | None = None) -> tuple[str, float, float]:
    """Run a command; returns (stdout, wall seconds, peak RSS MB of its process tree).
    The CPU seconds (user + system) of the process tree go to ``LAST_CPU[0]``."""
    outs, wall, peak = run_together([cmd], env)
    return outs[0], wall, peak


def run_together(cmds: list[list[str]], env: dict | None = None):
    """Start the commands at once and wait for all; returns (their stdouts, wall seconds
    until the last ended, peak RSS MB of their process trees together). The CPU seconds
    (user + system) of all the trees go to ``LAST_CPU[0]``."""
    import resource
    import subprocess

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    ps = [
        subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for c in cmds
    ]
    peak = 0.0
    while any(p.poll() is None for p in ps):
        peak = max(peak, sum(tree_rss_mb(p.pid) for p in ps))
        time.sleep(0.1)
    done = [p.communicate() for p in ps]
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU[0] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    for c, p, (_, err) in zip(cmds, ps, done):
        if p.returncode != 0:
            raise RuntimeError(f"{c[:4]} failed ({p.returncode}): {err[-2000:]}")
    return [out for out, _ in done], wall, peak


LAST_CPU = [0.0]


def report_rows(out_dir: str) -> list[int]:
    """The contaminated eval rows of a CLI run (contamination-report.csv)."""
    import csv

    with open(os.path.join(out_dir, "contamination-report.csv"), encoding="utf-8") as f:
        lines = [l for l in f if not l.startswith("#")]
    return sorted(
        int(r["eval_row"]) for r in csv.DictReader(lines) if r["status"] == "contaminated"
    )


CLI_CONFIGS = {
    "cli 1 process (kernel)": ["--workers", "1", "--filter", "kernel"],
    "cli 1 process (numpy filter)": ["--workers", "1", "--filter", "numpy"],
    "cli 1 process, pure Python": ["--workers", "1", "--filter", "off"],
    "cli --workers 2": ["--workers", "2"],
    "cli --engine ray (2 CPUs)": ["--engine", "ray", "--workers", "2"],
}
#: Two one-process runs (the kernel) started at once on the same file: what two workers can
#: reach on this machine when nothing is shared between them (MB/s of both files' bytes over
#: the longer training pass). One process already uses more than one core (its read-ahead
#: thread reads and hashes while the kernel scans), and two scans at once may each run
#: slower than one alone (shared caches, memory bandwidth, a VM's cores): this is the
#: ceiling `--workers 2` is held against, beside one process.
SIDE_BY_SIDE = "cli 2 x 1 process, side by side"
CLI_CONFIGS[SIDE_BY_SIDE] = ["--workers", "1", "--filter", "kernel"]


def bench_cli(ev: Path, tr: Path, repeat: int, configs: dict) -> dict:
    """Each CLI configuration as a subprocess: training-pass MB/s (the CLI's own timer),
    whole-process MB/s (wall clock), whole-process MB/s of CPU time (user + system of the
    process tree: robust to other load on the machine, blind to parallel speed-up), peak RSS
    of the process tree, and the contaminated eval rows (from the report). The
    configurations take turns (one run of each per round), so that other load on the
    machine falls on all of them alike; ``runs`` keeps each round's training-pass MB/s."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    size = tr.stat().st_size
    acc = {
        name: {"scan": [], "whole": [], "cpu": [], "scan_cpu": [], "peak": 0.0} for name in configs
    }
    rows_of: dict = {}
    for _ in range(repeat):
        for name, extra in configs.items():
            a = acc[name]
            copies = 2 if name == SIDE_BY_SIDE else 1
            with contextlib.ExitStack() as stack:
                dirs = [stack.enter_context(tempfile.TemporaryDirectory()) for _ in range(copies)]
                outs, wall, rss = run_together(
                    [
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
                            "--out",
                            d,
                            "--json",
                            "--quiet",
                            *extra,
                        ]
                        for d in dirs
                    ],
                    env,
                )
                found = [report_rows(d) for d in dirs]
                if any(r != found[0] for r in found):
                    raise RuntimeError(f"{name}: the copies found different rows: {found}")
                rows_of[name] = found[0]
            docs = [json.loads(o) for o in outs]
            s = docs[0]
            mb = copies * size / 1e6  # side by side: both files' bytes over the longer pass
            a["scan"].append(mb / max(x["seconds_training_pass"] for x in docs))
            a["scan_cpu"].append(mb / sum(x["cpu_seconds_training_pass"] for x in docs))
            a["whole"].append(mb / wall)
            a["cpu"].append(mb / LAST_CPU[0])
            a["peak"] = max(a["peak"], rss)
            a["candidates"] = s["training_engine"].get("candidate_lines")
            a["records"] = s["training_records"]
            print(
                f"  {name:32s} {a['scan'][-1]:6.1f} MB/s training pass, {a['whole'][-1]:6.1f} "
                f"MB/s whole process; of CPU time: {a['scan_cpu'][-1]:6.1f} training pass, "
                f"{a['cpu'][-1]:6.1f} whole process; peak RSS {rss:.0f} MB "
                f"({s['rows_contaminated']} contaminated, {s['training_records']} records, "
                f"{s['training_engine']}; load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    return {
        name: {
            "scan": statistics.median(a["scan"]),
            "whole": statistics.median(a["whole"]),
            "cpu": statistics.median(a["cpu"]),
            "scan_cpu": statistics.median(a["scan_cpu"]),
            "peak_rss_mb": round(a["peak"]),
            "rows": rows_of[name],
            "runs": a["scan"],
            "candidates": a.get("candidates"),
            "records": a.get("records"),
        }
        for name, a in acc.items()
    }


def bench_refs(ev: Path, tr: Path, repeat: int, names=None) -> dict:
    """The two reference scanners (or those of ``names``) on the same file: their own scan
    timers (wall), the whole process (wall and CPU, as for the CLI), and the contaminated
    eval rows they found."""
    refs = {
        "ref plain JS (Node)": [
            "node",
            str(ROOT / "benchmarks" / "ref_scan.mjs"),
            str(ev),
            "question",
            str(tr),
            "text",
            "13",
        ],
        "ref careful pure Python": [
            sys.executable,
            str(ROOT / "benchmarks" / "ref_scan.py"),
            str(ev),
            "question",
            str(tr),
            "text",
            "13",
        ],
    }
    out = {}
    for name, cmd in refs.items():
        if names is not None and name not in names:
            continue
        speeds, whole, cpu, scan_cpu, peak = [], [], [], [], 0.0
        for _ in range(repeat):
            stdout, wall, rss = run_measured(cmd)
            r = json.loads(stdout)
            speeds.append(r["bytes"] / 1e6 / r["seconds"])
            scan_cpu.append(r["bytes"] / 1e6 / r["cpu_seconds"])
            whole.append(r["bytes"] / 1e6 / wall)
            cpu.append(r["bytes"] / 1e6 / LAST_CPU[0])
            peak = max(peak, rss)
            print(
                f"  {name:32s} {speeds[-1]:6.1f} MB/s scan, {whole[-1]:6.1f} MB/s whole "
                f"process; of CPU time: {scan_cpu[-1]:6.1f} scan, {cpu[-1]:6.1f} whole "
                f"process; peak RSS {rss:.0f} MB "
                f"({len(r['contaminated'])} contaminated)",
                flush=True,
            )
        out[name] = {
            "scan": statistics.median(speeds),
            "whole": statistics.median(whole),
            "cpu": statistics.median(cpu),
            "scan_cpu": statistics.median(scan_cpu),
            "peak_rss_mb": round(peak),
            "rows": r["contaminated"],
        }
    return out


# A fresh worker per run, booted (Pyodide, wheels) by PAGE_BOOT before PAGE_JS runs the op on
# it, so that the browser CPU time measured around PAGE_JS is the op's alone.
PAGE_BOOT = """
async () => {
  const w = new Worker('worker/worker.js', {type: 'module'});
  window.__w = w;
  w.postMessage({type: 'init'});
  await new Promise((r) => { const h = (e) => { if (e.data.type === 'ready') { w.removeEventListener('message', h); r(); } }; w.addEventListener('message', h); });
}
"""
PAGE_JS = """
async ([op, args]) => {
  const files = {eval: document.querySelector('#bench-eval').files[0],
                 train: document.querySelector('#bench-train').files[0]};
  const w = window.__w;
  window.__pf = null;
  const done = new Promise((resolve) => {
    w.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'log' && m.data && m.data.kind === 'prefilter') window.__pf = m.data;
      if (m.type === 'result' || m.type === 'error' || m.type === 'fatal') resolve(m);
    };
  });
  const t = performance.now();
  w.postMessage({type: 'run', id: 1, op, args, files});
  const m = await done;
  const secs = (performance.now() - t) / 1000;
  w.terminate();
  return {m, secs, pf: window.__pf || null};
}
"""


def marked_pids(marker: bytes):
    """The ids of the running processes whose command line holds `marker` (the browser's
    profile folder), from /proc; a process that ends while it is read is left out."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker in f.read():
                    yield pid
        except OSError:
            continue


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
        for pid in marked_pids(self.marker):
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                continue  # the process ended meanwhile
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


def browser_cpu_s(marker: str) -> float:
    """CPU seconds (user + system) used so far by the browser's processes whose command line
    holds `marker` (its profile folder: the tab's renderer, its workers' threads, the GPU and
    utility processes), from /proc/PID/stat. A difference around a pass is that pass's CPU
    time on every core, whatever the machine's load."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in marked_pids(marker.encode()):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        except (OSError, IndexError, ValueError):
            continue
    return total / tick


def stages(size: int, **ms: float) -> str:
    """Per-stage ms as ms per MB of the training file, e.g. 'hash 2.1'."""
    return ", ".join(f"{k} {v / (size / 1e6):.1f}" for k, v in ms.items()) + " ms/MB"


@contextlib.contextmanager
def page_with_files(ev: Path, tr: Path):
    """The built page (dist/, served on 127.0.0.1) in headless Chromium, with ``ev`` and
    ``tr`` in two hidden file inputs (``#bench-eval``, ``#bench-train``) for PAGE_JS-style
    runs; yields ``(page, profile)``: the Playwright page and the browser's profile folder
    (its processes' marker: :func:`browser_cpu_s`). Server and browser are closed on exit."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    import build

    build.DistHandler.log_message = lambda *a, **k: None
    server = build.make_server(ROOT / "dist", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://%s:%d/index.html" % server.server_address[:2]
    chromium = os.environ.get("EVALSIEVE_CHROMIUM", "/usr/bin/chromium")
    try:
        with tempfile.TemporaryDirectory() as prof, sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                prof, executable_path=chromium, headless=True, args=FLAGS
            )
            page = ctx.new_page()
            page.goto(url)
            page.evaluate("""() => { for (const id of ['bench-eval', 'bench-train']) {
                const i = document.createElement('input'); i.type = 'file'; i.id = id;
                i.hidden = true; document.body.append(i); } }""")
            page.set_input_files("#bench-eval", str(ev))
            page.set_input_files("#bench-train", str(tr))
            try:
                yield page, prof
            finally:
                ctx.close()
    finally:
        server.shutdown()


def bench_page(ev: Path, tr: Path, repeat: int) -> tuple[list[float], list[float], dict]:
    raw, page_speed, whole, extra = [], [], [], {}
    raw_cpu, page_cpu = [], []
    with page_with_files(ev, tr) as (page, prof):
        size = tr.stat().st_size
        args = {
            "eval": {"format": "jsonl", "fields": ["question"]},
            "train": {"format": "jsonl", "fields": ["text"]},
            "n": None,
            "boilerplate": True,
            "threshold": None,
        }
        # one untimed read first: the first read in a fresh browser was the slowest (39-79
        # MB/s in 13 fresh browsers here, the next reads 78-86), and it would be the ceiling's
        page.evaluate(PAGE_BOOT)
        assert page.evaluate(PAGE_JS, ["bench.read", {"role": "train"}])["m"]["type"] == "result"
        # raw and page alternate, so both meet the same load (a shared machine's load drifts)
        for _ in range(repeat):
            page.evaluate(PAGE_BOOT)
            c0 = browser_cpu_s(prof)
            r = page.evaluate(PAGE_JS, ["bench.read", {"role": "train"}])
            raw_cpu.append(browser_cpu_s(prof) - c0)
            assert r["m"]["type"] == "result", r["m"]
            d = r["m"]["data"]
            raw.append(size / 1e6 / d["seconds"])
            print(
                f"  raw  {raw[-1]:6.1f} MB/s ({stages(size, read=d['seconds'] * 1000 - d['hash_ms'] - d['decode_ms'], hash=d['hash_ms'], decode=d['decode_ms'])}); "
                f"browser CPU {raw_cpu[-1] * 1000 / (size / 1e6):.1f} ms/MB",
                flush=True,
            )
            page.evaluate(PAGE_BOOT)
            c0 = browser_cpu_s(prof)
            with RssSampler(prof) as rss:
                r = page.evaluate(PAGE_JS, ["cont.run", args])
            page_cpu.append(browser_cpu_s(prof) - c0)
            assert r["m"]["type"] == "result", r["m"]
            d = r["m"]["data"]
            page_speed.append(d["timing"]["train_mbps"])
            whole.append(size / 1e6 / d["timing"]["seconds"])
            extra = {
                "contaminated": d["summary"]["rows_contaminated"],
                "prefilter": r["pf"],
                "browser_peak_rss_mb": round(rss.peak),
            }
            pf = r["pf"] or {}
            print(
                f"  page {page_speed[-1]:6.1f} MB/s training pass, {whole[-1]:6.1f} MB/s whole run "
                f"({extra['contaminated']} contaminated; {pf.get('candidates')} of "
                f"{pf.get('records')} records to Python; {pf.get('workers')} prefilter "
                f"worker(s); browser peak RSS {rss.peak:.0f} MB; page / raw of this pair "
                f"{page_speed[-1] / raw[-1]:.2f}); browser CPU {page_cpu[-1] * 1000 / (size / 1e6):.1f} "
                "ms/MB (the whole run: eval pass and exports too)",
                flush=True,
            )
            if pf:
                # the reading thread's stages, then the workers' scanning (on other cores)
                print(
                    "       reading thread: "
                    + stages(
                        size,
                        read=pf["read_ms"] - pf["hash_ms"] - pf["decode_ms"],
                        hash=pf["hash_ms"],
                        decode=pf["decode_ms"],
                        post=pf["post_ms"],
                        python=pf["python_ms"],
                        wait=pf["waiting_for_filter_ms"],
                    )
                    + "; workers: "
                    + stages(size, scan=pf["filter_ms"])
                    + f" (and {pf['inline_ms'] / (size / 1e6):.1f} on the "
                    "reading thread); "
                    + (
                        f"sha256 on the reading thread ({pf['hash_note']})"
                        if pf.get("hash_note")
                        else "hashing worker: " + stages(size, sha256=pf.get("hash_worker_ms", 0))
                    )
                    + "; chunks scanned by the WebAssembly kernel "
                    f"{pf.get('kernel_wasm', 0)}, by prefilter.js {pf.get('kernel_js', 0)}"
                    + (f" ({'; '.join(pf['kernel_notes'])})" if pf.get("kernel_notes") else ""),
                    flush=True,
                )
    extra["whole_run_mbps"] = statistics.median(whole)
    extra["page_over_raw_pairs"] = [round(p / r, 3) for p, r in zip(page_speed, raw)]
    extra["raw_cpu_mb_per_s"] = (
        statistics.median(size / 1e6 / c for c in raw_cpu if c > 0) if any(raw_cpu) else None
    )
    extra["page_cpu_mb_per_s"] = (
        statistics.median(size / 1e6 / c for c in page_cpu if c > 0) if any(page_cpu) else None
    )
    return raw, page_speed, extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-page", action="store_true")
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--skip-refs", action="store_true")
    ap.add_argument("--scaling", metavar="MBS", help="e.g. 50,200,800: CLI time vs size")
    ap.add_argument(
        "--scripts",
        action="store_true",
        help="the kernel on Latin, Hangul, Arabic and Devanagari corpora",
    )
    a = ap.parse_args()
    ev = eval_file()
    if a.scripts:
        return bench_scripts(ev, a.mb, a.repeat, not a.skip_page)
    if a.scaling:
        return scaling(ev, [float(x) for x in a.scaling.split(",")], a.repeat)
    tr = training_file(a.mb)
    print(
        f"training {tr.name}: {tr.stat().st_size / 1e6:.0f} MB; eval {ev.name}; "
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start"
    )
    res: dict = {}
    if not a.skip_page:
        raw, page, extra = bench_page(ev, tr, a.repeat)
        res["raw File.stream"] = {"scan": statistics.median(raw)}
        res["page training pass"] = {
            "scan": statistics.median(page),
            "peak_rss_mb": extra.get("browser_peak_rss_mb"),
        }
        # MB per browser CPU second (every process of the browser: all threads, all cores)
        if extra.get("raw_cpu_mb_per_s"):
            res["raw File.stream"]["cpu"] = extra["raw_cpu_mb_per_s"]
        if extra.get("page_cpu_mb_per_s"):
            res["page training pass"]["cpu"] = extra["page_cpu_mb_per_s"]
    if not a.skip_refs:
        res.update(bench_refs(ev, tr, a.repeat))
    if not a.skip_cli:
        configs = dict(CLI_CONFIGS)
        if a.skip_ray:
            configs.pop("cli --engine ray (2 CPUs)")
        res.update(bench_cli(ev, tr, a.repeat, configs))
    print(
        f"\nmedians of {a.repeat} (MB/s of the {tr.stat().st_size / 1e6:.0f} MB training file; "
        f"load average {os.getloadavg()[0]:.1f} at the end):"
    )
    print(
        f"  {'':34s} {'scan':>7s} {'whole':>7s} {'scanCPU':>7s} {'wholeCPU':>8s} "
        f"{'peak RSS MB':>12s}"
    )
    for k, v in res.items():
        whole = f"{v['whole']:7.1f}" if "whole" in v else " " * 7
        scpu = f"{v['scan_cpu']:7.1f}" if "scan_cpu" in v else " " * 7
        cpu = f"{v['cpu']:8.1f}" if "cpu" in v else " " * 8
        rss = v.get("peak_rss_mb")
        print(
            f"  {k:34s} {v['scan']:7.1f} {whole} {scpu} {cpu} {rss if rss is not None else '':>12}"
        )
    found = {k: v["rows"] for k, v in res.items() if "rows" in v}
    if found:
        same = len({tuple(r) for r in found.values()}) == 1
        first = next(iter(found.values()))
        print(
            f"contaminated eval rows: {'the same' if same else 'DIFFERENT'} in every "
            f"scanner ({len(first)} rows: {first[:12]}{' ...' if len(first) > 12 else ''})"
        )
        if not same:
            for k, r in found.items():
                print(f"  {k}: {r}")
    ratios = []

    def ratio(a_, b_, label, key="scan"):
        if a_ in res and b_ in res and key in res[a_] and key in res[b_]:
            ratios.append((label, res[a_][key] / res[b_][key]))

    one = "cli 1 process (kernel)"
    ratio(one, "ref plain JS (Node)", "cli 1 process / plain JS (target >= 2.5)")
    ratio(one, "ref plain JS (Node)", "  the same, CPU time (training pass / scan)", "scan_cpu")
    ratio(one, "ref plain JS (Node)", "  the same, CPU time of the whole processes", "cpu")
    ratio(one, "ref careful pure Python", "cli 1 process / careful pure Python")
    ratio(one, "ref careful pure Python", "  the same, CPU time (pass / scan) ", "scan_cpu")
    ratio(
        "cli 1 process, pure Python",
        "ref careful pure Python",
        "cli pure Python / careful pure Python",
    )
    ratio("cli --workers 2", one, "cli --workers 2 / 1 process (target >= 1.7)")
    ratio(SIDE_BY_SIDE, one, "  2 x 1 process side by side / 1 process (ceiling)")
    ratio("cli --workers 2", SIDE_BY_SIDE, "  --workers 2 / that ceiling")
    ratio("cli 1 process (numpy filter)", one, "cli numpy filter / kernel, 1 process")
    ratio("cli --engine ray (2 CPUs)", one, "cli ray 2 CPUs / 1 process")
    ratio(
        "cli --engine ray (2 CPUs)",
        "cli --workers 2",
        "cli ray 2 CPUs / --workers 2 (target >= 0.85)",
    )
    ratio("page training pass", "raw File.stream", "page / raw ceiling (target >= 0.9)")
    ratio(
        "page training pass",
        "raw File.stream",
        "  the same, browser CPU time (whole run / read)",
        "cpu",
    )
    ratio("page training pass", "ref plain JS (Node)", "page / plain JS")
    print("ratios (training-pass MB/s):")
    for label, r in ratios:
        print(f"  {label:48s} {r:5.2f}")
    two = "cli --workers 2"
    if one in res and two in res:  # the runs of each round, one after the other
        pairs = [b / a for a, b in zip(res[one]["runs"], res[two]["runs"])]
        print(
            f"  {'  the same, per round (runs side by side)':48s} "
            + ", ".join(f"{p:.2f}" for p in pairs)
        )
    print(json.dumps({"results": res, "ratios": dict(ratios)}, default=str))
    return 0 if not found or same else 1


def scaling(ev: Path, sizes: list[float], repeat: int) -> int:
    """CLI training-pass time vs corpus size, 1 and 2 workers (docs/SCALING.md)."""
    configs = {"1 worker": ["--workers", "1"], "2 workers": ["--workers", "2"]}
    rows = []
    for mb in sizes:
        tr = training_file(mb)
        print(f"{tr.name}: {tr.stat().st_size / 1e6:.0f} MB, load {os.getloadavg()[0]:.1f}")
        r = bench_cli(ev, tr, repeat, configs)
        for name, v in r.items():
            secs = tr.stat().st_size / 1e6 / v["scan"]
            rows.append((mb, name, secs, v["scan"], v["peak_rss_mb"]))
    print("\n| corpus MB | workers | training pass s | MB/s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for mb, name, secs, speed, rss in rows:
        print(f"| {mb:.0f} | {name} | {secs:.1f} | {speed:.1f} | {rss} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
