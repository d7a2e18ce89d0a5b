"""Purify in the page: the bridge's ``purify.*`` ops, with the CLI's own rewriting code.

The worker (worker/jobs/purify.js) reads the training file as the CLI does, in passes, and
hands Python JSON and bytes only (no proxies):

1. **scan**: the contamination job's training pass (``cont.start`` ... ``cont.finish``, the
   prefilter in front), with ``purify.begin`` after ``cont.end_eval`` so that the scan lists
   each record holding an eval n-gram (``TrainingScan.hits``);
2. ``purify.plan``: the counted n-grams (:func:`purify.counted_ngrams`) and the records to
   change, picked as :func:`purify_run.purify` picks them, and the walker the CLI uses for
   that format (:class:`purify_shards._LineShard` / ``_ReaderShard``) writing into memory;
3. **write**: every line-aligned block of the file (inflated, BOM included) goes through
   ``purify.feed``; the answer is ``{"same": true}`` when the block comes out as it went in
   (the worker writes its own bytes), else ``{"b64": ...}``, the bytes to write (a gzip
   output is compressed here, as the CLI compresses it: ``mtime`` 0, level 6).
   ``purify.end`` closes the file (its last bytes, the record-count check, the input's
   sha256 against the scan's). A file without a record to change is copied by the worker
   as stored (``plan.copy``), as the CLI copies it;
4. **self-check**: ``purify.check`` gives, for ``full``, the handle of an
   :class:`OutputScan` that the worker feeds the written file through the same training
   pass ops (``cont.prefilter_spec``, ``cont.feed_candidates``, ``cont.feed_train``);
   ``changed`` needs no pass. ``purify.finish`` gives the verdict (a row it was asked to
   clean still contaminated is an internal error), the report, the summary and the stamp,
   built by :mod:`purify_report` as the CLI builds them.

Standard library only (runs in Pyodide: no threads, nothing read from disk).
"""

from __future__ import annotations

import base64
import gzip
import hashlib

from .errors import EvalsieveError, bad_input
from .fields import FieldExtractor
from .ngrams import TrainingScan
from .purify_core import (
    SELF_CHECKS,
    PurifyConfig,
    boilerplate_ids,
    counted_ngrams,
    still_contaminated,
)
from .purify_report import (
    check_verdict,
    export_texts,
    figures,
    outputs,
    purify_settings,
    report_rows,
    rescan_changed,
)
from .purify_shards import ShardTask, _LineShard, _ReaderShard, _result
from .records import RecordReader, parse_record_line
from .stamps import InputFile, RunStamp

_MIME = {"csv": "text/csv", "json": "application/json"}


class _Stored:
    """The output's bytes as stored (compressed for gzip), hashed and counted; the ones
    written since the last :meth:`take`."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.h = hashlib.sha256()
        self.bytes = 0

    def write(self, data) -> int:
        b = bytes(data)
        if b:
            self.parts.append(b)
            self.h.update(b)
            self.bytes += len(b)
        return len(b)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        out = b"".join(self.parts)
        self.parts.clear()
        return out


class MemoryOutput:
    """:class:`purify_shards.AtomicOutput`'s twin in memory: text bytes in (gzip-compressed
    on the way with ``compress``, with the CLI's settings), stored bytes taken out."""

    def __init__(self, compress: bool):
        self.compress = compress
        self.stored = _Stored()
        self.gz = None

    def write(self, data) -> None:
        if not self.compress:
            self.stored.write(data)
            return
        if self.gz is None:
            self.gz = gzip.GzipFile(
                filename="", mode="wb", fileobj=self.stored, mtime=0, compresslevel=6
            )
        self.gz.write(data)

    def close(self) -> None:
        """The end of the output (a gzip member's trailer; an empty member when nothing was
        written, as AtomicOutput.commit)."""
        if self.compress and self.gz is None:
            self.write(b"")
        if self.gz is not None:
            self.gz.close()

    @property
    def sha256(self) -> str:
        return self.stored.h.hexdigest()


