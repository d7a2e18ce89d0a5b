"""The training corpus: several files, byte ranges, the filters (the scan kernel under
wasmtime, numpy's), workers, Ray, faults.

Every engine and path must give the same exports as the pure-Python single-process scan
(the reference): the comparisons below are byte-for-byte, apart from the run stamp.
"""

import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from evalsieve import corpus
from evalsieve.cli import main
from evalsieve.errors import EvalsieveError
from hostile_common import comparable, read_export

#: Processes, threads and subprocesses: the CLI's engines, not the core (Pyodide has none).
needs_processes = pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide has no processes, threads or subprocesses"
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

Q = [
    json.loads(line)["question"]
    for line in open(
        os.path.join(ROOT, "tests", "fixtures", "gsm8k_test_sample.jsonl"), encoding="utf-8"
    )
]

FILLER = (
    "the cat sat on the mat while a dog ran around the old garden and the bird sang "
    "in the tall tree near the river bank every single morning of the long summer"
)


def adversarial_records():
    """Training texts that stress the filter: non-ASCII, JSON escapes, odd white space."""
    q0, q1, q2, q3, q4, q5 = Q[0], Q[1], Q[2], Q[3], Q[4], Q[5]
    fw = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in q2)  # full width
    return [
        FILLER,
        "prefix \u201c" + q0 + "\u201d suffix",  # curly quotes around it
        q1.upper(),  # case
        fw,  # NFKC: full-width ASCII
        q3.replace(" ", "\u00a0"),  # NBSP between words
        q3.replace(" ", "\n\t"),  # JSON \n \t escapes
        "caf\u00e9 " + q4 + " na\u00efve \u00c9COLE",  # é, ï, É
        "\\\\ " + q5 + ' \\\\"',  # escaped backslashes
        "emoji \U0001f600 " + Q[6],  # non-BMP
        "\u0391\u0392\u0393 " + Q[7],  # Greek capitals
        "x" * 40 + " " + Q[8].replace(" ", "  "),  # long word, double spaces
        "ﬁnal \ufb01 " + Q[9],  # ligature (NFKC: 2 chars)
        "Σ σ ς " + Q[10],  # Final_Sigma context
        Q[11].replace("e", "\u0065\u0301"),  # combining accents
        "\u3000".join(Q[12].split()),  # ideographic space
        "\u2028".join(Q[13].split()),  # line separator
        FILLER + " " + Q[14][:60],  # a partial question
    ]


def write_jsonl(path, texts, start=1, gz=False, ascii_only=True, extra_lines=()):
    lines = [
        json.dumps({"id": start + i, "text": t}, ensure_ascii=ascii_only)
        for i, t in enumerate(texts)
    ]
    lines += list(extra_lines)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if gz:
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return path


def run_cli(argv, capsys=None):
    code = main(argv)
    out = err = ""
    if capsys is not None:
        out, err = capsys.readouterr()
    return code, out, err


def exports(d):
    """The exports of a run folder, the run's time taken out (hostile_common.comparable)."""
    return {name: comparable(d, name) for name in sorted(os.listdir(d))}


def report_rows(d):
    return read_export(d, "contamination-report.csv")[1]


@pytest.fixture
def eval_file(fixtures):
    return os.path.join(fixtures, "gsm8k_test_sample.jsonl")


# records of corpus_dir: a-00 4 + 17 + 2 + 1, a-01 17 + 1 + 1 (two blank lines), b-00 3,
# c.csv 3 (one spans two lines), t.txt 3 (one blank line)
RECORDS = 24 + 19 + 3 + 3 + 3


