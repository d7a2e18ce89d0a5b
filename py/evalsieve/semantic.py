"""The semantic rung: reworded eval rows inside training windows (standard library only).

An eval row rephrased into the training data shares no long run of words with it, so the
n-gram rule cannot see it (llm-decontaminator, Yang et al. 2023). This rung looks for it in
four steps; only step 3 needs an encoder, and it stays outside this module (the CLI uses
``native_encoder.py``; the page uses onnxruntime-web through the bridge):

1. **Probes.** Each eval row is looked for as its *probes*: every value of its chosen fields
   with ≥ :data:`PART_MIN_WORDS` words, and the whole row when it has a shorter value or no
   such value (a row of one field is its own one probe). A harness reads an eval row as
   question + answer, while a training document may hold the question alone (allenai/decon
   scores question, answer and passage apart in the same spirit); a probe of its own keeps
   the answer's words from diluting the question's match.
2. **Windows and candidate stage** (lexical, cheap). Each training record's words
   (white-space split of its chosen fields) are cut into windows of W words, stride ⌈W/2⌉;
   W = the median probe length in words, clamped to 16..160. An inverted index maps each
   probe's *key terms* (its terms, numbers included, in at most max(1, 5%) of the background
   passages and in at most max(10, 5%) of the probes: rare terms) to the probes; a window's
   candidate score for a probe is the IDF-weighted share of the probe's key terms the window
   holds, and each probe keeps its ``candidates`` best windows (ties: earlier window). The
   background is the first training records (about 1 MB) cut into passages of W words (a
   record of 1,000 words is 1,000 / W passages, so a word common in long documents stays rare
   where it is rare), or the eval rows when none is given. A *code row* (:func:`is_code`)
   also has its rare *code shingles* as key terms (:func:`code_tokens`: names and literals
   abstracted).
3. **Fitted spans and embedding.** In a kept window and a window either side, the span of
   ⌈1.5 × the probe's words⌉ words that holds the most of the probe's terms by IDF is found,
   then cut to its first and last rare term of the probe (plus 5% of the probe's words either
   side, at least half the probe's length): the text compared (:func:`best_span`). A 15-word
   rephrased question inside a 160-word window is compared as those 15-odd words, not
   diluted by the rest. The driver embeds the probes
   and the spans with the same encoder and returns the cosine of every (probe, span) pair.
4. **Verifier.** Per pair: the cosine; the IDF-weighted share ``lex`` of the probe's terms in
   the span (IDF over all training windows, as allenai/decon weighs its overlap); the share of
   its numbers found there (add-one smoothed); for a code probe its code shingles' share, the
   docstrings' cosine and the code margin. A logistic regression fitted on labelled public
   pairs gives the probability that the pair is a copy (:func:`verifier_score`); *explaining
   away* then lowers a pair by the amount another eval row scores higher on the same window
   (:func:`rival_penalty`). A row's match is its best pair over its probes; it is caught when
   that score ≥ ``threshold``.

Terms (words, numbers, code tokens) are defined in :mod:`evalsieve.semantic_terms`.
"""

from __future__ import annotations

import heapq

from .errors import bad_input
from .semantic_config import (
    KEY_UNITS,
    RARE_MIN_PROBES,
    RARE_SHARE,  # noqa: F401
    RULE,  # noqa: F401
    WINDOW_MAX,  # noqa: F401
    WINDOW_MIN,  # noqa: F401
    SemanticConfig,
    window_size,
    window_spans,
)
from .semantic_parts import (
    PART_MIN_WORDS,  # noqa: F401
    Pair,
    Probe,
    SemanticMatch,
    SemanticRow,  # noqa: F401
    Window,
    probe_parts,
)
from .semantic_terms import (
    CODE_NGRAM,  # noqa: F401
    NUMBER_WORDS,  # noqa: F401
    _MEMO_MAX,
    _set,
    code_shingles,  # noqa: F401
    code_tokens,
    docstring_of,
    idf,
    is_code,
    is_number,
    term,  # noqa: F401
    terms_of,
    word_terms,  # noqa: F401
)
from .semantic_verifier import (
    VERIFIER_CODE_THRESHOLD,  # noqa: F401
    VERIFIER_THRESHOLD,  # noqa: F401
    VERIFIER_WEIGHTS,
    best_span,
    features,  # noqa: F401
    pair_cosines,  # noqa: F401
    rival_penalty,
    share,
    span_cut,
    span_length,
    verifier_score,
)


