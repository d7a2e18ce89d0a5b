"""The semantic rung's scan of the training files in the CLI (:func:`semantic_pass`): its
second read of the corpus, after the n-gram pass, every record through
:meth:`semantic.SemanticScan.scan`.

CLI side only (threads; the page feeds the scan from its own reader). With the kernel, a
reader thread reads, parses, batches and splits the next block's records into words (in a
kernel instance of its own: :class:`semantic_kernel.WordSplitter`) while this thread's
kernel instance looks the words up and scans the windows of the block before; both leave
the GIL in the kernel's calls. The results are those of the unthreaded scan
(``tests/py/test_semantic_kernel_hostile.py``).
"""

from __future__ import annotations

import gc
import sys
from contextlib import contextmanager

from .fields import FieldExtractor
from .readahead import read_ahead
from .records import RecordReader
from .run_io import open_input
from .semantic_kernel import WordSplitter

#: The GIL's switch interval during the threaded scan, in seconds (Python's default: 0.005).
#: The scan's thread takes the GIL back after every kernel call; while the reader thread
#: parses it waits for the interval's end each time, ~8% of the pass at the default.
SWITCH_INTERVAL = 0.001


@contextmanager
def _threads_that_hand_over():
    """The pass's process settings, restored after it: the GIL handed over sooner
    (:data:`SWITCH_INTERVAL`), and the cycle collector paused (the pass makes millions of
    short-lived containers, a record's dict, list and tuple, and no cycle: the collector's
    passes over them cost ~8% of it)."""
    interval, collecting = sys.getswitchinterval(), gc.isenabled()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    gc.disable()
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        if collecting:
            gc.enable()


def semantic_pass(job, files: list[dict], log, kernel: bool = True, clock=None) -> None:
    """The semantic rung's scan of every training record (no candidate filter can serve it),
    here in the driver, after the n-gram pass; records count from 1 in each file. With
    ``kernel`` its window scan runs in the compiled kernel when it can
    (:meth:`SemanticScan.use_kernel`; the log says where it runs); the results are the same.

    Args:
        clock: a callable giving seconds: the scan's own time (``scan_seconds``) is kept
            with it, for the benchmarks.
    Raises:
        EvalsieveError(bad_input): as the readers.
    """
    job.semantic.clock = clock
    why = job.semantic.use_kernel() if kernel else "--filter off or numpy: pure Python"
    log(
        f"semantic: reading {len(files)} training file(s) once more for the windows; the "
        + (
            "window scan runs in the kernel"
            if why is None
            else f"window scan runs in Python ({why})"
        )
    )
    sem = job.semantic

    def records(note=None):
        """("file", k, name) before each file's records, then ("records", records, their
        kernel batches, words split in an instance of the thread's own) per block read."""
        split = WordSplitter() if why is None else None
        for k, f in enumerate(files):
            yield ("file", k, f["name"])
            seg = FieldExtractor(f["fmt"], list(f["fields"]), f["name"]).segments
            src = open_input(f["path"], f["name"])
            if f["fmt"] == "parquet":
                n = 0
                for values in src.values(src.columns_for(list(f["fields"]))):
                    recs = [(n + i + 1, seg(v)) for i, v in enumerate(values)]
                    yield ("records", recs, sem.batches(recs, split))
                    n += len(values)
                continue
            # skipped records are listed by the n-gram pass
            reader = RecordReader(f["fmt"], f["name"], job.config.skip_bad_lines)
            for text in src.chunks(skip_bad=job.config.skip_bad_lines):
                recs = [(r.index, seg(r.value)) for r in reader.feed(text)]
                yield ("records", recs, sem.batches(recs, split))
            recs = [(r.index, seg(r.value)) for r in reader.finish()]
            yield ("records", recs, sem.batches(recs, split))

    # With the kernel, a thread reads, parses and batches the next records while the kernel
    # scans these (its calls leave the GIL); in Python a thread would only contend for it.
    items = read_ahead(records, None) if why is None else records()
    with _threads_that_hand_over():
        for item in items:
            if item[0] == "file":
                sem.set_file(item[1], item[2])
            else:
                sem.scan(item[1], item[2])
    if job.semantic.kernel_note:
        log(f"semantic: {job.semantic.kernel_note}")
