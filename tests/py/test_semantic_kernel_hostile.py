"""The semantic rung's window scan in the kernel (evalsieve.semantic_kernel) under hostile
input and hostile use, against the Python scan (the oracle): every character Python's
str.split() splits on and the ones near them, ties between many equal windows, the
configuration's limits, a record longer than a batch, a 1 MB word, a word table that fills
at its real size, memory that stays bounded over many batches, a scan interrupted while
the kernel learns new words, use_kernel() once the scan began, and a scan after request().
tests/py/test_semantic_kernel.py holds the random corpora; this file the edges."""

import os
import random

import pytest
from hostile_common import scan_state

from evalsieve import semantic_kernel
from evalsieve.semantic import SemanticConfig, SemanticScan

pytest.importorskip("wasmtime", reason="the kernel runs under wasmtime (pip install -e .[fast])")

BG = ["some other text here"] * 3
ROWS = [["red apple pie"], ["blue banana split"], ["twelve eggs 12"]]
#: every code point str.split() splits on (29 of them), and neighbours that are not white
#: space: U+180E (white space before Unicode 6.3), zero-width ones, NUL, a lone surrogate
#: (json.loads gives one for "\ud800"), an astral character, U+00FF (its UTF-8 is C3 BF)
SPACES = [chr(c) for c in range(0x3001) if chr(c).isspace()]
NEAR = ["\u180e", "\u200b", "\ufeff", "\u2060", "\x00", "\ud800", "\udfff", "\U0001f600"]
NEAR += ["\xff", "\xad", "\u2030", "\u3001"]


def _run(rows, config, files, kernel, chunk=7, bg=BG):
    scan = SemanticScan(rows, config, bg)
    if kernel:
        assert scan.use_kernel() is None
    for k, (name, records) in enumerate(files):
        scan.set_file(k, name)
        for i in range(0, len(records), chunk):
            scan.scan(records[i : i + chunk])
    return scan


def _same(rows, config, files, chunk=7, bg=BG):
    py = scan_state(_run(rows, config, files, False, chunk, bg))
    kernel = scan_state(_run(rows, config, files, True, chunk, bg))
    assert kernel == py
    return py


def test_space_count_is_pythons():
    assert len(SPACES) == 29  # the list is what it claims: the test reaches every one


@pytest.mark.parametrize("w,k", [(4, 1), (400, 64), (5, 3)])
def test_every_white_space_and_its_neighbours(w, k):
    rng = random.Random(w)
    words = "red apple pie blue banana split twelve eggs 12 x y z".split()
    recs = []
    for r in range(200):
        parts = []
        for _ in range(rng.randint(0, 30)):
            parts.append(rng.choice(words + NEAR))
            parts.append(rng.choice(SPACES + NEAR + [" "] * 5))
        recs.append((r + 1, ["".join(parts)]))
    # records of white space only, ended by multi-byte white space, two fields of it
    recs += [(201, [" \x85\xa0\u3000 "]), (202, ["red apple\x85"]), (203, ["pie\u3000"])]
    recs += [(204, ["\x85", "\xa0"]), (205, ["red\u2029apple\u202fpie\x1f"]), (206, [""])]
    py = _same(ROWS, SemanticConfig(candidates=k, window_words=w), [("t.jsonl", recs)])
    assert py[4] > 0 and py[3]


def test_every_code_point_as_a_word_and_as_a_separator():
    chars = [chr(c) for c in range(0x30000) if not 0xD800 <= c < 0xE000]
    glued = [(i + 1, [f"red {''.join(chars[i : i + 2000])} apple"]) for i in range(0, 4000, 2000)]
    glued += [(9, ["x".join(chars[:3000]) + " pie"])]
    spaced = [(i + 1, [" ".join(chars[i : i + 3000]) + " red"]) for i in range(0, 30000, 3000)]
    _same(ROWS, SemanticConfig(candidates=8, window_words=4), [("a", glued), ("b", spaced)])


@pytest.mark.parametrize("k", [1, 2, 64])
def test_ties_keep_the_earlier_window(k):
    """Every window of every record holds the same terms: all sums tie, and the k earliest
    windows (serials 1..k) are the ones kept, in both files' records."""
    recs = [(i + 1, ["red apple pie " * 50]) for i in range(40)]
    py = _same([["red apple pie"]], SemanticConfig(candidates=k, window_words=4), [("a", recs)])
    assert sorted(py[3]) == list(range(1, k + 1))


