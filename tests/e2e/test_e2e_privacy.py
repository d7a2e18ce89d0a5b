"""Nothing leaves the tab: every request of a whole session stays on the page's origin.

One fresh browser profile runs both worked examples, a contamination run and a paraphrase
run on the user's own files, and downloads every export. Every request the browser context
makes (the page's and its workers': Pyodide, wheels, wasm, model) is recorded and must be
same-origin; the page must have loaded the worker's assets (so the recording sees workers);
and the only thing left in storage is the settings entry in localStorage.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pagekit import choose_file, launch, wait_for_runs
from test_e2e_contamination import EXPORTS, run_and_wait
from test_e2e_paraphrases import EXPORTS as PARA_EXPORTS, run_para, wait_para_runs

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def test_whole_session_stays_on_origin(playwright_sync, base_url, tmp_path):
    requests: list[str] = []
    violations: list[str] = []
    with tempfile.TemporaryDirectory() as profile:
        ctx = launch(playwright_sync, profile)
        ctx.on("request", lambda r: requests.append(r.url))
        page = ctx.new_page()
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.goto(base_url + "index.html")
        assert wait_for_runs(page, 1) == "done"  # contamination example
        choose_file(page, "eval", FIXTURES / "gsm8k_test_sample.jsonl", ["question"])
        choose_file(page, "train", FIXTURES / "train_mix.jsonl", ["text"])
        assert run_and_wait(page) == "done"
        for name in EXPORTS:
            with page.expect_download() as info:
                page.click(f'button[data-export="{name}"]')
            info.value.save_as(tmp_path / name)
        page.click("#tab-paraphrases")
        assert wait_para_runs(page, 1) == "done"  # worked example
        assert run_para(page, FIXTURES / "gsm8k_test_sample.jsonl", "question") == "done"
        for name in PARA_EXPORTS:
            with page.expect_download() as info:
                page.click(f'#para-downloads button[data-export="{name}"]')
            info.value.save_as(tmp_path / name)
        storage = page.evaluate("""async () => ({
            local: Object.keys(localStorage),
            session: Object.keys(sessionStorage),
            caches: 'caches' in self ? await caches.keys() : [],
            idb: indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [],
        })""")
        ctx.close()
    origin = base_url.rstrip("/")
    foreign = [
        u for u in requests if not (u.startswith(origin + "/") or u.startswith(("blob:", "data:")))
    ]
    assert foreign == [], foreign
    # the recording includes the workers' requests (Pyodide and the encoder load there)
    for asset in (
        "pyodide.asm.wasm",
        "python_stdlib.zip",
        "evalsieve-",
        "encoder.onnx",
        "ort-wasm-simd-threaded.wasm",
        "tokenizer.json",
    ):
        assert any(asset in u for u in requests), f"{asset} was not seen: {requests[:20]}"
    assert not violations, violations
    assert storage["local"] == ["evalsieve.settings.v1"] or storage["local"] == []
    assert storage["session"] == [] and storage["caches"] == [] and storage["idb"] == []
    print(f"\n{len(requests)} requests, all to {origin}")
