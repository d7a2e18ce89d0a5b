"""The page, like the CLI: an eval CSV's byte-order mark stays at the start of eval.clean.csv,
and with "skip malformed lines" a line that is not UTF-8 (eval, and a CSV training file) is a
skipped record listed in skipped-lines.csv with the CLI's own words (the CLI's exports are
the reference, run here on the same bytes)."""

from __future__ import annotations

import sys
from pathlib import Path

from pagekit import choose_file, close_page, download, open_page, wait_for_runs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "hostile"))
from hostile_common import read_csv_export  # noqa: E402

RUN_TIMEOUT_MS = 180_000
ROWS = [
    b"question,id\r\n",
    b"the quick brown fox jumps over the lazy dog near the river bank today,1\r\n",
    b"caf\xe9 au lait is what I order every morning at the station nearby,2\r\n",
    b"completely different words that appear nowhere in the training data ok,3\r\n",
    b"another clean row with plenty of words to be scored by the rule ok,4\r\n",
]
TRAIN = (
    b"text\n"
    b"yesterday the quick brown fox jumps over the lazy dog near the river bank today\n"
    b"\xff\xfe a line that is not UTF-8 at all in the training file\n"
    b"filler words only here nothing to see\n"
)


def test_bom_and_lines_that_are_not_utf8_as_the_cli_has_them(browser_context, base_url, tmp_path):
    ev = tmp_path / "bom-eval.csv"
    ev.write_bytes(b"\xef\xbb\xbf" + b"".join(ROWS))
    tr = tmp_path / "bad-train.csv"
    tr.write_bytes(TRAIN)
    from evalsieve.cli import main

    ref = tmp_path / "cli"
    assert (
        main(
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
                "--out",
                str(ref),
                "--quiet",
            ]
        )
        == 0
    )
    p = open_page(browser_context, base_url)
    try:
        assert wait_for_runs(p, 1) == "done", p.text_content("#error")
        p.click("#setting-skip-bad-lines")
        choose_file(p, "eval", ev, ["question"])
        choose_file(p, "train", tr, ["text"])
        p.fill("#setting-n", "8")
        before = int(p.get_attribute("#status", "data-runs") or 0)
        p.click("#run")
        assert wait_for_runs(p, before + 1, RUN_TIMEOUT_MS) == "done", p.text_content("#error")
        clean = download(p, "eval.clean.csv", tmp_path)
        # the BOM first, the header, then the rows kept: not row 1 (in the training file),
        # not row 2 (not UTF-8, skipped)
        assert clean == b"\xef\xbb\xbf" + ROWS[0] + ROWS[3] + ROWS[4]
        assert clean == (ref / "eval.clean.csv").read_bytes()
        _, rows = read_csv_export(download(p, "skipped-lines.csv", tmp_path).decode("utf-8"))
        _, want = read_csv_export((ref / "skipped-lines.csv").read_text(encoding="utf-8"))
        assert rows == want
        how = "(expected UTF-8 text (re-encode the file, e.g. iconv -t UTF-8))"
        assert [(r["file"], r["line"], r["error"]) for r in rows] == [
            (
                "bom-eval.csv",
                "3",
                f"invalid UTF-8: the byte 0xE9 at character 4 of the record {how}",
            ),
            (
                "bad-train.csv",
                "3",
                f"invalid UTF-8: the byte 0xFF at character 1 of the record {how}",
            ),
        ]
        _, report = read_csv_export(
            download(p, "contamination-report.csv", tmp_path).decode("utf-8")
        )
        assert [(r["eval_row"], r["status"]) for r in report] == [
            ("1", "contaminated"),
            ("3", "clean"),
            ("4", "clean"),
        ]
        assert not p.watch.page_errors, p.watch.page_errors
    finally:
        close_page(p)
