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


def source(*parts: str) -> str:
    """A file of the checkout (the Pyodide suite copies tests/py and tests/fixtures only:
    skip there)."""
    path = os.path.join(ROOT, *parts)
    if not os.path.isfile(path):
        pytest.skip(f"{'/'.join(parts)} is not in this run (the Pyodide suite's copy)")
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_committed_spec_header_is_what_python_gives():
    committed = source("kernels", "spec.h")
    assert committed == kernel_spec.header(), (
        "kernels/spec.h is stale: run python3 build.py wasm and commit it"
    )


def test_ascii_classes_by_hand():
    cls = kernel_spec.ascii_classes()
    space = [c for c in range(128) if cls[c] == kernel_spec.SPACE]
    punct = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.PUNCT)
    upper = "".join(chr(c) for c in range(128) if cls[c] == kernel_spec.UPPER)
    assert space == [9, 10, 11, 12, 13, 28, 29, 30, 31, 32]
    assert punct == "!\"#%&'()*,-./:;?@[\\]_{}"  # $ + < = > ^ ` | ~ are symbols: kept
    assert upper == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    low = kernel_spec.low_table()
    assert low[ord("A")] == ord("a") and low[ord("z")] == ord("z") and low[ord("$")] == ord("$")
    assert low[ord(" ")] == kernel_spec.L_SPACE and low[ord(",")] == kernel_spec.L_PUNCT
    assert [b for b in range(256) if low[b] == kernel_spec.L_STOP] == list(range(32)) + [
        0x22,
        0x5C,
    ] + list(range(128, 256))
    assert kernel_spec.space_ranges(0xFFFF)[2:] == [
        (0x85, 0x85),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
    ]


def test_committed_js_spec_is_what_python_gives():
    """worker/prefilter-spec.js (prefilter.js's ASCII classes, white space, MAX_JSON_DEPTH
    and hash constants) is generated from Python's spec, as kernels/spec.h is."""
    committed = source("worker", "prefilter-spec.js")
    assert committed == kernel_spec.js_module(), (
        "worker/prefilter-spec.js is stale: run python3 build.py wasm and commit it"
    )
    assert "export const MAX_JSON_DEPTH = 400;" in committed  # records.MAX_JSON_DEPTH
    assert "export const FNV_PRIME = 0x01000193;" in committed


def test_prefilter_js_types_no_table_or_constant_itself():
    """prefilter.js and prefilter-exact.js take the rule's tables and the hash constants
    from prefilter-spec.js only: none is typed a second time."""
    for name in ("prefilter.js", "prefilter-exact.js"):
        js = source("worker", name)
        assert "from './prefilter-spec.js'" in js, name
        for value in (
            kernel_spec.FNV_OFFSET,
            kernel_spec.FNV_PRIME,
            kernel_spec.MIX,
            kernel_spec.COUNT_MIX,
            kernel_spec.PROBE_MUL,
        ):
            assert f"{value:#x}" not in js.lower(), (name, hex(value))
        assert "CLASS[" not in js.replace("CLASS[c]", ""), name  # read, never assigned
        assert "\\u205f" not in js and "400" not in js, name


def _scan_in_child(q, spec):
    from evalsieve.kernel import KernelFilter

    ks = KernelFilter(spec["ngrams"], spec["n"], "jsonl", spec["ngrams"]).scanner(spec["paths"])
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
    ks = KernelFilter(spec["ngrams"], 3, "jsonl", spec["ngrams"]).scanner(spec["paths"])
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

    kf = KernelFilter(["a b"], 2, "text", ["a b"])
    kf.scanner([["text"]])
    back = pickle.loads(pickle.dumps(kf))
    assert back._local == {} and back.ngrams == ["a b"] and back.n == 2
    r = back.scanner([["text"]]).scan(b"x A, b y\nnothing\n")
    assert r[:2] == (2, 2) and list(r[3]) == [1, 1, 0, 8]


