"""The semantic rung's window scan in shards: each shard (a byte range or file of the training
corpus, in corpus order) scanned on its own, its state merged into one scan, exactly as if
one scan had read the shards one after another (:func:`merge_shard`).

Why it is exact: a probe's heap holds its ``candidates`` best windows under one total order,
the higher key-unit sum first and then the earlier window (a later window of an equal sum
never displaces an earlier one: :meth:`semantic.SemanticScan.scan`). The best k of a union
are among the best k of each part, so the merged heap is the top k of the shards' heaps,
once each shard's window serials are moved past the windows of the shards before it. A
window lies inside one record and a record inside one shard, so a window's words and
context are the same in its shard; window counts per term add up.

Pure: standard library only; the CLI's tasks (:mod:`semantic_pass`) make and merge the
shards, the page does not shard.
"""

from __future__ import annotations

import heapq

from .semantic_parts import Window


def shard_state(scan) -> dict:
    """What one shard's scan found, compactly (picklable, one string a window's context), for
    :func:`merge_shard`. The scan is closed (its kernel's state handed back first).

    Returns:
        ``{heaps, windows, df, windows_seen, windows_with_key, note}``: per probe its heap's
        ``(key units, serial)`` items; per kept window ``serial: (record, start, end,
        context start, context words joined by " ", file)``; windows per term; the window
        counts; the kernel's handover note.
    """
    if scan._kernel is not None:
        scan._kernel.close()
        scan._kernel = None
    return {
        "heaps": [[(it[0], it[2]) for it in h] for h in scan._heaps],
        "windows": {
            s: (w.record, w.start, w.end, w.context_start, " ".join(w.context), w.file)
            for s, w in scan._kept.items()
        },
        "df": dict(scan.window_df),
        "windows_seen": scan.windows_seen,
        "windows_with_key": scan.windows_with_key,
        "note": scan.kernel_note,
    }


def merge_shard(scan, shard: dict, records_before: int) -> None:
    """Fold the next shard (in corpus order) into ``scan``, which holds the shards before it.

    Args:
        scan: a :class:`semantic.SemanticScan` of the same eval rows and settings as the
            shard's (not scanning in the kernel).
        shard: :func:`shard_state` of the next shard.
        records_before: records of its file before the shard (its record numbers count
            from 1 at the shard's start).
    Raises:
        ValueError: the shard has another number of probes.
    """
    if len(shard["heaps"]) != len(scan._heaps):
        raise ValueError(f"a shard of {len(shard['heaps'])} probes, not {len(scan._heaps)}")
    off, k = scan.windows_seen, scan.config.candidates
    for i, items in enumerate(shard["heaps"]):
        if not items:
            continue
        both = [(x, s) for x, _, s in scan._heaps[i]] + [(x, s + off) for x, s in items]
        if len(both) > k:  # the best k: higher sum, then the earlier window
            both.sort(key=lambda t: (-t[0], t[1]))
            del both[k:]
        h = [(x, -s, s) for x, s in both]
        heapq.heapify(h)
        scan._heaps[i] = h
        scan._floor[i] = h[0][0] if len(h) == k else -1
    refs: dict[int, int] = {}
    for h in scan._heaps:
        for it in h:
            refs[it[2]] = refs.get(it[2], 0) + 1
    kept = {s: w for s, w in scan._kept.items() if s in refs}
    for s, (rec, start, end, c0, context, name) in shard["windows"].items():
        g = s + off
        if g in refs:
            kept[g] = Window(rec + records_before, start, end, c0, context.split(" "), name, g)
    scan._kept, scan._refs = kept, refs
    df = scan.window_df
    for t, n in shard["df"].items():
        df[t] = df.get(t, 0) + n
    scan.windows_seen += shard["windows_seen"]
    scan.windows_with_key += shard["windows_with_key"]
    if shard["note"] and not scan.kernel_note:
        scan.kernel_note = shard["note"]
