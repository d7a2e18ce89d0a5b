"""The training pass behind the page's prefilter, and where a first-matching training record
came from: its byte offset, length and id.

A mixin of :class:`evalsieve.contamination_job.ContaminationJob`: the training scan
(:class:`evalsieve.ngrams.TrainingScan`) keeps one source per record that becomes the first
holder of an n-gram or an exact copy; the page opens the record with ``File.slice`` from it
(:func:`evalsieve.cont_table.open_record`).
"""

from __future__ import annotations

from .decoding import SKIPPING
from .errors import EvalsieveError, bad_input
from .records import Record, parse_record_line, skip_text


class TrainSources:
    """``_source`` (the scan's callable), ``source_of`` and the per-file metadata
    ``train_meta`` (``{file: (name, format, fields, CSV/TSV header or None)}``),
    ``feed_train_candidates`` (worker/prefilter.js's candidates, with their byte offsets),
    and the bookkeeping of skipped records (``add_skipped``, ``skipped``)."""

    def _take_train_skips(self) -> None:
        """The current training reader's skipped records, into the run's list."""
        r = self._train_reader
        self.add_skipped(max(self._train_next - 1, 0), r.name, r.skipped)
        r.skipped = []

    def add_skipped(self, file: int, name: str, lines) -> None:
        """Note skipped records of training file ``file`` (0-based; ``name``): ``lines`` are
        ``(line, error)`` pairs (the CLI's tasks and the page's prefiltered pass report them
        here; records this job's own readers skip are noted by the job)."""
        self._skipped += [(file, name, ln, m) for ln, m in lines]

    @property
    def skipped(self) -> list[tuple[str, int, str]]:
        """``(file, line, error)`` of every skipped record: the eval file's first, then each
        training file's in corpus order, lines ascending (the rows of skipped-lines.csv)."""
        return [(n, ln, m) for _, n, ln, m in sorted(self._skipped, key=lambda t: (t[0], t[2]))]

    def skipped_counts(self) -> dict[str, int]:
        """Skipped records per file name, every input listed (0 when none was skipped)."""
        out = {self.eval_name: 0}
        out.update({f.name: 0 for f in self.train_files} or {self.train_name: 0})
        for name, _, _ in self.skipped:
            out[name] = out.get(name, 0) + 1
        return out

    def feed_train_candidates(
        self,
        records: list[int],
        lines: list[int],
        text: str,
        records_total: int,
        chars: int,
        offsets: list[int] | None = None,
    ) -> int:
        """Scan the candidate records the prefilter passed on; count the rest as read.

        Args:
            records, lines: 1-based record and line numbers of the candidates.
            offsets: the candidates' UTF-8 byte offsets in the file (after its BOM), or
                None (rows handed over as text: a Parquet file's).
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
        offs = offsets if offsets is not None and len(offsets) == len(records) else None
        for k, (rec, ln, raw) in enumerate(zip(records, lines, raws)):
            try:
                value = parse_record_line(self.train_format, raw, self.train_name, ln)
            except EvalsieveError as e:
                if not self.config.skip_bad_lines or e.code != "bad_input":
                    raise
                self.add_skipped(
                    max(self._train_next - 1, 0), self.train_name, [(ln, skip_text(e))]
                )
                continue  # the record keeps its number (the prefilter counted it)
            batch.append((rec, seg(value), Record(rec, ln, raw, value, offs[k] if offs else -1)))
            if len(batch) >= self.TRAIN_BATCH:
                self._scan_batch(batch)
                batch.clear()
        self.training_chars += chars
        self._records_external = records_total
        return records_total

    def _source(self, r: Record) -> list:
        """A first-matching training record's source (:attr:`TrainingScan.sources`):
        ``[byte offset in its file or -1, its UTF-8 bytes up to (not including) the "\\n"
        that ends it, its id or ""]``."""
        raw = r.raw[:-1] if r.raw.endswith("\n") else r.raw
        return [
            r.offset,
            len(raw.encode("utf-8", SKIPPING)) if r.offset >= 0 else 0,
            self._train_ids(r.value),
        ]

    def _note_header(self) -> None:
        """Keep the current training file's CSV/TSV header (to parse one of its records)."""
        f = max(self._train_next - 1, 0)
        if f in self.train_meta and self._train_reader.header is not None:
            self.train_meta[f] = self.train_meta[f][:3] + (list(self._train_reader.header),)

    def source_of(self, file: int, record: int) -> list:
        """The source of training record ``record`` (1-based) of file ``file`` (0-based):
        ``[offset, bytes, id]`` (``[-1, 0, ""]`` when unknown: not a first match)."""
        src = self.scan.sources.get((file, record)) if self.scan is not None else None
        return list(src) if src else [-1, 0, ""]