def test_ext_tables_are_the_kernel_table():
    """The kernel's map of non-ASCII code units: text.char_table and the marks, white space
    as ' ', with the flags of kernel_spec.kernel_table."""
    from evalsieve.kernel import EXT_GONE, EXT_NONE, ext_tables
    from evalsieve.kernel_spec import F_FIRST, F_KSTARTER, F_NOSTARTER, F_SECOND, kernel_table
    from evalsieve.text import char_table

    ext, pool, flags = ext_tables()
    table, _ = kernel_table()
    assert set(char_table()) <= set(table)
    assert ext[0xE9] == 0xE9 and ext[0xC9] == 0xE9  # é; É lowered
    assert ext[0x201C] == EXT_GONE and ext[0xA0] == 0x20  # a curly quote; NBSP
    assert ext[0xD800] == EXT_NONE and ext[0x03A3] == EXT_NONE  # a surrogate; capital sigma
    m = ext[0x2161]  # Roman numeral two -> "ii"
    assert m <= -3 and list(pool[-m - 3 : -m - 3 + 3]) == [2, ord("i"), ord("i")]
    assert sum(1 for c in range(128, 0x10000) if ext[c] != EXT_NONE) == sum(
        1 for c in table if 128 <= c <= 0xFFFF
    )
    # the flags: an accent (class 230, composes), the nukta (7, composes after na), a virama
    # (9), shadda (33), a Hangul vowel jamo (a starter that composes), na (a first), é (its
    # NFKD ends in class 230; ê composes on), ka (nothing)
    assert ext[0x0301] == 0x0301 and flags[0x0301] == F_SECOND | F_NOSTARTER | 230 | 230 << 8
    assert flags[0x093C] == F_SECOND | F_NOSTARTER | 7 | 7 << 8
    assert flags[0x094D] == F_NOSTARTER | 9 | 9 << 8
    assert flags[0x0651] == F_NOSTARTER | 33 | 33 << 8
    assert flags[0x1161] == F_SECOND and flags[0x0928] == F_FIRST and flags[0xAC00] == F_FIRST
    # é and ê end in a starter (the accent composed): F_KSTARTER; so does أ (alef, hamza
    # above); U+0958 (क़) is no composition (an exclusion): its NFKC ends in the nukta
    assert flags[0xE9] == F_KSTARTER | 230 << 8
    assert flags[0xEA] == F_FIRST | F_KSTARTER | 230 << 8  # ê: ế
    assert flags[0x0623] == F_KSTARTER | 230 << 8 and flags[0x0958] == 7 << 8
    assert flags[0x0915] == 0


# characters whose normalisation depends on their neighbours: marks of several classes in
# both orders, compositions (Hangul jamo, nukta after na, accents after ASCII letters),
# composition exclusions, Final_Sigma, and plain letters of each script
TRICKY = (
    [
        "a",
        "e",
        "n",
        "s",
        "A",
        "Σ",
        "σ",
        "\u00e9",
        "\u0301",
        "\u0323",
        "\u0302",
        "\u0308",
        "\u0345",
        "\u0399",
        " ",
        " ",
        " ",
        "\u00a0",
    ]
    + [
        "\u0627",
        "\u0628",
        "\u0644",
        "\u0645",
        "\u064e",
        "\u064f",
        "\u0650",
        "\u0651",
        "\u0652",
        "\u064b",
        "\u0670",
        "\u0653",
    ]
    + [
        "\u0915",
        "\u0928",
        "\u0930",
        "\u0921",
        "\u093c",
        "\u094d",
        "\u093f",
        "\u0940",
        "\u0902",
        "\u0929",
        "\u095e",
        "\u0951",
        "\u0952",
    ]
    + ["\u1100", "\u1161", "\u11a8", "\uac00", "\ud55c", "\u3131", "\u314f"]
    + ["\u09c7", "\u09be", "\u0dd9", "\u0dca", "\u0e01", "\u0e48", "\u0e38"]
)


# well-formed syllables the kernel reads alone (NFC order: fatha before shadda; a nukta
# after ḍa, which it does not compose with; conjuncts with the virama; Hangul syllables)
PLAIN = [
    "\u0628\u064e",
    "\u0628\u064e\u0651",
    "\u0644\u0627",
    "\u0645\u064f",
    "\u0915\u094d\u0937",
    "\u0921\u093c",
    "\u0915\u093f",
    "\u0928\u0940",
    "\u0930\u094d",
    "\ud55c",
    "\uac00\uc694",
    "\u0e01\u0e48",
    "\u00e9t\u00e9",
    "word",
    "\u0399\u03c3",
    " ",
    " ",
    "  ",
]


