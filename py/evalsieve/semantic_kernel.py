"""The semantic rung's window scan in the compiled kernel (kernels/semantic.c, part of
kernels/prefilter.wasm): the host that lays out its tables and hands it batches of records.

:class:`semantic.SemanticScan` defines the scan (step 2 of the rung: white-space words,
windows of W words with stride ⌈W/2⌉, each window's eval-vocabulary terms, their window
counts, each probe's candidate sum of key units and its heap of the ``candidates`` best
windows, ties kept by the earlier window). Its Python loop is the oracle; this host gives the
same windows, counts and heaps (``tests/py/test_semantic_kernel.py``) at kernel speed. What a
word's terms are stays in Python (:func:`semantic_terms.word_terms`): the kernel asks for the
terms of each word it has not seen (``sem_lookup``), once per distinct word while its word
table lasts (the table grows while it fills, up to :data:`WORD_SLOTS`; then it is emptied,
as the Python memo is cleared), and does the per-word and per-window work itself.

A code row's rung also reads code shingles in every window (``code_tokens`` of a window's
words, n-grams across word boundaries); the kernel does not, so a scan with a code row runs
in Python (:meth:`SemanticScan.use_kernel` says so). The memory is a
:class:`kernel.WasmMemory` (wasmtime, the CLI) or any object with the same
``size/grow/call/write/read/zero`` methods (the page's host).
"""

from __future__ import annotations

from array import array
from typing import NamedTuple

from .semantic_parts import Window
from .semantic_terms import word_terms

#: Code points of records per kernel batch (at most 16 MiB of UTF-8; about 40 MB of the
#: kernel's memory for the batch's words and windows); a longer record is a batch of its own.
#: A training file's block (4 MiB) is one batch: a scan on a reader thread's heels returns
#: to Python (and waits for the GIL) once a block, not once every few records.
BATCH_POINTS = 1 << 22
#: Word-table slots (a power of two, at most half of them used): 2^19 distinct words, as
#: the Python memo's limit. The table starts at WORD_SLOTS_FIRST slots and grows 4x while it
#: fills (a smaller table stays in cache: one line a distinct word), then is emptied.
WORD_SLOTS = 1 << 20
WORD_SLOTS_FIRST = 1 << 16
#: Term ids the kernel has room for at first (grown by copying when a batch needs more).
TERM_IDS = 1 << 20
_STATE_WORDS = 6  # semantic.c S_STATE
#: The most bytes the probes' heaps (12 a slot: sum and serial, ``probes × candidates``
#: slots) may take in the kernel: its addresses are signed 32-bit (2 GiB), and the word
#: table and a batch need room too. Past it the scan stays in Python (same results).
HEAP_BYTES_MAX = 1 << 30
#: The kernel numbers windows in 32 bits (serials, and the per-window stamps of its term and
#: probe tables): a batch that could pass it is left to the Python scan, which goes on from
#: the kernel's state (:meth:`KernelWindowScan.scan`).
SERIAL_MAX = (1 << 32) - 1


def too_big(probes: int, candidates: int) -> str | None:
    """Why the kernel has no room for ``probes × candidates`` heap slots (None: it has)."""
    need = 12 * probes * candidates
    if need <= HEAP_BYTES_MAX:
        return None
    return (
        f"{probes} probes × {candidates} candidates need {need >> 20} MiB of heaps, more than "
        f"the kernel's {HEAP_BYTES_MAX >> 20} MiB"
    )


class Split(NamedTuple):
    """A batch's words as ``sem_split`` gives them (semantic.c): one u32 per word each."""

    words: int
    counts: bytes  #: per record, its words
    offs: bytes  #: per word, its first byte's offset in the batch
    lens: bytes  #: per word, its bytes
    hashes: bytes  #: per word, the FNV-1a hash of its bytes


