"""Where one encoder batch spends its time: native onnxruntime vs onnxruntime-web (WASM), per op.

Runs the same ``encoder.onnx`` on the same batch (``--batch`` rows of ``--pieces`` word pieces,
synthetic ids framed by [CLS]/[SEP]; the cost of a batch depends only on its shape) with
session profiling on, in both runtimes:

* native: onnxruntime (CPython), ``SessionOptions.enable_profiling``;
* web: onnxruntime-web from ``dist/assets/ort`` (the page's ``ort.wasm.min.mjs`` and
  ``ort-wasm-simd-threaded.wasm``) under Node, ``enableProfiling: true`` (onnxruntime-web
  writes the profile's JSON to stdout at ``endProfiling``; its V8 is Node's, not Chromium's,
  so the page's own figure is benchmarks/bench_paraphrases_page.py's).

Both use graph optimisation level ``--opt`` (default all, as the page and the CLI),
``--threads`` intra-op threads and sequential execution.
For each op type it prints the sum over nodes of each node's *fastest* run of ``--runs``
(after one warm-up): on a shared machine a node is often descheduled mid-kernel, and the
minimum is the closest figure to its uncontended cost. It also prints each runtime's median
wall and CPU time per batch, the ratio native/web (= web speed as a fraction of native), and
whether the int8 weights were folded to float32 at session creation: the weight-only model
dequantises with ``Cast`` + ``Mul`` on constants; if constant folding ran, no ``Cast`` node
on a weight runs per batch and every weight ``MatMul`` is a float32 ``MatMul``.

Needs a built dist/ (python3 build.py build), node, onnxruntime and numpy; says what is
missing and exits 0 otherwise.

    .venv/bin/python benchmarks/profile_encoder_ops.py [--batch 32] [--pieces 16] [--threads 1] [--runs 5]
        [--opt all|extended|basic|disabled] [--model GRAPH.onnx]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [ortDir, model, threads, batch, pieces, runs, opt] = process.argv.slice(2);
const ort = await import(pathToFileURL(ortDir + "/ort.wasm.min.mjs").href);
ort.env.wasm.numThreads = +threads;
ort.env.wasm.wasmPaths = pathToFileURL(ortDir + "/").href;
const s = await ort.InferenceSession.create(readFileSync(model), {
  executionProviders: ["wasm"], graphOptimizationLevel: opt, enableProfiling: true });
const B = +batch, L = +pieces, ids = new BigInt64Array(B * L);
for (let i = 0; i < B * L; i++) ids[i] = BigInt(1000 + ((i * 7919) % 20000));
for (let b = 0; b < B; b++) { ids[b * L] = 101n; ids[b * L + L - 1] = 102n; }
const feeds = { input_ids: new ort.Tensor("int64", ids, [B, L]),
                attention_mask: new ort.Tensor("int64", new BigInt64Array(B * L).fill(1n), [B, L]) };
await s.run(feeds, ["sentence_embedding"]);
const wall = [], cpu = [];
for (let r = 0; r < +runs; r++) {
  const t = performance.now(), c = process.cpuUsage();
  await s.run(feeds, ["sentence_embedding"]);
  const d = process.cpuUsage(c);
  wall.push((performance.now() - t) / 1000); cpu.push((d.user + d.system) / 1e6);
}
process.stderr.write(JSON.stringify({ wall, cpu }) + "\n");
await s.endProfiling();  // onnxruntime-web prints the profile (a JSON array) to stdout
await s.release();
process.exit(0);
"""


def _events(text: str) -> list:
    """The trace-event array of an onnxruntime profile (file text or a log that contains it)."""
    start = text.index("[")
    return json.loads(text[start : text.rindex("]") + 1])


def per_op(events: list) -> tuple[dict, dict, int]:
    """({op: seconds}, {op: nodes per run}, timed runs) from a profile, warm-up run dropped.

    Each node counts with its fastest run (see the module docstring)."""
    runs = [e for e in events if e.get("name") == "model_run"][1:]
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    times, op = collections.defaultdict(list), {}
    for r in runs:
        lo, hi = r["ts"], r["ts"] + r["dur"]
        for e in nodes:
            if lo <= e["ts"] <= hi:
                times[e["name"]].append(e["dur"] / 1e6)
                op[e["name"]] = e["args"]["op_name"]
    secs, count = collections.Counter(), collections.Counter()
    for name, ds in times.items():
        secs[op[name]] += min(ds)
        count[op[name]] += 1
    return dict(secs), dict(count), len(runs)


