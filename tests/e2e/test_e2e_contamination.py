"""The contamination job in the real page: Debian chromium, dist/ as built, real files.

Expected values come from gpt3_reference.py (an independent plain implementation of the
rule), never from evalsieve itself.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import time
from pathlib import Path

import pytest

from hostile_common import read_csv_export, read_stamped
from pagekit import choose_file, runs_so_far, shared_data_dir, wait_for_runs
from gpt3_reference import contamination

SHARED = shared_data_dir()

# 0-based GSM8K test rows that share a 13-gram with GSM8K train (shared/data/README.md),
# and the train rows they share it with.
GSM8K_TEST_OVERLAPS = [581, 602, 632]
GSM8K_TRAIN_SOURCES = [20, 406, 1314, 5162]
EXPORTS = [
    "eval.clean.jsonl",
    "contamination-report.csv",
    "too-short-to-score.csv",
    "overlap-report.html",
    "run-stamp.json",
]


# --------------------------------------------------------------------------- inputs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class Case:
    """An eval file + a training file on disk, and the reference's verdict on them.

    Args: eval_path (JSONL with "question"), train_path (JSONL with "text").
    """

    def __init__(self, eval_path: Path, train_path: Path):
        self.eval_path = eval_path
        self.train_path = train_path
        self.eval_lines = eval_path.read_bytes().splitlines(keepends=True)
        self.train_bytes = train_path.read_bytes()
        eval_texts = [json.loads(x)["question"] for x in self.eval_lines]
        self.train_texts = [
            json.loads(x)["text"] for x in self.train_bytes.splitlines() if x.strip()
        ]
        self.expected = contamination(eval_texts, self.train_texts)
        self.dirty_rows = [r["row"] for r in self.expected["rows"] if r["status"] == "contaminated"]


def shared_case(folder: Path) -> Case:
    """20 GSM8K test questions (3 share a 13-gram with train) against a slice of GSM8K
    train holding their sources + 3,000 WikiText lines, built from ../shared/data."""
    test_lines = (SHARED / "gsm8k" / "test.jsonl").read_bytes().splitlines(keepends=True)
    train_rows = [json.loads(x) for x in (SHARED / "gsm8k" / "train.jsonl").open(encoding="utf-8")]
    wiki = [
        x.strip() for x in (SHARED / "haystack" / "wikitext2_raw_test.txt").open(encoding="utf-8")
    ]
    wiki = [x for x in wiki if len(x.split()) > 5][:3000]
    picks = list(range(17))
    for pos, row in zip((3, 9, 15), GSM8K_TEST_OVERLAPS):
        picks.insert(pos, row)
    eval_path = folder / "gsm8k-eval20.jsonl"
    eval_path.write_bytes(
        b"".join(
            test_lines[i] if test_lines[i].endswith(b"\n") else test_lines[i] + b"\n" for i in picks
        )
    )
    docs = [f"{r['question']}\n{r['answer']}" for r in train_rows[:300]]
    docs += [
        f"{train_rows[i]['question']}\n{train_rows[i]['answer']}"
        for i in GSM8K_TRAIN_SOURCES
        if i >= 300
    ]
    docs += wiki
    random.Random(7).shuffle(docs)
    train_path = folder / "train-mix.jsonl"
    train_path.write_bytes(
        "".join(json.dumps({"text": d}, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")
    )
    return Case(eval_path, train_path)


@pytest.fixture(scope="module")
def case() -> Case:
    """The committed fixtures (tests/fixtures, made by make_fixtures.py)."""
    return Case(FIXTURES / "gsm8k_test_sample.jsonl", FIXTURES / "train_mix.jsonl")


@pytest.fixture(scope="module")
def gsm_case(tmp_path_factory) -> Case:
    if SHARED is None:
        pytest.skip("shared data (../shared/data with gsm8k and haystack) is absent")
    return shared_case(tmp_path_factory.mktemp("gsm8k-case"))


def test_reference_finds_the_known_overlaps(gsm_case):
    # The three GSM8K test questions that share a 13-gram with train, at rows 4, 10, 16.
    assert gsm_case.expected["n"] == 13
    assert gsm_case.dirty_rows == [4, 10, 16]


def test_reference_on_committed_fixtures(case):
    # Test rows 582, 603, 633 (sources in train) and 5, 12 (quoted) are among the 40 rows.
    assert len(case.eval_lines) == 40
    assert len(case.dirty_rows) >= 5


# --------------------------------------------------------------------------- helpers


def count(page, label: str) -> str:
    return page.text_content(f'#counts dd[data-count="{label}"]').strip()


def download_all(page, folder: Path) -> dict[str, bytes]:
    got = {}
    for name in EXPORTS:
        with page.expect_download() as info:
            page.click(f'button[data-export="{name}"]')
        target = folder / name
        info.value.save_as(target)
        assert info.value.suggested_filename == name
        got[name] = target.read_bytes()
    return got


def read_report(text: str, stamp_text: str | None = None) -> tuple:
    """(fingerprint, rows) of a CSV export; (stamp, rows) with the run's run-stamp.json."""
    return read_stamped(text, stamp_text) if stamp_text else read_csv_export(text)


