"""Purify a Parquet training shard (CLI only: pyarrow, imported lazily).

Row group by row group: a row group without a record to change is written as it was read
(values and types unchanged, one output row group per input row group); in one with records
to change, only the chosen top-level columns are rebuilt (their values converted to Python,
the changed leaves replaced, converted back with the column's own type) and dropped rows are
taken out. The output keeps the input's Arrow schema with its key-value metadata and the
compression codec of its first column chunk.
"""

from __future__ import annotations

import hashlib

from .corpus import CHUNK_BYTES
from .errors import EvalsieveError
from .fields import FieldExtractor, _leaf_text
from .parquet_io import _pa, plain
from .purify_core import plan_record


class _File:
    """The AtomicOutput's sink as the file object pyarrow writes to."""

    def __init__(self, sink):
        self.sink, self.closed = sink, False

    def write(self, data) -> int:
        return self.sink.write(bytes(data))

    def tell(self) -> int:
        return self.sink.bytes

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def _slots(v, steps: list, i: int, out: list, parent=None, key=None) -> None:
    """fields._walk over a row's Python values, giving ``(container, key)`` of each leaf."""
    if i == len(steps):
        if _leaf_text(plain(v)):
            out.append((parent, key))
        return
    s = steps[i]
    if s == "[]":
        if isinstance(v, list):
            for k, x in enumerate(v):
                _slots(x, steps, i + 1, out, v, k)
    elif isinstance(s, tuple):
        if isinstance(v, list):
            _, want_key, want = s
            for k, x in enumerate(v):
                if isinstance(x, dict) and _leaf_text(plain(x.get(want_key))) == want:
                    _slots(x, steps, i + 1, out, v, k)
    elif isinstance(v, dict) and s in v:
        _slots(v[s], steps, i + 1, out, v, s)


def purify_parquet(payload: dict, task, out, progress) -> dict:
    """:func:`purify_shards.purify_shard` for a Parquet file (see there for the result)."""
    from .purify_shards import _result

    pa, pq = _pa(task.name)
    pf = pq.ParquetFile(task.path)
    schema = pf.schema_arrow
    md = pf.metadata
    codec = md.row_group(0).column(0).compression.lower() if md.num_row_groups else "snappy"
    fields = FieldExtractor("parquet", list(task.fields), task.name)
    tops = list(dict.fromkeys(p.split(".")[0].split("[")[0] for p in task.fields))
    tops = [c for c in tops if c in schema.names]
    targets = dict(task.targets)
    index, counted, config = payload["index"], payload["counted"], payload["config"]
    rows, rec = [], 0
    writer = pq.ParquetWriter(
        _File(out.sink), schema, compression=codec if codec != "uncompressed" else "none"
    )
    try:
        for g in range(pf.num_row_groups):
            t = pf.read_row_group(g)
            n = t.num_rows
            mine = [r for r in range(rec + 1, rec + n + 1) if r in targets]
            if mine:
                t = _change_group(
                    pa, t, tops, fields, mine, rec, targets, index, counted, config, rows, task.name
                )
            if t.num_rows:
                writer.write_table(t, row_group_size=t.num_rows)
            rec += n
            if progress:
                progress(task.size // max(1, pf.num_row_groups))
    finally:
        writer.close()
    h = hashlib.sha256()
    with open(task.path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK_BYTES), b""):
            h.update(block)
    if rec != task.records:
        raise EvalsieveError(
            "internal", f"{rec} rows but the scan counted {task.records}", file=task.name
        )
    return _result(h.hexdigest(), rec, rows)


def _change_group(pa, t, tops, fields, mine, rec, targets, index, counted, config, rows, name):
    cols = {c: t.column(c).to_pylist() for c in tops}
    drop = set()
    for r in mine:
        j = r - rec - 1
        value = {c: plain(cols[c][j]) for c in tops}
        segs = fields.segments(value)
        plan = plan_record(segs, index, counted, config)
        if plan.found != set(targets[r]) or not plan.action:
            raise EvalsieveError(
                "internal",
                f"row {r} does not hold the eval n-grams the scan "
                "found in it (did the file change during the run?)",
                file=name,
            )
        after = None
        if plan.action == "cut":
            slots: list = []
            raw_row = {c: cols[c][j] for c in tops}
            for steps in fields._steps:
                _slots(raw_row, steps, 0, slots)
            settable = len(slots) == len(segs) and all(
                isinstance(p, (dict, list)) and isinstance(p[k], str)
                for (p, k), v in zip(slots, plan.values)
                if v is not None
            )
            if settable:
                for (p, k), v in zip(slots, plan.values):
                    if v is not None:
                        p[k] = v
                for c in tops:
                    cols[c][j] = raw_row[c]
                after = [s if v is None else v for s, v in zip(segs, plan.values)]
            else:
                plan.action, plan.reason = "dropped", "a matched value is not a string"
                plan.chars_removed = sum(len(s) for s in segs)
        if plan.action == "dropped":
            drop.add(j)
        rows.append(
            {
                "record": r,
                "line": None,
                "action": plan.action,
                "reason": plan.reason,
                "splits": plan.splits,
                "regions": plan.regions,
                "matched": plan.matched,
                "chars_removed": plan.chars_removed,
                "ngrams": plan.ngrams,
                "occurrences": plan.occurrences,
                "found": sorted(plan.found),
                "segments_after": after,
            }
        )
    for c in tops:
        i = t.schema.get_field_index(c)
        t = t.set_column(i, t.schema.field(i), pa.array(cols[c], type=t.schema.field(i).type))
    if drop:
        t = t.take(pa.array([j for j in range(t.num_rows) if j not in drop], pa.int64()))
    return t
