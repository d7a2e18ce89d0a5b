"""Where a training corpus's bytes come from: local files or fsspec URLs, gzip by magic
bytes, streamed as UTF-8 text (:class:`FileSource`). CLI side only; fsspec (``[remote]``)
is imported lazily. :mod:`evalsieve.corpus` plans and scans tasks over these files.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import zlib

from .arrow_io import is_arrow
from .layouts import _GLOB, is_url, supported
from .decoding import BOM, SKIPPING
from .errors import EvalsieveError, bad_input
from .records import is_parquet, refuse_binary
from .stamps import InputFile

CHUNK_BYTES = 4 << 20
HEAD_BYTES = 1 << 20
HEAD_MAX_BYTES = 64 << 20  # the head goes on to the first line end, up to this much


# -- where the bytes come from ---------------------------------------------------------------
def _fsspec(path: str):
    try:
        import fsspec
    except ImportError:
        raise EvalsieveError(
            "environment",
            "reading a URL needs fsspec",
            file=path,
            expected="pip install 'evalsieve[remote]' (plus s3fs / gcsfs "
            "/ huggingface_hub for s3://, gs://, hf://)",
        ) from None
    return fsspec


def open_binary(path: str):
    """A binary file object for a local path or an fsspec URL."""
    try:
        if is_url(path):
            return _fsspec(path).open(path, "rb").open()
        return open(path, "rb")
    except EvalsieveError:
        raise
    except OSError as e:
        raise bad_input(
            f"cannot read the file ({e.strerror or e})", file=path, expected="a readable file"
        ) from e


def size_of(path: str) -> int:
    """The file's size in bytes (local stat or the fsspec listing)."""
    try:
        if is_url(path):
            fs, p = _fsspec(path).core.url_to_fs(path)
            return int(fs.size(p))
        return os.path.getsize(path)
    except OSError as e:
        raise bad_input(
            f"cannot read the file ({e.strerror or e})", file=path, expected="a readable file"
        ) from e


def _expand_url(arg: str) -> list[tuple[str, str]]:
    fsspec = _fsspec(arg)
    fs, path = fsspec.core.url_to_fs(arg)
    proto = arg.split("://", 1)[0]

    def url(p: str) -> str:
        return p if is_url(p) else f"{proto}://{p}"

    try:
        if _GLOB & set(path):
            found = sorted(url(p) for p in fs.glob(path) if not fs.isdir(p))
        elif fs.isdir(path):
            found = sorted(url(p) for p in fs.find(path) if supported(p))
        else:
            fs.size(path)
            found = [arg]
    except (OSError, ValueError) as e:
        raise bad_input(f"cannot list the URL ({e})", file=arg, expected="a readable URL") from e
    if not found:
        raise bad_input(
            "the URL names no training file",
            file=arg,
            expected="a file, a folder holding supported files, or a glob",
        )
    return [(u, u) for u in found]


# -- reading one file --------------------------------------------------------------------------
class _Gunzip:
    """Inflate gzip incrementally, member after member (RFC 1952 allows concatenation)."""

    def __init__(self, name: str):
        self.name = name
        self.d = zlib.decompressobj(31)
        self.read = 0  # compressed bytes fed so far, for error messages

    def feed(self, raw: bytes) -> bytes:
        """Inflate the next raw bytes; returns the decompressed bytes (possibly empty).

        Raises:
            EvalsieveError(bad_input): corrupt gzip data (naming the compressed byte offset
            of the block it was found in).
        """
        at = self.read
        self.read += len(raw)
        try:
            out = [self.d.decompress(raw)]
            while self.d.eof and self.d.unused_data:
                rest = self.d.unused_data
                self.d = zlib.decompressobj(31)
                out.append(self.d.decompress(rest))
        except zlib.error as e:
            raise bad_input(
                f"corrupt gzip data ({e}) in the block at compressed byte {at}",
                file=self.name,
                expected="a gzip file (or plain text)",
            ) from e
        return b"".join(out)

    def close(self) -> bytes:
        """Flush at the end of the file. Raises EvalsieveError(bad_input) if truncated."""
        tail = self.d.flush()
        if not self.d.eof:
            raise bad_input(
                "the gzip stream is truncated (it ends mid-member)",
                file=self.name,
                expected="a complete gzip file",
            )
        return tail


