"""Property: for random eval files built from the corpus's pieces (valid JSONL rows with LF or
CRLF ends, odd Unicode, markup and formula-like text, duplicated rows, rows quoted inside
training documents, too-short rows, a BOM, gzip, a last line without its newline), the
contamination job accounts for every eval row exactly once (clean + contaminated + too
short), eval.clean is byte for byte the kept rows, and each row gets the verdict its
construction implies (quoted -> contaminated, fresh -> clean, short -> too short)."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import make_corpus
from hostile_common import check_contamination_result, cli, time_limit

# Decorations drawn from the corpus: each is one or two "words" that may sit in any row.
PIECES = [
    "",
    "👩‍👩‍👧‍👦",
    "🇫🇷 flag",
    "Cafe\u0301",
    "zero\u200bwidth",
    "\u202eoverride\u202c",
    "שלום עולם",
    "مرحبا",
    '<script>alert("x")</script>',
    '<img src=x onerror="alert(1)">',
    "</textarea>",
    "=SUM(A1:A9)",
    "+1",
    "-2",
    "@cmd",
    "tab\there",
    'quote "inside"',
    "back\\slash",
    "\u0000nul-escaped",
]

ROW = st.tuples(
    st.sampled_from(["fresh", "quoted", "short", "dup"]),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(PIECES),
    st.integers(min_value=14, max_value=22),  # words of a fresh/quoted row (N is at most 13)
    st.integers(min_value=0, max_value=6),  # where the decoration goes
)


def words_of(i: int, count: int) -> list[str]:
    # distinct words per row, so only a quoted row can share an n-gram with training
    return [f"w{i}x{k}" + "abcdefghij"[k % 10] for k in range(count)]


def build(spec, bom: bool, gz: bool, last_newline: bool):
    """(eval file bytes, each row's bytes, expected status per row, training file bytes)."""
    rows: list[bytes] = []
    status: list[str] = []
    texts: list[str] = []
    docs: list[str] = []
    for i, (kind, end, piece, count, at) in enumerate(spec):
        if kind == "dup" and texts:
            j = i % len(texts)
            text, st_ = texts[j], status[j]
        elif kind == "short" or kind == "dup":
            text, st_ = " ".join(words_of(i, 1 + count % 3)), "too_short"
        else:
            ws = words_of(i, count)
            if piece:
                ws.insert(at, piece)
            text = " ".join(ws)
            st_ = "contaminated" if kind == "quoted" else "clean"
            if kind == "quoted":
                docs.append(f"Some preface about row {i}. {text} And an unrelated ending.")
        texts.append(text)
        status.append(st_)
        rows.append(
            json.dumps({"id": i + 1, "question": text}, ensure_ascii=i % 2 == 0).encode("utf-8")
            + end.encode()
        )
    if not last_newline:
        rows[-1] = rows[-1].rstrip(b"\r\n")
    docs += [f"filler document {k} about nothing in particular at all" for k in range(3)]
    train = "".join(json.dumps({"text": d}) + "\n" for d in docs).encode("utf-8")
    data = (make_corpus.BOM if bom else b"") + b"".join(rows)
    if gz:
        data = gzip.compress(data, mtime=0)
    return data, rows, status, train


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    spec=st.lists(ROW, min_size=1, max_size=25),
    bom=st.booleans(),
    gz=st.booleans(),
    last_newline=st.booleans(),
)
def test_every_row_accounted_once_and_kept_rows_byte_exact(spec, bom, gz, last_newline):
    data, rows, status, train = build(spec, bom, gz, last_newline)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "eval.jsonl").write_bytes(data)
        (d / "train.jsonl").write_bytes(train)
        out, err = io.StringIO(), io.StringIO()
        with time_limit(60), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(
                [
                    "contamination",
                    str(d / "eval.jsonl"),
                    str(d / "train.jsonl"),
                    "--out",
                    str(d / "out"),
                    "--eval-field",
                    "question",
                    "--train-field",
                    "text",
                    "--json",
                    "--quiet",
                ]
            )
        assert rc == 0, err.getvalue()
        summary = json.loads(out.getvalue())
        got = check_contamination_result(
            d / "out", summary, rows, b"", make_corpus.BOM if bom else b""
        )
    want = {"clean": [], "contaminated": [], "too_short": []}
    for i, s in enumerate(status):
        want[s].append(i + 1)
    assert {k: sorted(v) for k, v in got.items()} == want