class PagePurify:
    """One purify run of the page, after the scan: its plan, its walker, its exports.

    Args:
        job: the finished :class:`ContaminationJob` whose scan kept its hits (``purify.begin``).
        args: ``purify.plan``'s: ``{mode, radius, min_piece, max_splits, rows, self_check,
            train: {name, format, fields, gzip, bytes, sha256}, eval: {name, format, sha256,
            bytes}, utc, assets, environment}``.
        runtime: where Python runs (the stamp's ``runtime``).
    Raises:
        EvalsieveError(bad_input): a bad setting (:class:`PurifyConfig`), a Parquet training
        file, or a scan that did not keep its hits.
    """

    def __init__(self, job, args: dict, runtime: str):
        self.config = PurifyConfig(
            args.get("mode", "cut"),
            args.get("radius", 200),
            args.get("min_piece", 200),
            args.get("max_splits", 10),
            args.get("rows", "scored"),
        )
        self.self_check = args.get("self_check", SELF_CHECKS[0])
        if self.self_check not in SELF_CHECKS:
            raise bad_input(
                f"unknown self-check {self.self_check!r}", expected=" or ".join(SELF_CHECKS)
            )
        tr, ev = args["train"], args["eval"]
        if tr["format"] == "parquet":
            raise bad_input(
                "the page does not purify Parquet training files",
                file=tr["name"],
                expected="JSONL, CSV, TSV or text (.gz works); for Parquet: evalsieve purify",
            )
        if job.scan is None or job.scan.hits is None or job.summary is None:
            raise bad_input(
                "the scan did not list its records",
                expected="purify.begin after cont.end_eval, then the training pass and cont.finish",
            )
        self.job, index = job, job.index
        self.bp = boilerplate_ids(job.scan.counts, job.cutoff)
        self.counted, self.rows_of = counted_ngrams(index, job.scores, self.bp, self.config.rows)
        targets = tuple(
            (r, tuple(g)) for r, g in sorted(job.scan.hits) if self.counted.intersection(g)
        )
        job.scan.hits = None  # (the record list is in the targets now)
        self.name, self.gzip = tr["name"], bool(tr.get("gzip"))
        self.task = ShardTask(
            0,
            "",
            self.name,
            tr["format"],
            tuple(tr["fields"]),
            self.gzip,
            int(tr["bytes"]),
            "",
            targets,
            job.scan.records,
            tr.get("sha256") or "",
        )
        self.out = MemoryOutput(self.gzip)
        self.copy = not targets
        walker = _LineShard if tr["format"] in ("jsonl", "text") else _ReaderShard
        payload = {"index": index, "counted": self.counted, "config": self.config}
        self.walker = None if self.copy else walker(payload, self.task, self.out, hashed=False)
        self.result: dict | None = None
        self.settings = purify_settings(
            job.config.settings(),
            index,
            job.config.boilerplate,
            job.cutoff,
            self.config,
            self.self_check,
        )
        self.eval_file = InputFile(
            "eval",
            ev["name"],
            ev.get("sha256") or "",
            int(ev.get("bytes", 0)),
            ev.get("format", job.eval_format),
        )
        self.train_format = tr["format"] + ("+gzip" if self.gzip else "")
        self.utc, self.runtime = args.get("utc", ""), runtime
        self.assets, self.environment = args.get("assets") or {}, args.get("environment") or {}
        train = InputFile("train", self.name, self.task.sha256, self.task.size, self.train_format)
        self.fingerprint = self._stamp(train).to_dict()["fingerprint"]

    def _stamp(self, train: InputFile) -> RunStamp:
        return RunStamp(
            "purify",
            self.settings,
            (self.eval_file, train),
            self.utc,
            self.assets,
            self.runtime,
            self.environment,
        )

    def plan(self) -> dict:
        """``purify.plan``'s value: what the write pass does."""
        return {
            "copy": self.copy,
            "records_to_change": len(self.task.targets),
            "ngrams_counted": len(self.counted),
            "ngrams_boilerplate": len(self.bp),
            "records": self.task.records,
            "fingerprint": self.fingerprint,
        }

    def feed(self, data: bytes) -> dict:
        """One block of the training file (inflated; the file's BOM at the start of the
        first): ``{"same": true}`` or ``{"b64": the bytes to write}``."""
        if self.walker is None or self.result is not None:
            raise EvalsieveError(
                "internal", "purify.feed without a write pass open", file=self.name
            )
        self.walker.feed(data)
        out = self.out.stored.take()
        if not self.gzip and out == data:
            return {"same": True}
        return {"b64": base64.b64encode(out).decode("ascii")}

    def end(self, sha256: str) -> dict:
        """The write pass has read the whole file, whose raw bytes have ``sha256``.

        Returns:
            ``{b64, records, records_out, cut, dropped, out_sha256, out_bytes}``: the last
            bytes to write and the file's figures.
        Raises:
            EvalsieveError(bad_input): the file is not the one the scan read (its sha256, or
            its records, differ).
        """
        if self.result is not None:
            raise EvalsieveError("internal", "purify.end called twice", file=self.name)
        if self.task.sha256 and sha256 != self.task.sha256:
            raise bad_input(
                "the training file changed between the scan and the write pass "
                "(its sha256 differs)",
                file=self.name,
                expected="a file that stays the same during the run",
            )
        if self.copy:
            res = _result(self.task.sha256, self.task.records, [])
            out_sha, out_bytes, tail = self.task.sha256, self.task.size, b""
        else:
            res = self.walker.end()
            self.out.close()
            tail = self.out.stored.take()
            out_sha, out_bytes = self.out.sha256, self.out.stored.bytes
        res.update(
            {
                "file": 0,
                "part": 0,
                "bytes": self.task.size,
                "out_sha256": out_sha,
                "out_bytes": out_bytes,
            }
        )
        self.result = res
        return {
            "b64": base64.b64encode(tail).decode("ascii"),
            **{
                k: res[k]
                for k in ("records", "records_out", "cut", "dropped", "out_sha256", "out_bytes")
            },
        }

    def output_scan(self) -> OutputScan:
        """The full self-check's scan of the written file."""
        fmt = self.task.fmt
        return OutputScan(self.job, fmt, list(self.task.fields), self.name)

    def finish(self, scan: OutputScan | None) -> dict:
        """The self-check's verdict and the exports.

        Args:
            scan: the full self-check's :class:`OutputScan`, fed the whole output; None for
                ``changed``.
        Returns:
            ``{summary, stamp, exports: [{name, mime, text}]}`` (purify-report.csv,
            purify-summary.json, run-stamp.json).
        Raises:
            EvalsieveError(internal): a row it was asked to clean is still contaminated.
        """
        if self.result is None:
            raise EvalsieveError("internal", "purify.finish before purify.end", file=self.name)
        job, results = self.job, [self.result]
        if self.self_check == "full":
            if scan is None:
                raise EvalsieveError("internal", "the full self-check has no scan of the output")
            counts = scan.counts()
        else:
            counts = rescan_changed(job.index, job.scan.counts, results)
        check = still_contaminated(
            job.index, job.scores, counts, self.bp, job.config.threshold, self.config.rows
        )
        check_verdict(check)
        report = report_rows(self.fingerprint, [self.name], results, self.rows_of)
        train = InputFile(
            "train", self.name, self.result["sha256"], self.task.size, self.train_format
        )
        stamp = {**self._stamp(train).to_dict(), "outputs": outputs([self.name], results)}
        summary = {
            **figures(
                job,
                self.config,
                self.counted,
                self.bp,
                results,
                report,
                check,
                self.self_check,
                self.task.size,
            ),
            "engine": {"engine": "page"},
            "fingerprint": self.fingerprint,
        }
        exports = [
            {"name": name, "mime": _MIME[name.rsplit(".", 1)[1]], "text": text}
            for name, text in export_texts(report, summary, stamp)
        ]
        return {"summary": summary, "stamp": stamp, "exports": exports}