def _weight_casts(model: Path) -> int:
    """Cast nodes of the graph whose input is an initializer (int8 weight dequantisation)."""
    import onnx

    g = onnx.load(str(model), load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    return sum(1 for n in g.node if n.op_type == "Cast" and n.input[0] in inits)


def count_casts_total(model: Path) -> int:
    """All Cast nodes of the graph."""
    import onnx

    return sum(
        1 for n in onnx.load(str(model), load_external_data=False).graph.node if n.op_type == "Cast"
    )


#: --opt -> onnxruntime's GraphOptimizationLevel member (onnxruntime-web takes the name itself).
OPT_LEVELS = {
    "disabled": "ORT_DISABLE_ALL",
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "all": "ORT_ENABLE_ALL",
}


def run_native(
    model: Path, threads: int, batch: int, pieces: int, runs: int, tmp: Path, opt: str = "all"
):
    import numpy as np
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    o.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPT_LEVELS[opt])
    o.enable_profiling = True
    o.profile_file_prefix = str(tmp / "native")
    s = ort.InferenceSession(str(model), o, providers=["CPUExecutionProvider"])
    ids = (
        (1000 + (np.arange(batch * pieces) * 7919) % 20000).reshape(batch, pieces).astype(np.int64)
    )
    ids[:, 0], ids[:, -1] = 101, 102
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    s.run(["sentence_embedding"], feeds)
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        s.run(["sentence_embedding"], feeds)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    events = _events(Path(s.end_profiling()).read_text(encoding="utf-8"))
    return events, wall, cpu, ort.__version__


