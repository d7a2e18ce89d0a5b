"""Exports: the files a run writes (the page downloads the same bytes the CLI writes).

CSV exports are plain CSV (RFC 4180, ``\\r\\n`` line ends as the csv module writes them):
the header on line 1, then one record per row, so ``pandas.read_csv(path)``,
``polars.read_csv(path)``, ``duckdb.read_csv(path)`` and ``csv.DictReader`` read them with
default settings. Their last column, ``run_fingerprint``, holds the run stamp's fingerprint
in every row; the stamp itself travels beside them as ``run-stamp.json``
(:func:`stamp_json`) and in ``overlap-report.html``. Text cells that a spreadsheet would run
as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return) get a
leading ``'`` (OWASP CSV injection guidance; the Parquet versions keep the text as it
was). ``eval.clean.*`` is never touched: it is the kept rows' own bytes.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re

from .stamps import RunStamp, canonical_json

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: The last column of every CSV export: the run stamp's fingerprint (64 hex digits).
FINGERPRINT_COLUMN = "run_fingerprint"


def safe_cell(value) -> str:
    """A CSV cell that a spreadsheet shows as text: prefixes ``'`` to formula-like text.

    Numbers (int/float) are written as they are; None becomes an empty cell.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    s = str(value)
    if s.startswith(_FORMULA_START):
        return "'" + s
    return s


class CsvExport(str):
    """A CSV export's text (a ``str``: write it as UTF-8), with what it was made of.

    Attributes:
        header: the column names, ``run_fingerprint`` last.
        rows: the cells as given to :func:`write_csv` (Python values before
            :func:`safe_cell`, without the fingerprint), a list of lists.
        fingerprint: the run stamp's fingerprint (every row's last cell).
    """

    header: list
    rows: list
    fingerprint: str


def write_csv(stamp: RunStamp, header: list[str], rows) -> CsvExport:
    """A CSV export: the header, then ``rows`` (iterables of cells), each row ending with
    the run stamp's fingerprint (column ``run_fingerprint``).

    Returns:
        The file's text as a :class:`CsvExport` (encode as UTF-8 to write it).
    Raises:
        ValueError: ``header`` already names ``run_fingerprint``, or a row's length is not
        the header's.
    """
    if FINGERPRINT_COLUMN in header:
        raise ValueError(f"{FINGERPRINT_COLUMN} is added by write_csv")
    fp = stamp.to_dict()["fingerprint"]
    raw = [list(r) for r in rows]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([*header, FINGERPRINT_COLUMN])
    for r in raw:
        if len(r) != len(header):
            raise ValueError(f"a row of {len(r)} cells under a header of {len(header)}")
        w.writerow([*(safe_cell(c) for c in r), fp])
    out = CsvExport(buf.getvalue())
    out.header, out.rows, out.fingerprint = [*header, FINGERPRINT_COLUMN], raw, fp
    return out


