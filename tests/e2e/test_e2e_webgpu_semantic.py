"""The contamination job's semantic rung embedding on WebGPU in the real page (Debian chromium
with SwiftShader's software adapter, as tests/e2e/test_e2e_webgpu.py launches it).

SwiftShader is slow (~0.35 short rows/s), so the files are small: eval rows 3, 15 and 1 of
gsm8k_test_sample.jsonl against records 39, 44, 1 and 2 of semantic_train.jsonl, where 39 and
44 hold the GPT-4 rephrasings of rows 3 and 15 planted in WikiText paragraphs
(tests/fixtures/README.md) and 1, 2 are other records. No n-gram is shared, so only the semantic
rung can catch them.

Expected values: the CLI on the same files (onnxruntime, the int8 graph): the same caught rows
and training records, the cosines and scores to ±0.002; the manifest's sha256s. Never the
page itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pagekit import choose_file, close_page, open_page, wait_for_runs
from test_e2e_contamination import download_all, read_report, run_and_wait
from test_e2e_semantic import same_but_encoder
from test_e2e_webgpu import adapter_name, gpu_context  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EVAL_ROWS = (3, 15, 1)  # of gsm8k_test_sample.jsonl: rows 3 and 15 are the planted ones
TRAIN_RECORDS = (39, 44, 1, 2)  # of semantic_train.jsonl: 39 holds row 3's copy, 44 row 15's
GPU_RUN_TIMEOUT_MS = 1_200_000  # the sample check and the rung's texts, twice, on SwiftShader


def _lines(path: Path, numbers) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[k - 1] for k in numbers)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("webgpu-semantic")
    ev, tr = folder / "eval3.jsonl", folder / "train4.jsonl"
    ev.write_text(_lines(FIXTURES / "gsm8k_test_sample.jsonl", EVAL_ROWS), encoding="utf-8")
    tr.write_text(_lines(FIXTURES / "semantic_train.jsonl", TRAIN_RECORDS), encoding="utf-8")
    return ev, tr


def run_page(context, base_url, ev: Path, tr: Path, out: Path, query: str, timeout_ms: int):
    """The semantic rung on in the contamination tab of index.html`query`: (stamp, report rows,
    the ladder's encoder line, the log, the requests)."""
    p = open_page(context, base_url, f"index.html{query}#contamination")
    try:
        wait_for_runs(p, 1)  # the example's run at load
        choose_file(p, "eval", ev, ["question"])
        choose_file(p, "train", tr, ["text"])
        p.check("#setting-semantic")
        assert run_and_wait(p, timeout_ms) == "done", p.text_content("#error")
        out.mkdir()
        got = download_all(p, out)
        stamp, rows = read_report(
            got["contamination-report.csv"].decode("utf-8"), got["run-stamp.json"].decode("utf-8")
        )
        shown = p.eval_on_selector(
            "#ladder-semantic dl",
            "dl => [...dl.querySelectorAll('dt')].find(d => d.textContent === 'encoder')"
            ".nextElementSibling.textContent",
        )
        return stamp, rows, shown, p.text_content("#log"), list(p.watch.requests)
    finally:
        close_page(p)


def cli_rows(ev: Path, tr: Path, out: Path) -> list[dict]:
    pytest.importorskip("onnxruntime", reason="the CLI's semantic rung needs the encoder extra")
    pytest.importorskip("tokenizers", reason="the CLI's semantic rung needs the encoder extra")
    sys.path.insert(0, str(ROOT / "py"))
    from evalsieve.cli import main

    args = ["contamination", str(ev), str(tr), "--eval-field", "question", "--train-field"]
    args += ["text", "--semantic", "--threads", "1", "--out", str(out), "--quiet"]
    assert main(args) == 0
    return read_report((out / "contamination-report.csv").read_text(encoding="utf-8"))[1]


def caught(rows: list[dict]) -> list[tuple]:
    return [(r["eval_row"], r["rung"], r["semantic_training_record"]) for r in rows if r["rung"]]


def test_the_semantic_rung_embeds_on_webgpu_and_equals_the_cli(
    gpu_context, base_url, dist_dir, files, tmp_path
):
    probe = open_page(gpu_context, base_url, "favicon.svg")
    name = adapter_name(probe)
    probe.close()
    if name is None:
        pytest.skip("this chromium gives no WebGPU adapter even with SwiftShader flags")
    manifest = json.loads((dist_dir / "assets" / "manifest.json").read_text())
    ev, tr = files
    want = cli_rows(ev, tr, tmp_path / "cli")
    assert caught(want) == [("1", "semantic", "1"), ("2", "semantic", "2")]

    stamp, rows, shown, log, requests = run_page(
        gpu_context, base_url, ev, tr, tmp_path / "gpu", "?webgpu=any", GPU_RUN_TIMEOUT_MS
    )
    env, assets = stamp["environment"], stamp["assets"]
    assert env["execution_provider"] == "webgpu", env["provider_reason"]
    assert env["provider_reason"].startswith("WebGPU on google swiftshader")
    assert env["provider_reason"].endswith("≥ 0.99999)")  # the rung's check, not 0.999
    assert 0.999 <= env["provider_min_cosine"] <= 1.0 + 1e-6 and env["provider_sample_rows"] > 2
    fp32 = manifest["encoder-fp32.onnx"]["sha256"]
    assert env["webgpu_graph_sha256"] == assets["encoder_sha256"] == fp32
    assert assets["encoder"] == "all-MiniLM-L6-v2 fp32 (encoder-fp32.onnx)"
    assert assets["encoder_provider"] == "webgpu"
    assert manifest["ort.webgpu.min.mjs"]["sha256"] in json.dumps(assets)
    assert (
        shown == f"all-MiniLM-L6-v2 fp32 (encoder-fp32.onnx) on webgpu ({env['provider_reason']})"
    )
    assert f"execution provider: webgpu ({env['provider_reason']})" in log
    assert any(u.endswith("assets/model/encoder-fp32.onnx") for u in requests)
    # the CLI's verdicts; the figures that come from the encoder to float rounding
    assert caught(rows) == caught(want)
    assert [r["status"] for r in rows] == [r["status"] for r in want]
    same_but_encoder(rows, want, 2e-3)

    # without ?webgpu=any the software adapter is named and passed over: WASM, the same rows
    stamp, rows, shown, log, requests = run_page(
        gpu_context, base_url, ev, tr, tmp_path / "wasm", "", 600_000
    )
    env = stamp["environment"]
    assert env["execution_provider"] == stamp["assets"]["encoder_provider"] == "wasm"
    assert "is a software fallback adapter" in env["provider_reason"]
    assert stamp["assets"]["encoder"] == "all-MiniLM-L6-v2 int8 (encoder.onnx)"
    assert shown == f"all-MiniLM-L6-v2 int8 (encoder.onnx) on wasm ({env['provider_reason']})"
    assert not [u for u in requests if "encoder-fp32" in u or "ort.webgpu" in u or "asyncify" in u]
    assert caught(rows) == caught(want)