def test_kernel_reads_every_script_as_the_rule_does():
    """Property: for random text of TRICKY characters, the kernel's words are the rule's:
    with the eval n-grams made by Python from each line, every line of three or more words
    is a candidate (a line the kernel reads by itself must hit). Not vacuous: with no eval
    n-grams, many of the lines are read by the kernel alone (no candidate)."""
    pytest.importorskip("wasmtime")
    from hypothesis import example, given, settings, strategies as st
    from evalsieve.kernel import KernelFilter
    from evalsieve.text import normalize_words

    read_alone = []

    text = st.one_of(
        st.lists(st.sampled_from(TRICKY), min_size=3, max_size=30),
        st.lists(st.sampled_from(PLAIN + [" "] * 8), min_size=5, max_size=30),
        st.lists(st.sampled_from(PLAIN + TRICKY[:20]), min_size=5, max_size=30),
    )

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(text.map("".join), min_size=1, max_size=6))
    @example(
        [
            "x \u00e9\u0301\u0323 y z",
            "a \u0628\u0651\u064e b c",
            "a \u0628\u0651\u064e\u0652\u064b b",
            "\u0915\u094d\u093c\u093f x y",
            "q \u0301\u0323\u0302 r s",
        ]
    )
    def check(texts):
        lines = [t.replace("\n", " ") for t in texts]
        lines = [l for l in lines if len(normalize_words(l)) >= 3 and l[:1].strip()]
        if not lines:
            return
        grams = [
            " ".join(w[i : i + 3]) for w in map(normalize_words, lines) for i in range(len(w) - 2)
        ]
        block = ("\n".join(lines) + "\n").encode("utf-8")
        hit = KernelFilter(grams, 3, "text", []).scanner([["text"]]).scan(block)
        assert sorted(set(hit[3][1::4])) == list(range(1, len(lines) + 1)), lines
        none = KernelFilter([], 3, "text", []).scanner([["text"]]).scan(block)
        read_alone.append(len(lines) - len(none[3]) // 4)

    check()
    print("lines the kernel read alone:", sum(read_alone))
    assert sum(read_alone) > 50, read_alone  # 92 with these settings


def test_marks_after_a_character_that_recomposes_hash_as_the_rule_reads_them():
    """Every character flagged F_KSTARTER followed by every mark of a lower class that
    decomposes to itself (Arabic's أُ, é with a dot below, ...), one such pair a line: with
    the rule's own words as the eval 1-grams every line is a candidate, so wherever the
    kernel reads a pair by itself it hashes what Python makes of it. Not vacuous: with no
    eval n-grams the kernel reads most pairs (those whose mark composes with nothing) alone,
    among them أُ and ئِ; the rest (a mark that is a composition second) go to Python. A
    triple with a second mark (of each order) is checked the same way on a sample."""
    pytest.importorskip("wasmtime")
    import json
    import random
    import unicodedata

    from evalsieve.kernel import KernelFilter
    from evalsieve.kernel_spec import F_KSTARTER, F_NOSTARTER, F_SECOND, kernel_table
    from evalsieve.text import normalize_words

    table, flags = kernel_table()
    bases = [c for c in table if c <= 0xFFFF and flags.get(c, 0) & F_KSTARTER]
    marks = [
        c
        for c in table
        if c <= 0xFFFF
        and flags.get(c, 0) & F_NOSTARTER
        and unicodedata.normalize("NFKD", chr(c)) == chr(c)
    ]
    assert 0x0623 in bases and 0x00E9 in bases and 0x064F in marks and len(bases) > 500
    pairs = [
        chr(b) + chr(m)
        for b in bases
        for m in marks
        if 0 < unicodedata.combining(chr(m)) < (flags[b] >> 8) & 0xFF
    ]
    rng = random.Random(7)
    triples = [p + chr(rng.choice(marks)) for p in rng.sample(pairs, 20000)]
    for lines, fmt in ((pairs, "text"), (triples, "text"), (pairs, "jsonl")):
        # JSON Lines: the string scan's hot loop reads the character, then the mark
        words = [normalize_words(t) for t in lines]
        lines = [t for t, w in zip(lines, words) if len(w) == 1]
        grams = sorted({w[0] for t in lines for w in [normalize_words(t)]})
        rows = (
            lines if fmt == "text" else [json.dumps({"text": t}, ensure_ascii=False) for t in lines]
        )
        block = ("\n".join(rows) + "\n").encode("utf-8")
        hit = KernelFilter(grams, 1, fmt, []).scanner([["text"]]).scan(block)
        missed = set(range(1, len(lines) + 1)) - set(hit[3][1::4])
        assert not missed, (fmt, [lines[i - 1] for i in sorted(missed)[:10]])
    none = (
        KernelFilter(["zzz"], 1, "text", [])
        .scanner([["text"]])
        .scan(("\n".join(pairs) + "\n").encode("utf-8"))
    )
    to_python = {pairs[i - 1] for i in none[3][1::4]}
    alone = [t for t in pairs if t not in to_python]
    assert "\u0623\u064f" in alone and "\u0626\u0650" in alone and "\u00e9\u0316" in alone
    assert "\u00e9\u0323" not in alone  # a dot below composes: NFKC makes ẹ́
    assert len(alone) > len(pairs) // 2
    assert all(flags[ord(t[1])] & F_SECOND for t in to_python)


def test_the_kernel_passes_a_segment_that_is_an_exact_key_probe():
    """pf_exact: a record whose field's words are an eval row's key (here shorter than N, so
    no n-gram can catch it) is a candidate; without that key it is not; a field holding the
    key and more words is not a probe (JSONL probes are prefixes of the key's words)."""
    pytest.importorskip("wasmtime")
    from evalsieve.kernel import KernelFilter

    block = (
        b'{"text": "alpha beta gamma delta"}\n{"text": "Hi, there!"}\n{"text": "hi there you"}\n'
    )
    with_key = KernelFilter(["alpha beta gamma"], 3, "jsonl", ["hi there"]).scanner([["text"]])
    got = with_key.scan(block)
    assert got[:2] == (3, 3) and list(got[3]) == [1, 1, 0, 34, 2, 2, 35, 57]
    no_key = KernelFilter(["alpha beta gamma"], 3, "jsonl", ["alpha beta gamma"])
    assert list(no_key.scanner([["text"]]).scan(block)[3]) == [1, 1, 0, 34]


@pytest.mark.parametrize("fmt", ["jsonl", "text"])
def test_kernel_made_probes_are_pythons(fmt):
    """pf_exact_keys (the kernel hashing the eval keys itself) makes exactly the probe values
    of exact.prefilter_exact (words above U+FFFF, as surrogate pairs, and scalar words, whose
    run at a key's start adds probe starts, included); and a record whose field is a probe's
    words is then a candidate, one word more or less is not."""
    pytest.importorskip("wasmtime")
    import json
    import random
    from evalsieve.exact import prefilter_exact, probe_words
    from evalsieve.kernel import KernelScanner, _memory

    rng = random.Random(5)
    bmp = ["alpha", "beta", "12", "true", "1e05", "café", "中文", "nan", "한국어"]
    keys = sorted(
        {" ".join(rng.choice(bmp + ["𝔲x"]) for _ in range(rng.randint(1, 6))) for _ in range(80)}
    )
    py = prefilter_exact(keys, fmt)["probes"]
    by_keys = KernelScanner(_memory(), ["zz"], 1, fmt, [["text"]], None, keys)
    by_probes = KernelScanner(_memory(), ["zz"], 1, fmt, [["text"]], py)
    assert by_keys.exact_values() == by_probes.exact_values() == set(py)
    assert len(py) > 100 if fmt == "jsonl" else len(py) == len(keys)
    bmp_keys = [k for k in keys if "𝔲" not in k]
    segs = {" ".join(w) for k in bmp_keys for w in probe_words(k, fmt)}
    near = {s + " alpha" for s in segs} | {s.split(" ", 1)[-1] for s in segs if " " in s}
    lines = sorted(segs | near)
    if fmt == "text":
        block = "".join(s + "\n" for s in lines).encode()
    else:
        block = "".join(json.dumps({"text": s}, ensure_ascii=False) + "\n" for s in lines).encode()
    got = {lines[r - 1] for r in by_keys.scan(block)[3][0::4]}
    want = {
        s
        for s in lines
        if " ".join(s.split()) in {" ".join(w) for k in keys for w in probe_words(k, fmt)}
    }
    assert got == want and segs <= got and near - got


@pytest.mark.parametrize(
    "line",
    [
        "ДОМ МИР ЖИЗНЬ",  # upper-case Cyrillic: the table lowers each letter
        "ΑΛΦΑ ΒΗΤΑ ΓΑΜΜΑ",  # Greek (no Σ: Final_Sigma is Python's)
        "가\u11a8 나 다",  # an LV syllable, then a trailing jamo: NFKC composes 각
        "а\u0308бв где жз",  # Cyrillic а, then a combining diaeresis: NFKC composes ӓ
        "क\u093c ख ग",  # ka, then the nukta: NFKC composes क़ (U+0958 stays out)
        "ڡ\u0654ب ت ث",  # Arabic letter, then a hamza above
    ],
)
def test_multibyte_characters_hash_as_the_rule_reads_them(line):
    """A record whose field normalises (text.normalize_text) to an eval n-gram is a
    candidate, for characters the kernel reads one by one in its hot loop (a letter the
    table maps to another unit) and for a letter that a following character joins (the
    kernel must then leave the record to Python, or hash what Python makes of it)."""
    pytest.importorskip("wasmtime")
    import json
    from evalsieve.kernel import KernelScanner, _memory
    from evalsieve.text import normalize_text

    gram = " ".join(normalize_text(line).split())
    n = len(gram.split())
    ks = KernelScanner(_memory(), [gram], n, "jsonl", [["text"]], [])
    block = (
        json.dumps({"text": "x " + line + " y"}, ensure_ascii=False)
        + "\n"
        + json.dumps({"text": "nothing of it"})
        + "\n"
    ).encode()
    assert list(ks.scan(block)[3][0::4]) == [1], (line, gram)


def test_kernel_checks_utf8_as_python_decodes_it():
    """Property: the kernel's UTF-8 check (a DFA 16 bytes at a time, the byte-by-byte walk
    when it fails) refuses exactly the blocks that Python's strict decoder refuses, and
    counts a valid block's code points and UTF-16 units as Python does: for blocks built of
    ASCII runs (to cross the 16-byte steps at every offset), valid characters of 1-4 bytes
    and the ill-formed sequences around Table 3-7's edges (overlong, surrogate, past
    U+10FFFF, cut short, stray continuation)."""
    pytest.importorskip("wasmtime")
    import ctypes
    from array import array

    from hypothesis import given, settings, strategies as st
    from evalsieve.kernel import KernelScanner, _memory

    pieces = st.one_of(
        st.integers(0, 40).map(lambda k: b"a" * k),
        st.sampled_from(["é", "ب", "가", "क", "\uffff", "\U00010000", "\U0010ffff", "😀"]).map(
            str.encode
        ),
        st.sampled_from(
            [
                b"\xc0\xaf",
                b"\xc1\xbf",
                b"\xe0\x9f\xbf",
                b"\xed\xa0\x80",
                b"\xed\xbf\xbf",
                b"\xf0\x8f\xbf\xbf",
                b"\xf4\x90\x80\x80",
                b"\xf5\x80\x80\x80",
                b"\xff",
                b"\x80",
                b"\xbf",
                b"\xc3",
                b"\xe2\x82",
                b"\xf0\x9f\x98",
            ]
        ),
    )
    ks = KernelScanner(_memory(), [], 3, "text", [["text"]], [])
    seen = {"valid": 0, "invalid": 0}

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(st.lists(pieces, max_size=40))
    def check(parts):
        block = b"".join(parts)
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        got = ks.scan(block)
        if text is None:
            seen["invalid"] += 1
            assert got is None, block
            return
        seen["valid"] += 1
        assert got is not None and got[2] == len(text), block
        res = array("i", ctypes.string_at(ks.m.address() + ks.res_at, 24))
        assert res[3] == len(text.encode("utf-16-le")) // 2, block

    check()
    assert min(seen.values()) > 50, seen
