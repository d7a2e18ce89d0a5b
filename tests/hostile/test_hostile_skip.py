"""Every hostile case again with `--skip-bad-lines`, as the eval file and as
the training file. A case whose error is one malformed record (bad JSON, a JSON scalar or list,
nesting too deep, a row with another field count, a malformed TSV record, a line that is not
UTF-8) now runs: the line the error named is the first line of skipped-lines.csv, the stamp
counts the file's skipped lines, and eval.clean holds none of the skipped lines' bytes. Every
other error (empty, binary, NUL, UTF-16, a JSON array, an unclosed quote, Parquet named
otherwise) is the same error as without the option."""

from __future__ import annotations

import pytest

import make_corpus
from hostile_common import check_error, read_csv_export, run_cli, summary_of

CASES = [c for c in make_corpus.cases(big=False) if c.error]
IDS = [c.name for c in CASES]
#: Error words of the cases that are one malformed record (the option skips them).
SKIPPABLE = (
    "not valid json",
    "object",
    "nested",
    "field but the header",
    "fields but the header",
    "malformed tsv record",
    "malformed csv record",
    "invalid utf-8",
)


def skippable(case) -> bool:
    return case.line is not None and any(w in " ".join(case.error) for w in SKIPPABLE)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile-skip")
    make_corpus.build(str(folder), big=False)
    return folder


def test_the_skippable_cases_are_the_expected_ones():
    assert sorted(c.name for c in CASES if skippable(c)) == [
        "bom-twice.jsonl",
        "csv-ragged.csv",
        "deep-nesting.jsonl",
        "invalid-utf8.jsonl",
        "latin1.csv",
        "malformed-middle.jsonl",
        "scalars.jsonl",
        "tsv-ragged.tsv",
        "tsv-stray-quotes.tsv",
    ]


@pytest.mark.parametrize("role", ["eval", "train"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_with_skip_bad_lines(case, role, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    files = (
        [str(corpus / case.name), str(corpus / "_train-partner.jsonl")]
        if role == "eval"
        else [str(corpus / "_eval-partner.jsonl"), str(corpus / case.name)]
    )
    rc, stdout, err = run_cli(
        [
            "contamination",
            *files,
            "--out",
            str(out),
            "--json",
            "--quiet",
            "--skip-bad-lines",
            "--filter",
            "off",
        ],
        capsys,
    )
    if rc == 2 and "every record in the start of the file is malformed" in err:
        # every record sampled is malformed: the error names the first skipped line
        check_error(rc, err, out, case.name, case.error, case.line)
        assert case.name in (
            "pretty.json",
            "scalars.jsonl",
            "tsv-stray-quotes.tsv",
            "latin1.csv",
        ), err
        return
    if not skippable(case):
        check_error(rc, err, out, case.name, case.error, case.line)
        return
    assert rc == 0, err
    s = summary_of(stdout)
    _, rows = read_csv_export((out / "skipped-lines.csv").read_text(encoding="utf-8"))
    mine = [r for r in rows if r["file"] == case.name]
    assert mine and int(mine[0]["line"]) == case.line, mine
    assert s["skipped_lines"][case.name] == len(mine)
    assert s["stamp"]["settings"]["skipped_lines"][case.name] == len(mine)
    if role == "eval":
        clean = next(p for p in out.iterdir() if p.name.startswith("eval.clean")).read_bytes()
        lines = case.data.split(b"\n")
        for r in mine:
            bad = lines[int(r["line"]) - 1].rstrip(b"\r")
            assert bad not in clean, (r, bad)
