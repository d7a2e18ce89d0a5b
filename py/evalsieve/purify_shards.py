"""Write one purified training shard: the CLI side of purify (reads and writes files).

:func:`purify_shard` is one task: it streams one training file, copies every untouched
record's bytes as they are, rewrites or leaves out the records the scan found holding a
counted n-gram (:func:`purify.plan_record`, :class:`purify_records.RecordRewriter`), and
writes the output atomically (a temporary name beside the output, then a rename). It is a
pure function of its inputs and the file, so a retry (Ray) or a rerun writes the same bytes.

* A shard with no record to change is copied byte for byte (gzip included).
* JSON Lines and text (``\\n`` line ends): the bytes are walked line by line only in the
  blocks that hold a record to change; elsewhere a block is written as it is and its
  records counted (lines minus blank lines, as the reader counts them).
* CSV/TSV and lone-CR files: every line goes through :class:`records.RecordReader`; the
  lines between records (the header, blank lines) are written as they were.
* Parquet (pyarrow): row group by row group with the file's schema, metadata and
  compression; a row group without a record to change is written unchanged in value (a
  Parquet file cannot be copied row by row as bytes; a file without a change is copied).
* gzip in, gzip out (``mtime`` 0, no file name: the same input gives the same bytes).

Checks (an error, never a silent misparse): each record to change must hold exactly the eval
n-grams the scan found in it, and the file must have as many records as the scan counted.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import queue
import re
import threading
import uuid
from dataclasses import dataclass

from .corpus import CHUNK_BYTES, Task, _raw_blocks, is_url, open_binary
from .errors import EvalsieveError, bad_input
from .purify_core import plan_record
from .purify_records import RecordRewriter
from .records import RecordReader

_SUSPECT = re.compile(rb"\n(?=[\x00-\x20\x80-\xff])")  # a line that may be blank
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class ShardTask:
    """One training file to purify.

    Attributes:
        file: the file's 0-based place in the corpus; path, name, fmt, fields, gzip, size:
            as in :class:`corpus.Task`.
        out: where the purified file goes (a local path or an fsspec URL).
        targets: ``((record, found ids), ...)``, ascending record numbers: the records the
            scan found holding a counted n-gram, with every eval n-gram id it found in each.
        records: records the scan counted in the file.
        sha256: the file's sha256 as the scan hashed it ("" when it did not).
        mtime_ns: the local file's modification time when the run began (None for a URL).
            With ``sha256``, a file whose size and time are unchanged is not hashed again
            (its bytes are the ones the scan hashed); else it is, and compared.
    """

    file: int
    path: str
    name: str
    fmt: str
    fields: tuple
    gzip: bool
    size: int
    out: str
    targets: tuple
    records: int
    sha256: str = ""
    mtime_ns: int | None = None


# -- writing ------------------------------------------------------------------------------------
class HashThread:
    """sha256 of bytes handed over in order, computed on a thread of its own (hashlib lets
    go of the GIL for large updates, so hashing the input and the output overlaps the
    walk). The blocks must not change after :meth:`update` (bytes, or views of bytes)."""

    def __init__(self):
        self._h = hashlib.sha256()
        self._q: queue.Queue = queue.Queue(maxsize=16)
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        self._digest = None

    def _run(self) -> None:
        while True:
            b = self._q.get()
            if b is None:
                return
            self._h.update(b)

    def update(self, data) -> None:
        if len(data):
            self._q.put(data)

    def hexdigest(self) -> str:
        """The digest (ends the thread; later calls give the same)."""
        if self._digest is None:
            self._q.put(None)
            self._t.join()
            self._digest = self._h.hexdigest()
        return self._digest


class _Sink:
    """The temporary file's bytes, hashed and counted as they are written."""

    def __init__(self, raw):
        self.raw, self.h, self.bytes = raw, HashThread(), 0
        self.known = ""  # the sha256 of a verbatim copy: the input's

    def write(self, data) -> int:
        if not self.known:
            self.h.update(data)
        self.bytes += len(data)
        return self.raw.write(data)

    def flush(self) -> None:
        pass


