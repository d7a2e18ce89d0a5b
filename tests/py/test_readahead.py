"""readahead.read_ahead: the producer's blocks in order, its progress notes in the caller's
thread, its errors raised after the blocks before them, and no thread left behind."""

import sys
import threading

import pytest

from evalsieve.readahead import read_ahead

pytestmark = pytest.mark.skipif(
    sys.platform == "emscripten",
    reason="no threads in Pyodide (the CLI's kernel path, the only user, does not run there)",
)


def producer(blocks, fail_after=None):
    def make(note):
        for k, b in enumerate(blocks):
            if fail_after is not None and k == fail_after:
                raise ValueError(f"bad block {k}")
            note(len(b) + 1)  # e.g. the compressed bytes read for it
            yield b

    return make


def test_blocks_in_order_and_progress_in_the_callers_thread():
    blocks = [bytes([k]) * (k + 1) for k in range(20)]
    seen, where = [], set()

    def progress(n):
        seen.append(n)
        where.add(threading.get_ident())

    got = list(read_ahead(producer(blocks), progress, depth=2))
    assert got == blocks
    assert seen == [k + 2 for k in range(20)]
    assert where == {threading.get_ident()}


def test_error_after_the_blocks_before_it():
    blocks = [b"a", b"b", b"c", b"d"]
    got = []
    with pytest.raises(ValueError, match="bad block 2"):
        for b in read_ahead(producer(blocks, fail_after=2), None):
            got.append(b)
    assert got == [b"a", b"b"]


def test_consumer_stopping_early_stops_the_thread():
    before = threading.active_count()
    gen = read_ahead(producer([b"x"] * 1000), None, depth=1)
    assert next(gen) == b"x"
    gen.close()
    assert threading.active_count() == before
    assert not any(t.name == "evalsieve-read-ahead" for t in threading.enumerate())


def test_empty_producer():
    assert list(read_ahead(producer([]), None)) == []
