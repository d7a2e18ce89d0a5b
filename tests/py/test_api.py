"""The Python API (evalsieve.contamination / paraphrases): the same exports as the CLI and
the bridge for the same inputs, inputs of every kind, cancel and progress, settings."""

import hashlib
import json
import os
import sys
import threading

import pytest

import evalsieve
from evalsieve import bridge
from evalsieve.cli import main
from evalsieve.errors import EvalsieveError
from hostile_common import without_fingerprint

UTC = "2026-01-01T00:00:00+00:00"
needs_processes = pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide has no subprocesses or process pools"
)


@pytest.fixture
def fixed_clock(monkeypatch):
    # the stamp's time is the one thing two runs of the same inputs may differ in
    monkeypatch.setattr("evalsieve.drivers._utc_now", lambda: UTC)


def call(op, args=None, text=None, data=None):
    return json.loads(bridge.call(op, json.dumps(args or {}), text, data))


def read_dir(d):
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def csv_only(files):
    """A written --out folder less the reports' Parquet versions (written, not exports)."""
    return {
        n: v for n, v in files.items() if not n.endswith(".parquet") or n.startswith("eval.clean")
    }


def as_bytes(exports):
    return {n: v if isinstance(v, bytes) else v.encode("utf-8") for n, v in exports.items()}


def bridge_contamination(ev_path, tr_path):
    ev = open(ev_path, encoding="utf-8", newline="").read()
    tr = open(tr_path, encoding="utf-8", newline="").read()
    h = call(
        "cont.start",
        {
            "eval": {"name": os.path.basename(ev_path), "format": "jsonl", "fields": ["question"]},
            "train": {"name": os.path.basename(tr_path), "format": "jsonl", "fields": ["text"]},
            "n": None,
            "boilerplate": True,
            "threshold": None,
        },
    )["value"]["handle"]
    assert call("cont.background", {"handle": h}, tr[:100000])["ok"]
    call("cont.feed_eval", {"handle": h}, ev)
    call("cont.end_eval", {"handle": h})
    call("cont.feed_train", {"handle": h}, tr)
    inputs = {
        k: {"sha256": hashlib.sha256(t.encode()).hexdigest(), "bytes": len(t.encode())}
        for k, t in (("eval", ev), ("train", tr))
    }
    s = call("cont.finish", {"handle": h, "inputs": inputs, "utc": UTC})["value"]
    out = {
        x["name"]: x["text"].encode("utf-8") for x in call("cont.exports", {"handle": h})["value"]
    }
    call("close", {"handle": h})
    return s, out


def without_stamp(name, data):
    """An export without its stamp (the bridge's stamp names its runtime and file formats
    as the page gives them): the HTML before its stamp section, the CSVs without their
    fingerprint column, run-stamp.json's settings only."""
    text = data.decode("utf-8")
    if name.endswith(".html"):
        return text.split("<h2>Run stamp</h2>")[0]
    if name == "run-stamp.json":
        return json.loads(text)["settings"]
    if name.endswith(".csv"):
        return without_fingerprint(text)
    return text


