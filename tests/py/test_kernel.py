"""The scan kernel's one source (kernels/spec.h from Python) and its CPython host.

kernels/spec.h must be what evalsieve.kernel_spec gives (build.py wasm writes it): a change
of the rule's ASCII classes, of MAX_JSON_DEPTH or of the hash constants in Python fails here
until the header (and the .wasm: tests/test_build.py) is rebuilt.
"""

import multiprocessing as mp
import os
import sys

import pytest

from evalsieve import kernel_spec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_committed_spec_header_is_what_python_gives():
    with open(os.path.join(ROOT, "kernels", "spec.h"), encoding="utf-8") as f:
        committed = f.read()
    assert committed == kernel_spec.header(), \
        "kernels/spec.h is stale: run python3 build.py wasm and commit it"


def test_ascii_classes_by_hand():
    cls = kernel_spec.ascii_classes()
    space = [c for c in range(128) if cls[c] == kernel_spec.SPACE]
    punct = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.PUNCT)
    upper = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.UPPER)
    assert space == [9, 10, 11, 12, 13, 28, 29, 30, 31, 32]
    assert punct == "!\"#%&'()*,-./:;?@[\\]_{}"   # $ + < = > ^ ` | ~ are symbols: kept
    assert upper == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    low = kernel_spec.low_table()
    assert low[ord("A")] == ord("a") and low[ord("z")] == ord("z") and low[ord("$")] == ord("$")
    assert low[ord(" ")] == kernel_spec.L_SPACE and low[ord(",")] == kernel_spec.L_PUNCT
    assert [b for b in range(256) if low[b] == kernel_spec.L_STOP] == \
        list(range(32)) + [0x22, 0x5C] + list(range(128, 256))
    assert kernel_spec.space_ranges(0xFFFF)[2:] == [
        (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
        (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]


def test_prefilter_js_states_the_same_tables():
    """prefilter.js (the page's fallback and the kernel's oracle) still types its ASCII
    classes; they must be Python's."""
    with open(os.path.join(ROOT, "worker", "prefilter.js"), encoding="utf-8") as f:
        js = f.read()
    cls = kernel_spec.ascii_classes()
    space = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.SPACE)
    punct = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.PUNCT)
    assert "for (const c of '\\t\\n\\x0b\\x0c\\r\\x1c\\x1d\\x1e\\x1f ') CLASS" in js
    assert space == "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
    assert "for (const c of '!\"#%&\\'()*,-./:;?@[\\\\]_{}') CLASS" in js
    assert punct == "!\"#%&'()*,-./:;?@[\\]_{}"
    for name, value in (("FNV_OFFSET", kernel_spec.FNV_OFFSET), ("FNV_PRIME", kernel_spec.FNV_PRIME),
                        ("MIX", kernel_spec.MIX)):
        assert f"const {name} = {value:#010x}" in js
    assert f"{kernel_spec.PROBE_MUL:#x}" in js


def _scan_in_child(q, spec):
    from evalsieve.kernel import KernelFilter
    ks = KernelFilter(spec["ngrams"], spec["n"], "jsonl").scanner(spec["paths"])
    q.put(ks.scan(spec["block"])[:3])


@pytest.mark.skipif(sys.platform == "emscripten", reason="no processes in Pyodide")
def test_kernel_runs_in_a_process_forked_after_a_compile():
    """A worker forked after this process compiled the kernel compiles its own (the
    --workers hang was cranelift's parallel compilation: its thread pool does not survive
    a fork, and the child's compile waited forever)."""
    pytest.importorskip("wasmtime")
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    from evalsieve.kernel import KernelFilter
    block = b'{"text": "alpha beta gamma delta"}\n{"text": "x"}\n\n'
    spec = {"ngrams": ["alpha beta gamma"], "n": 3, "paths": [["text"]], "block": block}
    ks = KernelFilter(spec["ngrams"], 3, "jsonl").scanner(spec["paths"])
    here = ks.scan(block)
    assert here[:3] == (2, 3, len(block)) and list(here[3]) == [1, 1, 0, 34]
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_scan_in_child, args=(q, spec))
    p.start()
    p.join(60)
    hung = p.is_alive()
    if hung:
        p.kill()
        p.join()
    assert not hung, "the kernel's compile in a forked process did not finish"
    assert q.get(timeout=5) == (2, 3, len(block))


def test_kernel_filter_pickles_without_its_instances():
    pytest.importorskip("wasmtime")
    import pickle
    from evalsieve.kernel import KernelFilter
    kf = KernelFilter(["a b"], 2, "text")
    kf.scanner([["text"]])
    back = pickle.loads(pickle.dumps(kf))
    assert back._local == {} and back.ngrams == ["a b"] and back.n == 2
    r = back.scanner([["text"]]).scan("x A, b y\nnothing\n".encode())
    assert r[:2] == (2, 2) and list(r[3]) == [1, 1, 0, 8]


def test_ext_tables_are_char_table():
    """The kernel's map of non-ASCII code units is text.char_table, white space as ' '."""
    from evalsieve.kernel import EXT_GONE, EXT_NONE, ext_tables
    from evalsieve.text import char_table
    ext, pool = ext_tables()
    table = char_table()
    assert ext[0xE9] == 0xE9 and ext[0xC9] == 0xE9          # é; É lowered
    assert ext[0x201C] == EXT_GONE and ext[0xA0] == 0x20     # a curly quote; NBSP
    assert ext[0xD800] == EXT_NONE and ext[0x0301] == EXT_NONE   # a surrogate; a mark
    m = ext[0x2161]                                          # Roman numeral two -> "ii"
    assert m <= -3 and list(pool[-m - 3:-m - 3 + 3]) == [2, ord("i"), ord("i")]
    assert sum(1 for c in range(128, 0x10000) if ext[c] != EXT_NONE) == \
        sum(1 for c in table if 128 <= c <= 0xFFFF)
