"""Native encoder throughput: rows/s of NativeEncoder.encode under onnxruntime (CPU).

Row sets (real text from ../shared/data, chosen by word-piece count, no randomness):
  short: STS-B test sentences with 10..20 pieces (incl. [CLS]/[SEP]), ~15 on average;
  long:  GSM8K test questions with 65..95 pieces, ~80 on average;
  mixed: the two interleaved (where length sorting matters most).
For each set: batch size 1 / 8 / 32, length-sorted or not, 1 and 2 onnxruntime threads.
"sorted" is NativeEncoder's default (longest first, one piece count per batch, no padding);
"unsorted" is input order, padded to each batch's longest row.
Each cell is the median of --runs timed runs (after one warm-up) of encode() end to end
(tokenisation included). Prints rows/s (wall) and rows per CPU-second (process time, which
other work on a busy machine disturbs less), and the ratios sorted/unsorted, 2/1 threads,
b32/b1.

Model files: $EVALSIEVE_MODEL_DIR, $EVALSIEVE_DIST/assets/model or dist/assets/model (run
`python3 build.py build`). Without them, or without onnxruntime/tokenizers, it says so and
exits 0. The load average is printed: on a shared 2-core machine other work skews the figures.

    python benchmarks/bench_encoder_native.py [--rows 128] [--runs 3]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))


def find_model_dir() -> Path | None:
    cands = []
    if os.environ.get("EVALSIEVE_MODEL_DIR"):
        cands.append(Path(os.environ["EVALSIEVE_MODEL_DIR"]))
    if os.environ.get("EVALSIEVE_DIST"):
        cands.append(Path(os.environ["EVALSIEVE_DIST"]) / "assets" / "model")
    cands.append(ROOT / "dist" / "assets" / "model")
    for d in cands:
        if (d / "encoder.onnx").is_file() and (d / "tokenizer.json").is_file():
            return d
    return None


def pick_rows(enc, data: Path, n: int) -> dict[str, list[str]]:
    with open(data / "stsb" / "sts-test.csv", encoding="utf-8") as f:
        sts = [t for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE) for t in r[5:7]]
    gsm = [
        json.loads(line)["question"]
        for line in open(data / "gsm8k" / "test.jsonl", encoding="utf-8")
    ]

    def within(texts, lo, hi):
        ids = enc.tokenize(texts).ids
        return [t for t, i in zip(texts, ids) if lo <= len(i) <= hi][:n]

    short, long_ = within(sts, 10, 20), within(gsm, 65, 95)
    mixed = [t for pair in zip(short[: n // 2], long_[: n // 2]) for t in pair]
    return {"short": short, "long": long_, "mixed": mixed}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=128, help="rows per set (default 128)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per cell (median)")
    args, _ = ap.parse_known_args(argv)  # build.py bench may pass options meant for others

    model_dir = find_model_dir()
    if model_dir is None:
        print(
            "bench_encoder_native: skipped, no encoder.onnx (run `python3 build.py build` "
            "or set EVALSIEVE_MODEL_DIR)"
        )
        return 0
    try:
        import numpy  # noqa: F401
        import onnxruntime
        from evalsieve.native_encoder import NativeEncoder
    except ImportError as exc:
        print(f"bench_encoder_native: skipped, {exc}")
        return 0
    data = Path(os.environ.get("EVALSIEVE_SHARED_DATA", ROOT.parent / "shared" / "data"))
    if not (data / "gsm8k" / "test.jsonl").is_file():
        print(f"bench_encoder_native: skipped, no shared data at {data}")
        return 0

    paths = (model_dir / "encoder.onnx", model_dir / "tokenizer.json")
    sets = pick_rows(NativeEncoder(*paths), data, args.rows)
    print(f"bench_encoder_native: onnxruntime {onnxruntime.__version__}, model {paths[0]}")
    for name, texts in sets.items():
        lens = [len(i) for i in NativeEncoder(*paths).tokenize(texts).ids]
        print(
            f"  set {name}: {len(texts)} rows, pieces mean {statistics.mean(lens):.1f} "
            f"min {min(lens)} max {max(lens)}"
        )
    print(f"  load average before: {os.getloadavg()[0]:.2f} (2 cores)")

    results: dict[tuple, float] = {}
    cpu_results: dict[tuple, float] = {}  # rows per CPU-second: steadier on a busy machine
    print(
        f"{'set':6} {'thr':>3} {'batch':>5} {'sorted':>6} {'rows/s':>8} {'rows/cpu-s':>9}   wall runs (s)"
    )
    for threads in (1, 2):
        for batch in (1, 8, 32):
            enc = NativeEncoder(*paths, batch_size=batch, threads=threads)
            for name, texts in sets.items():
                for sort in (True, False):
                    enc.encode(texts[:16], sort=sort)  # warm-up
                    times, cpu = [], []
                    for _ in range(args.runs):
                        t0, c0 = time.perf_counter(), time.process_time()
                        enc.encode(texts, sort=sort)
                        times.append(time.perf_counter() - t0)
                        cpu.append(time.process_time() - c0)
                    rate = len(texts) / statistics.median(times)
                    results[(name, threads, batch, sort)] = rate
                    cpu_results[(name, threads, batch, sort)] = len(texts) / statistics.median(cpu)
                    print(
                        f"{name:6} {threads:>3} {batch:>5} {str(sort):>6} {rate:8.1f} "
                        f"{cpu_results[(name, threads, batch, sort)]:9.1f}   "
                        + " ".join(f"{t:.2f}" for t in times),
                        flush=True,
                    )

    print("ratios (rows/s over rows/s):")
    for name in sets:
        for threads in (1, 2):
            for batch in (8, 32):
                r = results[(name, threads, batch, True)] / results[(name, threads, batch, False)]
                rc = (
                    cpu_results[(name, threads, batch, True)]
                    / cpu_results[(name, threads, batch, False)]
                )
                print(
                    f"  {name:6} thr {threads} batch {batch:>2}: sorted/unsorted {r:.2f} "
                    f"(per CPU-second {rc:.2f})"
                )
        for batch in (1, 8, 32):
            r = results[(name, 2, batch, True)] / results[(name, 1, batch, True)]
            print(f"  {name:6} batch {batch:>2} sorted: 2 threads / 1 thread {r:.2f}")
        for threads in (1, 2):
            r = results[(name, threads, 32, True)] / results[(name, threads, 1, True)]
            rc = cpu_results[(name, threads, 32, True)] / cpu_results[(name, threads, 1, True)]
            print(
                f"  {name:6} thr {threads}: batch 32 / batch 1 (sorted) {r:.2f} "
                f"(per CPU-second {rc:.2f})"
            )
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
