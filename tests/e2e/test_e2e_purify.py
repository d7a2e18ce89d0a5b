"""purify in the real page ≡ `evalsieve purify` on the same files: the cleaned training file
byte for byte, the report's rows (all but run_fingerprint, which names each run's own
stamp), the stamp's settings and outputs; for JSON Lines, JSON Lines gzip and CSV, both
modes, both self-checks.

Two ways out of the page: headless Chromium has showSaveFilePicker but aborts it (no
dialog), so

* the download path is the page without the picker (an init script removes it, as in
  Firefox or Safari): the cleaned file is a Blob, downloaded with its button;
* the File System Access path is the page with a picker that answers with a file of the
  origin-private file system (OPFS): the worker writes it through the handle's real
  createWritable() stream; the test reads it back from OPFS. Only the picker's dialog is
  stubbed.
"""

from __future__ import annotations

import base64
import csv
import gzip
import json
import random
from pathlib import Path

import pytest

from pagekit import PageWatch, RECORD_WORKER_MESSAGES, choose_file, close_page, wait_for_runs

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "tests" / "fixtures" / "gsm8k_test_sample.jsonl"
Q = [json.loads(x)["question"] for x in EVAL.open(encoding="utf-8")]
VOCAB = "zorp blick quann fetter mlorb sniv grattle poffin wuzzle crint dabber yorrow".split()
NO_PICKER = (
    "Object.defineProperty(window, 'showSaveFilePicker', {value: undefined, configurable: true});"
)
OPFS_PICKER = """
window.showSaveFilePicker = async ({suggestedName}) => {
  const root = await navigator.storage.getDirectory();
  window.__picked = 'picked-' + suggestedName;
  return root.getFileHandle(window.__picked, {create: true});
};"""
READ_OPFS = """async (name) => {
  const root = await navigator.storage.getDirectory();
  let handle;
  try { handle = await root.getFileHandle(name); } catch (e) { if (e.name === 'NotFoundError') return null; throw e; }
  const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}"""


def filler(rng, k):
    return " ".join(rng.choice(VOCAB) for _ in range(k))


def planted(root: Path) -> dict[str, Path]:
    """A training file with planted copies (verbatim, quoted in a long document, near the
    start and the end, split into 12 places, across two records) as JSONL, JSONL.gz, CSV."""
    rng = random.Random(11)
    texts = [filler(rng, 120) for _ in range(30)]
    texts[1] = Q[0]
    texts[4] = f"{filler(rng, 300)} “{Q[4]}” {filler(rng, 300)}"
    texts[8] = f"{Q[15]} {filler(rng, 400)}"
    texts[11] = f"{filler(rng, 400)} {Q[38]}"
    texts[15] = " ".join(f"{filler(rng, 100)} {Q[12]}" for _ in range(12))
    w = Q[30].split()
    texts[20], texts[21] = (
        f"{filler(rng, 200)} {' '.join(w[: len(w) // 2])}",
        f"{' '.join(w[len(w) // 2 :])} {filler(rng, 200)}",
    )
    texts[29] = f"{filler(rng, 250)} «{Q[7]}» {filler(rng, 250)}"
    out = {
        "jsonl": root / "planted.jsonl",
        "gz": root / "planted.jsonl.gz",
        "csv": root / "planted.csv",
    }
    with open(out["jsonl"], "w", encoding="utf-8", newline="") as f:
        for i, t in enumerate(texts):
            f.write(
                json.dumps(
                    {"id": i, "text": t, "meta": {"w": 1.5}},
                    ensure_ascii=i % 2 == 0,
                    separators=(",", ":") if i % 3 else None,
                )
                + "\n"
            )
            if i == 6:
                f.write("\n")
    out["gz"].write_bytes(gzip.compress(out["jsonl"].read_bytes(), mtime=7))
    with open(out["csv"], "w", encoding="utf-8", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["id", "text", "note"])
        for i, t in enumerate(texts):
            wr.writerow(
                [i, t.replace(" zorp ", "\nzorp ", 1) if i % 5 == 0 else t, "as is, quoted"]
            )
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return planted(tmp_path_factory.mktemp("purify-page"))


