"""Would int8 activations make the page's encoder fast enough, and stay accurate?

The shipped ``encoder.onnx`` is weight-only int8: both runtimes fold ``Cast`` + ``Mul`` into
float32 weights at session creation and run float32 ``MatMul`` (see
benchmarks/profile_encoder_ops.py). onnxruntime-web's WASM float32 GEMM has 128-bit SIMD and
no FMA (the 1.30.0 build has no relaxed-SIMD opcodes), native onnxruntime has AVX2 + FMA, so
the page runs at a fraction of native. Its int8 GEMM (``i32x4.dot_i16x8_s``) is relatively
better. This probe builds two int8-activation variants of ``encoder.onnx`` and measures both
sides of the trade:

* ``static``: per-tensor activation scales fixed at build time (onnxruntime.quantization
  ``quantize_static``, QDQ, per-channel int8 weights, uint8 activations, ``--calib`` MinMax or
  Percentile on ``--calib-rows`` STS-B/GSM8K rows that are not golden rows), on the weight
  ``MatMul`` nodes only (attention's activation x activation products stay float32);
* ``per-token``: each token's activations scaled by their own max |x| (symmetric, 127 levels,
  stored as uint8 with zero point 128) times the source model's own int8 weights
  (``MatMulInteger`` then the two scales). A token's scale comes from that token alone, so a
  row's vector is still independent of its batch-mates, but it is dynamic quantisation, which
  the encoder's design rules out (a row's vector must not depend on its batch); it is measured here as the best case of int8 activations.

For each graph (the shipped one first): cosine against the fp32 sentence-transformers vectors
of tests/golden/minilm_reference.json (the floor: >= 0.995 on every row), whether a
batch of 32 equals the rows alone bit for bit, and the median time of one batch (``--batch`` x
``--pieces``) in native onnxruntime and onnxruntime-web under Node (wall and CPU seconds, 1
thread). Writes the variants to a temporary folder; nothing is shipped.

    .venv/bin/python benchmarks/int8_activation_probe.py [--calib MinMax] [--calib-rows 200]
        [--batch 32] [--pieces 16] [--runs 5]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "benchmarks"))
GOLDEN = ROOT / "tests" / "golden" / "minilm_reference.json"
#: Calibration rows are cut (or padded, mask 0) to this many pieces, so every calibration
#: batch has one shape (onnxruntime's histogram calibrators need that).
CALIB_PIECES = 32


def calibration_ids(enc, data: Path, n: int) -> list:
    """``n`` id lists from STS-B test sentences 200.. and GSM8K test questions 200.. (the
    golden set takes its rows from the start of those files)."""
    with open(data / "stsb" / "sts-test.csv", encoding="utf-8") as f:
        sts = [t for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE) for t in r[5:7]]
    gsm = [
        json.loads(line)["question"]
        for line in open(data / "gsm8k" / "test.jsonl", encoding="utf-8")
    ]
    texts = sts[400 : 400 + n // 2] + gsm[200 : 200 + n - n // 2]
    return enc.tokenize(texts).ids


def build_static(src: Path, out: Path, ids: list, method: str, tmp: Path) -> None:
    """Per-tensor static int8 activations (QDQ) on the weight MatMuls of ``src``."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    fp32 = tmp / "encoder_fp32.onnx"  # Cast + Mul folded: what both runtimes run today
    o = ort.SessionOptions()
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    o.optimized_model_filepath = str(fp32)
    ort.InferenceSession(str(src), o, providers=["CPUExecutionProvider"])
    g = onnx.load(str(fp32)).graph
    inits = {i.name for i in g.initializer}
    act_x_act = [n.name for n in g.node if n.op_type == "MatMul" and n.input[1] not in inits]

    class Rows(CalibrationDataReader):
        def __init__(self):
            self.it = iter(ids)

        def get_next(self):
            row = next(self.it, None)
            if row is None:
                return None
            row = row[: CALIB_PIECES - 1] + [row[-1]] if len(row) > CALIB_PIECES else row
            a = np.zeros((1, CALIB_PIECES), dtype=np.int64)
            m = np.zeros((1, CALIB_PIECES), dtype=np.int64)
            a[0, : len(row)], m[0, : len(row)] = row, 1
            return {"input_ids": a, "attention_mask": m}

    quantize_static(
        str(fp32),
        str(out),
        Rows(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        weight_type=QuantType.QInt8,
        activation_type=QuantType.QUInt8,
        op_types_to_quantize=["MatMul"],
        nodes_to_exclude=act_x_act,
        calibrate_method=getattr(CalibrationMethod, method),
    )


def build_per_token(src: Path, out: Path) -> int:
    """Rewrite every ``MatMul(x, Mul(Cast(W_int8), scale))`` of ``src`` as per-token int8.

    ``y = MatMulInteger(round(x / s_x) + 128, W_int8, zero point 128) * scale * s_x`` with
    ``s_x = max(max_k |x_k|, 1e-12) / 127`` over each token's hidden axis. Returns how many
    MatMuls were rewritten."""
    import onnx
    from onnx import TensorProto, helper

    m = onnx.load(str(src))
    g = m.graph
    inits = {i.name for i in g.initializer}
    prod = {o: n for n in g.node for o in n.output}
    g.initializer.extend(
        [
            helper.make_tensor("tq_eps", TensorProto.FLOAT, [], [1e-12]),
            helper.make_tensor("tq_127", TensorProto.FLOAT, [], [127.0]),
            helper.make_tensor("tq_128", TensorProto.FLOAT, [], [128.0]),
            helper.make_tensor("tq_zp", TensorProto.UINT8, [], [128]),
        ]
    )
    nodes, done = [], 0
    for n in g.node:
        mul = prod.get(n.input[1]) if n.op_type == "MatMul" else None
        cast = prod.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if (
            cast is None
            or cast.op_type != "Cast"
            or cast.input[0] not in inits
            or mul.input[1] not in inits
        ):
            nodes.append(n)
            continue
        x, p = n.input[0], f"tq{done}_"
        nodes += [
            helper.make_node("Abs", [x], [p + "abs"]),
            helper.make_node("ReduceMax", [p + "abs"], [p + "amax"], axes=[-1], keepdims=1),
            helper.make_node("Max", [p + "amax", "tq_eps"], [p + "amax_c"]),
            helper.make_node("Div", [p + "amax_c", "tq_127"], [p + "sx"]),
            helper.make_node("Div", [x, p + "sx"], [p + "xs"]),
            helper.make_node("Round", [p + "xs"], [p + "xr"]),
            helper.make_node("Add", [p + "xr", "tq_128"], [p + "xu"]),
            helper.make_node("Cast", [p + "xu"], [p + "xq"], to=TensorProto.UINT8),
            helper.make_node("MatMulInteger", [p + "xq", cast.input[0], "tq_zp"], [p + "acc"]),
            helper.make_node("Cast", [p + "acc"], [p + "accf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "accf", mul.input[1]], [p + "y1"]),
            helper.make_node("Mul", [p + "y1", p + "sx"], [n.output[0]]),
        ]
        done += 1
    del g.node[:]
    g.node.extend(nodes)
    while True:  # drop the Cast/Mul weight nodes nobody reads any more
        used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
        keep = [n for n in g.node if any(o in used for o in n.output)]
        if len(keep) == len(g.node):
            break
        del g.node[:]
        g.node.extend(keep)
    live = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(live)
    onnx.checker.check_model(m)
    onnx.save(m, str(out))
    return done


def accuracy(model: Path, tokenizer: Path) -> tuple[float, float, bool]:
    """(min cosine, mean cosine) vs the golden fp32 vectors, and batch-32 == batch-1 bit for bit."""
    import numpy as np
    from evalsieve.native_encoder import NativeEncoder

    rows = json.loads(GOLDEN.read_text(encoding="utf-8"))["rows"]
    ids = [r["ids"] for r in rows]
    ref = np.array([r["vector"] for r in rows], dtype=np.float64)
    v32 = NativeEncoder(model, tokenizer, batch_size=32, threads=1).encode_ids(ids)
    v1 = NativeEncoder(model, tokenizer, batch_size=1, threads=1).encode_ids(ids)
    v = v32.astype(np.float64)
    cos = (v * ref).sum(1) / np.linalg.norm(v, axis=1) / np.linalg.norm(ref, axis=1)
    return float(cos.min()), float(cos.mean()), bool(np.array_equal(v1, v32))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calib", choices=("MinMax", "Percentile", "Entropy"), default="MinMax")
    ap.add_argument("--calib-rows", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--pieces", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-speed", action="store_true", help="accuracy only")
    args, _ = ap.parse_known_args(argv)

    dist = Path(os.environ.get("EVALSIEVE_DIST", ROOT / "dist"))
    model_dir = dist / "assets" / "model"
    data = Path(os.environ.get("EVALSIEVE_SHARED_DATA", ROOT.parent / "shared" / "data"))
    if not (model_dir / "encoder.onnx").is_file():
        print(
            "int8_activation_probe: skipped, no dist/assets/model/encoder.onnx (python3 build.py build)"
        )
        return 0
    if not (data / "gsm8k" / "test.jsonl").is_file():
        print(f"int8_activation_probe: skipped, no shared data at {data}")
        return 0
    try:
        import onnx  # noqa: F401
        import onnxruntime.quantization  # noqa: F401
        from evalsieve.native_encoder import NativeEncoder
        from profile_encoder_ops import run_native, run_web
    except ImportError as exc:
        print(f"int8_activation_probe: skipped, {exc}")
        return 0
    speed = not args.no_speed and shutil.which("node") is not None
    src, tok = model_dir / "encoder.onnx", model_dir / "tokenizer.json"
    print(
        f"int8_activation_probe: {src}; load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)"
    )
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        static, per_token = (
            tmp / f"encoder_static_{args.calib}.onnx",
            tmp / "encoder_per_token.onnx",
        )
        build_static(
            src,
            static,
            calibration_ids(NativeEncoder(src, tok), data, args.calib_rows),
            args.calib,
            tmp,
        )
        n = build_per_token(src, per_token)
        print(f"  per-token: {n} weight MatMuls rewritten")
        print(
            f"{'graph':22} {'MB':>5} {'cos min':>8} {'cos mean':>8} {'batch-indep':>11}"
            + ("   native ms (cpu)   web ms (cpu)   web/native" if speed else "")
        )
        for name, path in (
            ("shipped (weight-only)", src),
            (f"static {args.calib}", static),
            ("per-token", per_token),
        ):
            lo, mean, same = accuracy(path, tok)
            line = (
                f"{name:22} {path.stat().st_size / 1e6:5.1f} {lo:8.5f} {mean:8.5f} {str(same):>11}"
            )
            if speed:
                _, nw, nc, _ = run_native(path, 1, args.batch, args.pieces, args.runs, tmp)
                _, ww, wc = run_web(
                    dist / "assets" / "ort", path, 1, args.batch, args.pieces, args.runs, tmp
                )
                med = statistics.median
                line += (
                    f"   {med(nw) * 1e3:7.1f} ({med(nc) * 1e3:6.1f})   {med(ww) * 1e3:7.1f} ({med(wc) * 1e3:6.1f})"
                    f"   wall {med(nw) / med(ww):.2f} cpu {med(nc) / med(wc):.2f}"
                )
            print(line, flush=True)
    print(
        f"floor: cosine >= 0.995 on every golden row; load average after {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
