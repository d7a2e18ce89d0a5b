"""build.py: dist/ matches assets.lock.json, the server's headers, a tampered cache fails.

These run against the dist/ that `python3 build.py test` has just written (or the one named
by $EVALSIEVE_DIST) and the download cache in .cache/; they do no network I/O.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DIST = Path(os.environ.get("EVALSIEVE_DIST", ROOT / "dist"))
CACHE = ROOT / ".cache"


def _load_build_module():
    spec = importlib.util.spec_from_file_location("evalsieve_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build_module()
LOCK = build.load_lock()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def manifest() -> dict:
    path = DIST / "assets" / "manifest.json"
    assert path.is_file(), f"{path} is missing: run `python3 build.py build` first"
    return json.loads(path.read_text())


@pytest.mark.parametrize("asset", LOCK["assets"], ids=lambda a: a["name"])
def test_locked_asset_is_in_dist_with_its_sha256(asset, manifest):
    path = DIST / asset["dist"]
    assert path.is_file(), f"{asset['name']}: {path} is missing"
    actual = sha256(path)
    if asset.get("derive"):
        # Derived files (graph surgery) differ from their source; the manifest has their sha.
        assert manifest[asset["name"]]["sha256"] == actual
        assert actual != asset["sha256"], f"{asset['name']} was copied verbatim, not derived"
    else:
        assert actual == asset["sha256"], f"{asset['name']}: dist file differs from the lock"
    if asset["dist"].startswith("assets/"):
        entry = manifest[asset["name"]]
        offline = {"offline": asset["offline"]} if "offline" in asset else {}
        assert entry == {
            "version": asset["version"],
            "sha256": actual,
            "path": asset["dist"],
            **offline,
        }


def test_manifest_lists_only_files_that_exist_with_that_sha256(manifest):
    locked = {a["name"] for a in LOCK["assets"] if a["dist"].startswith("assets/")}
    assert set(manifest) == locked | {"evalsieve"}
    for name, entry in manifest.items():
        assert sha256(DIST / entry["path"]) == entry["sha256"], name
    wheel = DIST / manifest["evalsieve"]["path"]
    assert wheel.name == f"evalsieve-{manifest['evalsieve']['version']}-py3-none-any.whl"


def test_ort_files_all_come_from_one_onnxruntime_web_version():
    ort = [a for a in LOCK["assets"] if a["dist"].startswith("assets/ort/")]
    assert {a["source"] for a in ort} == {"npm:onnxruntime-web@1.30.0"}
    assert {Path(a["dist"]).name for a in ort} >= {
        "ort.wasm.min.mjs",
        "ort-wasm-simd-threaded.mjs",
        "ort-wasm-simd-threaded.wasm",
    }


def test_pyodide_test_lock_lists_exactly_the_wheels_beside_it():
    out = DIST / "pyodide-test"
    lock = json.loads((out / "pyodide-lock.json").read_text())
    test_only = {
        a["name"]
        for a in LOCK["assets"]
        if a["dist"].startswith("pyodide-test/") and a["dist"].endswith(".whl")
    }
    assert test_only == {"pytest", "pluggy", "iniconfig", "pygments"}
    assert set(lock["packages"]) == {"micropip", "packaging", "evalsieve"} | test_only
    assert sorted(out.glob("*.whl")) == sorted(
        out / e["file_name"] for e in lock["packages"].values()
    )
    for entry in lock["packages"].values():
        assert sha256(out / entry["file_name"]) == entry["sha256"]
        assert set(entry["depends"]) <= set(lock["packages"]), entry["name"]
    # loadPackage("pytest") must bring its unconditional requirements (not colorama/tomli).
    assert lock["packages"]["pytest"]["depends"] == ["iniconfig", "packaging", "pluggy", "pygments"]
    for name in build.PYODIDE_TEST_CORE:
        assert (out / name).is_file(), name


def test_every_page_file_is_in_dist_at_its_path():
    """site/ with its module folders (lib/, ui/, sections/) is copied byte for byte."""
    site = ROOT / "site"
    files = [p.relative_to(site) for p in site.rglob("*") if p.is_file()]
    assert any(len(f.parts) > 1 for f in files), "site/ has no module folders"
    assert [str(f) for f in files if (DIST / f).read_bytes() != (site / f).read_bytes()] == []


def test_example_has_three_planted_eval_questions():
    train = [json.loads(line) for line in (DIST / "example" / "train.jsonl").open()]
    evals = [json.loads(line) for line in (DIST / "example" / "eval.jsonl").open()]

    def words(text):
        return "".join(c if c.isalnum() else " " for c in text.lower()).split()

    corpus = " ".join(" ".join(words(r["text"])) for r in train)
    planted = [e["id"] for e in evals if " ".join(words(e["question"])) in corpus]
    assert planted == ["q1", "q2", "q3"]


@pytest.fixture(scope="module")
def server_url():
    """`build.py serve --no-build` on a free port, as a subprocess; yields its printed URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "--dist",
            str(DIST),
            "serve",
            "--no-build",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/"), url
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def fetch_headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url) as response:
        assert response.status == 200
        response.read()
        return {k.lower(): v for k, v in response.headers.items()}


