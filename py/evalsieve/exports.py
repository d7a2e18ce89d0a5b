"""Exports: the files a run writes (the page downloads the same bytes the CLI writes).

CSV exports (RFC 4180, ``\\r\\n`` line ends as the csv module writes them) start with one
comment line, ``# run_stamp {json}``; the header is line 2 (``pandas.read_csv(f,
skiprows=1)``). Text cells that a spreadsheet would run as a formula (starting with ``=``,
``+``, ``-``, ``@``, tab or carriage return) get a leading ``'`` (OWASP CSV injection
guidance). ``eval.clean.*`` is never touched: it is the kept rows' own bytes.
"""

from __future__ import annotations

import csv
import html
import io

from .stamps import RunStamp, canonical_json

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


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


def write_csv(stamp: RunStamp, header: list[str], rows) -> str:
    """A CSV export: the stamp line, the header, then ``rows`` (iterables of cells).

    Returns:
        The file's text (encode as UTF-8 to write it).
    """
    buf = io.StringIO()
    buf.write(stamp.line() + "\r\n")
    w = csv.writer(buf)
    w.writerow(header)
    for r in rows:
        w.writerow([safe_cell(c) for c in r])
    return buf.getvalue()


def fmt_float(x: float | None, digits: int = 4) -> str:
    """A fixed-precision number for exports, '' for None."""
    return "" if x is None else f"{x:.{digits}f}"


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#1b1b1b;padding:0 1em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.settings td:first-child{white-space:nowrap;font-weight:600}
.bar{display:inline-block;height:.9em;background:#c0392b;vertical-align:middle}
.clip{max-width:40em;overflow-wrap:anywhere}
.rule{background:#f7f7f2;border-left:4px solid #999;padding:.5em 1em}
"""


def html_page(title: str, sections: list[str]) -> str:
    """A self-contained HTML document: inline CSS, no script, no external reference."""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(sections) + "\n</body></html>\n")


def html_table(header: list[str], rows, num_cols: frozenset = frozenset(), cls: str = "") -> str:
    """An HTML table; every cell is escaped text (markup in the data renders as text)."""
    out = [f"<table class=\"{cls}\"><thead><tr>" if cls else "<table><thead><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>")
        for i, c in enumerate(r):
            klass = " class=\"num\"" if i in num_cols else " class=\"clip\""
            out.append(f"<td{klass}>{html.escape('' if c is None else str(c))}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def stamp_section(stamp: RunStamp) -> str:
    """The run stamp as a settings table plus its canonical JSON."""
    d = stamp.to_dict()
    rows = [("tool", f"{d['tool']} {d['version']}"), ("runtime", d["runtime"]),
            ("unicode", d["unicode_version"]), ("utc", d["utc"]),
            ("fingerprint", d["fingerprint"])]
    rows += [(f"setting: {k}", canonical_json(v) if not isinstance(v, str) else v)
             for k, v in sorted(d["settings"].items())]
    rows += [(f"input: {i['role']}", f"{i['name']} · {i['bytes']} bytes · {i['format']} · "
              f"sha256 {i['sha256']}") for i in d["inputs"]]
    rows += [(f"asset: {k}", str(v)) for k, v in sorted(d["assets"].items())]
    rows += [(f"page: {k}", str(v)) for k, v in sorted(d["environment"].items())]
    return ("<h2>Run stamp</h2>" + html_table(["what", "value"], rows, cls="settings")
            + "<pre class=\"clip\">" + html.escape(canonical_json(d)) + "</pre>")