class Batch(NamedTuple):
    """Records of one kernel call, as the kernel reads them."""

    first: int  #: the index of the batch's first record in the records scanned
    count: int  #: its records
    blob: bytes  #: each record's field values joined by " ", as UTF-8 (surrogatepass),
    #: each ended by 0xFF (semantic.c)
    points: int  #: code points of the texts, one more per record
    split: Split | None = None  #: its words, when split already (:class:`WordSplitter`)


def _layout(at: int, sizes: tuple) -> list[int]:
    """Offsets of regions of ``sizes`` bytes from ``at`` on, each 16-byte aligned, with 8
    bytes to spare after each (the kernel reads a word's first 8 bytes at once)."""
    out = []
    for size in sizes:
        out.append(at)
        at = (at + size + 8 + 15) & ~15
    return out


def _room(sizes: tuple) -> int:
    return sum(sizes) + 24 * len(sizes)


def _split_sizes(n: int, nrec: int) -> tuple:
    words = n // 2 + nrec + 1  # a word is at least one byte and a separator
    return (n, 4 * nrec + 4, 4 * words, 4 * words, 4 * words)


class WordSplitter:
    """``sem_split`` in a kernel instance of its own, for a reader thread: the words of a
    batch split and hashed there (:func:`make_batches`), so that the scan's instance only
    looks them up. One thread at a time may use it.

    Args:
        memory: a fresh kernel instance (:func:`kernel._memory` when None).
    """

    def __init__(self, memory=None):
        if memory is None:
            from .kernel import _memory

            memory = _memory()
        self.m = memory
        self.at = (memory.size() + 15) & ~15

    def split(self, blob: bytes, nrec: int) -> Split:
        sizes = _split_sizes(len(blob), nrec)
        self.m.grow(self.at + _room(sizes))
        blob_at, counts_at, offs_at, lens_at, hashes_at = _layout(self.at, sizes)
        self.m.write(blob_at, blob)
        nw = self.m.call("sem_split", blob_at, len(blob), offs_at, lens_at, hashes_at, counts_at)
        return Split(
            nw,
            self.m.read(counts_at, 4 * nrec),
            self.m.read(offs_at, 4 * nw),
            self.m.read(lens_at, 4 * nw),
            self.m.read(hashes_at, 4 * nw),
        )


def make_batches(
    records: list[tuple[int, list[str]]], window: int, splitter: WordSplitter | None = None
) -> list[Batch]:
    """The records cut into kernel batches of at most :data:`BATCH_POINTS` code points (a
    longer record is a batch of its own), their words split by ``splitter`` when given.
    Reads nothing but its arguments, so a reader thread can make the batches while the
    kernel scans the ones before."""
    texts = [" ".join(segs) for _, segs in records]
    out, i = [], 0
    while i < len(texts):
        j, points = i, 0
        while j < len(texts) and (j == i or points + len(texts[j]) <= BATCH_POINTS):
            points += len(texts[j]) + 1
            j += 1
        blob = b"\xff".join([t.encode("utf-8", "surrogatepass") for t in texts[i:j]])
        split = splitter.split(blob, j - i) if splitter is not None else None
        out.append(Batch(i, j - i, blob, points, split))
        i = j
    return out


def _words(data: bytes) -> array:
    a = array("i")
    a.frombytes(data)
    return a


