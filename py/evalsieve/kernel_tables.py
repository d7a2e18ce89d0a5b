"""The scan kernel's character tables by UTF-16 code unit, and their published copy.

:func:`ext_tables` lays out :func:`kernel_spec.kernel_table` (text.char_table and the marks,
with their context flags) as kernels/prefilter.c reads it. Computing it walks the whole Basic
Multilingual Plane through ``unicodedata`` (about half a second), so ``python3 build.py
wasm`` publishes the result as ``evalsieve/kernel_table.bin`` (:func:`write_published`),
shipped in the wheel. A process loads that file only when it was made by the same rule
for the same Unicode data: its header holds ``unicodedata.unidata_version`` and the sha256 of
the modules that define the rule (:data:`RULE_MODULES`); otherwise the tables are computed
here, as before, and the result is the same (tests/py/test_kernel_tables.py holds the
committed file to a fresh computation, and fails when it is stale). A Python of another
Unicode version (3.12 and later, Pyodide) keeps the tables it computed in the user's cache
folder, named by its Unicode version and the rule's digest, and loads them on later runs.

File layout (little-endian, the kernel's own byte order): one JSON line
``{"format": 1, "unidata": ..., "rule": sha256 hex, "ext": bytes, "pool": bytes,
"flags": bytes}``, then zlib of EXT (int32), POOL (uint16) and FLAGS (uint32) back to back.
"""

from __future__ import annotations

import hashlib
import json
import sys
import unicodedata
import zlib
from array import array
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PUBLISHED = _HERE / "kernel_table.bin"
#: the modules whose source defines the tables: a change to any of them makes the published
#: file stale (it is then not used)
RULE_MODULES = ("text.py", "kernel_spec.py", "kernel_tables.py")
EXT_NONE, EXT_GONE = -1, -2
FORMAT = 1

_CACHE: dict = {}


def utf16(s: str) -> list[int]:
    """The UTF-16 code units of ``s`` (lone surrogates kept)."""
    return array("H", s.encode("utf-16-le", "surrogatepass")).tolist()


def rule_digest() -> str:
    """sha256 (hex) of the rule's modules as this install has them."""
    h = hashlib.sha256()
    for name in RULE_MODULES:
        h.update(name.encode() + b"\0" + (_HERE / name).read_bytes() + b"\0")
    return h.hexdigest()


def compute_tables() -> tuple[array, array, array]:
    """The tables from the running Python's rule (see :func:`ext_tables`)."""
    from .kernel_spec import kernel_table

    table, flags = kernel_table()
    ext = array("i", [EXT_NONE]) * 0x10000
    pool = array("H")
    for c, rep in sorted(table.items()):
        if c < 128 or c > 0xFFFF:
            continue
        r = utf16("".join(" " if ch.isspace() else ch for ch in rep))
        if not r:
            ext[c] = EXT_GONE
        elif len(r) == 1:
            ext[c] = r[0]
        else:
            ext[c] = -3 - len(pool)
            pool.append(len(r))
            pool.extend(r)
    if not pool:
        pool.append(0)
    fl = array("I", [0]) * 0x10000
    for c, bits in flags.items():
        fl[c] = bits
    return ext, pool, fl


def _le(a: array) -> bytes:
    if sys.byteorder == "big":
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def published_bytes(tables: tuple[array, array, array] | None = None) -> bytes:
    """The published file's bytes for ``tables`` (default: computed now)."""
    ext, pool, fl = tables or compute_tables()
    parts = [_le(ext), _le(pool), _le(fl)]
    head = {
        "format": FORMAT,
        "unidata": unicodedata.unidata_version,
        "rule": rule_digest(),
        "ext": len(parts[0]),
        "pool": len(parts[1]),
        "flags": len(parts[2]),
    }
    return json.dumps(head, sort_keys=True).encode() + b"\n" + zlib.compress(b"".join(parts), 9)


def write_published(path: Path = PUBLISHED) -> Path:
    """Write the published tables (``python3 build.py wasm`` calls this)."""
    path.write_bytes(published_bytes())
    return path


def load_published(path: Path = PUBLISHED) -> tuple[array, array, array] | None:
    """The published tables, or None when the file is absent, unreadable, or made for
    another Unicode version or another rule than this install's."""
    try:
        raw = path.read_bytes()
        line, _, body = raw.partition(b"\n")
        head = json.loads(line)
        if (
            head.get("format") != FORMAT
            or head.get("unidata") != unicodedata.unidata_version
            or head.get("rule") != rule_digest()
        ):
            return None
        data = zlib.decompress(body)
        ne, np_, nf = head["ext"], head["pool"], head["flags"]
        if len(data) != ne + np_ + nf or ne != 4 * 0x10000 or nf != 4 * 0x10000:
            return None
    except (OSError, ValueError, KeyError, zlib.error):
        return None
    out = []
    for code, chunk in (("i", data[:ne]), ("H", data[ne : ne + np_]), ("I", data[ne + np_ :])):
        a = array(code)
        a.frombytes(chunk)
        if sys.byteorder == "big":
            a.byteswap()
        out.append(a)
    return out[0], out[1], out[2]


def ext_tables() -> tuple[array, array, array]:
    """The kernel table (:func:`kernel_spec.kernel_table`: text.char_table and the marks)
    by UTF-16 code unit, as the kernel reads it: EXT[c] >= 0 the one unit c becomes,
    EXT_GONE deleted, EXT_NONE unknown (the record goes to Python), <= -3 a replacement of
    several units at POOL[-EXT[c] - 3] (its length, then the units); FLAGS[c] the context
    flags. White space in a replacement is ' ' (the kernel splits words on ASCII white
    space only). For the characters of char_table, the same EXT as prefilter.js's extCode.

    Returns ``(EXT int32 x 65536, POOL uint16, FLAGS uint32 x 65536)``: the published copy
    when it matches this install's rule and Unicode data, else computed (once a process).
    """
    if "ext" not in _CACHE:
        got, source = load_published(PUBLISHED), "published"
        cached = None if got is not None else _user_copy()
        if got is None and cached is not None:
            got, source = load_published(cached), "cached"
        if got is None:
            got, source = compute_tables(), "computed"
            if cached is not None:
                _write_quietly(cached, got)
        _CACHE["source"], _CACHE["ext"] = source, got
    return _CACHE["ext"]


def _user_copy() -> Path | None:
    """Where this install keeps the tables it computed for a Python whose Unicode data the
    published copy is not for (``$EVALSIEVE_CACHE_DIR``, else platformdirs' user cache
    folder when platformdirs is installed; None: nowhere, compute each run)."""
    from .errors import EvalsieveError
    from .model_cache import cache_root  # the encoder's cache folder: the same rule

    try:
        root = cache_root()
    except EvalsieveError:  # no platformdirs
        return None
    return root / f"kernel-table-{unicodedata.unidata_version}-{rule_digest()[:16]}.bin"


def _write_quietly(path: Path, tables) -> None:
    """Write a computed copy (whole, by rename: concurrent workers may race); a folder that
    cannot be written only costs the next run the computation."""
    import os

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(published_bytes(tables))
        os.replace(tmp, path)
    except OSError:
        pass


def tables_source() -> str | None:
    """``"published"``, ``"cached"`` (this user's computed copy) or ``"computed"``: where
    this process's tables came from (None: not made yet)."""
    return _CACHE.get("source")
