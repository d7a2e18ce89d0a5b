"""The kernel's character tables as published in the package (evalsieve/kernel_table.bin).

The CLI loads the published copy instead of walking the BMP through unicodedata each run;
it must be exactly what Python's rule gives now (build.py wasm writes it), and a copy made
by another rule or Unicode version must not be used.
"""

import json
import unicodedata

import pytest

from evalsieve import kernel_spec
from evalsieve import kernel_tables as kt


def test_published_tables_are_what_python_gives():
    if not kt.PUBLISHED.is_file():
        pytest.skip("evalsieve/kernel_table.bin is not in this install")
    head = json.loads(kt.PUBLISHED.read_bytes().partition(b"\n")[0])
    if head["unidata"] != unicodedata.unidata_version:  # e.g. Pyodide's newer CPython
        assert kt.load_published() is None  # not used here: computed instead
        pytest.skip(
            f"kernel_table.bin is for Unicode {head['unidata']}, this Python has "
            f"{unicodedata.unidata_version}: it computes the tables"
        )
    assert head["rule"] == kt.rule_digest(), (
        "kernel_table.bin is stale (text.py, kernel_spec.py or kernel_tables.py changed): "
        "run python3 build.py wasm and commit it"
    )
    got = kt.load_published()
    assert got is not None
    fresh = kt.compute_tables()
    for name, a, b in zip(("EXT", "POOL", "FLAGS"), got, fresh):
        assert a == b, f"the published {name} differs from Python's rule"


def test_hand_checked_entries():
    ext, pool, flags = kt.ext_tables()
    assert ext[0xC9] == 0xE9  # É -> é
    assert ext[0xAC00] == 0xAC00  # 가: a Hangul syllable is itself
    assert ext[0x0628] == 0x0628  # ب
    assert ext[0x0915] == 0x0915  # क
    assert ext[0x00BF] == kt.EXT_GONE  # ¿ is punctuation (Po): deleted
    assert ext[0x03A3] == kt.EXT_NONE  # Σ: Final_Sigma, Python's
    m = ext[0xFB01]  # ﬁ -> "fi" (NFKC), several units
    assert m <= -3 and list(pool[-m - 3 : -m - 3 + 3]) == [2, ord("f"), ord("i")]
    assert flags[0x064E] & 0xFF == 30  # fatha: combining class 30, a mark
    assert flags[0x064E] & kernel_spec.F_NOSTARTER


def test_stale_or_foreign_copy_is_not_used(tmp_path):
    good = kt.published_bytes()
    path = tmp_path / "kernel_table.bin"
    path.write_bytes(good)
    assert kt.load_published(path) is not None
    line, _, body = good.partition(b"\n")
    for key, value in (("rule", "0" * 64), ("unidata", "1.0.0"), ("format", 99)):
        head = json.loads(line)
        head[key] = value
        path.write_bytes(json.dumps(head).encode() + b"\n" + body)
        assert kt.load_published(path) is None, key
    path.write_bytes(line + b"\n" + body[:-10])  # truncated
    assert kt.load_published(path) is None
    assert kt.load_published(tmp_path / "absent.bin") is None


def test_a_python_the_published_copy_is_not_for_computes_once_then_loads(tmp_path, monkeypatch):
    monkeypatch.setattr(kt, "PUBLISHED", tmp_path / "absent.bin")
    monkeypatch.setenv("EVALSIEVE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kt, "_CACHE", {})
    first = kt.ext_tables()
    assert kt.tables_source() == "computed"
    copy = (
        tmp_path
        / "cache"
        / (f"kernel-table-{unicodedata.unidata_version}-{kt.rule_digest()[:16]}.bin")
    )
    assert copy.is_file()
    monkeypatch.setattr(kt, "_CACHE", {})
    assert kt.ext_tables() == first and kt.tables_source() == "cached"
    copy.write_bytes(b"{}\n")  # damaged: computed again, rewritten
    monkeypatch.setattr(kt, "_CACHE", {})
    assert kt.ext_tables() == first and kt.tables_source() == "computed"
    assert kt.load_published(copy) is not None