class SemanticScan:
    """Probes, streaming window scan, fitted spans and verifier of the semantic rung.

    Args:
        row_segments: per eval row, its field values (raw text), as the n-gram rung gets them.
        config: the settings.
        background: training records' raw texts used for the key-term IDF (may be empty).
    Raises:
        EvalsieveError(bad_input): no eval row has a word.
    """

    def __init__(
        self, row_segments: list[list[str]], config: SemanticConfig, background: list[str] = ()
    ):
        self.config = config
        self._memo: dict[str, tuple] = {}
        self._code_memo: dict[str, tuple] = {}
        n = self.code_n = config.code_ngram
        self.rows: list[SemanticRow] = []
        self.probes: list[Probe] = []
        for r, segs in enumerate(row_segments):
            text = " ".join(" ".join(segs).split())
            code = bool(n) and is_code("\n".join(segs))
            ids = []
            for part, t in probe_parts(segs):
                words = t.split()
                terms = _set(terms_of(words, self._memo))
                p = Probe(
                    r, part, t, len(words), terms, frozenset(w for w in terms if is_number(w))
                )
                if code:
                    p.code = code_shingles(self._code_of(words), n)
                    p.docstring = docstring_of(t)
                ids.append(len(self.probes))
                self.probes.append(p)
            self.rows.append(SemanticRow(text, len(text.split()), tuple(ids), code))
        if not self.probes:
            raise bad_input("no eval row has a word", expected="a non-empty eval row")
        if config.window_words is None:
            self.window, self.window_how = window_size([p.words for p in self.probes])
        else:
            self.window, self.window_how = config.window_words, "as requested"
        self.code_rows = sum(1 for r in self.rows if r.code)
        if not self.code_rows:
            self.code_n = n = 0  # no code row: windows are not tokenised as code
        self.vocab = set().union(*(p.terms for p in self.probes))
        self.vocab.update(*(p.code for p in self.probes if p.code))
        bg = []  # the background in passages of W words: a long record is many passages
        for t in background:
            words = t.split()
            for s in range(0, len(words), self.window):
                part = words[s : s + self.window]
                bg.append(
                    _set(terms_of(part, self._memo))
                    | (code_shingles(self._code_of(part), n) if n else frozenset())
                )
        self.background_source = "training head" if bg else "eval rows"
        if not bg:
            bg = [
                frozenset().union(*(self.probes[i].terms for i in r.probes))
                for r in self.rows
                if r.probes
            ]
        self.background_records = len(bg)
        df: dict[str, int] = {}
        for terms in bg:
            for w in terms & self.vocab:
                df[w] = df.get(w, 0) + 1
        cap = max(1.0, config.rare_share * len(bg))
        # ... and rare among the probes: a term more than 5% of the probes share ("each", "how
        # much" in GSM8K) tells a window's probes apart no better than chance, and would put
        # every window among hundreds of probes' candidates
        in_probes: dict[str, int] = {}
        for p in self.probes:
            for w in p.terms | (p.code or frozenset()):
                in_probes[w] = in_probes.get(w, 0) + 1
        eval_cap = max(RARE_MIN_PROBES, config.rare_share * len(self.probes))
        self.postings: dict[str, list[int]] = {}
        for i, p in enumerate(self.probes):
            rare = [w for w in sorted(p.terms | (p.code or frozenset())) if df.get(w, 0) <= cap]
            p.anchors = frozenset(w for w in rare if w in p.terms)  # they place its spans
            keys = tuple((w, idf(df.get(w, 0), len(bg))) for w in rare if in_probes[w] <= eval_cap)
            p.keys, p.key_weight = keys, sum(x for _, x in keys)
            for w, _ in keys:
                self.postings.setdefault(w, []).append(i)
        self.key_weight = {w: x for p in self.probes for w, x in p.keys}
        self._key_units = {w: round(x * KEY_UNITS) for w, x in self.key_weight.items()}
        self.windows_seen = 0
        self.windows_with_key = 0
        self.window_df: dict[str, int] = {}
        self._heaps: list[list] = [[] for _ in self.probes]  # (key units, -serial, serial)
        self._floor = [-1] * len(self.probes)  # a full heap's lowest key units, else -1
        self._kept: dict[int, Window] = {}
        self._refs: dict[int, int] = {}
        self.pairs: list[Pair] | None = None
        self.matches: list[SemanticMatch] | None = None
        self.file_name = ""
        self._kernel = None
        # the window scan's own time, read with the driver's clock when it gives one (a
        # callable returning seconds): for the log, no export has it
        self.clock = None
        self.scan_seconds = 0.0
        # set when the kernel handed the scan over to the Python loop part-way (for the log)
        self.kernel_note = ""

    def use_kernel(self, memory=None) -> str | None:
        """Run the window scan (step 2) in the compiled kernel
        (:class:`semantic_kernel.KernelWindowScan`: the same windows, counts and heaps as the
        Python loop, which stays the oracle), before the first :meth:`scan`.

        Args:
            memory: a fresh kernel instance (the CLI's wasmtime one when None).
        Returns:
            None when the kernel scans, else why the scan stays in Python (a code row's code
            shingles, heaps too big for the kernel: :func:`semantic_kernel.too_big`, or the
            kernel cannot run here: :func:`kernel.unavailable`).
        """
        if self.windows_seen or (self._kernel is not None and self._kernel.windows_seen()):
            raise bad_input("the semantic scan has begun", expected="use_kernel() first")
        if self.code_n:
            return "a code row's code shingles are read in Python"
        from .semantic_kernel import KernelWindowScan, too_big

        why = too_big(len(self.probes), self.config.candidates)
        if why:
            return why
        if memory is None:
            from .kernel import unavailable

            why = unavailable()
            if why:
                return why
        self._kernel = KernelWindowScan(self, memory)
        return None

    def _code_of(self, words: list[str]) -> list[str]:
        """The abstracted code tokens of a word list (:func:`code_tokens`, memoised)."""
        memo = self._code_memo
        out: list[str] = []
        for w in words:
            t = memo.get(w)
            if t is None:
                if len(memo) > _MEMO_MAX:
                    memo.clear()
                t = memo[w] = code_tokens(w)
            out.extend(t)
        return out

    def _terms(self, nwords: list[tuple], words: list[str], s: int, e: int) -> frozenset:
        """The eval vocabulary's terms of words[s:e]: word terms and, when a row is code,
        code shingles."""
        terms = _set(nwords[s:e]).intersection(self.vocab)
        if self.code_n:
            terms |= code_shingles(self._code_of(words[s:e]), self.code_n) & self.vocab
        return terms

    def set_file(self, index: int, name: str) -> None:
        """The training file the next :meth:`scan` calls read (record numbers count from 1 in
        each file; windows remember the file's name)."""
        self.file_name = name

    # -- step 2: the streaming scan ------------------------------------------------------------
    def batches(self, records: list[tuple[int, list[str]]], splitter=None) -> list | None:
        """The kernel's batches of ``records`` (:func:`semantic_kernel.make_batches`, their
        words split by ``splitter``, a :class:`semantic_kernel.WordSplitter`, when given),
        for :meth:`scan`; None when the window scan runs in Python. Touches no scan state,
        so a reader thread may call it while :meth:`scan` runs on earlier records."""
        if self._kernel is None:
            return None
        from .semantic_kernel import make_batches

        return make_batches(records, self.window, splitter)

    def scan(self, records: list[tuple[int, list[str]]], batches: list | None = None) -> None:
        """Cut records into windows and offer each to the candidate stage.

        Args:
            records: ``(1-based record number, field values)`` per training record.
            batches: the kernel's batches of these records when made already
                (:meth:`batches`); ignored when the scan runs in Python.
        """
        t0 = self.clock() if self.clock else 0.0
        try:
            if self._kernel is not None:
                rest = self._kernel.scan(records, batches)
                if rest:  # the kernel's window serials would pass 32 bits: Python goes on
                    self.kernel_note = (
                        f"the kernel handed the window scan to Python after "
                        f"{self._kernel.windows_seen()} windows (its serials are 32-bit)"
                    )
                    self._kernel.close()
                    self._kernel = None
                    self._scan_python(rest)
            else:
                self._scan_python(records)
        finally:
            if self.clock:
                self.scan_seconds += self.clock() - t0

    def _scan_python(self, records: list[tuple[int, list[str]]]) -> None:
        size = self.window
        postings, kw, df = self.postings, self._key_units, self.window_df
        heaps, floor = self._heaps, self._floor
        k = self.config.candidates
        for rec, segs in records:
            words = " ".join(segs).split()
            if not words:
                continue
            nwords = terms_of(words, self._memo)
            for s, e in window_spans(len(words), size):
                self.windows_seen += 1
                terms = self._terms(nwords, words, s, e)
                for w in terms:
                    df[w] = df.get(w, 0) + 1
                # integer weights: a sum does not depend on the order of the window's terms
                # (set order varies with hash seeds: the page's Pyodide and the CLI differ),
                # so ties between windows are ties on every runtime; a probe's windows are
                # ranked by this sum, its share of the probe's (fixed) key weight
                acc: dict[int, int] = {}
                get = acc.get
                for w in terms:
                    p = postings.get(w)
                    if p:
                        x = kw[w]
                        for i in p:
                            acc[i] = get(i, 0) + x
                if not acc:
                    continue
                self.windows_with_key += 1
                serial = self.windows_seen
                window = None
                for i, x in acc.items():
                    if x <= floor[i]:  # the probe's heap is full and holds better (a tie
                        continue  # keeps the earlier window)
                    h = heaps[i]
                    if len(h) < k:
                        heapq.heappush(h, (x, -serial, serial))
                        if len(h) == k:
                            floor[i] = h[0][0]
                    else:
                        self._release(heapq.heapreplace(h, (x, -serial, serial))[2])
                        floor[i] = h[0][0]
                    if window is None:
                        c0 = max(0, s - size)
                        window = Window(rec, s, e, c0, words[c0 : e + size], self.file_name, serial)
                        self._kept[serial] = window
                    self._refs[serial] = self._refs.get(serial, 0) + 1

    def _release(self, serial: int) -> None:
        n = self._refs[serial] - 1
        if n:
            self._refs[serial] = n
        else:
            del self._refs[serial]
            del self._kept[serial]

    # -- step 3: fitted spans, what the encoder must embed ------------------------------------
    def request(self) -> dict:
        """Close the scan; fit each candidate's span; what the driver must embed.

        Returns:
            ``{"eval_texts": [str], "window_texts": [str], "pairs": [[probe, span], ...]}``
            with 0-based indices into the two lists; the driver returns one cosine per pair
            (same order) to :meth:`verify`. ``eval_texts`` holds one text per probe (in row
            order, :attr:`probes`), then the docstrings of code probes; ``window_texts`` the
            distinct fitted spans, then their docstrings. The first pairs are (probe, span),
            one per candidate, best candidate first; the docstring pairs follow them.
        """
        if self._kernel is not None:
            self._kernel.close()
            self._kernel = None
        serials = sorted(self._kept)
        pos = {s: j for j, s in enumerate(serials)}
        self._windows = [self._kept[s] for s in serials]
        n, df = self.windows_seen, self.window_df
        eval_texts = [p.text for p in self.probes]
        window_texts: list[str] = []
        text_of: dict[str, int] = {}
        self.pairs = []
        for pi, h in enumerate(self._heaps):
            p = self.probes[pi]
            weight = {t: idf(df.get(t, 0), n) for t in p.terms}
            anchors = p.anchors or weight
            length = span_length(p.words)
            pad, shortest = span_cut(p.words)
            fits = []
            for rank, it in enumerate(sorted(h, reverse=True)):
                w = self._windows[pos[it[2]]]
                nctx = terms_of(w.context, self._memo)
                if p.code is None:
                    s, e, value = best_span(nctx, weight, length, anchors, pad, shortest)
                else:  # a code probe is compared with the window itself (see _pair)
                    s, e = w.start - w.context_start, w.end - w.context_start
                    value = -rank
                fits.append((-value, rank, pos[it[2]], s, e, nctx))
            kept: list[tuple] = []
            for _, _, j, s, e, nctx in sorted(fits):  # the best span first; overlaps dropped
                w = self._windows[j]
                a0, a1 = w.context_start + s, w.context_start + e
                if any(
                    w.file == f
                    and w.record == r
                    and min(a1, b1) - max(a0, b0) > 0
                    and 2 * (min(a1, b1) - max(a0, b0)) >= min(a1 - a0, b1 - b0)
                    for f, r, b0, b1 in kept
                ):
                    continue  # half of the shorter span overlaps a better one
                kept.append((w.file, w.record, a0, a1))
                self.pairs.append(self._pair(pi, j, s, e, nctx, weight, window_texts, text_of))
        pairs = [[x.probe, x.text] for x in self.pairs]
        probe_doc: dict[int, int] = {}
        span_doc: dict[int, int | None] = {}
        for x in self.pairs:
            d = self.probes[x.probe].docstring
            if d is None:
                continue
            if x.text not in span_doc:
                sd = docstring_of(window_texts[x.text])
                span_doc[x.text] = None if sd is None else len(window_texts)
                if sd is not None:
                    window_texts.append(sd)
            if span_doc[x.text] is None:
                continue
            if x.probe not in probe_doc:
                probe_doc[x.probe] = len(eval_texts)
                eval_texts.append(d)
            x.doc = len(pairs)
            pairs.append([probe_doc[x.probe], span_doc[x.text]])
        self.spans_embedded = len(text_of)
        self.request_sizes = (len(eval_texts), len(window_texts), len(pairs))
        return {"eval_texts": eval_texts, "window_texts": window_texts, "pairs": pairs}

    def _pair(self, pi, j, s, e, nctx, weight, window_texts, text_of) -> Pair:
        """The pair of probe ``pi`` and the span [s, e) of window ``j``'s context: its text
        (added to ``window_texts`` when new) and its lexical evidence, read in the span (a
        prose probe) or in the window and half a window either side (a code probe: a
        rephrased program is longer than its source, padded with no-op statements, and its
        shape runs past the window)."""
        p = self.probes[pi]
        w = self._windows[j]
        span = w.context[s:e]
        text = " ".join(span)
        t = text_of.get(text)
        if t is None:
            t = text_of[text] = len(window_texts)
            window_texts.append(text)
        a, b = s, e
        if p.code is not None:
            half = (self.window + 1) // 2
            a, b = max(0, s - half), e + half
        found = _set(nctx[a:b])
        num = len(p.numbers & found) / (len(p.numbers) + 1) if p.numbers else None
        code = None
        if p.code is not None:
            n, df = self.windows_seen, self.window_df
            code = share(
                p.code,
                code_shingles(self._code_of(w.context[a:b]), self.code_n),
                {g: idf(df.get(g, 0), n) for g in p.code},
            )
        return Pair(pi, j, w.context_start + s, e - s, t, share(p.terms, found, weight), num, code)

    # -- step 4: the verifier ------------------------------------------------------------------
    def pair_features(self, cosines: list[float]) -> list[tuple]:
        """Per pair of :meth:`request`: ``(cosine, lexical, numbers, code, docstring_cosine,
        code_runner_up)``, the verifier's inputs (:func:`features`).

        ``code_runner_up`` is the probe's best code share in its other candidates elsewhere:
        another file or record, or a window at least 2W words away (contexts apart).
        """
        near = 2 * self.window
        by_probe: dict[int, list] = {}
        for x in self.pairs:
            if x.code is not None:
                w = self._windows[x.window]
                by_probe.setdefault(x.probe, []).append((w.file, w.record, w.start, x.code))
        out = []
        for p, x in enumerate(self.pairs):
            w = self._windows[x.window]
            runner = None
            if x.code is not None:
                runner = max(
                    (
                        c
                        for f, r, s, c in by_probe[x.probe]
                        if f != w.file or r != w.record or abs(s - w.start) >= near
                    ),
                    default=0.0,
                )
            dc = None if x.doc is None else float(cosines[x.doc])
            out.append((float(cosines[p]), x.lexical, x.numbers, x.code, dc, runner))
        return out

    def verify(self, cosines: list[float], weights=VERIFIER_WEIGHTS) -> list[SemanticMatch]:
        """Score every embedded pair, explain away, and pick each row's best.

        Args:
            cosines: one cosine per pair of :meth:`request`, in its order.
            weights: the verifier's coefficients (:data:`VERIFIER_WEIGHTS`; the benchmark
                passes others when it refits them).
        Returns:
            One :class:`SemanticMatch` per eval row.
        Raises:
            EvalsieveError(bad_input): wrong number of cosines, or request() not called.
        """
        if self.pairs is None:
            raise bad_input("the semantic scan has not been closed", expected="request() first")
        want = self.request_sizes[2]
        if len(cosines) != want:
            raise bad_input(
                f"{len(cosines)} cosines for {want} pairs", expected="one cosine per requested pair"
            )
        feats = self.pair_features(cosines)
        scores = [verifier_score(*f, weights=weights) for f in feats]
        # explaining away: per window, each row's best score there, and the two best rows
        best: dict[tuple[int, int], float] = {}
        for x, sc in zip(self.pairs, scores):
            key = (x.window, self.probes[x.probe].row)
            if sc > best.get(key, -1.0):
                best[key] = sc
        top: dict[int, list] = {}
        for (j, r), sc in best.items():
            t = top.setdefault(j, [])
            t.append((sc, -r, r))
            t.sort(reverse=True)
            del t[2:]
        out = [SemanticMatch() for _ in self.rows]
        for x, sc, f in zip(self.pairs, scores, feats):
            p = self.probes[x.probe]
            rival = next((y[0] for y in top[x.window] if y[2] != p.row), None)
            s = rival_penalty(sc, rival)
            m = out[p.row]
            if m.score is None or s > m.score:
                w = self._windows[x.window]
                c, lex, num, code, dc, runner = f
                t = self.config.code_threshold if self.rows[p.row].code else self.config.threshold
                out[p.row] = SemanticMatch(
                    s,
                    c,
                    lex,
                    num,
                    w.record,
                    x.start,
                    self._span_text(x),
                    s >= t,
                    w.file,
                    code,
                    dc,
                    rival,
                    runner,
                    p.part,
                )
        self.matches = out
        return out

    def _span_text(self, x: Pair) -> str:
        w = self._windows[x.window]
        s = x.start - w.context_start
        return " ".join(w.context[s : s + x.words])

    def figures(self) -> dict:
        """Counts for the summary and the stamp (after :meth:`request`)."""
        done = self.pairs is not None
        return {
            "window_words": self.window,
            "window_how": self.window_how,
            "code_rows": self.code_rows,
            "probes": len(self.probes),
            "windows": self.windows_seen,
            "windows_sharing_a_key_term": self.windows_with_key,
            "windows_embedded": self.spans_embedded if done else None,
            "pairs_verified": len(self.pairs) if done else None,
            "docstring_pairs": (self.request_sizes[2] - len(self.pairs) if done else None),
            "idf_background": (
                f"{self.background_source}, {self.background_records} "
                + ("passages" if self.background_source != "eval rows" else "records")
            ),
        }
