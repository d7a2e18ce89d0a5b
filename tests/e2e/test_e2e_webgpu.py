"""WebGPU in the real page: Debian chromium with its software WebGPU adapter (SwiftShader).

The rest of the suite launches chromium with ``--disable-gpu``, and then
``navigator.gpu.requestAdapter()`` gives null, so the page embeds on WASM and says "navigator.gpu
gave no adapter". These tests launch their own chromium without that flag and with
``--enable-unsafe-swiftshader --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader``, which
gives a software adapter (vendor google, architecture swiftshader). SwiftShader emulates the
GPU on the CPU and is slow (~0.35 rows/s here, WASM ~25), so the file is 11 short STS-B
sentences; this is for correctness only, the timings are printed, never asserted.

Expected values: the WASM run of the same file in the suite's chromium (groups equal, cosines
within the export's rounding), the worked golden pairs (tests/golden/paraphrase_golden.json:
STS-B 32~33 at 0.855 and 26~27 at 0.805), and the manifest's sha256s; never the page itself.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from pagekit import CHROMIUM_FLAGS, chromium_path, close_page, open_page
from test_e2e_paraphrases import (
    download_exports,
    read_export,
    run_para,
    set_threshold,
    stamped_pairs,
    wait_para_runs,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "minilm_reference.json"
SWIFTSHADER_FLAGS = [
    "--enable-unsafe-swiftshader",
    "--enable-unsafe-webgpu",
    "--use-webgpu-adapter=swiftshader",
]
# The sample check and the run embed every row twice on SwiftShader: minutes, not seconds.
GPU_RUN_TIMEOUT_MS = 900_000
ROWS = range(26, 37)  # golden rows 26-36: the STS-B sentences, 7 to 13 word pieces
# The slider's floor: the only pairs above it are rows 7~8 (golden 32~33, fp32 cosine 0.855)
# and 1~2 (golden 26~27, 0.805); the next one is far below (0.62, paraphrase_golden.json).
THRESHOLD = 0.75
GOLDEN_PAIRS = {("7", "8"): 0.855, ("1", "2"): 0.805}


@pytest.fixture(scope="module")
def gpu_context(playwright_sync):
    """Chromium with the SwiftShader WebGPU adapter (not --disable-gpu); skips without one."""
    profile = tempfile.TemporaryDirectory(prefix="evalsieve-webgpu-")
    flags = [f for f in CHROMIUM_FLAGS if f != "--disable-gpu"] + SWIFTSHADER_FLAGS
    context = playwright_sync.chromium.launch_persistent_context(
        profile.name,
        executable_path=str(chromium_path()),
        headless=True,
        args=flags,
        accept_downloads=True,
        service_workers="block",
        viewport={"width": 1280, "height": 1000},
    )
    yield context
    context.close()
    profile.cleanup()


def adapter_name(page) -> str | None:
    return page.evaluate("""async () => {
        const a = navigator.gpu && await navigator.gpu.requestAdapter();
        return a ? `${a.info.vendor} ${a.info.architecture}` : null; }""")


@pytest.fixture(scope="module")
def sts_file(tmp_path_factory) -> Path:
    rows = json.loads(GOLDEN.read_text(encoding="utf-8"))["rows"]
    path = tmp_path_factory.mktemp("webgpu") / "stsb-11.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"g{k}", "text": rows[k - 1]["text"]}) + "\n" for k in ROWS),
        encoding="utf-8",
    )
    return path


def run_file(context, base_url, path: Path, out: Path, timeout_ms: int, query: str = ""):
    """Drop `path` into the paraphrase tab of index.html`query`; (stamp, pairs, groups, log
    text, the provider line, requests)."""
    p = open_page(context, base_url, f"index.html{query}#paraphrases")
    try:
        assert wait_para_runs(p, 1) == "done", p.text_content("#para-error")  # the worked example
        assert run_para(p, path, "text", timeout_ms) == "done", p.text_content("#para-error")
        set_threshold(p, THRESHOLD)
        files = download_exports(p, out)
        stamp, pairs = read_export(files["paraphrase-pairs.csv"], files["run-stamp.json"])
        _, groups = read_export(files["paraphrase-groups.csv"])
        shown = p.text_content('#para-settings dd[data-setting="provider"]')
        return stamp, pairs, groups, p.text_content("#log"), shown, list(p.watch.requests)
    finally:
        close_page(p)


def rows_per_s(log: str) -> float:
    """Rows per second of the last "embedded N rows in S s" line of the page's log."""
    rows, seconds = re.findall(r"embedded (\d+) rows in ([\d.]+) s", log)[-1]
    return int(rows) / float(seconds)