EXPECTED_CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
    "worker-src 'self' blob:; connect-src 'self'; frame-src 'none'; "
    "object-src 'none'"
)


@pytest.mark.parametrize(
    "path, mime",
    [
        ("index.html", "text/html"),
        ("assets/pyodide/pyodide.asm.wasm", "application/wasm"),
        ("assets/ort/ort-wasm-simd-threaded.wasm", "application/wasm"),
        ("assets/pyodide/pyodide.mjs", "text/javascript"),
        ("worker/worker.js", "text/javascript"),
        ("worker/prefilter.wasm", "application/wasm"),
        ("lib/worker-client.js", "text/javascript"),
        ("sections/job-section.js", "text/javascript"),
        ("sw.js", "text/javascript"),
        ("sw-precache.js", "text/javascript"),
    ],
)
def test_server_sends_isolation_headers_csp_and_mime(server_url, path, mime):
    headers = fetch_headers(server_url + path)
    assert headers["content-type"].split(";")[0] == mime
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert headers["cross-origin-embedder-policy"] == "require-corp"
    assert headers["cross-origin-resource-policy"] == "same-origin"
    assert headers["content-security-policy"] == EXPECTED_CSP
    assert headers["cache-control"] == "no-store"


def test_server_falls_back_to_a_free_port_when_the_port_is_busy():
    busy = build.make_server(DIST, 0)
    try:
        port = busy.server_address[1]
        other = build.make_server(DIST, port)
        try:
            assert other.server_address[1] not in (port, 0)
        finally:
            other.server_close()
    finally:
        busy.server_close()