@pytest.fixture
def corpus_dir(tmp_path):
    """A sharded corpus: plain JSONL (escaped and raw UTF-8), gzip JSONL, CSV, text."""
    d = tmp_path / "corpus"
    (d / "sub").mkdir(parents=True)
    recs = adversarial_records()
    write_jsonl(
        d / "a-00.jsonl",
        [FILLER] * 4 + recs + [FILLER, Q[0]],
        extra_lines=[json.dumps({"text": "\ud83d " + Q[30]})],
    )  # a lone surrogate
    write_jsonl(
        d / "a-01.jsonl",
        recs[::-1] + [FILLER],
        ascii_only=False,
        extra_lines=["", "   ", json.dumps({"id": 0, "text": Q[15]})],
    )
    write_jsonl(d / "sub" / "b-00.jsonl.gz", [FILLER, Q[16], Q[0]], gz=True)
    with open(d / "sub" / "c.csv", "w", encoding="utf-8", newline="") as f:
        import csv

        w = csv.writer(f)
        w.writerow(["id", "text"])
        w.writerow([1, FILLER])
        w.writerow([2, "multi\nline " + Q[17]])
        w.writerow([3, Q[1]])
    (d / "sub" / "notes.md").write_text(Q[18])  # not a supported extension: skipped
    (d / "sub" / "t.txt").write_text(f"{FILLER}\n\n  {Q[19]}\n{Q[0]}\r\n", encoding="utf-8")
    return d


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_expand_inputs_directories_globs_order(corpus_dir):
    d = str(corpus_dir)
    got = corpus.expand_inputs([d])
    assert [os.path.relpath(p, d) for p, _ in got] == [
        "a-00.jsonl",
        "a-01.jsonl",
        os.path.join("sub", "b-00.jsonl.gz"),
        os.path.join("sub", "c.csv"),
        os.path.join("sub", "t.txt"),
    ]
    # names: the folder's name, then the path below it (as the page names a dropped folder)
    assert [n for _, n in got] == [
        "corpus/a-00.jsonl",
        "corpus/a-01.jsonl",
        "corpus/sub/b-00.jsonl.gz",
        "corpus/sub/c.csv",
        "corpus/sub/t.txt",
    ]
    # a glob, then a file named again: kept at its first place only; a file: its base name
    got = corpus.expand_inputs(
        [
            os.path.join(d, "**", "*-0*.jsonl*"),
            os.path.join(d, "a-00.jsonl"),
            os.path.join(d, "sub", "notes.md"),
        ]
    )
    assert [n for _, n in got] == ["a-00.jsonl", "a-01.jsonl", "sub/b-00.jsonl.gz", "notes.md"]
    # two files that would share a name are named by their paths
    (corpus_dir / "sub" / "a-00.jsonl").write_text("{}\n")
    got = corpus.expand_inputs(
        [os.path.join(d, "a-00.jsonl"), os.path.join(d, "sub", "a-00.jsonl")]
    )
    assert [n for _, n in got] == [p for p, _ in got]
    with pytest.raises(EvalsieveError, match="matches no file"):
        corpus.expand_inputs([os.path.join(d, "zz-*.jsonl")])
    with pytest.raises(EvalsieveError, match="no such file"):
        corpus.expand_inputs([os.path.join(d, "missing.jsonl")])
    empty = corpus_dir / "empty"
    empty.mkdir()
    with pytest.raises(EvalsieveError, match="holds no training file"):
        corpus.expand_inputs([str(empty)])


