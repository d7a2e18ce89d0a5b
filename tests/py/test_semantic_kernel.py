"""The semantic rung's window scan in the compiled kernel (kernels/semantic.c through
evalsieve.semantic_kernel) against the Python scan it replaces, which stays the oracle: the
same windows (record, words, context, file), the same term counts over all windows, the same
heaps, the same request and the same verdicts, for corpora built to reach the kernel's edges
(white space beyond ASCII, lone surrogates, NUL, words longer than the table's 8-byte prefix
and than 255 bytes, empty and one-word records, several batches, a word table that fills and
one that must grow, a term-id region that must grow)."""

import json
import os
import re
import random

import pytest

from evalsieve import semantic_kernel
from evalsieve.semantic import SemanticConfig, SemanticScan

pytest.importorskip("wasmtime", reason="the kernel runs under wasmtime (pip install -e .[fast])")

#: white space str.split() splits on, ASCII and beyond (U+0085, U+00A0, U+1680, U+2000..,
#: U+2028, U+202F, U+205F, U+3000, and the ASCII separators \x1c-\x1f)
SPACES = [" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u1680"]
SPACES += ["\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
#: not white space, though near it in UTF-8 (same lead bytes) or in meaning
NOT_SPACES = ["\u200b", "\u2060", "\xad", "\u3001", "\u00a1", "\u1681", "\u2030", "\ufeff"]


def _vocab(rng):
    base = "apple banana cherry Dollars twelve 12 1,200 eggs baking buses ŞEHİR café naïve"
    words = base.split() + ["ｆｕｌｌ", "Ⅻ", "ﬁsh", "straße", "日本語", "ab\x00c", "\ud800x"]
    words += ["extraordinarily", "x" * 300, "pneumono" + "ultra" * 10, "a", "I", "9"]
    words += [f"w{k}" for k in range(40)] + [f"rare{k}" for k in range(30)]
    return words


def _text(rng, words, n):
    out = []
    for _ in range(n):
        out.append(rng.choice(words))
        out.append(rng.choice(SPACES) if rng.random() < 0.3 else " ")
        if rng.random() < 0.05:
            out.append(rng.choice(NOT_SPACES))
    return "".join(out)


def _scan(rows, background, config, records_by_file, kernel):
    scan = SemanticScan(rows, config, background)
    if kernel:
        assert scan.use_kernel() is None
    for k, (name, records) in enumerate(records_by_file):
        scan.set_file(k, name)
        for i in range(0, len(records), 7):  # batches of records, as the driver hands them
            scan.scan(records[i : i + 7])
    req = scan.request()
    return scan, req


def _state(scan, req):
    windows = {
        s: (w.record, w.start, w.end, w.context_start, w.context, w.file)
        for s, w in scan._kept.items()
    }
    heaps = [sorted(h) for h in scan._heaps]
    return req, scan.window_df, heaps, windows, scan.windows_seen, scan.windows_with_key


def _case(seed):
    rng = random.Random(seed)
    words = _vocab(rng)
    rows = [[_text(rng, words, rng.randint(3, 30))] for _ in range(rng.randint(3, 12))]
    rows.append([_text(rng, words, 4), _text(rng, words, 25)])  # a row of two probes
    background = [_text(rng, words, rng.randint(0, 80)) for _ in range(5)]
    files = []
    for f in range(2):
        recs = []
        for r in range(rng.randint(20, 60)):
            n = rng.choice([0, 1, 5, 20, 60, 200])
            segs = [_text(rng, words, n)] + ([_text(rng, words, 3)] if rng.random() < 0.2 else [])
            recs.append((r + 1, segs))
        files.append((f"t{f}.jsonl", recs))
    config = SemanticConfig(
        candidates=rng.choice([1, 2, 8]), window_words=rng.choice([None, 4, 16])
    )
    return rows, background, config, files


@pytest.mark.parametrize("seed", range(12))
def test_kernel_scan_is_the_python_scan(seed, monkeypatch):
    rows, background, config, files = _case(seed)
    py = _state(*_scan(rows, background, config, files, kernel=False))
    if seed % 3 == 1:  # small batches, a word table that fills (emptied, then again)
        monkeypatch.setattr(semantic_kernel, "BATCH_POINTS", 64)
        monkeypatch.setattr(semantic_kernel, "WORD_SLOTS", 16)
    if seed % 3 == 2:  # a table too small for one batch (a bigger one) and few term ids
        monkeypatch.setattr(semantic_kernel, "WORD_SLOTS", 2)
        monkeypatch.setattr(semantic_kernel, "TERM_IDS", 1)
    if seed % 4 == 3:  # a table that grows while it fills (64 -> 256 -> 1024 slots)
        monkeypatch.setattr(semantic_kernel, "BATCH_POINTS", 16)
        monkeypatch.setattr(semantic_kernel, "WORD_SLOTS_FIRST", 64)
        monkeypatch.setattr(semantic_kernel, "WORD_SLOTS", 1024)
    kernel = _state(*_scan(rows, background, config, files, kernel=True))
    assert kernel == py
    assert py[4] > 0 and py[3]  # windows were seen and kept


def test_verdicts_are_the_same():
    rows, background, config, files = _case(99)
    verdicts = []
    for kernel in (False, True):
        scan, req = _scan(rows, background, config, files, kernel)
        rng = random.Random(7)  # the same cosines for the same pairs
        verdicts.append((req, scan.verify([rng.random() for _ in req["pairs"]])))
    assert verdicts[0] == verdicts[1]
    matches = verdicts[0][1]
    assert len(matches) == len(rows)  # one verdict a row, and rows with a candidate scored
    assert sum(m.score is not None for m in matches) >= len(rows) // 2


def test_windows_heaps_and_counts_by_hand():
    """One probe "red apple pie" (its key terms: the three words, rare in the background);
    windows of 4 words, stride 2, over a record of 8 words: [0, 4), [2, 6), [4, 8)."""
    bg = ["some other text here"] * 3
    scan = SemanticScan([["red apple pie"]], SemanticConfig(candidates=2, window_words=4), bg)
    assert scan.use_kernel() is None
    scan.scan([(1, ["red apple x y pie red z apple"])])
    scan.request()
    assert scan.windows_seen == 3 and scan.windows_with_key == 3
    # terms per window: {red, apple}, {pie}... the window df counts each term once a window
    assert scan.window_df == {"red": 3, "apple": 2, "pie": 2}
    units = scan._key_units
    sums = [units["red"] + units["apple"], units["pie"] + units["red"]]
    sums.append(units["pie"] + units["red"] + units["apple"])
    # k = 2: the two best windows by sum; each sum as the Python scan writes it
    want = sorted(((x, -s, s) for s, x in zip((1, 2, 3), sums)), reverse=True)[:2]
    assert sorted(scan._heaps[0], reverse=True) == want
    kept = {s: (w.start, w.end, w.context_start, w.context) for s, w in scan._kept.items()}
    words = "red apple x y pie red z apple".split()
    assert kept[3] == (4, 8, 0, words)
    assert set(kept) == {it[2] for it in want}


def test_a_code_row_keeps_the_scan_in_python():
    scan = SemanticScan([["def f(x):\n    return x + 1"]], SemanticConfig(), [])
    assert scan.use_kernel() == "a code row's code shingles are read in Python"
    assert scan._kernel is None


def test_use_kernel_after_the_scan_began_is_refused():
    scan = SemanticScan([["red apple pie"]], SemanticConfig(), [])
    scan.scan([(1, ["red apple pie"])])
    with pytest.raises(Exception, match="has begun"):
        scan.use_kernel()


@pytest.mark.parametrize("handover", [False, True])
def test_cli_exports_are_the_same_with_the_kernel_and_in_python(
    tmp_path, fixtures, model_dir, capsys, monkeypatch, handover
):
    """--filter off keeps the rung's window scan in Python; the default runs it in the
    kernel: the exports are the same, and the log says where the scan ran. With batches of
    2,000 code points and room for 200 window serials, the kernel scans the first batches
    and hands the rest to Python part-way: the same exports, and the log says after how
    many windows."""
    from test_corpus_scan import exports

    from evalsieve import semantic_kernel
    from evalsieve.cli import main

    if handover:
        monkeypatch.setattr(semantic_kernel, "BATCH_POINTS", 2000)
        monkeypatch.setattr(semantic_kernel, "SERIAL_MAX", 200)
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "semantic_train.jsonl")
    logs = {}
    for name, extra in (("py", ["--filter", "off"]), ("kernel", [])):
        argv = ["contamination", ev, tr, "--eval-field", "question", "--train-field", "text"]
        argv += ["--semantic", "--threads", "1", "--model-dir", model_dir, "--json"]
        code = main([*argv, "--out", str(tmp_path / name), *extra])
        assert code == 0
        out, logs[name] = capsys.readouterr()
        assert json.loads(out)["rows_contaminated_by_rung"]["semantic"] == 2
    assert "window scan runs in the kernel" in logs["kernel"]
    assert "window scan runs in Python (--filter off" in logs["py"]
    handed = re.search(
        r"the kernel handed the window scan to Python after (\d+) windows", logs["kernel"]
    )
    assert (handed is not None) == handover
    if handover:  # part-way: some windows in the kernel, not all of the fixture's 348
        assert 0 < int(handed.group(1)) < 348
    assert "handed" not in logs["py"]
    assert exports(tmp_path / "py") == exports(tmp_path / "kernel")


