"""The contamination job: is each eval row inside the training data?

:class:`ContaminationJob` is the state machine both drivers (``cli.py`` and ``bridge.py``)
run: feed the eval file's text, end the eval pass (N is chosen and the eval index built),
feed the training file's text in chunks (one streaming pass), finish, then ask for exports.
It reads no file, clock or environment: the driver passes text, sizes, hashes and the time.

One training pass does what the rule's two passes describe: for every eval n-gram it counts
the distinct training records holding it (the boilerplate pass) and remembers the first
record and an excerpt (the match pass); boilerplate n-grams are then removed from both sides
of the score, which gives the same containment as a second pass would.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from . import constants
from .errors import EvalsieveError, bad_input
from .exports import fmt_float, html_page, html_table, stamp_section, write_csv
from .fields import FieldExtractor
from .ngrams import EvalIndex, RowScore, TrainingScan, containment_scores
from .records import RecordReader, parse_record_line
from .stamps import InputFile, RunStamp
from .text import char_table, normalize_many

RULE = ("Words: Unicode NFKC, lowercase, every character of Unicode category punctuation (P*) "
        "deleted, split on white space. N = the 5th-percentile word count of the non-empty "
        "eval rows (nearest rank), clamped to 8..13. Boilerplate: eval n-grams found in more "
        "than max(10, ⌈0.001 × training records⌉) training records are dropped from both "
        "sides. Containment of an eval row = its distinct n-grams found in training ÷ its "
        "distinct scorable n-grams. Source: GPT-3, Brown et al. 2020, App. C.")

REPORT_COLUMNS = ["eval_row", "status", "containment", "ngrams_matched", "ngrams_total",
                  "ngrams_boilerplate", "words", "training_record", "shared_passage",
                  "training_excerpt"]
TOO_SHORT_COLUMNS = ["eval_row", "words", "n", "reason"]
#: Most contaminated rows the page's view lists (the report CSV has them all).
VIEW_ROWS = 2000

_REASONS = {
    "empty": "empty: no words in the chosen fields",
    "too_short": "fewer than N words",
    "no_ngram": "no single field value has N words (n-grams never span two fields)",
    "boilerplate_only": "boilerplate only: every n-gram is in more training records than the cut-off",
}


@dataclass(frozen=True)
class ContaminationConfig:
    """Settings of a contamination run.

    Attributes:
        eval_fields: field paths of the eval file to score (see :mod:`evalsieve.fields`).
        train_fields: field paths of the training file to search.
        n: n-gram size in words, or None for the rule's choice (5th percentile, 8..13).
        boilerplate: run the boilerplate pass (default on).
        threshold: contaminated when containment ≥ threshold, in (0, 1]; None = any overlap.

    Example: ``ContaminationConfig(["question"], ["question", "answer"])`` scores GSM8K test
    questions against train questions and answers, N chosen by the rule, any overlap dirty.
    """
    eval_fields: tuple
    train_fields: tuple
    n: int | None = None
    boilerplate: bool = True
    threshold: float | None = None

    def __post_init__(self):
        """Refuse bad settings at construction, so a run fails at its start (the page's
        ``cont.start``), not after the training pass.

        Raises:
            EvalsieveError(bad_input): ``n`` not an integer in constants.N_MIN..N_MAX (1..1000),
            ``threshold`` not a number in (0, 1] (0 would call every row contaminated), or
            ``boilerplate`` not a bool.
        """
        n, t = self.n, self.threshold
        if n is not None and (isinstance(n, bool) or not isinstance(n, int)
                              or not constants.N_MIN <= n <= constants.N_MAX):
            raise bad_input(f"N = {n!r} is out of range",
                            expected=f"an integer from {constants.N_MIN} to {constants.N_MAX}, "
                                     "or none for the rule's choice")
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))
                              or not constants.THRESHOLD_MIN_EXCLUSIVE < t
                              <= constants.THRESHOLD_MAX):
            raise bad_input(f"containment threshold {t!r} is out of range",
                            expected="a number above 0 and at most 1, or 'any overlap'")
        if not isinstance(self.boilerplate, bool):
            raise bad_input(f"boilerplate = {self.boilerplate!r} is not on or off",
                            expected="true or false")

    def settings(self) -> dict:
        """The settings as plain JSON values, for the run stamp."""
        return {"eval_fields": list(self.eval_fields), "train_fields": list(self.train_fields),
                "n_requested": self.n, "boilerplate": self.boilerplate,
                "threshold": self.threshold if self.threshold is not None else "any overlap"}


class ContaminationJob:
    """Drive one contamination run.

    Args:
        config: the settings.
        eval_name, eval_format: the eval file's name and format (jsonl/csv/tsv/text).
        train_name, train_format: the training file's.
    Raises:
        EvalsieveError(bad_input): from the readers (malformed lines), or calls out of order.
    """

    TRAIN_BATCH = 2000  # records per scan batch

    def __init__(self, config: ContaminationConfig, eval_name: str, eval_format: str,
                 train_name: str, train_format: str):
        self.config = config
        self.eval_name, self.eval_format = eval_name, eval_format
        self.train_name, self.train_format = train_name, train_format
        self._eval_reader = RecordReader(eval_format, eval_name)
        self._eval_fields = FieldExtractor(eval_format, list(config.eval_fields), eval_name)
        self._train_reader = RecordReader(train_format, train_name)
        self._train_fields = FieldExtractor(train_format, list(config.train_fields), train_name)
        self._eval_raw: list[str] = []
        self._eval_segments: list[list[str]] = []
        self._eval_numbers: list[int] = []
        self.index: EvalIndex | None = None
        self.scan: TrainingScan | None = None
        self.scores: list[RowScore] | None = None
        self.cutoff = 0
        self.training_chars = 0
        self.stamp: RunStamp | None = None
        self.summary: dict | None = None
        self._background: dict[str, int] = {}
        self._records_external = 0

    def set_background(self, head: str) -> int:
        """Give the start of the training file (about 1 MB) to pick fast filter words.

        Optional; changes speed only, never results. Returns the records sampled.
        """
        reader = RecordReader(self.train_format, self.train_name)
        try:
            records = reader.feed(head)
        except EvalsieveError:
            return 0  # the real pass will report the malformed line with its number
        segs = [s for r in records for s in self._train_fields.segments(r.value)]
        counts: dict[str, int] = {}
        for text in normalize_many(segs):
            for w in text.split():
                counts[w] = counts.get(w, 0) + 1
        self._background = counts
        if self.index is not None:
            self.index.set_background(counts)
        return len(records)

    # -- eval pass --------------------------------------------------------------------------
    def feed_eval(self, text: str) -> int:
        """Parse a chunk of the eval file. Returns eval rows read so far."""
        if self.index is not None:
            raise bad_input("the eval pass has ended", expected="feed_eval before end_eval")
        self._take_eval(self._eval_reader.feed(text))
        return self._eval_reader.records_read

    def _take_eval(self, records) -> None:
        for r in records:
            self._eval_raw.append(r.raw)
            self._eval_segments.append(self._eval_fields.segments(r.value))
            self._eval_numbers.append(r.index)

    def end_eval(self) -> dict:
        """Close the eval file, choose N, build the index.

        Returns:
            ``{n, n_how, rows, rows_scorable, rows_too_short, eval_ngrams}``.
        Raises:
            EvalsieveError(bad_input): the eval file has no rows, or no row has a word.
        """
        self._take_eval(self._eval_reader.finish())
        if not self._eval_raw:
            raise bad_input("the eval file has no rows", file=self.eval_name,
                            expected="at least one record")
        try:
            self.index = EvalIndex(self._eval_segments, self.config.n, self._background)
        except Exception as e:  # name the file on rule errors
            if getattr(e, "code", None) == "bad_input" and getattr(e, "file", 1) is None:
                e.file = self.eval_name
            raise
        self.scan = TrainingScan(self.index)
        self._batch: list[tuple[int, list[str]]] = []
        scorable = sum(1 for r in self.index.rows if r.ngram_ids)
        return {"n": self.index.n, "n_how": self.index.n_how, "rows": len(self.index.rows),
                "rows_scorable": scorable, "rows_too_short": len(self.index.rows) - scorable,
                "eval_ngrams": len(self.index.ngrams)}

    # -- training pass ----------------------------------------------------------------------
    def feed_train(self, text: str) -> int:
        """Scan a chunk of the training file. Returns training records read so far."""
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before feed_train")
        self.training_chars += len(text)
        self._scan_records(self._train_reader.feed(text))
        return self._train_reader.records_read

    def _scan_records(self, records) -> None:
        seg = self._train_fields.segments
        batch = self._batch
        for r in records:
            batch.append((r.index, seg(r.value)))
            if len(batch) >= self.TRAIN_BATCH:
                self.scan.scan(batch)
                batch.clear()

    # -- training pass behind the page's prefilter (worker/prefilter.js) ---------------------
    def prefilter_spec(self) -> dict | None:
        """What worker/prefilter.js needs: N, the eval n-grams, the training field paths.

        Returns None for CSV/TSV training files (their records can span lines; the page
        sends them whole to :meth:`feed_train`).
        """
        if self.index is None:
            raise bad_input("the eval pass has not ended", expected="end_eval first")
        if self.train_format not in ("jsonl", "text"):
            return None
        return {"n": self.index.n, "ngrams": self.index.ngrams, "format": self.train_format,
                "paths": [list(s) for s in self._train_fields._steps],
                "chars": {str(c): r for c, r in char_table().items()}}

    def feed_train_candidates(self, records: list[int], lines: list[int], text: str,
                              records_total: int, chars: int) -> int:
        """Scan the candidate records the prefilter passed on; count the rest as read.

        Args:
            records, lines: 1-based record and line numbers of the candidates.
            text: the candidates' lines (without their newline), joined with "\n".
            records_total: training records read so far, candidates or not.
            chars: characters of training text the prefilter read for this call.
        Returns:
            Training records read so far.
        Raises:
            EvalsieveError(bad_input): a malformed candidate line (its real line number).
        """
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before feed_train")
        raws = text.split("\n") if records else []
        if len(raws) != len(records) or len(lines) != len(records):
            raise EvalsieveError("internal", f"{len(records)} candidates but {len(raws)} lines")
        seg = self._train_fields.segments
        batch = self._batch
        for rec, ln, raw in zip(records, lines, raws):
            batch.append((rec, seg(parse_record_line(self.train_format, raw, self.train_name, ln))))
            if len(batch) >= self.TRAIN_BATCH:
                self.scan.scan(batch)
                batch.clear()
        self.training_chars += chars
        self._records_external = records_total
        return records_total

    def finish(self, eval_file: InputFile, train_file: InputFile, utc: str,
               assets: dict | None = None, runtime: str = "",
               environment: dict | None = None) -> dict:
        """Close the training file, score every eval row, build the stamp.

        Args:
            eval_file, train_file: the inputs' names, sha256 and byte counts.
            utc: ISO-8601 UTC time of the run (the driver reads the clock).
            assets: runtime asset versions for the stamp.
            runtime: e.g. "CPython 3.11.7" or "Pyodide 314.0.7".
            environment: how the page ran (RunStamp.environment); None in the CLI.
        Returns:
            The summary dict (what the CLI prints with ``--json``).
        """
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before finish")
        self._scan_records(self._train_reader.finish())
        if self._batch:
            self.scan.scan(self._batch)
            self._batch.clear()
        self.scan.records = max(self._train_reader.records_read, self._records_external)
        c = self.config
        self.scores, self.cutoff = containment_scores(
            self.index, self.scan, boilerplate=c.boilerplate, threshold=c.threshold,
            row_numbers=self._eval_numbers)
        settings = c.settings()
        settings.update({"n": self.index.n, "n_how": self.index.n_how,
                         "boilerplate_cutoff": (f"> {self.cutoff} training records"
                                                if c.boilerplate else "off")})
        self.stamp = RunStamp("contamination", settings, (eval_file, train_file), utc,
                              dict(assets or {}), runtime, dict(environment or {}))
        s = self.scores
        scored = [r for r in s if r.scored]
        dirty = [r for r in scored if r.status == "contaminated"]
        self.summary = {
            "n": self.index.n, "n_how": self.index.n_how,
            "rows_scanned": len(s), "rows_scored": len(scored),
            "rows_too_short": len(s) - len(scored),
            "rows_boilerplate_only": sum(1 for r in s if r.status == "boilerplate_only"),
            "rows_contaminated": len(dirty), "rows_kept": len(scored) - len(dirty),
            "training_records": self.scan.records, "training_bytes": train_file.bytes,
            "training_chars": self.training_chars,
            "eval_ngrams": len(self.index.ngrams),
            "ngrams_boilerplate": (sum(1 for x in self.scan.counts if x > self.cutoff)
                                   if self.cutoff else 0),
            "boilerplate_cutoff": self.cutoff,
            "threshold": c.threshold, "clean_file": self.clean_name,
            "stamp": self.stamp.to_dict(),
        }
        return self.summary

    # -- exports ----------------------------------------------------------------------------
    @property
    def clean_name(self) -> str:
        """``eval.clean.jsonl``, or ``.csv``/``.tsv``/``.txt`` after the eval file's format."""
        return constants.CLEAN_NAME_BY_FORMAT[self.eval_format]

    def export_names(self) -> list[str]:
        """The names :meth:`export` accepts, in the order the page lists them."""
        return [self.clean_name, *constants.CONTAMINATION_REPORTS]

    def export(self, name: str) -> tuple[str, str]:
        """One export's ``(mime type, text)``.

        Raises:
            EvalsieveError(bad_input): unknown name, or called before :meth:`finish`.
        """
        if self.scores is None:
            raise bad_input("the run has not finished", expected="finish before export")
        if name == self.clean_name:
            return "application/octet-stream", self.clean_text()
        if name == "contamination-report.csv":
            return "text/csv", self.report_csv()
        if name == "too-short-to-score.csv":
            return "text/csv", self.too_short_csv()
        if name == "overlap-report.html":
            return "text/html", self.report_html()
        raise bad_input(f"no export named {name!r}", expected=", ".join(self.export_names()))

    def histogram(self) -> dict:
        """Containment of the scored rows in ten bins of 0.1, the last one closed ([0.9, 1.0]):
        ``{bin_width: 0.1, counts: [10 ints]}`` (the overlap report's histogram)."""
        counts = [0] * 10
        for r in self.scores:
            if r.scored:
                counts[min(9, int(r.containment * 10))] += 1
        return {"bin_width": 0.1, "counts": counts}

    def view(self, limit: int = VIEW_ROWS) -> dict:
        """What the page shows of a finished run, so it does not parse the CSV it downloads.

        Args:
            limit: most rows listed (the report CSV has them all).
        Returns:
            ``{rows, rows_total, histogram}``: ``rows`` are the contaminated rows in report
            order (eval-file order), at most ``limit``, each ``{eval_row, status,
            containment (float), containment_text (as the CSV prints it), ngrams_matched,
            ngrams_total, training_record, shared_passage, training_excerpt, eval_text (the
            chosen fields' values joined with a newline)}``; ``rows_total`` counts them all;
            ``histogram`` is :meth:`histogram`.
        Raises:
            EvalsieveError(bad_input): called before :meth:`finish`.
        """
        if self.scores is None:
            raise bad_input("the run has not finished", expected="finish before view")
        rows, total = [], 0
        for i, r in enumerate(self.scores):
            if r.status != "contaminated":
                continue
            total += 1
            if len(rows) < limit:
                rows.append({"eval_row": r.eval_row, "status": r.status,
                             "containment": r.containment,
                             "containment_text": fmt_float(r.containment),
                             "ngrams_matched": r.ngrams_matched, "ngrams_total": r.ngrams_total,
                             "training_record": r.training_record,
                             "shared_passage": r.shared_passage, "training_excerpt": r.excerpt,
                             "eval_text": "\n".join(self._eval_segments[i])})
        return {"rows": rows, "rows_total": total, "histogram": self.histogram()}

    def clean_text(self) -> str:
        """The kept rows' exact text (header line first for CSV/TSV); UTF-8 = input bytes."""
        head = self._eval_reader.header_raw or ""
        kept = [self._eval_raw[i] for i, r in enumerate(self.scores) if r.status == "clean"]
        if kept and head and not head.endswith("\n"):
            head += "\n"
        return head + "".join(kept)

    def report_csv(self) -> str:
        """``contamination-report.csv``: one row per scored eval row (columns REPORT_COLUMNS)."""
        rows = ([r.eval_row, r.status, fmt_float(r.containment), r.ngrams_matched,
                 r.ngrams_total, r.ngrams_boilerplate, r.words, r.training_record or "",
                 r.shared_passage, r.excerpt] for r in self.scores if r.scored)
        return write_csv(self.stamp, REPORT_COLUMNS, rows)

    def too_short_csv(self) -> str:
        """``too-short-to-score.csv``: every row not scored, its word count and reason."""
        n = self.index.n
        rows = ([r.eval_row, r.words, n, _REASONS[r.status]] for r in self.scores
                if not r.scored)
        return write_csv(self.stamp, TOO_SHORT_COLUMNS, rows)

    def report_html(self) -> str:
        """``overlap-report.html``: self-contained (no script, no external reference), the
        figures beside every setting, a containment histogram, the contaminated rows."""
        s = self.summary
        head = [("rows scanned", s["rows_scanned"]), ("rows scored", s["rows_scored"]),
                ("rows too short to score", s["rows_too_short"]),
                ("  of which boilerplate only", s["rows_boilerplate_only"]),
                ("rows contaminated", s["rows_contaminated"]),
                ("rows kept (eval.clean)", s["rows_kept"]),
                ("training records", s["training_records"]),
                ("training bytes", s["training_bytes"]),
                ("N (words per n-gram)", f"{s['n']} — {s['n_how']}"),
                ("boilerplate cut-off", (f"n-grams in more than {self.cutoff} training records "
                                         f"dropped ({s['ngrams_boilerplate']} dropped)")
                 if self.cutoff else "off"),
                ("threshold", "any overlap (≥ 1 matched n-gram)" if s["threshold"] is None
                 else f"containment ≥ {s['threshold']}")]
        scored = [r for r in self.scores if r.scored]
        bins = self.histogram()["counts"]
        zero = sum(1 for r in scored if r.ngrams_matched == 0)
        big = max(bins) or 1
        hist_rows = []
        for i, b in enumerate(bins):
            label = f"[{i / 10:.1f}, {(i + 1) / 10:.1f})" if i < 9 else "[0.9, 1.0]"
            hist_rows.append((label, b, f"<span class=\"bar\" style=\"width:{b / big * 30:.2f}em\">"
                              "</span>"))
        hist = ["<table><thead><tr><th>containment</th><th>rows</th><th></th></tr></thead><tbody>"]
        for label, b, bar in hist_rows:
            hist.append(f"<tr><td>{label}</td><td class=\"num\">{b}</td><td>{bar}</td></tr>")
        hist.append("</tbody></table>")
        dirty = sorted((r for r in scored if r.status == "contaminated"),
                       key=lambda r: (-r.containment, r.eval_row))
        rows = [(r.eval_row, fmt_float(r.containment), f"{r.ngrams_matched}/{r.ngrams_total}",
                 r.training_record, r.shared_passage, r.excerpt) for r in dirty]
        sections = [
            "<h1>evalsieve — eval/training overlap report</h1>",
            f"<p>Eval file <b>{_esc(self.eval_name)}</b> against training file "
            f"<b>{_esc(self.train_name)}</b>.</p>",
            f"<p class=\"rule\">{_esc(RULE)}</p>",
            "<h2>Figures, with the settings that produced them</h2>",
            html_table(["figure", "value"], head, frozenset({1}), cls="settings"),
            f"<h2>Containment of the scored rows</h2><p>{zero} of {len(scored)} scored rows "
            "have no matched n-gram.</p>" + "".join(hist),
            f"<h2>Contaminated rows ({len(dirty)})</h2>",
            html_table(["eval_row", "containment", "matched/total", "training_record",
                        "shared passage (normalised words)", "training excerpt (normalised)"],
                       rows, frozenset({0, 1, 2, 3})),
            stamp_section(self.stamp),
        ]
        return html_page("evalsieve overlap report", sections)


def _esc(s: str) -> str:
    return html.escape(s)
