"""Hugging Face dataset folders as TRAIN (and EVAL): save_to_disk, the datasets cache, a hub
repository snapshot and the hub cache, built here with pyarrow as `datasets` writes them
(`datasets` itself is not installed). Each is read as its data files; metadata, hidden
folders and cache files are left out, and the log says which files were read."""

import json
import os
import sys

import pytest

from evalsieve.cli import main
from evalsieve.layouts import HF_METADATA, walk_directory

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hostile")
)
from hostile_common import read_csv_export  # noqa: E402

pa = pytest.importorskip("pyarrow", reason="the parquet extra (pip install -e .[parquet])")
import pyarrow.parquet as pq  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GSM = os.path.join(HERE, "..", "fixtures", "gsm8k_test_sample.jsonl")
FILLER = (
    "The harbour wall was rebuilt twice in the last century after winter storms broke "
    "the old stones apart and the fishing boats moved to the river mouth"
)
FEATURES = {
    "question": {"dtype": "string", "_type": "Value"},
    "answer": {"dtype": "string", "_type": "Value"},
}


def run(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def questions():
    with open(GSM, encoding="utf-8") as f:
        return [json.loads(line)["question"] for line in f][:8]


def table(texts):
    t = pa.Table.from_pylist(
        [{"question": q, "answer": f"{FILLER} {i}"} for i, q in enumerate(texts)]
    )
    # datasets keeps its features in the schema metadata
    return t.replace_schema_metadata({"huggingface": json.dumps({"info": {"features": FEATURES}})})


def write_stream(path, t, batch=2):
    """An Arrow IPC stream, as datasets' ArrowWriter writes a shard (several batches)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, t.schema) as w:
        for b in t.to_batches(max_chunksize=batch):
            w.write_batch(b)


def info_json(path, split_rows):
    """dataset_info.json as datasets writes it: one JSON object over many lines."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "citation": "",
                "description": "",
                "features": FEATURES,
                "homepage": "",
                "license": "",
                "splits": {k: {"name": k, "num_examples": n} for k, n in split_rows.items()},
            },
            f,
            indent=2,
        )