class OutputScan:
    """The full self-check's scan of the purified file: the n-gram rung over every record,
    fed by the contamination job's training-pass ops (the same prefilter spec: the output
    has the input's format and fields)."""

    def __init__(self, job, fmt: str, fields: list[str], name: str):
        self.job, self.fmt, self.name = job, fmt, name
        self.scan = TrainingScan(job.index)
        self.reader = RecordReader(fmt, name)
        self.seg = FieldExtractor(fmt, fields, name).segments
        self.batch: list[tuple[int, list[str]]] = []
        self.records = 0

    def prefilter_spec(self) -> dict | None:
        return self.job.prefilter_spec()

    def _add(self, rec: int, value) -> None:
        self.batch.append((rec, self.seg(value)))
        if len(self.batch) >= 2000:
            self.scan.scan(self.batch)
            self.batch = []

    def feed_train(self, text: str) -> int:
        for r in self.reader.feed(text):
            self._add(r.index, r.value)
        self.records = self.reader.records_read
        return self.records

    def feed_train_candidates(
        self,
        records: list[int],
        lines: list[int],
        text: str,
        records_total: int,
        chars: int,
        offsets: list[int] | None = None,
    ) -> int:
        """As ContaminationJob.feed_train_candidates; ``offsets`` (where each candidate's line
        starts) is not needed here: purify counts records, it does not trace them."""
        raws = text.split("\n") if records else []
        if len(raws) != len(records) or len(lines) != len(records):
            raise EvalsieveError("internal", f"{len(records)} candidates but {len(raws)} lines")
        for rec, ln, raw in zip(records, lines, raws):
            self._add(rec, parse_record_line(self.fmt, raw, self.name, ln))
        self.records = records_total
        return records_total

    def counts(self) -> list[int]:
        """Per n-gram id, the output's records holding it (the pass has ended)."""
        for r in self.reader.finish():
            self._add(r.index, r.value)
        if self.batch:
            self.scan.scan(self.batch)
            self.batch = []
        return self.scan.counts