def worker_messages(page) -> list[dict]:
    return page.evaluate("window.__workerMessages")


def check_protocol(messages: list[dict]) -> None:
    """Exactly one terminal reply per id; progress never goes backwards within a stage, and
    every stage of a request that succeeded ends at done == total."""
    terminals: dict[str, int] = {}
    succeeded: set = set()
    last: dict[tuple, dict] = {}
    for m in messages:
        if m["type"] in ("result", "error"):
            terminals[m["id"]] = terminals.get(m["id"], 0) + 1
            if m["type"] == "error":
                assert set(m["error"]) >= {"code", "message", "file", "line", "expected", "detail"}
            else:
                succeeded.add(m["id"])
        if m["type"] == "progress":
            key = (m["id"], m["stage"])
            assert m["id"] not in terminals, f"progress after the terminal reply: {m}"
            assert m["done"] >= last.get(key, {"done": 0})["done"], f"progress went backwards: {m}"
            assert m["total"] is None or m["done"] <= m["total"]
            last[key] = m
    assert all(v == 1 for v in terminals.values()), terminals
    for (rid, stage), m in last.items():
        if rid in succeeded and m["total"] is not None:
            assert m["done"] == m["total"], (
                f"stage {stage} of {rid} ended at {m['done']} of {m['total']}"
            )


def run_and_wait(page, timeout_ms: int = 180_000) -> str:
    before = runs_so_far(page)
    page.click("#run")
    return wait_for_runs(page, before + 1, timeout_ms)


# --------------------------------------------------------------------------- tests


def test_example_runs_at_load(page):
    state = wait_for_runs(page, 1)
    assert state == "done"
    assert page.text_content("#results-label") == "example"
    assert page.is_visible("#results")
    assert int(count(page, "eval rows scanned")) > 0
    assert int(count(page, "contaminated")) > 0
    assert page.query_selector_all("#contaminated tbody tr")
    assert page.query_selector_all("button[data-export]")
    log = page.text_content("#log")
    for step in (
        "boot: pyodide",
        "ready:",
        "sniffed jsonl",
        "N = ",
        "training pass done",
        "done (example)",
    ):
        assert step in log, step
    assert re.search(r"auto: N=\d+", page.text_content("#n-auto"))
    check_protocol(worker_messages(page))
    # The N input takes Python's range from ready.constants (it said max="64" before).
    from evalsieve import constants

    assert page.eval_on_selector("#setting-n", "e => [e.min, e.max]") == [
        str(constants.N_MIN),
        str(constants.N_MAX),
    ]