def save_to_disk(root, splits):
    """A DatasetDict.save_to_disk folder: dataset_dict.json, per split data-0000K-of-0000N
    .arrow shards (2 each), dataset_info.json and state.json."""
    root.mkdir(parents=True)
    (root / "dataset_dict.json").write_text(json.dumps({"splits": list(splits)}), encoding="utf-8")
    for split, texts in splits.items():
        half = (len(texts) + 1) // 2
        names = []
        for k, part in enumerate((texts[:half], texts[half:])):
            name = f"data-{k:05d}-of-00002.arrow"
            write_stream(root / split / name, table(part))
            names.append({"filename": name})
        info_json(root / split / "dataset_info.json", {split: len(texts)})
        (root / split / "state.json").write_text(
            json.dumps(
                {
                    "_data_files": names,
                    "_fingerprint": "0123456789abcdef",
                    "_format_columns": None,
                    "_format_kwargs": {},
                    "_format_type": None,
                    "_output_all_columns": False,
                    "_split": split,
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return root


@pytest.fixture
def q():
    return questions()


def eval_file(tmp_path, q):
    p = tmp_path / "eval.jsonl"
    p.write_text("".join(json.dumps({"question": x}) + "\n" for x in q), encoding="utf-8")
    return str(p)


def contaminated(out):
    _, rows = read_csv_export((out / "contamination-report.csv").read_text("utf-8"))
    return {
        int(r["eval_row"]): (r["training_file"], int(r["training_record"]))
        for r in rows
        if r["status"] == "contaminated"
    }


def test_save_to_disk_folder_is_read_as_its_arrow_shards(tmp_path, q, capsys):
    d = save_to_disk(
        tmp_path / "ds",
        {"train": [FILLER + " a", q[1], FILLER + " b", q[3]], "test": [FILLER + " c", q[6]]},
    )
    out = tmp_path / "o"
    code, stdout, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(d),
            "--train-field",
            "question",
            "--out",
            str(out),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    assert contaminated(out) == {
        2: ("ds/train/data-00000-of-00002.arrow", 2),
        4: ("ds/train/data-00001-of-00002.arrow", 2),
        7: ("ds/test/data-00001-of-00002.arrow", 1),
    }
    s = json.loads(stdout)
    assert s["training_records"] == 6 and s["training_files"] == 4
    assert (
        f"train: {d}: reading 4 data files (test/data-00000-of-00002.arrow, "
        "test/data-00001-of-00002.arrow, train/data-00000-of-00002.arrow, "
        "train/data-00001-of-00002.arrow); left out: dataset_dict.json, "
        "test/dataset_info.json, test/state.json, train/dataset_info.json, "
        "train/state.json (datasets metadata)"
    ) in err
    assert "train: ds/test/data-00000-of-00002.arrow: arrow, fields question" in err
    stamp = json.loads((out / "run-stamp.json").read_text("utf-8"))
    assert {i["format"] for i in stamp["inputs"] if i["role"] == "train"} == {"arrow"}


def test_datasets_cache_folder_skips_map_caches_and_unfinished_builds(tmp_path, q, capsys):
    d = tmp_path / "gsm8k" / "main" / "0.0.0" / "9f1c2a"
    info_json(d / "dataset_info.json", {"train": 3, "test": 2})
    write_stream(d / "gsm8k-train.arrow", table([FILLER + " a", q[0], FILLER + " b"]))
    write_stream(d / "gsm8k-test.arrow", table([q[5], FILLER + " c"]))
    # a .map() result (q[2] planted: it must not be read) and a build that did not finish
    write_stream(d / "cache-4b2e9d0c1f.arrow", table([q[2]]))
    write_stream(
        tmp_path / "gsm8k" / "main" / "0.0.0" / "9f1c2a.incomplete" / "x.arrow", table([q[7]])
    )
    (tmp_path / "gsm8k" / "main" / "0.0.0" / "9f1c2a_builder.lock").write_text("")
    out = tmp_path / "o"
    code, _, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(tmp_path / "gsm8k"),
            "--train-field",
            "question",
            "--out",
            str(out),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    assert contaminated(out) == {
        1: ("gsm8k/main/0.0.0/9f1c2a/gsm8k-train.arrow", 2),
        6: ("gsm8k/main/0.0.0/9f1c2a/gsm8k-test.arrow", 1),
    }
    assert (
        "left out: main/0.0.0/9f1c2a.incomplete/ (an unfinished datasets build), "
        "main/0.0.0/9f1c2a/cache-4b2e9d0c1f.arrow (a datasets cache of a map or filter "
        "result: rows already in the dataset's files), main/0.0.0/9f1c2a/"
        "dataset_info.json (datasets metadata)"
    ) in err


def hub_snapshot(root, q):
    """A dataset repository as push_to_hub writes it and snapshot_download(local_dir=...)
    fetches it: README.md, .gitattributes, dataset_infos.json (older pushes), Parquet shards
    under data/, and huggingface_hub's .cache/huggingface/ bookkeeping."""
    (root / "data").mkdir(parents=True)
    (root / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        "  - split: train\n    path: data/train-*\n---\n# ds\n"
    )
    (root / ".gitattributes").write_text("*.parquet filter=lfs diff=lfs merge=lfs -text\n")
    info_json(root / "dataset_infos.json", {"train": 3, "test": 2})
    pq.write_table(
        table([FILLER + " a", FILLER + " b", q[2]]),
        str(root / "data" / "train-00000-of-00001.parquet"),
    )
    pq.write_table(table([q[4], FILLER]), str(root / "data" / "test-00000-of-00001.parquet"))
    meta = root / ".cache" / "huggingface" / "download" / "data"
    meta.mkdir(parents=True)
    (meta / "train-00000-of-00001.parquet.metadata").write_text("abc\n123\n")
    (root / ".cache" / "huggingface" / ".gitignore").write_text("*\n")
    (root / ".cache" / "huggingface" / "note.json").write_text("{\n}\n")
    return root


def test_hub_snapshot_is_read_as_its_parquet_shards(tmp_path, q, capsys):
    d = hub_snapshot(tmp_path / "gsm8k-hub", q)
    out = tmp_path / "o"
    code, _, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(d),
            "--train-field",
            "question",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    assert contaminated(out) == {
        3: ("gsm8k-hub/data/train-00000-of-00001.parquet", 3),
        5: ("gsm8k-hub/data/test-00000-of-00001.parquet", 1),
    }
    assert "left out: .cache/ (hidden), dataset_infos.json (datasets metadata)" in err


def test_hub_cache_folder_reads_the_snapshot_refs_main_names(tmp_path, q, capsys):
    d = tmp_path / "datasets--openai--gsm8k"
    (d / "blobs").mkdir(parents=True)
    (d / "refs").mkdir()
    (d / "refs" / "main").write_text("e53f048856ff4f594e959d75785d2c2d37b678ee")
    for rev, text in (
        ("e53f048856ff4f594e959d75785d2c2d37b678ee", q[1]),
        ("0000000000000000000000000000000000000000", q[2]),
    ):
        blob = d / "blobs" / rev[:12]
        pq.write_table(table([FILLER, text]), str(blob))
        link = d / "snapshots" / rev / "main" / "train-00000-of-00001.parquet"
        link.parent.mkdir(parents=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    out = tmp_path / "o"
    code, _, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(d),
            "--train-field",
            "question",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    # the current revision only: the older snapshot's row (q[2]) is not read
    assert contaminated(out) == {
        2: (
            "datasets--openai--gsm8k/snapshots/e53f048856ff4f594e959d"
            "75785d2c2d37b678ee/main/train-00000-of-00001.parquet",
            2,
        )
    }


def test_an_arrow_shard_given_alone_and_a_feather_file(tmp_path, q, capsys):
    write_stream(tmp_path / "data-00000-of-00001.arrow", table([FILLER, q[0]]))
    with (
        pa.OSFile(str(tmp_path / "t.feather"), "wb") as sink,
        pa.ipc.new_file(sink, table([q[3]]).schema) as w,
    ):
        w.write_table(table([q[3]]))
    out = tmp_path / "o"
    code, _, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(tmp_path / "data-00000-of-00001.arrow"),
            str(tmp_path / "t.feather"),
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    assert contaminated(out) == {1: ("data-00000-of-00001.arrow", 2), 4: ("t.feather", 1)}
    # the default field of an Arrow file, from its rows like a Parquet file's
    assert (
        "train: data-00000-of-00001.arrow: arrow, fields question (default: named for "
        "the prompt ('question')"
    ) in err
    code, out_text, _ = run(["fields", str(tmp_path / "t.feather")], capsys)
    assert code == 0 and out_text.startswith("t.feather: arrow; 1 rows sampled")


def test_arrow_without_pyarrow_names_the_file_and_the_fix(tmp_path, q, capsys, monkeypatch):
    write_stream(tmp_path / "d" / "data-00000-of-00001.arrow", table([q[0]]))
    for k in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, k)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    code, _, err = run(
        [
            "contamination",
            eval_file(tmp_path, q),
            str(tmp_path / "d"),
            "--out",
            str(tmp_path / "o"),
        ],
        capsys,
    )
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        "evalsieve: error: data-00000-of-00001.arrow: this is an Arrow file (the format of a "
        "Hugging Face datasets cache and of save_to_disk), and reading it needs pyarrow, which "
        "is not installed (expected pip install 'evalsieve[parquet]' (or save the dataset as "
        "Parquet or JSON Lines: Dataset.to_parquet / to_json))"
    )


def test_eval_folder_with_one_data_file_and_with_several(tmp_path, q, capsys):
    d = hub_snapshot(tmp_path / "hub", q)
    os.remove(d / "data" / "train-00000-of-00001.parquet")
    tr = tmp_path / "train.jsonl"
    tr.write_text(json.dumps({"text": "Quiz: " + q[4]}) + "\n", encoding="utf-8")
    out = tmp_path / "o"
    code, _, err = run(["contamination", str(d), str(tr), "--out", str(out)], capsys)
    assert code == 0, err
    assert f"eval: {d}: reading data/test-00000-of-00001.parquet; left out: .cache/ (hidden)" in err
    assert contaminated(out) == {1: ("train.jsonl", 1)}
    # two splits: which one is the eval set is the user's to say
    s = save_to_disk(tmp_path / "two", {"train": [q[0]], "test": [q[1]]})
    code, _, err = run(
        ["contamination", str(s / "test"), str(tr), "--out", str(tmp_path / "o2")], capsys
    )
    assert code == 2 and "the eval folder holds 2 data files" in err


def test_arrow_eval_file_is_refused_with_the_fix(tmp_path, q, capsys):
    write_stream(tmp_path / "test.arrow", table(q))
    tr = tmp_path / "train.jsonl"
    tr.write_text(json.dumps({"text": FILLER}) + "\n", encoding="utf-8")
    code, _, err = run(
        ["contamination", str(tmp_path / "test.arrow"), str(tr), "--out", str(tmp_path / "o")],
        capsys,
    )
    assert code == 2
    assert (
        "test.arrow: an Arrow file as the eval file: eval.clean is written in the eval "
        "file's own format, and the CLI does not write Arrow"
    ) in err
    assert not (tmp_path / "o").exists()


def test_walk_directory_lists_what_it_leaves_out():
    assert HF_METADATA == (
        "dataset_info.json",
        "dataset_infos.json",
        "dataset_dict.json",
        "state.json",
    )


def test_walk_of_a_plain_folder_is_unchanged(tmp_path):
    (tmp_path / "a").mkdir()
    for name in ("a/x.jsonl", "b.csv", "notes.md", "c.txt.gz"):
        (tmp_path / name).write_bytes(b"")
    found, skipped = walk_directory(str(tmp_path))
    assert [os.path.relpath(p, tmp_path) for p in found] == ["a/x.jsonl", "b.csv", "c.txt.gz"]
    assert skipped == []
