"""Every CSV export loads as plain CSV with default settings: pandas, polars, DuckDB and
csv.DictReader read the header from line 1 and one record per row, into the documented
columns and row count, including fields that hold ``#``, ``"`` and line ends. The stamp
travels beside them (run-stamp.json, the ``run_fingerprint`` column) and in the Parquet
versions' key-value metadata."""

import csv
import json
import os

import pytest

from evalsieve.cli import main
from hostile_common import read_export

FP = "run_fingerprint"
#: The documented columns of each CSV export (README "Exports"), hand-written.
REPORT = [
    "eval_row",
    "status",
    "containment",
    "ngrams_matched",
    "ngrams_total",
    "ngrams_boilerplate",
    "words",
    "training_file",
    "training_record",
    "training_id",
    "shared_passage",
    "training_excerpt",
    "rung",
    FP,
]
TOO_SHORT = ["eval_row", "words", "n", "reason", "rung", FP]
SKIPPED = ["file", "line", "error", FP]
IMPACT = [
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
    FP,
]
UNMATCHED = ["side", "score_line", "eval_row", "key", "reason", FP]
PAIRS = ["group", "row_a", "row_b", "label_a", "label_b", "cosine", "text_a", "text_b", FP]
GROUPS = [
    "group",
    "size",
    "member_rows",
    "member_labels",
    "lowest_internal_cosine",
    "lowest_pair",
    "chained",
    "representative_row",
    "representative_text",
    FP,
]

#: A key and a text that break a reader told to skip `#` lines or that splits on line ends.
HOSTILE_KEY = '#zz "q"\r\n# run_stamp {"x": 1}\nw, end'
HOSTILE_TEXT = (
    'line one of the row, "quoted" words\n# a line that starts with a hash\r\n'
    "line three with 'single' quotes and a final word"
)
QUESTIONS = [
    "# run_stamp {not a stamp} one two three four five six seven eight nine",
    'She said "hello, world" and then # left the room with nine quiet friends',
    HOSTILE_TEXT,
    '=HYPERLINK("http://x") formula text here with enough words to score it',
    "short one",
    "an ordinary row about weather balloons drifting over the calm northern sea today",
]
IDS = ["r#1", 'r"2"', "r3\nx", "r4", "r5", "r6"]
TRAIN_NAME = 'train #1 "x".jsonl'


