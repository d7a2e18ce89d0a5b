#!/usr/bin/env python3
"""The scan kernel in CPython, two ways, against numpy's filter, on the same corpus.

kernels/prefilter.c is the one compiled scan. It can reach CPython as the page's own
kernels/prefilter.wasm under wasmtime (evalsieve.kernel, what the CLI runs: wheels on PyPI,
no compiler on the user's machine), or as a native build of the same source loaded with
ctypes (``--native``: clang -O3 here, SSE2 for the 16-byte scans; shipping it would need a
compiler per platform at wheel-build time). This measures the candidate filter alone, in CPU
time (user + system of this process: robust to other load), per MB of the training file:
each way and numpy's LineFilter (the fallback) on the same blocks (corpus.CHUNK_BYTES, cut
at line ends; LineFilter on corpus.FILTER_BYTES pieces, as the CLI runs it), alternating
round by round, and it checks that both kernels give the same candidates.

    .venv/bin/python benchmarks/bench_kernel_cpython.py --mb 50 --repeat 5 --native
    .venv/bin/python benchmarks/bench_kernel_cpython.py --mb 50 --native --script arabic
"""

from __future__ import annotations

import argparse
import ctypes
import json
import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))


class NativeMemory:
    """kernels/prefilter.c built natively (a shared library), with a fixed buffer as its
    memory: the same calls as evalsieve.kernel.WasmMemory."""

    def __init__(self, lib_path: str, size: int = 1 << 30):
        self.lib = ctypes.CDLL(lib_path)
        for name in ("pf_configure", "pf_add_ngrams", "pf_exact", "pf_scan"):
            getattr(self.lib, name).restype = ctypes.c_int
        self.buf = mmap.mmap(-1, size)  # pages are committed when touched
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.buf))
        self.lib.pf_base(ctypes.c_void_p(self.base))
        self.cap = size

    def size(self) -> int:
        return 64

    def grow(self, end: int) -> None:
        if end > self.cap:
            raise MemoryError("the native kernel's buffer is too small")

    def address(self) -> int:
        return self.base

    def call(self, name: str, *args: int) -> int:
        return getattr(self.lib, name)(*[ctypes.c_int(a) for a in args])


def build_native(out_dir: str) -> str | None:
    """clang -O3 of kernels/prefilter.c as a shared library, or None without clang."""
    cc = shutil.which("clang") or shutil.which("cc")
    if cc is None:
        return None
    out = os.path.join(out_dir, "prefilter.so")
    subprocess.run(
        [
            cc,
            "-O3",
            "-fPIC",
            "-shared",
            "-nostdlib",
            "-ffreestanding",
            "-Wall",
            "-Werror",
            "-o",
            out,
            str(ROOT / "kernels" / "prefilter.c"),
        ],
        check=True,
    )
    return out


def blocks(data: bytes, size: int):
    start = 0
    while start < len(data):
        end = len(data)
        if start + size < len(data):
            end = data.rfind(b"\n", start, start + size) + 1 or len(data)
        yield data[start:end]
        start = end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--native", action="store_true", help="also a native build (needs clang)")
    ap.add_argument(
        "--script",
        default="latin",
        choices=("latin", "hangul", "arabic", "devanagari"),
        help="the corpus's script (make_training.py --script)",
    )
    a, _ = ap.parse_known_args()  # build.py bench passes every script the same arguments
    from evalsieve.kernel import KernelFilter, KernelScanner, unavailable

    why = unavailable()
    if why:
        print(f"skipped: {why}")
        return 0
    from bench_contamination import eval_file, training_file
    from evalsieve import corpus
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob

    ev = eval_file()
    tr = training_file(max(a.mb, 200), a.script)
    data = tr.read_bytes()[: int(a.mb * 1e6)]
    data = data[: data.rfind(b"\n") + 1]
    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",)), ev.name, "jsonl", tr.name, "jsonl"
    )
    job.feed_eval(ev.read_text(encoding="utf-8"))
    job.end_eval()
    spec = job.prefilter_spec()
    keys = list(job.index.exact_keys)
    ways = {}
    t0 = time.process_time()
    ways["kernel (wasmtime)"] = (
        KernelFilter(spec["ngrams"], spec["n"], "jsonl", keys).scanner(spec["paths"]).scan
    )
    setup = {"kernel (wasmtime)": time.process_time() - t0}
    tmp = tempfile.mkdtemp()
    if a.native:
        lib = build_native(tmp)
        if lib:
            t0 = time.process_time()
            ways["kernel (native, ctypes)"] = KernelScanner(
                NativeMemory(lib),
                spec["ngrams"],
                spec["n"],
                "jsonl",
                spec["paths"],
                spec["exact"]["probes"],
            ).scan
            setup["kernel (native, ctypes)"] = time.process_time() - t0
        else:
            print("no clang: the native build is not measured")
    try:
        from evalsieve.fastscan import LineFilter

        t0 = time.process_time()
        lf = LineFilter(job.index.ngrams, job.index.n, "jsonl", keys)
        setup["numpy LineFilter"] = time.process_time() - t0
        ways["numpy LineFilter"] = lambda b: [
            lf.candidate_lines(p)[1] for p in blocks(b, corpus.FILTER_BYTES)
        ]
    except ImportError:
        print("numpy is not installed: its filter is not measured")
    parts = list(blocks(data, corpus.CHUNK_BYTES))
    mb = len(data) / 1e6
    print(
        f"{mb:.0f} MB of {tr.name} in {len(parts)} blocks; eval {ev.name}, N = {spec['n']}, "
        f"{len(spec['ngrams'])} n-grams; load average {os.getloadavg()[0]:.1f}; setup (CPU s): "
        + ", ".join(f"{k} {v:.2f}" for k, v in setup.items())
    )
    ms = {k: [] for k in ways}
    for _ in range(a.repeat):
        for k, scan in ways.items():
            t0 = time.process_time()
            for p in parts:
                scan(p)
            ms[k].append((time.process_time() - t0) * 1000 / mb)
    cands = {
        k: [tuple(scan(p)[3]) for p in parts] for k, scan in ways.items() if k.startswith("kernel")
    }
    same = len(set(map(tuple, cands.values()))) == 1
    med = {k: sorted(v)[len(v) // 2] for k, v in ms.items()}
    print(f"CPU ms/MB, {a.repeat} alternating rounds (median; MB/s of CPU in brackets):")
    for k, v in ms.items():
        print(
            f"  {k:26s} {', '.join(f'{x:.1f}' for x in v)}  median {med[k]:.1f} "
            f"({1000 / med[k]:.0f} MB/s)"
        )
    base = med["kernel (wasmtime)"]
    for k in med:
        if k != "kernel (wasmtime)":
            print(f"  wasmtime runs at {med[k] / base:.2f}x the speed of {k}")
    print(
        f"kernel candidates: {sum(len(c) // 4 for c in cands['kernel (wasmtime)'])} records; "
        f"{'the same' if same else 'DIFFERENT'} in every kernel build; load average "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    print(json.dumps({"cpu_ms_per_mb": med, "same_candidates": same}))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
