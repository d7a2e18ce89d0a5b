"""Per-row scores: read a scores file and join it to the eval rows (the impact figures:
:mod:`evalsieve.score_figures`, re-exported here).

Two forms of scores file are read (JSONL, CSV or TSV, as :mod:`evalsieve.records` reads them):

* **lm-evaluation-harness ``--log_samples``** (``samples_<task>_<date>.jsonl``): one JSON
  object per (doc, filter) with ``doc_id`` (the 0-based position of the doc in the task's
  eval split), ``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``,
  ``filter`` (e.g. ``strict-match``), ``metrics`` (the names of the metric keys, e.g.
  ``["exact_match"]``), ``doc_hash``, ``prompt_hash``, ``target_hash`` and one key per
  metric (``acc``, ``acc_norm``, ``exact_match`` ...). Source: lm-evaluation-harness
  ``lm_eval/evaluator.py`` (the ``example`` dict built when ``log_samples`` is on) and
  ``lm_eval/loggers/evaluation_tracker.py`` (``save_results_samples``). A row is read as one
  when it has ``doc_id``, ``filter`` and a ``metrics`` list.
* **any table** with a key column and numeric or boolean score columns.

Joining (:func:`join_scores`): by order (``doc_id`` = 0-based eval row, the default when the
file has ``doc_id``), or by a key (the score file's field ``key`` equals the eval file's
field ``eval_key``, compared as text). Score rows that match no eval row and eval rows
without a score are counted and listed, never dropped silently. A key used twice (in either
file), or several filters in a harness file without a choice, is an error naming the file
and the line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import bad_input
from .fields import FieldExtractor
from .decoding import BOM
from .records import RecordReader
from .score_figures import contamination_impact, contamination_summary  # noqa: F401
from .score_figures import paraphrase_impact, paraphrase_summary  # noqa: F401

HARNESS = "lm-evaluation-harness samples"
TABLE = "table"
ORDER_KEY = "doc_id"


@dataclass(frozen=True)
class ScoreSpec:
    """How to read and join a scores file.

    Attributes:
        metrics: metric fields to sum up (``--score-field``, repeatable); () = the harness
            row's ``metrics`` list, or the table's only numeric column.
        key: the scores file's join field (a field path); None = ``doc_id`` (by order).
        eval_key: the eval file's field the key matches; None = the same path as ``key``.
        filter: the harness filter to keep (``--score-filter``); None = the file's only one.

    Example: ``ScoreSpec(("exact_match",), filter="strict-match")`` joins a GSM8K samples
    file by ``doc_id``; ``ScoreSpec(key="doc.question", eval_key="question")`` by question.
    """

    metrics: tuple = ()
    key: str | None = None
    eval_key: str | None = None
    filter: str | None = None

    @property
    def by_order(self) -> bool:
        """True when joining by ``doc_id`` (0-based eval row)."""
        return self.key in (None, ORDER_KEY)

    def eval_field(self) -> str | None:
        """The eval field a key join reads (None when joining by order)."""
        return None if self.by_order else (self.eval_key or self.key)


@dataclass
class ScoreTable:
    """The rows of a scores file that count, as :class:`ScoreReader` read them.

    Attributes:
        name: the file's name.
        source: ``HARNESS`` or ``TABLE``.
        metrics: the chosen metric names, in order.
        keys: per kept row, the join key (``int`` doc_id by order, else text).
        lines: per kept row, its 1-based line in the file.
        values: per kept row, ``{metric: float}``.
        filter: the harness filter kept (None for a table).
        filters_seen: every filter name met, in order.
        rows_other_filter: harness rows of other filters (skipped by choice, counted).
    """

    name: str
    source: str
    metrics: list
    keys: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    values: list = field(default_factory=list)
    filter: str | None = None
    filters_seen: list = field(default_factory=list)
    rows_other_filter: int = 0


def _lookup(value: dict, path: str):
    """The value at a dotted path (no ``[]``), or a KeyError."""
    if path in value:
        return value[path]
    v = value
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            raise KeyError(path)
        v = v[part]
    return v


def to_score(v, name: str, line: int, metric: str) -> float:
    """A score cell as a float: booleans are 1/0; numbers as they are; CSV text
    ``true``/``false`` or a number. Raises EvalsieveError(bad_input) naming file and line."""
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        x = float(v)
    elif isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return 1.0 if v.strip().lower() == "true" else 0.0
    else:
        try:
            x = float(v) if isinstance(v, str) and v.strip() else None
        except ValueError:
            x = None
        if x is None:
            shown = repr(v)[:60]
            raise bad_input(
                f"the score {metric!r} is {shown}, not a number",
                file=name,
                line=line,
                expected="a number or true/false in every scored row",
            )
    if not math.isfinite(x):
        raise bad_input(
            f"the score {metric!r} is {x}", file=name, line=line, expected="a finite number"
        )
    return x


def _is_number_like(v) -> bool:
    if isinstance(v, (bool, int, float)):
        return True
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "false"):
            return True
        try:
            float(s)
            return bool(s)
        except ValueError:
            return False
    return False


class ScoreReader:
    """Push reader for a scores file: ``feed`` text chunks, then ``finish`` for the table.

    Args:
        name: the file's name (for errors).
        fmt: ``jsonl``, ``csv`` or ``tsv``.
        spec: the :class:`ScoreSpec`.
    Raises (from feed/finish):
        EvalsieveError(bad_input): a malformed line; a harness file with several filters
        and no ``spec.filter``, or without that filter; a metric missing or not a number;
        a key missing or used twice; a table with several numeric columns and no metric
        chosen.
    """

    def __init__(self, name: str, fmt: str, spec: ScoreSpec):
        if fmt not in ("jsonl", "csv", "tsv"):
            raise bad_input(
                f"a scores file cannot be {fmt}",
                file=name,
                expected="JSONL (e.g. lm-evaluation-harness samples_*.jsonl), CSV or TSV",
            )
        self.name, self.fmt, self.spec = name, fmt, spec
        self._reader = RecordReader(fmt, name)
        self._key = None if spec.by_order else FieldExtractor(fmt, [spec.key], name)
        self.table: ScoreTable | None = None
        self._first_line: dict = {}  # key -> line where it was first seen
        self._filter_line: dict = {}  # filter -> first line

    def feed(self, text: str) -> None:
        """Read the next chunk of the file."""
        for r in self._reader.feed(text):
            self._take(r)

    def finish(self) -> ScoreTable:
        """Close the file. Returns the :class:`ScoreTable` (at least one row)."""
        for r in self._reader.finish():
            self._take(r)
        t = self.table
        if t is None:
            raise bad_input(
                "the scores file has no rows",
                file=self.name,
                expected="one row per scored eval row",
            )
        if not t.keys:
            raise bad_input(
                f"no row has the filter {self.spec.filter!r}",
                file=self.name,
                expected="--score-filter one of " + ", ".join(t.filters_seen),
            )
        return t

    def _start(self, value: dict, line: int) -> ScoreTable:
        spec = self.spec
        harness = (
            isinstance(value.get("metrics"), list) and "filter" in value and ORDER_KEY in value
        )
        if spec.by_order and ORDER_KEY not in value:
            raise bad_input(
                "no join key: the scores file has no doc_id",
                file=self.name,
                line=line,
                expected="--score-key F (a field of both files) or a "
                "doc_id column (0-based eval row)",
            )
        if spec.metrics:
            metrics = list(spec.metrics)
        elif harness:
            metrics = [str(m) for m in value["metrics"]]
        else:
            skip = {ORDER_KEY, spec.key}
            metrics = [k for k, v in value.items() if k not in skip and _is_number_like(v)]
            if len(metrics) != 1:
                raise bad_input(
                    f"{len(metrics)} numeric columns could be the score"
                    + (f" ({', '.join(metrics)})" if metrics else ""),
                    file=self.name,
                    line=line,
                    expected="--score-field F naming the score column(s)",
                )
        return ScoreTable(self.name, HARNESS if harness else TABLE, metrics)

    def _take(self, r) -> None:
        value, line = r.value, r.line
        if self.table is None:
            self.table = self._start(value, line)
        t = self.table
        if t.source == HARNESS:
            f = value.get("filter")
            if f not in self._filter_line:
                self._filter_line[f] = line
                t.filters_seen.append(f)
            if self.spec.filter is None:
                if len(t.filters_seen) > 1:
                    a, b = t.filters_seen[0], f
                    raise bad_input(
                        f"more than one filter: {a!r} (line {self._filter_line[a]})"
                        f" and {b!r} (this line)",
                        file=self.name,
                        line=line,
                        expected=f"--score-filter NAME (e.g. {a!r})",
                    )
                t.filter = f
            elif f != self.spec.filter:
                t.rows_other_filter += 1
                return
            else:
                t.filter = f
        key = self._key_of(value, line)
        if key in self._first_line:
            raise bad_input(
                f"the key {key!r} is used twice (lines {self._first_line[key]} "
                f"and {line})" + (f", filter {t.filter!r}" if t.filter else ""),
                file=self.name,
                line=line,
                expected="one score row per eval row",
            )
        self._first_line[key] = line
        vals = {}
        for m in t.metrics:
            try:
                v = _lookup(value, m)
            except KeyError:
                raise bad_input(
                    f"no score {m!r} in this row",
                    file=self.name,
                    line=line,
                    expected=f"the field {m!r} in every row (--score-field)",
                ) from None
            vals[m] = to_score(v, self.name, line, m)
        t.keys.append(key)
        t.lines.append(line)
        t.values.append(vals)

    def _key_of(self, value: dict, line: int):
        if self._key is None:
            v = value.get(ORDER_KEY)
            if isinstance(v, str) and v.strip().isdigit():
                v = int(v.strip())
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise bad_input(
                    f"doc_id is {v!r}",
                    file=self.name,
                    line=line,
                    expected="a whole number ≥ 0 (the 0-based eval row)",
                )
            return v
        segs = self._key.segments(value)
        if not segs:
            raise bad_input(
                f"no value at the key {self.spec.key!r}",
                file=self.name,
                line=line,
                expected="a key value in every row",
            )
        return "\n".join(segs)


def read_scores(name: str, fmt: str, spec: ScoreSpec, text: str) -> ScoreTable:
    """Read a whole scores file from its text (see :class:`ScoreReader`)."""
    r = ScoreReader(name, fmt, spec)
    r.feed(text)
    return r.finish()


def eval_keys(fmt: str, name: str, text: str, path: str) -> list[str | None]:
    """Per eval row (in order), the text of the key field ``path``, or None when empty.

    ``text`` is the eval file's text (for CSV/TSV with its header line).
    """
    reader = RecordReader(fmt, name)
    ext = FieldExtractor(fmt, [path], name)
    out: list[str | None] = []
    for r in reader.feed(text) + reader.finish():
        segs = ext.segments(r.value)
        out.append("\n".join(segs) if segs else None)
    return out


@dataclass
class Join:
    """Scores joined to eval rows.

    Attributes:
        rows: eval row (1-based) -> ``{metric: float}``, for every joined row.
        unmatched: score rows that match no eval row: ``(line, key, reason)``.
        unscored: eval rows (1-based) with no score row.
    """

    rows: dict
    unmatched: list
    unscored: list


def join_scores(
    table: ScoreTable, eval_rows: int, keys: list | None = None, eval_name: str = "eval"
) -> Join:
    """Join a score table to the eval rows.

    Args:
        table: from :class:`ScoreReader`.
        eval_rows: the eval file's row count (rows are numbered 1..eval_rows).
        keys: for a key join, :func:`eval_keys` of the eval file; None joins by order
            (score ``doc_id`` d is eval row d + 1).
        eval_name: the eval file's name, for errors.
    Returns:
        A :class:`Join`.
    Raises:
        EvalsieveError(bad_input): an eval key used by two rows (naming both rows).
    """
    rows: dict = {}
    unmatched = []
    if keys is None:
        for k, line, v in zip(table.keys, table.lines, table.values):
            if k + 1 <= eval_rows:
                rows[k + 1] = v
            else:
                unmatched.append(
                    (line, k, f"doc_id {k} is past the last eval row (doc_id {eval_rows - 1})")
                )
    else:
        if len(keys) != eval_rows:
            raise bad_input(f"{len(keys)} eval keys for {eval_rows} rows", file=eval_name)
        where: dict = {}
        for i, k in enumerate(keys):
            if k is None:
                continue
            if k in where:
                raise bad_input(
                    f"the key {k[:60]!r} is used by eval rows {where[k]} and {i + 1}",
                    file=eval_name,
                    expected="a key field with one value per eval row",
                )
            where[k] = i + 1
        for k, line, v in zip(table.keys, table.lines, table.values):
            row = where.get(k)
            if row is None:
                unmatched.append((line, k, "no eval row has this key"))
            else:
                rows[row] = v
    unscored = [i for i in range(1, eval_rows + 1) if i not in rows]
    return Join(rows, unmatched, unscored)


def spec_settings(spec: ScoreSpec, table: ScoreTable) -> dict:
    """The scores part of a run stamp's settings: metric(s), key, eval key, filter, join."""
    return {
        "score_metrics": list(table.metrics),
        "score_source": table.source,
        "score_join": "order (doc_id = 0-based eval row)" if spec.by_order else "key",
        "score_key": ORDER_KEY if spec.by_order else spec.key,
        "score_eval_key": None if spec.by_order else spec.eval_field(),
        "score_filter": table.filter,
    }