def test_webgpu_on_swiftshader_agrees_and_equals_the_wasm_run(
    gpu_context, browser_context, base_url, dist_dir, sts_file, tmp_path
):
    manifest = json.loads((dist_dir / "assets" / "manifest.json").read_text())
    probe = open_page(gpu_context, base_url, "favicon.svg")  # a page of this origin, no runtime
    name = adapter_name(probe)
    probe.close()
    if name is None:
        pytest.skip("this chromium gives no WebGPU adapter even with SwiftShader flags")
    assert "swiftshader" in name

    stamp, pairs, groups, log, shown, requests = run_file(
        gpu_context, base_url, sts_file, tmp_path / "gpu", GPU_RUN_TIMEOUT_MS, "?webgpu=any"
    )
    env = stamp["environment"]
    assert env["execution_provider"] == "webgpu", env["provider_reason"]
    assert env["provider_sample_rows"] == len(ROWS)  # <= 16 rows: every row is compared
    assert 0.999 <= env["provider_min_cosine"] <= 1.0 + 1e-6
    assert re.fullmatch(
        r"WebGPU on google swiftshader.*: all 11 sample rows agree with WASM "
        r"\(lowest cosine (0\.999\d\d|1\.00000) ≥ 0\.999\)",
        env["provider_reason"],
    ), env["provider_reason"]
    assert "swiftshader" in env["webgpu_adapter"]
    assert env["webgpu_graph_sha256"] == manifest["encoder-fp32.onnx"]["sha256"]
    for asset in (
        "encoder-fp32.onnx",
        "ort.webgpu.min.mjs",
        "ort-wasm-simd-threaded.asyncify.wasm",
    ):
        assert manifest[asset]["sha256"] in json.dumps(stamp["assets"]), asset
    assert shown.startswith("webgpu: WebGPU on google swiftshader")
    assert "execution provider: webgpu (WebGPU on google swiftshader" in log
    assert any(u.endswith("assets/model/encoder-fp32.onnx") for u in requests)

    # The same file in the suite's chromium (--disable-gpu: no adapter) embeds on WASM.
    w_stamp, w_pairs, w_groups, w_log, w_shown, w_requests = run_file(
        browser_context, base_url, sts_file, tmp_path / "wasm", 300_000
    )
    w_env = w_stamp["environment"]
    assert (w_env["execution_provider"], w_env["provider_reason"]) == (
        "wasm",
        "navigator.gpu gave no adapter",
    )
    assert w_shown == "wasm: navigator.gpu gave no adapter"
    # Lazy: without an adapter the WebGPU runtime and graph are never fetched.
    assert not [
        u for u in w_requests if "encoder-fp32" in u or "ort.webgpu" in u or "asyncify" in u
    ]

    # The exports: the same groups and pairs; cosines equal to the export's 3 decimals (±1).
    assert stamp["settings"] == w_stamp["settings"]
    assert [(g["group"], g["member_rows"]) for g in groups] == [
        (g["group"], g["member_rows"]) for g in w_groups
    ]
    assert [(p["row_a"], p["row_b"]) for p in pairs] == [(p["row_a"], p["row_b"]) for p in w_pairs]
    for a, b in zip(pairs, w_pairs):
        assert abs(float(a["cosine"]) - float(b["cosine"])) <= 0.0011, (a, b)
    # ... and the golden pairs: skiing (0.855) and hair (0.805), fp32 sentence-transformers.
    got = {(p["row_a"], p["row_b"]): float(p["cosine"]) for p in pairs}
    assert set(got) == set(GOLDEN_PAIRS)
    for pair, cosine in GOLDEN_PAIRS.items():
        assert got[pair] == pytest.approx(cosine, abs=0.004), pair
    print(
        f"\nSwiftShader WebGPU: {rows_per_s(log):.2f} rows/s; WASM ({w_env['threads']} threads): "
        f"{rows_per_s(w_log):.1f} rows/s on the same {len(ROWS)} rows; lowest sample cosine "
        f"{env['provider_min_cosine']:.7f}"
    )