def test_the_bridge_puts_the_scan_in_a_kernel_instance():
    """cont.semantic_kernel (the page's op, given a kernel instance: here wasmtime's) puts the
    rung's window scan in it; without the rung it says so."""
    from evalsieve import bridge
    from evalsieve.kernel import _memory

    def start(semantic):
        args = {"eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["q"]}}
        args["train"] = {"name": "t.jsonl", "format": "jsonl", "fields": ["text"]}
        args["semantic"] = semantic
        h = json.loads(bridge.call("cont.start", json.dumps(args)))["value"]["handle"]
        bridge.call("cont.feed_eval", json.dumps({"handle": h}), '{"q": "red apple pie"}\n')
        bridge.call("cont.end_eval", json.dumps({"handle": h}))
        return h

    h = start({})
    r = json.loads(bridge.call("cont.semantic_kernel", json.dumps({"handle": h}), None, _memory()))
    assert r == {"ok": True, "value": {"kernel": True, "why": None}}
    job = bridge._jobs[h]
    assert job.semantic._kernel is not None
    bridge.call("cont.feed_train", json.dumps({"handle": h}), '{"text": "red apple pie"}\n')
    h2 = start(None)
    r = json.loads(bridge.call("cont.semantic_kernel", json.dumps({"handle": h2}), None, None))
    assert r["value"] == {"kernel": False, "why": "the semantic rung is off"}
