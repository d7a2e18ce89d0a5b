"""Parquet in the CLI (pyarrow, the `parquet` extra): schema paths, batched reading, the clean
export with the input's schema and equal values, and a clear error without pyarrow."""

import json
import sys

import pytest

pa = pytest.importorskip(
    "pyarrow",
    reason="Parquet needs the parquet extra (pyarrow); "
    "python3 build.py test installs it with the test extra",
)
pq = pytest.importorskip("pyarrow.parquet")

from evalsieve import parquet_io  # noqa: E402
from evalsieve.cli import main  # noqa: E402
from hostile_common import read_export  # noqa: E402

S = [
    "The quiet harbour town kept seven lighthouses burning through every winter storm that year",
    "A patient gardener measured rainfall in copper buckets lined along the northern orchard wall",
    "Nineteen students carried heavy telescopes up the hill to watch the comet cross at midnight",
    "short row",
    "Engineers tested the suspension bridge with forty loaded trucks parked across its span",
]
SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("question", pa.string()),
        ("meta", pa.struct([("source", pa.string()), ("score", pa.float64())])),
        ("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("tags", pa.map_(pa.string(), pa.int32())),
        ("blob", pa.binary()),
    ],
    metadata={b"origin": b"evalsieve test"},
)


def table(n_copies=1):
    rows = []
    for c in range(n_copies):
        for i, q in enumerate(S):
            rows.append(
                {
                    "id": c * 100 + i,
                    "question": q,
                    "meta": {"source": f"src{i}", "score": i / 2},
                    "messages": [
                        {"role": "system", "content": "Be brief."},
                        {"role": "user", "content": q},
                    ],
                    "tags": [("k", i)],
                    "blob": bytes([0xFF, i]),
                }
            )
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def run(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_schema_paths_are_dotted_and_bracketed():
    assert parquet_io.schema_paths(SCHEMA) == [
        "id",
        "question",
        "meta.source",
        "meta.score",
        "messages[].role",
        "messages[].content",
        "tags[].key",
        "tags[].value",
        "blob",
    ]


def test_values_are_read_in_batches_never_whole(tmp_path, monkeypatch):
    path = tmp_path / "t.parquet"
    pq.write_table(table(40), path, row_group_size=64)  # 200 rows, 4 row groups
    monkeypatch.setattr(parquet_io, "BATCH_ROWS", 50)
    src = parquet_io.ParquetSource(str(path))
    assert (src.rows, src.row_groups) == (200, 4)
    batches = list(src.values(["question"]))
    assert max(len(b) for b in batches) <= 50 and sum(len(b) for b in batches) == 200
    assert batches[0][3] == {"question": "short row"}
    full = next(src.values())[0]
    assert full["tags"] == [{"key": "k", "value": 0}] and full["blob"].startswith("base64:")


def test_contamination_parquet_eval_and_train(tmp_path, capsys):
    ev = tmp_path / "eval.parquet"
    pq.write_table(table(), ev, row_group_size=2)
    tr = tmp_path / "train.parquet"
    pq.write_table(
        pa.table(
            {"text": [f"Notes. {S[0]}. End.", f"Also {S[2]} here", "unrelated weather balloons"]}
        ),
        tr,
    )
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            str(ev),
            str(tr),
            "--eval-field",
            "question",
            "--out",
            str(out),
            "--json",
            "--n",
            "8",
        ],
        capsys,
    )
    assert code == 0, err
    assert "eval: eval.parquet: parquet, fields question (chosen with --eval-field)" in err
    assert "train: train.parquet: parquet, fields text (default:" in err
    s = json.loads(stdout)
    assert s["clean_file"] == "eval.clean.parquet" and s["training_records"] == 3
    assert s["stamp"]["inputs"][0]["format"] == "parquet"
    status = {
        int(r["eval_row"]): r["status"] for r in read_export(out, "contamination-report.csv")[1]
    }
    assert status == {1: "contaminated", 2: "clean", 3: "contaminated", 5: "clean"}
    clean = pq.read_table(out / "eval.clean.parquet")
    given = pq.read_table(ev)
    assert clean.schema.equals(given.schema, check_metadata=True)
    assert clean.schema.metadata[b"origin"] == b"evalsieve test"
    assert clean.equals(given.take([1, 4]))
    assert clean.to_pylist() == table().take([1, 4]).to_pylist()
    # not-contaminated also keeps the too-short row 4, in file order
    out2 = tmp_path / "o2"
    code, _, err = run(
        [
            "contamination",
            str(ev),
            str(tr),
            "--eval-field",
            "question",
            "--out",
            str(out2),
            "--n",
            "8",
            "--clean",
            "not-contaminated",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    assert pq.read_table(out2 / "eval.clean.parquet").equals(given.take([1, 3, 4]))


def test_parquet_nested_and_filter_fields(tmp_path, capsys):
    ev = tmp_path / "chat.parquet"
    pq.write_table(table(), ev)
    code, out, _ = run(["fields", str(ev), "--json"], capsys)
    info = json.loads(out)
    assert info["format"] == "parquet" and info["rows"] == 5
    assert [f["path"] for f in info["fields"]] == parquet_io.schema_paths(SCHEMA)
    filt = {f["path"]: f for f in info["filter_fields"]}
    assert filt["messages[role=system].content"]["constant"]
    assert not filt["messages[role=user].content"]["constant"]
    tr = tmp_path / "t.jsonl"
    tr.write_text(json.dumps({"text": S[1]}) + "\n")
    code, stdout, err = run(
        [
            "contamination",
            str(ev),
            str(tr),
            "--eval-field",
            "messages[role=user].content",
            "--out",
            str(tmp_path / "o"),
            "--json",
            "--n",
            "8",
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(stdout)["rows_contaminated"] == 1


def test_without_pyarrow_the_error_says_how_to_install(tmp_path, capsys, monkeypatch):
    ev = tmp_path / "e.parquet"
    pq.write_table(table(), ev)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, _, err = run(["contamination", str(ev), str(ev), "--out", str(tmp_path / "o")], capsys)
    assert code == 3  # a missing extra: the environment, not the input
    assert "e.parquet: this is a Parquet file, and reading Parquet needs pyarrow" in err
    assert "pip install 'evalsieve[parquet]'" in err


def test_broken_parquet_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "b.parquet"
    bad.write_bytes(b"PAR1" + bytes(range(64)) + b"PAR1")
    code, _, err = run(["fields", str(bad)], capsys)
    assert code == 2 and "b.parquet: not a readable Parquet file" in err


def test_gzipped_parquet_says_gunzip_first(tmp_path, capsys):
    import gzip

    path = tmp_path / "t.parquet"
    pq.write_table(table(), path)
    gz = tmp_path / "t.parquet.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    code, _, err = run(["fields", str(gz)], capsys)
    assert code == 2 and "t.parquet.gz: a gzip-compressed Parquet file" in err
    assert "gunzip it first" in err
