"""The paraphrase job's eval.deduplicated.* under hostile eval files, end to end through the
CLI (needs the encoder extra and the model): the file is the input's own bytes with whole
records left out, its rows are the effective rows plus the empty ones, and the highest
threshold the CLI accepts still groups rows that are the same text."""

import json

import pytest

from evalsieve.cli import main

pytest.importorskip(
    "onnxruntime",
    reason="the paraphrase CLI needs the encoder extra "
    "(pip install -e .[encoder]); python3 build.py test installs it",
)
pytest.importorskip("tokenizers", reason="needs the encoder extra")

A = "What is the capital city of France?"
B = "How many legs does a spider have?"


def run(tmp_path, capsys, name, data: bytes, *extra):
    f = tmp_path / name
    f.write_bytes(data)
    out = tmp_path / "out"
    assert main(["paraphrases", str(f), "--out", str(out), "--json", "--quiet", *extra]) == 0
    s = json.loads(capsys.readouterr().out)
    [dedup] = [p for p in out.iterdir() if p.name.startswith("eval.deduplicated.")]
    return s, dedup.read_bytes()


@pytest.mark.parametrize(
    "name,data,want",
    [
        # BOM, CRLF, a quoted field over two lines, no newline after the last row (dropped)
        (
            "e.csv",
            b'\xef\xbb\xbfid,q\r\n1,"'
            + A.encode()
            + b'\r\nof it"\r\n2,'
            + B.encode()
            + b'\r\n3,"'
            + A.encode()
            + b'\r\nof it"',
            b'\xef\xbb\xbfid,q\r\n1,"' + A.encode() + b'\r\nof it"\r\n2,' + B.encode() + b"\r\n",
        ),
        # lone CR line ends, a quoted CRLF inside a field, the kept last row without a line end
        (
            "e.csv",
            b'id,q\r1,"' + A.encode() + b'\r\nx"\r2,"' + A.encode() + b'\r\nx"\r3,' + B.encode(),
            b'id,q\r1,"' + A.encode() + b'\r\nx"\r3,' + B.encode(),
        ),
        # TSV with an empty text field (kept: in no group) and a BOM
        (
            "e.tsv",
            b"\xef\xbb\xbfid\tq\n1\t" + A.encode() + b"\n2\t\n3\t" + A.encode() + b"\n",
            b"\xef\xbb\xbfid\tq\n1\t" + A.encode() + b"\n2\t\n",
        ),
        # JSONL: blank lines, trailing blanks after a record, CRLF, a raw U+2028 in a string
        (
            "e.jsonl",
            b'\n{"q": "' + A.encode() + b'"}   \r\n\n{"q": "' + A.encode() + b'"}\r\n'
            b'{"q": "' + B.encode() + b'\xe2\x80\xa8"}',
            b'{"q": "' + A.encode() + b'"}   \r\n{"q": "' + B.encode() + b'\xe2\x80\xa8"}',
        ),
    ],
)
def test_deduplicated_is_the_inputs_bytes(tmp_path, capsys, name, data, want):
    s, got = run(tmp_path, capsys, name, data, "--field", "q")
    assert got == want
    assert s["rows_deduplicated"] == s["effective_rows"] + s["rows_empty"]


def test_one_row_file_is_its_own_deduplicated_file(tmp_path, capsys):
    data = b'{"q": "' + A.encode() + b'"}'  # no line end
    s, got = run(tmp_path, capsys, "e.jsonl", data, "--field", "q")
    assert got == data and (s["groups"], s["effective_rows"]) == (0, 1)


@pytest.mark.xfail(
    strict=True,
    reason="a pair is an edge when its float32 cosine >= the "
    "threshold; two rows of the same text embed to the same unit vector, whose "
    "dot product rounds to 0.999999, so --threshold 1 (accepted: 0.5..1) groups "
    "no exact duplicates and eval.deduplicated keeps both. Whether identical texts "
    "count as cosine 1, or cosines are compared at a tolerance, is a rule for "
    "grouping.py and the page alike",
)
def test_threshold_one_groups_rows_of_the_same_text(tmp_path, capsys):
    line = b'{"q": "' + A.encode() + b'"}\n'
    data = line + line + b'{"q": "' + B.encode() + b'"}\n'
    s, got = run(tmp_path, capsys, "e.jsonl", data, "--field", "q", "--threshold", "1")
    assert s["groups"] == 1
    assert got == line + b'{"q": "' + B.encode() + b'"}\n'


def test_api_parquet_deduplicated_is_bytes_that_outlive_the_input(tmp_path, model_dir):
    # the API's exports are the files' contents (as contamination's eval.clean.parquet):
    # not a writer that reads the eval file again when write() is called
    pa = pytest.importorskip("pyarrow", reason="Parquet needs the parquet extra")
    import io

    import pyarrow.parquet as pq

    import evalsieve

    src = tmp_path / "e.parquet"
    pq.write_table(pa.table({"id": [1, 2, 3], "q": [A, A, B]}), src)
    res = evalsieve.paraphrases(str(src), field="q", model_dir=model_dir)
    data = res.exports["eval.deduplicated.parquet"]
    assert isinstance(data, bytes)
    assert pq.read_table(io.BytesIO(data)).to_pylist() == [{"id": 1, "q": A}, {"id": 3, "q": B}]
    src.unlink()
    res.write(str(tmp_path / "out"))
    assert pq.read_table(tmp_path / "out" / "eval.deduplicated.parquet").to_pylist() == [
        {"id": 1, "q": A},
        {"id": 3, "q": B},
    ]