class FileSource:
    """Streams one input file as UTF-8 text, whatever its size.

    gzip is detected by its magic bytes (1f 8b), not the name, and inflated member by member
    (concatenated gzip works); ZIP, Parquet, UTF-16 and other binary formats are refused by
    their magic bytes (``records.refuse_binary``); the UTF-8 BOM is removed (``keep_bom``:
    left for the reader, which keeps it for the clean export); invalid UTF-8 is an error
    naming the byte offset and the line (``skip_bad``: decoded with ``surrogateescape``, for
    the reader to skip; :mod:`evalsieve.decoding`). After a full read, ``sha256`` and
    ``bytes`` describe the file as given.

    Args:
        path: the file's path (or an fsspec URL).
        name: how messages and the stamp name it (default: the path's last part).
    Raises:
        EvalsieveError(bad_input): missing file, truncated gzip, binary format, invalid UTF-8.
    """

    def __init__(self, path: str, name: str | None = None):
        self.path = path
        self.name = name or os.path.basename(path.rstrip("/"))
        if not is_url(path) and not os.path.isfile(path):
            raise bad_input("no such file", file=path, expected="a readable file")
        with open_binary(path) as f:
            first = f.read(8)
        self.gzip = first[:2] == b"\x1f\x8b"
        self.parquet = is_parquet(first)
        self.arrow = is_arrow(first)  # a datasets cache / save_to_disk shard (arrow_io)
        self.sha256 = ""
        self.bytes = 0

    def chunks(self, limit: int | None = None, skip_bad: bool = False, keep_bom: bool = False):
        """Yield decoded text chunks; with ``limit``, stop after about that many bytes
        (cut at the last line end), without hashing."""
        h = hashlib.sha256()
        dec = codecs.getincrementaldecoder("utf-8")(SKIPPING if skip_bad else "strict")
        inflater = _Gunzip(self.name) if self.gzip else None
        first = True
        offset = 0  # decoded-stream byte offset, for error messages
        self._lines = 0  # line ends decoded so far, for error messages
        total = 0
        with open_binary(self.path) as f:
            while True:
                try:
                    raw = f.read(CHUNK_BYTES if limit is None else min(CHUNK_BYTES, limit))
                except OSError as e:
                    raise bad_input(
                        f"read error at byte {total} ({e.strerror or e})",
                        file=self.name,
                        expected="a readable file",
                    ) from e
                if not raw:
                    break
                total += len(raw)
                h.update(raw)
                data = inflater.feed(raw) if inflater else raw
                if offset == 0 and data:
                    if is_parquet(data):  # only after gunzip: a plain Parquet file never gets here
                        raise bad_input(
                            "a gzip-compressed Parquet file",
                            file=self.name,
                            expected="gunzip it first: the CLI reads Parquet files directly",
                        )
                    refuse_binary(self.name, data[:16])
                text = self._decode(dec, data, offset)
                offset += len(data)
                self._lines += data.count(b"\n")
                if first and text:
                    if text.startswith(BOM) and not keep_bom:
                        text = text[1:]
                    first = False
                # the head ends at a line end: past `limit`, read on to the first one
                if (
                    limit is not None
                    and total >= limit
                    and ("\n" in text or total >= HEAD_MAX_BYTES)
                ):
                    cut = text.rfind("\n")
                    yield text[: cut + 1] if cut >= 0 else text
                    return
                if text:
                    yield text
            if inflater is not None and limit is None:
                tail = inflater.close()
                if tail:
                    if offset == 0:
                        refuse_binary(self.name, tail[:16])
                    yield self._decode(dec, tail, offset)
            try:
                rest = dec.decode(b"", final=True)
            except UnicodeDecodeError:
                raise bad_input(
                    "the file ends inside a UTF-8 character", file=self.name, expected="UTF-8 text"
                ) from None
            if rest:
                yield rest
        if limit is None:
            self.sha256 = h.hexdigest()
            self.bytes = total

    def _decode(self, dec, data: bytes, offset: int) -> str:
        try:
            return dec.decode(data)
        except UnicodeDecodeError as e:
            line = self._lines + data.count(b"\n", 0, e.start) + 1
            raise bad_input(
                f"invalid UTF-8 at byte {offset + e.start}",
                file=self.name,
                line=line,
                expected="UTF-8 text (re-encode the file, e.g. iconv -t UTF-8)",
            ) from e

    def head(self, skip_bad: bool = False) -> str:
        """About the first MB of text, cut at a line end (for sniffing and field lists), as
        the file starts: with its byte-order mark, which the readers take off (one only:
        a second is line 1's own text)."""
        return "".join(self.chunks(limit=HEAD_BYTES, skip_bad=skip_bad, keep_bom=True))

    def info(self, role: str, fmt: str) -> InputFile:
        """The file as the run stamp names it (after a full read: sha256 and size set)."""
        return InputFile(
            role, self.name, self.sha256, self.bytes, fmt + ("+gzip" if self.gzip else "")
        )