def test_line_cuts_split_at_line_ends(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_bytes(b"".join(b"%d%s\n" % (i, b"a" * (i % 7)) for i in range(1000)))
    size = p.stat().st_size
    cuts = corpus.line_cuts(str(p), size, [k * size // 7 for k in range(1, 7)])
    assert cuts[0] == 0 and cuts[-1] == size and cuts == sorted(set(cuts))
    data = p.read_bytes()
    assert all(data[c - 1 : c] == b"\n" for c in cuts[1:-1])
    assert len(cuts) == 8
    # each cut is the first line start at or after its target
    for k, c in enumerate(cuts[1:-1], 1):
        t = k * size // 7
        assert data.rfind(b"\n", 0, c - 1) < t <= c - 1


def _cli(ev, train, out, *extra):
    code, _, _ = run_cli(
        [
            "contamination",
            ev,
            *train,
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(out),
            "--quiet",
            "--json",
            *extra,
        ]
    )
    assert code == 0
    return exports(out)


def _needs(filt):
    """Skip unless the filter ``filt`` can run here."""
    pytest.importorskip({"numpy": "numpy", "kernel": "wasmtime"}[filt])


@pytest.mark.parametrize("filt", ["numpy", "kernel"])
def test_filter_and_pure_path_give_identical_exports(eval_file, corpus_dir, tmp_path, filt):
    _needs(filt)
    train = [str(corpus_dir)]
    pure = _cli(eval_file, train, tmp_path / "pure", "--filter", "off", "--workers", "1")
    fast = _cli(eval_file, train, tmp_path / "fast", "--filter", filt, "--workers", "1")
    assert pure == fast
    rows = {int(r["eval_row"]): r for r in report_rows(tmp_path / "pure")}
    # the hand-planted records: question k of the eval sample is inside these records
    a00 = "corpus/a-00.jsonl"
    assert rows[1]["training_file"] == a00 and rows[1]["training_record"] == "6"
    assert rows[1]["status"] == "contaminated"
    for k in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 31):  # read exactly whatever the bytes
        assert rows[k]["status"] == "contaminated", (k, rows[k])
    a01 = "corpus/a-01.jsonl"
    assert rows[16]["training_file"] == a01 and rows[16]["training_record"] == "19"
    assert rows[17]["training_file"].endswith("b-00.jsonl.gz")
    assert rows[18]["training_file"].endswith("c.csv") and rows[18]["training_record"] == "2"
    assert rows[19]["status"] == "clean"  # notes.md is not read
    assert rows[20]["training_file"].endswith("t.txt") and rows[20]["training_record"] == "2"


@pytest.mark.parametrize("piece", [1, 97, 300, 4096])
def test_filter_pieces_give_identical_exports(
    eval_file, corpus_dir, tmp_path, monkeypatch, capsys, piece
):
    """The filter reads each block in pieces of about corpus.FILTER_BYTES cut at line ends
    (lines longer than a piece go whole): any piece size gives the exports of the plain
    scan, record numbers and first matches included."""
    pytest.importorskip("numpy")
    from evalsieve import corpus

    train = [str(corpus_dir)]
    pure = _cli(eval_file, train, tmp_path / "pure", "--filter", "off", "--workers", "1")
    monkeypatch.setattr(corpus, "FILTER_BYTES", piece)
    fast = _cli(eval_file, train, tmp_path / "fast", "--filter", "numpy", "--workers", "1")
    assert pure == fast
    rows = {int(r["eval_row"]): r for r in report_rows(tmp_path / "fast")}
    assert rows[16]["training_file"] == "corpus/a-01.jsonl"
    assert rows[16]["training_record"] == "19"
    # a malformed line after many pieces (and past the 1 MB head the CLI reads first) is
    # named by its line in the file
    bad = tmp_path / "bad.jsonl"
    write_jsonl(bad, [FILLER] * 12000, extra_lines=['{"text": "oops"'])
    code, _, err = run_cli(
        [
            "contamination",
            eval_file,
            str(bad),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "1",
            "--filter",
            "numpy",
        ],
        capsys,
    )
    assert code == 2 and "bad.jsonl, line 12001: not valid JSON" in err, err


@pytest.mark.parametrize("block", [1, 97, 300, 4096])
def test_kernel_blocks_give_identical_exports(
    eval_file, corpus_dir, tmp_path, monkeypatch, capsys, block
):
    """The kernel reads whole blocks of lines (corpus.CHUNK_BYTES reads, cut at line ends,
    the rest carried): any block size gives the exports of the plain scan; a malformed line
    many blocks on is named by its line in the file, and with --skip-bad-lines skipped."""
    _needs("kernel")
    train = [str(corpus_dir)]
    pure = _cli(eval_file, train, tmp_path / "pure", "--filter", "off", "--workers", "1")
    monkeypatch.setattr(corpus, "CHUNK_BYTES", block)
    fast = _cli(eval_file, train, tmp_path / "fast", "--filter", "kernel", "--workers", "1")
    assert pure == fast
    bad = tmp_path / "bad.jsonl"
    write_jsonl(
        bad,
        [FILLER] * 300 + [Q[3]],
        extra_lines=['{"text": "oops"', "   ", json.dumps({"text": Q[4]})],
    )
    code, _, err = run_cli(
        [
            "contamination",
            eval_file,
            str(bad),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "1",
            "--filter",
            "kernel",
        ],
        capsys,
    )
    assert code == 2 and "bad.jsonl, line 302: not valid JSON" in err, err
    skip = {}
    for filt in ("off", "kernel"):
        code, out, _ = run_cli(
            [
                "contamination",
                eval_file,
                str(bad),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(tmp_path / filt),
                "--workers",
                "1",
                "--filter",
                filt,
                "--skip-bad-lines",
                "--json",
                "--quiet",
            ],
            capsys,
        )
        assert code == 0
        skip[filt] = exports(tmp_path / filt)
        s = json.loads(out)
        assert s["training_records"] == 303 and s["rows_contaminated"] == 2
        assert s["training_chars"] == len(bad.read_text(encoding="utf-8"))
    assert skip["off"] == skip["kernel"]


@needs_processes
def test_workers_and_byte_ranges_match_one_process(eval_file, corpus_dir, tmp_path, monkeypatch):
    big = corpus_dir / "big.jsonl"
    texts = [FILLER + f" number {i}" for i in range(3000)]
    for k, i in enumerate(range(150, 3000, 300)):
        texts[i] = FILLER + " " + Q[20 + k % 10]
    write_jsonl(big, texts)
    train = [str(corpus_dir / "big.jsonl"), str(corpus_dir)]
    one = _cli(eval_file, train, tmp_path / "one", "--workers", "1", "--filter", "off")
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 20_000)  # cut big.jsonl into ranges
    tasks = corpus.plan_tasks(
        [
            {
                "path": str(big),
                "name": "big",
                "fmt": "jsonl",
                "fields": ["text"],
                "gzip": False,
                "size": big.stat().st_size,
            }
        ],
        2,
        20_000,
    )
    # ranges of max(5,000, bytes left / (2 × 2)): 575,777 // 4 = 143,944, then 431,833 // 4
    # = 107,958, 80,968, 60,726, 45,545, 34,159, 25,619, 19,214, 14,411, 10,808, 8,106,
    # 6,079, then 5,000 three times; the rest (3,240 bytes) joins the last range
    targets = [
        143944,
        251902,
        332870,
        393596,
        439141,
        473300,
        498919,
        518133,
        532544,
        543352,
        551458,
        557537,
        562537,
        567537,
        572537,
    ]
    assert corpus.range_targets(575_777, 575_777, 2, 5000) == targets
    assert len(tasks) == 16
    assert [t.nbytes for t in tasks] == sorted((t.nbytes for t in tasks), reverse=True)
    data = big.read_bytes()
    by_part = sorted(tasks, key=lambda t: t.part)
    assert [t.part for t in by_part] == list(range(16)) and by_part[-1].end == -1
    assert by_part[0].start == 0
    for a, b, target in zip(by_part, by_part[1:], targets):  # contiguous, cut at line ends
        assert a.end == b.start and data[b.start - 1 : b.start] == b"\n"
        assert data.rfind(b"\n", 0, b.start - 1) < target <= b.start - 1
    # twelve such files: the ranges follow the bytes left in the whole corpus, so files 0-9
    # stay whole (file 9: 1,727,331 left, ranges of 431,832: 575,777 is under 1.5 of them),
    # file 10 is cut once (1,151,554 left: 287,888, then the rest) and file 11 as above
    many = [
        {
            "path": str(big),
            "name": f"s{i}",
            "fmt": "jsonl",
            "fields": ["text"],
            "gzip": False,
            "size": big.stat().st_size,
        }
        for i in range(12)
    ]
    plan = corpus.plan_tasks(many, 2, 20_000)
    assert [sum(t.file == i for t in plan) for i in range(12)] == [1] * 10 + [2, 16]
    assert plan[0].file == 0 and plan[0].whole  # whole files first, in corpus order
    two = _cli(
        eval_file,
        train,
        tmp_path / "two",
        "--workers",
        "2",
        *(["--filter", "kernel"] if _has("wasmtime") else []),
    )
    assert one == two
    # three workers cut big.jsonl differently (ranges of bytes left / 6) and finish in
    # another order: the same exports
    assert len(
        corpus.plan_tasks(
            [
                {
                    "path": str(big),
                    "name": "big",
                    "fmt": "jsonl",
                    "fields": ["text"],
                    "gzip": False,
                    "size": big.stat().st_size,
                }
            ],
            3,
            20_000,
        )
    ) != len(tasks)
    three = _cli(
        eval_file,
        train,
        tmp_path / "three",
        "--workers",
        "3",
        *(["--filter", "numpy"] if _has("numpy") else []),
    )
    assert one == three
    s, _ = read_export(tmp_path / "two", "contamination-report.csv")
    big_in = [i for i in s["inputs"] if i["name"] == "big.jsonl"][0]
    import hashlib

    assert big_in["sha256"] == hashlib.sha256(big.read_bytes()).hexdigest()
    assert big_in["bytes"] == big.stat().st_size
    assert len(s["inputs"]) == 1 + 1 + 5  # eval, big, the five shards
    rows = {int(r["eval_row"]): r for r in report_rows(tmp_path / "two")}
    assert rows[21]["training_file"] == "big.jsonl" and rows[21]["training_record"] == "151"


def test_merge_is_independent_of_finish_order(eval_file, corpus_dir, tmp_path):
    """Results merged in reverse order give the same scan as in corpus order."""
    from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
    from evalsieve.engines import Merger

    files = corpus.expand_inputs([str(corpus_dir)])
    infos = []
    for p, _ in files:
        src = corpus.FileSource(p, name=p)
        fmt = "csv" if p.endswith(".csv") else "text" if p.endswith(".txt") else "jsonl"
        infos.append(
            {
                "path": p,
                "name": p,
                "fmt": fmt,
                "fields": ["text"],
                "gzip": src.gzip,
                "size": os.path.getsize(p),
            }
        )
    results = []
    for order in (1, -1):
        job = ContaminationJob(
            ContaminationConfig(("question",), ("text",)), "e", "jsonl", "t", "jsonl"
        )
        job.feed_eval(open(eval_file, encoding="utf-8").read())
        job.end_eval()
        payload = corpus.make_payload(job.index, fast=False)
        tasks = corpus.plan_tasks(infos, 1)
        res = [corpus.scan_task(payload, t) for t in tasks]
        m = Merger(job, tasks)
        for r in res[::order]:
            m.add(r)
        assert m.done()
        sc = job.scan
        results.append((sc.counts, sc.first_file, sc.first_record, sc.excerpt, job._records_merged))
    assert results[0] == results[1]
    assert results[0][4] == RECORDS


def test_corrupt_shard_stops_the_run_naming_it(eval_file, corpus_dir, tmp_path, capsys):
    bad = corpus_dir / "sub" / "b-00.jsonl.gz"
    data = bad.read_bytes()
    bad.write_bytes(data[:10] + b"\x00garbage\xff" * 4 + data[30:])
    out = tmp_path / "out"
    code, _, err = run_cli(
        [
            "contamination",
            eval_file,
            str(corpus_dir),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(out),
            "--workers",
            "2",
        ],
        capsys,
    )
    assert code == 2
    assert "b-00.jsonl.gz" in err and "corrupt gzip data" in err
    assert not out.exists() or os.listdir(out) == []


def test_invalid_utf8_in_a_byte_range_names_the_file_line(eval_file, tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.jsonl"
    texts = [FILLER + f" n{i}" for i in range(2000)]
    write_jsonl(big, texts)
    data = bytearray(big.read_bytes())
    line1500 = data.split(b"\n")[:1499]
    at = sum(len(x) + 1 for x in line1500) + 20  # inside line 1500
    data[at] = 0xFF
    big.write_bytes(bytes(data))
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 30_000)
    for filt in ("off", "numpy", "kernel"):
        if filt != "off":
            _needs(filt)
        out = tmp_path / f"out-{filt}"
        code, _, err = run_cli(
            [
                "contamination",
                eval_file,
                str(big),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--out",
                str(out),
                "--workers",
                "2",
                "--filter",
                filt,
            ],
            capsys,
        )
        assert code == 2
        assert f"big.jsonl, line 1500: invalid UTF-8 at byte {at}" in err, err
        assert not out.exists() or os.listdir(out) == []


def test_malformed_json_line_in_a_range_names_its_line(eval_file, tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.jsonl"
    write_jsonl(
        big, [FILLER] * 1000, extra_lines=['{"text": oops}'] + [json.dumps({"text": FILLER})] * 10
    )
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 20_000)
    code, _, err = run_cli(
        [
            "contamination",
            eval_file,
            str(big),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
        ],
        capsys,
    )
    assert code == 2 and "big.jsonl, line 1001: not valid JSON" in err, err


@needs_processes
def test_ctrl_c_leaves_no_partial_exports(eval_file, tmp_path):
    big = tmp_path / "big.jsonl"
    write_jsonl(big, [FILLER + " " + Q[i % 40] * 2 for i in range(30000)])
    out = tmp_path / "out"
    # every task waits 60 s before it reads (fault_hooks.py), so the interrupt surely
    # lands inside the training pass, on a fast machine as on a loaded one
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"), EVALSIEVE_TASK_DELAY_S="60")
    # the CLI as a terminal starts it: SIGINT at its default (a shell's background job, as
    # `nohup cmd &` runs CI here, starts with SIGINT ignored, and so would the CLI: Python
    # installs no KeyboardInterrupt handler for an ignored SIGINT, and the run went on)
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evalsieve.cli",
            "contamination",
            eval_file,
            str(big),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(out),
            "--workers",
            "2",
            "--filter",
            "off",
        ],
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while time.time() < deadline:  # wait until the eval pass is done
        line = p.stderr.readline().decode()
        if "eval:" in line and "rows" in line or not line:
            break
    time.sleep(1.0)
    started = time.time()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "cancelled" in err.decode()
    assert time.time() - started < 50  # the workers were stopped, not waited for
    assert not out.exists() or os.listdir(out) == []


