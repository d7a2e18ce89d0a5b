"""The semantic rung: reworded eval rows inside training windows (standard library only).

An eval row rephrased into the training data shares no long run of words with it, so the
n-gram rule cannot see it (llm-decontaminator, Yang et al. 2023). This rung looks for it in
four steps; only step 3 needs an encoder, and it stays outside this module (the CLI uses
``native_encoder.py``; the page will use onnxruntime-web through the bridge):

1. **Windows.** Each training record's words (white-space split of its chosen fields) are
   cut into windows of W words with a stride of ⌈W/2⌉ (50% overlap); a record of ≤ W words is
   one window. W = the median word count of the non-empty eval rows, clamped to 16..160
   (160 English words stay inside the encoder's 256 word pieces). With a 50% stride, any
   passage of ≤ W/2 words lies whole inside one window, and one of W words shares at least
   3/4 of its words with one window.
2. **Candidate stage** (lexical, cheap). An inverted index maps each eval row's *key terms*
   (numbers, and words in at most max(1, 5%) of the background records: rare words) to the rows.
   A window's candidate score for a row = the IDF-weighted share of the row's key terms the
   window holds. Each row keeps its ``candidates`` best windows (a heap; ties: earlier
   window); windows in no row's heap are never embedded. The background is the first
   training records (about 1 MB), or the eval rows when none is given. A *code row*
   (:func:`is_code`) also has its rare *code shingles* as key terms (:func:`code_tokens`:
   names and literals abstracted, Type-2 clone normalisation; n-grams of
   ``SemanticConfig.code_ngram`` tokens): a rephrased program renames every identifier but
   keeps its shape.
3. **Embedding.** The driver embeds the eval rows and the kept windows with the same encoder
   and returns the cosine of every (row, candidate window) pair.
4. **Verifier.** For each pair: the cosine c; the IDF-weighted overlap ``lex`` of the row's
   distinct terms with the terms of the window and half a window either side (a rephrasing is
   often longer than its source; IDF over all training windows, as allenai/decon weighs its
   overlap); the share ``num`` of the row's distinct numbers found there, add-one smoothed
   (shared ÷ (numbers + 1)).
   ``score = (c + lex) / 2`` when the row has no number, else ``(c + (lex + num) / 2) / 2``.
   For a code row, ``code`` = the IDF-weighted share of its code shingles found in the
   window's context replaces ``num``; and when the row and the window both hold a docstring
   (:func:`docstring_of`), both docstrings are embedded as well (extra pairs after the
   window pairs) and the score is the better of that and ``(docstring cosine + code) / 2``
   (:func:`verifier_score`).
   Two corrections across pairs (:func:`final_score`): *explaining away*: a pair loses the
   amount by which another eval row scores higher on the same window (HumanEval's near-twin
   tasks each match the other's rephrasing; the rephrased row matches it better); and, for a
   code row, ``code_margin`` × how far the pair's code evidence exceeds the row's best code
   evidence in windows elsewhere (a rephrased program's shape is found in one place, the
   template every function shares in many).
   The pair with the highest final score is the row's semantic match; the row is caught when
   score ≥ ``threshold``. A rephrasing keeps the facts (names, quantities, rare terms) and the
   meaning; a different problem on the same topic keeps the meaning's topic but not the facts,
   so neither signal alone separates them (docs/SEMANTIC.md has the measured figures).

Words are compared as *terms* (:func:`word_terms`): NFKC, lowercase, runs of letters and runs
of digits ("$1,200" gives "1200"; ``has_close_elements`` gives has, close, element), English
number words as digits ("four" = "4", "twice" = "2"), one plural/-ing/-ed/-ly suffix removed
(:func:`term`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from . import constants
from .errors import bad_input
from .semantic_terms import (  # noqa: F401  (named here as before)
    CODE_DROP, CODE_KEEP, CODE_NGRAM, CODE_ROW, DOCSTRING_MIN_WORDS, NUMBER_WORDS,
    RARE_SHARE, SUFFIXES, WINDOW_MAX, WINDOW_MIN, _CODE_TOKEN, _DOC_QUOTE, _MEMO_MAX,
    _TOKEN, _set, code_shingles, code_tokens, docstring_of, final_score, idf, is_code,
    is_number, pair_cosines, rival_penalty, term, terms_of, verifier_score, window_size,
    window_spans, word_terms)

RULE = ("Semantic rung: training records cut into windows of W words (W = median eval row "
        "length in words, clamped to 16..160), stride ⌈W/2⌉; candidate windows = the k with the "
        "highest IDF-weighted share of the row's rare words and numbers (and, for a row that "
        "defines a function or class, its rare code shingles: n-grams of its tokens with "
        "names and literals abstracted, as Type-2 clone detection compares code); the eval row "
        "and its "
        "candidates embedded with all-MiniLM-L6-v2 (int8, 256 word pieces); score = mean of the "
        "cosine and the lexical evidence (IDF-weighted overlap of the row's terms with the window "
        "and half a window either side, averaged with the share of the row's numbers found "
        "there, shared ÷ (numbers + 1), when it has numbers; for a code row, averaged instead "
        "with the IDF-weighted share of its code shingles found there, since renamed names and "
        "changed literals leave the shape); a pair's score then loses the amount by which "
        "another eval row scores higher on the same window (explaining away), and a code "
        "row's gains semantic_code_margin (0.25 by default) × how far its code share exceeds "
        "the row's best code share in "
        "windows elsewhere; caught when score ≥ threshold. It cannot see "
        "translations, heavy abstraction or a rewording that changes every name and number; "
        "a row it passes is clean at these rungs, not clean.")


@dataclass(frozen=True)
class SemanticConfig:
    """Settings of the semantic rung.

    Attributes:
        window_words: window size W in words, or None for the rule's choice (median eval row
            word count, clamped to 16..160).
        candidates: k, windows kept per eval row by the candidate stage and embedded (≥ 1).
        threshold: verifier score in (0, 1]; a row is caught when its best score ≥ threshold.
        rare_share: a word is a key term when it is in at most this share of background
            records, in (0, 1].
        code_ngram: n of the code channel's shingles (1..8), or 0 to turn the code channel
            off (code rows are then scored as prose).
        docstring_cosine: for a code row, embed its docstring and each candidate window's
            docstring part as well, and read the meaning from their cosine (when both have
            one); the code is then read by the code channel alone.
        explain_away: a pair's score loses the amount by which another eval row scores
            higher on the same window (:func:`rival_penalty`): a window that another eval
            row explains better is more likely that row's rephrasing than this row's.
        code_margin: for a code row, this weight times how far the pair's code evidence
            exceeds the row's best code evidence in windows elsewhere (another record, or
            two windows away in the same one) is added to its score (:func:`final_score`);
            0 turns it off. In [0, 1].

    Example: ``SemanticConfig()`` sizes windows from the eval rows, embeds 8 candidate windows
    per row and catches rows whose verifier score is ≥ 0.65.
    """
    window_words: int | None = None
    candidates: int = 8
    threshold: float = 0.65
    rare_share: float = RARE_SHARE
    code_ngram: int = CODE_NGRAM
    docstring_cosine: bool = True
    explain_away: bool = True
    code_margin: float = constants.SEMANTIC_CODE_MARGIN_DEFAULT

    def __post_init__(self):
        if self.window_words is not None and not 4 <= self.window_words <= 400:
            raise bad_input(f"semantic window of {self.window_words} words",
                            expected="a window of 4..400 words")
        if self.candidates < 1:
            raise bad_input(f"{self.candidates} candidates per row", expected="at least 1")
        if not 0 < self.threshold <= 1:
            raise bad_input(f"semantic threshold {self.threshold}", expected="a score in (0, 1]")
        if not 0 < self.rare_share <= 1:
            raise bad_input(f"rare share {self.rare_share}", expected="a share in (0, 1]")
        lo, hi = constants.SEMANTIC_CODE_MARGIN_MIN, constants.SEMANTIC_CODE_MARGIN_MAX
        if not lo <= self.code_margin <= hi:
            raise bad_input(f"code margin weight {self.code_margin}", expected="a weight in [0, 1]")
        lo, hi = constants.SEMANTIC_CODE_NGRAM_MIN, constants.SEMANTIC_CODE_NGRAM_MAX
        if not lo <= self.code_ngram <= hi:
            raise bad_input(f"code shingles of {self.code_ngram} tokens",
                            expected=f"{lo} (off) or {lo + 1}..{hi} tokens")

    def settings(self) -> dict:
        """The settings as plain JSON values, for the run stamp."""
        return {"semantic_window_words_requested": self.window_words,
                "semantic_candidates_per_row": self.candidates,
                "semantic_threshold": self.threshold,
                "semantic_rare_share": self.rare_share,
                "semantic_code_ngram": self.code_ngram,
                "semantic_docstring_cosine": self.docstring_cosine,
                "semantic_explain_away": self.explain_away,
                "semantic_code_margin": self.code_margin}


@dataclass
class SemanticRow:
    """The eval side of one row: its text for the encoder and its normalised terms."""
    text: str
    words: int
    terms: frozenset
    numbers: frozenset
    keys: tuple = ()          # (term, weight) of its key terms
    key_weight: float = 0.0
    code: frozenset | None = None   # its code shingles when it is a code row (is_code)
    docstring: str | None = None    # its docstring prose when it is a code row


@dataclass
class Window:
    """One training window kept as a candidate."""
    record: int               # 1-based training record
    start: int                # first word (0-based) in the record
    text: str                 # the window's words joined by one space
    terms: frozenset          # distinct terms of the window and half a window either side
    file: str = ""            # the training file (set_file; "" = the only one)


@dataclass
class SemanticMatch:
    """The semantic rung's verdict on one eval row.

    Attributes:
        score: the verifier score of the best pair in [0, 1] (None: no candidate window).
        cosine: that pair's cosine; lexical, numbers: its lexical evidence in [0, 1]
            (numbers None when the row has no number); code: the share of its code
            shingles found (None when the row is not code or the code channel is off);
            docstring_cosine: the cosine of the row's and the window's docstrings (None
            when either has none or the setting is off).
            rival: the best verifier score another eval row has on the same window (None:
            no other row has it among its candidates, or ``explain_away`` is off).
            code_runner_up: the row's best code evidence in a window elsewhere (another
            record, or a window whose context does not overlap this one's; 0.0 when there is
            none; None when the row is not code or ``code_margin`` is 0).
        training_record: 1-based record of that window (0 = none), in ``training_file`` ("" =
            the only training file); window_start: its first word.
        window: the window's text.
        caught: score ≥ threshold.
    """
    score: float | None = None
    cosine: float | None = None
    lexical: float | None = None
    numbers: float | None = None
    training_record: int = 0
    window_start: int = 0
    window: str = ""
    caught: bool = False
    training_file: str = ""
    code: float | None = None
    docstring_cosine: float | None = None
    rival: float | None = None
    code_runner_up: float | None = None


class SemanticScan:
    """Eval index, streaming window scan and verifier of the semantic rung.

    Args:
        row_segments: per eval row, its field values (raw text), as the n-gram rung gets them.
        config: the settings.
        background: training records' raw texts used for the key-term IDF (may be empty).
    Raises:
        EvalsieveError(bad_input): no eval row has a word.
    """

    def __init__(self, row_segments: list[list[str]], config: SemanticConfig,
                 background: list[str] = ()):
        self.config = config
        texts = [" ".join(" ".join(segs).split()) for segs in row_segments]
        counts = [len(t.split()) for t in texts]
        if config.window_words is None:
            self.window, self.window_how = window_size(counts)
        else:
            if not any(counts):
                raise bad_input("no eval row has a word", expected="a non-empty eval row")
            self.window, self.window_how = config.window_words, "as requested"
        self.rows: list[SemanticRow] = []
        self._memo: dict[str, str] = {}
        self._code_memo: dict[str, tuple] = {}
        n = self.code_n = config.code_ngram
        for t, c, segs in zip(texts, counts, row_segments):
            terms = _set(terms_of(t.split(), self._memo))
            self.rows.append(SemanticRow(t, c, terms, frozenset(w for w in terms if is_number(w))))
            if n and is_code("\n".join(segs)):
                self.rows[-1].code = code_shingles(self._code_of(t.split()), n)
                self.rows[-1].docstring = docstring_of(t)
        self.code_rows = sum(1 for r in self.rows if r.code is not None)
        if not self.code_rows:
            self.code_n = n = 0     # no code row: windows are not tokenised as code
        self.vocab = set().union(*(r.terms for r in self.rows)) if self.rows else set()
        self.vocab.update(*(r.code for r in self.rows if r.code))
        bg = [_set(terms_of(t.split(), self._memo)) | (
              code_shingles(self._code_of(t.split()), n) if n else frozenset())
              for t in background]
        self.background_source = "training head" if bg else "eval rows"
        if not bg:
            bg = [r.terms for r in self.rows if r.terms]
        self.background_records = len(bg)
        df: dict[str, int] = {}
        for terms in bg:
            for w in terms & self.vocab:
                df[w] = df.get(w, 0) + 1
        cap = max(1.0, config.rare_share * len(bg))
        self.postings: dict[str, list[int]] = {}
        for i, r in enumerate(self.rows):
            keys = tuple((w, idf(df.get(w, 0), len(bg)))
                         for w in sorted(r.terms | (r.code or frozenset()))
                         if df.get(w, 0) <= cap)
            r.keys, r.key_weight = keys, sum(x for _, x in keys)
            for w, _ in keys:
                self.postings.setdefault(w, []).append(i)
        self.key_weight = {w: x for r in self.rows for w, x in r.keys}
        self.windows_seen = 0
        self.windows_with_key = 0
        self.window_df: dict[str, int] = {}
        self._heaps: list[list] = [[] for _ in self.rows]   # (score, -serial, serial) min-heaps
        self._kept: dict[int, Window] = {}
        self._refs: dict[int, int] = {}
        self.pairs: list[tuple[int, int]] | None = None
        self.matches: list[SemanticMatch] | None = None
        self.file_name = ""

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

    # -- step 1 and 2: the streaming scan ------------------------------------------------------
    def scan(self, records: list[tuple[int, list[str]]]) -> None:
        """Cut records into windows and offer each to the candidate stage.

        Args:
            records: ``(1-based record number, field values)`` per training record.
        """
        size = self.window
        postings, kw, df = self.postings, self.key_weight, self.window_df
        k = self.config.candidates
        for rec, segs in records:
            words = " ".join(segs).split()
            if not words:
                continue
            nwords = terms_of(words, self._memo)
            half = (size + 1) // 2
            for s, e in window_spans(len(words), size):
                self.windows_seen += 1
                terms = self._terms(nwords, words, s, e)
                for w in terms:
                    df[w] = df.get(w, 0) + 1
                acc: dict[int, float] = {}
                for w in terms:
                    p = postings.get(w)
                    if p:
                        x = kw[w]
                        for i in p:
                            acc[i] = acc.get(i, 0.0) + x
                if not acc:
                    continue
                self.windows_with_key += 1
                serial = self.windows_seen
                window = None
                for i, x in acc.items():
                    # rounded: the sum's order follows set order, which varies between runs
                    # (hash seeds; the page's Pyodide and the CLI differ), and its last bits
                    # must not break ties between windows
                    sc = round(x / self.rows[i].key_weight, 12)
                    h = self._heaps[i]
                    item = (sc, -serial, serial)
                    if len(h) < k:
                        heapq.heappush(h, item)
                    elif item > h[0]:
                        old = heapq.heapreplace(h, item)[2]
                        self._release(old)
                    else:
                        continue
                    if window is None:
                        window = Window(rec, s, " ".join(words[s:e]), self._terms(
                            nwords, words, max(0, s - half), e + half), self.file_name)
                        self._kept[serial] = window
                    self._refs[serial] = self._refs.get(serial, 0) + 1

    def _release(self, serial: int) -> None:
        n = self._refs[serial] - 1
        if n:
            self._refs[serial] = n
        else:
            del self._refs[serial]
            del self._kept[serial]

    # -- step 3: what the encoder must embed ---------------------------------------------------
    def request(self) -> dict:
        """Close the scan; what the driver must embed.

        Returns:
            ``{"eval_texts": [str], "window_texts": [str], "pairs": [[row, window], ...]}``
            with 0-based indices into the two lists; the driver returns one cosine per pair
            (same order) to :meth:`verify`. ``eval_texts`` holds one text per eval row ("" for
            empty rows), then, with ``docstring_cosine``, the docstrings of code rows;
            ``window_texts`` the kept windows, then their docstring parts. The first pairs
            are (row, window), one per candidate; the docstring pairs follow them.
        """
        serials = sorted(self._kept)
        pos = {s: j for j, s in enumerate(serials)}
        self._windows = [self._kept[s] for s in serials]
        self.pairs = [(i, pos[it[2]]) for i, h in enumerate(self._heaps)
                      for it in sorted(h, reverse=True)]
        eval_texts = [r.text for r in self.rows]
        window_texts = [w.text for w in self._windows]
        pairs = [list(p) for p in self.pairs]
        self._doc_pair: list[int | None] = [None] * len(self.pairs)
        if self.config.docstring_cosine and self.code_n:
            row_doc: dict[int, int] = {}
            win_doc: dict[int, int | None] = {}
            for p, (i, j) in enumerate(self.pairs):
                d = self.rows[i].docstring
                if d is None:
                    continue
                if j not in win_doc:
                    wd = docstring_of(self._windows[j].text)
                    win_doc[j] = None if wd is None else len(window_texts)
                    if wd is not None:
                        window_texts.append(wd)
                if win_doc[j] is None:
                    continue
                if i not in row_doc:
                    row_doc[i] = len(eval_texts)
                    eval_texts.append(d)
                self._doc_pair[p] = len(pairs)
                pairs.append([row_doc[i], win_doc[j]])
        self.request_sizes = (len(eval_texts), len(window_texts), len(pairs))
        return {"eval_texts": eval_texts, "window_texts": window_texts, "pairs": pairs}

    # -- step 4: the verifier ------------------------------------------------------------------
    def evidence(self, row: int, window: Window) -> tuple[float, float | None]:
        """Lexical evidence of a (row, window) pair: ``(lex, num)``.

        ``lex`` = Σ idf(t) over the row's distinct terms found in the window's context (the
        window and half a window either side) ÷ Σ idf(t) over the row's distinct terms, idf
        over every training window scanned; ``num`` = shared distinct numbers ÷ (the row's
        distinct numbers + 1), add-one smoothing: 2 of 2 small numbers is weaker evidence than
        8 of 8 (None when the row has no number).
        """
        r = self.rows[row]
        n = self.windows_seen
        df = self.window_df
        tot = hit = 0.0
        for w in r.terms:
            x = idf(df.get(w, 0), n)
            tot += x
            if w in window.terms:
                hit += x
        lex = hit / tot if tot else 0.0
        num = (len(r.numbers & window.terms) / (len(r.numbers) + 1)) if r.numbers else None
        return lex, num

    def code_evidence(self, row: int, window: Window) -> float | None:
        """The code channel of a (row, window) pair: Σ idf(g) over the row's distinct code
        shingles g found in the window's context ÷ Σ idf(g) over its code shingles (idf over
        every training window scanned, as for ``lex``); None when the row is not code.

        A rephrased program keeps its shape (signature, doctest calls and their argument
        shapes, control flow) while its names and literals change; shingles of abstracted
        tokens see that shape, and the IDF leaves the shapes every program has (``) : return``)
        nearly weightless.
        """
        code = self.rows[row].code
        if code is None:
            return None
        n = self.windows_seen
        df = self.window_df
        tot = hit = 0.0
        for g in code:
            x = idf(df.get(g, 0), n)
            tot += x
            if g in window.terms:
                hit += x
        return hit / tot if tot else 0.0

    def verify(self, cosines: list[float]) -> list[SemanticMatch]:
        """Score every embedded pair and pick each row's best.

        Args:
            cosines: one cosine per pair of :meth:`request`, in its order.
        Returns:
            One :class:`SemanticMatch` per eval row.
        Raises:
            EvalsieveError(bad_input): wrong number of cosines, or request() not called.
        """
        if self.pairs is None:
            raise bad_input("the semantic scan has not been closed", expected="request() first")
        want = self.request_sizes[2]
        if len(cosines) != want:
            raise bad_input(f"{len(cosines)} cosines for {want} pairs",
                            expected="one cosine per requested pair")
        cfg = self.config
        base = []
        for p, (i, j) in enumerate(self.pairs):
            c = float(cosines[p])
            win = self._windows[j]
            lex, num = self.evidence(i, win)
            code = self.code_evidence(i, win)
            q = self._doc_pair[p]
            dc = None if q is None else float(cosines[q])
            base.append((verifier_score(c, lex, num, code, dc), c, lex, num, code, dc))
        # explain-away: the two best (score, row) on each window
        top: dict[int, list] = {}
        if cfg.explain_away:
            for p, (i, j) in enumerate(self.pairs):
                t = top.setdefault(j, [])
                t.append((base[p][0], -i, i))
                t.sort(reverse=True)
                del t[2:]
        # code runner-up: per row, its pairs' code evidence and window place
        near = 2 * self.window      # contexts (a window and half a window each side) apart
        by_row: dict[int, list] = {}
        if cfg.code_margin:
            for p, (i, j) in enumerate(self.pairs):
                if base[p][4] is not None:
                    w = self._windows[j]
                    by_row.setdefault(i, []).append((w.file, w.record, w.start, base[p][4]))
        out = [SemanticMatch() for _ in self.rows]
        for p, (i, j) in enumerate(self.pairs):
            s0, c, lex, num, code, dc = base[p]
            win = self._windows[j]
            rival = next((x[0] for x in top.get(j, ()) if x[2] != i), None)
            runner = None
            if code is not None and cfg.code_margin:
                runner = max((x[3] for x in by_row[i] if x[0] != win.file or x[1] != win.record
                              or abs(x[2] - win.start) >= near), default=0.0)
            s = final_score(s0, rival, code, runner, cfg.code_margin)
            m = out[i]
            if m.score is None or s > m.score:
                out[i] = SemanticMatch(s, c, lex, num, win.record, win.start, win.text,
                                       s >= cfg.threshold, win.file, code, dc, rival, runner)
        self.matches = out
        return out

    def figures(self) -> dict:
        """Counts for the summary and the stamp (after :meth:`request`)."""
        return {"window_words": self.window, "window_how": self.window_how,
                "code_rows": self.code_rows,
                "windows": self.windows_seen, "windows_sharing_a_key_term": self.windows_with_key,
                "windows_embedded": len(self._windows) if self.pairs is not None else None,
                "pairs_verified": len(self.pairs) if self.pairs is not None else None,
                "docstring_pairs": (self.request_sizes[2] - len(self.pairs)
                                    if self.pairs is not None else None),
                "idf_background": f"{self.background_source}, {self.background_records} records"}
