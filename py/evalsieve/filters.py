"""Which candidate filter the CLI's training scan runs, and the kernel's block scan.

CLI side. The production filter is the page's scan kernel (:mod:`evalsieve.kernel`,
kernels/prefilter.wasm under wasmtime). When it cannot run (wasmtime not installed), numpy's
:class:`fastscan.LineFilter` is the fallback, and without numpy the pure-Python scan reads
every record; the log says which ran and why (:func:`choose`). Every choice gives the same
exports (tests/py/test_corpus_scan.py): a filter only decides which lines Python reads.
"""

from __future__ import annotations

from .errors import EvalsieveError
from .records import parse_record_line, skip_text

KINDS = ("auto", "kernel", "numpy", "off")


def choose(index, kind: str = "auto", formats=("jsonl", "text")) -> tuple[dict, str, str | None]:
    """The filters for ``formats`` (those a filter reads: jsonl and text).

    Args:
        index: the eval index (its ``ngrams`` and ``n``).
        kind: ``auto`` (the kernel, else numpy, else none), ``kernel``, ``numpy`` or ``off``.
    Returns:
        ``(filters by format, name, note)``: name is ``kernel``, ``numpy`` or ``off``; note
        says why the kernel is not the one (None when it is, or when ``off`` was asked).
    """
    fmts = sorted(set(formats) & {"jsonl", "text"})
    if kind == "off" or not fmts:
        return {}, "off", None
    note = None
    if kind in ("auto", "kernel"):
        from .kernel import KernelFilter, unavailable

        note = unavailable()
        if note is None:
            return (
                {f: KernelFilter(index.ngrams, index.n, f, list(index.exact_keys)) for f in fmts},
                "kernel",
                None,
            )
        if kind == "kernel":
            return {}, "off", note
    from .fastscan import LineFilter, numpy_or_none

    if numpy_or_none() is None:
        return {}, "off", (note + "; " if note else "") + "numpy is not installed either"
    if index.n < 2:
        return {}, "off", (note + "; " if note else "") + "numpy's filter needs N >= 2"
    return (
        {f: LineFilter(index.ngrams, index.n, f, list(index.exact_keys)) for f in fmts},
        "numpy",
        note,
    )


def kernel_block(
    block: bytes,
    ks,
    task,
    state: dict,
    seg,
    scan,
    batch,
    decode,
    end: int | None = None,
    head: bytes = b"",
) -> None:
    """Scan whole lines, ``head + block[:end]``, with the kernel ``ks`` (a
    :class:`kernel.KernelScanner`: one copy into its memory), then the exact check of its
    candidate records (read back from the kernel's copy). Updates ``state`` (chars,
    records, lines, cand, skip) as the exact reader would.

    Raises:
        EvalsieveError(bad_input): invalid UTF-8 (``decode(bytes)`` names the byte and line)
        or a malformed candidate record (its line in the file).
    """
    end = len(block) if end is None else end
    got = ks.scan(block, end, head)
    if got is None:
        decode(head + block[:end])  # raises, naming the first invalid byte
        raise EvalsieveError("internal", f"{task.name}: the kernel refused UTF-8 that Python reads")
    records, lines, points, cands = got
    rec_base, ln_base = state["records"], state["lines"]
    for k in range(0, len(cands), 4):
        rec, ln, a, b = cands[k], cands[k + 1], cands[k + 2], cands[k + 3]
        try:
            value = parse_record_line(
                task.fmt, ks.line(a, b).decode("utf-8"), task.name, ln_base + ln
            )
        except EvalsieveError as e:
            if state["skip"] is None or e.code != "bad_input":
                raise
            state["skip"].append((ln_base + ln, skip_text(e)))
            continue  # the record keeps its number
        batch.append((rec_base + rec, seg(value), value))  # value: the record's id (sources)
    state["chars"] += points
    state["cand"] += len(cands) // 4
    state["records"] += records
    last = block[end - 1 : end] if end else head[-1:]
    state["lines"] += lines - (0 if last == b"\n" else 1)
    if batch:
        scan.scan(batch)
        batch.clear()