def test_stamp_lists_every_input(eval_file, corpus_dir, tmp_path, capsys):
    code, out, _ = run_cli(
        [
            "contamination",
            eval_file,
            str(corpus_dir),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
            "--json",
            "--quiet",
        ],
        capsys,
    )
    s = json.loads(out)
    import hashlib

    ins = s["stamp"]["inputs"]
    assert [i["role"] for i in ins] == ["eval"] + ["train"] * 5
    for i in ins[1:]:
        raw = (corpus_dir.parent / i["name"]).read_bytes()
        assert i["bytes"] == len(raw) and i["sha256"] == hashlib.sha256(raw).hexdigest()
    assert ins[3]["format"] == "jsonl+gzip" and ins[4]["format"] == "csv"
    assert s["training_files"] == 5
    assert s["training_records"] == RECORDS
    assert s["training_bytes"] == sum(i["bytes"] for i in ins[1:])


def test_ray_engine_matches_one_process_and_survives_a_failed_task(
    eval_file, corpus_dir, tmp_path, monkeypatch
):
    ray = pytest.importorskip("ray")
    train = [str(corpus_dir)]
    one = _cli(eval_file, train, tmp_path / "one", "--workers", "1")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {
                "PYTHONPATH": os.path.join(ROOT, "py"),
                "EVALSIEVE_FAIL_ONCE": str(tmp_path),
            }
        },
    )
    try:
        monkeypatch.setenv("EVALSIEVE_FAIL_ONCE", str(tmp_path))
        on_ray = _cli(
            eval_file,
            train,
            tmp_path / "ray",
            "--engine",
            "ray",
            "--workers",
            "2",
            *(["--filter", "kernel"] if _has("wasmtime") else []),
        )
    finally:
        ray.shutdown()
    assert on_ray == one
    # every task failed once (a marker per task) and was retried
    markers = [f for f in os.listdir(tmp_path) if f.startswith("task-")]
    assert len(markers) == 5


