"""Offline after the first visit: the service worker (site/sw.js) caches the app shell and
every asset of assets/manifest.json (the list build.py writes to dist/sw-precache.js); with
the server stopped and the browser offline, a reload runs both worked examples and dropped
files, cross-origin isolated, and the run stamps say the assets came from the cache. A
rebuilt dist with a changed asset replaces the cache.

Expected figures come from the CLI (contamination) and from the worked example's
hand-checked values (paraphrases), never from the page itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pagekit import (
    DistServer,
    build_module,
    choose_file,
    close_page,
    launch,
    open_page,
    wait_for_runs,
)
from test_e2e_cli_parity import cli_exports, without_stamp
from test_e2e_contamination import count, download_all, read_report, run_and_wait
from test_e2e_paraphrases import figures, number, run_para, stamped_pairs, wait_para_runs

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CACHE_TIMEOUT_MS = 300_000


def precache(dist: Path) -> dict:
    """dist/sw-precache.js's {cache, files}."""
    text = (dist / "sw-precache.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


@pytest.fixture
def sw_context(playwright_sync):
    """A fresh profile where service workers are allowed (conftest blocks them elsewhere)."""
    profile = tempfile.TemporaryDirectory(prefix="evalsieve-offline-")
    context = launch(
        playwright_sync,
        profile.name,
        service_workers="allow",
        viewport={"width": 1280, "height": 1000},
    )
    yield context
    context.close()
    profile.cleanup()


def wait_for_offline_cache(page) -> list[str]:
    """Wait until the service worker is activated and controls the page (its install has
    filled the cache); return the names of the origin's caches."""
    page.wait_for_function(
        "() => navigator.serviceWorker.controller !== null"
        " && navigator.serviceWorker.controller.state === 'activated'",
        timeout=CACHE_TIMEOUT_MS,
    )
    return page.evaluate("caches.keys()")


def cached_paths(page, name: str, base: str) -> set[str]:
    urls = page.evaluate(
        "async (n) => (await (await caches.open(n)).keys()).map((r) => r.url)", name
    )
    return {u[len(base) :] for u in urls}


def cli_json(eval_path: Path, train_path: Path, out: Path) -> dict:
    """The CLI's --json summary for two files (default fields, as the page's example)."""
    code = "import sys; from evalsieve.cli import main; sys.exit(main(sys.argv[1:]))"
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "contamination",
            str(eval_path),
            str(train_path),
            "--out",
            str(out),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_offline_after_first_visit(sw_context, dist_dir, tmp_path):
    listed = precache(dist_dir)
    server = DistServer(dist_dir)
    page = open_page(sw_context, server.url)
    try:
        # First visit, online: the example runs from the network.
        assert wait_for_runs(page, 1) == "done"
        first = download_all(page, tmp_path / "first")
        stamp, _ = read_report(
            first["contamination-report.csv"].decode("utf-8"),
            first["run-stamp.json"].decode("utf-8"),
        )
        assert stamp["environment"] == {"assets_from": "network"}
        # The service worker fills one cache, named after the list, with every listed file.
        assert wait_for_offline_cache(page) == [listed["cache"]]
        assert cached_paths(page, listed["cache"], server.url) == {
            f["url"] for f in listed["files"]
        }
        assert {
            "index.html",
            "worker/worker.js",
            "assets/manifest.json",
            "assets/model/encoder.onnx",
        } <= {f["url"] for f in listed["files"]}

        # Offline: the server is gone and the browser has no network.
        server.stop()
        sw_context.set_offline(True)
        page.reload()
        assert wait_for_runs(page, 1) == "done", page.text_content("#error")
        assert page.evaluate("crossOriginIsolated") is True  # COOP/COEP came from the cache
        assert page.text_content("#results-label") == "example"
        example = cli_json(
            dist_dir / "example" / "eval.jsonl",
            dist_dir / "example" / "train.jsonl",
            tmp_path / "cli-example",
        )
        assert int(count(page, "contaminated")) == example["rows_contaminated"] > 0
        assert int(count(page, "eval rows scanned")) == example["rows_scanned"]

        # A dropped pair of files runs fully; its exports equal the CLI's, stamped "cache".
        eval_path, train_path = FIXTURES / "gsm8k_test_sample.jsonl", FIXTURES / "train_mix.jsonl"
        choose_file(page, "eval", eval_path, ["question"])
        choose_file(page, "train", train_path, ["text"])
        assert run_and_wait(page) == "done", page.text_content("#error")
        page_files = download_all(page, tmp_path / "offline")
        cli_files = cli_exports(eval_path, train_path, tmp_path / "cli", ["question"], ["text"])
        for name in page_files:
            assert without_stamp(name, page_files[name]) == without_stamp(name, cli_files[name]), (
                name
            )
        stamp, rows = read_report(
            page_files["contamination-report.csv"].decode("utf-8"),
            page_files["run-stamp.json"].decode("utf-8"),
        )
        assert stamp["environment"] == {"assets_from": "cache"}
        assert any(r["status"] == "contaminated" for r in rows)

        # The paraphrase tab: the worked example (hand-checked figures), then a dropped file.
        page.click("#tab-paraphrases")
        assert wait_para_runs(page, 1) == "done", page.text_content("#para-error")
        f = figures(page)
        assert (
            number(f["rows_scanned"]),
            number(f["groups"]),
            number(f["groups_chained"]),
            number(f["effective_rows"]),
        ) == (6, 2, 1, 3)
        questions = [json.loads(x)["question"] for x in eval_path.open(encoding="utf-8")]
        assert run_para(page, eval_path, "question") == "done", page.text_content("#para-error")
        assert number(figures(page)["rows_scanned"]) == len(questions)
        stamp, pairs = stamped_pairs(page, tmp_path / "para")
        env = stamp["environment"]
        assert env["assets_from"] == "cache"
        assert env["cross_origin_isolated"] is True and env["execution_provider"] == "wasm"
        assert env["threads"] == env["hardware_concurrency"] >= 1
        assert page.is_hidden("#para-threads-notice")
        assert "offline cache" in page.text_content('#para-settings dd[data-setting="assets"]')
        log = page.text_content("#log")
        assert "loaded from the cache" in log
    finally:
        sw_context.set_offline(False)
        close_page(page)
        server.stop()


def link_tree(src: Path, dest: Path) -> None:
    """dest/ mirrors src/ with a symlink per file (cheap; a file is changed by replacing it)."""
    for path in src.rglob("*"):
        target = dest / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)