def test_many_probes_and_one_word_rows():
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(3000)]
    rows = [[" ".join(rng.choices(vocab, k=rng.randint(1, 12)))] for _ in range(2000)]
    rows += [["apple"], ["12"]]
    recs = [(i + 1, [" ".join(rng.choices(vocab + ["apple", "12"], k=60))]) for i in range(800)]
    _same(rows, SemanticConfig(candidates=4, window_words=8), [("a", recs)], chunk=300, bg=[])


def test_a_record_longer_than_a_batch_and_a_megabyte_word(monkeypatch):
    monkeypatch.setattr(semantic_kernel, "BATCH_POINTS", 1 << 18)
    rng = random.Random(5)
    big = " ".join(rng.choices(["red", "apple", "pie", "blue", "banana", "x", "y"], k=300000))
    assert len(big) > semantic_kernel.BATCH_POINTS
    lw = "apple" + "x" * (1 << 20)
    recs = [(1, ["small red"]), (2, [big]), (3, [f"red {lw} pie {lw} {lw}y apple"])]
    recs += [(4, ["x" * 255 + " " + "x" * 256 + " red " + "x" * 254 + " apple"])]
    _same(ROWS, SemanticConfig(candidates=5, window_words=6), [("a", recs)], chunk=2)


def test_a_word_table_that_fills_at_its_real_size(monkeypatch):
    """600,000 distinct words (the table at its full size from the start holds 2^19):
    emptied mid-file, words seen again."""
    monkeypatch.setattr(semantic_kernel, "WORD_SLOTS_FIRST", semantic_kernel.WORD_SLOTS)
    rows = [["red apple pie w5 w550000"], ["blue banana w123456"]]
    recs = []
    for i in range(600):
        ws = [f"w{1000 * i + j}" for j in range(1000)]
        ws[::97] = ["red"] * len(ws[::97])
        recs.append((i + 1, [" ".join(ws)]))
    recs.append((601, ["w5 w550000 red apple pie w123456 blue"]))
    scan = _run(rows, SemanticConfig(candidates=4, window_words=8), [("a", recs)], True, 100)
    assert scan._kernel._state()[3] < 200000  # it was emptied (it held the last batches)
    kernel = scan_state(scan)
    py = scan_state(_run(rows, SemanticConfig(candidates=4, window_words=8), [("a", recs)], False))
    assert kernel == py


def test_memory_stays_bounded_over_many_batches():
    """Batches of new words (60,000 a batch, the table holds 2^19): the instance's memory
    after the first batches does not grow with the corpus."""
    scan = SemanticScan([["red apple pie"]], SemanticConfig(candidates=2, window_words=8), BG)
    assert scan.use_kernel() is None
    rng = random.Random(1)
    sizes = []
    for _ in range(16):  # 960,000 new words: at its full size the table is emptied once
        text = [" ".join(f"v{rng.randrange(10**7)}" for _ in range(100)) for _ in range(600)]
        scan.scan([(i + 1, [t]) for i, t in enumerate(text)])
        sizes.append(scan._kernel.m.size())
    # a batch's text and tables are ~3 MiB: a batch's worth kept each time would be 30 MiB
    # over the last 10; the word table grows 4x while it fills (to 2^20 slots by the 6th
    # batch), the buffers by doubling, so a few pages once is all after it (emptying the
    # table: the batch done again learns all its words at once)
    assert sizes[-1] - sizes[5] < 1 << 20
    assert scan._kernel._state()[3] < 4 * 60000  # emptied: it holds the last batches only


def test_an_interrupted_batch_counts_for_nothing_and_the_next_one_works(monkeypatch):
    """An exception (here KeyboardInterrupt) while the kernel learns a batch's
    new words leaves no word without terms: the next batch scans as on a fresh scan."""
    config = SemanticConfig(candidates=2, window_words=4)
    scan = SemanticScan([["red apple pie"]], config, BG)
    assert scan.use_kernel() is None
    real = semantic_kernel.word_terms

    def interrupted(word):
        if word == "boom":
            raise KeyboardInterrupt
        return real(word)

    monkeypatch.setattr(semantic_kernel, "word_terms", interrupted)
    with pytest.raises(KeyboardInterrupt):
        scan.scan([(1, ["red apple boom pie"])])
    monkeypatch.setattr(semantic_kernel, "word_terms", real)
    later = [(2, ["red apple pie x red boom apple"])]
    scan.scan(later)
    py = SemanticScan([["red apple pie"]], config, BG)
    py.scan(later)
    assert scan_state(scan) == scan_state(py)