def test_contamination_cli_bridge_api_same_exports(fixtures, tmp_path, capsys, fixed_clock):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    assert (
        main(
            [
                "contamination",
                ev,
                tr,
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(tmp_path / "cli"),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    cli_summary = json.loads(capsys.readouterr().out)
    cli = read_dir(tmp_path / "cli")
    res = evalsieve.contamination(ev, tr, eval_fields="question", train_fields=["text"])
    # identical exports, byte for byte, stamp included; the same summary but the timings
    assert as_bytes(res.exports) == csv_only(cli)
    assert list(res.exports) == [
        "eval.clean.jsonl",
        "contamination-report.csv",
        "too-short-to-score.csv",
        "overlap-report.html",
        "run-stamp.json",
    ]
    res.write(str(tmp_path / "api"))
    assert read_dir(tmp_path / "api") == cli
    timing = ("seconds_training_pass", "cpu_seconds_training_pass")
    assert {k: v for k, v in res.summary.items() if k not in timing} == {
        k: v for k, v in cli_summary.items() if k not in timing
    }
    assert res.summary["rows_contaminated"] == 7 and res.stamp == cli_summary["stamp"]
    # the bridge, ops as the page calls them: the same rows and figures
    s, page = bridge_contamination(ev, tr)
    cli = csv_only(cli)
    assert sorted(page) == sorted(cli)
    for name in cli:
        assert without_stamp(name, page[name]) == without_stamp(name, cli[name]), name
    assert s["rows_contaminated"] == 7
    # the views: the report's rows, and the kept rows
    assert len(res.rows) == 40 and sum(r["status"] == "contaminated" for r in res.rows) == 7
    assert res.clean_rows() == cli["eval.clean.jsonl"].decode("utf-8")
    assert len(res.kept) == 33 == cli["eval.clean.jsonl"].count(b"\n")
    # the per-row verdicts are the report's
    assert [r.status for r in res.scores] == [r["status"] for r in res.rows]
    assert list(res.rungs) == [r["rung"] for r in res.rows] and res.semantic is None
    assert [f"{r.containment:.4f}" if r.containment is not None else "" for r in res.scores] == [
        r["containment"] for r in res.rows
    ]


def test_contamination_dataframe_in_dataframe_out(fixtures, tmp_path, capsys, fixed_clock):
    pd = pytest.importorskip("pandas")
    ev_path = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    df = pd.read_json(ev_path, lines=True)
    df.index = [f"r{i}" for i in range(len(df))]
    res = evalsieve.contamination(df, tr, eval_fields="question", train_fields="text")
    # the frame is read as JSON Lines named eval.jsonl: the CLI on that file gives the same bytes
    from evalsieve.inputs import input_paths

    (path,), _ = input_paths(df, "eval", str(tmp_path))
    assert (
        main(
            [
                "contamination",
                path,
                tr,
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(tmp_path / "cli"),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert as_bytes(res.exports) == csv_only(read_dir(tmp_path / "cli"))
    assert res.summary["rows_contaminated"] == 7 and res.stamp["inputs"][0]["name"] == "eval.jsonl"
    kept = res.clean_rows()
    assert isinstance(kept, pd.DataFrame) and len(kept) == 33
    flagged = {int(r["eval_row"]) - 1 for r in res.rows if r["status"] != "clean"}
    assert list(kept.index) == [f"r{i}" for i in range(40) if i not in flagged]
    assert list(kept.columns) == list(df.columns)
    report = res.to_pandas()
    assert report.shape[0] == 40 and report["eval_row"].tolist() == list(range(1, 41))
    wide = df.assign(extra=range(40))  # a row-aligned table with more columns
    assert res.clean(wide)["extra"].tolist() == [i for i in range(40) if i not in flagged]
    with pytest.raises(ValueError, match="eval has 39 rows; the run read 40"):
        res.clean(df.iloc[1:])


class FakeDataset:
    """A Hugging Face Dataset as the API sees one: iteration of dicts, select, to_pandas."""

    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def select(self, indices):
        return FakeDataset([self.rows[i] for i in indices])

    def to_pandas(self):  # pragma: no cover - present for the duck type only
        raise AssertionError("not needed")


def test_every_input_kind_gives_the_same_exports(fixtures, tmp_path, fixed_clock):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    ev_path = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    rows = [json.loads(line) for line in open(ev_path, encoding="utf-8")]
    train_rows = [json.loads(line) for line in open(tr, encoding="utf-8")]
    base = evalsieve.contamination(rows, train_rows, eval_fields="question", train_fields="text")
    assert base.summary["rows_contaminated"] == 7
    inputs = [pd.DataFrame(rows), pa.Table.from_pylist(rows), FakeDataset(rows), (r for r in rows)]
    try:
        import polars as pl

        inputs.append(pl.DataFrame(rows))
    except ImportError:
        pass
    for obj in inputs:
        res = evalsieve.contamination(
            obj, pd.DataFrame(train_rows), eval_fields="question", train_fields="text"
        )
        assert dict(res.exports) == dict(base.exports), type(obj)
        kept = res.clean_rows()
        want = [rows[i] for i in base.kept]
        if isinstance(obj, pd.DataFrame):
            assert kept.to_dict("records") == want
        elif isinstance(obj, pa.Table):
            assert isinstance(kept, pa.Table) and kept.to_pylist() == want
        elif isinstance(obj, FakeDataset):
            assert isinstance(kept, FakeDataset) and kept.rows == want
        elif type(obj).__module__.startswith("polars"):
            assert type(kept) is type(obj) and kept.to_dicts() == want
        else:
            assert kept == want
    assert base.clean_rows() == [rows[i] for i in base.kept]


def test_bad_inputs_and_settings_are_refused_by_name(fixtures):
    tr = os.path.join(fixtures, "train_mix.jsonl")
    with pytest.raises(TypeError, match="row 1 of the input is a str"):
        evalsieve.contamination([{"q": "a b c"}, "oops"], tr)
    with pytest.raises(TypeError, match="unknown setting 'ngram'.*n, "):
        evalsieve.contamination([{"q": "a"}], tr, ngram=8)
    with pytest.raises(ValueError, match="threshold=2"):
        evalsieve.contamination([{"q": "a"}], tr, threshold=2)
    with pytest.raises(ValueError, match="engine='spark': choose from"):
        evalsieve.contamination([{"q": "a"}], tr, engine="spark")
    with pytest.raises(EvalsieveError) as e:  # the CLI's input error, naming the field
        evalsieve.contamination([{"q": "a b c"}], tr, eval_fields="nope")
    assert e.value.code == "bad_input" and "nope" in str(e.value)


def test_cancel_and_progress(fixtures):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    seen = []
    res = evalsieve.contamination(
        ev,
        tr,
        eval_fields="question",
        train_fields="text",
        progress=lambda *a: seen.append(a),
        workers=1,
    )
    size = os.path.getsize(tr)
    assert seen[0] == ("eval", 40, 40)
    train = [s for s in seen if s[0] == "train"]
    assert train and train[-1][1:] == (size, size)
    assert [s[1] for s in train] == sorted(s[1] for s in train)
    assert res.summary["rows_contaminated"] == 7
    stop = threading.Event()

    def cancel_in_training(stage, done, total):
        if stage == "train":
            stop.set()

    with pytest.raises(EvalsieveError) as e:
        evalsieve.contamination(
            ev,
            tr,
            eval_fields="question",
            train_fields="text",
            progress=cancel_in_training,
            cancel=stop,
        )
    assert e.value.code == "cancelled"
    stop.set()
    with pytest.raises(EvalsieveError) as e:  # set before: stops after the eval pass
        evalsieve.contamination(ev, tr, eval_fields="question", cancel=stop)
    assert e.value.code == "cancelled"


def test_workers_and_engine_settings_change_nothing(fixtures, tmp_path, fixed_clock):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    one = evalsieve.contamination(ev, tr, eval_fields="question", workers=1, filter="off")
    two = evalsieve.contamination(ev, tr, eval_fields="question", workers=2)
    assert dict(one.exports) == dict(two.exports)
    assert two.summary["training_engine"]["workers"] == 2


@needs_processes
def test_import_loads_nothing_but_the_package():
    import subprocess

    code = (
        "import sys, evalsieve; evalsieve.contamination; evalsieve.ContaminationResult; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'numpy', 'pyarrow', 'polars'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert callable(evalsieve.contamination) and callable(evalsieve.purify)
    assert evalsieve.purify.__module__ == "evalsieve.purify_run"


def bridge_paraphrases(text, name, model_dir):
    """The paraphrase job through the bridge, as the page runs it, with the embeddings the
    CLI computes (the page's come from onnxruntime-web)."""
    from array import array
    from evalsieve.native_encoder import NativeEncoder, nearest_neighbours, pairs_above
    from evalsieve.run_io import _sha256_file

    h = call(
        "para.start",
        {
            "eval": {"name": name, "format": "jsonl", "field": "text", "label_field": "id"},
            "threshold": 0.9,
        },
    )["value"]["handle"]
    call("para.feed_eval", {"handle": h}, text)
    texts = call("para.end_eval", {"handle": h})["value"]["texts"]
    enc = NativeEncoder(
        os.path.join(model_dir, "encoder.onnx"), os.path.join(model_dir, "tokenizer.json")
    )
    emb, truncated = enc.encode(texts)
    cands = pairs_above(emb, 0.8)
    nn, nni = nearest_neighbours(emb)
    blob = b"".join(
        [
            array("i", [c[0] for c in cands]).tobytes(),
            array("i", [c[1] for c in cands]).tobytes(),
            array("f", [c[2] for c in cands]).tobytes(),
            array("f", list(nn)).tobytes(),
            array("i", list(nni)).tobytes(),
            emb.astype("float32").tobytes(),
        ]
    )
    model = {"model_sha256": _sha256_file(os.path.join(model_dir, "encoder.onnx"))}
    r = call(
        "para.similarity",
        {
            "handle": h,
            "rows": len(texts),
            "pairs": len(cands),
            "truncated": truncated,
            "embeddings": True,
            "model": model,
            "threshold": 0.9,
        },
        None,
        blob,
    )
    assert r["ok"], r
    ev = {
        "name": name,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "bytes": len(text.encode()),
    }
    out = call("para.finish", {"handle": h, "threshold": 0.9, "input": ev, "utc": UTC})["value"]
    call("close", {"handle": h})
    return {x["name"]: x["text"].encode("utf-8") for x in out["exports"]}


def test_paraphrases_cli_bridge_api_same_exports(tmp_path, model_dir, capsys, fixed_clock):
    from evalsieve.paraphrase import worked_example_jsonl

    text = worked_example_jsonl()
    f = tmp_path / "ex.jsonl"
    f.write_text(text, encoding="utf-8")
    assert (
        main(
            [
                "paraphrases",
                str(f),
                "--field",
                "text",
                "--label-field",
                "id",
                "--out",
                str(tmp_path / "cli"),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    cli_summary = json.loads(capsys.readouterr().out)
    cli = read_dir(tmp_path / "cli")
    seen = []
    res = evalsieve.paraphrases(
        str(f), field="text", label_field="id", progress=lambda *a: seen.append(a)
    )
    assert as_bytes(res.exports) == csv_only(cli) and res.summary == cli_summary
    assert seen == [("embed", 0, 6), ("embed", 6, 6)]
    assert [g["member_rows"] for g in res.rows] == ["1 2 3", "4 5"]
    assert [(p["row_a"], p["row_b"]) for p in res.pairs] == [("4", "5"), ("1", "2"), ("2", "3")]
    # the same rows as a list of dicts: the same groups (the stamp names eval.jsonl)
    rows = [json.loads(line) for line in text.splitlines()]
    mem = evalsieve.paraphrases(rows, field="text", label_field="id")
    assert {n: without_stamp(n, v) for n, v in as_bytes(mem.exports).items()} == {
        n: without_stamp(n, v) for n, v in csv_only(cli).items()
    }
    page = bridge_paraphrases(text, "ex.jsonl", model_dir)
    cli = csv_only(cli)
    assert sorted(page) == sorted(cli)
    for name in cli:
        assert without_stamp(name, page[name]) == without_stamp(name, cli[name]), name


@pytest.mark.parametrize("doc_path", ["README.md", "docs/API.md"])
def test_the_api_doc_examples_run_as_written(
    doc_path, tmp_path, monkeypatch, model_dir, fixed_clock
):
    """The README's and docs/API.md's Python blocks, each file's run in order in one namespace from a folder where the
    relative paths resolve; `datasets` (not a dependency) is a stand-in module whose
    load_dataset("json", ...) reads the JSON Lines into a Dataset-like object."""
    import re
    import types

    pytest.importorskip("pandas")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    doc = open(os.path.join(root, doc_path), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(blocks) == 2
    (tmp_path / "tests").mkdir()
    os.symlink(os.path.join(root, "tests", "fixtures"), tmp_path / "tests" / "fixtures")
    monkeypatch.chdir(tmp_path)

    def load_dataset(kind, data_files, split):
        assert (kind, split) == ("json", "train")
        return FakeDataset([json.loads(line) for line in open(data_files, encoding="utf-8")])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    ns: dict = {}
    exec(compile(blocks[0], doc_path, "exec"), ns)
    assert ns["res"].summary["rows_contaminated"] == 7 and len(ns["clean_df"]) == 33
    assert sorted(csv_only({n: 0 for n in os.listdir(tmp_path / "evalsieve-out")})) == sorted(
        ns["res"].exports
    )
    assert list(ns["groups"].columns)[:3] == ["group", "size", "member_rows"]
    first = ns["res"]
    exec(compile(blocks[1], doc_path, "exec"), ns)
    assert isinstance(ns["clean_ds"], FakeDataset) and len(ns["clean_ds"]) == 33
    assert ns["res"].kept == first.kept


def test_list_settings_take_a_list_or_the_cli_text(fixtures, fixed_clock):
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    a = evalsieve.contamination(ev, tr, eval_fields="question", exclude_rungs=["exact"])
    b = evalsieve.contamination(ev, tr, eval_fields="question", exclude_rungs="exact")
    assert a.summary["clean_file_excludes"] == b.summary["clean_file_excludes"] == ["exact"]
    assert dict(a.exports) == dict(b.exports)
    with pytest.raises(ValueError, match="exclude_rungs"):
        evalsieve.contamination(ev, tr, exclude_rungs=["fuzzy"])


class FakeIterableDataset:
    """A Hugging Face IterableDataset as the API sees one: iteration, features, filter."""

    features = {"question": "string"}

    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return iter(self.rows)

    def filter(self, function, with_indices=False):
        assert with_indices
        return FakeIterableDataset([r for i, r in enumerate(self.rows) if function(r, i)])


def test_an_iterable_dataset_comes_back_filtered(fixtures):
    ev_path = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    rows = [json.loads(line) for line in open(ev_path, encoding="utf-8")]
    res = evalsieve.contamination(
        FakeIterableDataset(rows), os.path.join(fixtures, "train_mix.jsonl"), eval_fields="question"
    )
    kept = res.clean_rows()
    assert isinstance(kept, FakeIterableDataset) and len(kept.rows) == 33
    assert kept.rows == [rows[i] for i in res.kept]


@needs_processes
def test_cancel_stops_a_pool_of_workers(fixtures, tmp_path):
    # two training files, two workers: the pool runs; a cancel after the first task stops
    # the run with `cancelled` (the pool is terminated), and a later run still works
    ev = os.path.join(fixtures, "gsm8k_test_sample.jsonl")
    tr = os.path.join(fixtures, "train_mix.jsonl")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    lines = open(tr, encoding="utf-8").read().splitlines(keepends=True)
    a.write_text("".join(lines[::2]), encoding="utf-8")
    b.write_text("".join(lines[1::2]), encoding="utf-8")
    stop = threading.Event()
    seen = []

    def on_progress(stage, done, total):
        seen.append((stage, done, total))
        if stage == "train":
            stop.set()

    with pytest.raises(EvalsieveError) as e:
        evalsieve.contamination(
            ev,
            [str(a), str(b)],
            eval_fields="question",
            train_fields="text",
            workers=2,
            progress=on_progress,
            cancel=stop,
        )
    assert e.value.code == "cancelled"
    assert [s for s in seen if s[0] == "train"][:1] and [s for s in seen if s[0] == "train"][0][
        1
    ] < os.path.getsize(a) + os.path.getsize(b)
    res = evalsieve.contamination(
        ev, [str(a), str(b)], eval_fields="question", train_fields="text", workers=2
    )
    assert res.summary["rows_contaminated"] == 7
    assert res.summary["training_engine"]["tasks"] == 2


def test_a_parquet_eval_file_gives_the_cli_bytes(tmp_path, capsys, fixed_clock):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [
        {"question": f"the {w} question has enough words to be scored by the rung"}
        for w in ("first", "second", "third")
    ]
    ev, tr = tmp_path / "eval.parquet", tmp_path / "train.jsonl"
    pq.write_table(pa.Table.from_pylist(rows), ev)
    tr.write_text(json.dumps({"text": "notes: " + rows[1]["question"]}) + "\n", encoding="utf-8")
    assert (
        main(
            [
                "contamination",
                str(ev),
                str(tr),
                "--eval-field",
                "question",
                "--out",
                str(tmp_path / "cli"),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    cli = read_dir(tmp_path / "cli")
    res = evalsieve.contamination(str(ev), str(tr), eval_fields="question")
    assert res.clean_name == "eval.clean.parquet" and res.kept == (0, 2)
    assert as_bytes(res.exports) == csv_only(cli)
    assert isinstance(res.clean_rows(), bytes)
    res.write(str(tmp_path / "api"))
    assert read_dir(tmp_path / "api") == cli
    assert pq.read_table(tmp_path / "api" / "eval.clean.parquet").to_pylist() == [rows[0], rows[2]]
