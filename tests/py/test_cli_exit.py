"""Exit statuses and the export folder: every failure is one `evalsieve: error:` line and a
status that means one thing (docs/CLI.md); --out is checked before the scan and written all
at once; an earlier run's exports do not survive a rerun into the same folder."""

import builtins
import errno
import os
import re
import sys
import tempfile

import pytest

from evalsieve import errors
from evalsieve.cli import main

if sys.platform == "emscripten":
    pytest.skip(
        "the CLI's file system and statuses: CPython (Pyodide's suite has no "
        "tests/hostile, and the page writes no folder)",
        allow_module_level=True,
    )
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
from hostile_common import read_export, run_cli, with_parquet  # noqa: E402

# with pyarrow installed, each CSV report's Parquet version too
CONTAMINATION = sorted(
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


@pytest.fixture
def files(fixtures):
    return (
        os.path.join(fixtures, "gsm8k_test_sample.jsonl"),
        os.path.join(fixtures, "train_mix.jsonl"),
        os.path.join(fixtures, "samples_gsm8k_sample.jsonl"),
    )


def contamination(ev, tr, out, *more):
    return ["contamination", ev, tr, "--eval-field", "question", "--out", str(out), *more]


def one_error(err: str) -> str:
    """The run's one error line (and no traceback)."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("evalsieve: error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_out_that_is_no_folder_stops_before_the_scan(where, files, tmp_path, capsys):
    ev, tr, _ = files
    (tmp_path / "f").write_text("a file the user keeps\n")
    out = tmp_path / "f" if where == "a file" else tmp_path / "f" / "sub"
    rc, stdout, err = run_cli(contamination(ev, tr, out), capsys)
    assert rc == errors.EXIT_ENVIRONMENT == 3
    line = one_error(err)
    assert str(out) in line and "is a file" in line, line
    assert "eval:" not in err and "train:" not in err  # nothing was read
    assert (tmp_path / "f").read_text() == "a file the user keeps\n" and stdout == ""


def test_an_out_that_cannot_be_written_stops_before_the_scan(files, tmp_path, capsys, monkeypatch):
    """A read-only folder (simulated: this suite may run as root, whom chmod does not stop;
    the probe is the same tempfile.mkdtemp the exports are staged with)."""
    ev, tr, _ = files
    out = tmp_path / "ro"
    out.mkdir()
    real = tempfile.mkdtemp

    def read_only(*a, dir=None, **k):
        if dir is not None and os.path.abspath(dir) == str(out):
            raise PermissionError(errno.EROFS, os.strerror(errno.EROFS), str(out))
        return real(*a, dir=dir, **k)

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    rc, _, err = run_cli(contamination(ev, tr, out), capsys)
    assert rc == 3
    line = one_error(err)
    assert "cannot write in the --out folder (Read-only file system)" in line, line
    assert "eval:" not in err and os.listdir(out) == []


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0,
    reason="root writes into a read-only folder; the simulated test covers it",
)
def test_a_read_only_out_folder_stops_before_the_scan(files, tmp_path, capsys):
    ev, tr, _ = files
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    try:
        rc, _, err = run_cli(contamination(ev, tr, out), capsys)
    finally:
        out.chmod(0o755)
    assert rc == 3 and "Permission denied" in one_error(err) and "eval:" not in err


def test_disk_full_while_writing_leaves_the_earlier_exports_as_they_were(
    files, tmp_path, capsys, monkeypatch
):
    ev, tr, _ = files
    out = tmp_path / "o"
    rc, _, err = run_cli(contamination(ev, tr, out, "--quiet"), capsys)
    assert rc == 0, err
    before = {n: (out / n).read_bytes() for n in os.listdir(out)}
    assert sorted(before) == CONTAMINATION
    real_open = builtins.open
    written = []

    class Full:  # the second export hits a full disk part way through
        def __init__(self, f):
            self.f = f

        def write(self, text):
            self.f.write(text[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def full_open(path, mode="r", *a, **k):
        f = real_open(path, mode, *a, **k)
        if "w" in mode and str(out) in str(path):
            written.append(path)
            if len(written) == 2:
                return Full(f)
        return f

    monkeypatch.setattr(builtins, "open", full_open)
    # this run finds contamination: with --fail-on-contamination that would be 1, but the
    # failure to write is what the status says
    rc, stdout, err = run_cli(
        contamination(
            ev, tr, out, "--train-field", "text", "--threshold", "0.01", "--fail-on-contamination"
        ),
        capsys,
    )
    monkeypatch.setattr(builtins, "open", real_open)
    assert rc == 3, err
    line = one_error(err)
    assert "No space left on device" in line and "no export was changed" in line, line
    assert {n: (out / n).read_bytes() for n in os.listdir(out)} == before  # staging gone too
    assert stdout == ""


def test_an_earlier_runs_exports_this_run_does_not_write_are_removed(files, tmp_path, capsys):
    ev, tr, sc = files
    out = tmp_path / "o"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    rc, _, err = run_cli(
        contamination(
            ev, tr, out, "--scores", sc, "--score-filter", "strict-match", "--skip-bad-lines"
        ),
        capsys,
    )
    assert rc == 0, err
    more = with_parquet(["score-impact.csv", "scores-unmatched.csv", "skipped-lines.csv"])
    assert sorted(os.listdir(out)) == sorted(CONTAMINATION + ["notes.txt", *more])
    rc, _, err = run_cli(contamination(ev, tr, out), capsys)
    assert rc == 0, err
    assert sorted(os.listdir(out)) == sorted(CONTAMINATION + ["notes.txt"])
    assert (
        "removed an earlier run's exports this run did not write: " + ", ".join(sorted(more))
    ) in err
    stamp, _ = read_export(out, "contamination-report.csv")
    assert "skip_bad_lines" not in stamp["settings"]  # the report is the second run's
    assert (out / "notes.txt").read_text() == "mine\n"


def test_a_folder_of_another_jobs_exports_is_refused(files, tmp_path, capsys):
    ev, tr, _ = files
    out = tmp_path / "o"
    out.mkdir()
    (out / "paraphrase-pairs.csv").write_text("# a paraphrase run's\n")
    rc, _, err = run_cli(contamination(ev, tr, out), capsys)
    assert rc == errors.EXIT_BAD_INPUT == 2
    line = one_error(err)
    assert "holds the exports of a paraphrases run (paraphrase-pairs.csv)" in line, line
    assert os.listdir(out) == ["paraphrase-pairs.csv"] and "eval:" not in err


def test_a_bug_is_one_line_asking_for_a_report(files, tmp_path, capsys, monkeypatch):
    ev, tr, _ = files
    out = tmp_path / "o"
    monkeypatch.setattr("evalsieve.drivers.plan_tasks", lambda *a, **k: 1 / 0)
    rc, _, err = run_cli(contamination(ev, tr, out), capsys)
    assert rc == errors.EXIT_INTERNAL == 4
    assert one_error(err) == "evalsieve: error: internal error: ZeroDivisionError: division by zero"
    assert "this is a bug in evalsieve" in err and "please report it" in err
    assert not out.exists()  # made for this run, left empty: removed


def test_a_usage_error_ends_in_the_error_line(files, tmp_path, capsys):
    ev, _, _ = files
    with pytest.raises(SystemExit) as e:
        main(["contamination", ev, "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "evalsieve: error: contamination: the following arguments "
        "are required: TRAIN (see evalsieve contamination --help)"
    )


def test_contamination_is_status_1_only_with_fail_on_contamination(files, tmp_path, capsys):
    ev, tr, _ = files
    base = contamination(
        ev, tr, tmp_path / "o", "--train-field", "text", "--threshold", "0.01", "--quiet"
    )
    assert run_cli(base, capsys)[0] == 0
    assert run_cli(base + ["--fail-on-contamination"], capsys)[0] == 1
    clean = contamination(
        ev,
        os.path.join(os.path.dirname(ev), "humaneval_sample.jsonl"),
        tmp_path / "c",
        "--train-field",
        "text",
        "--fail-on-contamination",
    )
    assert run_cli(clean, capsys)[0] == 0


def test_the_exit_status_table_in_the_docs_is_the_code():
    doc = open(os.path.join(ROOT, "docs", "CLI.md"), encoding="utf-8").read()
    table = doc.split("<!-- exit-statuses -->")[1]
    rows = dict(re.findall(r"^\| (\d+) \| `(EXIT_\w+)` \|", table, flags=re.M))
    assert {int(k): v for k, v in rows.items()} == {
        getattr(errors, n): n for n in dir(errors) if n.startswith("EXIT_") and n != "EXIT_BY_CODE"
    }
    for code, status in errors.EXIT_BY_CODE.items():  # each error code's status is listed
        assert f"`{code}`" in table.split(f"| {status} |")[1].split("\n")[0], code
