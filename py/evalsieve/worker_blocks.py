"""The worker's binary blocks, decoded (standard library only).

The page's worker sends its embedding results as one little-endian block of ``int32`` and
``float32`` arrays (data of ``cont.semantic_cosines`` and ``para.similarity``; layouts in
docs/ARCHITECTURE.md); these functions check a block's size and split it into
:class:`array.array` values. bridge.py calls them and re-exports them.
"""

from __future__ import annotations

import sys

from array import array

from .errors import EvalsieveError
from .paraphrase import DIM


def unpack_float32(data: bytes, count: int, what: str) -> list[float]:
    """``count`` little-endian float32 values from the worker's block.

    Raises:
        EvalsieveError(internal): the block's size is not 4 × count bytes.
    """
    if len(data) != 4 * count:
        raise EvalsieveError("internal", f"{what} block of {len(data)} bytes, expected {4 * count}")
    a = array("f")
    a.frombytes(data)
    if sys.byteorder != "little":  # pragma: no cover
        a.byteswap()
    return a.tolist()


def unpack_similarity(data: bytes, rows: int, pairs: int, with_embeddings: bool):
    """Split the worker's binary similarity block (little-endian, in this order):
    I int32[pairs], J int32[pairs], C float32[pairs], NN float32[rows], NNI int32[rows],
    then, if ``with_embeddings``, EMB float32[rows × 384] (row-major unit vectors).

    Raises:
        EvalsieveError(internal): the block's size does not match.
    """
    want = 12 * pairs + 8 * rows + (4 * DIM * rows if with_embeddings else 0)
    if len(data) != want:
        raise EvalsieveError("internal", f"similarity block of {len(data)} bytes, expected {want}")
    parts = []
    off = 0
    for code, count in (("i", pairs), ("i", pairs), ("f", pairs), ("f", rows), ("i", rows)):
        a = array(code)
        a.frombytes(data[off : off + 4 * count])
        if sys.byteorder != "little":  # pragma: no cover
            a.byteswap()
        parts.append(a)
        off += 4 * count
    emb = None
    if with_embeddings:
        emb = array("f")
        emb.frombytes(data[off:])
    return parts, emb