def stamp_json(stamp: RunStamp) -> str:
    """``run-stamp.json``: the stamp with its fingerprint (:meth:`RunStamp.to_dict`) as
    indented JSON, keys sorted, UTF-8 kept, one newline at the end."""
    return json.dumps(stamp.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def fmt_float(x: float | None, digits: int = 4) -> str:
    """A fixed-precision number for exports, '' for None."""
    return "" if x is None else f"{x:.{digits}f}"


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:78em;color:#1b1b1b;padding:0 1em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
table.settings{width:auto;max-width:100%}
td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left;
overflow-wrap:break-word}
td.long{overflow-wrap:anywhere}
th{background:#f3f3f3;overflow-wrap:normal}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}th.num{width:1%}
.settings td:first-child{font-weight:600;width:14em}
mark{background:#ffe08a;color:inherit;print-color-adjust:exact;-webkit-print-color-adjust:exact}
.bar{display:inline-block;height:.9em;background:#c0392b;vertical-align:middle}
.clip{max-width:40em;white-space:pre-wrap}
.rule{background:#f7f7f2;border-left:4px solid #999;padding:.5em 1em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
svg{max-width:100%;height:auto}
details{margin:.5em 0}summary{cursor:pointer}
@page{size:A4;margin:12mm}
@media print{body{margin:0;max-width:none;padding:0;font-size:10pt}td,th{overflow-wrap:anywhere}}
"""

#: A cell's text is right-aligned (as a number) only when the column holds numbers and the
#: text reads as one: ``12``, ``1,234``, ``-0.5000``, ``5%``, a fraction ``9/20`` or an
#: interval ``[0.1000, 0.2000]`` (not a version such as ``14.0.0``).
_NUM = r"[+\-−]?\d[\d,]*(?:\.\d+)?%?"
_NUMBER_TEXT = re.compile(rf"^(?:{_NUM}|{_NUM}/{_NUM}|\[{_NUM}, {_NUM}\])$")
#: Cells longer than this may break anywhere (long words, hashes, URLs); shorter ones only
#: at spaces, so a column of names or short words keeps its words whole.
_LONG_CELL = 60


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and bool(_NUMBER_TEXT.match(value))


def plain_text(value) -> str:
    """A setting, asset or environment value as plain words (not Python or JSON syntax):
    lists joined by ``, ``; dicts as ``key value`` pairs joined by `` · ``; None as
    ``none``; booleans as ``yes``/``no``. E.g. ``{"version": "0.27", "sha256": "ab"}`` ->
    ``version 0.27 · sha256 ab``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return " · ".join(f"{k} {plain_text(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(plain_text(v) for v in value) or "none"
    return str(value)


def html_page(title: str, sections: list[str]) -> str:
    """A self-contained HTML document: inline CSS, no script, no external reference."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(sections)
        + "\n</body></html>\n"
    )


class MarkedText(str):
    """A table cell's text with spans to highlight: ``MarkedText(text, spans)``, ``spans`` in
    UTF-16 code units (:func:`evalsieve.highlight.passage_spans`, what the page uses).
    :func:`html_table` prints it escaped with each span inside ``<mark>``."""

    def __new__(cls, text: str, spans: list[list[int]]):
        obj = super().__new__(cls, text)
        obj.spans = spans
        return obj


def marked_html(text: str, spans: list[list[int]]) -> str:
    """``text`` escaped for HTML with each span (UTF-16 offsets, in order, not overlapping)
    inside ``<mark>``; markup in ``text`` renders as text. E.g. ``("a <b> c", [[2, 5]])`` ->
    ``"a <mark>&lt;b&gt;</mark> c"``.

    Raises:
        ValueError: a span not on a character boundary (see highlight.code_points).
    """
    from .highlight import code_points

    out, at = [], 0
    for a, b in code_points(text, spans):
        if a < at or b < a:
            raise ValueError(f"spans out of order or overlapping at {a}")
        out += [html.escape(text[at:a]), "<mark>", html.escape(text[a:b]), "</mark>"]
        at = b
    out.append(html.escape(text[at:]))
    return "".join(out)


def html_table(header: list[str], rows, num_cols: frozenset = frozenset(), cls: str = "") -> str:
    """An HTML table; every cell is escaped text (markup in the data renders as text); a
    :class:`MarkedText` cell has its spans inside ``<mark>``.

    Columns in ``num_cols`` hold numbers: their cells are right-aligned when they read as a
    number (see ``_NUMBER_TEXT``), and left-aligned when they hold words ("did not run").
    Every other cell is text: left-aligned, wrapped, line ends kept.
    """
    out = [f'<table class="{cls}"><thead><tr>' if cls else "<table><thead><tr>"]
    out += [
        f'<th class="num">{html.escape(h)}</th>'
        if i in num_cols and cls != "settings"
        else f"<th>{html.escape(h)}</th>"
        for i, h in enumerate(header)
    ]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>")
        for i, c in enumerate(r):
            text = "" if c is None else str(c)
            klass = (
                ' class="num"'
                if i in num_cols and _is_number(c)
                else ' class="clip long"'
                if len(text) > _LONG_CELL
                else ' class="clip"'
            )
            body = marked_html(text, c.spans) if isinstance(c, MarkedText) else html.escape(text)
            out.append(f"<td{klass}>{body}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def stamp_section(stamp: RunStamp) -> str:
    """The run stamp as a table of plain text, then its canonical JSON (what the fingerprint
    is taken of) wrapped inside a collapsed ``<details>``, so the page fits A4 or 1280 px."""
    d = stamp.to_dict()
    rows = [
        ("tool", f"{d['tool']} {d['version']}"),
        ("runtime", d["runtime"]),
        ("unicode", d["unicode_version"]),
        ("utc", d["utc"]),
        ("fingerprint", d["fingerprint"]),
    ]
    rows += [(f"setting: {k}", plain_text(v)) for k, v in sorted(d["settings"].items())]
    rows += [
        (
            f"input: {i['role']}",
            f"{i['name']} · {i['bytes']} bytes · {i['format']} · sha256 {i['sha256']}",
        )
        for i in d["inputs"]
    ]
    rows += [(f"asset: {k}", plain_text(v)) for k, v in sorted(d["assets"].items())]
    rows += [(f"page: {k}", plain_text(v)) for k, v in sorted(d["environment"].items())]
    return (
        "<h2>Run stamp</h2>"
        + html_table(["what", "value"], rows, frozenset({1}), cls="settings")
        + "<details><summary>The run stamp as canonical JSON (run-stamp.json holds the "
        "same; the CSV exports' run_fingerprint column holds its fingerprint)</summary>"
        "<pre>" + html.escape(canonical_json(d)) + "</pre></details>"
    )


# -- score impact --------------------------------------------------------------------------------
IMPACT_COLUMNS = [
    "metric",
    "kind",
    "subset",
    "n",
    "clusters",
    "mean",
    "ci95_lo",
    "ci95_hi",
    "interval",
    "se_naive",
    "se_clustered",
    "design_effect",
    "effective_n",
]
UNMATCHED_COLUMNS = ["side", "score_line", "eval_row", "key", "reason"]

_SUBSETS = (
    ("all", "all joined rows"),
    ("clean", "clean rows"),
    ("contaminated", "contaminated rows"),
    ("too_short", "rows too short to score (neither clean nor contaminated)"),
    ("one_per_group", "one row per paraphrase group"),
)
_INTERVAL = {"wilson": "Wilson score", "t": "t, n-1 df", "": ""}


def _f6(x) -> float | None:
    # a number cell (rounded to 6 places), so a negative value is not taken for a formula
    return None if x is None else round(x, 6)


def impact_rows(figures: list[dict]) -> list[list]:
    """The rows of ``score-impact.csv`` (columns IMPACT_COLUMNS) for per-metric figures
    from :func:`evalsieve.scores.contamination_impact` or ``paraphrase_impact``."""
    out = []
    for f in figures:
        m, kind = f["metric"], f["kind"]
        for key, _ in _SUBSETS:
            s = f.get(key)
            if s is None:
                continue
            out.append(
                [
                    m,
                    kind,
                    key,
                    s["n"],
                    "",
                    _f6(s["mean"]),
                    _f6(s["ci95"][0]),
                    _f6(s["ci95"][1]),
                    _INTERVAL[s["method"]],
                    _f6(s["se"]),
                    "",
                    "",
                    "",
                ]
            )
        for rung, s in (f.get("contaminated_by_rung") or {}).items():
            out.append(
                [
                    m,
                    kind,
                    f"contaminated_rung_{rung}",
                    s["n"],
                    "",
                    _f6(s["mean"]),
                    _f6(s["ci95"][0]),
                    _f6(s["ci95"][1]),
                    _INTERVAL[s["method"]],
                    _f6(s["se"]),
                    "",
                    "",
                    "",
                ]
            )
        c = f.get("clustered")
        if c is not None:
            out.append(
                [
                    m,
                    kind,
                    "all_clustered",
                    c["n"],
                    c["clusters"],
                    _f6(c["mean"]),
                    _f6(c["ci95"][0]),
                    _f6(c["ci95"][1]),
                    "CR1, t with G-1 df",
                    _f6(c["se_naive"]),
                    _f6(c["se_clustered"]),
                    _f6(c["design_effect"]),
                    _f6(c["effective_n"]),
                ]
            )
        for key in ("difference_contaminated_minus_clean", "difference_clean_minus_all"):
            d = f.get(key)
            if d is None:
                continue
            out.append(
                [
                    m,
                    kind,
                    key.replace("difference_", ""),
                    "",
                    "",
                    _f6(d["estimate"]),
                    _f6(d["ci95"][0]),
                    _f6(d["ci95"][1]),
                    "MOVER (Newcombe/Zou-Donner)",
                    "",
                    "",
                    "",
                    "",
                ]
            )
    return out


def score_impact_csv(stamp: RunStamp, figures: list[dict]) -> str:
    """``score-impact.csv``: one row per metric and subset."""
    return write_csv(stamp, IMPACT_COLUMNS, impact_rows(figures))


def unmatched_csv(stamp: RunStamp, join) -> str:
    """``scores-unmatched.csv``: every score row that matched no eval row
    (side ``scores``) and every eval row without a score (side ``eval``)."""
    rows = [["scores", line, "", key, reason] for line, key, reason in join.unmatched]
    rows += [["eval", "", r, "", "no score row"] for r in join.unscored]
    return write_csv(stamp, UNMATCHED_COLUMNS, rows)


def _svg_text(x: float, y: float, s: str, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="12">'
        f"{html.escape(s)}</text>"
    )


def whisker_svg(
    rows: list[tuple[str, float | None, float | None, float | None]],
    lo: float,
    hi: float,
    zero: bool = False,
) -> str:
    """Points with 95% whiskers as inline SVG (no script): one line per ``(label, mean,
    ci_lo, ci_hi)`` on a common axis from ``lo`` to ``hi``; ``zero`` draws x = 0."""
    left, width, step = 260.0, 420.0, 26.0
    h = step * len(rows) + 40
    span = (hi - lo) or 1.0
    X = lambda v: left + (v - lo) / span * width
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90:.0f}" '
        f'height="{h:.0f}" role="img">'
    ]
    axis_y = step * len(rows) + 8
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + width}" y2="{axis_y}" stroke="#555"/>')
    for k in range(5):
        v = lo + span * k / 4
        out.append(
            f'<line x1="{X(v):.1f}" y1="{axis_y}" x2="{X(v):.1f}" y2="{axis_y + 4}" stroke="#555"/>'
        )
        out.append(_svg_text(X(v), axis_y + 18, f"{v:.3g}", "middle"))
    if zero and lo < 0 < hi:
        out.append(
            f'<line x1="{X(0):.1f}" y1="4" x2="{X(0):.1f}" y2="{axis_y}" '
            'stroke="#999" stroke-dasharray="3 3"/>'
        )
    for i, (label, m, a, b) in enumerate(rows):
        y = step * i + 16
        out.append(_svg_text(4, y + 4, label))
        if m is None:
            out.append(_svg_text(left, y + 4, "no rows"))
            continue
        if a is not None and b is not None:
            out.append(
                f'<line x1="{X(a):.1f}" y1="{y}" x2="{X(b):.1f}" y2="{y}" '
                'stroke="#1f4e79" stroke-width="2"/>'
            )
            for v in (a, b):
                out.append(
                    f'<line x1="{X(v):.1f}" y1="{y - 5}" x2="{X(v):.1f}" '
                    f'y2="{y + 5}" stroke="#1f4e79" stroke-width="2"/>'
                )
        out.append(f'<circle cx="{X(m):.1f}" cy="{y}" r="4" fill="#c0392b"/>')
        out.append(_svg_text(left + width + 8, y + 4, f"{m:.3f}"))
    out.append("</svg>")
    return "".join(out)


def _ci(lo, hi) -> str:
    return "" if lo is None or hi is None else f"[{lo:.4f}, {hi:.4f}]"


def score_impact_section(figures: list[dict], scores_name: str, settings: dict) -> str:
    """The "Score impact" section of ``overlap-report.html``: per metric a table of the
    figures and a points-and-whiskers plot (inline SVG)."""
    parts = [
        "<h2>Score impact</h2>",
        f"<p>Per-row scores from <b>{html.escape(scores_name)}</b> (join: "
        f"{html.escape(str(settings.get('score_join')))}, key "
        f"{html.escape(str(settings.get('score_key')))}, filter "
        f"{html.escape(str(settings.get('score_filter')))}). 95% intervals: Wilson "
        "score for 0/1 metrics, t for continuous ones; differences by MOVER "
        "(Newcombe's hybrid score interval for two proportions). Formulas: "
        "docs/SCORE_IMPACT.md.</p>",
    ]
    for f in figures:
        rows, pts, diffs = [], [], []
        for key, label in _SUBSETS:
            s = f.get(key)
            if s is None:
                continue
            rows.append(
                (
                    label,
                    s["n"],
                    "" if s["mean"] is None else f"{s['mean']:.4f}",
                    _ci(*s["ci95"]),
                    _INTERVAL[s["method"]],
                )
            )
            if s["n"]:
                pts.append((f"{label.split(' (')[0]} (n={s['n']})", s["mean"], *s["ci95"]))
        for rung, s in (f.get("contaminated_by_rung") or {}).items():
            label = f"contaminated, caught first by rung {rung}"
            rows.append(
                (
                    label,
                    s["n"],
                    "" if s["mean"] is None else f"{s['mean']:.4f}",
                    _ci(*s["ci95"]),
                    _INTERVAL[s["method"]],
                )
            )
            if s["n"]:
                pts.append((f"rung {rung} (n={s['n']})", s["mean"], *s["ci95"]))
        for key, label in (
            ("difference_contaminated_minus_clean", "contaminated − clean"),
            ("difference_clean_minus_all", "clean − all"),
        ):
            d = f.get(key)
            if d is None:
                continue
            rows.append(
                (
                    label,
                    "",
                    "" if d["estimate"] is None else f"{d['estimate']:+.4f}",
                    _ci(*d["ci95"]),
                    "MOVER",
                )
            )
            diffs.append((label, d["estimate"], *d["ci95"]))
        parts.append(
            f"<h3>{html.escape(f['metric'])} ({f['kind']}; {f['rows_joined']} rows "
            f"joined, {f['rows_unmatched']} score rows unmatched, "
            f"{f['rows_unscored']} eval rows without a score)</h3>"
        )
        parts.append(
            html_table(
                ["subset", "n", "mean", "95% interval", "interval"], rows, frozenset({1, 2, 3})
            )
        )
        vals = [v for _, m, a, b in pts for v in (m, a, b) if v is not None]
        if f["kind"] == "binary":
            lo, hi = 0.0, 1.0
        else:
            lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
        parts.append(whisker_svg(pts, lo, hi))
        dv = [abs(v) for _, m, a, b in diffs for v in (m, a, b) if v is not None]
        if dv:
            r = max(dv) * 1.05 or 1.0
            parts.append(whisker_svg(diffs, -r, r, zero=True))
    return "".join(parts)