class KernelWindowScan:
    """One SemanticScan's candidate stage in a kernel instance.

    Args:
        scan: the :class:`semantic.SemanticScan` (probes, key terms and postings built; no
            record scanned yet); its windows, heaps and counts are filled by :meth:`close`.
        memory: a fresh kernel instance (:func:`kernel._memory` when None).
    """

    def __init__(self, scan, memory=None):
        if memory is None:
            from .kernel import _memory

            memory = _memory()
        self.m, self.s = memory, scan
        self.terms = sorted(scan.vocab)
        self.tid = {t: i for i, t in enumerate(self.terms)}
        v, p, k = len(self.terms), len(scan.probes), scan.config.candidates
        self.p, self.k = p, k
        units, poff, post = array("i", [0]) * v, array("i", [0]) * (v + 1), array("i")
        for i, t in enumerate(self.terms):
            ps = scan.postings.get(t)
            if ps:
                units[i] = scan._key_units[t]
                post.extend(ps)
            poff[i + 1] = len(post)
        self.at = (self.m.size() + 15) & ~15
        u_at, po_at, ps_at = (self._place(a.tobytes() or b"\0" * 4) for a in (units, poff, post))
        self.df_at = self._zeros(4 * v + 4)
        ts_at = self._zeros(4 * v + 4)
        acc_at = self._zeros(8 * p)
        as_at = self._zeros(4 * p)
        touch_at = self._zeros(4 * p)
        self.hx_at = self._zeros(8 * p * k)
        self.hs_at = self._zeros(4 * p * k)
        self.hn_at = self._zeros(4 * p)
        self.state_at = self._zeros(4 * _STATE_WORDS)
        floor_at = self._place((array("q", [-1]) * max(p, 1)).tobytes())  # no heap full yet
        cfg = [p, k, scan.window, u_at, po_at, ps_at, self.df_at, ts_at, acc_at, as_at]
        cfg += [touch_at, self.hx_at, self.hs_at, self.hn_at, self.state_at, floor_at]
        self.m.call("sem_configure", self._place(array("i", cfg).tobytes()))
        self.areas: dict[str, tuple[int, int]] = {}  # scratch areas: (start, bytes)
        self.flat_at, self.flat = 0, 0
        self.terms_cap = TERM_IDS  # grown when needed (_learn)
        self._terms_at = self._zeros(4 * self.terms_cap)
        self.m.call("sem_terms_region", self._terms_at)
        self.max_slots = WORD_SLOTS
        first = min(WORD_SLOTS_FIRST, self.max_slots)
        self._word_table(first, 8 * first)
        self.windows: dict[int, Window] = {}
        # set when a batch failed after the kernel's heaps took its windows: they may name
        # windows never kept, so the scan cannot go on (nor be handed back)
        self.failed = False

    # -- the kernel's memory: a bump allocator over its linear memory -------------------------
    def _zeros(self, nbytes: int) -> int:
        a = self.at
        self.m.grow(a + nbytes + 16)
        self.m.zero(a, nbytes)
        self.at = (a + nbytes + 15) & ~15
        return a

    def _place(self, data: bytes) -> int:
        a = self.at
        self.m.grow(a + len(data) + 16)
        self.m.write(a, data)
        self.at = (a + len(data) + 15) & ~15
        return a

    def _state(self) -> array:
        return _words(self.m.read(self.state_at, 4 * _STATE_WORDS))

    def _word_table(self, slots: int, pool: int) -> None:
        """A new empty word table of ``slots`` slots (half of them used at most) and ``pool``
        bytes of words, in fresh memory."""
        self.slots, self.pool = slots, pool
        self.slot_at = self._zeros(16 * slots)
        self.ent_at = self._zeros(4 * slots)  # 8 bytes an entry, slots / 2 entries
        self.eres_at = self._zeros(4 * slots)  # an entry's terms: 8 bytes
        self.pool_at = self._zeros(pool)
        self._empty_words()

    def _empty_words(self) -> None:
        self.m.zero(self.slot_at, 16 * self.slots)
        self.m.call(
            "sem_words", self.slot_at, self.slots - 1, self.ent_at, self.slots // 2,
            self.pool_at, self.pool, self.eres_at,
        )  # fmt: skip

    def _area(self, name: str, sizes: tuple) -> int:
        """The start of scratch area ``name``, room for regions of ``sizes`` bytes (grown by
        doubling; what it held is lost when it grows)."""
        nbytes = _room(sizes)
        at, cap = self.areas.get(name, (0, 0))
        if nbytes > cap:
            cap = max(nbytes, 2 * cap)
            at = self._zeros(cap)
            self.areas[name] = (at, cap)
        return at

    # -- the scan ------------------------------------------------------------------------------
    def scan(self, records: list[tuple[int, list[str]]], batches: list | None = None) -> list:
        """As :meth:`SemanticScan.scan` (``(1-based record number, field values)``).

        Args:
            batches: :func:`make_batches` of these records and this scan's window, when made
                already (on another thread); made here when None.
        Returns:
            the records left unscanned (empty, unless their windows could take the window
            serial past :data:`SERIAL_MAX`: then :meth:`close` and the Python scan go on).
        """
        self._check()
        if batches is None:
            batches = make_batches(records, self.s.window)
        stride = (self.s.window + 1) // 2
        for b in batches:
            # at most (points + 1) / 2 words, and per record words / stride + 2 windows
            if self.windows_seen() + (b.points + 1) // 2 // stride + 2 * b.count > SERIAL_MAX:
                return records[b.first :]
            self._batch(records[b.first : b.first + b.count], b)
        return []

    def _batch(self, records: list, b: Batch) -> None:
        blob, n, nrec = b.blob, len(b.blob), b.count
        sizes = _split_sizes(n, nrec)
        blob_at, counts_at, offs_at, lens_at, hashes_at = _layout(self._area("split", sizes), sizes)
        self.m.write(blob_at, blob)
        if b.split is None:
            nw = self.m.call("sem_split", blob_at, n, offs_at, lens_at, hashes_at, counts_at)
        else:
            nw = b.split.words
            for at, data in zip((counts_at, offs_at, lens_at, hashes_at), b.split[1:]):
                self.m.write(at, data)
        windows = nw // ((self.s.window + 1) // 2) + 2 * nrec + 1
        sizes = (8 * nw, 4 * windows, 24 * windows)
        res_at, wref_at, out_at = _layout(self._area("scan", sizes), sizes)
        e0 = self._state()[3]
        count = self.m.call("sem_lookup", blob_at, nw, offs_at, lens_at, hashes_at, res_at)
        if count == -3:  # the table is full: a bigger one, or emptied, and the batch again
            if e0 == 0:  # too small for this batch alone
                self._word_table(2 * self.slots, max(2 * self.pool, n))
            elif self.slots < self.max_slots:
                slots = min(4 * self.slots, self.max_slots)
                self._word_table(slots, max(8 * slots, self.pool))
            else:
                self._empty_words()
            return self._batch(records, b)
        if count:
            try:
                self._learn(e0, count)
            except BaseException:  # (an interrupt too) its new words would stay pending
                self._empty_words()  # and fail every later batch that holds one
                raise
        got = self.m.call("sem_scan", res_at, counts_at, offs_at, nrec, wref_at, out_at)
        if got < 0:
            raise RuntimeError("the kernel's sem_scan met a word it has no terms for")
        if got:
            try:
                self._keep(_words(self.m.read(out_at, 24 * got)), records, blob)
            except BaseException:
                self.failed = True
                raise

    def _check(self) -> None:
        if self.failed:
            raise RuntimeError(
                "the kernel's window scan failed part-way through a batch; its heaps may "
                "name windows it never kept, so the scan cannot go on: start it again"
            )

    def _learn(self, e0: int, count: int) -> None:
        """Give the kernel the terms of its ``count`` new words (entries e0.., their bytes
        one after the other in its pool)."""
        ents = _words(self.m.read(self.ent_at + 8 * e0, 8 * count))
        pool0 = ents[0]
        total = ents[2 * count - 2] + ents[2 * count - 1] - pool0
        pool = self.m.read(self.pool_at + pool0, total)
        tid, flat, o = self.tid, array("i"), 0
        for i in range(count):
            n = ents[2 * i + 1]
            word = pool[o : o + n].decode("utf-8", "surrogatepass")
            o += n
            ids = [tid[t] for t in dict.fromkeys(word_terms(word)) if t in tid]
            flat.append(len(ids))
            flat.extend(ids)
        used = self._state()[5]
        need = used + len(flat)
        if need > self.terms_cap:  # a bigger region, the ids so far copied over
            cap = max(2 * self.terms_cap, need)
            old = self.m.read(self._terms_at, 4 * used) if used else b""
            self._terms_at = self._zeros(4 * cap)
            self.m.write(self._terms_at, old)
            self.m.call("sem_terms_region", self._terms_at)
            self.terms_cap = cap
        if 4 * len(flat) > self.flat:
            self.flat = max(4 * len(flat), 2 * self.flat)
            self.flat_at = self._zeros(self.flat)
        self.m.write(self.flat_at, flat.tobytes())
        self.m.call("sem_set_terms", self.flat_at, count, e0)

    def windows_seen(self) -> int:
        """The windows the kernel has scanned so far."""
        return self._state()[0] & 0xFFFFFFFF

    def _alive(self) -> set[int]:
        """The serials of the windows some heap holds."""
        hs = _words(self.m.read(self.hs_at, 4 * self.p * self.k))
        hn = _words(self.m.read(self.hn_at, 4 * self.p))
        k = self.k
        return {hs[j] & 0xFFFFFFFF for i in range(self.p) for j in range(i * k, i * k + hn[i])}

    def _keep(self, kept_now: array, records: list, blob: bytes) -> None:
        """The windows of this batch some heap holds at its end (``[serial, record, start,
        end, lo, hi]`` each), kept with their context (a window of words either side: the
        words of ``blob[lo:hi]``, to the record's end when hi is -1)."""
        size, kept, name = self.s.window, self.windows, self.s.file_name
        for q in range(0, len(kept_now), 6):
            serial, r, s, e, lo, hi = kept_now[q : q + 6]
            if hi < 0:
                hi = blob.find(b"\xff", lo)
                hi = len(blob) if hi < 0 else hi
            words = blob[lo:hi].decode("utf-8", "surrogatepass").split()
            kept[serial] = Window(records[r][0], s, e, max(0, s - size), words, name, serial)
        if len(kept) > 4 * self.p * self.k:  # windows of earlier batches let go since
            alive = self._alive()
            for serial in [x for x in kept if x not in alive]:
                del kept[serial]

    def close(self) -> None:
        """Hand the scan's windows, heaps and counts to the SemanticScan (its fields as its
        own Python loop leaves them).

        Raises:
            RuntimeError: a batch failed part-way (:attr:`failed`).
        """
        self._check()
        s, k = self.s, self.k
        hx = array("q")
        hx.frombytes(self.m.read(self.hx_at, 8 * self.p * k))
        hs = _words(self.m.read(self.hs_at, 4 * self.p * k))
        hn = _words(self.m.read(self.hn_at, 4 * self.p))
        heaps = []
        for i in range(self.p):
            h = []
            for j in range(i * k, i * k + hn[i]):
                x = hs[j] & 0xFFFFFFFF
                h.append((hx[j], -x, x))
            heaps.append(h)
        s._heaps = heaps  # each a heapq heap: the kernel's order is (sum, -serial)
        # the heaps' floors and each window's count of heaps, as the Python loop keeps them
        # (a scan after request() goes on in Python from here)
        s._floor = [h[0][0] if len(h) == k else -1 for h in heaps]
        refs: dict[int, int] = {}
        for h in heaps:
            for it in h:
                refs[it[2]] = refs.get(it[2], 0) + 1
        s._refs = refs
        alive = set(refs)
        s._kept = {x: w for x, w in self.windows.items() if x in alive}
        df = _words(self.m.read(self.df_at, 4 * len(self.terms)))
        s.window_df = {t: df[i] for i, t in enumerate(self.terms) if df[i]}
        st = self._state()
        s.windows_seen, s.windows_with_key = st[0] & 0xFFFFFFFF, st[1] & 0xFFFFFFFF
