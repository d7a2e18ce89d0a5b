"""A training corpus for the CLI: many files, read in parts, scanned anywhere.

CLI side only (it reads files; the page has its own reader). Standard library only, except
two optional extras imported lazily: fsspec (``[remote]``) for ``s3://``, ``gs://``,
``hf://``, ``https://`` ... inputs, and numpy (``[fast]``) for the candidate filter of
:mod:`evalsieve.fastscan`.

* :func:`expand_inputs` (in layouts.py, with the Hugging Face dataset layouts) turns TRAIN
  arguments (files, directories read recursively for the supported extensions only, globs,
  URLs) into an ordered list of files;
* :class:`FileSource` streams one file as UTF-8 text (gzip by magic bytes);
* :func:`plan_tasks` cuts the corpus into tasks: one per file, and large uncompressed
  JSONL/text files into byte ranges that start and end at line ends;
* :func:`scan_task` scans one task against the eval index and returns a
  :meth:`TrainingScan.partial` plus counts. It is a pure function of its inputs (idempotent:
  safe to retry), so the same code runs in this process, in a process pool or as a Ray task.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .layouts import (
    _GLOB,  # noqa: F401
    SUPPORTED,  # noqa: F401
    expand_inputs,  # noqa: F401
    is_url,  # noqa: F401 (re-exported)
    supported,  # noqa: F401
)
from .corpus_files import (  # noqa: F401  (named here as before)
    CHUNK_BYTES,
    HEAD_BYTES,
    HEAD_MAX_BYTES,
    FileSource,
    _Gunzip,
    _expand_url,
    _fsspec,
    open_binary,
    size_of,
)
from .decoding import SKIPPING, invalid_utf8
from .errors import EvalsieveError, bad_input
from .fault_hooks import TaskFault, fault_hook  # noqa: F401 (TaskFault: Ray retries it)
from .fields import FieldExtractor
from .ngrams import TrainingScan
from .readahead import read_ahead
from .record_id import IdReader
from .records import RecordReader, parse_record_line, refuse_binary, skip_text

FILTER_BYTES = 256 << 10  # the numpy filter's piece: its passes stay in the CPU's cache
SPLIT_MIN_BYTES = 16 << 20  # files larger than this may be cut into byte ranges


# -- tasks ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One unit of the training pass: a whole file, or a byte range of one.

    Attributes:
        file: 0-based index of the file in the corpus.
        part: 0-based index of the range within the file (0 for a whole file).
        path: local path or URL; name: how errors and the report name it.
        fmt: the file's format; fields: the training field paths.
        start, end: byte range [start, end) of the file; end = -1 means to its end. Ranges
            start right after a line end, so every record is inside exactly one range.
        gzip: the file is gzip (never split).
        size: the file's size in bytes (for progress).
        id_field: the records' id field ("" = none): each first match's id is kept.
    """

    file: int
    part: int
    path: str
    name: str
    fmt: str
    fields: tuple
    start: int
    end: int
    gzip: bool
    size: int
    id_field: str = ""

    @property
    def whole(self) -> bool:
        """True when the task reads the whole file (and so can hash it)."""
        return self.start == 0 and self.end < 0

    @property
    def nbytes(self) -> int:
        """Bytes of the file this task reads."""
        return (self.size if self.end < 0 else self.end) - self.start


def line_cuts(path: str, size: int, at: list[int]) -> list[int]:
    """Offsets that cut a file into byte ranges at line ends: a cut for each target offset
    of ``at`` (ascending), the byte after the first ``\\n`` at or after it. Returns
    [0, c1, ..., size] (fewer ranges when lines are longer than a range)."""
    cuts = [0]
    with open_binary(path) as f:
        for target in at:
            start = max(cuts[-1], target)
            f.seek(start)
            pos = start
            while True:
                block = f.read(1 << 16)
                if not block:
                    pos = size
                    break
                i = block.find(b"\n")
                if i >= 0:
                    pos += i + 1
                    break
                pos += len(block)
            if cuts[-1] < pos < size:
                cuts.append(pos)
    cuts.append(size)
    return cuts