class ScoreRun:
    """A scores file attached to a job: what the stamp records and what the exports need.

    Args:
        spec: how the file was read and is joined.
        table: the rows read (:class:`ScoreReader`).
        file: the scores file as the stamp names it (role ``"scores"``, sha256, bytes).
    """

    def __init__(self, spec: ScoreSpec, table: ScoreTable, file):
        self.spec, self.table, self.file = spec, table, file
        self.join: Join | None = None
        self.figures: list[dict] = []

    def settings(self) -> dict:
        """The stamp settings of the scores (see :func:`spec_settings`)."""
        return spec_settings(self.spec, self.table)

    def join_eval(self, eval_fmt: str, eval_name: str, eval_text, eval_rows: int) -> Join:
        """Join to the eval rows. ``eval_text`` is a callable returning the eval file's text
        (called only for a key join). Sets and returns ``self.join``."""
        keys = (
            None
            if self.spec.by_order
            else eval_keys(eval_fmt, eval_name, eval_text(), self.spec.eval_field())
        )
        self.join = join_scores(self.table, eval_rows, keys, eval_name)
        if not self.join.rows:
            raise bad_input(
                "no score row matches an eval row",
                file=self.table.name,
                expected="doc_id = 0-based eval row"
                if self.spec.by_order
                else f"values of {self.spec.key!r} equal to the eval field "
                f"{self.spec.eval_field()!r}",
            )
        return self.join


