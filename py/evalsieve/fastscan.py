"""A vectorised candidate filter for the CLI's training scan (numpy): the fallback.

The CLI's filter is the scan kernel (:mod:`evalsieve.kernel`, kernels/prefilter.wasm under
wasmtime); this one runs when wasmtime is not installed (the log says so), and it stays a
second, independent filter the tests hold to the rule.

Python (:mod:`evalsieve.ngrams`) owns the rule and alone decides what matches. This filter
only decides which training *lines* can be skipped because they provably hold no eval
n-gram; every other line goes to the exact Python check. It is the CPython twin of the
page's ``worker/prefilter.js`` and uses the same character table (:func:`text.char_table`).
numpy is imported lazily by the CLI; without it the pure-Python scan runs and gives the
same exports (tests/py/test_corpus_scan.py runs both on the same inputs).

How one block of whole lines (bytes) is read, all in numpy:

1. Every non-ASCII character is rewritten in place as one *unit* byte, from the character
   table: the ASCII byte of a one-character ASCII normal form (full-width ``Ａ`` -> ``a``),
   WORD (0x80) for a one-character non-ASCII normal form, a space, or DEL (deleted: the
   punctuation ``“ ” —``, and every continuation byte). In JSONL every JSON escape is
   rewritten the same way (``\\uXXXX`` through the table, ``\\n`` -> a space, ``\\"``
   deleted), and an unescaped ``"`` (the edge of a JSON string) becomes a space, so every
   string value's words are a run of words of the line. Eval words get the same units
   (ASCII as is, any other character WORD).
2. Anything the table cannot map alone (a character outside it, one whose normal form is
   several characters, a surrogate escape, ``\\\\``, a control character) is the unit
   CAND (0x81), and its line is a candidate.
3. ``bytes.translate`` lower-cases and deletes punctuation and DEL units in one C call;
   words are runs of bytes > 0x20. A word's hash is its first 8 bytes times an odd
   constant: equal words give equal hashes; words of more than 8 bytes that share their
   first 8 collide, which only adds candidates.
4. Strided probes: with S = N - 5 clamped to 1..4 and K = N - S + 1 (N = 13: S = 4 and
   K = 10; K >= 6 words, so that common short phrases make no candidates), every window of
   N words holds exactly one window of K words that starts at a multiple of S. The hash of
   each such window (the sum of its word hashes mod 2**64, from one prefix sum) is looked
   up in the hashes of the K-word windows at offsets 0..S-1 of every eval n-gram (a table
   of the top bits, up to 2**22 entries, then an exact search of the sorted hashes): at
   N = 13, a quarter of the lookups of probing every window.

5. The exact rung (:mod:`evalsieve.exact`): a line is a candidate when one of its
   segments' words are a probe of an eval row's key. A text line is one segment (its words:
   one difference of the prefix sums of step 4). In JSONL an unescaped ``"`` becomes the
   unit QUOTE (a word gap), so the strings of a line are the runs between its quotes taken
   in pairs; every string that is a value (the next byte after it, white space skipped, is
   not ``:``) is a segment: a superset of the chosen fields' values. A segment's hash is
   the sum of its word hashes plus its word count times a constant, looked up in the
   probes' hashes (every non-empty prefix of each key, :func:`exact.probe_starts`). A JSONL
   line whose quotes do not pair up is a candidate; when some key could be made only of
   number or boolean leaves (:func:`exact.scalar_only`), so is every line with a word
   outside its strings.

A line holding an eval n-gram in a chosen field always has a window whose hash is in the
table (the field's words are consecutive words of the line), and a line holding an exact
copy of an eval row has a segment that is a probe of its key, so the filter can cost time,
never results. Windows across fields or lines only add candidates. Lines that the byte
test cannot classify (a JSONL line not shaped ``{...}``, a text line starting with white
space) are candidates too, so the exact reader decides whether they are records and
reports malformed ones.

Limits: with N = 1 (set by the user) the filter is off (a number leaf can be one word that
differs from its JSON spelling). Validation of JSON beyond the ``{...}`` shape happens only
for candidate lines: a non-candidate line such as ``{"text": "a" x}`` is counted as a record
without being parsed (the UTF-8 of every byte is checked).
"""