def test_use_kernel_once_the_kernel_scan_began_is_refused():
    """The kernel's scan counts its windows in the kernel: a second use_kernel() must not
    start a new one and drop the windows scanned so far."""
    scan = SemanticScan([["red apple pie"]], SemanticConfig(), BG)
    assert scan.use_kernel() is None
    assert scan.use_kernel() is None  # before any record: allowed, a fresh instance
    scan.scan([(1, ["red apple pie"])])
    with pytest.raises(Exception, match="has begun"):
        scan.use_kernel()
    assert scan_state(scan)[4] == 1


def test_a_scan_after_request_continues_as_in_python():
    """request() hands the kernel's heaps to the Python scan: scanning on (as the Python
    path allows) continues from them, with each window's heap count and each heap's floor."""
    config = SemanticConfig(candidates=1, window_words=4)
    first = [(1, ["red apple pie"]), (2, ["pie x y z red"])]
    later = [(3, ["red apple pie red apple pie"]), (4, ["apple pie z"])]
    states = []
    for kernel in (False, True):
        scan = SemanticScan([["red apple pie"], ["apple pie"]], config, BG)
        if kernel:
            assert scan.use_kernel() is None
        scan.scan(first)
        scan.request()
        scan.scan(later)
        states.append((scan_state(scan), scan._refs))
    assert states[1] == states[0]


