"""eval.clean.parquet written by the page (worker/parquet-write.js, hyparquet-writer), read
back with pyarrow: the source's schema (metadata included), the rows the report keeps, in
order, with equal values, and equal to the CLI's file (pyarrow) for the same inputs. A type
the page cannot write faithfully (JSON) leaves eval.clean.rows.csv and says which type.
"""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import pytest

from pagekit import choose_file
from test_e2e_inputs import FIXTURES, USER, count, download, last_result, report, run, settings

pa = pytest.importorskip("pyarrow", reason="the clean Parquet file is checked with pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def cli_clean(
    tmp_path: Path, ev: Path, tr: Path, field: str, train_field: str, n: str, clean: str, capsys
) -> Path:
    from evalsieve.cli import main

    out = tmp_path / "cli"
    assert (
        main(
            [
                "contamination",
                str(ev),
                str(tr),
                "--eval-field",
                field,
                "--train-field",
                train_field,
                "--n",
                n,
                "--clean",
                clean,
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    return out


def kept_by_report(page) -> list[int]:
    """0-based rows the clean file keeps under `not-contaminated`: every row the report
    does not mark contaminated (too-short rows are kept under that rule)."""
    _, rows = report(
        next(
            x["text"]
            for x in last_result(page)["exports"]
            if x["name"] == "contamination-report.csv"
        )
    )
    dirty = {int(r["eval_row"]) - 1 for r in rows if r["status"] == "contaminated"}
    total = count(page, "eval rows scanned")
    return [i for i in range(total) if i not in dirty]


def values(table):
    """The table with dictionary columns decoded: a dictionary column's values are equal
    when its dictionaries differ (the page writes each row group's kept values only)."""
    return pa.table(
        {
            n: (
                table[n].cast(table.schema.field(n).type.value_type)
                if pa.types.is_dictionary(table.schema.field(n).type)
                else table[n]
            )
            for n in table.column_names
        }
    )


def check_clean(got: Path, source: Path, cli: Path, keep: list[int]) -> None:
    src, page_t, cli_t = pq.read_table(source), pq.read_table(got), pq.read_table(cli)
    assert page_t.schema.equals(src.schema, check_metadata=True), (page_t.schema, src.schema)
    assert values(page_t).equals(values(src.take(pa.array(keep, pa.int64())))), page_t.to_pylist()
    assert page_t.schema.equals(cli_t.schema, check_metadata=True)
    assert values(page_t).equals(values(cli_t))


def test_chat_parquet_clean_file(tab, tmp_path, capsys):
    ev, tr = FIXTURES / "chat_eval.parquet", FIXTURES / "chat_train.parquet"
    choose_file(tab, "train", tr, ["text"])
    choose_file(tab, "eval", ev, [USER])
    settings(tab, n="8", clean="not-contaminated")
    assert run(tab) == "done", tab.text_content("#error")
    names = tab.eval_on_selector_all("button[data-export]", "xs => xs.map(x => x.dataset.export)")
    assert names[0] == "eval.clean.parquet" and "eval.clean.rows.csv" not in names
    keep = kept_by_report(tab)
    assert keep == [0, 2, 3, 5]  # hand-computed: rows 2 and 5 (1-based) are quoted in training
    got = tmp_path / "page.parquet"
    got.write_bytes(download(tab, "eval.clean.parquet", tmp_path))
    assert pq.ParquetFile(got).metadata.num_row_groups == 2  # one per source row group
    out = cli_clean(tmp_path, ev, tr, USER, "text", "8", "not-contaminated", capsys)
    check_clean(got, ev, out / "eval.clean.parquet", keep)
    assert [r["id"] for r in pq.read_table(got).to_pylist()] == [1, 3, 4, 6]
    assert "not offered" not in tab.text_content("#clean-rule")


def many_types(path: Path) -> None:
    """Maps (text and integer keys, repeated keys, order kept; a map inside a list), structs
    with lists, nulls at every level, timestamps (µs with a zone, ns), dates, a DECIMAL(9, 2),
    bytes that are not UTF-8, uint32 past 2^31, float16, large lists, dictionary text,
    schema metadata; 5 rows in row groups of 2."""
    m = pa.map_(pa.string(), pa.int32())
    schema = pa.schema(
        [
            ("s", pa.string()),
            ("m", m),
            ("mi", pa.map_(pa.int64(), pa.string())),
            ("lm", pa.list_(pa.map_(pa.string(), pa.string()))),
            ("st", pa.struct([("a", pa.string()), ("b", pa.list_(pa.int16()))])),
            ("ts", pa.timestamp("us", tz="UTC")),
            ("tsn", pa.timestamp("ns")),
            ("d", pa.date32()),
            ("dec", pa.decimal128(9, 2)),
            ("bin", pa.binary()),
            ("u32", pa.uint32()),
            ("f16", pa.float16()),
            ("lst", pa.large_list(pa.large_string())),
            ("cat", pa.dictionary(pa.int32(), pa.string())),
        ],
        metadata={"origin": "evalsieve test"},
    )
    rows = [
        {
            "s": "the quick brown fox jumps over the lazy dog near the river bank today",
            "m": [("b", 1), ("a", 2), ("10", 3), ("2", 4)],
            "mi": [(3, "x"), (1, "y"), (3, "z")],
            "lm": [[("k", "v")], None, []],
            "st": {"a": None, "b": [1, None, 3]},
            "ts": datetime.datetime(2020, 1, 2, 3, 4, 5, 123456),
            "tsn": 1_234_567_891_234_567_891,
            "d": datetime.date(2021, 5, 6),
            "dec": decimal.Decimal("1234567.89"),
            "bin": b"\xff\x00",
            "u32": 4_000_000_000,
            "f16": 1.5,
            "lst": ["a", None],
            "cat": "x",
        },
        {k: None for k in schema.names},
        {
            "s": "a short row",
            "m": [],
            "mi": [],
            "lm": [],
            "st": {"a": "z", "b": []},
            "ts": datetime.datetime(1960, 1, 1),
            "tsn": -5,
            "d": datetime.date(1900, 1, 1),
            "dec": decimal.Decimal("-0.01"),
            "bin": b"",
            "u32": 0,
            "f16": -2.0,
            "lst": [],
            "cat": "y",
        },
        {
            "s": "every word of this row also appears in the training file as it is here",
            "m": [("only", 9)],
            "mi": None,
            "lm": None,
            "st": None,
            "ts": None,
            "tsn": None,
            "d": None,
            "dec": None,
            "bin": b"abc",
            "u32": 7,
            "f16": None,
            "lst": None,
            "cat": "x",
        },
        {
            "s": "a row about lighthouses and harbours that nobody copied anywhere at all",
            "m": None,
            "mi": [(-1, "neg")],
            "lm": [[("a", None)]],
            "st": {"a": "q", "b": None},
            "ts": datetime.datetime(2038, 1, 19),
            "tsn": 0,
            "d": datetime.date(2038, 1, 19),
            "dec": decimal.Decimal("0.50"),
            "bin": None,
            "u32": None,
            "f16": 65504.0,
            "lst": [None],
            "cat": None,
        },
    ]
    for r in rows:
        if r["f16"] is not None:
            r["f16"] = __import__("numpy").float16(r["f16"])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=2)


def test_nested_and_typed_columns_round_trip(tab, tmp_path, capsys):
    ev = tmp_path / "types.parquet"
    many_types(ev)
    tr = tmp_path / "train.jsonl"
    tr.write_text(
        json.dumps(
            {
                "text": "Seen: every word of this row also appears in the "
                "training file as it is here, word for word."
            }
        )
        + "\n"
    )
    choose_file(tab, "train", tr, ["text"])
    choose_file(tab, "eval", ev, ["s"])
    settings(tab, n="8", clean="not-contaminated")
    assert run(tab) == "done", tab.text_content("#error")
    keep = kept_by_report(tab)
    assert keep == [0, 1, 2, 4]  # row 4 (1-based) is quoted in the training file
    got = tmp_path / "page.parquet"
    got.write_bytes(download(tab, "eval.clean.parquet", tmp_path))
    out = cli_clean(tmp_path, ev, tr, "s", "text", "8", "not-contaminated", capsys)
    check_clean(got, ev, out / "eval.clean.parquet", keep)
    assert pq.read_table(got)["m"].to_pylist()[0] == [("b", 1), ("a", 2), ("10", 3), ("2", 4)]
    assert pq.read_table(got)["mi"].to_pylist()[0] == [(3, "x"), (1, "y"), (3, "z")]


def test_a_type_the_page_cannot_write_keeps_the_rows_csv(tab, tmp_path):
    if not hasattr(pa, "json_"):
        pytest.skip("this pyarrow has no JSON extension type to write a JSON column")
    ev = tmp_path / "with-json.parquet"
    qs = [
        "The quiet harbour town kept seven lighthouses burning through every winter storm",
        "A patient gardener measured rainfall in copper buckets along the northern wall",
    ]
    pq.write_table(
        pa.table(
            {"question": qs, "extra": pa.array(['{"a": 1}', '{"b": [2]}'], pa.json_(pa.string()))}
        ),
        ev,
    )
    assert "JSON" in str(pq.ParquetFile(ev).schema)
    tr = tmp_path / "train.jsonl"
    tr.write_text(json.dumps({"text": "Log: " + qs[1] + " yesterday."}) + "\n")
    choose_file(tab, "train", tr, ["text"])
    choose_file(tab, "eval", ev, ["question"])
    settings(tab, n="8")
    assert run(tab) == "done", tab.text_content("#error")
    names = tab.eval_on_selector_all("button[data-export]", "xs => xs.map(x => x.dataset.export)")
    assert names[0] == "eval.clean.rows.csv" and "eval.clean.parquet" not in names
    note = tab.text_content("#clean-rule")
    assert "cannot write JSON in column extra value for value" in note, note
    assert "written by the CLI" in note
    _, kept = report(download(tab, "eval.clean.rows.csv", tmp_path).decode())
    assert [int(r["eval_row"]) for r in kept] == [1]


def test_map_column_paths_are_the_clis(tab, tmp_path, capsys):
    """One spelling for a map column's fields: `tags[].key`, `tags[].value` in the page's
    picker and in `evalsieve fields` (the page reads a map as its entries, as pyarrow does)."""
    from evalsieve.cli import main

    ev = FIXTURES / "map_eval.parquet"
    assert main(["fields", str(ev), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    choose_file(tab, "eval", ev)
    page = tab.eval_on_selector_all(
        "#eval-fields .field-list:not(.filter-list) input", "xs => xs.map(x => x.dataset.path)"
    )
    assert "tags[].key" in page and "tags[].value" in page
    assert not [p for p in page if p.startswith("tags.")], page
    assert sorted(page) == sorted(f["path"] for f in cli["fields"])
    inspected = [
        m["data"]
        for m in tab.evaluate(
            "window.__workerMessages.filter(m => m.type === 'result' && m.data && m.data.fields)"
        )
    ]
    last = inspected[-1]
    assert {f["path"]: (f["fill"], f["avg_words"]) for f in last["fields"]} == {
        f["path"]: (f["fill"], f["avg_words"]) for f in cli["fields"]
    }
