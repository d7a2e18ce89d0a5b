"""decoding.py: lines that are not UTF-8 are malformed records --skip-bad-lines skips, with
every filter and worker count alike; the clean file keeps the input's byte-order mark."""

import csv
import io
import json
import os
import sys

import pytest

from evalsieve import corpus
from evalsieve.decoding import invalid_utf8
from evalsieve.records import RecordReader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ON_PYODIDE = sys.platform == "emscripten"
cli_only = pytest.mark.skipif(
    ON_PYODIDE,
    reason="CLI runs: CPython (Pyodide's suite has no "
    "tests/hostile; the page's side is tests/e2e/test_e2e_utf8_bom.py)",
)
if not ON_PYODIDE:
    sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
    from hostile_common import comparable, read_csv_export, read_export, run_cli  # noqa: E402

EVAL = os.path.join(ROOT, "tests", "fixtures", "gsm8k_test_sample.jsonl")
Q = [json.loads(line)["question"] for line in open(EVAL, encoding="utf-8")]
FILLER = "the cat sat on the mat while a dog ran around the old garden and the bird sang"
HOW = "(expected UTF-8 text (re-encode the file, e.g. iconv -t UTF-8))"


def test_invalid_utf8_names_the_first_bad_byte_and_its_character():
    text = b'{"a": "caf\xe9 \xff"}\n'.decode("utf-8", "surrogateescape")
    e = invalid_utf8(text, "t.jsonl", 3)
    assert (e.code, e.file, e.line) == ("bad_input", "t.jsonl", 3)
    # '{"a": "caf' is 10 characters: the byte 0xE9 is the 11th
    assert e.message == "invalid UTF-8: the byte 0xE9 at character 11 of the record"
    assert invalid_utf8('{"a": "café \\udce9"}\n', "t.jsonl", 1) is None  # an escape is text


@pytest.mark.parametrize(
    "fmt, data, rows, skipped",
    [
        ("jsonl", b'{"a": 1}\n{"a": "\xc3("}\n{"a": 3}\n', [1, 3], [(2, "0xC3", 8)]),
        ("text", b"one\n\xe2\x82 two\nthree", [1, 3], [(2, "0xE2", 1)]),
        # a CSV record over two lines: skipped at its first line
        ("csv", b'q,a\n1,"x\n\xed\xa0\x80"\n2,y\n', [2], [(2, "0xED", 6)]),
    ],
)
def test_the_reader_skips_a_record_that_is_not_utf8(fmt, data, rows, skipped):
    r = RecordReader(fmt, "f", skip_bad=True)
    text = data.decode("utf-8", "surrogateescape")
    got = r.feed(text[:7]) + r.feed(text[7:]) + r.finish()
    assert [x.index for x in got] == rows  # a skipped record keeps its number
    assert r.skipped == [
        (ln, f"invalid UTF-8: the byte {b} at character {c} of the record {HOW}")
        for ln, b, c in skipped
    ]
    strict = RecordReader(fmt, "f")
    with pytest.raises(Exception) as e:
        strict.feed(text)
        strict.finish()
    assert "invalid UTF-8" in str(e.value)  # text with such bytes is never read as text


def make_files(tmp_path):
    """An eval file with a line that is not UTF-8 (line 4) and a training file with three
    (one a filler line no candidate filter reads, one holding an eval question)."""
    ev = [json.dumps({"question": q}).encode() for q in Q[:12]]
    ev[3] = b'{"question": "caf\xe9 au lait is what I order every morning at the station"}'
    (tmp_path / "ev.jsonl").write_bytes(b"\n".join(ev) + b"\n")
    tr = [json.dumps({"text": f"{FILLER} {i}"}).encode() for i in range(4000)]
    tr[5] = b'{"text": "\xff\xfe ' + FILLER.encode() + b'"}'
    tr[100] = json.dumps({"text": Q[1]}).encode()
    tr[2500] = b'{"text": "' + Q[2].encode() + b' \xc3"}'
    tr[3000] = json.dumps({"text": Q[6]}).encode()
    (tmp_path / "tr.jsonl").write_bytes(b"\n".join(tr) + b"\n")
    return str(tmp_path / "ev.jsonl"), str(tmp_path / "tr.jsonl")


def exports(d):
    """Every export of a run folder as two runs of the same rule must agree on
    (hostile_common.comparable: the stamp without its time, the HTML above its stamp)."""
    return {name: comparable(d, name) for name in sorted(os.listdir(d))}


