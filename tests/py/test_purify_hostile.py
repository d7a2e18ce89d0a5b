"""evalsieve purify over the hostile corpus (tests/hostile/corpus): every file the
contamination job refuses, purify refuses with the same exit status and no output; every
file it reads, purify writes with its records accounted for (untouched ones byte for byte,
changed ones as pieces of the original), and the rescan of the output finds no row."""

import json
import os
import sys

import pytest

if sys.platform == "emscripten":
    pytest.skip(
        "the CLI's purify over tests/hostile (not in the Pyodide suite's files)",
        allow_module_level=True,
    )
from evalsieve.cli import main  # noqa: E402
from test_purify_cli import check_text_file, report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "hostile", "corpus")
if not os.path.isdir(CORPUS):  # the Pyodide suite copies tests/py and tests/fixtures only
    pytest.skip("tests/hostile/corpus is not in this run", allow_module_level=True)
EVAL = os.path.join(CORPUS, "_eval-partner.jsonl")
FILES = sorted(n for n in os.listdir(CORPUS) if not n.startswith("_") and n != "README.md")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", FILES)
def test_purify_reads_what_contamination_reads(name, tmp_path, capsys):
    path = os.path.join(CORPUS, name)
    base = [EVAL, path, "--eval-field", "question", "--workers", "1"]
    want, _, _ = run(["contamination", *base, "--out", str(tmp_path / "c")], capsys)
    code, out, err = run(
        [
            "purify",
            *base,
            "--out",
            str(tmp_path / "p"),
            "--json",
            "--radius",
            "0",
            "--min-piece",
            "0",
        ],
        capsys,
    )
    assert code == want, err
    assert "Traceback" not in err
    if code != 0:
        assert f"evalsieve: error: {name}" in err
        assert not (tmp_path / "p" / name).exists()
        return
    s = json.loads(out)
    assert s["self_check"]["rows_contaminated"] == 0
    stamp = json.loads((tmp_path / "p" / "run-stamp.json").read_text())
    fmt = stamp["inputs"][1]["format"].replace("+gzip", "")
    fields = stamp["settings"]["train_fields"]
    outp = tmp_path / "p" / name
    if fmt != "parquet":
        check_text_file(path, outp, fmt, fields, report(tmp_path / "p"), min_piece=0)
    # an independent rescan of the output, the job fed the file's text (its fields as chosen
    # for the input: a field check on the output's first rows could fail where the cut
    # records were the ones that had the field)
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
    from evalsieve.stamps import InputFile

    job = ContaminationJob(
        ContaminationConfig(("question",), tuple(fields)), "ev", "jsonl", name, fmt
    )
    job.feed_eval(open(EVAL, encoding="utf-8").read())
    job.end_eval()
    data = outp.read_bytes()
    if data[:2] == b"\x1f\x8b":
        import gzip

        data = gzip.decompress(data)
    job.feed_train(data.decode("utf-8").removeprefix("\ufeff"))
    f = InputFile("train", name, "", len(data), fmt)
    job.finish(InputFile("eval", "ev", "", 0), f, "")
    # purify removes the rule's n-grams (GPT-3 / NeMo): no scored row keeps one; an exact
    # copy of a row too short for n-grams ("too short row") is outside its rule (PURIFY.md)
    assert [r.eval_row for r in job.scores if r.ngram_status == "contaminated"] == []


def test_a_write_stopped_in_its_workers_leaves_no_partial_copy(tmp_path, monkeypatch):
    """When the engine stops (Ctrl-C, SIGTERM, a worker killed) it terminates the workers,
    which cannot remove their own partial copies (``.NAME.purify-tmp-*``): the run removes
    them, and what stopped it goes on up; finished copies and other files stay."""
    from evalsieve import purify_run
    from evalsieve.purify_shards import ShardTask

    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "done.jsonl").write_text("kept\n")
    (out / ".notes").write_text("not ours\n")
    shards = [
        ShardTask(
            k,
            str(tmp_path / f"t{k}.jsonl"),
            f"t{k}.jsonl",
            "jsonl",
            ("text",),
            False,
            1,
            str(out / f"t{k}.jsonl"),
            (),
            1,
        )
        for k in range(2)
    ]

    def run(payload, todo, fn, on_result, on_bytes):
        (out / ".t0.jsonl.purify-tmp-0123456789ab").write_text("half")
        (out / "sub" / ".t1.jsonl.purify-tmp-ba9876543210").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        purify_run._write(run, {}, shards, {"mode": "cut"}, str(out), lambda m: None)
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert left == [".notes", "done.jsonl", "sub"]