def readers():
    """(name, load(path) -> (columns, rows as lists of strings or None)) per reader."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")

    def text(v):
        # NaN: pandas' empty cell; 6.0: an integer column with empty cells, typed float
        if v is None or v != v:
            return None
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    def with_pandas(path):
        df = pd.read_csv(path)
        return list(df.columns), [[text(v) for v in r] for r in df.itertuples(index=False)]

    def with_polars(path):
        df = pl.read_csv(path)
        return df.columns, [[text(v) for v in r] for r in df.rows()]

    def with_duckdb(path):
        rel = duckdb.read_csv(path)
        return rel.columns, [[text(v) for v in r] for r in rel.fetchall()]

    def with_dictreader(path):
        with open(path, encoding="utf-8", newline="") as f:
            r = csv.DictReader(f)
            rows = [[v or None for v in d.values()] for d in r]
            return r.fieldnames, rows

    return [
        ("pandas", with_pandas),
        ("polars", with_polars),
        ("duckdb", with_duckdb),
        ("csv.DictReader", with_dictreader),
    ]


def check_loads(path, columns, n_rows, cells=()):
    """Every reader gets `columns` and `n_rows` rows from `path`, and the text cells
    `cells` ({(row, column): text}) exactly."""
    for name, load in readers():
        got_cols, rows = load(str(path))
        assert list(got_cols) == columns, (name, path.name, got_cols)
        assert len(rows) == n_rows, (name, path.name, len(rows))
        for (i, col), want in cells.items():
            assert rows[i][columns.index(col)] == want, (name, path.name, i, col)
        fps = {r[-1] for r in rows}
        assert len(fps) <= 1 and all(len(f) == 64 for f in fps), (name, fps)


@pytest.fixture(scope="module")
def contamination_run(tmp_path_factory):
    """A contamination run whose every CSV export has rows: training file with a malformed
    line (skipped-lines.csv) and a `#`/`"` name, scores keyed by the eval rows' ids with one
    hostile key that matches no row (scores-unmatched.csv)."""
    d = tmp_path_factory.mktemp("cont")
    ev = d / "eval.jsonl"
    ev.write_text(
        "".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in zip(IDS, QUESTIONS)),
        encoding="utf-8",
    )
    tr = d / TRAIN_NAME
    tr.write_text(
        json.dumps({"text": "notes " + QUESTIONS[0] + " more"})
        + "\n"
        + '{"text": oops\n'
        + json.dumps({"text": QUESTIONS[2]})
        + "\n",
        encoding="utf-8",
    )
    sc = d / "scores.jsonl"
    sc.write_text(
        "".join(
            json.dumps({"id": k, "acc": a}) + "\n"
            for k, a in [
                ("r#1", 1),
                ('r"2"', 0),
                ("r3\nx", 1),
                ("r4", 1),
                ("r5", 0),
                (HOSTILE_KEY, 1),
            ]
        ),
        encoding="utf-8",
    )
    out = d / "out"
    code = main(
        [
            "contamination",
            str(ev),
            str(tr),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--n",
            "8",
            "--skip-bad-lines",
            "--scores",
            str(sc),
            "--score-key",
            "id",
            "--score-field",
            "acc",
            "--out",
            str(out),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    return out


def test_contamination_exports_load_with_default_settings(contamination_run, capsys):
    out = contamination_run
    capsys.readouterr()
    stamp = json.loads((out / "run-stamp.json").read_text(encoding="utf-8"))
    assert stamp["job"] == "contamination" and len(stamp["fingerprint"]) == 64
    # rows 1 and 3 are in the training file; row 5 (two words) is too short at N = 8
    check_loads(
        out / "contamination-report.csv",
        REPORT,
        5,
        {
            (0, "status"): "contaminated",
            (2, "status"): "contaminated",
            (0, "training_file"): TRAIN_NAME,
            (1, "status"): "clean",
        },
    )
    check_loads(out / "too-short-to-score.csv", TOO_SHORT, 1, {(0, "eval_row"): "5"})
    check_loads(out / "skipped-lines.csv", SKIPPED, 1, {(0, "file"): TRAIN_NAME, (0, "line"): "2"})
    # one score row matches no eval row (the hostile key), one eval row (r6) has no score
    check_loads(
        out / "scores-unmatched.csv",
        UNMATCHED,
        2,
        {(0, "side"): "scores", (0, "key"): HOSTILE_KEY, (1, "side"): "eval", (1, "eval_row"): "6"},
    )
    _, impact = read_export(out, "score-impact.csv")
    assert impact and impact[0]["metric"] == "acc" and impact[0]["subset"] == "all"
    check_loads(out / "score-impact.csv", IMPACT, len(impact), {(0, "n"): "5"})
    csvs = sorted(p.name for p in out.iterdir() if p.suffix == ".csv")
    assert csvs == [
        "contamination-report.csv",
        "score-impact.csv",
        "scores-unmatched.csv",
        "skipped-lines.csv",
        "too-short-to-score.csv",
    ]
    for name in csvs:  # every row carries the run's fingerprint (read_export checks)
        assert read_export(out, name)[0] == stamp


def test_parquet_reports_carry_the_stamp_and_the_csv_rows(contamination_run):
    pq = pytest.importorskip("pyarrow.parquet")
    pd = pytest.importorskip("pandas")
    out = contamination_run
    stamp = json.loads((out / "run-stamp.json").read_text(encoding="utf-8"))
    for csv_path in sorted(out.glob("*.csv")):
        path = csv_path.with_suffix(".parquet")
        table = pq.read_table(path)
        meta = table.schema.metadata
        assert json.loads(meta[b"evalsieve.run_stamp"]) == stamp, path.name
        assert meta[b"evalsieve.run_fingerprint"].decode() == stamp["fingerprint"]
        with open(csv_path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        assert table.column_names == list(rows[0]) and table.num_rows == len(rows)
        df = pd.read_parquet(path)
        assert len(df) == len(rows)
    report = pq.read_table(out / "contamination-report.parquet")
    assert str(report.schema.field("eval_row").type) == "int64"
    assert str(report.schema.field("containment").type) == "double"
    assert str(report.schema.field("training_record").type) == "int64"  # null when clean
    rep = report.to_pylist()
    assert [r["eval_row"] for r in rep] == [1, 2, 3, 4, 6]
    assert rep[1]["training_record"] is None and rep[0]["training_record"] == 1
    assert rep[0]["containment"] == 1.0
    # the Parquet version keeps the text as it was (the CSV guards a formula with ')
    unmatched = pq.read_table(out / "scores-unmatched.parquet").to_pylist()
    assert unmatched[0]["key"] == HOSTILE_KEY and unmatched[1]["eval_row"] == 6


def test_parquet_reports_need_pyarrow_and_say_so(tmp_path, fixtures, capsys, monkeypatch):
    from evalsieve import parquet_io

    monkeypatch.setattr(parquet_io, "have_pyarrow", lambda: False)
    out = tmp_path / "o"
    assert (
        main(
            [
                "contamination",
                os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
                os.path.join(fixtures, "train_mix.jsonl"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "Parquet versions need pyarrow" in err
    assert sorted(p.name for p in out.iterdir()) == [
        "contamination-report.csv",
        "eval.clean.jsonl",
        "overlap-report.html",
        "run-stamp.json",
        "too-short-to-score.csv",
    ]


def test_paraphrase_exports_load_with_default_settings(tmp_path, model_dir, capsys):
    ev = tmp_path / "eval.jsonl"
    rows = [QUESTIONS[2], QUESTIONS[5], QUESTIONS[2], QUESTIONS[0]]
    ev.write_text(
        "".join(json.dumps({"id": f'#{i}\n"', "text": t}) + "\n" for i, t in enumerate(rows)),
        encoding="utf-8",
    )
    out = tmp_path / "o"
    assert (
        main(
            [
                "paraphrases",
                str(ev),
                "--field",
                "text",
                "--label-field",
                "id",
                "--out",
                str(out),
                "--model-dir",
                model_dir,
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    # rows 1 and 3 are the same text: one pair, one group
    check_loads(
        out / "paraphrase-pairs.csv",
        PAIRS,
        1,
        {
            (0, "row_a"): "1",
            (0, "row_b"): "3",
            (0, "text_a"): HOSTILE_TEXT,
            (0, "text_b"): HOSTILE_TEXT,
            (0, "label_a"): '#0\n"',
        },
    )
    check_loads(
        out / "paraphrase-groups.csv",
        GROUPS,
        1,
        {(0, "member_rows"): "1 3", (0, "representative_text"): HOSTILE_TEXT},
    )
    stamp, _ = read_export(out, "paraphrase-pairs.csv")
    assert stamp["job"] == "paraphrases"