def replace_file(path: Path, data: bytes) -> None:
    path.unlink()
    path.write_bytes(data)


def test_rebuilt_dist_with_a_changed_asset_replaces_the_cache(sw_context, dist_dir, tmp_path):
    site = tmp_path / "dist"
    link_tree(dist_dir, site)
    server = DistServer(site)
    try:
        page = open_page(sw_context, server.url)
        assert wait_for_runs(page, 1) == "done"
        old = precache(site)["cache"]
        assert wait_for_offline_cache(page) == [old]

        # The rebuild: one asset changes (same JSON, one more byte); manifest and list follow.
        changed = "assets/model/tokenizer.json"
        data = (dist_dir / changed).read_bytes() + b"\n"
        replace_file(site / changed, data)
        manifest = json.loads((site / "assets" / "manifest.json").read_text())
        (entry,) = [e for e in manifest.values() if e["path"] == changed]
        entry["sha256"] = hashlib.sha256(data).hexdigest()
        replace_file(
            site / "assets" / "manifest.json",
            (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode(),
        )
        (site / "sw-precache.js").unlink()  # a symlink into dist_dir: write a new file
        build_module().write_precache(site, manifest)  # what build.build() ends with
        new = precache(site)["cache"]
        assert new != old

        page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
        page.wait_for_function(
            """async () => {
            const r = await navigator.serviceWorker.getRegistration();
            return Boolean(r && r.waiting && r.waiting.state === 'installed'); }""",
            timeout=CACHE_TIMEOUT_MS,
        )
        close_page(page)  # the old worker's last page: the new one activates
        names = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and names != [new]:
            for worker in sw_context.service_workers:
                try:
                    names = worker.evaluate("caches.keys()")
                except Exception:  # noqa: BLE001  (the old worker may be gone)
                    continue
            time.sleep(0.5)
        assert names == [new], "the old cache was not deleted on activate"

        page = open_page(sw_context, server.url)
        assert wait_for_runs(page, 1) == "done", page.text_content("#error")
        assert page.evaluate("caches.keys()") == [new]
        got = page.evaluate(
            """async (u) => {
            const r = await fetch(u);
            const d = await crypto.subtle.digest('SHA-256', await r.arrayBuffer());
            return [r.headers.get('X-Evalsieve-From'),
                    Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('')];
        }""",
            changed,
        )
        assert got == ["cache", entry["sha256"]]
        close_page(page)
    finally:
        server.stop()