class AtomicOutput:
    """A file written under a temporary name beside ``path`` and renamed on :meth:`commit`
    (local: ``os.replace``; fsspec URL: ``fs.mv``). ``sha256`` and ``bytes`` describe the
    file as stored (compressed with ``compress``: gzip, ``mtime`` 0, no name, level 6).
    :meth:`abort` removes the temporary file."""

    def __init__(self, path: str, compress: bool = False):
        self.path, self.compress = path, compress
        head, tail = path.rsplit("/", 1) if "/" in path else ("", path)
        self.tmp = (head + "/" if head else "") + f".{tail}.purify-tmp-{uuid.uuid4().hex[:12]}"
        if is_url(path):
            from .corpus import _fsspec

            self.fs, _ = _fsspec(path).core.url_to_fs(path)
            self.fs.makedirs(head, exist_ok=True)
            raw = self.fs.open(self.tmp, "wb")
        else:
            self.fs = None
            if head:
                os.makedirs(head, exist_ok=True)
            raw = open(self.tmp, "wb")
        self.sink = _Sink(raw)
        self.gz = None

    def write(self, data) -> None:
        """Write text bytes (gzip-compressed on the way when the output is gzip)."""
        if self.compress:
            if self.gz is None:
                self.gz = gzip.GzipFile(
                    filename="", mode="wb", fileobj=self.sink, mtime=0, compresslevel=6
                )
            self.gz.write(data)
        else:
            self.sink.write(data)

    def write_stored(self, data) -> None:
        """Write bytes as the file stores them (a copy of a shard, gzip not inflated)."""
        self.compress = False
        self.sink.write(data)

    def commit(self) -> None:
        """Close and rename to the final name."""
        if self.compress and self.gz is None:  # nothing was written: an empty gzip member
            self.write(b"")
        if self.gz is not None:
            self.gz.close()
        self.sink.raw.close()
        if self.fs is not None:
            self.fs.mv(self.tmp, self.path)
        else:
            os.replace(self.tmp, self.path)

    def abort(self) -> None:
        """Remove the temporary file (after an error)."""
        self.sink.h.hexdigest()  # (ends the hashing thread)
        try:
            self.sink.raw.close()
            if self.fs is not None:
                self.fs.rm(self.tmp)
            else:
                os.unlink(self.tmp)
        except OSError:
            pass

    @property
    def sha256(self) -> str:
        return self.sink.known or self.sink.h.hexdigest()

    @property
    def bytes(self) -> int:
        return self.sink.bytes


# -- one shard ----------------------------------------------------------------------------------
def purify_shard(payload: dict, task: ShardTask, progress=None) -> dict:
    """Purify one training file into ``task.out``.

    Args:
        payload: ``{"index": EvalIndex, "counted": frozenset of n-gram ids, "config":
            PurifyConfig}``.
        task: the file and its records to change.
        progress: optional ``callback(bytes_read)``.
    Returns:
        ``{file, part: 0, bytes, sha256, out_sha256, out_bytes, records, records_out, cut,
        dropped, rows: [per changed record: record, line, action, reason, splits, regions,
        chars_removed, ngrams, occurrences, found, segments_after]}``; ``segments_after`` is the
        changed record's field values as written (None when dropped), for the self-check.
    Raises:
        EvalsieveError(bad_input): an unreadable or changed file; (internal) a record that
        does not hold what the scan found in it.
    """
    _delay_hook()
    same = (
        task.sha256 and task.mtime_ns is not None and _stat(task.path) == (task.size, task.mtime_ns)
    )
    out = AtomicOutput(task.out, compress=task.gzip)
    walker = None
    try:
        if not task.targets:
            res = _copy(task, out, progress, task.sha256 if same else "")
        elif task.fmt == "parquet":
            from .purify_parquet import purify_parquet

            res = purify_parquet(payload, task, out, progress)
        else:
            walker = (_LineShard if task.fmt in ("jsonl", "text") else _ReaderShard)(
                payload, task, out, hashed=not same
            )
            res = walker.run(progress)
        if (same and _stat(task.path) != (task.size, task.mtime_ns)) or (
            task.sha256 and res["sha256"] != task.sha256
        ):
            raise bad_input(
                "the file changed during the run (its size, time or sha256 differ from the scan's)",
                file=task.name,
                expected="a file that stays the same",
            )
        out.commit()
    except BaseException:
        if walker is not None and walker.h is not None:
            walker.h.hexdigest()  # (ends its hashing thread)
        out.abort()
        raise
    res.update(
        {
            "file": task.file,
            "part": 0,
            "bytes": task.size,
            "out_sha256": out.sha256,
            "out_bytes": out.bytes,
        }
    )
    return res


# in a killed worker's message (engines.pass_name)
purify_shard.pass_name, purify_shard.pass_verb = "purify's copy of the corpus", "copied"


def _result(sha: str, records: int, rows: list) -> dict:
    dropped = sum(1 for r in rows if r["action"] == "dropped")
    return {
        "sha256": sha,
        "records": records,
        "records_out": records - dropped,
        "cut": len(rows) - dropped,
        "dropped": dropped,
        "rows": rows,
    }


