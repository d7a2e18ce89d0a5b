"""The page's purify (bridge ops purify.*, py/evalsieve/purify_page.py) driven as
worker/jobs/purify.js drives it, against ``evalsieve purify`` on the same files: the same
output bytes, report rows (but the fingerprint) and stamp settings, for both modes, both
self-checks, JSONL / JSONL.gz / CSV / TSV / text, a BOM, and blocks cut small."""

import base64
import csv
import gzip
import hashlib
import json
import random
import sys

import pytest

from evalsieve import bridge, constants
from evalsieve.cli import main
from evalsieve.purify_core import MAX_SPLITS, MIN_PIECE, RADIUS
from test_purify_cli import EVAL, Q, filler, halves, nfkc_shifted

#: The CLI's purify hashes its output on threads, which Pyodide has not: there the page's
#: side runs alone (the tests below without the CLI; the real page: tests/e2e/test_e2e_purify.py).
needs_cli = pytest.mark.skipif(
    sys.platform == "emscripten", reason="evalsieve purify needs threads (not in Pyodide)"
)


def call(op, args, text=None, data=None):
    reply = json.loads(bridge.call(op, json.dumps(args), text, data))
    if not reply["ok"]:
        e = reply["error"]
        raise RuntimeError(f"{e['code']}: {e['message']}")
    return reply["value"]


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def line_chunks(data: bytes, size: int):
    """Blocks cut after a '\\n' within `size` bytes (a longer line whole), as
    worker/byte-chunks.js cuts them."""
    at = 0
    while at < len(data):
        cut = data.rfind(b"\n", at, at + size)
        if cut < 0:
            cut = data.find(b"\n", at + size)
        end = len(data) if cut < 0 else cut + 1
        yield data[at:end]
        at = end


def training_pass(handle, fmt, text: str, chunk: int):
    """The worker's training pass: with a prefilter spec (JSONL / text) every non-blank line
    is handed over as a candidate (the prefilter's superset at its widest); else text."""
    spec = call("cont.prefilter_spec", {"handle": handle})
    data = text.encode("utf-8")
    if spec is None:
        for block in line_chunks(data, chunk):
            call("cont.feed_train", {"handle": handle}, block.decode("utf-8"))
        return
    assert spec["format"] == fmt
    line = rec = 0
    for block in line_chunks(data, chunk):
        recs, lines, raws = [], [], []
        for raw in block.decode("utf-8").split("\n")[: -1 if block.endswith(b"\n") else None]:
            line += 1
            if raw.strip():
                rec += 1
                recs.append(rec), lines.append(line), raws.append(raw)
        call(
            "cont.feed_candidates",
            {
                "handle": handle,
                "records": recs,
                "lines": lines,
                "records_total": rec,
                "chars": len(block),
            },
            "\n".join(raws),
        )