def _cache_with_tampered(tmp_path: Path, file_name: str) -> Path:
    """A copy of .cache/sources in tmp_path (hard links) with `file_name` altered."""
    sources = CACHE / "sources"
    assert sources.is_dir(), "no .cache/sources: run `python3 build.py build` first"
    fake = tmp_path / "cache" / "sources"
    fake.mkdir(parents=True)
    for path in sources.iterdir():
        if path.name == file_name:
            data = bytearray(path.read_bytes())
            data[len(data) // 2] ^= 0xFF
            (fake / path.name).write_bytes(bytes(data))
        else:
            try:
                os.link(path, fake / path.name)
            except OSError:
                shutil.copyfile(path, fake / path.name)
    return fake.parent


def test_fetch_refuses_a_tampered_cached_source(tmp_path):
    key = "npm:hash-wasm@4.13.0"
    source = LOCK["sources"][key]
    cache = _cache_with_tampered(tmp_path, source["file"])
    with pytest.raises(build.BuildError, match=r"asset source npm:hash-wasm@4\.13\.0.*sha256"):
        build.fetch_source(key, source, cache)
    # The bad file is left for a human to look at, not silently replaced.
    assert sha256(cache / "sources" / source["file"]) != source["sha256"]


def test_build_command_fails_naming_the_tampered_asset_and_writes_no_dist(tmp_path):
    source = LOCK["sources"]["pypi:micropip==0.11.1"]
    cache = _cache_with_tampered(tmp_path, source["file"])
    out = tmp_path / "dist"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "--dist",
            str(out),
            "--cache",
            str(cache),
            "build",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1
    assert "asset source pypi:micropip==0.11.1" in proc.stderr
    assert source["file"] in proc.stderr
    assert not out.exists()


def test_tampered_extracted_member_is_refused(tmp_path):
    asset = next(a for a in LOCK["assets"] if a["name"] == "tokenizers.min.mjs")
    cache = _cache_with_tampered(tmp_path, "nothing-tampered")
    (cache / "extracted").mkdir()
    (cache / "extracted" / asset["sha256"]).write_bytes(b"export default 1;\n")
    with pytest.raises(build.BuildError, match=r"asset tokenizers\.min\.mjs .* sha256"):
        build.asset_bytes(asset, LOCK, cache)


PYODIDE_PROBE = """
from pytest_pyodide import run_in_pyodide


@run_in_pyodide(packages=["evalsieve"])
def test_evalsieve_wheel_imports_in_pyodide(selenium):
    import sys

    from evalsieve import text

    assert sys.version_info[:2] == (3, 14)
    assert text.normalize_words("Hello, World!") == ["hello", "world"]
"""


def test_pyodide_test_dir_runs_our_wheel_under_pytest_pyodide(tmp_path):
    """dist/pyodide-test/ is a working pytest-pyodide --dist-dir (node runtime, no browser)."""
    pytest.importorskip("pytest_pyodide")
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH (pytest-pyodide's node runtime needs it)")
    (tmp_path / "test_probe.py").write_text(PYODIDE_PROBE)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_probe.py"),
            "--rt",
            "node",
            "--dist-dir",
            str(DIST / "pyodide-test"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout


def test_missing_graph_tool_is_an_error_not_a_placeholder_model(tmp_path, monkeypatch):
    """build.py once shipped model.onnx verbatim (no pooling, no tile graph) when
    the graph tool was absent; now the build names the missing tool (py/evalsieve/encoder_graph.py)."""
    monkeypatch.setattr(build, "ROOT", tmp_path)
    with pytest.raises(build.BuildError, match=r"py/evalsieve/encoder_graph\.py is missing"):
        build.derive_models(b"not a model", tmp_path / "cache")
    assert not hasattr(build, "graph_tool")


def test_every_worker_module_is_in_dist_subfolders_included():
    src = sorted(p.relative_to(ROOT / "worker").as_posix() for p in (ROOT / "worker").rglob("*.js"))
    assert "jobs/contamination.js" in src and "embed/encoder.js" in src
    for rel in src:
        assert (DIST / "worker" / rel).read_bytes() == (ROOT / "worker" / rel).read_bytes(), rel


def test_the_committed_kernel_is_served_from_dist():
    assert (DIST / "worker" / "prefilter.wasm").read_bytes() == build.KERNEL_WASM.read_bytes()


def test_the_committed_kernel_is_what_its_source_compiles_to(tmp_path):
    """kernels/prefilter.wasm is served as committed (no compiler needed to build dist/); with
    the clang that made it, `python3 build.py wasm` must give the same bytes."""
    major = build.clang_major()
    if major is None or shutil.which("wasm-ld") is None:
        pytest.skip(
            "clang and wasm-ld are not installed (apt-get install clang lld): the committed "
            "kernels/prefilter.wasm cannot be rebuilt here"
        )
    if major != build.KERNEL_CLANG_MAJOR:
        pytest.skip(
            f"clang {major} here, the committed kernel was built by clang "
            f"{build.KERNEL_CLANG_MAJOR}: another major version may emit other bytes"
        )
    out = build.build_kernel(tmp_path / "prefilter.wasm")
    assert out.read_bytes() == build.KERNEL_WASM.read_bytes(), (
        "kernels/prefilter.wasm is stale: run python3 build.py wasm and commit it"
    )


def read_precache(dist: Path) -> dict:
    text = (dist / "sw-precache.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


def test_service_worker_list_is_every_dist_file_with_its_sha256(manifest):
    """dist/sw-precache.js: every file but sw.js, the list itself and pyodide-test/; the
    manifest's assets with the manifest's sha256; the WebGPU runtime and graph (lock
    "offline": "on-use") cached on first use, not at install; the cache named after both."""
    listing = read_precache(DIST)
    files = {f["url"]: f["sha256"] for f in listing["files"]}
    on_use = {f["url"]: f["sha256"] for f in listing["on_use"]}
    on_disk = {p.relative_to(DIST).as_posix() for p in DIST.rglob("*") if p.is_file()}
    assert not set(files) & set(on_use)
    assert set(files) | set(on_use) == {
        p
        for p in on_disk
        if p not in ("sw.js", "sw-precache.js") and not p.startswith("pyodide-test/")
    }
    assert {
        "index.html",
        "app.js",
        "worker/worker.js",
        "example/eval.jsonl",
        "assets/model/encoder.onnx",
        "assets/ort/ort-wasm-simd-threaded.wasm",
    } <= set(files)
    assert set(on_use) == {
        "assets/model/encoder-fp32.onnx",
        "assets/ort/ort.webgpu.min.mjs",
        "assets/ort/ort-wasm-simd-threaded.asyncify.mjs",
        "assets/ort/ort-wasm-simd-threaded.asyncify.wasm",
    }
    assert sum((DIST / u).stat().st_size for u in on_use) > 100e6  # what install no longer fetches
    both = {**files, **on_use}
    assert {url: sha256(DIST / url) for url in both} == both
    assert {e["path"]: both[e["path"]] for e in manifest.values()} == {
        e["path"]: e["sha256"] for e in manifest.values()
    }
    canonical = json.dumps(
        {"files": listing["files"], "on_use": listing["on_use"]},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    assert listing["cache"] == "evalsieve-" + hashlib.sha256(canonical).hexdigest()[:16]
    assert (DIST / "sw.js").read_bytes() == (ROOT / "site" / "sw.js").read_bytes()


def test_service_worker_cache_name_follows_any_change_and_a_mismatch_is_refused(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<p>one</p>")
    (tmp_path / "assets" / "m.onnx").write_bytes(b"model")
    manifest = {"m": {"path": "assets/m.onnx", "sha256": hashlib.sha256(b"model").hexdigest()}}
    one = build.write_precache(tmp_path, manifest)
    assert read_precache(tmp_path) == one
    assert build.precache_list(tmp_path, manifest) == one  # sw-precache.js is not listed
    (tmp_path / "index.html").write_text("<p>two</p>")
    two = build.precache_list(tmp_path, manifest)
    assert two["cache"] != one["cache"]
    assert [f["url"] for f in two["files"]] == ["assets/m.onnx", "index.html"]
    assert two["on_use"] == []
    manifest["m"]["offline"] = "on-use"  # the same file, cached on first use: a new cache too
    three = build.precache_list(tmp_path, manifest)
    assert [f["url"] for f in three["files"]] == ["index.html"]
    assert three["on_use"] == [
        {"url": "assets/m.onnx", "sha256": hashlib.sha256(b"model").hexdigest()}
    ]
    assert three["cache"] not in (one["cache"], two["cache"])
    manifest["m"]["sha256"] = "0" * 64
    with pytest.raises(build.BuildError, match=r"dist/assets/m\.onnx does not match its sha256"):
        build.precache_list(tmp_path, manifest)
