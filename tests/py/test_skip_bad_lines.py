"""Skip malformed lines (CLI --skip-bad-lines, the page's checkbox).

Hand-made files whose bad lines are known: the skipped line numbers, the per-file counts in
the stamp, the rows scored and the exact bytes of eval.clean are asserted.
"""

import csv
import io
import json
import sys

import pytest

import evalsieve.para_exports as px
import evalsieve.contamination_exports as cx
from evalsieve import corpus
from evalsieve.cli import main
from evalsieve.contamination_exports import SKIPPED_EXPORT
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.records import SKIPPED_COLUMNS
from evalsieve.errors import EvalsieveError
from evalsieve.records import RecordReader, parse_jsonl_line
from evalsieve.stamps import InputFile
from hostile_common import read_csv_export, without_fingerprint

# eval: good rows on lines 1, 3, 6, 7; line 2 is not JSON, line 4 is blank (not a record),
# line 5 is a JSON array (not an object). Records: 1 (line 1), 2 (skipped), 3 (line 3),
# 4 (skipped, line 5), 5 (line 6), 6 (line 7).
EVAL_LINES = [
    '{"q": "the quick brown fox jumps over the lazy dog near the river bank today"}\n',
    '{"q": "a malformed line here" x}\n',
    '{"q": "completely different words that appear nowhere in the training data okay"}\r\n',
    "\n",
    '["an", "array"]\n',
    '{"q": "another clean row with plenty of words to be scored by the rule ok"}\n',
    '{"q": "résumé café naïve words make a fine last row without a newline"}',
]
EVAL = "".join(EVAL_LINES)
TRAIN = (
    '{"t": "yesterday the quick brown fox jumps over the lazy dog near the river bank '
    'today and more"}\n{"t": broken\n{"t": "filler words only here nothing to see"}\n'
)


def test_json_error_has_one_at():
    # json's message "Unterminated string starting at" already ends in "at"
    with pytest.raises(EvalsieveError) as e:
        parse_jsonl_line('{"a": "b', "f.jsonl", 3)
    assert e.value.message == "not valid JSON: Unterminated string starting at column 7"
    with pytest.raises(EvalsieveError) as e:
        parse_jsonl_line('{"a": 1 "b": 2}', "f.jsonl", 3)
    assert e.value.message == "not valid JSON: Expecting ',' delimiter at column 9"
    assert "at at" not in str(e.value)


def test_jsonl_reader_skips_and_keeps_numbers():
    r = RecordReader("jsonl", "ev.jsonl", skip_bad=True)
    recs = r.feed(EVAL[:50]) + r.feed(EVAL[50:]) + r.finish()
    assert [(x.index, x.line) for x in recs] == [(1, 1), (3, 3), (5, 6), (6, 7)]
    assert [x.raw for x in recs] == [EVAL_LINES[i] for i in (0, 2, 5, 6)]
    assert r.skipped == [
        (
            2,
            "not valid JSON: Expecting ',' delimiter at column 31 (expected one JSON object "
            "per line)",
        ),
        (5, "a JSON list where an object was expected (expected one JSON object per line)"),
    ]
    assert r.records_read == 6


def test_jsonl_reader_without_the_option_stops_at_the_first_bad_line():
    r = RecordReader("jsonl", "ev.jsonl")
    with pytest.raises(EvalsieveError) as e:
        r.feed(EVAL)
    assert (e.value.file, e.value.line, e.value.expected) == (
        "ev.jsonl",
        2,
        "one JSON object per line",
    )


CSV_TEXT = (
    "id,text\r\n"  # 1 header
    "1,alpha beta\r\n"  # 2 record 1
    "2,too,many\r\n"  # 3 record 2: three fields (skipped)
    '3,"two\r\nlines"\r\n'  # 4-5 record 3: a quoted line end
    '4,"a"b\r\n'  # 6 record 4: text after a closing quote (skipped)
    "5,last\r\n"
)  # 7 record 5