def bridge_ops(job_of, register, runtime) -> dict:
    """The ``purify.*`` ops of :data:`bridge.OPS`.

    Args:
        job_of: ``args -> the object of args["handle"]`` (bridge._job); register: ``object ->
            a new handle``; runtime: ``() -> the runtime's name``.
    Returns:
        ``{op: fn(args, text[, data])}``; ``purify.feed`` takes ``data`` (the block's bytes).
    """

    def purify_of(args) -> PagePurify:
        p = job_of(args)
        if not isinstance(p, PagePurify):
            raise bad_input(
                f"handle {args.get('handle')!r} is not a purify run",
                expected="a handle from purify.plan",
            )
        return p

    def begin(args, text):
        job = job_of(args)
        if job.scan is None:
            raise bad_input("the eval pass has not ended", expected="cont.end_eval first")
        job.scan.hits = []  # the scan lists each record holding an eval n-gram
        return {}

    def plan(args, text):
        p = PagePurify(job_of(args), args, runtime())
        return {"handle": register(p), **p.plan()}

    def check(args, text):
        p = purify_of(args)
        if p.self_check != "full":
            return {"handle": None}
        return {"handle": register(p.output_scan())}

    def finish(args, text):
        p = purify_of(args)
        scan = job_of({"handle": args["check"]}) if args.get("check") is not None else None
        if scan is not None and not isinstance(scan, OutputScan):
            raise bad_input("check is not a self-check scan", expected="a handle from purify.check")
        return p.finish(scan)

    return {
        "purify.begin": begin,
        "purify.plan": plan,
        "purify.feed": lambda args, text, data=None: purify_of(args).feed(bytes(data or b"")),
        "purify.end": lambda args, text: purify_of(args).end(args.get("sha256") or ""),
        "purify.check": check,
        "purify.finish": finish,
    }