def _exact_hits(index, fmt, lines):
    """0-based indexes of the lines the exact rule finds an eval n-gram in."""
    from evalsieve.fields import FieldExtractor
    from evalsieve.ngrams import TrainingScan
    from evalsieve.records import parse_record_line

    seg = FieldExtractor(fmt, ["text"]).segments
    hits = []
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        scan = TrainingScan(index)
        scan.scan([(1, seg(parse_record_line(fmt, raw, "t", i + 1)))])
        if any(scan.counts):
            hits.append(i)
    return hits


WORDS = [
    "alpha",
    "beta",
    "Gamma",
    "déjà",
    "vu",
    "naïve",
    "café",
    "ｆｕｌｌ",
    "x1",
    "$5",
    "don't",
    "state-of-the-art",
    "ΣΟΦΙΑ",
    "日本",
    "ﬁle",
    "e\u0301",
    "łódź",
    "a\u00a0b",
    "“quoted”",
    "tab\there",
    "new\nline",
    "back\\slash",
    "emoji😀",
    "ß",
    "İstanbul",
]
SEPS = [" ", "  ", "\t", "\u00a0", "\u3000", ", ", " — ", "\u2028", "\n", "\u0085"]


@pytest.mark.parametrize("n", [3, 8, 13])
def test_filter_never_drops_a_line_the_rule_matches(n):
    """Property: every line holding an eval n-gram (by the exact rule) is a candidate,
    for JSONL (escaped and raw UTF-8) and text, on random mixes of tricky words (accents,
    full-width and ligature forms that NFKC rewrites, Greek capitals, CJK, combining marks,
    curly quotes, non-ASCII white space, JSON escapes), at every offset from the filter's
    strided probes (N = 3: every window; N = 8: windows of 6 words at every 3rd word;
    N = 13: of 10 words at every 4th)."""
    pytest.importorskip("numpy")
    from hypothesis import given, settings, strategies as st
    from evalsieve.fastscan import LineFilter
    from evalsieve.ngrams import EvalIndex

    evals = [" ".join(WORDS[i % len(WORDS)] for i in range(k, k + n + 3)) for k in range(0, 25, 3)]
    index = EvalIndex([[e] for e in evals], n=n)
    filters = {f: LineFilter(index.ngrams, n, f) for f in ("jsonl", "text")}
    assert filters["jsonl"].stride == {3: 1, 8: 3, 13: 4}[n]
    # runs of consecutive WORDS (the eval rows are such runs, so matches are frequent)
    run = st.tuples(
        st.integers(0, len(WORDS) - 1),
        st.integers(1, n + 4),
        st.lists(st.sampled_from(SEPS), min_size=n + 4, max_size=n + 4),
    )
    text = st.lists(run, min_size=0, max_size=3).map(
        lambda rs: " ".join(
            "".join(WORDS[(a + j) % len(WORDS)] + seps[j] for j in range(k)) for a, k, seps in rs
        )
    )

    found = []  # lines the rule matched, over all examples: the property is not vacuous

    @settings(max_examples=150, deadline=None)
    @given(st.lists(text, min_size=1, max_size=8), st.booleans())
    def check(texts, ascii_only):
        jl = [
            json.dumps({"id": i, "text": t}, ensure_ascii=ascii_only) for i, t in enumerate(texts)
        ]
        tl = [t.replace("\n", " ").replace("\r", " ") for t in texts]
        for fmt, lines in (("jsonl", jl), ("text", tl)):
            block = ("\n".join(lines) + "\n").encode("utf-8")
            count, cands = filters[fmt].candidates(block)
            assert count == len(lines)
            hits = _exact_hits(index, fmt, lines)
            found.extend(hits)
            missing = set(hits) - set(cands.tolist())
            assert not missing, (fmt, [lines[i] for i in missing])

    check()
    assert len(found) > 20