def test_csv_reader_skips_rows_with_other_field_counts_and_bad_quotes():
    r = RecordReader("csv", "e.csv", skip_bad=True)
    recs = r.feed(CSV_TEXT) + r.finish()
    assert [(x.index, x.line, x.value["text"]) for x in recs] == [
        (1, 2, "alpha beta"),
        (3, 4, "two\r\nlines"),
        (5, 7, "last"),
    ]
    assert [ln for ln, _ in r.skipped] == [3, 6]
    assert r.skipped[0][1].startswith("this row has 3 fields but the header has 2")
    assert r.skipped[1][1].startswith("malformed CSV record: ")
    with pytest.raises(EvalsieveError) as e:
        RecordReader("csv", "e.csv").feed(CSV_TEXT)
    assert e.value.line == 3


def test_tsv_reader_skips_too():
    r = RecordReader("tsv", "e.tsv", skip_bad=True)
    recs = r.feed("a\tb\nx\ty\nonly one\nz\tw\n") + r.finish()
    assert [(x.index, x.line) for x in recs] == [(1, 2), (3, 4)]
    assert [ln for ln, _ in r.skipped] == [3]


def test_what_is_never_skipped():
    # a quoted field never closed runs to the end of the file: not one line, so it stops
    r = RecordReader("csv", "e.csv", skip_bad=True)
    r.feed('a,b\n1,"open\n2,x\n')
    with pytest.raises(EvalsieveError) as e:
        r.finish()
    assert e.value.line == 2
    # a plain text file has no malformed line; blank lines are not records (nothing skipped)
    r = RecordReader("text", "e.txt", skip_bad=True)
    assert len(r.feed("a\n\n{bad\n") + r.finish()) == 2 and r.skipped == []


def run_job(skip=True, eval_text=EVAL, train_text=TRAIN):
    cfg = ContaminationConfig(("q",), ("t",), n=8, skip_bad_lines=skip)
    job = ContaminationJob(cfg, "ev.jsonl", "jsonl", "tr.jsonl", "jsonl")
    job.feed_eval(eval_text[:40])
    job.feed_eval(eval_text[40:])
    info = job.end_eval()
    job.feed_train(train_text)
    s = job.finish(
        InputFile("eval", "ev.jsonl", "0" * 64, len(eval_text.encode()), "jsonl"),
        InputFile("train", "tr.jsonl", "1" * 64, len(train_text.encode()), "jsonl"),
        "2026-12-01T00:00:00+00:00",
    ).summary
    return job, info, s


def csv_rows(text):
    """A CSV export's rows, header first, without the run_fingerprint column."""
    rows = list(csv.reader(io.StringIO(without_fingerprint(text))))
    assert len(rows) == len(read_csv_export(text)[1]) + 1
    return rows


def test_job_skips_counts_stamps_and_lists():
    job, info, s = run_job()
    assert info["rows"] == 4 and s["rows_scanned"] == 4 and s["rows_scored"] == 4
    assert s["skipped_lines"] == {"ev.jsonl": 2, "tr.jsonl": 1} and s["rows_skipped"] == 2
    st = s["stamp"]["settings"]
    assert st["skipped_lines"] == {"ev.jsonl": 2, "tr.jsonl": 1}
    assert "a skipped eval line is no row and is not in eval.clean" in st["skip_bad_lines"]
    # training: 3 records (the skipped one keeps its number); record 1 holds eval row 1
    assert s["training_records"] == 3 and s["rows_contaminated"] == 1
    report = csv_rows(cx.export(job.result, "contamination-report.csv")[1])
    assert [(r[0], r[1]) for r in report[1:]] == [
        ("1", "contaminated"),
        ("3", "clean"),
        ("5", "clean"),
        ("6", "clean"),
    ]
    assert SKIPPED_EXPORT in cx.export_names(job.result)
    mime, text = cx.export(job.result, SKIPPED_EXPORT)
    assert mime == "text/csv" and text.startswith("file,line,error,run_fingerprint\r\n")
    rows = csv_rows(text)
    assert rows[0] == SKIPPED_COLUMNS == ["file", "line", "error"]
    assert [(r[0], r[1]) for r in rows[1:]] == [
        ("ev.jsonl", "2"),
        ("ev.jsonl", "5"),
        ("tr.jsonl", "2"),
    ]
    assert rows[3][2] == (
        "not valid JSON: Expecting value at column 7 (expected one JSON object per line)"
    )
    # eval.clean: the kept rows' own bytes (rows 3, 5, 6: line 3's CRLF and line 7 without a
    # newline as they were); no skipped line
    clean = cx.export(job.result, "eval.clean.jsonl")[1]
    assert clean == EVAL_LINES[2] + EVAL_LINES[5] + EVAL_LINES[6]
    assert "malformed" not in clean and "array" not in clean


