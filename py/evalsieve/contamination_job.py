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

from .contamination_config import CLEAN_RULES, ContaminationConfig
from .contamination_impact import ScoreImpact
from .errors import EvalsieveError, bad_input
from .exact import prefilter_exact
from .fields import FieldExtractor
from .ngrams import EvalIndex, RowScore, TrainingScan, containment_scores, mostly_too_short
from .record_id import IdReader
from .records import Record, RecordReader
from .semantic import SemanticScan
from .stamps import InputFile, RunStamp
from .text import char_table, normalize_many
from .train_sources import TrainSources
from .results import ContaminationResult, clean_name
from .verdict import (
    RUNGS,
    apply_ladder,
    assign_rungs,  # noqa: F401
    caught_rungs,  # noqa: F401 (re-exported)
    kept_positions,
)


class ContaminationJob(TrainSources, ScoreImpact):
    """Drive one contamination run.

    Args:
        config: the settings.
        eval_name, eval_format: the eval file's name and format (jsonl/csv/tsv/text).
        train_name, train_format: the training file's.
    Raises:
        EvalsieveError(bad_input): from the readers (malformed lines), or calls out of order.
    """

    TRAIN_BATCH = 2000  # records per scan batch

    def __init__(
        self,
        config: ContaminationConfig,
        eval_name: str,
        eval_format: str,
        train_name: str,
        train_format: str,
    ):
        self.config = config
        self.eval_name, self.eval_format = eval_name, eval_format
        self.train_name, self.train_format = train_name, train_format
        skip = config.skip_bad_lines
        self._eval_reader = RecordReader(eval_format, eval_name, skip)
        self._eval_fields = FieldExtractor(eval_format, list(config.eval_fields), eval_name)
        self._train_reader = RecordReader(train_format, train_name, skip, offsets=True)
        # skipped records: (file order (-1 = eval), file name, line, error)
        self._skipped: list[tuple[int, str, int, str]] = []
        self._train_fields = FieldExtractor(train_format, list(config.train_fields), train_name)
        self._train_ids = IdReader(train_format, config.train_id_field, train_name)
        self.train_meta: dict[int, tuple] = {
            0: (train_name, train_format, list(config.train_fields), None)
        }
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
        self.score_run = None  # a scores.ScoreRun (set_scores), for the score impact
        self._records_merged = 0
        self._train_readers_done = 0  # records of the corpus's earlier files (begin_train_file)
        self._train_next = 0  # the next begin_train_file index
        self.train_files: list[InputFile] = []
        self._background_texts: list[str] = []
        self.semantic: SemanticScan | None = None
        self._cosines_set = False
        self._train_closed = False
        self.rung: list[str] = []  # per row, the first rung that caught it
        self._caught: list[tuple] = []  # per row, every rung that caught it (verdict.py)
        self.result: ContaminationResult | None = None  # what finish returned

    def set_background(self, head: str) -> int:
        """Give the start of the training file (about 1 MB) to pick fast filter words.

        Optional; changes speed only, never results. Returns the records sampled.
        """
        reader = RecordReader(self.train_format, self.train_name)
        try:
            records = reader.feed(head)
        except EvalsieveError:
            return 0  # the real pass will report the malformed line with its number
        per = [self._train_fields.segments(r.value) for r in records]
        self._background_texts = [" ".join(p) for p in per]
        segs = [s for p in per for s in p]
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

    def feed_eval_values(self, values: list[dict]) -> int:
        """Take eval records given as parsed values (a Parquet row group, read by the
        driver): numbered on from the rows before, with no raw text (the driver writes the
        clean export). Returns eval rows read so far."""
        if self.index is not None:
            raise bad_input("the eval pass has ended", expected="feed_eval before end_eval")
        start = len(self._eval_raw)
        self._take_eval(Record(start + i + 1, start + i + 1, "", v) for i, v in enumerate(values))
        return len(self._eval_raw)

    def feed_train_values(self, values: list[dict]) -> int:
        """Scan training records given as parsed values (a Parquet row group). Returns
        training records read so far."""
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before feed_train")
        start = self._records_external
        self._records_external += len(values)
        self._scan_records(
            Record(start + i + 1, start + i + 1, "", v) for i, v in enumerate(values)
        )
        return self._records_external

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
        self._skipped += [(-1, self.eval_name, ln, m) for ln, m in self._eval_reader.skipped]
        if not self._eval_raw:
            raise bad_input(
                "the eval file has no rows", file=self.eval_name, expected="at least one record"
            )
        try:
            self.index = EvalIndex(self._eval_segments, self.config.n, self._background)
        except Exception as e:  # name the file on rule errors
            if getattr(e, "code", None) == "bad_input" and getattr(e, "file", 1) is None:
                e.file = self.eval_name
            raise
        self.scan = TrainingScan(self.index, source=self._source)
        self._batch: list[tuple] = []
        if self.config.semantic is not None:
            self.semantic = SemanticScan(
                self._eval_segments, self.config.semantic, self._background_texts
            )
        scorable = sum(1 for r in self.index.rows if r.ngram_ids)
        return {
            "n": self.index.n,
            "n_how": self.index.n_how,
            "rows": len(self.index.rows),
            "rows_scorable": scorable,
            "rows_too_short": len(self.index.rows) - scorable,
            "eval_ngrams": len(self.index.ngrams),
        }

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
            batch.append((r.index, seg(r.value), r))
            if len(batch) >= self.TRAIN_BATCH:
                self._scan_batch(batch)
                batch.clear()

    def _scan_batch(self, batch: list[tuple[int, list[str]]]) -> None:
        """One batch of training records through every rung's scan (the exact rung rides in
        :meth:`TrainingScan.scan`)."""
        self.scan.scan(batch)
        if self.semantic is not None:  # (record, segments): it keeps no source
            self.semantic.scan([(it[0], it[1]) for it in batch])

    def begin_train_file(self, index: int, name: str, fmt: str, fields: list[str]) -> int:
        """Start the next training file of a corpus fed through :meth:`feed_train` or
        :meth:`feed_train_candidates` (the page's several files or folder): the records
        read so far are scanned as the earlier file's, then :attr:`TrainingScan.file` is
        ``index`` and each record is numbered from 1 in its own file.

        Args:
            index: the file's 0-based place in the corpus (files in order, each once).
            name: its name as the report shows it; fmt: its format (jsonl/csv/tsv/text);
            fields: the training fields this file has (at least one).
        Returns:
            Training records read so far, all files before this one.
        Raises:
            EvalsieveError(bad_input): before end_eval, after finish, a file index out of
            order, or no field.
        """
        if self.scan is None or self._train_closed:
            raise bad_input(
                "no training pass is open", expected="begin_train_file between end_eval and finish"
            )
        if index != self._train_next or (
            index == 0 and (self._train_reader.records_read or self._records_external)
        ):
            raise bad_input(
                f"training file {index} out of order",
                file=name,
                expected=f"file {self._train_next}, before any record of it",
            )
        fields_of = FieldExtractor(fmt, list(fields), name)
        if index:
            self._scan_records(self._train_reader.finish())
            self._note_header()
            if self._batch:  # these records belong to the earlier file
                self._scan_batch(self._batch)
                self._batch.clear()
            self._train_readers_done += max(self._train_reader.records_read, self._records_external)
        self._take_train_skips()
        self.train_name, self.train_format = name, fmt
        self._train_reader = RecordReader(fmt, name, self.config.skip_bad_lines, offsets=True)
        self._train_fields = fields_of
        self._train_ids = IdReader(fmt, self.config.train_id_field, name)
        self.train_meta[index] = (name, fmt, list(fields), None)
        self._records_external = 0
        self.scan.file = index
        if self.semantic is not None:  # its windows name their file too
            self.semantic.set_file(index, name)
        self._train_next = index + 1
        return self._train_readers_done

    # -- training pass behind the page's prefilter (worker/prefilter.js) ---------------------
    def prefilter_spec(self) -> dict | None:
        """What worker/prefilter.js needs: N, the eval n-grams, the training field paths,
        the char table, the exact rung's probes (:func:`evalsieve.exact.prefilter_exact`), and
        for the scan kernel, ``kernel``: kernel_spec.kernel_chars.

        Returns None for CSV/TSV training files (their records can span lines; the page
        sends them whole to :meth:`feed_train`).
        """
        if self.index is None:
            raise bad_input("the eval pass has not ended", expected="end_eval first")
        if self.train_format not in ("jsonl", "text") or self.semantic is not None:
            return None  # also -cr files: the prefilter splits lines at LF only; the semantic
            # rung needs every record
        from .kernel_spec import kernel_chars

        return {
            "n": self.index.n,
            "ngrams": self.index.ngrams,
            "format": self.train_format,
            "paths": [list(s) for s in self._train_fields._steps],
            "chars": {str(c): r for c, r in char_table().items()},
            "kernel": kernel_chars(),
            "exact": prefilter_exact(list(self.index.exact_keys), self.train_format),
        }

    def merge_partial(self, part: dict, file: int, record_offset: int = 0, chars: int = 0) -> None:
        """Merge the result of a scan of one training file or byte range (done elsewhere:
        another process or a Ray task; see :meth:`TrainingScan.merge`), in any order.

        Args:
            part: a :meth:`TrainingScan.partial`; its ``records`` are added to the total.
            file: the part's 0-based training file; record_offset: records of that file
                before the part; chars: characters of text the part decoded.
        """
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before merge")
        self.scan.merge(part, file, record_offset)
        self._records_merged += part["records"]
        self.training_chars += chars

    def finish(
        self,
        eval_file: InputFile,
        train_file,
        utc: str,
        assets: dict | None = None,
        runtime: str = "",
        environment: dict | None = None,
    ) -> ContaminationResult:
        """Close the training pass, score every eval row, build the stamp and the result.

        Args:
            eval_file: the eval file's name, sha256 and byte count.
            train_file: the training file's, or a list of them (a corpus: file indexes as in
                :meth:`merge_partial`); the stamp lists every one.
            utc: ISO-8601 UTC time of the run (the driver reads the clock).
            assets: runtime asset versions for the stamp.
            runtime: e.g. "CPython 3.11.7" or "Pyodide 314.0.7".
            environment: how the page ran (RunStamp.environment); None in the CLI.
        Returns:
            The frozen :class:`evalsieve.results.ContaminationResult` (also kept as
            :attr:`result`); its ``summary`` is what the CLI prints with ``--json``.
        """
        self.end_train()
        train_files = list(train_file) if isinstance(train_file, (list, tuple)) else [train_file]
        self.scan.file_names = [f.name for f in train_files]
        self.train_files = train_files
        c = self.config
        if self.semantic is not None and not self._cosines_set:
            raise bad_input(
                "the semantic rung has no cosines",
                expected="semantic_request() and set_semantic_cosines() before finish",
            )
        self.scores, self.cutoff = containment_scores(
            self.index,
            self.scan,
            boilerplate=c.boilerplate,
            threshold=c.threshold,
            row_numbers=self._eval_numbers,
        )
        # the ladder's verdict, in one place: every export and view reads status and rung
        ex = self.scan.exact
        self._caught = caught_rungs(
            [i in ex for i in range(len(self.scores))],
            [r.ngram_status for r in self.scores],
            [m.caught for m in self.semantic.matches] if self.semantic is not None else None,
        )
        self.rung = apply_ladder(self.scores, self._caught)
        settings = c.settings()
        settings.update(
            {
                "n": self.index.n,
                "n_how": self.index.n_how,
                "boilerplate_cutoff": (
                    f"> {self.cutoff} training records" if c.boilerplate else "off"
                ),
            }
        )
        if self.semantic is not None:
            f = self.semantic.figures()
            settings.update(
                {
                    "semantic_window_words": f["window_words"],
                    "semantic_window_how": f["window_how"],
                    "semantic_stride_words": (f["window_words"] + 1) // 2,
                    "semantic_idf_background": f["idf_background"],
                }
            )
        if c.skip_bad_lines:
            settings["skipped_lines"] = self.skipped_counts()
        inputs = (eval_file, *train_files)
        if self.score_run is not None:
            settings.update(self.score_run.settings())
            inputs += (self.score_run.file,)
        self.stamp = RunStamp(
            "contamination",
            settings,
            inputs,
            utc,
            dict(assets or {}),
            runtime,
            dict(environment or {}),
        )
        s = self.scores
        scored = [r for r in s if r.scored]
        dirty = [r for r in s if r.status == "contaminated"]  # caught by any rung
        warnings = []
        worded = [r for r in s if r.ngram_status != "empty"]
        short = [r for r in worded if not r.scored and r.ngram_status != "boilerplate_only"]
        if mostly_too_short(len(short), len(worded)):
            warnings.append(
                f"{len(short)} of {len(worded)} eval rows with words are too short "
                f"to score at N = {self.index.n}: choose a longer field or a "
                "smaller N (--n)"
            )
        self.summary = {
            "n": self.index.n,
            "n_how": self.index.n_how,
            "rows_scanned": len(s),
            "rows_scored": len(scored),
            "rows_too_short": len(s) - len(scored),
            "rows_boilerplate_only": sum(1 for r in s if r.ngram_status == "boilerplate_only"),
            "rows_contaminated": len(dirty),
            "rows_kept": len(
                kept_positions(self._caught, [r.scored for r in s], c.excluded, c.clean)
            ),
            "training_records": self.scan.records,
            "training_bytes": sum(f.bytes for f in train_files),
            "training_files": len(train_files),
            "training_chars": self.training_chars,
            "eval_ngrams": len(self.index.ngrams),
            "ngrams_boilerplate": (
                sum(1 for x in self.scan.counts if x > self.cutoff) if self.cutoff else 0
            ),
            "boilerplate_cutoff": self.cutoff,
            "threshold": c.threshold,
            "clean_file": clean_name(self.eval_format),
            "clean_rule": CLEAN_RULES[c.clean],
            "warnings": warnings,
            "rows_contaminated_by_rung": {
                k: (sum(1 for x in self.rung if x == k) if k in c.rungs else None) for k in RUNGS
            },
            "rungs": list(c.rungs),
            "clean_file_excludes": list(c.excluded),
            "stamp": self.stamp.to_dict(),
        }
        if c.skip_bad_lines:
            self.summary["skipped_lines"] = self.skipped_counts()
            # the eval file's own (file -1): a training file may share its name
            self.summary["rows_skipped"] = sum(1 for t in self._skipped if t[0] < 0)
        if self.semantic is not None:
            self.summary["semantic"] = self.semantic.figures()
        if self.score_run is not None:
            self._score_impact()
        self.result = self._result()
        return self.result

    def _result(self) -> ContaminationResult:
        """The finished run as a frozen result (the exports read nothing else)."""
        sem = self.semantic
        r = self._eval_reader
        return ContaminationResult(
            summary=self.summary,
            run_stamp=self.stamp,
            config=self.config,
            eval_name=self.eval_name,
            eval_format=self.eval_format,
            train_name=self.train_name,
            train_names=tuple(self.scan.file_names),
            n=self.index.n,
            cutoff=self.cutoff,
            scores=tuple(self.scores),
            caught=tuple(self._caught),
            rungs=tuple(self.rung),
            semantic=None if sem is None else tuple(sem.matches),
            eval_segments=tuple(tuple(x) for x in self._eval_segments),
            eval_numbers=tuple(self._eval_numbers),
            eval_raw=tuple(self._eval_raw),
            eval_header_raw=r.header_raw,
            eval_cr=r.cr,
            eval_bom=r.bom,
            exact=self.scan.exact,
            sources=self.scan.sources,
            train_meta=self.train_meta,
            skipped=tuple(self.skipped),
            score_run=self.score_run,
            ngrams=tuple(self.index.ngrams),
            row_ngram_ids=tuple(row.ngram_ids for row in self.index.rows),
            ngram_found=self.scan.counts,
        )

    # -- the ladder: close the training pass, the semantic rung's encoder round trip --------
    def end_train(self) -> None:
        """Close the training file (idempotent): the last records go through every scan."""
        if self.scan is None:
            raise bad_input("the eval pass has not ended", expected="end_eval before finish")
        if self._train_closed:
            return
        self._scan_records(self._train_reader.finish())
        self._note_header()
        if self._batch:
            self._scan_batch(self._batch)
            self._batch.clear()
        self.scan.records = (
            max(self._train_reader.records_read, self._records_external)
            + self._records_merged
            + self._train_readers_done
        )
        self._take_train_skips()
        self._train_closed = True

    def semantic_request(self) -> dict:
        """Close the training pass; the texts the encoder must embed for the semantic rung.

        Returns:
            ``{"eval_texts", "window_texts", "pairs"}`` (see :meth:`SemanticScan.request`).
        Raises:
            EvalsieveError(bad_input): the semantic rung is off, or the eval pass is open.
        """
        if self.semantic is None:
            raise bad_input(
                "the semantic rung is off", expected="ContaminationConfig(semantic=...)"
            )
        self.end_train()
        return self.semantic.request()

    def set_semantic_cosines(self, cosines: list[float], assets: dict | None = None) -> None:
        """Give the cosine of every requested (row, window) pair; runs the verifier.

        Args:
            cosines: one per pair of :meth:`semantic_request`, in its order (unit vectors'
                dot products from the same encoder for rows and windows).
            assets: unused; the encoder's versions go to :meth:`finish`'s ``assets``.
        Raises:
            EvalsieveError(bad_input): wrong count, or no request was made.
        """
        if self.semantic is None:
            raise bad_input(
                "the semantic rung is off", expected="ContaminationConfig(semantic=...)"
            )
        self.semantic.verify(cosines)
        self._cosines_set = True
