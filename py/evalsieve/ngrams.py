"""Word n-grams, the eval index, the training scan and containment.

The rule (GPT-3, Brown et al. 2020, App. C; stated in the page, docs/RULES.md and every report):

* words: see :mod:`evalsieve.text` (NFKC, lowercase, delete Unicode P*, split on white space);
* N = the 5th-percentile word count of the non-empty eval rows, nearest-rank method (the
  ⌈0.05·k⌉-th smallest of k counts), clamped to 8..13 (:func:`ngram_size`);
* an n-gram is N consecutive words of one field value (never across two fields or records);
* boilerplate: an eval n-gram found in more than max(10, ⌈0.001 × training records⌉)
  distinct training records is dropped from both sides of the score (:func:`boilerplate_cutoff`);
* containment of an eval row = its distinct n-grams found in training ÷ its distinct
  scorable (non-boilerplate) n-grams. It is normalised by the eval row, so a 100-word
  question quoted inside a 1,000-word document scores 1.0.

How the scan is fast in pure Python: every eval n-gram gets one *anchor*, its rarest word
(fewest occurrences across the eval set). A training segment is split into words once
(one C call), and ``anchor_set.isdisjoint(words)`` (another C call) rules out almost every
segment; only segments holding an anchor word are checked, by exact substring search of the
padded n-gram in the padded, space-joined segment. Exactness comes from that last check:
the anchor is only a filter and can never hide a match (every occurrence of an n-gram
contains its anchor word).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import constants
from .errors import bad_input
from .exact import row_key
from .text import normalize_many

#: The clamp of the rule's own N (constants.N_AUTO_MIN..N_AUTO_MAX = 8..13).
N_MIN, N_MAX = constants.N_AUTO_MIN, constants.N_AUTO_MAX
EXCERPT_WORDS = 12


def mostly_too_short(rows_too_short: int, rows_with_words: int) -> bool:
    """The too-short warning's rule: more than half of the eval rows with words have no
    n-gram at the chosen N (the run warns on stderr and beside the result; the page's field
    picker warns before the run, on a sample). Counts are rows; returns a bool."""
    return rows_too_short * 2 > rows_with_words


def ngram_size(word_counts: list[int]) -> tuple[int, str]:
    """N for a set of eval rows: 5th-percentile word count, nearest rank, clamped to 8..13.

    Args:
        word_counts: words per eval row (rows with 0 words are ignored).
    Returns:
        ``(n, how)``: N and a sentence saying how it was chosen.
    Raises:
        EvalsieveError(bad_input): no row has any word.

    Example: counts 1..100 give k = 100, rank ⌈5⌉ = 5, 5th smallest = 5, clamped up to 8.
    Source: GPT-3, Brown et al. 2020, App. C ("N = 5th percentile of example length in
    words", with a 8..13 clamp).
    """
    counts = sorted(c for c in word_counts if c > 0)
    k = len(counts)
    if k == 0:
        raise bad_input(
            "no eval row has any word in the chosen fields",
            expected="at least one non-empty text value",
        )
    rank = max(1, math.ceil(0.05 * k))
    p5 = counts[rank - 1]
    n = min(N_MAX, max(N_MIN, p5))
    how = (
        f"5th-percentile eval-row length = {p5} words (nearest rank {rank} of {k} "
        f"non-empty rows), clamped to {N_MIN}..{N_MAX}"
    )
    return n, how


def boilerplate_cutoff(training_records: int) -> int:
    """max(10, ⌈0.001 × training records⌉): an n-gram in MORE records than this is boilerplate.

    Args:
        training_records: number of records in the training file (>= 0).
    Returns:
        The cut-off, a count of distinct training records.
    """
    return max(10, math.ceil(0.001 * training_records))


def segment_ngrams(words: list[str], n: int) -> list[str]:
    """The n-grams of one segment's words, as space-joined strings, in order (with repeats)."""
    return [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]


@dataclass
class EvalRow:
    """One eval row as the index sees it.

    Attributes:
        words: total words over the row's segments.
        segments: the normalised words of each segment (field value).
        ngram_ids: distinct n-gram ids of the row (ascending).
    """

    words: int
    segments: list[list[str]]
    ngram_ids: list[int]


class EvalIndex:
    """All distinct n-grams of the eval rows, with anchors for the training scan.

    Args:
        rows_segments: per eval row, its raw text segments (field values).
        n: the n-gram size, or None to choose it with :func:`ngram_size`.
        background: word counts of a training sample, to pick filter words (speed only).
    Attributes:
        n, n_how: the size and how it was chosen ("set by the user" when given).
        rows: list of :class:`EvalRow`, in eval-file order.
        ngrams: list of n-gram strings; an id is an index into it.
    Raises:
        EvalsieveError(bad_input): N given outside 1..1000, or no row has a word.
    """

    #: When True, every :class:`TrainingScan` of this index lists its records that hold
    #: an eval n-gram (``hits``; purify reads them). Off for the contamination job.
    keep_hits = False

    def __init__(
        self,
        rows_segments: list[list[str]],
        n: int | None = None,
        background: dict[str, int] | None = None,
    ):
        flat = [s for segs in rows_segments for s in segs]
        normed = iter(normalize_many(flat))
        seg_words = [[next(normed).split() for _ in segs] for segs in rows_segments]
        totals = [sum(len(w) for w in segs) for segs in seg_words]
        if n is None:
            self.n, self.n_how = ngram_size(totals)
        else:
            if not constants.N_MIN <= int(n) <= constants.N_MAX:
                raise bad_input(
                    f"N = {n} is out of range",
                    expected=f"an integer from {constants.N_MIN} to {constants.N_MAX}",
                )
            self.n, self.n_how = int(n), "set by the user"
        ids: dict[str, int] = {}
        self.ngrams: list[str] = []
        self.rows: list[EvalRow] = []
        freq: dict[str, int] = {}
        for segs, total in zip(seg_words, totals):
            row_ids = set()
            for words in segs:
                for w in words:
                    freq[w] = freq.get(w, 0) + 1
                for g in segment_ngrams(words, self.n):
                    gid = ids.get(g)
                    if gid is None:
                        gid = ids[g] = len(self.ngrams)
                        self.ngrams.append(g)
                    row_ids.add(gid)
            self.rows.append(EvalRow(total, segs, sorted(row_ids)))
        self._ids = ids
        self._freq = freq
        self.padded = [f" {g} " for g in self.ngrams]
        # the exact rung: every row with a word, keyed by its normalised words, all segments
        # joined by one space (evalsieve.exact.row_key); an empty row has no key
        self.exact_keys: dict[str, list[int]] = {}
        for i, row in enumerate(self.rows):
            if row.words:
                self.exact_keys.setdefault(row_key(row.segments), []).append(i)
        self.exact_lengths = frozenset(len(k.split()) for k in self.exact_keys)
        self.set_background(background or {})

    def set_background(self, background: dict[str, int]) -> None:
        """Choose each n-gram's two filter words, rarest first.

        Args:
            background: word -> count in a sample of the training text (e.g. its first MB).
                Words rare there and in the eval set make the best filters. The choice
                changes only speed, never results.
        """
        rank = {w: (background.get(w, 0), f, -len(w), w) for w, f in self._freq.items()}
        key = rank.__getitem__
        anchors: dict[str, dict[str, list[int]]] = {}
        for gid, g in enumerate(self.ngrams):
            ws = sorted(set(g.split()), key=key)
            a = ws[0]
            b = ws[1] if len(ws) > 1 else ws[0]
            anchors.setdefault(a, {}).setdefault(b, []).append(gid)
        self.anchors = {a: {b: tuple(v) for b, v in sub.items()} for a, sub in anchors.items()}
        self.anchor_set = frozenset(self.anchors)

    def id_of(self, ngram: str) -> int | None:
        """The id of an n-gram string (space-joined normalised words), or None."""
        return self._ids.get(ngram)


@dataclass
class TrainingScan:
    """Counts, for every eval n-gram, the distinct training records that contain it.

    Feed records in corpus order with :meth:`scan` (set :attr:`file` before each training
    file), or merge the partial results of scans of parts of the corpus with :meth:`merge`
    (in any order: the result is the same). Memory is O(eval n-grams), whatever the size of
    the training corpus.

    A training record's identity is (file, record number in that file): ``first_file`` and
    ``first_record`` together name the first record holding an n-gram, "first" in corpus
    order (files in the order given, records in file order).

    The exact rung rides along: a training record whose normalised words (all its segments,
    joined: :func:`evalsieve.exact.row_key`) equal an eval row's (any row with a word, too
    short for n-grams or not) is recorded in ``exact`` (row -> first (file, record)). Such a
    copy may hold no eval n-gram (its words split over two training fields, or fewer than
    N); every candidate filter in front of :meth:`scan` passes it on by its exact-key probes
    (:mod:`evalsieve.exact`).

    Attributes:
        records: training records in the corpus (all files), set by the driver when the pass
            ends (the boilerplate cut-off depends on it; records the filter skipped count too).
        counts: per n-gram id, distinct training records containing it.
        file: 0-based index of the training file :meth:`scan` is reading.
        file_names: the training files' names, by index (for the report).
        first_file: per n-gram id, the 0-based training file of its first record.
        first_record: per n-gram id, the 1-based record number in that file (0 = never).
        excerpt: per n-gram id, normalised training words around its first occurrence.
        sources: ``(file, record) -> source`` of every record that was the first holder of
            some n-gram or an exact copy when it was scanned (a superset of the records the
            report names): what a batch item's third element gave, passed through
            :attr:`source` when set (e.g. the record's value -> ``(byte offset, bytes, id)``).
            Only records that become a first are kept, so memory stays O(eval n-grams).
        source: optional ``callable(item[2]) -> source``, called once per such record.
        hits: with ``index.keep_hits``, ``[record, [n-gram ids]]`` of every scanned record
            holding an eval n-gram (ids ascending), in scan order; else None.
    """

    index: EvalIndex
    records: int = 0
    counts: list[int] = field(default_factory=list)
    first_record: list[int] = field(default_factory=list)
    excerpt: dict[int, str] = field(default_factory=dict)
    file: int = 0
    file_names: list[str] = field(default_factory=list)
    first_file: list[int] = field(default_factory=list)
    exact: dict[int, tuple[int, int]] = field(default_factory=dict)
    sources: dict[tuple[int, int], object] = field(default_factory=dict)
    source: object = None
    hits: list | None = None

    def __post_init__(self):
        g = len(self.index.ngrams)
        self.counts = [0] * g
        self.first_record = [0] * g
        self.first_file = [0] * g
        if self.index.keep_hits:
            self.hits = []

    def partial(self) -> dict:
        """This scan's result in a mergeable form (plain JSON-able values).

        Returns:
            ``{"records": int, "counts": {id: records holding it}, "first": {id: [record,
            excerpt]}}`` with only the n-grams found; record numbers as this scan saw them.
        """
        counts = self.counts
        extra = {"hits": self.hits} if self.hits is not None else {}
        out = {
            **extra,
            "records": self.records,
            "counts": {g: c for g, c in enumerate(counts) if c},
            "first": {
                g: [self.first_record[g], self.excerpt.get(g, "")]
                for g, c in enumerate(counts)
                if c
            },
            "exact": {i: rec for i, (_, rec) in self.exact.items()},
        }
        if self.sources:  # JSON-able when the sources are (lists, strings, numbers)
            out["sources"] = {rec: src for (_, rec), src in self.sources.items()}
        return out

    def merge(self, part: dict, file: int, record_offset: int = 0) -> None:
        """Add the :meth:`partial` of a scan of one training file, or of one byte range of
        it, to this scan.

        Exact because a record never spans two parts: per n-gram the counts of distinct
        records add up, and the first occurrence is the least (file, record) over the parts,
        whatever order the parts arrive in.

        Args:
            part: a :meth:`partial` (keys may be ints or decimal strings).
            file: the part's 0-based training file.
            record_offset: records of that file before the part's first record.
        """
        counts, ff, fr, ex = self.counts, self.first_file, self.first_record, self.excerpt
        src = part.get("sources") or {}
        if src and not isinstance(next(iter(src)), int):
            src = {int(k): v for k, v in src.items()}

        def take(rec: int, key: tuple[int, int]) -> None:
            if rec in src:
                self.sources[key] = src[rec]

        for g, c in part["counts"].items():
            counts[int(g)] += c
        for g, (rec, text) in part["first"].items():
            g = int(g)
            key = (file, rec + record_offset)
            if not fr[g] or key < (ff[g], fr[g]):
                ff[g], fr[g] = key
                ex[g] = text
                take(rec, key)
        for i, rec in part.get("exact", {}).items():
            i = int(i)
            key = (file, rec + record_offset)
            if i not in self.exact or key < self.exact[i]:
                self.exact[i] = key
                take(rec, key)

    def scan(self, batch: list[tuple[int, list[str]]]) -> None:
        """Scan a batch of training records.

        Args:
            batch: ``(record_number, segments)`` pairs: 1-based record number and the raw
                text of each chosen field value, in file order; an item may have a third
                element, the record's source (see :attr:`sources`).
        """
        index = self.index
        n = index.n
        anchor_set = index.anchor_set
        anchors = index.anchors
        padded = index.padded
        counts = self.counts
        first = self.first_record
        flat = [s for item in batch for s in item[1]]
        normed = normalize_many(flat)
        exact_keys, exact_lengths, exact = index.exact_keys, index.exact_lengths, self.exact
        k = 0
        for item in batch:
            rec, segs = item[0], item[1]
            found = None
            firsts = False  # this record is the first holder of something
            m = len(segs)
            seg_words = [normed[j].split() for j in range(k, k + m)]
            k += m
            if exact_keys and sum(map(len, seg_words)) in exact_lengths:
                rows = exact_keys.get(" ".join(w for ws in seg_words for w in ws))
                for i in rows or ():
                    if i not in exact:
                        exact[i] = (self.file, rec)
                        firsts = True
            for words in seg_words:
                if len(words) < n or anchor_set.isdisjoint(words):
                    continue
                ws = set(words)
                joined = None
                for a in anchor_set.intersection(ws):
                    sub = anchors[a]
                    for b in sub.keys() & ws:
                        for gid in sub[b]:
                            if joined is None:
                                joined = " " + " ".join(words) + " "
                            if padded[gid] in joined:
                                if found is None:
                                    found = set()
                                if gid not in found:
                                    found.add(gid)
                                    if not first[gid]:
                                        first[gid] = rec
                                        self.first_file[gid] = self.file
                                        self.excerpt[gid] = _excerpt(joined, padded[gid])
                                        firsts = True
            if found:
                for gid in found:
                    counts[gid] += 1
                if self.hits is not None:
                    self.hits.append([rec, sorted(found)])
            if firsts and len(item) > 2:
                self.sources[(self.file, rec)] = self.source(item[2]) if self.source else item[2]


def _excerpt(joined: str, padded_gram: str) -> str:
    at = joined.find(padded_gram)
    before, more_before = _words_near(joined, at, -1)
    after, more_after = _words_near(joined, at + len(padded_gram), 1)
    gram = padded_gram.strip()
    return (
        ("… " if more_before else "")
        + " ".join(before + ["[" + gram + "]"] + after)
        + (" …" if more_after else "")
    )


def _words_near(text: str, at: int, direction: int) -> tuple[list[str], bool]:
    """The EXCERPT_WORDS words of ``text`` before (direction -1) or after (+1) offset ``at``,
    and whether more words lie beyond them. Reads a window that grows until it holds them, so
    a match inside a huge training record costs the excerpt's length, not the record's."""
    k = EXCERPT_WORDS
    width = 1024
    while True:
        if direction < 0:
            lo = max(0, at - width)
            parts = text[lo:at].rsplit(None, k)
            whole = lo == 0
            if len(parts) > k:  # parts[0] holds at least one more word
                return parts[1:], True
        else:
            hi = at + width
            parts = text[at:hi].split(None, k)
            whole = hi >= len(text)
            if len(parts) > k:
                return parts[:k], True
        if whole:
            return parts, False
        width *= 4


@dataclass
class RowScore:
    """The verdict on one eval row.

    Attributes:
        eval_row: 1-based record number in the eval file.
        words: words in the chosen fields.
        status: the ladder's verdict: ``"contaminated"`` when any rung caught the row (set by
            :func:`evalsieve.verdict.apply_ladder`), else :attr:`ngram_status`.
        ngram_status: the n-gram rung's own verdict: ``"clean"``, ``"contaminated"``,
            ``"too_short"``, ``"no_ngram"`` (has N words in all but no single field has N),
            ``"empty"`` or ``"boilerplate_only"`` (:func:`containment_scores` sets both).
        rung: the first rung of the ladder that caught the row ('' = none; apply_ladder).
        ngrams_total: distinct scorable (non-boilerplate) n-grams.
        ngrams_matched: of those, how many were found in training.
        ngrams_boilerplate: distinct n-grams dropped as boilerplate.
        containment: ngrams_matched / ngrams_total in [0, 1] (None when not scored).
        training_file: the training file of that record ("" = none).
        training_record: 1-based number, in that file, of the first training record holding a
            matched n-gram (0 = none); first in corpus order (files as given, then records).
        shared_passage: the longest run of the row's words covered by matched n-grams.
        excerpt: normalised training words around the first match ([brackets] = the n-gram).
        training_id: that record's own id (its id field's value; "" = none or no field):
            the last element of its :attr:`TrainingScan.sources` entry.
    """

    eval_row: int
    words: int
    status: str
    ngrams_total: int = 0
    ngrams_matched: int = 0
    ngrams_boilerplate: int = 0
    containment: float | None = None
    training_record: int = 0
    shared_passage: str = ""
    excerpt: str = ""
    training_file: str = ""
    training_id: str = ""
    ngram_status: str = ""
    rung: str = ""

    def __post_init__(self):
        if not self.ngram_status:
            self.ngram_status = self.status

    @property
    def scored(self) -> bool:
        """True when the n-gram rung gave the row a containment (its ngram_status is clean
        or contaminated)."""
        return self.containment is not None


def containment_scores(
    index: EvalIndex,
    scan: TrainingScan,
    *,
    boilerplate: bool = True,
    threshold: float | None = None,
    row_numbers: list[int] | None = None,
) -> tuple[list[RowScore], int]:
    """Score every eval row.

    Args:
        index: the eval index.
        scan: the finished training scan.
        boilerplate: drop n-grams found in more than :func:`boilerplate_cutoff` records.
        threshold: a row is contaminated when containment ≥ threshold, in (0, 1]; None means
            any overlap (≥ 1 matched n-gram: GPT-3's "dirty").
        row_numbers: 1-based eval record numbers for ``index.rows`` (default 1..len).
    Returns:
        ``(scores, cutoff)``: one :class:`RowScore` per eval row, and the boilerplate cut-off
        used (0 when the pass is off).
    Raises:
        EvalsieveError(bad_input): threshold outside (0, 1].
    """
    if threshold is not None and not 0 < threshold <= 1:
        raise bad_input(
            f"threshold {threshold} is out of range",
            expected="a containment in (0, 1], or none for any overlap",
        )
    cutoff = boilerplate_cutoff(scan.records) if boilerplate else 0
    counts = scan.counts
    first = scan.first_record
    n = index.n
    out = []
    for i, row in enumerate(index.rows):
        num = row_numbers[i] if row_numbers else i + 1
        if row.words == 0:
            out.append(RowScore(num, 0, "empty"))
            continue
        if not row.ngram_ids:
            out.append(RowScore(num, row.words, "too_short" if row.words < n else "no_ngram"))
            continue
        if cutoff:
            bp = {g for g in row.ngram_ids if counts[g] > cutoff}
        else:
            bp = set()
        scorable = [g for g in row.ngram_ids if g not in bp]
        if not scorable:
            out.append(RowScore(num, row.words, "boilerplate_only", 0, 0, len(bp)))
            continue
        matched = [g for g in scorable if counts[g]]
        c = len(matched) / len(scorable)
        dirty = bool(matched) and (threshold is None or c >= threshold)
        s = RowScore(
            num,
            row.words,
            "contaminated" if dirty else "clean",
            len(scorable),
            len(matched),
            len(bp),
            c,
        )
        if matched:
            ff = scan.first_file
            g0 = min(matched, key=lambda g: (ff[g], first[g], g))
            s.training_record = first[g0]
            names = scan.file_names
            s.training_file = names[ff[g0]] if ff[g0] < len(names) else ""
            s.training_id = source_id(scan.sources.get((ff[g0], first[g0])))
            s.excerpt = scan.excerpt.get(g0, "")
            s.shared_passage = _longest_covered(row, index, set(matched), n)
        out.append(s)
    return out, cutoff


def source_id(src) -> str:
    """The id in a :attr:`TrainingScan.sources` entry (its last element), or ""."""
    if isinstance(src, (list, tuple)) and src and isinstance(src[-1], str):
        return src[-1]
    return ""


def _longest_covered(row: EvalRow, index: EvalIndex, matched: set[int], n: int) -> str:
    best: list[str] = []
    for words in row.segments:
        covered = [False] * len(words)
        for i in range(len(words) - n + 1):
            gid = index.id_of(" ".join(words[i : i + n]))
            if gid in matched:
                for j in range(i, i + n):
                    covered[j] = True
        run_start = None
        for j in range(len(words) + 1):
            if j < len(words) and covered[j]:
                if run_start is None:
                    run_start = j
            elif run_start is not None:
                if j - run_start > len(best):
                    best = words[run_start:j]
                run_start = None
    return " ".join(best)