def _stat(path: str) -> tuple | None:
    """(size, mtime_ns) of a local file (None for a URL or a missing file)."""
    if is_url(path):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _copy(task: ShardTask, out: AtomicOutput, progress, known: str = "") -> dict:
    """A shard without a record to change: its bytes as they are (gzip not inflated); the
    output's sha256 is the input's (``known``: the scan's, for a file unchanged since)."""
    out.sink.known = known
    with open_binary(task.path) as f:
        while True:
            block = f.read(CHUNK_BYTES)
            if not block:
                break
            out.write_stored(block)
            if progress:
                progress(len(block))
    return _result(out.sha256, task.records, [])


class _Shard:
    """What both text walkers share: the targets, the plan of a record, the report row."""

    def __init__(self, payload: dict, task: ShardTask, out: AtomicOutput, hashed: bool = True):
        self.index, self.counted = payload["index"], payload["counted"]
        self.config = payload["config"]
        self.task, self.out = task, out
        self.rw = RecordRewriter(task.fmt, list(task.fields), task.name)
        self.targets = iter(task.targets)
        self.next, self.want = next(self.targets, (None, None))
        self.rows: list[dict] = []
        self.rec = 0
        self.h = HashThread() if hashed else None  # else: the scan's sha256 stands

    def blocks(self, progress):
        whole = Task(
            self.task.file,
            0,
            self.task.path,
            self.task.name,
            self.task.fmt,
            self.task.fields,
            0,
            -1,
            self.task.gzip,
            self.task.size,
        )
        return _raw_blocks(whole, self.h, progress)

    def change(self, raw: str, line: int, value: dict, header=None) -> str | None:
        """The target record's new raw text (None: left out), and its report row."""
        segs = self.rw.segments(value)
        plan = plan_record(segs, self.index, self.counted, self.config)
        if plan.found != set(self.want) or not plan.action:
            raise EvalsieveError(
                "internal",
                f"record {self.rec} does not hold the eval n-grams the scan found "
                "in it (did the file change during the run?)",
                file=self.task.name,
                line=line,
            )
        new = None
        if plan.action == "cut":
            new = self.rw.rewrite(raw, segs, plan.values, header)
            if new is None:
                plan.action, plan.reason = "dropped", "a matched value is not a string"
                plan.chars_removed = sum(len(s) for s in segs)
        self.rows.append(
            {
                "record": self.rec,
                "line": line,
                "action": plan.action,
                "reason": plan.reason,
                "splits": plan.splits,
                "regions": plan.regions,
                "matched": plan.matched,
                "chars_removed": plan.chars_removed,
                "ngrams": plan.ngrams,
                "occurrences": plan.occurrences,
                "found": sorted(plan.found),
                "segments_after": None
                if new is None
                else [s if v is None else v for s, v in zip(segs, plan.values)],
            }
        )
        self.next, self.want = next(self.targets, (None, None))
        return new

    def finish(self) -> dict:
        if self.next is not None:
            raise EvalsieveError(
                "internal",
                f"record {self.next} was not found (the file has {self.rec} records)",
                file=self.task.name,
            )
        if self.rec != self.task.records:
            raise bad_input(
                f"the file has {self.rec} records but the scan counted "
                f"{self.task.records} (it changed during the run?)",
                file=self.task.name,
                expected="a file that stays the same",
            )
        sha = self.h.hexdigest() if self.h is not None else self.task.sha256
        return _result(sha, self.rec, self.rows)


def _decode(b: bytes, name: str, line: int) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_input("invalid UTF-8", file=name, line=line, expected="UTF-8 text") from None


