import gzip
import json
import os
import subprocess
import sys

import pytest

from evalsieve.cli import main
from hostile_common import with_parquet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(fixtures):
    return (
        os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
        os.path.join(fixtures, "train_mix.jsonl"),
    )


def test_json_summary_and_four_exports(files, tmp_path, capsys):
    ev, tr = files
    code, out, err = run(
        ["contamination", ev, tr, "--eval-field", "question", "--out", str(tmp_path), "--json"],
        capsys,
    )
    assert code == 0
    s = json.loads(out)
    for k in (
        "n",
        "rows_scanned",
        "rows_scored",
        "rows_too_short",
        "rows_contaminated",
        "rows_kept",
        "training_records",
        "training_bytes",
        "stamp",
    ):
        assert k in s
    assert s["rows_scanned"] == 40 and s["training_records"] == 127
    assert s["training_bytes"] == os.path.getsize(tr)
    assert s["rows_scored"] == s["rows_contaminated"] + s["rows_kept"]
    assert sorted(os.listdir(tmp_path)) == sorted(
        with_parquet(
            [
                "contamination-report.csv",
                "eval.clean.jsonl",
                "overlap-report.html",
                "too-short-to-score.csv",
                "run-stamp.json",
            ]
        )
    )
    import hashlib

    with open(ev, "rb") as f:
        assert s["stamp"]["inputs"][0]["sha256"] == hashlib.sha256(f.read()).hexdigest()
    assert "fields question" in err


def test_gzip_training_gives_same_result(files, tmp_path, capsys):
    ev, tr = files
    gz = tmp_path / "train.bin"  # no .gz name: detected by magic bytes
    with open(tr, "rb") as f, open(gz, "wb") as g:
        data = f.read()
        half = len(data) // 2
        g.write(gzip.compress(data[:half]) + gzip.compress(data[half:]))  # two members
    code, out1, _ = run(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "a"),
            "--json",
        ],
        capsys,
    )
    code2, out2, _ = run(
        [
            "contamination",
            ev,
            str(gz),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "b"),
            "--json",
        ],
        capsys,
    )
    assert code == code2 == 0
    a, b = json.loads(out1), json.loads(out2)
    assert b["stamp"]["inputs"][1]["format"] == "jsonl+gzip"
    for k in ("rows_contaminated", "rows_kept", "training_records"):
        assert a[k] == b[k]
    for name in ("eval.clean.jsonl",):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_bad_input_exit_2_names_line_and_writes_nothing(files, tmp_path, capsys):
    ev, tr = files
    bad = tmp_path / "bad.jsonl"
    lines = open(ev, encoding="utf-8").read().splitlines(keepends=True)
    lines[5] = '{"question": "broken\n'
    bad.write_text("".join(lines), encoding="utf-8")
    out_dir = tmp_path / "out"
    code, out, err = run(
        ["contamination", str(bad), tr, "--eval-field", "question", "--out", str(out_dir)], capsys
    )
    assert code == 2
    assert "bad.jsonl, line 6" in err and "not valid JSON" in err
    assert not out_dir.exists() or os.listdir(out_dir) == []


def test_invalid_utf8_and_truncated_gzip(files, tmp_path, capsys):
    ev, tr = files
    b = tmp_path / "latin1.jsonl"
    b.write_bytes(
        open(ev, "rb").read()[:300] + b"\n" + '{"question": "caf\xe9"}\n'.encode("latin-1")
    )
    code, _, err = run(["contamination", str(b), tr, "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "invalid UTF-8 at byte" in err
    t = tmp_path / "trunc.jsonl.gz"
    t.write_bytes(gzip.compress(open(tr, "rb").read())[:2000])
    code, _, err = run(
        ["contamination", ev, str(t), "--eval-field", "question", "--out", str(tmp_path / "o2")],
        capsys,
    )
    assert code == 2 and "truncated" in err


def test_unknown_field_is_refused_with_the_known_ones(files, tmp_path, capsys):
    ev, tr = files
    code, _, err = run(
        ["contamination", ev, tr, "--eval-field", "questoin", "--out", str(tmp_path)], capsys
    )
    assert code == 2 and "no field 'questoin'" in err and "question" in err


@pytest.mark.skipif(
    sys.platform == "emscripten",
    reason="runs `python -m evalsieve.cli` in a subprocess; Pyodide has no processes",
)
def test_fail_on_contamination_exit_1_and_entry_point(files, tmp_path):
    ev, tr = files
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"))
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalsieve.cli",
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--out",
            str(tmp_path),
            "--quiet",
            "--fail-on-contamination",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert p.returncode == 1, p.stderr
    assert "contaminated 7" in p.stdout


def test_threshold_and_n_flags(files, tmp_path, capsys):
    ev, tr = files
    code, out, _ = run(
        [
            "contamination",
            ev,
            tr,
            "--eval-field",
            "question",
            "--threshold",
            "0.5",
            "--n",
            "10",
            "--no-boilerplate",
            "--out",
            str(tmp_path),
            "--json",
        ],
        capsys,
    )
    s = json.loads(out)
    assert s["n"] == 10 and s["threshold"] == 0.5 and s["boilerplate_cutoff"] == 0
    assert s["stamp"]["settings"]["boilerplate"] is False
    with pytest.raises(SystemExit):
        main(["contamination", ev, tr, "--threshold", "1.5", "--out", str(tmp_path)])


@pytest.mark.parametrize(
    "argv",
    [
        ["contamination", "{ev}", "{tr}", "--eval-field", "question", "--semantic"],
        ["paraphrases", "{ev}", "--field", "question"],
    ],
)
def test_without_the_encoder_extra_the_error_says_how_to_install(
    argv, files, tmp_path, capsys, monkeypatch
):
    # `pip install .` (no extra), then a job that embeds: exit 3 (environment) with the
    # command to run, before any pass over the files, never a traceback out of main()
    ev, tr = files
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    monkeypatch.setenv("EVALSIEVE_CACHE_DIR", str(tmp_path / "cache"))
    log = []
    monkeypatch.setattr(
        "evalsieve.drivers.open_input",
        lambda *a, **k: log.append(a) or (_ for _ in ()).throw(AssertionError),
    )
    out = tmp_path / "o"
    argv = [a.format(ev=ev, tr=tr) for a in argv] + ["--out", str(out)]
    code, _, err = run(argv, capsys)
    assert code == 3, err
    assert "onnxruntime" in err and "pip install 'evalsieve[encoder]'" in err
    assert "Traceback" not in err and log == [] and not out.exists()
