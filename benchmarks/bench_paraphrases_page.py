"""Encoder throughput in the page (onnxruntime-web in the worker) against native onnxruntime.

Row sets are bench_encoder_native.py's (real text from ../shared/data, chosen by word-piece
count): short (STS-B sentences, ~15 pieces) and long (GSM8K questions, ~80 pieces), and mixed
(the two interleaved, where length sorting matters most). For each: batch size 1 / 8 / 32,
length-sorted or not, onnxruntime-web with 1 thread and with navigator.hardwareConcurrency
threads (the serve command sends COOP/COEP, so the page is cross-origin isolated; numThreads
is read at onnxruntime-web's first init only, so each thread setting gets a fresh page and so
a fresh worker). Page cells time the worker op `embed` (tokenisation + batches, the same loop
the paraphrase job runs), measured inside the worker. Native cells time
NativeEncoder.encode on the same rows in the same run, right after the page cells of the same
thread count. Each cell is the median of --runs runs after one warm-up. Prints rows/s, then the
page/native ratio per thread count (median over cells, and sorted batch 32 per set; the
target is >= 0.6) and the sorted/unsorted and thread ratios. --batches, --sets, --threads and
--sorted-only cut the grid for a quicker run.

Needs a built dist/ (python3 build.py build), Debian's chromium, playwright, onnxruntime,
tokenizers, numpy and ../shared/data; it says what is missing and exits 0 otherwise. The load
average is printed: on a shared 2-core machine other work skews the figures.

    python benchmarks/bench_paraphrases_page.py [--rows 32] [--runs 3] [--batches 1,8,32]
        [--sets short,long,mixed] [--threads 1,2] [--sorted-only]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

CHROMIUM = Path(os.environ.get("EVALSIEVE_CHROMIUM", "/usr/bin/chromium"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
]
BATCHES = (1, 8, 32)
SORTS = (True, False)


def serve(dist: Path):
    import build  # the repository's build.py: the same COOP/COEP/CSP headers as `serve`

    build.DistHandler.log_message = lambda *a, **k: None
    server = build.make_server(dist, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/index.html"


def tree_cpu_seconds(root: int | None = None) -> float:
    """User + system CPU seconds of every live process below ``root`` (default: this one), read
    from /proc (Linux): the browser that Playwright starts (its renderer runs the worker and
    onnxruntime-web's threads), not this process itself. 0.0 where /proc is missing."""
    root = os.getpid() if root is None else root
    children, ticks = {}, {}
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(pid)  # fields[1] = ppid
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
    total, todo = 0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo += children.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def page_cells(browser, url, sets, threads, runs):
    """rows/s per (set, batch, sort) in one fresh page whose encoder runs `threads` threads:
    {key: (rows/s, [seconds per run], rows per CPU-second of the browser's processes)}."""
    page = browser.new_page()
    try:
        page.goto(url)
        page.wait_for_function(
            "() => window.evalsieve && window.evalsieve.client.ready", timeout=180_000
        )
        # Let the contamination example (runs at load) finish so it does not share the CPU.
        page.wait_for_function(
            "() => Number(document.querySelector('#status').dataset.runs || 0) >= 1",
            timeout=180_000,
        )
        embed = (
            "([texts, batch, sort, threads]) => window.evalsieve.client.request('bench.embed', "
            "{texts, batch_size: batch, sort, threads}).promise"
        )
        info = page.evaluate(embed, [["warm up"], 1, True, threads])
        got = {}
        for batch in BATCHES:
            for name, texts in sets.items():
                for sort in SORTS:
                    page.evaluate(embed, [texts[:8], batch, sort, threads])  # warm-up
                    secs, cpu = [], []
                    for _ in range(runs):
                        c0 = tree_cpu_seconds()
                        secs.append(page.evaluate(embed, [texts, batch, sort, threads])["seconds"])
                        cpu.append(tree_cpu_seconds() - c0)
                    got[(name, batch, sort)] = (
                        len(texts) / statistics.median(secs),
                        secs,
                        len(texts) / max(statistics.median(cpu), 1e-9),
                    )
                    rate, _, cpu_rate = got[(name, batch, sort)]
                    print(
                        f"page   {name:6} thr {info['threads']} batch {batch:>2} sorted {str(sort):5} "
                        f"{rate:7.1f} rows/s {cpu_rate:7.1f} rows/cpu-s   runs "
                        + " ".join(f"{s:.2f}" for s in secs),
                        flush=True,
                    )
        return info, got
    finally:
        page.close()


def native_cells(paths, sets, threads, runs):
    """({key: rows/s}, {key: rows per CPU-second of this process}) of NativeEncoder.encode."""
    from evalsieve.native_encoder import NativeEncoder

    got, got_cpu = {}, {}
    for batch in BATCHES:
        enc = NativeEncoder(*paths, batch_size=batch, threads=threads)
        for name, texts in sets.items():
            for sort in SORTS:
                enc.encode(texts[:8], sort=sort)
                secs, cpu = [], []
                for _ in range(runs):
                    t0, c0 = time.perf_counter(), time.process_time()
                    enc.encode(texts, sort=sort)
                    secs.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                got[(name, batch, sort)] = len(texts) / statistics.median(secs)
                got_cpu[(name, batch, sort)] = len(texts) / max(statistics.median(cpu), 1e-9)
                print(
                    f"native {name:6} thr {threads} batch {batch:>2} sorted {str(sort):5} "
                    f"{got[(name, batch, sort)]:7.1f} rows/s {got_cpu[(name, batch, sort)]:7.1f} rows/cpu-s   runs "
                    + " ".join(f"{s:.2f}" for s in secs),
                    flush=True,
                )
    return got, got_cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=32, help="rows per set (default 32)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per cell (median)")
    ap.add_argument(
        "--batches", default="1,8,32", help="batch sizes, comma-separated (default 1,8,32)"
    )
    ap.add_argument(
        "--sets", default="short,long,mixed", help="row sets (default short,long,mixed)"
    )
    ap.add_argument(
        "--threads",
        default=None,
        help="thread counts, comma-separated (default: 1 and the core count)",
    )
    ap.add_argument(
        "--sorted-only", action="store_true", help="length-sorted batches only (what the jobs run)"
    )
    args, _ = ap.parse_known_args(argv)
    global BATCHES, SORTS
    BATCHES = tuple(int(b) for b in args.batches.split(","))
    SORTS = (True,) if args.sorted_only else (True, False)

    dist = Path(os.environ.get("EVALSIEVE_DIST", ROOT / "dist"))
    model = dist / "assets" / "model"
    if not (dist / "index.html").is_file() or not (model / "encoder.onnx").is_file():
        print(
            "bench_paraphrases_page: skipped, no built dist/ with the model (python3 build.py build)"
        )
        return 0
    if not CHROMIUM.exists():
        print(f"bench_paraphrases_page: skipped, {CHROMIUM} is missing")
        return 0
    try:
        from playwright.sync_api import sync_playwright
        from bench_encoder_native import pick_rows
        from evalsieve.native_encoder import NativeEncoder
        import onnxruntime
    except ImportError as exc:
        print(f"bench_paraphrases_page: skipped, {exc}")
        return 0
    data = Path(os.environ.get("EVALSIEVE_SHARED_DATA", ROOT.parent / "shared" / "data"))
    if not (data / "gsm8k" / "test.jsonl").is_file():
        print(f"bench_paraphrases_page: skipped, no shared data at {data}")
        return 0

    paths = (model / "encoder.onnx", model / "tokenizer.json")
    sets = pick_rows(NativeEncoder(*paths), data, args.rows)
    sets = {k: v for k, v in sets.items() if k in args.sets.split(",")}
    for name, texts in sets.items():
        lens = [len(i) for i in NativeEncoder(*paths).tokenize(texts).ids]
        print(
            f"  set {name}: {len(texts)} rows, pieces mean {statistics.mean(lens):.1f} "
            f"min {min(lens)} max {max(lens)}"
        )
    cores = os.cpu_count() or 1
    print(
        f"bench_paraphrases_page: onnxruntime {onnxruntime.__version__} (native), "
        f"{cores} cores, load average before {os.getloadavg()[0]:.2f}"
    )

    server, url = serve(dist)
    page, native, page_cpu, native_cpu = {}, {}, {}, {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            try:
                for threads in (
                    tuple(int(t) for t in args.threads.split(",")) if args.threads else (1, cores)
                ):
                    info, got = page_cells(browser, url, sets, threads, args.runs)
                    if not info["isolated"]:
                        print(
                            "  (the page is not cross-origin isolated: onnxruntime-web ran 1 thread)"
                        )
                    page[info["threads"]] = {k: v[0] for k, v in got.items()}
                    page_cpu[info["threads"]] = {k: v[2] for k, v in got.items()}
                    # Native right after the page cells of the same thread count (the page is
                    # closed, so idle): a load change on the shared machine hits both alike.
                    native[info["threads"]], native_cpu[info["threads"]] = native_cells(
                        paths, sets, info["threads"], args.runs
                    )
            finally:
                browser.close()
    finally:
        server.shutdown()

    print(f"\nmedians, rows/s (load average now {os.getloadavg()[0]:.2f}):")
    print(
        f"{'set':6} {'thr':>3} {'batch':>5} {'sorted':>6} {'page':>8} {'native':>8} {'page/native':>11}"
        f" {'per CPU-s':>9}"
    )
    for threads in sorted(page):
        for name in sets:
            for batch in BATCHES:
                for sort in SORTS:
                    k = (name, batch, sort)
                    p, n = page[threads][k], native[threads][k]
                    print(
                        f"{name:6} {threads:>3} {batch:>5} {str(sort):>6} {p:8.1f} {n:8.1f} {p / n:11.2f}"
                        f" {page_cpu[threads][k] / native_cpu[threads][k]:9.2f}"
                    )
    print(
        "page/native, same rows, same threads, this run (target >= 0.6); 'per CPU-s' divides "
        "rows per CPU-second (browser processes vs this process), which other load disturbs less:"
    )
    top = max(BATCHES)
    for threads in sorted(page):
        cells = [page[threads][k] / native[threads][k] for k in page[threads]]
        cpu_cells = [page_cpu[threads][k] / native_cpu[threads][k] for k in page[threads]]
        print(
            f"  {threads} thread(s): median over {len(cells)} cells {statistics.median(cells):.2f} "
            f"(min {min(cells):.2f}, max {max(cells):.2f}), per CPU-s {statistics.median(cpu_cells):.2f}; "
            f"sorted batch {top}: "
            + ", ".join(
                f"{name} {page[threads][(name, top, True)] / native[threads][(name, top, True)]:.2f}"
                for name in sets
            )
        )
    print("ratios:")
    for threads in sorted(page):
        for name in sets:
            for batch in [b for b in (8, 32) if b in BATCHES and False in SORTS]:
                r = page[threads][(name, batch, True)] / page[threads][(name, batch, False)]
                print(f"  page {name:6} thr {threads} batch {batch:>2}: sorted/unsorted {r:.2f}")
    if len(page) > 1 and 1 in page:
        hi = max(page)
        for name in sets:
            for batch in BATCHES:
                r = page[hi][(name, batch, True)] / page[1][(name, batch, True)]
                print(f"  page {name:6} batch {batch:>2} sorted: {hi} threads / 1 thread {r:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