@cli_only
@pytest.mark.parametrize(
    "settings",
    [
        ["--filter", "off"],
        ["--filter", "numpy"],
        ["--filter", "numpy", "--workers", "2"],
        ["--filter", "off", "--workers", "2"],
        ["--filter", "kernel"],
        ["--filter", "kernel", "--workers", "2"],
    ],
)
def test_lines_that_are_not_utf8_are_skipped_alike_on_every_path(
    settings, tmp_path, capsys, monkeypatch
):
    if "numpy" in settings:
        pytest.importorskip("numpy")
    if "kernel" in settings:  # the kernel refuses such a block: its lines go to the exact check
        pytest.importorskip("wasmtime")
    ev, tr = make_files(tmp_path)
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 60_000)  # --workers 2: byte ranges
    argv = [
        "contamination",
        ev,
        tr,
        "--eval-field",
        "question",
        "--train-field",
        "text",
        "--skip-bad-lines",
        "--quiet",
    ]
    rc, _, err = run_cli(
        argv + ["--out", str(tmp_path / "ref"), "--filter", "off", "--workers", "1"], capsys
    )
    assert rc == 0, err
    rc, _, err = run_cli(argv + ["--out", str(tmp_path / "o"), *settings], capsys)
    assert rc == 0, err
    stamp, rows = read_export(tmp_path / "o", "skipped-lines.csv")
    assert [(r["file"], r["line"], r["error"]) for r in rows] == [
        ("ev.jsonl", "4", f"invalid UTF-8: the byte 0xE9 at character 18 of the record {HOW}"),
        ("tr.jsonl", "6", f"invalid UTF-8: the byte 0xFF at character 11 of the record {HOW}"),
        (
            "tr.jsonl",
            "2501",
            f"invalid UTF-8: the byte 0xC3 at character {len(Q[2]) + 12} of the record {HOW}",
        ),
    ]
    assert stamp["settings"]["skipped_lines"] == {"ev.jsonl": 1, "tr.jsonl": 2}
    assert exports(tmp_path / "o") == exports(tmp_path / "ref")
    _, report = read_csv_export(
        open(tmp_path / "o" / "contamination-report.csv", encoding="utf-8").read()
    )
    hit = {r["eval_row"]: r["training_record"] for r in report if r["status"] == "contaminated"}
    # eval rows 2 and 7 (Q[1], Q[6]) are in records 101 and 3001; row 4 is no row; row 3
    # (Q[2]) only in the skipped record 2501
    assert hit == {"2": "101", "7": "3001"}
    clean = open(tmp_path / "o" / "eval.clean.jsonl", "rb").read()
    assert b"\xe9" not in clean and clean.count(b"\n") == 12 - 1 - 2


@cli_only
def test_without_skipping_a_line_that_is_not_utf8_stops_the_run(tmp_path, capsys):
    ev, tr = make_files(tmp_path)
    rc, _, err = run_cli(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
        ],
        capsys,
    )
    assert rc == 2
    assert "ev.jsonl, line 4: invalid UTF-8 at byte" in err


@cli_only
@pytest.mark.parametrize(
    "name, head, sep",
    [
        ("e.csv", "question,answer", ","),
        ("e.tsv", "question\tanswer", "\t"),
        ("e.jsonl", None, None),
    ],
)
def test_the_clean_file_keeps_the_inputs_bom(name, head, sep, tmp_path, capsys):
    """A BOM'd eval file (Excel writes them): eval.clean.* is the input's own bytes, BOM
    first, without the contaminated row."""

    def row(q, a):
        if head is None:
            return json.dumps({"question": q, "answer": a})
        f = io.StringIO()
        csv.writer(f, delimiter=sep, lineterminator="").writerow([q, a])
        return f.getvalue()

    rows = [row(Q[i], i) for i in range(4)]
    lines = ([head] if head else []) + rows
    (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    (tmp_path / "t.jsonl").write_text(json.dumps({"text": Q[2]}) + "\n", encoding="utf-8")
    rc, _, err = run_cli(
        [
            "contamination",
            str(tmp_path / name),
            str(tmp_path / "t.jsonl"),
            "--eval-field",
            "question",
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ],
        capsys,
    )
    assert rc == 0, err
    clean = (tmp_path / "o" / ("eval.clean" + os.path.splitext(name)[1])).read_bytes()
    kept = ([head] if head else []) + rows[:2] + rows[3:]
    assert clean == b"\xef\xbb\xbf" + "\r\n".join(kept).encode() + b"\r\n"