from __future__ import annotations

from .exact import probe_starts, scalar_only
from .kernel_spec import PUNCT, ascii_classes
from .text import char_table

# unit bytes: a non-ASCII word character, unknown, deleted (above ASCII: after the rewrite no
# other byte >= 0x80 is left, and they count as word bytes, > 0x20)
WORD, CAND, DEL = 0x80, 0x81, 0x82
# JSONL: an unescaped '"' after the translation (a gap between words, below 0x20: no raw
# byte becomes it, 0x1F itself is white space to Python and becomes a space)
QUOTE = 0x1F
_K1 = 0x9E3779B97F4A7C15
_K2 = 0xC2B2AE3D27D4EB4F  # a segment's word count, mixed into its exact-key hash
_TABLE_BITS = 22  # at most: 4 MB of table, about 16 slots per eval hash
_STRIDE = 4
_ASCII_PUNCT = bytes(c for c, k in enumerate(ascii_classes()) if k == PUNCT)  # the rule's
# control characters that are not white space: the translation makes each a CAND unit
_CONTROLS = bytes(range(0x00, 0x09)) + bytes(range(0x0E, 0x1C)) + b"\x7f"

_np = None
_ONE = _SEVEN = _C21 = _C80 = _U1 = None


def numpy_or_none():
    """numpy if installed (the ``[fast]`` extra), else None."""
    global _np, _ONE, _SEVEN, _C21, _C80, _U1
    if _np is None:
        try:
            import numpy

            _np = numpy
            u = numpy.uint64
            _ONE, _SEVEN, _C21, _C80 = u(1), u(7), u(0x2121212121212121), u(0x8080808080808080)
            _U1 = u(_K1)
        except ImportError:
            _np = False
    return _np or None


_bmp_cache = None


def _bmp_units(np):
    """code point (BMP) -> unit byte (built once per process; see :func:`_build_bmp_units`)."""
    global _bmp_cache
    if _bmp_cache is None:
        _bmp_cache = _build_bmp_units(np)
    return _bmp_cache


def _build_bmp_units(np):
    """code point (BMP) -> unit byte: the ASCII byte of a one-character ASCII normal form,
    WORD for a one-character non-ASCII one, space, DEL (deleted), or CAND."""
    out = bytearray([CAND]) * 0x10000  # filled in Python, handed to numpy once
    for c in range(0x80):
        ch = chr(c)
        if ch.isspace():
            out[c] = 0x20
        elif c in _ASCII_PUNCT:
            out[c] = DEL
        elif 0x20 < c < 0x7F:
            out[c] = ord(ch.lower())
    for c, rep in char_table().items():
        if c >= 0x10000:
            continue
        if rep == "":
            out[c] = DEL
        elif len(rep) == 1:
            o = ord(rep)
            if rep.isspace():
                out[c] = 0x20
            elif 0x20 < o < 0x7F:
                out[c] = o
            elif o >= 0x80:
                out[c] = WORD
    return np.frombuffer(bytes(out), dtype=np.uint8)


