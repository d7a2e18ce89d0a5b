"""Every hostile case through both CLI jobs: `contamination` with the case as the eval file
and as the training file (against a small valid partner), and `paraphrases` (skipped when the
model or onnxruntime is absent). Errors: exit 2, the file (and line) named, no traceback, no
export. Results: every record accounted for once, eval.clean byte-exact, CSV cells
neutralised, the HTML report inert."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalsieve import constants

import make_corpus
from hostile_common import (
    check_contamination_result,
    check_csv_cells_safe,
    check_error,
    model_dir_or_none,
    read_csv_export,
    run_cli,
    summary_of,
    with_parquet,
)

CASES = make_corpus.cases(big=True)
IDS = [c.name for c in CASES]
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The corpus as make_corpus writes it, plus the two 5 MB cases (never committed)."""
    folder = tmp_path_factory.mktemp("hostile")
    make_corpus.build(str(folder), big=True)
    return folder


def test_committed_corpus_is_what_make_corpus_writes():
    committed = HERE / "corpus"
    for c in make_corpus.cases():
        assert (committed / c.name).read_bytes() == c.data, f"{c.name}: run make_corpus.py"
    assert (committed / "_train-partner.jsonl").read_bytes() == make_corpus.training_partner()
    assert (committed / "_eval-partner.jsonl").read_bytes() == make_corpus.eval_partner()
    readme = (committed / "README.md").read_text(encoding="utf-8")
    assert readme == make_corpus.readme(CASES), "README.md is stale: run make_corpus.py"
    assert all(len(c.data) < 64_000 for c in make_corpus.cases()), "keep committed cases small"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_as_eval_file(case, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    rc, stdout, err = run_cli(
        [
            "contamination",
            str(corpus / case.name),
            str(corpus / "_train-partner.jsonl"),
            "--out",
            str(out),
            "--json",
            "--quiet",
        ],
        capsys,
    )
    if case.error:
        check_error(rc, err, out, case.name, case.error, case.line)
        return
    assert rc == 0, err
    assert "Traceback" not in err
    bom = make_corpus.BOM if case.data.startswith(make_corpus.BOM) else b""
    got = check_contamination_result(out, summary_of(stdout), case.rows, case.header, bom)
    if case.name == "markup.jsonl":
        assert got["contaminated"] == [1, 2, 3] and got["clean"] == [4]
        html = (out / "overlap-report.html").read_text(encoding="utf-8")
        assert "&lt;script&gt;" in html and "&lt;img" in html
    if case.name == "formula-cells.csv":
        assert got["contaminated"] == [1, 2, 3, 4, 5, 6, 7] and got["clean"] == [8]
        report = (out / "contamination-report.csv").read_text(encoding="utf-8")
        assert check_csv_cells_safe(report, "report") >= 2  # "=..." and "+..." passages


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_as_training_file(case, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    rc, stdout, err = run_cli(
        [
            "contamination",
            str(corpus / "_eval-partner.jsonl"),
            str(corpus / case.name),
            "--out",
            str(out),
            "--json",
            "--quiet",
        ],
        capsys,
    )
    if case.error:
        check_error(rc, err, out, case.name, case.error, case.line)
        return
    assert rc == 0, err
    summary = summary_of(stdout)
    assert summary["training_records"] == len(case.rows)
    check_contamination_result(out, summary, make_corpus.EVAL_PARTNER_ROWS, b"")
    if case.name == "lone-surrogate.jsonl":  # the \ud800 escape, as U+FFFD in the excerpt
        assert "\ufffd" in (out / "contamination-report.csv").read_text(encoding="utf-8")


MODEL_DIR = model_dir_or_none()


@pytest.fixture(scope="module")
def one_encoder():
    """Load the encoder once for all cases (the CLI builds one per run; 0.5 s each)."""
    from evalsieve import native_encoder

    made = native_encoder.NativeEncoder
    cache = {}

    def shared(*args):
        if args not in cache:
            cache[args] = made(*args)
        return cache[args]

    native_encoder.NativeEncoder = shared
    yield
    native_encoder.NativeEncoder = made


@pytest.mark.skipif(
    MODEL_DIR is None,
    reason="paraphrases need onnxruntime + tokenizers and "
    "the model in dist/assets/model (python3 build.py build)",
)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_paraphrases(case, corpus, tmp_path, capsys, one_encoder):
    out = tmp_path / "out"
    rc, stdout, err = run_cli(
        [
            "paraphrases",
            str(corpus / case.name),
            "--out",
            str(out),
            "--json",
            "--quiet",
            "--model-dir",
            MODEL_DIR,
        ],
        capsys,
    )
    words = case.error or case.para_error
    if words:
        check_error(rc, err, out, case.name, words, case.line if case.error else None)
        return
    assert rc == 0, err
    summary = summary_of(stdout)
    assert summary["rows_scanned"] + summary["rows_empty"] == len(case.rows)
    names = sorted(p.name for p in out.iterdir())
    dedup = [n for n in names if n.startswith("eval.deduplicated.")]  # after the eval format
    assert len(dedup) == 1 and dedup[0] in constants.DEDUP_NAME_BY_FORMAT.values(), names
    assert sorted(set(names) - set(dedup)) == sorted(
        with_parquet(
            [
                "paraphrase-dropped.csv",
                "paraphrase-groups.csv",
                "paraphrase-pairs.csv",
                "run-stamp.json",
            ]
        )
    )
    pairs = (out / "paraphrase-pairs.csv").read_text(encoding="utf-8")
    groups = (out / "paraphrase-groups.csv").read_text(encoding="utf-8")
    check_csv_cells_safe(pairs, "paraphrase-pairs.csv")
    check_csv_cells_safe(groups, "paraphrase-groups.csv")
    if case.name == "formula-cells.csv":
        # rows 1 and 7 are the same =HYPERLINK(...) text: a pair, neutralised in both exports
        _, rows = read_csv_export(pairs)
        assert rows and rows[0]["text_a"].startswith("'=HYPERLINK")
        _, grows = read_csv_export(groups)
        assert grows[0]["representative_text"].startswith("'=HYPERLINK")