def range_targets(size: int, left: int, workers: int, piece_min: int) -> list[int]:
    """Where to cut a file of ``size`` bytes into ranges of decreasing size (guided
    self-scheduling, Polychronopoulos & Kuck 1987): each range is ``max(piece_min, left / (2
    x workers))`` bytes, ``left`` being the corpus's bytes not yet in a task (this file's
    included); the last range takes the rest when that is at most 1.5 ranges. Returns the
    target offsets (:func:`line_cuts` moves each to a line end); [] keeps the file whole.

    Example: 200 MB alone, 2 workers, piece_min 4 MB: ranges of 50, 37.5, 28.1, 21.1,
    15.8, 11.9, 8.9, 6.7, 5.0, 4, 4, 4 and 3 MB."""
    targets, at = [], 0
    while True:
        want = max(piece_min, left // (2 * workers))
        if 2 * (size - at) <= 3 * want:
            return targets
        at += want
        left -= want
        targets.append(at)


def plan_tasks(files: list[dict], workers: int, split_min: int | None = None) -> list[Task]:
    """Cut the corpus into tasks.

    Args:
        files: per file ``{path, name, fmt, fields, gzip, size}``, in corpus order.
        workers: processes that will run the tasks.
        split_min: with more than one worker, uncompressed local JSONL/text files larger
            than this are cut at line ends into ranges of decreasing size (see
            :func:`range_targets`; the smallest ranges are a quarter of ``split_min``), so
            that the last tasks are short and the workers finish together. CSV/TSV records
            may span lines and gzip cannot be entered mid-stream: those are read whole.
    Returns:
        Tasks, largest first (bytes of the file they read; ties in corpus order): a pool
        that hands them out in this order ends with the small ones. The merge does not
        depend on the order (:class:`engines.Merger`).
    """
    split_min = SPLIT_MIN_BYTES if split_min is None else split_min
    left = sum(f["size"] for f in files)  # bytes not yet in a task, in corpus order
    tasks = []
    for i, f in enumerate(files):
        splittable = not f["gzip"] and f["fmt"] in ("jsonl", "text") and not is_url(f["path"])
        targets = []
        if workers > 1 and splittable and f["size"] > split_min:
            targets = range_targets(f["size"], left, workers, max(1, split_min // 4))
        left -= f["size"]
        if targets:
            cuts = line_cuts(f["path"], f["size"], targets)
            for k in range(len(cuts) - 1):
                tasks.append(
                    Task(
                        i,
                        k,
                        f["path"],
                        f["name"],
                        f["fmt"],
                        tuple(f["fields"]),
                        cuts[k],
                        cuts[k + 1] if k + 2 < len(cuts) else -1,
                        False,
                        f["size"],
                        f.get("id_field") or "",
                    )
                )
        else:
            tasks.append(
                Task(
                    i,
                    0,
                    f["path"],
                    f["name"],
                    f["fmt"],
                    tuple(f["fields"]),
                    0,
                    -1,
                    f["gzip"],
                    f["size"],
                    f.get("id_field") or "",
                )
            )
    return sorted(tasks, key=lambda t: -t.nbytes)


# -- scanning one task -------------------------------------------------------------------------
_FILTERS: dict = {}


def make_payload(index, fast: bool = True, formats=("jsonl", "text"), kind: str = "auto") -> dict:
    """What every task needs, built once (and shipped once to each worker or into Ray's
    object store): the eval index and a candidate filter per format (of ``formats``, those
    a filter reads: jsonl and text), chosen by :func:`filters.choose` (``kind``; none when
    ``fast`` is false); ``filter`` names it and ``filter_note`` says why it is not the
    kernel."""
    from .filters import choose

    filters, name, note = choose(index, kind if fast else "off", formats)
    return {"index": index, "filters": filters, "filter": name, "filter_note": note}


def _lines_before(task: Task) -> int:
    """Line ends in the file before the task's range (only to name a line in an error)."""
    if task.start == 0:
        return 0
    n = 0
    left = task.start
    with open_binary(task.path) as f:
        while left:
            block = f.read(min(left, 1 << 20))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def scan_task(payload: dict, task: Task, progress=None) -> dict:
    """Scan one task. A pure function of its arguments and the file: safe to retry.

    Args:
        payload: from :func:`make_payload`.
        task: the file or byte range.
        progress: optional ``callback(bytes_read)`` called after each block.
    Returns:
        ``{file, part, records, skipped, chars, bytes, sha256, candidates, partial}``:
        skipped: ``(line, error)`` of the records ``payload["skip_bad"]`` skipped (lines from
        the file's start; candidate lines only when the filter ran); records in the
        range; decoded characters; the bytes of the file the task covers (its range:
        the compressed bytes for gzip; the tasks' bytes add up to the files' sizes, which
        progress counts against); sha256 of
        the file when the task read it whole, else ""; lines the exact check read (None
        without the filter); the :meth:`TrainingScan.partial` with record numbers counted
        from the range's start.
    Raises:
        EvalsieveError(bad_input): an unreadable, corrupt or malformed file, naming the file
        and the byte or line (line numbers count from the file's start).
    """
    fault_hook(task)
    try:
        res = _scan(payload, task, progress)
    except EvalsieveError as e:
        if e.line is not None and task.start:
            e.line += _lines_before(task)
        raise
    if res.get("skipped") and task.start:  # line numbers count from the file's start
        before = _lines_before(task)
        res["skipped"] = [(ln + before, m) for ln, m in res["skipped"]]
    return res


def _raw_blocks(task: Task, h, progress):
    """(bytes read so far, decoded data) blocks of the task's range."""
    inflater = _Gunzip(task.name) if task.gzip else None
    left = task.nbytes if task.end >= 0 else None
    read = 0
    with open_binary(task.path) as f:
        if task.start:
            f.seek(task.start)
        while True:
            want = CHUNK_BYTES if left is None else min(CHUNK_BYTES, left - read)
            if want <= 0:
                break
            try:
                raw = f.read(want)
            except OSError as e:
                raise bad_input(
                    f"read error at byte {task.start + read} ({e.strerror or e})",
                    file=task.name,
                    expected="a readable file",
                ) from e
            if not raw:
                break
            read += len(raw)
            if h is not None:
                h.update(raw)
            data = inflater.feed(raw) if inflater else raw
            if progress:
                progress(len(raw))
            yield data
        if inflater is not None:
            tail = inflater.close()
            if tail:
                yield tail
    if left is not None and read != left:
        raise bad_input(
            f"the file ended at byte {task.start + read}, before byte "
            f"{task.end} (it changed while being read?)",
            file=task.name,
            expected="a file that stays the same during the run",
        )


def _scan_parquet(payload: dict, task: Task, progress) -> dict:
    """A Parquet (or Arrow IPC) training file, whole: record batches of the needed columns
    (pyarrow)."""
    from .arrow_io import open_columnar

    src = open_columnar(task.path)
    src.name = task.name
    scan = TrainingScan(payload["index"], source=_id_source(task))
    seg = FieldExtractor("parquet", list(task.fields), task.name).segments
    records = chars = 0
    cols = list(task.fields) + ([task.id_field] if task.id_field else [])
    for values in src.values(src.columns_for(cols)):
        batch = [(records + i + 1, seg(v), v) for i, v in enumerate(values)]
        chars += sum(len(x) for item in batch for x in item[1])
        scan.scan(batch)
        records += len(values)
    scan.records = records
    h = hashlib.sha256()
    with open(task.path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK_BYTES), b""):
            h.update(block)
            if progress:
                progress(len(block))
    return {
        "file": task.file,
        "part": task.part,
        "records": records,
        "chars": chars,
        "bytes": task.size,
        "sha256": h.hexdigest(),
        "candidates": None,
        "partial": scan.partial(),
    }


def _id_source(task: Task):
    """The scan's source of a first match in the CLI: ``[-1, 0, id]`` (no byte offset)."""
    ids = IdReader(task.fmt, task.id_field or None, task.name)
    return lambda value: [-1, 0, ids(value)]


def _scan(payload: dict, task: Task, progress) -> dict:
    if task.fmt == "parquet":
        return _scan_parquet(payload, task, progress)
    index = payload["index"]
    filt = payload["filters"].get(task.fmt)
    scan = TrainingScan(index, source=_id_source(task))
    h = hashlib.sha256() if task.whole else None
    fields = FieldExtractor(task.fmt, list(task.fields), task.name)
    seg = fields.segments
    state = {"offset": 0, "lines": 0, "chars": 0, "records": 0, "cand": 0, "first": True}
    batch: list = []
    skip = bool(payload.get("skip_bad"))  # --skip-bad-lines (cli.py sets it)
    ks = None
    if filt is not None and getattr(filt, "name", "") == "kernel":
        try:
            ks = filt.scanner(fields._steps)  # this process's kernel for these fields
        except ValueError:  # more field paths than the kernel takes
            filt = None
    # the file's byte-order mark is taken off below: a U+FEFF the reader sees is a line's
    reader = None if filt else RecordReader(task.fmt, task.name, skip, at_start=False)
    state["skip"] = [] if skip else None
    carry = b""
    blocks = _raw_blocks(task, h, progress)
    if ks is not None:  # the kernel scans outside the GIL: read the next blocks meanwhile
        blocks = read_ahead(lambda note: _raw_blocks(task, h, note if progress else None), progress)
    for data in blocks:
        if state["first"] and data:
            if task.start == 0:
                refuse_binary(task.name, data[:16])
                if data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]
                    state["offset"] += 3
            state["first"] = False
        if ks is not None:  # the kernel copies carry + data[:cut] itself, once
            cut = data.rfind(b"\n") + 1
            if not cut:
                carry += data
                continue
            _block(data, task, state, ks, reader, seg, scan, batch, cut, carry)
            carry = data[cut:]
            continue
        data = carry + data
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        if cut:
            _block(data[:cut], task, state, ks or filt, reader, seg, scan, batch)
    if carry:
        _block(carry, task, state, ks or filt, reader, seg, scan, batch)
    if reader is not None:
        for r in reader.finish():
            batch.append((r.index, seg(r.value), r.value))
        state["records"] = reader.records_read
    if batch:
        scan.scan(batch)
    scan.records = state["records"]
    skipped = (reader.skipped if reader is not None else state["skip"]) if skip else []
    return {
        "file": task.file,
        "part": task.part,
        "records": state["records"],
        "skipped": skipped,
        "chars": state["chars"],
        "bytes": task.nbytes,
        "sha256": h.hexdigest() if h is not None else "",
        "candidates": state["cand"] if filt else None,
        "partial": scan.partial(),
    }


def _decode(block: bytes, task: Task, state: dict) -> str:
    """The block's text; invalid UTF-8 is an error, or with --skip-bad-lines decoded with
    ``surrogateescape`` for the reader (or, with the filter, :func:`_bad_lines`) to skip."""
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError as e:
        if state["skip"] is not None:
            state["escaped"] = True
            return block.decode("utf-8", SKIPPING)
        line = state["lines"] + block.count(b"\n", 0, e.start) + 1
        where = "byte" if not task.gzip else "byte of the decompressed stream"
        raise bad_input(
            f"invalid UTF-8 at {where} {task.start + state['offset'] + e.start}",
            file=task.name,
            line=line,
            expected="UTF-8 text (re-encode the file, e.g. iconv -t UTF-8)",
        ) from e


def _block(
    block: bytes,
    task: Task,
    state: dict,
    filt,
    reader,
    seg,
    scan,
    batch,
    end: int | None = None,
    head: bytes = b"",
) -> None:
    """Scan whole lines, ``head + block[:end]`` (the exact reader; or the filter, then the
    exact check of the candidate lines). Updates ``state`` (offset, lines, chars, records)."""
    state["escaped"] = False
    if end is not None or head:
        if not hasattr(filt, "scan"):
            block, end, head = head + block[:end], None, b""
    if hasattr(filt, "scan"):  # the kernel: it checks the UTF-8 and counts characters
        from .filters import kernel_block

        def refuse(b: bytes):
            _decode(b, task, state)  # raises, naming the byte, without --skip-bad-lines
            raise _NotUtf8

        try:
            kernel_block(block, filt, task, state, seg, scan, batch, refuse, end, head)
            state["offset"] += len(head) + (len(block) if end is None else end)
            return
        except _NotUtf8:  # with --skip-bad-lines: every line of the block to the exact check
            filt = EVERY_LINE
            block = head + (block if end is None else block[:end])
    text = _decode(block, task, state)
    state["chars"] += len(text)
    if reader is None and state["escaped"]:
        _bad_lines(text, task, state)
    if reader is not None:
        for r in reader.feed(text):
            batch.append((r.index, seg(r.value), r.value))
            if len(batch) >= 2000:
                scan.scan(batch)
                batch.clear()
        state["lines"] += block.count(b"\n")
    else:
        # the filter reads pieces of about FILTER_BYTES (cut at line ends): its numpy passes
        # then run in the CPU's cache (faster than on a whole 4 MB block at once)
        start, size = 0, len(block)
        while start < size:
            end = size
            if start + FILTER_BYTES < size:
                end = block.rfind(b"\n", start, start + FILTER_BYTES) + 1
                if end <= start:  # a line longer than a piece: to its end
                    end = block.find(b"\n", start + FILTER_BYTES)
                    end = size if end < 0 else end + 1
            _filtered(
                block[start:end] if start or end < size else block,
                task,
                state,
                filt,
                seg,
                scan,
                batch,
            )
            start = end
    state["offset"] += len(block)


class _NotUtf8(Exception):
    """The kernel refused a block that is not all UTF-8, and --skip-bad-lines is on."""


class _Lines(list):
    def tolist(self) -> list:
        return self


class _EveryLine:
    """A candidate filter that passes every line (for a block the kernel cannot read: with
    --skip-bad-lines, its lines that are UTF-8 go through the exact check, the others are
    listed by :func:`_bad_lines`); the numpy filter's ``candidate_lines`` shape."""

    @staticmethod
    def candidate_lines(piece: bytes):
        ends, at = _Lines(), piece.find(b"\n")
        while at >= 0:
            ends.append(at)
            at = piece.find(b"\n", at + 1)
        count = len(ends) + (1 if piece and not piece.endswith(b"\n") else 0)
        return count, _Lines(range(count)), ends


EVERY_LINE = _EveryLine()


def _bad_lines(text: str, task: Task, state: dict) -> None:
    """With the filter and --skip-bad-lines, for a block that is not all UTF-8: each of its
    lines that is not is skipped and listed, candidate or not (as the reader lists them
    without the filter); ``state["bad"]`` holds their line numbers for :func:`_filtered`."""
    bad = state["bad"] = set()
    for k, raw in enumerate(text.split("\n")):
        err = invalid_utf8(raw, task.name, state["lines"] + k + 1)
        if err is not None:
            state["skip"].append((err.line, skip_text(err)))
            bad.add(err.line)


def _filtered(piece: bytes, task: Task, state: dict, filt, seg, scan, batch) -> None:
    """The filter's candidate lines of ``piece`` (whole lines) through the exact check.
    Updates ``state`` (lines, records, candidate lines)."""
    line_count, cands, ends = filt.candidate_lines(piece)
    ends = ends.tolist()
    rec_base = state["records"]
    ln_base = state["lines"]
    blanks = 0
    for i in cands.tolist():
        raw = piece[ends[i - 1] + 1 if i else 0 : ends[i] if i < len(ends) else None].decode(
            "utf-8", SKIPPING
        )
        if not raw.strip():
            blanks += 1
            continue
        if ln_base + i + 1 in state.get("bad", ()):
            continue  # not UTF-8: listed by _bad_lines; the record keeps its number
        try:
            value = parse_record_line(task.fmt, raw, task.name, ln_base + i + 1)
        except EvalsieveError as e:
            if state["skip"] is None or e.code != "bad_input":
                raise
            state["skip"].append((ln_base + i + 1, skip_text(e)))
            continue  # the record keeps its number
        batch.append((rec_base + i + 1 - blanks, seg(value), value))
    state["cand"] += len(cands)
    state["records"] += line_count - blanks
    state["lines"] += len(ends)
    if batch:
        scan.scan(batch)
        batch.clear()
