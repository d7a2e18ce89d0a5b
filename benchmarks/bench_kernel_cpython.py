#!/usr/bin/env python3
"""The page's WebAssembly scan kernel (kernels/prefilter.wasm) in CPython through wasmtime,
against the CLI's numpy filter (evalsieve.fastscan.LineFilter), on the same corpus.

Could one kernel serve both runtimes? This measures the candidate
filter alone, in CPU time (user + system of this process, robust to other load), per MB of
the training file: the kernel (its n-gram table hashed by the kernel itself from Python's
spec, pf_add_ngrams; each piece copied into the module's memory, pf_scan) and LineFilter.candidate_lines
on the same ~1 MB pieces, alternating round by round; and it counts both filters'
candidates (the kernel's are the page's, record for record:
tests/js/prefilter-wasm.test.mjs; here the count can be compared with the page's 336 on the
benchmark corpus). Needs numpy and wasmtime (pip install wasmtime); without them it says so
and exits 0 (`python3 build.py bench` runs every benchmark).

    .venv/bin/python benchmarks/bench_kernel_cpython.py --mb 30 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))

MIX = 0x9E3779B1   # prefilter.js's n-gram polynomial (the kernel's pf_configure takes MIX^(N-1))
# Python's str.isspace() set, as prefilter.js PY_SPACE_G
PY_SPACE = re.compile("[\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f"
                      "\u205f\u3000]")


def utf16(s: str) -> list[int]:
    b = s.encode("utf-16-le", "surrogatepass")
    return [b[i] | b[i + 1] << 8 for i in range(0, len(b), 2)]


def tables(spec: dict):
    """The host's part of the kernel's tables (as worker/prefilter-wasm.js): zeroed table and
    bitset of prefilter.js's sizes, the char_table map by UTF-16 code unit (>= 0 one unit,
    -1 unknown, -2 deleted, <= -3 a replacement in `pool`) and MIX^(N-1)."""
    import numpy as np
    size = 1
    while size < len(spec["ngrams"]) * 4:
        size <<= 1
    ext = np.full(0x10000, -1, dtype=np.int32)
    pool: list[int] = []
    for key, v in spec["chars"].items():
        c = int(key)
        if c < 128 or c > 0xFFFF:
            continue
        r = utf16(PY_SPACE.sub(" ", v))
        if not r:
            ext[c] = -2
        elif len(r) == 1:
            ext[c] = r[0]
        else:
            ext[c] = -3 - len(pool)
            pool += [len(r), *r]
    return (pow(MIX, spec["n"] - 1, 1 << 32), np.zeros(size, dtype=np.uint32), size - 1,
            np.zeros(1 << 15, dtype=np.uint32), ext, np.array(pool, dtype=np.uint16))


def exact_table(spec: dict):
    """The exact rung's probe table (as worker/prefilter-exact.js builds it): the spec's probe
    values by open addressing, slot = value * 0x27D4EB2D, 0 = empty; (table, mask)."""
    import numpy as np
    probes = spec["exact"]["probes"]
    size = 2
    while size < len(probes) * 2:
        size <<= 1
    table = np.zeros(size, dtype=np.uint32)
    for v in probes:
        k = (v * 0x27D4EB2D) & (size - 1)
        while table[k] not in (0, v):
            k = (k + 1) & (size - 1)
        table[k] = v
    return table, size - 1


class KernelFilter:
    """kernels/prefilter.wasm under wasmtime for one spec; scan(piece) -> candidate records."""

    def __init__(self, spec: dict):
        import numpy as np
        import wasmtime
        self.np = np
        self.store = wasmtime.Store()
        module = wasmtime.Module(self.store.engine, (ROOT / "kernels" / "prefilter.wasm").read_bytes())
        inst = wasmtime.Instance(self.store, module, [])
        ex = inst.exports(self.store)
        self.mem, self.scan_fn = ex["memory"], ex["pf_scan"]
        top, table, mask, bits, ext, pool = tables(spec)
        keys, psteps, pstep0, steps = [], [], [], []
        for path in spec["paths"]:
            pstep0.append(len(steps) // 2)
            psteps.append(len(path))
            for s in path:
                s = "[]" if isinstance(s, list) else s   # a filter step: every element
                steps += [-1, 0] if s == "[]" else [len(utf16(s)), 0]
                keys.append(s)
        self.at = (self.mem.data_len(self.store) + 15) & ~15

        def place(arr) -> int:
            a = self.at
            data = arr.tobytes()
            self._grow(a + len(data) + 16)
            self.mem.write(self.store, data, a)
            self.at = (a + len(data) + 15) & ~15
            return a
        t_at, b_at, e_at = place(table), place(bits), place(ext)
        p_at = place(pool) if len(pool) else place(np.zeros(1, dtype=np.uint16))
        for i, s in enumerate(keys):   # key units, then their addresses into steps
            if s != "[]":
                steps[2 * i + 1] = place(np.array(utf16(s), dtype=np.uint16))
        ps_at = place(np.array(psteps or [0], dtype=np.int32))
        p0_at = place(np.array(pstep0 or [0], dtype=np.int32))
        st_at = place(np.array(steps or [0], dtype=np.int32))
        ring_at = place(np.zeros(max(spec["n"], 1), dtype=np.uint32))
        self.res_at = place(np.zeros(8, dtype=np.int32))
        cfg = np.array([spec["n"], top, t_at, mask, b_at, e_at, p_at, len(spec["paths"]), ps_at,
                        p0_at, st_at, 1 if spec["format"] == "text" else 0, ring_at],
                       dtype=np.uint32).astype(np.int32)
        cfg_at = place(cfg)
        if ex["pf_configure"](self.store, cfg_at) != 0:
            raise ValueError("more field paths than the kernel takes")
        grams = np.array(utf16("".join(g + "\n" for g in spec["ngrams"])), dtype=np.uint16)
        ex["pf_add_ngrams"](self.store, place(grams), len(grams))   # the kernel hashes them
        exact, exact_mask = exact_table(spec)
        ex["pf_exact"](self.store, place(exact), exact_mask)        # the exact rung's probes
        self.cap = 4096

    def _grow(self, end: int) -> None:
        have = self.mem.data_len(self.store)
        if end > have:
            self.mem.grow(self.store, (end - have + 65535) // 65536)

    def scan(self, piece: bytes):
        """(records_in, candidate records (1-based, piece-local), candidate lines)."""
        np = self.np
        out_at = self.at
        while True:
            chunk_at = (out_at + self.cap * 16 + 15) & ~15
            self._grow(chunk_at + len(piece) + 1)
            self.mem.write(self.store, piece + b"\0", chunk_at)   # the kernel's sentinel
            rc = self.scan_fn(self.store, chunk_at, len(piece), out_at, self.cap, self.res_at)
            if rc != -2:
                break
            self.cap *= 2
        if rc == -1:
            raise ValueError("not UTF-8")
        if rc != 0:
            raise ValueError(f"pf_scan returned {rc}")
        res = np.frombuffer(self.mem.read(self.store, self.res_at, self.res_at + 20), dtype=np.int32)
        count = int(res[0])
        out = np.frombuffer(self.mem.read(self.store, out_at, out_at + 16 * count), dtype=np.int32)
        return int(res[1]), out[0::4], out[1::4]


def pieces(data: bytes, size: int = 1 << 20):
    start = 0
    while start < len(data):
        end = len(data)
        if start + size < len(data):
            end = data.rfind(b"\n", start, start + size) + 1 or data.find(b"\n", start + size) + 1 \
                or len(data)
        yield data[start:end]
        start = end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    a, _ = ap.parse_known_args()   # build.py bench passes every script the same arguments
    try:
        import numpy  # noqa: F401
        import wasmtime  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e.name} is not installed (pip install numpy wasmtime)")
        return 0
    from bench_contamination import eval_file, training_file
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
    from evalsieve.fastscan import LineFilter
    ev = eval_file()
    tr = training_file(max(a.mb, 100))
    data = tr.read_bytes()[:int(a.mb * 1e6)]
    data = data[:data.rfind(b"\n") + 1]
    job = ContaminationJob(ContaminationConfig(("question",), ("text",)), ev.name, "jsonl",
                           tr.name, "jsonl")
    job.feed_eval(ev.read_text(encoding="utf-8"))
    job.end_eval()
    spec = job.prefilter_spec()
    t0 = time.process_time()
    kf = KernelFilter(spec)
    t_kernel_setup = time.process_time() - t0
    t0 = time.process_time()
    lf = LineFilter(job.index.ngrams, job.index.n, "jsonl", list(job.index.exact_keys))
    t_numpy_setup = time.process_time() - t0
    parts = list(pieces(data))
    mb = len(data) / 1e6
    print(f"{mb:.0f} MB of {tr.name} in {len(parts)} pieces; eval {ev.name}, N = {spec['n']}, "
          f"{len(spec['ngrams'])} n-grams; load average {os.getloadavg()[0]:.1f}; setup: kernel "
          f"{t_kernel_setup:.2f} s, numpy {t_numpy_setup:.2f} s (CPU)")
    kms, nms = [], []
    for _ in range(a.repeat):
        t0 = time.process_time()
        kc = sum(len(kf.scan(p)[1]) for p in parts)
        kms.append((time.process_time() - t0) * 1000 / mb)
        t0 = time.process_time()
        nc = sum(len(lf.candidate_lines(p)[1]) for p in parts)
        nms.append((time.process_time() - t0) * 1000 / mb)
    # both filters pass every line that holds an eval n-gram; beyond those they differ (the
    # kernel: hash collisions, characters outside the table in the chosen field; numpy: any
    # field, shorter strided windows), so this count is for information
    missing = 0
    for p in parts:
        _, recs, lines = kf.scan(p)
        _, cands, _ = lf.candidate_lines(p)
        missing += len(set((lines - 1).tolist()) - set(cands.tolist()))
    print(f"CPU ms/MB, {a.repeat} alternating rounds: kernel (wasmtime) "
          f"{', '.join(f'{x:.1f}' for x in kms)}; numpy LineFilter {', '.join(f'{x:.1f}' for x in nms)}")
    print(f"candidates: kernel {kc} records, numpy {nc} lines; kernel candidates the numpy "
          f"filter does not pass: {missing}; load average {os.getloadavg()[0]:.1f} at the end")
    print(json.dumps({"kernel_cpu_ms_per_mb": sorted(kms)[len(kms) // 2],
                      "numpy_cpu_ms_per_mb": sorted(nms)[len(nms) // 2],
                      "kernel_candidates": kc, "numpy_candidates": nc}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