def run_web(
    ort_dir: Path,
    model: Path,
    threads: int,
    batch: int,
    pieces: int,
    runs: int,
    tmp: Path,
    opt: str = "all",
):
    script = tmp / "profile_web.mjs"
    script.write_text(NODE_SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        [
            "node",
            str(script),
            str(ort_dir),
            str(model),
            str(threads),
            str(batch),
            str(pieces),
            str(runs),
            opt,
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"node: {proc.stderr[-2000:]}")
    timing = json.loads(proc.stderr.strip().splitlines()[-1])
    return _events(proc.stdout), timing["wall"], timing["cpu"]


CHROMIUM_SETUP_JS = """
async ([threads, batch, pieces, opt]) => {
  const ort = await import('/assets/ort/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = '/assets/ort/';
  const bytes = new Uint8Array(await (await fetch('/assets/model/encoder.onnx')).arrayBuffer());
  const s = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'], graphOptimizationLevel: opt, enableProfiling: true });
  const B = batch, L = pieces, ids = new BigInt64Array(B * L);
  for (let i = 0; i < B * L; i++) ids[i] = BigInt(1000 + ((i * 7919) % 20000));
  for (let b = 0; b < B; b++) { ids[b * L] = 101n; ids[b * L + L - 1] = 102n; }
  const feeds = { input_ids: new ort.Tensor('int64', ids, [B, L]),
                  attention_mask: new ort.Tensor('int64', new BigInt64Array(B * L).fill(1n), [B, L]) };
  await s.run(feeds, ['sentence_embedding']);  // warm-up
  window.__profile = { s, feeds };
}
"""
CHROMIUM_RUN_JS = """
async () => {
  const { s, feeds } = window.__profile;
  const t = performance.now();
  await s.run(feeds, ['sentence_embedding']);
  return (performance.now() - t) / 1000;
}
"""
CHROMIUM_END_JS = (
    "async () => { await window.__profile.s.endProfiling(); await window.__profile.s.release(); }"
)


def run_chromium(dist: Path, threads: int, batch: int, pieces: int, runs: int, opt: str = "all"):
    """The web side in Debian's Chromium (headless) instead of Node: dist/ served with the
    page's headers (build.py), onnxruntime-web on the page's main thread, the profile read
    from the console. Returns (events, wall seconds per run, CPU seconds per run of the
    browser's processes)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import threading

    import build
    from bench_paraphrases_page import CHROMIUM, FLAGS, tree_cpu_seconds
    from playwright.sync_api import sync_playwright

    build.DistHandler.log_message = lambda *a, **k: None
    server = build.make_server(dist, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    lines = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            try:
                page = browser.new_page(bypass_csp=True)
                page.on("console", lambda m: lines.append(m.text))
                page.goto(
                    f"http://{host}:{port}/assets/manifest.json"
                )  # same origin, isolated, no app
                page.evaluate(CHROMIUM_SETUP_JS, [threads, batch, pieces, opt])
                wall, cpu = [], []
                for _ in range(runs):
                    c0 = tree_cpu_seconds()
                    wall.append(page.evaluate(CHROMIUM_RUN_JS))
                    cpu.append(tree_cpu_seconds() - c0)
                page.evaluate(CHROMIUM_END_JS)
            finally:
                browser.close()
    finally:
        server.shutdown()
    return _events("\n".join(lines)), wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=32, help="rows per batch (default 32)")
    ap.add_argument(
        "--pieces", type=int, default=16, help="word pieces per row incl. [CLS]/[SEP] (default 16)"
    )
    ap.add_argument(
        "--threads", type=int, default=1, help="intra-op threads in both runtimes (default 1)"
    )
    ap.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up (default 5)")
    ap.add_argument(
        "--opt",
        choices=sorted(OPT_LEVELS),
        default="all",
        help="graph optimisation level in both runtimes (default all, as the page and CLI)",
    )
    ap.add_argument(
        "--chromium",
        action="store_true",
        help="run the web side in headless Chromium (dist/'s own model only) instead of Node",
    )
    ap.add_argument(
        "--model",
        type=Path,
        default=None,
        help="encoder graph (default dist/assets/model/encoder.onnx)",
    )
    args, _ = ap.parse_known_args(argv)

    dist = Path(os.environ.get("EVALSIEVE_DIST", ROOT / "dist"))
    if args.chromium and args.model:
        print("profile_encoder_ops: --chromium runs dist/'s own encoder.onnx; drop --model")
        return 2
    model = args.model or dist / "assets" / "model" / "encoder.onnx"
    ort_dir = dist / "assets" / "ort"
    if not model.is_file() or not (ort_dir / "ort.wasm.min.mjs").is_file():
        print(
            "profile_encoder_ops: skipped, no built dist/ with the model and onnxruntime-web "
            "(python3 build.py build)"
        )
        return 0
    if shutil.which("node") is None:
        print("profile_encoder_ops: skipped, node is not installed")
        return 0
    try:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        print(f"profile_encoder_ops: skipped, {exc}")
        return 0

    print(
        f"profile_encoder_ops: {model}, batch {args.batch} x {args.pieces} pieces, "
        f"{args.threads} thread(s), graph optimisation {args.opt}, {args.runs} runs; "
        f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)"
    )
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        n_ev, n_wall, n_cpu, version = run_native(
            model, args.threads, args.batch, args.pieces, args.runs, tmp, args.opt
        )
        if args.chromium:
            w_ev, w_wall, w_cpu = run_chromium(
                dist, args.threads, args.batch, args.pieces, args.runs, args.opt
            )
        else:
            w_ev, w_wall, w_cpu = run_web(
                ort_dir, model, args.threads, args.batch, args.pieces, args.runs, tmp, args.opt
            )
    n_ops, n_count, _ = per_op(n_ev)
    w_ops, w_count, _ = per_op(w_ev)
    n_tot, w_tot = sum(n_ops.values()), sum(w_ops.values())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    where = "Chromium (headless, main thread)" if args.chromium else f"Node {node}"
    print(f"native onnxruntime {version} vs onnxruntime-web ({where})")
    print(
        f"{'op':26} {'nodes':>5} {'native ms':>10} {'web ms':>10} {'web share':>9} {'native/web':>10}"
    )
    for op in sorted(set(n_ops) | set(w_ops), key=lambda k: -w_ops.get(k, 0.0)):
        n, w = n_ops.get(op, 0.0), w_ops.get(op, 0.0)
        ratio = f"{n / w:10.2f}" if n and w else f"{'-':>10}"
        print(
            f"{op:26} {w_count.get(op, n_count.get(op, 0)):>5} {n * 1e3:10.2f} {w * 1e3:10.2f} "
            f"{100 * w / w_tot:8.1f}% {ratio}"
        )
    print(
        f"{'sum of per-node minima':26} {'':>5} {n_tot * 1e3:10.2f} {w_tot * 1e3:10.2f} {'':>9} {n_tot / w_tot:10.2f}"
    )
    med = statistics.median
    print(
        f"median per batch: native wall {med(n_wall) * 1e3:.1f} ms, cpu {med(n_cpu) * 1e3:.1f} ms; "
        f"web wall {med(w_wall) * 1e3:.1f} ms, cpu {med(w_cpu) * 1e3:.1f} ms"
    )
    print(
        f"web speed / native speed: wall {med(n_wall) / med(w_wall):.2f}, cpu {med(n_cpu) / med(w_cpu):.2f}, "
        f"per-node minima {n_tot / w_tot:.2f}"
    )
    weight_casts, all_casts = _weight_casts(model), count_casts_total(model)
    for name, count in (("native", n_count), ("web", w_count)):
        casts = count.get("Cast", 0)
        folded = "yes" if weight_casts and casts <= all_casts - weight_casts else "NO"
        print(
            f"{name}: Cast nodes run per batch {casts} of the graph's {all_casts} "
            f"({weight_casts} dequantise int8 weights; folded at session creation: {folded}); "
            f"MatMul {count.get('MatMul', 0)}, FusedMatMul {count.get('FusedMatMul', 0)}, "
            f"MatMulInteger {count.get('MatMulInteger', 0)}"
        )
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
