"""Read the next blocks of a file on a thread while this one scans the current block.

With the scan kernel, a block's scan runs outside the GIL (wasmtime's calls go through
ctypes), and so do file reads, gzip inflation and sha256 of large buffers; reading and
hashing block k + 1 on a thread while the kernel scans block k takes the read off the
training pass's critical path. The results are the same blocks in the same order: only
where the time goes changes.

CLI side only (the page has its own reader, and Pyodide starts no threads): corpus.py uses
it only when the kernel runs.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

_END = object()


def read_ahead(
    make: Callable[[Callable[[int], None]], Iterator[bytes]],
    progress: Callable[[int], None] | None,
    depth: int = 2,
) -> Iterator[bytes]:
    """The blocks of ``make(note)``, produced on a thread at most ``depth`` blocks ahead.

    Args:
        make: called on the thread with a ``note(nbytes)`` callback that it calls for each
            raw read (what it would pass to ``progress``); returns the block iterator.
        progress: called here, in the caller's thread, with each note's bytes, just before
            the block that followed it is yielded (as the producer would have called it).
        depth: blocks read ahead (each block is held in memory until consumed).
    Yields:
        the producer's blocks in order.
    Raises:
        whatever the producer raised, here, after the blocks before it; a consumer that
        stops early (an exception, or closing the generator) stops the thread at its next
        block.
    """
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        pending = [0]

        def note(n: int) -> None:
            pending[0] += n

        try:
            for block in make(note):
                done, pending[0] = pending[0], 0
                if not put((block, done)):
                    return
            put((_END, pending[0]))
        except BaseException as e:  # handed to the consumer, raised there
            put((e, pending[0]))

    thread = threading.Thread(target=run, name="evalsieve-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, done = q.get()
            if done and progress is not None:
                progress(done)
            if item is _END:
                break
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()