@pytest.mark.parametrize("which", ["committed", "gsm8k-shared"])
def test_real_files_and_exports(page, which, request, tmp_path):
    case = request.getfixturevalue("case" if which == "committed" else "gsm_case")
    wait_for_runs(page, 1)
    choose_file(page, "eval", case.eval_path, ["question"])
    choose_file(page, "train", case.train_path, ["text"])
    assert run_and_wait(page) == "done"
    assert page.text_content("#results-label") == "your files"
    rows = case.expected["rows"]
    assert count(page, "eval rows scanned") == str(len(case.eval_lines))
    assert count(page, "contaminated") == str(len(case.dirty_rows))
    assert count(page, "kept") == str(sum(r["status"] == "clean" for r in rows))
    assert count(page, "training records") == f"{len(case.train_texts):,}"
    assert len(page.query_selector_all("#contaminated tbody tr")) == len(case.dirty_rows)

    files = download_all(page, tmp_path)
    # The clean eval file is exactly the kept input lines, byte for byte.
    kept = [line for line, r in zip(case.eval_lines, rows) if r["status"] == "clean"]
    assert files["eval.clean.jsonl"] == b"".join(kept)

    stamp, report = read_report(
        files["contamination-report.csv"].decode("utf-8"), files["run-stamp.json"].decode("utf-8")
    )
    stamp_text = json.dumps(stamp)
    assert hashlib.sha256(case.eval_path.read_bytes()).hexdigest() in stamp_text
    assert hashlib.sha256(case.train_bytes).hexdigest() in stamp_text
    scored = [r for r in rows if r["status"] in ("clean", "contaminated")]
    assert len(report) == len(scored)
    assert {"eval_row", "status", "containment", "ngrams_matched", "ngrams_total"} <= set(report[0])
    for got, want in zip(report, scored):
        assert int(got["eval_row"]) == want["row"]
        assert got["status"] == want["status"]
        assert got["containment"] == f"{want['containment']:.4f}"
        assert (int(got["ngrams_matched"]), int(got["ngrams_total"])) == (
            want["matched"],
            want["total"],
        )

    _, short = read_report(files["too-short-to-score.csv"].decode("utf-8"))
    assert len(short) == len(rows) - len(scored)

    html = files["overlap-report.html"].decode("utf-8")
    assert "<script" not in html.lower()
    assert not re.search(r"https?://", html), re.search(r"https?://.{0,40}", html).group(0)
    check_protocol(worker_messages(page))
    progress = [
        m for m in worker_messages(page) if m["type"] == "progress" and m["stage"] == "train"
    ]
    assert progress[-1]["done"] == progress[-1]["total"] == len(case.train_bytes)
    # the training pass's chunks went through the WebAssembly kernel, and the log says so
    pf = [
        m["data"]
        for m in worker_messages(page)
        if m["type"] == "log" and (m.get("data") or {}).get("kind") == "prefilter"
    ]
    assert pf[-1]["kernel_wasm"] >= 1 and pf[-1]["kernel_js"] == 0, pf[-1]
    assert "scanned by the WebAssembly kernel" in page.text_content("#log")
    # ... and the training file's sha256 (checked above) was kept by the hashing worker
    assert "hash_note" not in pf[-1] and pf[-1]["hash_worker_ms"] >= 0, pf[-1]
    assert "sha256 on a worker of its own" in page.text_content("#log")


def test_gzip_training_file_by_magic_bytes(page, case, tmp_path):
    wait_for_runs(page, 1)
    gz = gzip.compress(case.train_bytes, mtime=0)
    path = tmp_path / "train-mix-gz.jsonl"  # no .gz in the name: detected from 1f 8b
    path.write_bytes(gz)
    choose_file(page, "eval", case.eval_path, ["question"])
    choose_file(page, "train", path, ["text"])
    assert run_and_wait(page) == "done"
    assert count(page, "contaminated") == str(len(case.dirty_rows))
    assert count(page, "training records") == f"{len(case.train_texts):,}"
    assert "(gzip)" in page.text_content("#log")
    got = {}
    for name in ("contamination-report.csv", "run-stamp.json"):
        with page.expect_download() as info:
            page.click(f'button[data-export="{name}"]')
        got[name] = Path(info.value.path()).read_text(encoding="utf-8")
    stamp, _ = read_report(got["contamination-report.csv"], got["run-stamp.json"])
    assert hashlib.sha256(gz).hexdigest() in json.dumps(stamp)  # sha256 of the bytes given
    assert "sha256 on a worker of its own" in page.text_content("#log")  # of the raw bytes


def test_cancel_then_rerun(page, case, tmp_path):
    wait_for_runs(page, 1)
    big = tmp_path / "train-big.jsonl"
    chunk = case.train_bytes
    with big.open("wb") as f:
        written = 0
        while written < 50_000_000:
            f.write(chunk)
            written += len(chunk)
    choose_file(page, "eval", case.eval_path, ["question"])
    choose_file(page, "train", big, ["text"])
    before = runs_so_far(page)
    page.click("#run")
    page.wait_for_function(
        "() => window.__workerMessages.some(m => m.type === 'progress' && m.stage === 'train' && m.done > 0)",
        timeout=120_000,
    )
    assert page.is_visible("#progress")
    t0 = time.monotonic()
    page.click("#cancel")
    assert wait_for_runs(page, before + 1, 30_000) == "cancelled"
    elapsed = time.monotonic() - t0
    assert elapsed < 5, f"cancel took {elapsed:.1f} s"
    errors = [m for m in worker_messages(page) if m["type"] == "error"]
    assert errors and errors[-1]["error"]["code"] == "cancelled"
    assert "cancelled" in page.text_content("#log")

    choose_file(page, "train", case.train_path, ["text"])
    assert run_and_wait(page) == "done"
    assert count(page, "contaminated") == str(len(case.dirty_rows))
    check_protocol(worker_messages(page))


