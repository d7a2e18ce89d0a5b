"""evalsieve purify end to end: a corpus with planted copies (verbatim, quoted inside long
documents, split across fields, across records, near the start and the end of a record,
in many places, NFKC-shifted) in JSONL, JSONL.gz, CSV, TSV, text and Parquet; both modes;
the rescan; untouched records byte for byte; kept pieces; engines; a killed run resumed."""

import csv
import gzip
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from evalsieve.cli import main

# the CLI's purify hashes files on threads and runs subprocesses, which Pyodide has not
# (the page's purify path, tests/py/test_purify_page.py, runs there)
pytestmark = pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide has no threads or subprocesses"
)
from evalsieve.records import RecordReader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVAL = os.path.join(ROOT, "tests", "fixtures", "gsm8k_test_sample.jsonl")
Q = [json.loads(l)["question"] for l in open(EVAL, encoding="utf-8")]
VOCAB = (
    "zorp blick quann fetter mlorb sniv grattle poffin wuzzle crint dabber yorrow "
    "tessik vumble harrup glin"
).split()
FIELDS = ["text", "extra"]


def filler(rng, k):
    return " ".join(rng.choice(VOCAB) for _ in range(k))


def halves(q):
    w = q.split()
    return " ".join(w[: len(w) // 2]), " ".join(w[len(w) // 2 :])


def nfkc_shifted(q):
    """The question with full-width letters, no-break spaces and « » around it: the same
    words under the rule, other characters and offsets in the file."""
    wide = "".join(chr(ord(c) + 0xFEE0) if "a" <= c <= "z" else c for c in q[:40])
    return "«" + (wide + q[40:]).replace(" ", "\u00a0") + "»"


def build(root):
    """The planted corpus under root/train; returns its folder."""
    rng = random.Random(7)
    train = root / "train"
    (train / "sub").mkdir(parents=True)
    recs = [
        {
            "id": i,
            "meta": {"src": "web", "w": 0.5},
            "text": filler(rng, 150),
            "extra": filler(rng, 20),
        }
        for i in range(60)
    ]
    recs[3]["text"] = Q[0]  # verbatim
    recs[7]["text"] = f"{filler(rng, 300)} “{Q[4]}” {filler(rng, 300)}"  # quoted
    a, b = halves(Q[8])  # across fields
    recs[11]["text"], recs[11]["extra"] = f"{filler(rng, 200)} {a}", f"{b} {filler(rng, 200)}"
    a, b = halves(Q[30])  # across records
    recs[15]["text"], recs[16]["text"] = f"{filler(rng, 200)} {a}", f"{b} {filler(rng, 200)}"
    recs[20]["text"] = f"{Q[15]} {filler(rng, 400)}"  # near the start
    recs[24]["text"] = f"{filler(rng, 400)} {Q[38]}"  # near the end
    recs[30]["text"] = f"{filler(rng, 100)} {Q[29]} {filler(rng, 300)} {Q[37]} {filler(rng, 100)}"
    recs[33]["text"] = " ".join(f"{filler(rng, 100)} {Q[12]}" for _ in range(12))  # 12 cuts
    recs[40]["text"] = f"{filler(rng, 120)} {nfkc_shifted(Q[10])} {filler(rng, 120)}"
    with open(train / "a.jsonl", "w", encoding="utf-8", newline="") as f:
        for i, r in enumerate(recs):
            kw = {"ensure_ascii": i % 2 == 0}
            if i % 3 == 0:
                kw["separators"] = (",", ":")
            f.write(json.dumps(r, **kw) + ("\r\n" if i == 5 else "\n"))
            if i == 9:
                f.write("\n   \n")  # blank lines are no records
    b_recs = [{"text": filler(rng, 120)} for _ in range(20)]
    b_recs[4]["text"] = f"{filler(rng, 50)} {Q[19]} {filler(rng, 90)}"
    b_recs[12]["text"] = Q[7]
    with gzip.open(train / "sub" / "b.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in b_recs)
    with open(train / "c.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "note"])
        for i in range(15):
            t = f"{filler(rng, 80)}\n{filler(rng, 20)}"
            if i == 3:
                t = f'{filler(rng, 90)}\n{Q[20]}, she said "twice"\n{filler(rng, 90)}'
            w.writerow([i, t, "kept, as is"])
    with open(train / "d.tsv", "w", encoding="utf-8", newline="") as f:
        f.write("id\ttext\n")
        for i in range(10):
            f.write(f"{i}\t{Q[32] if i == 2 else filler(rng, 70)}\n")
    with open(train / "e.txt", "w", encoding="utf-8", newline="") as f:
        for i in range(30):
            f.write(
                (f"{filler(rng, 50)} {Q[13]} {filler(rng, 50)}" if i == 9 else filler(rng, 80))
                + "\n"
            )
    with open(train / "g.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"text": filler(rng, 100)}) + "\n" for _ in range(10))
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    texts = [filler(rng, 100) for _ in range(20)]
    texts[5], texts[14] = f"{Q[0]} {filler(rng, 80)}", f"{filler(rng, 80)} {Q[4]}"
    t = pa.table(
        {"id": list(range(20)), "text": texts, "tags": [["a", "b"]] * 20},
        metadata={"origin": "test"},
    )
    pq.write_table(t, train / "f.parquet", row_group_size=10, compression="zstd")
    return train


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build(tmp_path_factory.mktemp("corpus"))


def cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def purify(corpus, out, capsys, *extra):
    code, out_s, err = cli(
        [
            "purify",
            EVAL,
            str(corpus),
            "--out",
            str(out),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--train-field",
            "extra",
            "--json",
            "--workers",
            "1",
            *extra,
        ],
        capsys,
    )
    assert code == 0, err
    return json.loads(out_s)


def contaminated_rows(train_dir, tmp, capsys):
    """An independent contamination run over a folder: its contaminated eval rows."""
    code, out, err = cli(
        [
            "contamination",
            EVAL,
            str(train_dir),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--train-field",
            "extra",
            "--out",
            str(tmp),
            "--json",
            "--workers",
            "1",
        ],
        capsys,
    )
    assert code == 0, err
    return json.loads(out)["rows_contaminated"]


def report(out):
    with open(out / "purify-report.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def tree(d):
    """Every file below d (state and exports left out): relative path -> bytes."""
    out = {}
    for root, dirs, names in os.walk(d):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for n in names:
            p = os.path.join(root, n)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out


# -- records as written, for the comparisons --------------------------------------------------
def _inflated(path):
    data = open(path, "rb").read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def raw_records(path, fmt):
    """[(raw bytes of the record, value)] in file order (gzip inflated)."""
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8")
    reader = RecordReader(fmt, os.path.basename(path))
    recs = reader.feed(text.removeprefix("\ufeff")) + reader.finish()
    return [(r.raw.encode("utf-8"), r.value) for r in recs], reader.header


def pieces_of(original, spans, min_piece=200):
    kept, at = [], 0
    for a, b in spans + [(len(original), len(original))]:
        if a - at >= max(min_piece, 1):
            kept.append(original[at:a])
        at = b
    return kept


def spans_of(cell):
    out = {}
    for part in cell.split():
        k, ab = part.split(":")
        a, b = ab.split("-")
        out.setdefault(int(k), []).append((int(a), int(b)))
    return out


def check_text_file(inp, outp, fmt, fields, rows, min_piece=200):
    """Untouched records byte for byte, in order; changed ones change only their chosen
    fields, into pieces of the original (the report's cut spans) that are its substrings."""
    ins, header = raw_records(inp, fmt)
    outs, header2 = raw_records(outp, fmt)
    assert header == header2
    bom = b"\xef\xbb\xbf"
    assert _inflated(inp).startswith(bom) == _inflated(outp).startswith(bom)
    by = {int(r["record"]): r for r in rows}
    it = iter(outs)
    for k, (raw, value) in enumerate(ins, 1):
        r = by.get(k)
        if r is not None and r["action"] == "dropped":
            continue
        oraw, ovalue = next(it)
        if r is None:
            assert oraw == raw, (inp, k)
            continue
        assert r["action"] == "cut" and oraw != raw
        assert list(ovalue) == list(value)  # key order kept
        chosen = [f for f in fields if value.get(f)]
        spans = spans_of(r["cut_spans"])
        for f in value:
            if f not in chosen:
                assert ovalue[f] == value[f]
        for i, f in enumerate(chosen, 1):
            if i not in spans:
                assert ovalue[f] == value[f]
                continue
            kept = pieces_of(value[f], spans[i], min_piece)
            assert ovalue[f] == "".join(kept)
            assert all(p in value[f] for p in kept) and all(len(p) >= min_piece for p in kept)
    assert next(it, None) is None


@pytest.mark.parametrize("mode", ["cut", "drop"])
def test_planted_copies_are_removed_and_the_rest_kept(corpus, tmp_path, capsys, mode):
    assert contaminated_rows(corpus, tmp_path / "before", capsys) >= 14
    out = tmp_path / "out"
    s = purify(corpus, out, capsys, "--mode", mode)
    assert s["self_check"]["rows_contaminated"] == 0
    assert s["self_check"]["rows_asked_contaminated"] == 0
    assert contaminated_rows(out / "train", tmp_path / "after", capsys) == 0
    rows = report(out)
    files = {r["file"] for r in rows}
    assert files == {
        "train/a.jsonl",
        "train/sub/b.jsonl.gz",
        "train/c.csv",
        "train/d.tsv",
        "train/e.txt",
        "train/f.parquet",
    }
    a = {int(r["record"]): r for r in rows if r["file"] == "train/a.jsonl"}
    # record numbers are 1-based: rec 3 is record 4; the blank lines come after record 10
    assert sorted(a) == [4, 8, 12, 16, 17, 21, 25, 31, 34, 41]
    if mode == "drop":
        assert {r["action"] for r in rows} == {"dropped"}
        assert {r["reason"] for r in rows} == {"drop mode"}
    else:
        # verbatim: the field is emptied (its record keeps the other field's words) ...
        assert a[4]["action"] == "cut" and a[4]["chars_removed"] == str(len(Q[0]))
        # ... or, with no other word left, the record is dropped
        b = {int(r["record"]): r for r in rows if r["file"] == "train/sub/b.jsonl.gz"}
        assert (b[13]["action"], b[13]["reason"]) == ("dropped", "no word left")
        assert b[5]["action"] == "cut"
        assert a[34]["action"] == "dropped" and a[34]["reason"] == "split 12 times (more than 10)"
        for k in (4, 8, 12, 16, 17, 21, 25, 31, 41):
            assert a[k]["action"] == "cut", a[k]
        assert a[31]["splits"] == "2" and a[12]["cut_spans"].split()[0].startswith("1:")
        assert a[12]["cut_spans"].split()[1].startswith("2:")  # across fields: both
        assert a[8]["eval_rows"] == "5" and a[41]["eval_rows"] == "11"
    for r in rows:
        assert r["run_fingerprint"] == s["fingerprint"]
    src = {
        "a.jsonl": "jsonl",
        "sub/b.jsonl.gz": "jsonl",
        "c.csv": "csv",
        "d.tsv": "tsv",
        "e.txt": "text",
        "g.jsonl": "jsonl",
    }
    for rel, fmt in src.items():
        check_text_file(
            corpus / rel,
            out / "train" / rel,
            fmt,
            FIELDS if fmt == "jsonl" else ["text"],
            [r for r in rows if r["file"] == "train/" + rel],
        )
    # a file with nothing to change is the same bytes; gzip stays gzip
    assert (out / "train" / "g.jsonl").read_bytes() == (corpus / "g.jsonl").read_bytes()
    assert (out / "train" / "sub" / "b.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"
    # the stamp: every input and output file with its sha256
    stamp = json.loads((out / "run-stamp.json").read_text())
    assert stamp["job"] == "purify" and stamp["fingerprint"] == s["fingerprint"]
    assert stamp["settings"]["purify_mode"] == mode
    for o in stamp["outputs"]:
        p = out / o["path"]
        assert hashlib.sha256(p.read_bytes()).hexdigest() == o["sha256"]
        assert o["bytes"] == p.stat().st_size
        ip = corpus.parent / o["name"]
        assert hashlib.sha256(ip.read_bytes()).hexdigest() == o["input_sha256"]
    assert {i["name"] for i in stamp["inputs"]} >= {o["name"] for o in stamp["outputs"]}


def test_parquet_keeps_schema_row_groups_and_untouched_rows(corpus, tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "out"
    purify(corpus, out, capsys)
    src, dst = pq.ParquetFile(corpus / "f.parquet"), pq.ParquetFile(out / "train" / "f.parquet")
    assert dst.schema_arrow == src.schema_arrow
    assert dst.schema_arrow.metadata == src.schema_arrow.metadata
    assert dst.num_row_groups == 2
    assert dst.metadata.row_group(0).column(0).compression == "ZSTD"
    a, b = src.read().to_pylist(), dst.read().to_pylist()
    rows = {int(r["record"]): r for r in report(out) if r["file"] == "train/f.parquet"}
    assert sorted(rows) == [6, 15] and {r["action"] for r in rows.values()} == {"cut"}
    for k, (x, y) in enumerate(zip(a, b), 1):
        if k in rows:
            kept = pieces_of(x["text"], spans_of(rows[k]["cut_spans"])[1])
            assert y["text"] == "".join(kept) and y["id"] == x["id"] and y["tags"] == x["tags"]
        else:
            assert x == y


def test_workers_and_the_full_self_check_give_the_same_bytes(corpus, tmp_path, capsys):
    one = purify(corpus, tmp_path / "one", capsys)
    two = purify(corpus, tmp_path / "two", capsys, "--workers", "2")
    quick = purify(corpus, tmp_path / "quick", capsys, "--self-check", "full")
    t1 = tree(tmp_path / "one")
    t1.pop("purify-summary.json")
    t1.pop("run-stamp.json")
    for other in ("two", "quick"):
        t = tree(tmp_path / other)
        t.pop("purify-summary.json")
        s = json.loads(t.pop("run-stamp.json"))
        if other == "quick":  # the self-check is a setting: another fingerprint
            strip = lambda rows: [
                {k: v for k, v in r.items() if k != "run_fingerprint"} for r in rows
            ]
            assert strip(report(tmp_path / other)) == strip(report(tmp_path / "one"))
            t.pop("purify-report.csv")
            t = {**t, "purify-report.csv": t1["purify-report.csv"]}
        assert t == t1, other
        assert (
            s["outputs"] == json.loads((tmp_path / "one" / "run-stamp.json").read_text())["outputs"]
        )
    assert two["fingerprint"] == one["fingerprint"]
    for k in ("records_cut", "records_dropped", "chars_removed"):
        assert one[k] == two[k] == quick[k]
    assert quick["self_check"]["rows_contaminated"] == one["self_check"]["rows_contaminated"] == 0


def test_ray_gives_the_same_bytes(corpus, tmp_path, capsys):
    ray = pytest.importorskip("ray")
    purify(corpus, tmp_path / "one", capsys)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.path.join(ROOT, "py")}},
    )
    try:
        purify(corpus, tmp_path / "ray", capsys, "--engine", "ray", "--workers", "2")
    finally:
        ray.shutdown()
    a, b = tree(tmp_path / "one"), tree(tmp_path / "ray")
    for t in (a, b):
        t.pop("purify-summary.json")
        t.pop("run-stamp.json")
    assert a == b


def test_hand_computed_cut_spans(tmp_path, capsys):
    ev = tmp_path / "ev.jsonl"
    ev.write_text('{"q": "one two three"}\n{"q": "four five six seven"}\n')
    tr = tmp_path / "tr.jsonl"
    a = "w00 w01 w02 w03 One, two three w04 w05 w06 w07 w08 w09"
    b = "One two three aa bb cc dd ee ff gg four five six seven"
    tr.write_text(
        json.dumps({"t": a})
        + "\n"
        + json.dumps({"t": "nothing here"})
        + "\n"
        + json.dumps({"t": b})
        + "\n"
    )
    # a: "one two three" spans 16..30; R = 5 gives [11, 35), whose tokens are w03 (12) to
    # w04 (..34); pieces 0..12 and 34..54 are >= 10 characters: 22 removed.
    # b: (0, 13) -> [0, 18) ends inside bb: 0..19; (35, 48) and (40, 54) -> [30, 53) and
    # [35, 54): from ff (29) to the end: 29..54; the piece 19..29 " cc dd ee " is 10
    # characters, kept: 44 removed.
    code, out, err = cli(
        [
            "purify",
            str(ev),
            str(tr),
            "--out",
            str(tmp_path / "o"),
            "--n",
            "3",
            "--radius",
            "5",
            "--min-piece",
            "10",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    rows = report(tmp_path / "o")
    assert [
        (r["record"], r["action"], r["matched_spans"], r["cut_spans"], r["chars_removed"])
        for r in rows
    ] == [
        ("1", "cut", "1:16-30", "1:12-34", "22"),
        ("3", "cut", "1:0-13 1:35-54", "1:0-19 1:29-54", "44"),
    ]
    lines = (tmp_path / "o" / "tr.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["t"] == "w00 w01 w02  w05 w06 w07 w08 w09"
    assert lines[1] == '{"t": "nothing here"}'
    assert json.loads(lines[2])["t"] == " cc dd ee "


def test_output_inside_a_training_folder_is_refused(corpus, tmp_path, capsys):
    code, _, err = cli(
        ["purify", EVAL, str(corpus), "--out", str(corpus / "clean"), "--eval-field", "question"],
        capsys,
    )
    assert code == 2 and "inside a training folder" in err
    assert not (corpus / "clean").exists()


def test_a_failed_self_check_is_an_error_and_writes_no_report(
    corpus, tmp_path, capsys, monkeypatch
):
    from evalsieve import purify_run

    monkeypatch.setattr(
        purify_run, "_rescan_full", lambda run, payload, files: [1] * len(payload["index"].ngrams)
    )
    with pytest.raises(Exception) as e:
        purify_run.purify(
            EVAL,
            [str(corpus)],
            str(tmp_path / "o"),
            eval_fields=["question"],
            train_fields=FIELDS,
            self_check="full",
        )
    assert getattr(e.value, "code", None) == "internal"
    assert "still contaminated" in str(e.value)
    assert not (tmp_path / "o" / "run-stamp.json").exists()
    assert not (tmp_path / "o" / "purify-report.csv").exists()


def test_a_killed_run_resumes_and_gives_the_same_output(tmp_path, capsys):
    """Kill -9 a run after its first output file, rerun: the files already complete are
    skipped, and the output is the bytes of an uninterrupted run."""
    train = tmp_path / "train"
    train.mkdir()
    rng = random.Random(3)
    for k in range(4):
        with open(train / f"part-{k}.jsonl", "w") as f:
            for i in range(40):
                t = f"{filler(rng, 80)} {Q[k * 5]} {filler(rng, 80)}" if i == 7 else filler(rng, 60)
                f.write(json.dumps({"text": t}) + "\n")
    base = [
        sys.executable,
        "-m",
        "evalsieve.cli",
        "purify",
        EVAL,
        str(train),
        "--eval-field",
        "question",
        "--workers",
        "1",
        "--quiet",
    ]
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "py")}
    subprocess.run(base + ["--out", str(tmp_path / "ref")], check=True, env=env)
    out = tmp_path / "out"
    p = subprocess.Popen(
        base + ["--out", str(out)],
        env={**env, "EVALSIEVE_SHARD_DELAY_S": "2"},
        start_new_session=True,
    )
    state = out / ".evalsieve-purify"

    def complete():  # state files of finished output files (not their temporary names)
        return [n for n in os.listdir(state) if n.endswith(".json")] if state.is_dir() else []

    t0 = time.time()
    while time.time() - t0 < 120 and p.poll() is None:
        if complete():
            break
        time.sleep(0.05)
    assert p.poll() is None, "the run ended before it could be killed"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert not (out / "run-stamp.json").exists()
    done = len(complete())
    assert 1 <= done < 4
    r = subprocess.run(
        base + ["--out", str(out), "--json"], env=env, capture_output=True, text=True, check=True
    )
    s = json.loads(r.stdout)
    assert s["files_resumed"] >= done
    a, b = tree(tmp_path / "ref"), tree(out)
    for t in (a, b):
        t.pop("purify-summary.json")
        t.pop("run-stamp.json")
    assert a == b
    assert not [n for n in os.listdir(out / "train") if "purify-tmp" in n]


def test_lone_cr_text_and_crlf_csv_keep_their_line_ends(tmp_path, capsys):
    train = tmp_path / "train"
    train.mkdir()
    rng = random.Random(5)
    lines = [filler(rng, 60) for _ in range(8)]
    lines[3] = f"{filler(rng, 100)} {Q[4]} {filler(rng, 100)}"
    (train / "mac.txt").write_bytes(("\r".join(lines) + "\r").encode())
    rows = [f'{i},"{filler(rng, 50)}\r\n{filler(rng, 5)}"' for i in range(6)]
    rows[2] = f'2,"{Q[8]}"'
    (train / "win.csv").write_bytes(("id,text\r\n" + "\r\n".join(rows) + "\r\n").encode())
    code, out, err = cli(
        [
            "purify",
            EVAL,
            str(train),
            "--out",
            str(tmp_path / "o"),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    got = (tmp_path / "o" / "train" / "mac.txt").read_bytes().split(b"\r")
    want = ("\r".join(lines) + "\r").encode().split(b"\r")
    assert len(got) == len(want) and [g == w for g, w in zip(got, want)].count(False) == 1
    assert got[3] != want[3] and Q[4].encode() not in got[3]
    rep = {(r["file"], r["record"]): r["action"] for r in report(tmp_path / "o")}
    assert rep == {("train/mac.txt", "4"): "cut", ("train/win.csv", "3"): "dropped"}
    csv_out = (tmp_path / "o" / "train" / "win.csv").read_bytes()
    assert csv_out == ("id,text\r\n" + "\r\n".join(rows[:2] + rows[3:]) + "\r\n").encode()


def test_remote_output_through_fsspec(corpus, tmp_path, capsys):
    fsspec = pytest.importorskip("fsspec")
    purify(corpus, tmp_path / "local", capsys)
    s = purify(corpus, "memory://purified/run", capsys)
    assert s["self_check"]["rows_contaminated"] == 0
    fs = fsspec.filesystem("memory")
    local = tree(tmp_path / "local")
    for rel, data in local.items():
        if rel in ("purify-summary.json", "run-stamp.json"):
            continue
        assert fs.cat(f"/purified/run/{rel}") == data, rel
    assert not [p for p in fs.find("/purified/run") if "purify-tmp" in p]


def test_a_file_changed_during_the_run_is_an_error(tmp_path, capsys, monkeypatch):
    from evalsieve import purify_shards

    train = tmp_path / "train.jsonl"
    rng = random.Random(2)
    recs = [filler(rng, 50) for _ in range(5)]
    recs[1] = Q[0]
    train.write_text("".join(json.dumps({"text": t}) + "\n" for t in recs))

    def change():  # same size, other bytes, the time moved on
        data = bytearray(train.read_bytes())
        i = data.index(b"zorp") if b"zorp" in data else data.index(b"blick")
        data[i] = ord("Z")
        train.write_bytes(bytes(data))
        st = os.stat(train)
        os.utime(train, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

    monkeypatch.setattr(purify_shards, "_delay_hook", change)
    code, _, err = cli(
        [
            "purify",
            EVAL,
            str(train),
            "--out",
            str(tmp_path / "o"),
            "--eval-field",
            "question",
            "--workers",
            "1",
        ],
        capsys,
    )
    assert code == 2 and "changed during the run" in err
    assert not (tmp_path / "o" / "train.jsonl").exists()
    assert not (tmp_path / "o" / "run-stamp.json").exists()