class LineFilter:
    """Candidate lines of blocks of training text, for one eval index.

    Args:
        ngrams: the eval n-grams (normalised words joined by one space).
        n: words per n-gram (>= 2).
        fmt: ``"jsonl"`` or ``"text"``.
        exact_keys: the eval rows' exact-rung keys (``EvalIndex.exact_keys``); lines holding
            a copy of one are candidates too. Without them the filter passes on only the
            lines that may hold an n-gram (the exact rung then misses copies that hold none).
    Raises:
        ImportError: numpy is missing. ValueError: n < 2 or another format (the caller then
        uses the exact scan alone).
    """

    def __init__(self, ngrams: list[str], n: int, fmt: str, exact_keys=()):
        np = numpy_or_none()
        if np is None:
            raise ImportError("numpy is not installed (pip install 'evalsieve[fast]')")
        if n < 2 or fmt not in ("jsonl", "text"):
            raise ValueError("the filter reads JSONL or text with N >= 2")
        self.n, self.fmt = n, fmt
        self.bmp = _bmp_units(np)
        # byte -> byte for bytes.translate: lower-case, white space -> " " (the line end
        # stays), unit bytes kept, punctuation deleted (JSONL: an unescaped quote is the
        # edge of a string, so white space; its backslashes were rewritten already)
        table = bytearray(range(256))
        for c in range(0x80):
            u = int(self.bmp[c])
            table[c] = u if u not in (DEL, CAND) else c
        table[0x0A] = 0x0A
        for c in _CONTROLS:  # a control character (not white space): its line is a candidate
            table[c] = CAND
        delete = bytes([c for c in _ASCII_PUNCT if not (fmt == "jsonl" and c == 0x22)]) + bytes(
            [DEL]
        )
        if fmt == "jsonl":
            table[0x22] = QUOTE
        table[WORD], table[CAND] = WORD, CAND
        self._table, self._delete = bytes(table), delete
        # strided probes: every window of N words holds exactly one window of K = N - S + 1
        # words that starts at a multiple of S (S = N - 5 clamped to 1..4, so that K >= 6
        # words stay selective); so only those are probed, against the K-word windows at
        # offsets 0..S-1 of every eval n-gram
        self.stride = min(_STRIDE, max(1, n - 5))
        self.k = n - self.stride + 1
        self.hashes = np.unique(self._eval_hashes(ngrams))
        bits = min(_TABLE_BITS, max(16, (len(self.hashes) * 16).bit_length()))
        self._shift = np.uint64(64 - bits)
        self.table = np.zeros(1 << bits, dtype=bool)
        self.table[self.hashes >> self._shift] = True
        keys = list(exact_keys)
        self.exact = np.unique(self._probe_hashes(keys))
        self.scalar_only = fmt == "jsonl" and any(scalar_only(k) for k in keys)

    # -- hashing ----------------------------------------------------------------------------
    def _window_hashes(self, t: bytes, stride: int | None = None):
        """(window starts, window hashes) of a unit byte string: words are runs of bytes
        > 0x20; the windows are the K-word windows starting at every ``stride``-th word
        (default :attr:`stride`); a window's start is its first word's byte offset, its hash
        the sum of its K word hashes (mod 2**64).

        A word's hash reads its first 8 bytes as a little-endian word, cut at the word's end
        with a branch-free mask (the lowest byte <= 0x20, found with the classic "has a byte
        less than" bit trick, exact for the lowest such byte): equal words hash equal; words
        of more than 8 bytes that share their first 8 collide, which only adds candidates.
        Only word *starts* are searched for (one pass over the bytes), never their ends."""
        return self._windows(*self._word_prefix(t), stride)

    def _windows(self, starts, p, stride: int | None = None):
        """:meth:`_window_hashes` from :meth:`_word_prefix`'s word starts and prefix sums."""
        np = numpy_or_none()
        w, k = len(starts), self.k
        stride = self.stride if stride is None else stride
        if w < k:
            return starts[:0], np.zeros(0, dtype=np.uint64)
        m = (w - k) // stride + 1
        with np.errstate(over="ignore"):
            g = p[k::stride][:m] - p[0::stride][:m]
        return starts[0::stride][:m], g

    @staticmethod
    def _word_prefix(t: bytes):
        """(word starts, prefix sums of the word hashes) of a unit byte string: ``p[j]`` is
        the sum (mod 2**64) of the hashes of words 0..j-1 (see :meth:`_window_hashes`)."""
        np = numpy_or_none()
        a = np.frombuffer(t + b"\x00" * 8, dtype=np.uint8)
        isword = (a > 0x20).view(np.uint8)
        starts = np.flatnonzero(isword[1:] > isword[:-1]) + 1
        if isword[0]:
            starts = np.concatenate((np.zeros(1, dtype=starts.dtype), starts))
        v = np.ndarray((len(a) - 7,), dtype="<u8", buffer=a, strides=(1,))
        w = len(starts)
        p = np.empty(w + 1, dtype=np.uint64)
        p[0] = 0
        with np.errstate(over="ignore"):
            x = v[starts]
            low = _first_gap(np, x)
            low -= _ONE  # the mask; low = 0 (no gap) keeps all 8 bytes
            x &= low
            x *= _U1
            np.cumsum(x, out=p[1:])
        return starts, p

    def _probe_hashes(self, keys: list[str]):
        """The exact-key probes' hashes (:mod:`evalsieve.exact`: for text the keys, for JSONL
        every non-empty prefix of each key and of its tails after number-like words), as a
        segment of the line gets them in :meth:`candidate_lines`."""
        np = numpy_or_none()
        if not keys:
            return np.zeros(0, dtype=np.uint64)
        text = (
            ("\n".join(keys) + "\n")
            .encode("utf-8", "surrogatepass")
            .translate(_LEAD_TO_WORD, _CONTINUATION)
        )
        _, p = self._word_prefix(text)
        split = [k.split() for k in keys]
        lens = np.array([len(w) for w in split], dtype=np.int64)
        first = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(lens)[:-1]))
        if self.fmt == "text":  # the whole key: one segment
            a, c = first, lens
        else:  # every prefix: word a .. a + c - 1, c = 1 .. len
            key = np.repeat(np.arange(len(keys)), lens)
            c = np.arange(int(lens.sum())) - np.repeat(first, lens) + 1
            a = first[key]
            more = [
                (first[i] + m, lens[i] - m)
                for i, w in enumerate(split)
                for m in probe_starts(w, "jsonl")[1:]
            ]
            if more:  # tails after number-like words (rare): their prefixes too
                a = np.concatenate([a] + [np.full(k, s) for s, k in more])
                c = np.concatenate([c] + [np.arange(1, k + 1) for _, k in more])
        with np.errstate(over="ignore"):
            return p[a + c] - p[a] + c.astype(np.uint64) * np.uint64(_K2)

    def _exact_lines(self, t: bytes, ta, nl, starts, p, bu, line_count: int):
        """Lines of the unit block ``t`` with a segment that is an exact-key probe, and (JSONL)
        lines whose quotes do not pair up or, with a scalar-only key, with a word outside a
        string: a list of arrays of line indexes. ``bu``: the block before the translation
        (its quotes are the QUOTE units of ``t``, in order)."""
        np = numpy_or_none()
        out = []
        if self.fmt == "text":
            ls = np.concatenate((np.zeros(1, dtype=nl.dtype), nl + 1))[:line_count]
            le = np.append(nl, len(t))[:line_count]
            a, b = np.searchsorted(starts, ls), np.searchsorted(starts, le)
            seg_line = np.arange(line_count)
        else:
            q = np.flatnonzero(ta == QUOTE)
            if not len(q):
                return out
            ql = np.searchsorted(nl, q)  # the line of each quote
            rank = np.arange(len(q)) - np.searchsorted(ql, ql)  # its place in its line
            opens = np.flatnonzero((rank & 1) == 0)
            paired = opens + 1 < len(q)
            paired[paired] = ql[opens[paired] + 1] == ql[opens[paired]]
            if not paired.all():  # an odd quote: not JSON, Python says
                out.append(ql[opens[~paired]])
            opens = opens[paired]
            qb = np.flatnonzero(bu == 0x22)
            if len(qb) != len(q):  # cannot happen (a quote unit is a quote): be safe
                return out + [np.unique(ql)]
            e = qb[opens + 1] + 1  # after the closing quote
            last = len(bu) - 1
            while True:  # white space before a ':'
                nxt = bu[np.minimum(e, last)]
                sp = ((nxt == 0x20) | (nxt == 0x09) | (nxt == 0x0D)) & (e <= last)
                if not sp.any():
                    break
                e[sp] += 1
            value = (e > last) | (bu[np.minimum(e, last)] != 0x3A)
            opens = opens[value]
            a = np.searchsorted(starts, q[opens])
            b = np.searchsorted(starts, q[opens + 1])
            seg_line = ql[opens]
            if self.scalar_only and len(starts):
                # a word outside every string (a number, true, false, null)
                at = np.searchsorted(q, starts)
                wl = np.searchsorted(nl, starts)
                outside = ((at - np.searchsorted(ql, wl)) & 1) == 0
                out.append(wl[outside])
        cnt = b - a
        keep = cnt > 0
        if keep.any() and len(self.exact):
            a, b, cnt, seg_line = a[keep], b[keep], cnt[keep], seg_line[keep]
            with np.errstate(over="ignore"):
                h = p[b] - p[a] + cnt.astype(np.uint64) * np.uint64(_K2)
            at = np.minimum(np.searchsorted(self.exact, h), len(self.exact) - 1)
            out.append(seg_line[self.exact[at] == h])
        return out

    def _eval_hashes(self, ngrams: list[str]):
        np = numpy_or_none()
        if not ngrams:
            return np.zeros(0, dtype=np.uint64)
        # the eval words are normal already: ASCII stays, any other character is WORD (in
        # UTF-8: its lead byte becomes WORD, its continuation bytes are deleted; one C call)
        text = (
            ("\n".join(ngrams) + "\n")
            .encode("utf-8", "surrogatepass")
            .translate(_LEAD_TO_WORD, _CONTINUATION)
        )
        _, g = self._window_hashes(text, 1)  # every K-word window of the n-grams' words
        at = (np.arange(len(ngrams)) * self.n)[:, None] + np.arange(self.stride)[None, :]
        return g[at.ravel()]

    # -- one block -------------------------------------------------------------------------
    def candidates(self, block: bytes):
        """``candidate_lines(block)`` without the line ends (see there)."""
        count, cands, _ = self.candidate_lines(block)
        return count, cands

    def candidate_lines(self, block: bytes):
        """Candidate lines of ``block`` (whole lines, ``\\n``-terminated but maybe the last).

        Args:
            block: valid UTF-8 (the caller checks it).
        Returns:
            ``(line_count, candidate_line_indexes, line_ends)``: the lines in ``block``,
            the sorted 0-based indexes of the lines the exact check must read (every line
            that may hold an eval n-gram, or that the byte test could not classify), and
            the byte offsets of the block's ``\n`` (line ``i`` is
            ``block[line_ends[i-1] + 1 : line_ends[i]]``, from 0 for the first and to the
            block's end for a last line without one).
        """
        np = numpy_or_none()
        if not block:
            return 0, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        jsonl = self.fmt == "jsonl"
        need = not block.isascii() or (jsonl and b"\\" in block)
        if need:
            ba = bytearray(block)
            self._units(np.frombuffer(ba, dtype=np.uint8), jsonl)
            block_u = bytes(ba)
        else:
            block_u = block
        t = block_u.translate(self._table, self._delete)
        ta = np.frombuffer(t, dtype=np.uint8)
        nl = np.flatnonzero(ta == 0x0A)
        line_count = len(nl) + (0 if t.endswith(b"\n") else 1)
        all_starts, p = self._word_prefix(t)
        starts, g = self._windows(all_starts, p)
        lines = self._exact_lines(
            t, ta, nl, all_starts, p, np.frombuffer(block_u, dtype=np.uint8), line_count
        )
        if len(g):
            hit = np.flatnonzero(self.table[g >> self._shift])
            if len(hit):
                gh = g[hit]
                at = np.minimum(np.searchsorted(self.hashes, gh), len(self.hashes) - 1)
                hit = hit[self.hashes[at] == gh]
                lines.append(np.searchsorted(nl, starts[hit]))
        if not t.isascii():  # CAND units (the translation gives control characters one)
            odd = np.flatnonzero(ta == CAND)
            if len(odd):
                lines.append(np.searchsorted(nl, odd))
        # lines the byte test cannot classify as records: JSONL not shaped {...}; text
        # starting with white space (or empty)
        b = np.frombuffer(block, dtype=np.uint8)
        bnl = np.flatnonzero(b == 0x0A)
        line_starts = np.concatenate((np.zeros(1, dtype=bnl.dtype), bnl + 1))[:line_count]
        first = b[np.minimum(line_starts, len(b) - 1)]
        if jsonl:
            last_at = np.append(bnl, len(b))[:line_count] - 1
            last_at = np.maximum(last_at, line_starts)
            last = b[last_at]
            cr = np.flatnonzero(last == 0x0D)
            if len(cr):
                last[cr] = b[np.maximum(last_at[cr] - 1, line_starts[cr])]
            lines.append(np.flatnonzero((first != 0x7B) | (last != 0x7D)))
        else:
            lines.append(np.flatnonzero((first <= 0x20) | (first >= 0x80)))
        return line_count, np.unique(np.concatenate(lines)), bnl

    def _units(self, b, jsonl: bool) -> None:
        """Rewrite, in place, every non-ASCII character and (JSONL) JSON escape of ``b`` as
        unit bytes: the first byte gets the character's unit, the others DEL. (Control
        characters become CAND in the translation that follows.)"""
        np = numpy_or_none()
        high = np.flatnonzero(b >= 0x80)
        if len(high):
            lead = high[b[high] >= 0xC0]
            last = len(b) - 1  # (valid UTF-8: a lead byte's continuation bytes follow it)
            b0 = b[lead].astype(np.uint32)
            b1 = b[np.minimum(lead + 1, last)].astype(np.uint32) & 0x3F
            b2 = b[np.minimum(lead + 2, last)].astype(np.uint32) & 0x3F
            two, three = b0 < 0xE0, (b0 >= 0xE0) & (b0 < 0xF0)
            cp = np.where(two, ((b0 & 0x1F) << 6) | b1, ((b0 & 0x0F) << 12) | (b1 << 6) | b2)
            units = np.where(two | three, self.bmp[cp & 0xFFFF], CAND)
            b[high] = DEL
            b[lead] = units
        if jsonl:
            q = np.flatnonzero(b == 0x5C)
            if len(q):
                e = b[np.minimum(q + 1, len(b) - 1)]
                simple = np.full(256, CAND, dtype=np.uint8)
                for ch, val in (
                    (b'"', DEL),
                    (b"/", DEL),
                    (b"n", 0x20),
                    (b"t", 0x20),
                    (b"r", 0x20),
                    (b"f", 0x20),
                    (b"u", DEL),
                ):
                    simple[ch[0]] = val
                esc = simple[e]
                esc[e == 0x5C] = CAND  # an escaped backslash: pairing is left to Python
                b[q] = DEL
                b[np.minimum(q + 1, len(b) - 1)] = esc
                isu = q[e == 0x75]
                if len(isu):
                    hexv = np.full(256, 255, dtype=np.uint32)
                    for i, ch in enumerate(b"0123456789abcdef"):
                        hexv[ch] = i
                    for i, ch in enumerate(b"ABCDEF"):
                        hexv[ch] = 10 + i
                    last = len(b) - 1
                    d = [hexv[b[np.minimum(isu + k, last)]] for k in (2, 3, 4, 5)]
                    bad = (
                        (d[0] > 15) | (d[1] > 15) | (d[2] > 15) | (d[3] > 15) | (isu + 5 > last)
                    )  # cut short by the block's end
                    cp = ((d[0] << 12) | (d[1] << 8) | (d[2] << 4) | d[3]) & 0xFFFF
                    val = self.bmp[cp]
                    val[((cp >= 0xD800) & (cp < 0xE000)) | bad] = CAND
                    for k in (2, 3, 4, 5):
                        b[np.minimum(isu + k, len(b) - 1)] = DEL
                    b[isu] = val


_LEAD_TO_WORD = bytes(range(0xC0)) + bytes([WORD]) * 0x40
_CONTINUATION = bytes(range(0x80, 0xC0))


def _first_gap(np, x):
    """Per little-endian uint64 of 8 unit bytes, ``1 << 8i`` for the lowest byte ``i`` that
    is <= 0x20 (a word's end), or 0 when none is. ``(x - 0x21..21) & ~x & 0x80..80`` sets
    the top bit of the lowest such byte exactly (bytes above it may be flagged wrongly, and
    do not matter); unit bytes >= 0x80 are word bytes and are never flagged."""
    t = x - _C21
    t &= ~x
    t &= _C80
    low = ~t
    low += _ONE
    low &= t
    low >>= _SEVEN
    return low