def test_cli_corpus_of_formats_is_the_same_in_the_kernel_in_python_and_in_shards(
    tmp_path, fixtures, model_dir, capsys, monkeypatch
):
    """A corpus of four training files (gzip JSONL with malformed lines skipped, CSV with
    quoted multi-line fields and white space beyond ASCII, Parquet, and JSONL with a BOM and
    malformed lines, cut into byte ranges): the exports are the same with the window scan in
    the kernel and in Python (--filter off), in one process and in four workers' shards
    merged (--workers 4: the small files one shard, ranges of the JSONL file the others;
    one range begins with a line that begins with U+FEFF)."""
    import csv
    import gzip
    import json

    from test_corpus_scan import exports

    from evalsieve import corpus, semantic_pass
    from evalsieve.cli import main

    pa = pytest.importorskip("pyarrow", reason="the parquet extra (pip install -e .[parquet])")
    import pyarrow.parquet as pq

    with open(os.path.join(fixtures, "semantic_train.jsonl"), encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    odd = ["\x85", "\xa0", "\u3000", "\u2029", "\u200b", "\ufeff", "\x1f", "\n"]
    a, b, c = texts[:40], texts[40:70], texts[70:]
    lines = [json.dumps({"text": t}) for t in a]
    lines[5:5] = ['{"text": "broken', "not json at all"]
    with gzip.open(tmp_path / "a.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(tmp_path / "b.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text"])
        for i, t in enumerate(b):
            words = t.split(" ")
            w.writerow([i, "".join(x + odd[(i + j) % len(odd)] for j, x in enumerate(words))])
    pq.write_table(pa.table({"text": c}), tmp_path / "c.parquet")
    lines = [json.dumps({"text": t}) for t in texts[::-1] + texts[35:75]]
    lines[30:30] = ["{broken"]
    lines[100:100] = ["[1, 2]"]
    with open(tmp_path / "d.jsonl", "w", encoding="utf-8") as f:
        f.write("\ufeff" + "\n".join(lines) + "\n")
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 16_000)  # d.jsonl: ranges of it
    monkeypatch.setattr(semantic_pass, "SHARD_MIN_BYTES", 4_000)
    names = ("a.jsonl.gz", "b.csv", "c.parquet", "d.jsonl")
    fmts = ("jsonl", "csv", "parquet", "jsonl")
    files = [
        {
            "path": str(tmp_path / n),
            "name": n,
            "fmt": f,
            "fields": ["text"],
            "gzip": n[-3:] == ".gz",
        }
        for n, f in zip(names, fmts)
    ]
    for f in files:
        f["size"] = os.path.getsize(f["path"])
    assert len(corpus.plan_tasks(files[3:], 2)) >= 4

    def shards():
        return [[(t.file, t.start, t.end) for t in g] for g in semantic_pass.shard_tasks(files, 4)]

    # the three small files one shard, d.jsonl ranges; a line that begins with U+FEFF (not
    # JSON: skipped) at a range's start is the line's, not a byte-order mark
    before = shards()
    ranges = [g[0] for g in before if g[0][0] == 3]
    assert len(ranges) >= 2 and any(len(g) > 1 for g in before), before
    assert sum(len(g) for g in before) == len(ranges) + 3
    cut = ranges[1][1]
    data = (tmp_path / "d.jsonl").read_bytes()
    assert cut > 0 and data[cut - 1 : cut] == b"\n"
    (tmp_path / "d.jsonl").write_bytes(data[:cut] + "\ufeff".encode() + data[cut:])
    files[3]["size"] += 3
    assert [g[0][1] for g in shards() if g[0][0] == 3][1] == cut  # the same ranges
    trains = [str(tmp_path / n) for n in names]
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    logs, results = {}, {}
    runs = (("py", ["--filter", "off"]), ("kernel", []), ("py4", ["--filter", "off"]))
    for name, extra in runs + (("kernel4", []),):
        extra = [*extra, "--workers", "4" if name.endswith("4") else "1"]
        argv = ["contamination", ev, *trains, "--eval-field", "question", "--train-field", "text"]
        argv += ["--semantic", "--threads", "1", "--model-dir", model_dir, "--json"]
        argv += ["--skip-bad-lines", "--semantic-window", "12"]
        code = main([*argv, "--out", str(tmp_path / name), *extra])
        assert code == 0
        out, logs[name] = capsys.readouterr()
        results[name] = json.loads(out)["rows_contaminated_by_rung"]
    assert "window scan runs in the kernel" in logs["kernel"]
    assert "window scan runs in Python (--filter off" in logs["py"]
    n = len(before)
    for name in ("py4", "kernel4"):
        assert f"semantic: {n} shards of the corpus scanned on their own" in logs[name], logs[name]
    assert "shards of the corpus" not in logs["kernel"]
    assert results["py"] == results["kernel"] and results["py"]["semantic"] >= 1
    py = exports(tmp_path / "py")
    for name in ("kernel", "py4", "kernel4"):
        assert exports(tmp_path / name) == py, name


def test_heaps_too_big_for_the_kernel_keep_the_scan_in_python():
    """2^28 candidates for one probe: 3 GiB of heap slots, past the kernel's 32-bit signed
    addresses (it failed with OverflowError); the Python scan keeps its heaps as they fill,
    so the scan stays there, with the reason, and gives the Python result."""
    config = SemanticConfig(candidates=1 << 28, window_words=4)
    recs = [(1, ["red apple pie x red y apple z pie"]), (2, ["pie red"])]
    scan = SemanticScan([["red apple pie"]], config, BG)
    why = scan.use_kernel()
    assert (
        why
        == "1 probes × 268435456 candidates need 3072 MiB of heaps, more than the kernel's 1024 MiB"
    )  # noqa: E501
    assert scan._kernel is None
    scan.scan(recs)
    py = _run([["red apple pie"]], config, [("", recs)], False)
    assert scan_state(scan) == scan_state(py)
    assert semantic_kernel.too_big(1 << 10, (1 << 20) // 12) is None  # 1 GiB: still fits


def _fnv(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


#: pairs of words with the same FNV-1a hash (the kernel's table hashes raw bytes): same start
#: slot and tag, told apart only by the 8-byte prefix (short words, or the same prefix and
#: length: the bytes past it; 294 and 295 bytes: the length, past the tag's 255)
COLLIDING = [
    ("ab0059db", "ab042828"),
    ("abcdefgh0282fc", "abcdefgh06c280"),
    ("y" * 290 + "552b", "y" * 290 + "81d98"),
    ("bananaf21ab", "banana103fd0"),
]


@pytest.mark.parametrize("a,b", COLLIDING, ids=["short", "prefix", "long", "lengths"])
def test_words_of_the_same_hash_are_told_apart(a, b):
    assert a != b and _fnv(a.encode()) == _fnv(b.encode())
    rows = [[f"red {a} pie"], [f"blue {b} split"]]
    recs = [(1, [f"{a} red pie x y"]), (2, [f"{b} blue split x y {a}"]), (3, [f"{b} {a} {b}"])]
    py = _same(rows, SemanticConfig(candidates=2, window_words=4), [("t", recs)], chunk=1)
    assert py[3]


def _many_records():
    rng = random.Random(11)
    words = "red apple pie blue banana split twelve eggs 12 x y z".split()
    return [(r + 1, [" ".join(rng.choices(words, k=rng.randint(0, 40)))]) for r in range(60)]


def test_the_python_scan_goes_on_where_the_kernel_serials_end(monkeypatch):
    """With room for 400 window serials (a batch of 7 records is given room for ~300) the
    kernel scans the first batches and the Python scan the rest, from the kernel's heaps,
    counts and windows: the result is the Python scan's."""
    config = SemanticConfig(candidates=3, window_words=4)
    py = scan_state(_run(ROWS, config, [("a", _many_records())], False))
    monkeypatch.setattr(semantic_kernel, "SERIAL_MAX", 400)
    closed = []
    close = semantic_kernel.KernelWindowScan.close

    def counted(self):
        closed.append(self.windows_seen())
        close(self)

    monkeypatch.setattr(semantic_kernel.KernelWindowScan, "close", counted)
    scan = _run(ROWS, config, [("a", _many_records())], True)
    assert scan._kernel is None and len(closed) == 1 and 0 < closed[0] < py[4]  # handed over
    assert scan.kernel_note == (
        f"the kernel handed the window scan to Python after {closed[0]} windows "
        "(its serials are 32-bit)"
    )
    assert scan_state(scan) == py


def test_a_scan_the_kernel_keeps_throughout_has_no_handover_note():
    scan = _run(ROWS, SemanticConfig(candidates=3, window_words=4), [("a", _many_records())], True)
    assert scan._kernel is not None and scan.kernel_note == ""


def test_a_batch_that_fails_while_its_windows_are_kept_stops_the_scan(monkeypatch):
    """The kernel's heaps take a batch's windows before the host keeps their context: a
    failure there (in practice MemoryError) leaves heaps naming windows never kept. Every
    later scan() and request() says so, instead of a KeyError or a result missing them."""
    scan = SemanticScan([["red apple pie"]], SemanticConfig(candidates=2, window_words=4), BG)
    assert scan.use_kernel() is None
    scan.scan([(1, ["red apple pie"])])
    real = semantic_kernel.Window

    def no_memory(*a):
        raise MemoryError

    monkeypatch.setattr(semantic_kernel, "Window", no_memory)
    with pytest.raises(MemoryError):
        scan.scan([(2, ["red apple pie red apple pie"])])
    monkeypatch.setattr(semantic_kernel, "Window", real)
    with pytest.raises(RuntimeError, match="failed part-way through a batch"):
        scan.scan([(3, ["apple pie"])])
    with pytest.raises(RuntimeError, match="failed part-way through a batch"):
        scan.request()


def test_window_serials_past_32_bits_are_the_python_scans():
    """The kernel's serials are 32-bit: a scan that reaches 2^32 windows (a corpus of some
    100 GB) wrapped them (heaps ordered by wrapped serials, stamps seen as this window's);
    set here by starting both scans 5 windows short of 2^32."""
    config = SemanticConfig(candidates=3, window_words=4)
    start = (1 << 32) - 5
    py = SemanticScan(ROWS, config, BG)
    py.windows_seen = start
    scan = SemanticScan(ROWS, config, BG)
    assert scan.use_kernel() is None
    k = scan._kernel
    k.m.write(k.state_at, start.to_bytes(4, "little"))
    for s in (py, scan):
        recs = _many_records()
        for i in range(0, len(recs), 7):
            s.scan(recs[i : i + 7])
    assert scan_state(scan) == scan_state(py)
    assert py.windows_seen > 1 << 32


def _driver_job(fixtures, train):
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob

    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",), semantic=SemanticConfig(window_words=12)),
        "gsm8k_test_sample.jsonl",
        "jsonl",
        train.name,
        "jsonl",
    )
    job.set_background(train.read_text(encoding="utf-8"))
    with open(os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8") as f:
        job.feed_eval(f.read())
    job.end_eval()
    return job


def test_the_drivers_reader_thread_gives_the_python_scan_and_its_errors(
    tmp_path, fixtures, monkeypatch
):
    """The CLI's semantic pass reads, batches and splits records on a thread while the kernel
    scans (semantic_pass.semantic_pass): several blocks of a file and several batches a block
    give the Python scan's windows, heaps and counts; a malformed line in the third block
    raises the reader's error, naming the file and the line, as without the thread. The
    process's GIL interval and cycle collector are as they were after either."""
    import gc
    import sys

    from evalsieve import corpus_files, semantic_pass
    from evalsieve.errors import EvalsieveError

    interval = sys.getswitchinterval()
    assert gc.isenabled() and interval > semantic_pass.SWITCH_INTERVAL

    monkeypatch.setattr(corpus_files, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(semantic_kernel, "BATCH_POINTS", 1500)
    src = tmp_path / "src.jsonl"
    with open(os.path.join(fixtures, "semantic_train.jsonl"), encoding="utf-8") as f:
        src.write_text(f.read(), encoding="utf-8")
    assert src.stat().st_size > 4 * 4096
    files = [{"name": "src.jsonl", "path": str(src), "fmt": "jsonl", "fields": ["text"]}]
    states = []
    for kernel in (False, True):
        job = _driver_job(fixtures, src)
        semantic_pass.semantic_pass(job, files, lambda m: None, kernel=kernel)
        assert (job.semantic._kernel is not None) == kernel
        states.append(scan_state(job.semantic))
    assert states[0] == states[1] and states[0][4] > 50

    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i in range(len(lines)) if sum(map(len, lines[:i])) > 2 * 4096)
    lines[at] = '{"text": "broken\n'
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines), encoding="utf-8")
    files = [{"name": "bad.jsonl", "path": str(bad), "fmt": "jsonl", "fields": ["text"]}]
    messages = []
    for kernel in (False, True):
        job = _driver_job(fixtures, src)
        with pytest.raises(EvalsieveError) as e:
            semantic_pass.semantic_pass(job, files, lambda m: None, kernel=kernel)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "bad.jsonl" in messages[0] and f"line {at + 1}" in messages[0]
    assert gc.isenabled() and sys.getswitchinterval() == interval


class _Stop(Exception):
    pass


class _StopAt:
    """A check that raises _Stop at its n-th call, and not again."""

    def __init__(self, n):
        self.left = n

    def __call__(self):
        self.left -= 1
        assert self.left >= 0, "called again after it raised"
        if self.left == 0:
            raise _Stop


def test_a_check_that_raises_stops_the_pass_between_blocks(tmp_path, fixtures, monkeypatch):
    """The API's cancel event reaches the semantic pass (``check``, called before each block):
    it is called once a block (more than five times over this file), and one that raises
    at its fourth call stops the pass there with its exception, in the kernel and in
    Python, with the GIL interval and the cycle collector as they were."""
    import gc
    import sys

    from evalsieve import corpus_files, semantic_pass

    interval = sys.getswitchinterval()
    monkeypatch.setattr(corpus_files, "CHUNK_BYTES", 4096)
    src = tmp_path / "src.jsonl"
    with open(os.path.join(fixtures, "semantic_train.jsonl"), encoding="utf-8") as f:
        src.write_text(f.read(), encoding="utf-8")
    assert src.stat().st_size > 6 * 4096
    files = [{"name": "src.jsonl", "path": str(src), "fmt": "jsonl", "fields": ["text"]}]
    for kernel in (False, True):
        whole = _driver_job(fixtures, src)
        counter = _StopAt(1 << 30)
        semantic_pass.semantic_pass(whole, files, lambda m: None, kernel, check=counter)
        assert (1 << 30) - counter.left > 5  # one a block, and one for the file
        job = _driver_job(fixtures, src)
        with pytest.raises(_Stop):
            semantic_pass.semantic_pass(job, files, lambda m: None, kernel, check=_StopAt(4))
        assert gc.isenabled() and sys.getswitchinterval() == interval


def test_the_apis_cancel_stops_the_semantic_pass(fixtures, monkeypatch):
    """evalsieve.contamination(cancel=...) set once the semantic stage begins: the run ends
    with `cancelled` before the pass reads a block (it read the whole corpus, then stopped)."""
    import threading

    import evalsieve
    from evalsieve import semantic_pass
    from evalsieve.errors import EvalsieveError

    blocks = []
    real = semantic_pass._scan

    def counted(sem, sources, kernel, skip, count=None, check=None):
        def counting():
            check()
            blocks.append(1)

        return real(sem, sources, kernel, skip, count, check=counting)

    monkeypatch.setattr(semantic_pass, "_scan", counted)
    stop = threading.Event()

    def on_progress(stage, done, total):
        if stage == "semantic":
            stop.set()

    with pytest.raises(EvalsieveError) as e:
        evalsieve.contamination(
            os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
            os.path.join(fixtures, "semantic_train.jsonl"),
            eval_fields="question",
            train_fields="text",
            semantic=True,
            progress=on_progress,
            cancel=stop,
        )
    assert e.value.code == "cancelled"
    assert blocks == []


def test_the_apis_cancel_stops_the_semantic_shards_as_they_run(fixtures, tmp_path, monkeypatch):
    """With workers (the API's default is every core) the rung's pass runs as shards whose
    results come only at their end: a cancel set as the stage begins stops the run within
    a moment, while the shards still run (each sleeps 60 s first here), not after them."""
    import threading
    import time

    import evalsieve
    from evalsieve import semantic_pass
    from evalsieve.errors import EvalsieveError

    with open(os.path.join(fixtures, "semantic_train.jsonl"), encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    trains = []
    for k in range(2):
        trains.append(tmp_path / f"t{k}.jsonl")
        trains[-1].write_text("".join(lines[k::2]), encoding="utf-8")
    monkeypatch.setattr(semantic_pass, "SHARD_MIN_BYTES", 1_000)
    real = semantic_pass.semantic_task

    def slow(payload, task, progress=None):
        time.sleep(60)
        return real(payload, task, progress)

    monkeypatch.setattr(semantic_pass, "semantic_task", slow)
    stop, at = threading.Event(), []

    def on_progress(stage, done, total):
        if stage == "semantic" and not at:
            at.append(time.monotonic())
            stop.set()

    with pytest.raises(EvalsieveError) as e:
        evalsieve.contamination(
            os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
            [str(t) for t in trains],
            eval_fields="question",
            train_fields="text",
            semantic=True,
            workers=2,
            progress=on_progress,
            cancel=stop,
        )
    assert e.value.code == "cancelled"
    assert time.monotonic() - at[0] < 20  # not the shards' 60 s


def test_cli_semantic_rung_on_ray_is_the_one_process_result(
    tmp_path, fixtures, model_dir, capsys, monkeypatch
):
    """--engine ray (a local cluster of 2 CPUs): the rung's shards (a file each), scanned in
    Ray's workers and merged in the driver, give the exports of one process."""
    ray = pytest.importorskip("ray")
    import json

    from test_corpus_scan import ROOT, exports

    from evalsieve import corpus, semantic_pass
    from evalsieve.cli import main

    with open(os.path.join(fixtures, "semantic_train.jsonl"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:60]) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n".join(lines[60:]) + "\n", encoding="utf-8")
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 12_000)  # a.jsonl: ranges of it
    monkeypatch.setattr(semantic_pass, "SHARD_MIN_BYTES", 12_000)  # a shard a file
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    argv = ["contamination", ev, str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    argv += ["--eval-field", "question", "--train-field", "text", "--semantic", "--json"]
    argv += ["--threads", "1", "--model-dir", model_dir, "--semantic-window", "12"]
    assert main([*argv, "--out", str(tmp_path / "one"), "--workers", "1"]) == 0
    one = json.loads(capsys.readouterr()[0])["rows_contaminated_by_rung"]
    env = {"env_vars": {"PYTHONPATH": os.path.join(ROOT, "py")}}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=env)
    try:
        argv += ["--engine", "ray", "--workers", "2", "--out", str(tmp_path / "ray")]
        assert main(argv) == 0
    finally:
        ray.shutdown()
    out, log = capsys.readouterr()
    assert json.loads(out)["rows_contaminated_by_rung"] == one and one["semantic"] >= 1
    assert "semantic: 2 shards of the corpus scanned on their own" in log, log
    assert exports(tmp_path / "ray") == exports(tmp_path / "one")
