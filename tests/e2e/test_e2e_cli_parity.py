"""The page and the CLI give the same exports for the same inputs.

The run stamp (run-stamp.json, the CSVs' run_fingerprint column, the stamp section of the
HTML report) differs by design: time, runtime (Pyodide vs CPython) and its Unicode version.
Everything else must be byte-identical. The page offers no Parquet versions of the reports
(the CLI writes them when pyarrow is installed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hostile_common import with_parquet, without_fingerprint
from pagekit import choose_file, wait_for_runs
from test_e2e_contamination import download_all, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def cli_exports(eval_path: Path, train_path: Path, out: Path, eval_fields, train_fields) -> dict:
    sys.path.insert(0, str(ROOT / "py"))
    from evalsieve.cli import main

    argv = ["contamination", str(eval_path), str(train_path), "--out", str(out), "--quiet"]
    for f in eval_fields:
        argv += ["--eval-field", f]
    for f in train_fields:
        argv += ["--train-field", f]
    assert main(argv) == 0
    return {p.name: p.read_bytes() for p in out.iterdir()}


#: What a page's and the CLI's stamps of the same run share (runtime, assets, environment
#: and the fingerprint over them differ).
SHARED_STAMP = ("job", "settings", "inputs", "tool", "version")


def without_stamp(name: str, data: bytes):
    """An export without what the driver stamps on it: a CSV export without its
    run_fingerprint column (eval.clean.* as it is), overlap-report.html above its stamp,
    run-stamp.json's SHARED_STAMP part."""
    if name.endswith(".csv") and not name.startswith("eval.clean"):
        return without_fingerprint(data.decode("utf-8"))
    if name.endswith(".html"):
        body, stamp = data.split(b"<h2>Run stamp</h2>")
        assert b"fingerprint" in stamp
        return body
    if name == "run-stamp.json":
        stamp = json.loads(data)
        return {k: stamp[k] for k in SHARED_STAMP}
    return data


def page_names(cli_files: dict) -> set:
    """The exports the page offers: the CLI's less its reports' Parquet versions."""
    return {n for n in cli_files if n.startswith("eval.clean") or not n.endswith(".parquet")}


@pytest.mark.parametrize("train_name", ["train_mix.jsonl", "train_mix.csv"])
def test_page_and_cli_exports_are_identical(page, tmp_path, train_name):
    eval_path = FIXTURES / "gsm8k_test_sample.jsonl"
    train_path = FIXTURES / "train_mix.jsonl"
    if train_name.endswith(".csv"):
        # the same training text as CSV: exercises the page's pure-Python path (no prefilter)
        import csv

        train_path = tmp_path / train_name
        with (
            open(FIXTURES / "train_mix.jsonl", encoding="utf-8") as src,
            open(train_path, "w", encoding="utf-8", newline="") as dst,
        ):
            w = csv.writer(dst)
            w.writerow(["text"])
            for line in src:
                w.writerow([json.loads(line)["text"]])
    wait_for_runs(page, 1)
    choose_file(page, "eval", eval_path, ["question"])
    choose_file(page, "train", train_path, ["text"])
    assert run_and_wait(page) == "done"
    (tmp_path / "page").mkdir()
    page_files = download_all(page, tmp_path / "page")
    cli_files = cli_exports(eval_path, train_path, tmp_path / "cli", ["question"], ["text"])
    assert set(page_files) == page_names(cli_files)
    assert set(cli_files) == set(with_parquet(page_files))
    for name in page_files:
        assert without_stamp(name, page_files[name]) == without_stamp(name, cli_files[name]), name
    assert page_files["eval.clean.jsonl"] == cli_files["eval.clean.jsonl"]
    assert b"contaminated" in page_files["contamination-report.csv"]