def inflate(raw: bytes) -> bytes:
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def page_purify(
    train,
    fmt,
    fields,
    *,
    mode="cut",
    rows="scored",
    self_check="full",
    threshold=None,
    chunk=1 << 20,
    radius=RADIUS,
    min_piece=MIN_PIECE,
    max_splits=MAX_SPLITS,
    changed=None,
    id_field="id",
):
    """What the page writes and exports for `train` (a Path). ``id_field``: the training
    records' id field the page's scan is started with (its field picker defaults it by name:
    the files here have ``id``)."""
    raw = train.read_bytes()
    ev = open(EVAL, "rb").read()
    gz = raw[:2] == b"\x1f\x8b"
    data = inflate(raw)
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data[3:].decode("utf-8") if bom else data.decode("utf-8")  # the reader drops it
    h = call(
        "cont.start",
        {
            "eval": {"name": "gsm8k_test_sample.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": train.name, "format": fmt, "fields": fields, "id_field": id_field},
            "n": None,
            "boilerplate": True,
            "threshold": threshold,
            "clean": "scored",
            "semantic": None,
            "exclude_rungs": None,
            "skip_bad_lines": False,
        },
    )["handle"]
    call("cont.feed_eval", {"handle": h}, ev.decode("utf-8"))
    call("cont.background", {"handle": h}, text[: 1 << 20])
    call("cont.end_eval", {"handle": h})
    call("purify.begin", {"handle": h})
    training_pass(h, fmt, text, chunk)
    call(
        "cont.finish",
        {
            "handle": h,
            "inputs": {
                "eval": {"sha256": sha(ev), "bytes": len(ev)},
                "train": {"sha256": sha(raw), "bytes": len(raw)},
            },
            "utc": "2026-01-01T00:00:00Z",
        },
    )
    plan = call(
        "purify.plan",
        {
            "handle": h,
            "mode": mode,
            "radius": radius,
            "min_piece": min_piece,
            "max_splits": max_splits,
            "rows": rows,
            "self_check": self_check,
            "train": {
                "name": train.name,
                "format": fmt,
                "fields": fields,
                "gzip": gz,
                "bytes": len(raw),
                "sha256": sha(raw),
            },
            "eval": {
                "name": "gsm8k_test_sample.jsonl",
                "format": "jsonl",
                "sha256": sha(ev),
                "bytes": len(ev),
            },
            "utc": "2026-01-01T00:00:00Z",
            "assets": {"pyodide": {"version": "test"}},
            "environment": {"assets_from": "network"},
        },
    )
    p = plan["handle"]
    if changed is not None:  # the file changes between the scan and the write pass
        raw = changed(raw)
        data = inflate(raw)
    if plan["copy"]:
        out = raw
        end = call("purify.end", {"handle": p, "sha256": sha(raw)})
    else:
        pieces = []
        body = data[3:] if bom else data
        for k, block in enumerate(line_chunks(body, chunk)):
            block = (b"\xef\xbb\xbf" + block) if bom and k == 0 else block
            v = call("purify.feed", {"handle": p}, None, block)
            pieces.append(block if v.get("same") else base64.b64decode(v["b64"]))
        end = call("purify.end", {"handle": p, "sha256": sha(raw)})
        out = b"".join(pieces) + base64.b64decode(end["b64"])
    assert end["out_sha256"] == sha(out) and end["out_bytes"] == len(out)
    check = call("purify.check", {"handle": p})["handle"]
    if check is not None:
        o = inflate(out)
        o = o[3:] if o.startswith(b"\xef\xbb\xbf") else o
        training_pass(check, fmt, o.decode("utf-8"), chunk)
    res = call("purify.finish", {"handle": p, "check": check})
    for handle in (h, p, check):
        call("close", {"handle": handle})
    return out, plan, {x["name"]: x["text"] for x in res["exports"]}, res


def cli_purify(train, out_dir, fields, *extra):
    argv = [
        "purify",
        EVAL,
        str(train),
        "--out",
        str(out_dir),
        "--eval-field",
        "question",
        "--quiet",
        "--workers",
        "1",
    ]
    for f in fields:
        argv += ["--train-field", f]
    assert main(argv + list(extra)) == 0
    return (out_dir / train.name).read_bytes(), {
        n: (out_dir / n).read_text(encoding="utf-8")
        for n in ("purify-report.csv", "run-stamp.json", "purify-summary.json")
    }


def records(n=40, seed=3):
    rng = random.Random(seed)
    texts = [filler(rng, 120) for _ in range(n)]
    texts[2] = Q[0]  # verbatim
    texts[5] = f"{filler(rng, 300)} “{Q[4]}” {filler(rng, 300)}"  # quoted, long
    texts[9] = f"{Q[15]} {filler(rng, 400)}"  # near the start
    texts[12] = f"{filler(rng, 400)} {Q[38]}"  # near the end
    texts[20] = " ".join(f"{filler(rng, 100)} {Q[12]}" for _ in range(12))  # 12 cuts
    texts[25] = f"{filler(rng, 120)} {nfkc_shifted(Q[10])} {filler(rng, 120)}"
    a, b = halves(Q[30])  # across records
    texts[30], texts[31] = f"{filler(rng, 200)} {a}", f"{b} {filler(rng, 200)}"
    texts[n - 1] = Q[7]  # the last record
    return texts