def opened(context, base_url, script):
    p = context.new_page()
    p.watch = PageWatch(p, base_url)
    p.add_init_script(RECORD_WORKER_MESSAGES)
    p.add_init_script(script)
    p.goto(base_url + "index.html")
    wait_for_runs(p, 1)  # the worked example (the panel appears after it)
    return p


@pytest.fixture(scope="module")
def blob_tab(browser_context, base_url):
    p = opened(browser_context, base_url, NO_PICKER)
    yield p
    close_page(p)


@pytest.fixture(scope="module")
def fsa_tab(browser_context, base_url):
    p = opened(browser_context, base_url, OPFS_PICKER)
    yield p
    close_page(p)


def contamination_run(page, train: Path):
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", train, ["text"])
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    assert wait_for_runs(page, before + 1) == "done", page.text_content("#error")


def purify_run(page, mode="cut", self_check="full") -> str:
    page.select_option("#purify-mode", mode)
    page.select_option("#purify-self-check", self_check)
    before = int(page.get_attribute("#purify-status", "data-runs") or 0)
    page.click("#purify-run")
    page.wait_for_function(
        "n => Number(document.querySelector('#purify-status').dataset.runs || 0) >= n",
        arg=before + 1,
        timeout=180_000,
    )
    return page.get_attribute("#purify-status", "data-state")


def download(page, name: str, folder: Path) -> bytes:
    with page.expect_download() as info:
        page.click(f'#purify button[data-export="{name}"]')
    target = folder / name
    info.value.save_as(target)
    return target.read_bytes()