def test_job_without_the_option_is_unchanged():
    with pytest.raises(EvalsieveError) as e:
        run_job(skip=False)
    assert (e.value.file, e.value.line) == ("ev.jsonl", 2)
    good = "".join(EVAL_LINES[i] for i in (0, 2, 5, 6))
    goodt = TRAIN.replace('{"t": broken\n', "")
    job, _, s = run_job(skip=False, eval_text=good, train_text=goodt)
    assert "skipped_lines" not in s and "skip_bad_lines" not in s["stamp"]["settings"]
    assert SKIPPED_EXPORT not in cx.export_names(job.result)


def test_prefiltered_training_pass_skips_candidates():
    # the page's prefilter hands malformed lines on as candidates (records 2 and 4)
    cfg = ContaminationConfig(("q",), ("t",), n=8, skip_bad_lines=True)
    job = ContaminationJob(cfg, "ev.jsonl", "jsonl", "tr.jsonl", "jsonl")
    job.feed_eval(EVAL_LINES[0])
    job.end_eval()
    lines = TRAIN.split("\n")
    job.feed_train_candidates([1, 2], [1, 2], "\n".join(lines[:2]), 5, 100)
    job.feed_train_candidates([4], [7], '{"t": [1,', 5, 10)
    s = job.finish(
        InputFile("eval", "ev.jsonl", "", 1, "jsonl"),
        InputFile("train", "tr.jsonl", "", 1, "jsonl"),
        "t",
    ).summary
    assert s["skipped_lines"] == {"ev.jsonl": 0, "tr.jsonl": 2}
    assert [(f, ln) for f, ln, _ in job.skipped] == [("tr.jsonl", 2), ("tr.jsonl", 7)]
    assert s["training_records"] == 5 and s["rows_contaminated"] == 1


def cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("filt", ["off", "auto"])
def test_cli_skip_bad_lines(tmp_path, capsys, filt):
    ev, tr, out = tmp_path / "ev.jsonl", tmp_path / "tr.jsonl", tmp_path / "out"
    ev.write_bytes(EVAL.encode())
    tr.write_bytes(TRAIN.encode())
    base = [
        "contamination",
        str(ev),
        str(tr),
        "--out",
        str(out),
        "--n",
        "8",
        "--filter",
        filt,
        "--workers",
        "1",
    ]
    code, _, err = cli(base, capsys)
    assert code == 2 and "ev.jsonl, line 2: not valid JSON" in err and not out.exists()
    code, so, err = cli(base + ["--skip-bad-lines", "--json"], capsys)
    assert code == 0, err
    s = json.loads(so)
    assert s["skipped_lines"] == {"ev.jsonl": 2, "tr.jsonl": 1} and s["rows_scanned"] == 4
    assert "skipped 3 malformed record(s): ev.jsonl 2, tr.jsonl 1" in err
    rows = csv_rows((out / "skipped-lines.csv").read_text(encoding="utf-8"))
    assert [(r[0], r[1]) for r in rows[1:]] == [
        ("ev.jsonl", "2"),
        ("ev.jsonl", "5"),
        ("tr.jsonl", "2"),
    ]
    assert (out / "eval.clean.jsonl").read_bytes() == (
        EVAL_LINES[2] + EVAL_LINES[5] + EVAL_LINES[6]
    ).encode()