def write_jsonl(path, texts, bom=False, crlf_at=4):
    with open(path, "w", encoding="utf-8", newline="") as f:
        if bom:
            f.write("\ufeff")
        for i, t in enumerate(texts):
            kw = {"ensure_ascii": i % 2 == 0, "separators": (",", ":") if i % 3 else None}
            f.write(
                json.dumps({"id": i, "text": t, "meta": {"w": 0.5}}, **kw)
                + ("\r\n" if i == crlf_at else "\n")
            )
            if i == 7:
                f.write("\n  \n")  # blank lines are no records
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("page")
    texts = records()
    out = {
        "jsonl": write_jsonl(root / "train.jsonl", texts),
        "bom": write_jsonl(root / "bom.jsonl", texts, bom=True),
    }
    out["gz"] = root / "train.jsonl.gz"
    out["gz"].write_bytes(gzip.compress((root / "train.jsonl").read_bytes(), mtime=5))
    with open(root / "train.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "note"])
        for i, t in enumerate(texts):
            w.writerow([i, t.replace(" zorp ", "\nzorp ", 1) if i % 4 == 0 else t, "kept, as is"])
    out["csv"] = root / "train.csv"
    with open(root / "train.tsv", "w", encoding="utf-8", newline="") as f:
        f.write("id\ttext\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(texts)))
    out["tsv"] = root / "train.tsv"
    (root / "train.txt").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    out["txt"] = root / "train.txt"
    (root / "clean.jsonl").write_text(
        "".join(json.dumps({"text": t}) + "\n" for t in records()[32:38]), encoding="utf-8"
    )
    out["clean"] = root / "clean.jsonl"
    return out


FORMATS = {
    "jsonl": "jsonl",
    "bom": "jsonl",
    "gz": "jsonl",
    "csv": "csv",
    "tsv": "tsv",
    "txt": "text",
    "clean": "jsonl",
}


def assert_same_as_cli(files, tmp_path, key, mode, self_check="full", chunk=1 << 20, extra=()):
    train, fmt = files[key], FORMATS[key]
    out, plan, page, res = page_purify(
        train, fmt, ["text"], mode=mode, self_check=self_check, chunk=chunk
    )
    cli_out, cli = cli_purify(
        train, tmp_path / "cli", ["text"], "--mode", mode, "--self-check", self_check, *extra
    )
    assert out == cli_out
    page_rows = list(csv.DictReader(page["purify-report.csv"].splitlines()))
    cli_rows = list(csv.DictReader(cli["purify-report.csv"].splitlines()))
    stamp, cli_stamp = json.loads(page["run-stamp.json"]), json.loads(cli["run-stamp.json"])
    assert {r.pop("run_fingerprint") for r in page_rows} <= {res["summary"]["fingerprint"]}
    for r in cli_rows:
        r.pop("run_fingerprint")
    assert page_rows == cli_rows
    assert stamp["settings"] == cli_stamp["settings"]
    assert stamp["outputs"] == cli_stamp["outputs"]
    assert stamp["inputs"] == cli_stamp["inputs"]
    assert stamp["job"] == "purify" and stamp["environment"] == {"assets_from": "network"}
    assert res["summary"]["self_check"]["rows_contaminated"] == 0
    summary = json.loads(cli["purify-summary.json"])
    for k in (
        "records_cut",
        "records_dropped",
        "records_out",
        "chars_removed",
        "ngrams_counted",
        "eval_rows_counted",
        "training_records",
        "self_check",
    ):
        assert res["summary"][k] == summary[k], k
    return out, page_rows, plan


@needs_cli
@pytest.mark.parametrize("key", ["jsonl", "gz", "bom", "csv", "tsv", "txt"])
@pytest.mark.parametrize("mode", ["cut", "drop"])
def test_the_page_writes_what_the_cli_writes(files, tmp_path, key, mode):
    out, rows, plan = assert_same_as_cli(files, tmp_path, key, mode)
    assert plan["records_to_change"] == len(rows) >= 8
    assert {r["action"] for r in rows} == ({"dropped"} if mode == "drop" else {"cut", "dropped"})


@needs_cli
@pytest.mark.parametrize("key", ["jsonl", "gz", "csv"])
def test_small_blocks_and_the_changed_records_self_check(files, tmp_path, key):
    """Blocks of about 700 bytes (many records cut across block ends in the walker)."""
    assert_same_as_cli(files, tmp_path, key, "cut", self_check="changed", chunk=700)


@needs_cli
def test_a_file_with_nothing_to_change_is_copied_as_stored(files, tmp_path):
    out, rows, plan = assert_same_as_cli(files, tmp_path, "clean", "cut")
    assert plan["copy"] is True and rows == []
    assert out == files["clean"].read_bytes()


def test_untouched_records_keep_their_bytes_and_cut_ones_their_other_keys(files):
    out, _, page, _ = page_purify(files["jsonl"], "jsonl", ["text"])
    src = files["jsonl"].read_bytes().split(b"\n")
    got = out.split(b"\n")
    rows = list(csv.DictReader(page["purify-report.csv"].splitlines()))
    changed = {int(r["line"]) for r in rows}
    kept = [ln for i, ln in enumerate(src, 1) if i not in changed]
    assert [ln for ln in got if ln in kept] == kept  # every untouched line, in order
    for r in rows:
        if r["action"] == "cut":
            before = json.loads(src[int(r["line"]) - 1])
            after = next(
                json.loads(ln) for ln in got if ln.strip() and json.loads(ln)["id"] == before["id"]
            )
            assert {k: v for k, v in after.items() if k != "text"} == {
                k: v for k, v in before.items() if k != "text"
            }
            assert len(after["text"]) < len(before["text"])


def test_a_file_changed_after_the_scan_is_refused(files):
    def flip(raw):
        i = raw.index(b"zorp")
        return raw[:i] + b"Zorp" + raw[i + 4 :]

    with pytest.raises(RuntimeError, match="bad_input: the training file changed"):
        page_purify(files["jsonl"], "jsonl", ["text"], changed=flip)


def test_a_failed_self_check_is_an_internal_error(files, monkeypatch):
    from evalsieve import purify_page

    monkeypatch.setattr(
        purify_page, "rescan_changed", lambda index, counts, results: [1] * len(index.ngrams)
    )
    with pytest.raises(RuntimeError, match="internal: the self-check found"):
        page_purify(files["jsonl"], "jsonl", ["text"], self_check="changed")


def test_bad_settings_and_out_of_order_calls_are_refused(files):
    with pytest.raises(RuntimeError, match="bad_input: radius = -1"):
        page_purify(files["jsonl"], "jsonl", ["text"], radius=-1)
    with pytest.raises(RuntimeError, match="bad_input: unknown self-check"):
        page_purify(files["jsonl"], "jsonl", ["text"], self_check="some")
    with pytest.raises(RuntimeError, match="is not a purify run"):
        h = call(
            "cont.start",
            {
                "eval": {"name": "e", "format": "jsonl", "fields": ["q"]},
                "train": {"name": "t", "format": "jsonl", "fields": ["t"]},
            },
        )
        call("purify.feed", {"handle": h["handle"]}, None, b"{}\n")


def test_parquet_training_files_are_refused(files):
    h = call(
        "cont.start",
        {
            "eval": {"name": "e.jsonl", "format": "jsonl", "fields": ["question"]},
            "train": {"name": "t.parquet", "format": "jsonl", "fields": ["text"]},
        },
    )
    call("cont.feed_eval", {"handle": h["handle"]}, open(EVAL, encoding="utf-8").read())
    call("cont.end_eval", {"handle": h["handle"]})
    call("purify.begin", {"handle": h["handle"]})
    call("cont.finish", {"handle": h["handle"], "inputs": {}})
    with pytest.raises(RuntimeError, match="does not purify Parquet"):
        call(
            "purify.plan",
            {
                "handle": h["handle"],
                "eval": {"name": "e.jsonl"},
                "train": {"name": "t.parquet", "format": "parquet", "fields": ["text"], "bytes": 1},
            },
        )


def test_the_page_settings_are_the_clis_and_pythons():
    """The page's controls take their ranges and defaults from ready.constants: the CLI's."""
    c = constants.as_json()["purify"]
    from evalsieve.cli import build_parser

    ns = build_parser().parse_args(["purify", "e", "t", "--out", "o"])
    assert c["modes"][0] == ns.mode and c["self_checks"][0] == ns.self_check
    assert list(c["rows"])[0] == ns.rows
    assert (
        (c["radius"]["default"], c["min_piece"]["default"], c["max_splits"]["default"])
        == (ns.radius, ns.min_piece, ns.max_splits)
        == (200, 200, 10)
    )
    assert c["radius"]["max"] == c["max_splits"]["max"] == 10**9