def test_filter_eval_units_one_byte_per_non_ascii_character():
    """The filter's eval words: ASCII as it is, every other character (two to four UTF-8
    bytes, or a lone surrogate) one WORD unit; the window hashes are those of that text."""
    np = pytest.importorskip("numpy")
    from evalsieve.fastscan import WORD, LineFilter

    ngrams = ["déjà vu naïve café 日本 x", "a b c d e f", "emoji😀 \ud800 ß z y w"]
    f = LineFilter(ngrams, 6, "text")
    units = (
        "d\x80j\x80 vu na\x80ve caf\x80 \x80\x80 x\na b c d e f\nemoji\x80 \x80 \x80 z y w\n"
    ).encode("latin-1")
    assert units.count(bytes([WORD])) == 9
    _, g = f._window_hashes(units, 1)
    at = (np.arange(3) * 6)[:, None] + np.arange(f.stride)[None, :]
    assert f._eval_hashes(ngrams).tolist() == g[at.ravel()].tolist()


def test_several_files_use_the_requested_fields_each_has(eval_file, tmp_path, capsys):
    write_jsonl(tmp_path / "a.jsonl", [FILLER, Q[0]])
    # cells quoted: the questions hold commas ("$80,000")
    (tmp_path / "b.csv").write_text(f'id,content\n1,"{Q[1]}"\n', encoding="utf-8")
    (tmp_path / "c.csv").write_text(f'id,other\n1,"{Q[2]}"\n', encoding="utf-8")
    base = [
        "contamination",
        eval_file,
        "--eval-field",
        "question",
        "--train-field",
        "text",
        "--train-field",
        "content",
        "--out",
    ]
    code, out, _ = run_cli(
        base + [str(tmp_path / "o"), "--json", str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv")],
        capsys,
    )
    assert code == 0
    rows = {int(r["eval_row"]): r for r in report_rows(tmp_path / "o")}
    assert (rows[1]["training_file"], rows[1]["training_record"]) == ("a.jsonl", "2")
    assert (rows[2]["training_file"], rows[2]["training_record"]) == ("b.csv", "1")
    assert rows[3]["status"] == "clean"
    code, _, err = run_cli(
        base + [str(tmp_path / "o2"), str(tmp_path / "a.jsonl"), str(tmp_path / "c.csv")], capsys
    )
    assert (
        code == 2
        and (
            "c.csv: this file has none of the --train-field paths asked for "
            "(text, content) (expected at least one of them in every training "
            "file; this one has: id, other)"
        )
        in err
    )


@needs_processes
def test_cli_modules_import_without_optional_packages():
    """cli, corpus, engines, fastscan and the kernel's host import numpy, wasmtime, ray,
    fsspec and tqdm only when used."""
    code = (
        "import sys; import evalsieve.cli, evalsieve.corpus, evalsieve.engines, "
        "evalsieve.fastscan, evalsieve.kernel, evalsieve.filters; "
        "bad = [k for k in ('numpy', 'wasmtime', 'ray', 'fsspec', 'tqdm') "
        "if k in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "py")},
    )


def test_url_without_fsspec_is_a_clear_error(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_fsspec(name, *a, **k):
        if name == "fsspec":
            raise ImportError("no fsspec")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_fsspec)
    with pytest.raises(EvalsieveError, match="reading a URL needs fsspec") as e:
        corpus.expand_inputs(["s3://bucket/data/"])
    assert "evalsieve[remote]" in str(e.value)


def test_file_urls_go_through_fsspec(eval_file, corpus_dir, tmp_path):
    """A URL corpus (file:// through fsspec, as s3:// or hf:// would be) gives the same
    per-row results as the local paths."""
    pytest.importorskip("fsspec")
    local = _cli(eval_file, [str(corpus_dir)], tmp_path / "local", "--workers", "1")
    url = "file://" + str(corpus_dir)
    remote = _cli(eval_file, [url], tmp_path / "url", "--workers", "2")
    a, b = report_rows(tmp_path / "local"), report_rows(tmp_path / "url")
    strip = lambda rows: [{k: v for k, v in r.items() if k != "training_file"} for r in rows]
    assert strip(a) == strip(b)
    assert [r["training_file"] for r in b if r["training_file"]] == [
        url + "/" + r["training_file"].split("/", 1)[1] for r in a if r["training_file"]
    ]
    assert local["eval.clean.jsonl"] == remote["eval.clean.jsonl"]


@needs_processes
def test_ctrl_c_while_the_pool_starts_terminates_it(eval_file, tmp_path, monkeypatch):
    """A Ctrl-C that arrives while run_local starts its worker processes (here: sent right
    after the first one started, before the second exists) is noted until they all exist,
    then stops them: no worker process is left behind."""
    import multiprocessing as mp
    from evalsieve import engines

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("needs fork (the workers inherit the payload)")
    big = tmp_path / "t.jsonl"
    write_jsonl(big, [FILLER + " " + Q[i % 40] for i in range(2000)])
    files = [
        {
            "path": str(big),
            "name": "t.jsonl",
            "fmt": "jsonl",
            "fields": ["text"],
            "gzip": False,
            "size": big.stat().st_size,
        }
    ]
    tasks = corpus.plan_tasks(files, 2, split_min=16384)
    assert len(tasks) > 2
    process = mp.get_context("fork").Process
    real = process.start
    started = []

    def start_then_ctrl_c(self):
        real(self)
        started.append(self)
        if len(started) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # as if Ctrl-C came while they started
            time.sleep(0.2)  # an unnoted SIGINT raises KeyboardInterrupt here, mid-start

    monkeypatch.setattr(process, "start", start_then_ctrl_c)
    monkeypatch.setenv("EVALSIEVE_TASK_DELAY_S", "30")  # the tasks would still be running
    before = set(mp.active_children())
    with pytest.raises(KeyboardInterrupt):
        engines.run_local({"filters": None}, tasks, 2, lambda r: None, lambda n: None)
    assert len(started) == 2  # the interrupt waited until both existed
    left = [p for p in mp.active_children() if p not in before]
    assert left == [], left


@needs_processes
def test_progress_counts_each_byte_of_the_corpus_once(eval_file, tmp_path, monkeypatch, capsys):
    """The last byte range of a split file reported the whole file's size, so progress read
    "read 256 of 252 MB ... ETA -0 s": the tasks' bytes add up to the files' sizes."""
    big = tmp_path / "big.jsonl"
    write_jsonl(big, [FILLER + " " + Q[i % 40] for i in range(3000)])
    small = write_jsonl(tmp_path / "small.jsonl.gz", [FILLER] * 50, gz=True)
    files = [
        {
            "path": str(p),
            "name": p.name,
            "fmt": "jsonl",
            "fields": ["text"],
            "gzip": p.suffix == ".gz",
            "size": p.stat().st_size,
        }
        for p in (big, small)
    ]
    tasks = corpus.plan_tasks(files, 2, split_min=40_000)
    assert any(t.file == 0 and t.start > 0 and t.end == -1 for t in tasks)  # a last range
    from evalsieve.corpus import make_payload
    from evalsieve.ngrams import EvalIndex

    payload = make_payload(EvalIndex([[q] for q in Q], None), fast=False)
    assert (
        sum(corpus.scan_task(payload, t)["bytes"] for t in tasks)
        == big.stat().st_size + small.stat().st_size
    )
    # through the CLI, with two workers: what Progress was told adds up to its total
    from evalsieve import cli

    seen = []
    real_add = cli.Progress.add
    monkeypatch.setattr(
        cli.Progress, "add", lambda self, n: (seen.append((n, self.total)), real_add(self, n))
    )
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 40_000)
    code, _, err = run_cli(
        [
            "contamination",
            eval_file,
            str(big),
            str(small),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
        ],
        capsys,
    )
    assert code == 0, err
    assert sum(n for n, _ in seen) == seen[0][1] == big.stat().st_size + small.stat().st_size


def test_a_second_byte_order_mark_is_the_first_lines_with_every_filter(eval_file, tmp_path):
    """A JSONL file that begins with two U+FEFF: the first is the file's mark, the second
    belongs to line 1, which is then not JSON and is skipped (--skip-bad-lines), with the
    scan kernel's filter and without a filter (whose reader took a second mark off and read
    line 1 as a contaminated record: 5 rows against 4)."""
    pytest.importorskip("wasmtime")
    p = tmp_path / "two.jsonl"
    p.write_text("\ufeff\ufeff" + "".join(json.dumps({"text": q}) + "\n" for q in Q[:5]))
    runs = {}
    for filt in ("off", "kernel"):
        out = tmp_path / filt
        code, text, _ = run_cli(
            ["contamination", eval_file, str(p), "--eval-field", "question", "--train-field"]
            + ["text", "--out", str(out), "--json", "--quiet", "--skip-bad-lines"]
            + ["--filter", filt, "--workers", "1"]
        )
        assert code == 0
        runs[filt] = exports(out)
    assert runs["off"] == runs["kernel"]
    rows = read_export(tmp_path / "off", "contamination-report.csv")[1]
    assert sum(r["status"] == "contaminated" for r in rows) == 4