def test_rows_skipped_counts_the_eval_file_only_when_a_training_file_has_its_name(tmp_path, capsys):
    # an eval file checked against a training file of the same name (another folder, or the
    # file itself): rows_skipped is the eval file's 2 skipped lines, not 2 + the training
    # file's 1 (the per-name counts cannot tell them apart)
    (tmp_path / "e").mkdir()
    (tmp_path / "t").mkdir()
    ev, tr = tmp_path / "e" / "data.jsonl", tmp_path / "t" / "data.jsonl"
    ev.write_bytes(EVAL.encode())
    tr.write_bytes(TRAIN.encode())
    code, so, err = cli(
        [
            "contamination",
            str(ev),
            str(tr),
            "--out",
            str(tmp_path / "out"),
            "--n",
            "8",
            "--filter",
            "off",
            "--workers",
            "1",
            "--skip-bad-lines",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(so)
    assert s["rows_scanned"] == 4
    assert s["rows_skipped"] == 2
    rows = csv_rows((tmp_path / "out" / "skipped-lines.csv").read_text(encoding="utf-8"))
    assert [r[1] for r in rows[1:]] == ["2", "5", "2"]


@pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide has no processes, threads or subprocesses"
)
def test_cli_skip_bad_lines_in_byte_ranges(tmp_path, capsys, monkeypatch):
    # a training file cut into byte ranges (two workers): skipped lines still count from the
    # file's start
    lines = [json.dumps({"t": f"record {i} with some words"}) for i in range(1, 201)]
    bad = {37: '{"t": oops', 150: '{"t": "x" "y"}', 199: "[1, 2]"}
    for ln, text in bad.items():
        lines[ln - 1] = text
    tr = tmp_path / "tr.jsonl"
    tr.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ev = tmp_path / "ev.jsonl"
    ev.write_text(EVAL_LINES[0], encoding="utf-8")
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 1000)
    out = tmp_path / "out"
    code, so, err = cli(
        [
            "contamination",
            str(ev),
            str(tr),
            "--out",
            str(out),
            "--n",
            "8",
            "--filter",
            "off",
            "--workers",
            "2",
            "--skip-bad-lines",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(so)
    assert s["training_engine"]["tasks"] > 1
    assert s["skipped_lines"] == {"ev.jsonl": 0, "tr.jsonl": 3} and s["training_records"] == 200
    rows = csv_rows((out / "skipped-lines.csv").read_text(encoding="utf-8"))
    assert [int(r[1]) for r in rows[1:]] == [37, 150, 199]


def test_cli_skip_csv_eval(tmp_path, capsys):
    ev = tmp_path / "ev.csv"
    ev.write_bytes(CSV_TEXT.encode())
    tr = tmp_path / "tr.txt"
    tr.write_text("alpha beta gamma\nlast\n", encoding="utf-8")
    out = tmp_path / "out"
    code, so, err = cli(
        [
            "contamination",
            str(ev),
            str(tr),
            "--out",
            str(out),
            "--n",
            "1",
            "--eval-field",
            "text",
            "--skip-bad-lines",
            "--json",
            "--clean",
            "not-contaminated",
        ],
        capsys,
    )
    assert code == 0, err
    s = json.loads(so)
    assert s["skipped_lines"] == {"ev.csv": 2, "tr.txt": 0} and s["rows_scanned"] == 3
    # header, then the one row not contaminated (record 3, its quoted line end kept)
    assert (out / "eval.clean.csv").read_bytes() == b'id,text\r\n3,"two\r\nlines"\r\n'


def test_scores_refused_with_skipped_eval_lines(tmp_path, capsys):
    ev, tr = tmp_path / "ev.jsonl", tmp_path / "tr.jsonl"
    ev.write_bytes(EVAL.encode())
    tr.write_bytes(TRAIN.encode())
    sc = tmp_path / "scores.jsonl"
    sc.write_text(
        "".join(json.dumps({"doc_id": i, "acc": 1}) + "\n" for i in range(6)), encoding="utf-8"
    )
    code, _, err = cli(
        [
            "contamination",
            str(ev),
            str(tr),
            "--out",
            str(tmp_path / "o"),
            "--n",
            "8",
            "--skip-bad-lines",
            "--scores",
            str(sc),
        ],
        capsys,
    )
    assert code == 2 and "skipped lines" in err


def test_paraphrase_job_skips_lists_and_stamps():
    from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob

    job = ParaphraseJob(ParaphraseConfig("q", skip_bad_lines=True), "ev.jsonl", "jsonl")
    job.feed_eval(EVAL)
    info = job.end_eval()
    assert job.rows == [1, 3, 5, 6] and info["rows"] == 4
    assert info["skipped_lines"] == {"ev.jsonl": 2}  # what the page shows (para.end_eval)
    # rows 1 and 3 (node ids 0 and 1) paraphrase each other; 1 edge
    job.set_similarity([(0, 1, 0.95)], [0.95, 0.95, 0.1, 0.1], [1, 0, 3, 2], 0)
    stamp = job.stamp(0.9, InputFile("eval", "ev.jsonl", "0" * 64, len(EVAL)), "t")
    assert stamp.settings["skipped_lines"] == {"ev.jsonl": 2}
    res = job.result(stamp)
    assert "skipped-lines.csv" in px.export_names(res)
    rows = csv_rows(px.export(res, "skipped-lines.csv")[1])
    assert [(r[0], r[1]) for r in rows[1:]] == [("ev.jsonl", "2"), ("ev.jsonl", "5")]
    pairs = csv_rows(px.export(res, "paraphrase-pairs.csv")[1])
    assert [(r[1], r[2]) for r in pairs[1:]] == [("1", "3")]  # row numbers as in the file
    off = ParaphraseJob(ParaphraseConfig("q"), "ev.jsonl", "jsonl")
    with pytest.raises(EvalsieveError) as e:
        off.feed_eval(EVAL)
    assert e.value.line == 2


def test_cli_paraphrases_has_the_option():
    from evalsieve.cli import build_parser

    a = build_parser().parse_args(["paraphrases", "e.jsonl", "--out", "o", "--skip-bad-lines"])
    assert a.skip_bad_lines is True
    a = build_parser().parse_args(["paraphrases", "e.jsonl", "--out", "o"])
    assert a.skip_bad_lines is False


def test_cli_paraphrases_skip_bad_lines(tmp_path, model_dir, capsys):
    """The worked example with two malformed lines put in (lines 3 and 6): the same two
    groups, row numbers as in the file (a skipped record keeps its number)."""
    from evalsieve.paraphrase import worked_example_jsonl

    lines = worked_example_jsonl().splitlines(keepends=True)
    lines.insert(2, '{"text": oops}\n')  # line 3 = record 3
    lines.insert(5, '"a string"\n')  # line 6 = record 6
    f = tmp_path / "ex.jsonl"
    f.write_text("".join(lines), encoding="utf-8")
    base = [
        "paraphrases",
        str(f),
        "--field",
        "text",
        "--label-field",
        "id",
        "--out",
        str(tmp_path / "o"),
        "--json",
        "--quiet",
    ]
    code, _, err = cli(base, capsys)
    assert code == 2 and "ex.jsonl, line 3" in err
    code, so, err = cli(base + ["--skip-bad-lines"], capsys)
    assert code == 0, err
    s = json.loads(so)
    assert s["rows_scanned"] == 6 and s["groups"] == 2
    assert s["stamp"]["settings"]["skipped_lines"] == {"ex.jsonl": 2}
    groups = csv_rows((tmp_path / "o" / "paraphrase-groups.csv").read_bytes().decode("utf-8"))
    # the worked example's groups are rows 1 2 3 and 4 5; now at records 1 2 4 and 5 7
    assert [g[2] for g in groups[1:]] == ["1 2 4", "5 7"]
    rows = csv_rows((tmp_path / "o" / "skipped-lines.csv").read_bytes().decode("utf-8"))
    assert [(r[0], r[1]) for r in rows[1:]] == [("ex.jsonl", "3"), ("ex.jsonl", "6")]


def test_page_corpus_of_two_training_files_lists_each_files_lines():
    # the page's corpus: cont.train_file (begin_train_file) per file, each numbered from 1
    cfg = ContaminationConfig(("q",), ("t", "text"), n=8, skip_bad_lines=True)
    job = ContaminationJob(cfg, "ev.jsonl", "jsonl", "a.jsonl", "jsonl")
    job.feed_eval(EVAL_LINES[0])
    job.end_eval()
    job.begin_train_file(0, "a.jsonl", "jsonl", ["t"])
    job.feed_train('{"t": "nothing here"}\n{bad\n')
    job.begin_train_file(1, "b.csv", "csv", ["text"])
    job.feed_train('text\n"the quick brown fox jumps over the lazy dog near the river bank"\nx,y\n')
    s = job.finish(
        InputFile("eval", "ev.jsonl", "", 1, "jsonl"),
        [InputFile("train", "a.jsonl", "", 1, "jsonl"), InputFile("train", "b.csv", "", 1, "csv")],
        "t",
    ).summary
    assert s["skipped_lines"] == {"ev.jsonl": 0, "a.jsonl": 1, "b.csv": 1}
    assert [(f, ln) for f, ln, _ in job.skipped] == [("a.jsonl", 2), ("b.csv", 3)]
    assert s["rows_contaminated"] == 1 and s["training_records"] == 4
    report = csv_rows(cx.export(job.result, "contamination-report.csv")[1])
    assert (report[1][7], report[1][8]) == ("b.csv", "1")  # training_file, training_record


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "text"])
def test_offsets_after_a_line_that_is_not_utf8_are_the_files_bytes(fmt):
    """A skipped line that is not UTF-8 reaches the reader as surrogateescape text (one lone
    surrogate per byte that is not UTF-8, as the CLI decodes and worker/utf8.js marks it):
    the reader skips it and the next records' offsets are where their bytes start in the file,
    and a job traces its match to them."""

    def rec(t):
        return json.dumps({"text": t}).encode() if fmt == "jsonl" else t.encode()

    head = b"text\n" if fmt == "csv" else b""
    bad = (
        b"\xff\xfe a line \xe9\xe9 that is not UTF-8\n"
        if fmt != "jsonl"
        else b'{"text": "\xff\xe9 x"}\n'
    )
    good = rec("yesterday the quick brown fox jumps over the lazy dog near the river bank")
    data = head + rec("first record of the file here") + b"\n" + bad + good + b"\n"
    text = data.decode("utf-8", "surrogateescape")
    r = RecordReader(fmt, "train." + fmt, skip_bad=True, offsets=True)
    got = r.feed(text) + r.finish()
    assert [x.offset for x in got] == [len(head), data.index(good)]
    assert len(r.skipped) == 1
    job = ContaminationJob(
        ContaminationConfig(("question",), ("text",), n=8, skip_bad_lines=True),
        "eval.jsonl",
        "jsonl",
        "train." + fmt,
        fmt,
    )
    job.feed_eval(
        json.dumps({"question": "the quick brown fox jumps over the lazy dog near the river"})
        + "\n"
    )
    job.end_eval()
    job.feed_train(text)
    job.finish(
        InputFile("eval", "eval.jsonl", "", 0), InputFile("train", "train." + fmt, "", 0), "t"
    )
    # the bad line keeps its record number (2): the match is record 3, at its own bytes
    ((key, src),) = job.scan.sources.items()
    assert key == (0, 3) and src[:2] == [data.index(good), len(good)]