def test_a_webgpu_graph_that_fails_its_sha256_falls_back_to_wasm_saying_why(
    gpu_context, base_url, sts_file, tmp_path
):
    """The honest fallback in the page: an altered encoder-fp32.onnx is refused before any GPU
    work and the run embeds on WASM, with the reason in the result, the log and the stamp."""
    p = open_page(gpu_context, base_url, "index.html?webgpu=any#paraphrases")
    try:
        if adapter_name(p) is None:
            pytest.skip("this chromium gives no WebGPU adapter even with SwiftShader flags")
        p.route(
            "**/assets/model/encoder-fp32.onnx",
            lambda route: route.fulfill(
                status=200, body=b"\x08\x07not the graph", content_type="application/octet-stream"
            ),
        )
        assert wait_para_runs(p, 1) == "done", p.text_content("#para-error")
        assert run_para(p, sts_file, "text") == "done", p.text_content("#para-error")
        set_threshold(p, THRESHOLD)
        stamp, pairs = stamped_pairs(p, tmp_path)
        env = stamp["environment"]
        assert env["execution_provider"] == "wasm"
        assert re.fullmatch(
            r"WebGPU on google swiftshader.* failed: .*assets/model/encoder-fp32\.onnx "
            r"does not match assets/manifest\.json",
            env["provider_reason"],
        ), env["provider_reason"]
        assert env["provider_sample_rows"] == 0 and env["provider_min_cosine"] is None
        assert "webgpu_graph_sha256" not in env
        assert (
            p.text_content('#para-settings dd[data-setting="provider"]')
            == f"wasm: {env['provider_reason']}"
        )
        assert f"execution provider: wasm ({env['provider_reason']})" in p.text_content("#log")
        assert {(r["row_a"], r["row_b"]) for r in pairs} == set(GOLDEN_PAIRS)
    finally:
        close_page(p)


def test_a_software_fallback_adapter_is_passed_over_by_default(
    gpu_context, base_url, sts_file, tmp_path
):
    """Without ?webgpu=any the SwiftShader adapter (isFallbackAdapter) is named and not used:
    the rows embed on WASM, the reason says why, and no WebGPU file is fetched."""
    probe = open_page(gpu_context, base_url, "favicon.svg")
    name = adapter_name(probe)
    fallback = probe.evaluate(
        "async () => (await navigator.gpu.requestAdapter())?.info.isFallbackAdapter"
    )
    probe.close()
    if name is None:
        pytest.skip("this chromium gives no WebGPU adapter even with SwiftShader flags")
    assert fallback is True
    stamp, pairs, _, log, shown, requests = run_file(
        gpu_context, base_url, sts_file, tmp_path / "default", 300_000
    )
    env = stamp["environment"]
    reason = (
        f"WebGPU adapter {name} is a software fallback adapter (WebGPU on the CPU, slower "
        "than WASM); open the page with ?webgpu=any to use it anyway"
    )
    assert (env["execution_provider"], env["provider_reason"]) == ("wasm", reason)
    assert env["webgpu_adapter"] == name and env["provider_sample_rows"] == 0
    assert shown == f"wasm: {reason}"
    assert f"execution provider: wasm ({reason})" in log
    assert not [u for u in requests if "encoder-fp32" in u or "ort.webgpu" in u or "asyncify" in u]
    assert {(r["row_a"], r["row_b"]) for r in pairs} == set(GOLDEN_PAIRS)