class _LineShard(_Shard):
    """JSON Lines / text with ``\\n`` line ends: one record per non-blank line. The file's
    bytes come in by :meth:`feed` (blocks in order, cut anywhere), then :meth:`end`;
    :meth:`run` feeds it the file (the page feeds the blocks it reads)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.line = 0  # lines before the current block
        self.first = True  # at the file's first byte (a BOM is not part of line 1)
        self.carry = b""  # a line not ended yet

    def run(self, progress) -> dict:
        for data in self.blocks(progress):
            self.feed(data)
        return self.end()

    def feed(self, data: bytes) -> None:
        """The next block of the file's bytes (inflated, BOM included)."""
        if self.carry:
            data = self.carry + data
        cut = data.rfind(b"\n") + 1
        self.carry = data[cut:] if cut < len(data) else b""
        if cut:
            self._block(data, cut)

    def end(self) -> dict:
        """The file has ended: its last line, the checks; the shard's result."""
        if self.carry:
            self._block(self.carry, len(self.carry))
            self.carry = b""
        return self.finish()

    def _records_in(self, data: bytes, end: int, lines: int) -> int:
        """Records in the whole lines ``data[:end]`` (``lines`` of them; the last may lack
        its ``\\n``): the lines less the blank ones (only a line starting with white space
        or a non-ASCII byte can be blank)."""
        blank = 0
        starts = [m.end() for m in _SUSPECT.finditer(data, 0, end)]
        if data[0] <= 0x20 or data[0] >= 0x80:
            starts.insert(0, 0)
        for a in starts:
            b = data.find(b"\n", a, end)
            blank += self._blank(data[a : end if b < 0 else b], a == 0)
        return lines - blank

    def _blank(self, line: bytes, at_block_start: bool) -> bool:
        if at_block_start and self.first and line.startswith(_BOM):
            line = line[3:]
        s = line.strip(b" \t\r\x0b\x0c")
        if not s:
            return True
        if 0x20 < s[0] < 0x7F:
            return False
        return not _decode(line, self.task.name, self.line + 1).strip()

    def _block(self, data: bytes, size: int) -> None:
        """The whole lines ``data[:size]``: written as they are, or walked line by line
        when they hold the next record to change."""
        ends = data.count(b"\n", 0, size)
        n = self._records_in(data, size, ends + (0 if data[size - 1] == 0x0A else 1))
        view = memoryview(data)
        if self.next is None or self.rec + n < self.next:
            self.out.write(view[:size])
            self.rec += n
            self.line += ends
            self.first = False
            return
        at = start = 0  # start: the first byte not yet written
        while at < size:
            end = data.find(b"\n", at, size)
            end = size if end < 0 else end + 1
            self.line += 1
            if not self._blank(data[at:end].rstrip(b"\n"), at == 0):
                self.rec += 1
                if self.rec == self.next:
                    self.out.write(view[start:at])
                    line = data[at:end]
                    bom = self.first and at == 0 and line.startswith(_BOM)
                    raw = _decode(line[3:] if bom else line, self.task.name, self.line)
                    new = self.change(raw, self.line, self.rw.parse_line(raw, self.line))
                    # the BOM belongs to the file, not to its first record: it stays
                    self.out.write(
                        (_BOM if bom else b"") + (b"" if new is None else new.encode("utf-8"))
                    )
                    start = end
            at = end
            self.first = False
        self.out.write(view[start:size])


class _LinesKept(RecordReader):
    """A RecordReader that also keeps every physical line it splits, in order."""

    def __init__(self, fmt: str, name: str):
        super().__init__(fmt, name)
        self.kept: list[str] = []

    def _lines(self, lines):
        self.kept.extend(lines)
        return super()._lines(lines)


class _ReaderShard(_Shard):
    """CSV/TSV and lone-CR files: records from the reader, the other lines as they were."""

    def __init__(self, *args, **kwargs):
        import codecs

        super().__init__(*args, **kwargs)
        self.dec = codecs.getincrementaldecoder("utf-8")("strict")
        self.reader = _LinesKept(self.task.fmt, self.task.name)
        self.base = 1  # line number of reader.kept[0]
        self.first = True

    def run(self, progress) -> dict:
        for data in self.blocks(progress):
            self.feed(data)
        return self.end()

    def feed(self, data: bytes) -> None:
        """The next block of the file's bytes (inflated, BOM included), cut anywhere."""
        if self.first and data:
            if data.startswith(_BOM):
                self.out.write(_BOM)
                data = data[3:]
            self.first = False
        try:
            text = self.dec.decode(data)
        except UnicodeDecodeError:
            raise bad_input("invalid UTF-8", file=self.task.name, expected="UTF-8 text") from None
        self._emit(self.reader.feed(text))

    def end(self) -> dict:
        """The file has ended: its last records, the checks; the shard's result."""
        self._emit(self.reader.finish())
        self._flush(self.base + len(self.reader.kept))
        self.rec = self.reader.records_read
        return self.finish()

    def _flush(self, upto: int) -> None:
        """Write the kept lines before line ``upto`` as they were."""
        k = upto - self.base
        if k > 0:
            self.out.write("".join(self.reader.kept[:k]).encode("utf-8"))
            del self.reader.kept[:k]
            self.base = upto

    def _emit(self, records) -> None:
        for r in records:
            self._flush(r.line)
            kept, size, k = self.reader.kept, 0, 0
            while size < len(r.raw):  # the record's own lines
                size += len(kept[k])
                k += 1
            self.rec = r.index
            if r.index == self.next:
                new = self.change(r.raw, r.line, r.value, self.reader.header)
                del kept[:k]
                self.base += k
                if new is not None:
                    self.out.write(new.encode("utf-8"))
            else:
                self._flush(r.line + k)


def _delay_hook() -> None:
    """For the resume test: ``EVALSIEVE_SHARD_DELAY_S=S`` makes every shard task wait S
    seconds first (so a test can kill a run between two shards whatever the machine)."""
    delay = os.environ.get("EVALSIEVE_SHARD_DELAY_S")
    if delay:
        import time

        time.sleep(float(delay))