def cli(train: Path, out: Path, mode: str, self_check: str):
    from evalsieve.cli import main

    assert (
        main(
            [
                "purify",
                str(EVAL),
                str(train),
                "--out",
                str(out),
                "--eval-field",
                "question",
                "--train-field",
                "text",
                "--mode",
                mode,
                "--self-check",
                self_check,
                "--quiet",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    return (
        (out / train.name).read_bytes(),
        (out / "purify-report.csv").read_text(encoding="utf-8"),
        json.loads((out / "run-stamp.json").read_text(encoding="utf-8")),
    )


def same_as_cli(page_out: bytes, report: str, stamp: dict, cli_run) -> int:
    cli_out, cli_report, cli_stamp = cli_run
    assert page_out == cli_out
    rows = list(csv.DictReader(report.splitlines()))
    cli_rows = list(csv.DictReader(cli_report.splitlines()))
    assert {r.pop("run_fingerprint") for r in rows} == {stamp["fingerprint"]}
    for r in cli_rows:
        r.pop("run_fingerprint")
    assert rows == cli_rows
    assert stamp["settings"] == cli_stamp["settings"]
    assert stamp["outputs"] == cli_stamp["outputs"]
    assert stamp["inputs"] == cli_stamp["inputs"]
    assert stamp["job"] == "purify" and "Pyodide" in stamp["runtime"]
    return len(rows)


@pytest.mark.parametrize(
    "key,mode,self_check",
    [("jsonl", "cut", "full"), ("csv", "drop", "full"), ("gz", "cut", "changed")],
)
def test_downloaded_cleaned_file_is_the_clis(blob_tab, files, tmp_path, key, mode, self_check):
    page = blob_tab
    contamination_run(page, files[key])
    assert page.is_visible("#purify") and page.is_enabled("#purify-run")
    assert "in memory, at most 1 GiB" in page.text_content("#purify-save-note")
    assert purify_run(page, mode, self_check) == "done", page.text_content("#purify-error")
    got = tmp_path / "page"
    got.mkdir()
    out = download(page, files[key].name, got)
    report = download(page, "purify-report.csv", got).decode("utf-8")
    stamp = json.loads(download(page, "run-stamp.json", got))
    n = same_as_cli(out, report, stamp, cli(files[key], tmp_path / "cli", mode, self_check))
    assert n >= 6
    assert (
        page.get_attribute('#purify-counts dd[data-count="still contaminated"]', "data-value")
        == "0"
    )
    assert f"self-check ({self_check})" in page.text_content("#purify-counts")
    summary = json.loads(download(page, "purify-summary.json", got))
    assert summary["self_check"]["rows_contaminated"] == 0 and summary["engine"] == {
        "engine": "page"
    }


def test_the_file_system_access_path_streams_into_the_picked_file(fsa_tab, files, tmp_path):
    page = fsa_tab
    contamination_run(page, files["gz"])
    assert "You pick where the cleaned file goes" in page.text_content("#purify-save-note")
    assert purify_run(page, "cut", "full") == "done", page.text_content("#purify-error")
    picked = page.evaluate("window.__picked")
    assert picked == "picked-planted.jsonl.gz"
    out = base64.b64decode(page.evaluate(READ_OPFS, picked))
    assert page.is_visible("#purify-saved") and picked in page.text_content("#purify-saved")
    assert page.query_selector('#purify button[data-export="planted.jsonl.gz"]') is None
    got = tmp_path / "page"
    got.mkdir()
    report = download(page, "purify-report.csv", got).decode("utf-8")
    stamp = json.loads(download(page, "run-stamp.json", got))
    assert same_as_cli(out, report, stamp, cli(files["gz"], tmp_path / "cli", "cut", "full")) >= 6


def test_parquet_training_files_are_refused_clearly(blob_tab):
    page = blob_tab
    choose_file(page, "eval", EVAL, ["question"])
    choose_file(page, "train", ROOT / "tests" / "fixtures" / "chat_train.parquet", ["text"])
    before = int(page.get_attribute("#status", "data-runs") or 0)
    page.click("#run")
    assert wait_for_runs(page, before + 1) == "done", page.text_content("#error")
    assert page.is_visible("#purify-refusal")
    assert "does not clean Parquet" in page.text_content("#purify-refusal")
    assert page.is_disabled("#purify-run")
    # the worker refuses it too, with the file named and the CLI pointed to
    err = page.evaluate("""() => {
      const s = window.evalsieve.sections[0].purify.lastRun;
      return window.evalsieve.client.request('purify.run', {eval: s.args.eval, train: s.args.train},
        {eval: s.files.eval, train: s.files.train}).promise.then(() => null, (e) => e);
    }""")
    assert err["code"] == "bad_input" and err["file"] == "chat_train.parquet"
    assert "Parquet" in err["message"] and "evalsieve purify" in err["expected"]


def test_a_cancelled_write_puts_nothing_in_place_and_the_next_run_works(fsa_tab, tmp_path):
    page = fsa_tab
    rng = random.Random(5)
    big = tmp_path / "big.jsonl"
    with open(big, "w", encoding="utf-8") as f:
        # ~43 MB: the write pass lasts long enough on a fast machine for the cancel to land in it
        for i in range(160_000):
            f.write(json.dumps({"text": Q[i % 40] if i % 997 == 0 else filler(rng, 40)}) + "\n")
    contamination_run(page, big)
    before = int(page.get_attribute("#purify-status", "data-runs") or 0)
    seen = page.evaluate("window.__workerMessages.length")
    page.click("#purify-run")
    # the worker's first progress of the write pass (the progress box may show it for less
    # than a frame), then the cancel
    page.wait_for_function(
        "n => window.__workerMessages.slice(n).some(m => m.type === 'progress'"
        " && m.stage === 'write')",
        arg=seen,
        polling=10,
        timeout=120_000,
    )
    page.click("#purify-cancel")
    page.wait_for_function(
        "n => Number(document.querySelector('#purify-status').dataset.runs || 0) >= n",
        arg=before + 1,
        timeout=120_000,
    )
    assert page.get_attribute("#purify-status", "data-state") == "cancelled"
    assert page.is_hidden("#purify-results")
    picked = page.evaluate("window.__picked")
    assert picked == "picked-big.jsonl"
    # cancelled in the write pass: the stream aborted, the picked file left empty; in the
    # self-check (the write may end first): the unchecked file removed
    left = page.evaluate(READ_OPFS, picked)
    assert left in ("", None)
    assert purify_run(page, "drop", "changed") == "done", page.text_content("#purify-error")
    out = base64.b64decode(page.evaluate(READ_OPFS, picked))
    cli_out, _, _ = cli(big, tmp_path / "cli", "drop", "changed")
    assert out == cli_out and len(out) < big.stat().st_size
