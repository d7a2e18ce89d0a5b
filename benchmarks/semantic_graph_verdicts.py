#!/usr/bin/env python3
"""The semantic rung's verdicts with the int8 graph against the fp32 graph, set by set.

The CLI and the page's WASM provider embed with ``encoder.onnx`` (int8 weights); the page's
WebGPU provider would embed with ``encoder-fp32.onnx`` (the same weights folded to float32,
built by build.py). This runs each public set of benchmarks/semantic_sets.py through the
ladder job at the committed defaults once with each graph under native onnxruntime, and
prints recall, false positives, the rows whose verdict differs and the largest difference
between the two graphs' vectors. Needs ../shared/data, dist/ (python3 build.py) and the
encoder extra.

    .venv/bin/python benchmarks/semantic_graph_verdicts.py --sets gsm8k,humaneval,mrpc
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import bench_semantic as B  # noqa: E402
import semantic_fit as F  # noqa: E402
import semantic_sets as S  # noqa: E402

from evalsieve.semantic import SemanticConfig  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", default=os.path.join(ROOT, "dist", "assets", "model"))
    ap.add_argument("--sets", default="gsm8k,mrpc,stsb,gsm8k_stem,humaneval,web,bigbench")
    a = ap.parse_args()
    if not os.path.isdir(a.data):
        sys.exit(f"semantic_graph_verdicts: no data folder {a.data} (needs shared/data)")
    with tempfile.TemporaryDirectory() as d:
        fp32 = os.path.join(d, "fp32")
        os.mkdir(fp32)
        for name, src in (
            ("encoder.onnx", "encoder-fp32.onnx"),
            ("tile.onnx", "tile.onnx"),
            ("tokenizer.json", "tokenizer.json"),
        ):
            os.symlink(os.path.abspath(os.path.join(a.model, src)), os.path.join(fp32, name))
        encs = {
            "int8": B.CachedEncoder(a.model, os.path.join(d, "cache-int8")),
            "fp32": B.CachedEncoder(fp32, os.path.join(d, "cache-fp32")),
        }
        cfg = SemanticConfig()
        rows = flipped = 0
        for b in S.build_sets(a.data, a.sets.split(","), None):
            caught = {}
            for name, enc in encs.items():
                t = time.perf_counter()
                job, _ = B.run_job(b, enc, cfg)
                caught[name] = [x.caught for x in job.semantic.matches]
                rec, fpr, tp, fp = F.rates(b, caught[name])
                print(
                    f"{b.name:12s} {name}: recall {rec:.3f} ({tp}/{len(b.positive)}), false "
                    f"positives {fpr:.4f} ({fp}); {time.perf_counter() - t:.0f} s",
                    flush=True,
                )
            diff = [i for i, (x, y) in enumerate(zip(caught["int8"], caught["fp32"])) if x != y]
            rows += len(b.rows)
            flipped += len(diff)
            print(f"{b.name:12s} verdicts that differ: {len(diff)} of {len(b.rows)} {diff[:10]}")
        np = encs["int8"].np
        keys = sorted(set(encs["int8"].mem) & set(encs["fp32"].mem))
        va, vb = (
            np.array([np.frombuffer(e.mem[k], dtype=np.float32) for k in keys])
            for e in encs.values()
        )
        print(
            f"\nall sets: {flipped} of {rows} verdicts differ; {len(keys)} texts embedded by "
            f"both graphs, largest |difference| of a vector element {np.abs(va - vb).max():.3g}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