def score_run_from_json(args: dict, text: str) -> ScoreRun:
    """A :class:`ScoreRun` from plain JSON and the scores file's whole text: what a bridge op
    for the page will call (then ``job.set_scores(run)``).

    Args:
        args: ``{name, format, sha256, bytes, metrics: [..], key, eval_key, filter}``
            (only ``name`` and ``format`` are required).
        text: the scores file, decoded.
    Raises:
        EvalsieveError(bad_input): as :class:`ScoreReader`.
    """
    from .stamps import InputFile

    spec = ScoreSpec(
        tuple(args.get("metrics") or ()),
        args.get("key") or None,
        args.get("eval_key") or None,
        args.get("filter") or None,
    )
    reader = ScoreReader(args["name"], args["format"], spec)
    reader.feed(text or "")
    table = reader.finish()
    return ScoreRun(
        spec,
        table,
        InputFile(
            "scores",
            args["name"],
            args.get("sha256", ""),
            int(args.get("bytes", 0)),
            args["format"],
        ),
    )


def harness_filters(text: str) -> list[dict]:
    """The lm-eval filters of a samples file's text, with their rows, in the order met:
    ``[{"name": "strict-match", "rows": 1319}, ...]`` ([] for a table). A harness row is a
    JSON object with ``doc_id``, ``filter`` and a ``metrics`` list (as :class:`ScoreReader`
    tells them); other and malformed lines are not counted here (the run reports them).
    ``text`` starts as the file does (a byte-order mark is taken off)."""
    import json

    counts: dict = {}
    text = text or ""
    for line in (text[1:] if text.startswith(BOM) else text).splitlines():
        if '"filter"' not in line:
            continue
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(v, dict)
            and isinstance(v.get("metrics"), list)
            and "filter" in v
            and ORDER_KEY in v
        ):
            name = str(v["filter"])
            counts[name] = counts.get(name, 0) + 1
    return [{"name": k, "rows": n} for k, n in counts.items()]