def test_malformed_jsonl_names_file_and_line(page, tmp_path):
    wait_for_runs(page, 1)
    bad = tmp_path / "broken-eval.jsonl"
    bad.write_text(
        '{"question": "How many apples are in the basket when three are taken out of ten?"}\n'
        '{"question": "What is the capital city of the country that borders France and Spain?"}\n'
        '{"question": "this line is cut off\n'
        '{"question": "A fourth question that is perfectly fine and long enough to score?"}\n',
        encoding="utf-8",
    )
    # Dropped (a real drop event with a DataTransfer), not chosen: covers the drop path.
    page.evaluate(
        """([name, text]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, {type: 'application/jsonl'}));
        document.querySelector('#eval-drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""",
        [bad.name, bad.read_text(encoding="utf-8")],
    )
    page.wait_for_selector(
        f'#eval-fields[data-file="{bad.name}"]:is([data-state="ready"], [data-state="error"])'
    )
    if page.get_attribute("#eval-fields", "data-state") == "ready":  # head parsed leniently
        run_and_wait(page)
    page.wait_for_selector("#error:not([hidden])")
    text = page.text_content("#error")
    assert "broken-eval.jsonl" in text
    assert "line 3" in text
    assert "Expected" in text
    assert page.get_attribute("#error", "data-code") == "bad_input"


def test_invalid_utf8_is_a_bad_input_error(page, tmp_path):
    wait_for_runs(page, 1)
    bad = tmp_path / "latin1-eval.jsonl"
    bad.write_bytes('{"question": "ok"}\n{"question": "caf\xe9"}\n'.encode("latin-1"))
    choose_file(page, "eval", bad)
    page.wait_for_selector("#error:not([hidden])")
    text = page.text_content("#error")
    assert "latin1-eval.jsonl" in text and "UTF-8" in text and "line 2" in text


def test_worker_crash_is_reported_and_restarted(page):
    wait_for_runs(page, 1)
    page.evaluate("""() => window.evalsieve.client.worker.onerror(
        new ErrorEvent('error', {message: 'simulated crash'}))""")
    page.wait_for_function(
        "() => document.querySelector('#log').textContent.includes('worker stopped')"
    )
    page.wait_for_function(
        "() => window.__workerMessages.filter(m => m.type === 'ready').length >= 2", timeout=180_000
    )
    assert run_and_wait(page) == "done"  # the example again, on the new worker
    assert "simulated crash" in page.text_content("#log")


def test_missing_asset_is_reported_not_hung(browser_context, base_url):
    """A wheel that cannot be fetched: asset_load_failed in the page, after a few restarts."""
    p = browser_context.new_page()
    try:
        p.route(
            "**/assets/wheels/evalsieve-*.whl", lambda route: route.fulfill(status=404, body="gone")
        )
        p.goto(base_url + "index.html")
        p.wait_for_selector('#status[data-state="error"]', timeout=180_000)
        assert "cannot start" in p.text_content("#status")
        log = p.text_content("#log")
        assert "worker stopped" in log and "starting a new one" in log
        assert re.search(r"assets/wheels/evalsieve-[^ ]*\.whl: HTTP 404", log), log
    finally:
        p.close()


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_invalid_utf8_deep_in_the_training_file_names_it(page, case, tmp_path, gz):
    # The training pass reads byte chunks that the prefilter worker decodes: a bad byte past
    # the head (which inspect reads) and past the first 1 MiB chunk is still named by file,
    # line and byte of the (decompressed) text.
    wait_for_runs(page, 1)
    line = '{"text": "%s"}\n' % ("plain words " * 8)  # 112 bytes
    good = line.encode() * 30_000  # 3.36 MB, lines 1-30000
    bad = good + b'{"text": "caf\xe9"}\n' + line.encode()  # line 30001
    at = len(good) + len(b'{"text": "caf')
    path = tmp_path / "latin1-train.jsonl"
    path.write_bytes(gzip.compress(bad, mtime=0) if gz else bad)
    choose_file(page, "eval", case.eval_path, ["question"])
    choose_file(page, "train", path, ["text"])
    assert run_and_wait(page) == "error"
    page.wait_for_selector("#error:not([hidden])")
    text = page.text_content("#error")
    assert "latin1-train.jsonl" in text and "line 30001" in text, text
    assert f"invalid UTF-8 at byte {at}" in text, text
    assert ("of the decompressed data" in text) == gz
