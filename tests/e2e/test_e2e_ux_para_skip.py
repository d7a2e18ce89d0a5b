"""In the Paraphrases tab: "skip malformed lines" (the CLI's --skip-bad-lines)
next to the eval drop zone. Ticked, a JSONL file with two malformed lines runs: the two are
counted on the page, listed (file, line, error) in skipped-lines.csv and stamped; unticked, the
error names the file and the first bad line.

The file is the worked example (evalsieve.paraphrase.WORKED_EXAMPLE, whose groups at 0.90 are
hand-checked in test_e2e_paraphrases: rows 1-2-3 chained, 4-5) with a line that is not JSON
at line 3 and a JSON array at line 6. A skipped record keeps its number, so the example's rows
are file rows 1, 2, 4, 5, 7, 8 and the groups read "1 2 4" and "5 7".
"""

from __future__ import annotations

import json

from test_e2e_paraphrases import (
    figures,
    number,
    para_page,  # noqa: F401
    para_runs,  # noqa: F401 (fixture)
    read_export,
    wait_para_runs,
)

NAME = "para-skip.jsonl"


def skip_file(folder):
    from evalsieve.paraphrase import WORKED_EXAMPLE

    good = [
        json.dumps({"id": f"ex{i + 1}", "text": t}) + "\n" for i, t in enumerate(WORKED_EXAMPLE)
    ]
    lines = (
        good[:2]
        + ['{"id": "bad1", "text": "a broken row" x}\n']
        + good[2:4]
        + ['["an", "array"]\n']
        + good[4:]
    )
    path = folder / NAME
    path.write_text("".join(lines), encoding="utf-8")
    return path


def set_skip(page, on: bool) -> None:
    if page.is_checked("#para-skip-bad-lines") != on:
        page.click("#para-skip-bad-lines")


def download(page, name: str, folder) -> str:
    with page.expect_download() as info:
        page.click(f'#para-downloads button[data-export="{name}"]')
    target = folder / name
    info.value.save_as(target)
    return target.read_text(encoding="utf-8")


def test_para_skip_malformed_lines_counts_lists_and_stamps(para_page, tmp_path):
    p = para_page
    path = skip_file(tmp_path)
    # the option sits in the Paraphrases tab, after its drop zone's row, and says Parquet is exempt
    note = p.text_content("#job-paraphrases .skip-bad-lines")
    assert "Parquet is not line-based" in note and "skipped-lines.csv" in note
    assert not p.is_checked("#para-skip-bad-lines")
    # unticked: the inspection stops at line 3 naming the file, the line and what was expected
    p.set_input_files("#para-file", str(path))
    p.wait_for_selector(f'#para-fields[data-file="{NAME}"][data-state="error"]', timeout=60_000)
    p.wait_for_selector("#para-error:not([hidden])")
    err = p.inner_text("#para-error")
    assert f"{NAME}, line 3" in err and "one JSON object per line" in err, err
    assert "null" not in err and "at at" not in err
    assert p.is_disabled("#para-run")
    # ticking re-reads the chosen file around its malformed lines
    before = para_runs(p)
    set_skip(p, True)
    p.wait_for_selector(f'#para-fields[data-file="{NAME}"][data-state="ready"]', timeout=60_000)
    p.check('#para-fields input[name="para-field"][data-path="text"]')
    p.click("#para-run")
    assert wait_para_runs(p, before + 1) == "done", p.text_content("#para-error")
    assert p.get_attribute("#para-skipped-note", "data-skipped") == "2"
    assert p.inner_text("#para-skipped-note") == f"2 malformed lines skipped ({NAME}: 2)"
    f = figures(p)
    assert number(f["rows_scanned"]) == 6 and number(f["groups"]) == 2
    members = [
        r.get_attribute("data-members")
        for r in p.query_selector_all("#para-groups tr[data-members]")
    ]
    assert sorted(members) == ["1 2 4", "5 7"]
    stamp_text = download(p, "run-stamp.json", tmp_path)
    stamp, rows = read_export(download(p, "skipped-lines.csv", tmp_path), stamp_text)
    assert [(r["file"], r["line"]) for r in rows] == [(NAME, "3"), (NAME, "6")]
    assert rows[1]["error"].startswith("a JSON list where an object was expected")
    assert stamp["settings"]["skipped_lines"] == {NAME: 2}
    assert "skip" in stamp["settings"]["skip_bad_lines"]
    gstamp, groups = read_export(download(p, "paraphrase-groups.csv", tmp_path), stamp_text)
    assert gstamp["settings"]["skipped_lines"] == {NAME: 2}
    assert sorted(g["member_rows"] for g in groups) == ["1 2 4", "5 7"]
    # unticked again, the same file stops at its first bad line once more
    set_skip(p, False)
    p.set_input_files("#para-file", [])
    p.set_input_files("#para-file", str(path))
    p.wait_for_selector(f'#para-fields[data-file="{NAME}"][data-state="error"]', timeout=60_000)
    assert f"{NAME}, line 3" in p.inner_text("#para-error")
