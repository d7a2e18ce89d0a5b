"""The paraphrase job in the real page: Debian chromium, dist/ as built, the real model.

Expected values come from the data (GSM8K test questions and their row-aligned GPT-4
rephrasings, ../shared/data/llm_decontaminator), from the worked example's hand-checked
cosines (evalsieve.paraphrase.WORKED_EXAMPLE) and from the CLI (native onnxruntime), never
from the page itself. Timings are printed, not asserted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostile_common import read_csv_export, read_stamped
from pagekit import close_page, open_page, shared_data_dir
from test_e2e_contamination import check_protocol, worker_messages

ROOT = Path(__file__).resolve().parents[2]
SHARED = shared_data_dir()
FIXTURES = ROOT / "tests" / "fixtures"
EXPORTS = [
    "paraphrase-pairs.csv",
    "paraphrase-groups.csv",
    "eval.deduplicated.jsonl",
    "paraphrase-dropped.csv",
    "run-stamp.json",
]
RUN_TIMEOUT_MS = 300_000


# --------------------------------------------------------------------------- inputs


def rephrased_question(text: str) -> str:
    """The question part of a rephrase_gsm8k.jsonl row ("Question: ...\\nAnswer: \\n#### 18")."""
    q = text.split("\nAnswer:", 1)[0]
    return q[len("Question: ") :] if q.startswith("Question: ") else q


def gsm_rephrase_file(folder: Path, n: int) -> Path:
    """n GSM8K test questions, then their n row-aligned GPT-4 rephrasings (question part
    only), as JSONL {"text"}: row i (1-based) and row n + i ask the same thing."""
    if SHARED is None:
        pytest.skip("shared data (../shared/data with gsm8k and llm_decontaminator) is absent")
    reph_path = SHARED / "llm_decontaminator" / "rephrase_gsm8k.jsonl"
    if not reph_path.is_file():
        pytest.skip(f"{reph_path} is absent")
    with open(SHARED / "gsm8k" / "test.jsonl", encoding="utf-8") as f:
        questions = [json.loads(x)["question"] for _, x in zip(range(n), f)]
    with open(reph_path, encoding="utf-8") as f:
        rephrased = [rephrased_question(json.loads(x)["text"]) for _, x in zip(range(n), f)]
    path = folder / f"gsm8k-rephrase-{2 * n}.jsonl"
    path.write_text(
        "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in questions + rephrased),
        encoding="utf-8",
    )
    return path


def fixture_rows_file(folder: Path, copies: int) -> Path:
    """The committed GSM8K sample's questions, `copies` times with a numbered suffix (no
    shared data needed): enough rows that embedding takes a few seconds."""
    qs = [
        json.loads(x)["question"]
        for x in (FIXTURES / "gsm8k_test_sample.jsonl").open(encoding="utf-8")
    ]
    path = folder / f"sample-x{copies}.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"q{k}-{i}", "text": f"{q} (variant {k})"}) + "\n"
            for k in range(copies)
            for i, q in enumerate(qs)
        ),
        encoding="utf-8",
    )
    return path


# --------------------------------------------------------------------------- page helpers


def open_paraphrases(browser_context, base_url):
    """A fresh tab on index.html#paraphrases with the worked example finished."""
    p = open_page(browser_context, base_url, "index.html#paraphrases")
    assert wait_para_runs(p, 1) == "done", p.text_content("#para-error")
    return p


@pytest.fixture
def para_page(browser_context, base_url):
    p = open_paraphrases(browser_context, base_url)
    yield p
    close_page(p)


def wait_para_runs(page, count: int, timeout_ms: int = RUN_TIMEOUT_MS) -> str:
    page.wait_for_function(
        "n => Number(document.querySelector('#para-status').dataset.runs || 0) >= n",
        arg=count,
        timeout=timeout_ms,
    )
    return page.get_attribute("#para-status", "data-state")


def para_runs(page) -> int:
    return int(page.get_attribute("#para-status", "data-runs") or 0)


def choose_para_file(page, path: Path, field: str = "text") -> None:
    page.set_input_files("#para-file", str(path))
    page.wait_for_selector(
        f'#para-fields[data-file="{path.name}"][data-state="ready"]', timeout=60_000
    )
    page.check(f'#para-fields input[name="para-field"][data-path="{field}"]')


def run_para(page, path: Path, field: str = "text", timeout_ms: int = RUN_TIMEOUT_MS) -> str:
    before = para_runs(page)
    choose_para_file(page, path, field)
    page.click("#para-run")
    return wait_para_runs(page, before + 1, timeout_ms)


def figures(page) -> dict:
    """The figures as printed: {key: text}."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#para-figures dd')]
        .map((d) => [d.dataset.figure, d.textContent]))""")


def number(text: str) -> float:
    return float(text.replace(",", "").replace("%", "").strip())


def set_threshold(page, value: float) -> float:
    """Move the slider; returns the page's round trip in ms (para.group)."""
    v = f"{value:.2f}"
    page.evaluate(
        """(v) => {
        const s = document.querySelector('#para-threshold');
        s.value = v;
        s.dispatchEvent(new Event('input', { bubbles: true }));
        s.dispatchEvent(new Event('change', { bubbles: true }));
    }""",
        v,
    )
    page.wait_for_selector(f'#para-results[data-threshold="{v}"]:not([data-busy])', timeout=60_000)
    return float(page.get_attribute("#para-results", "data-group-ms") or "nan")


def download_exports(page, folder: Path) -> dict[str, str]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    folder.mkdir(parents=True, exist_ok=True)
    got = {}
    for name in EXPORTS:
        # in a long session a click right after a slider move now and then starts no
        # download (seen in Chromium, not explained): it is clicked again, as a user would,
        # up to 3 times; each click must give the whole, right file
        for attempt in range(3):
            try:
                with page.expect_download(timeout=20_000) as info:
                    page.click(f'#para-downloads button[data-export="{name}"]')
                break
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
        assert info.value.suggested_filename == name
        target = folder / name
        info.value.save_as(target)
        got[name] = target.read_bytes().decode("utf-8")  # as written (line ends kept)
    return got


def read_export(text: str, stamp_text: str | None = None) -> tuple:
    """(fingerprint, rows) of a CSV export; (stamp, rows) with the run's run-stamp.json."""
    return read_stamped(text, stamp_text) if stamp_text else read_csv_export(text)


def stamped_pairs(page, folder: Path) -> tuple[dict, list[dict]]:
    """(run stamp, rows) of paraphrase-pairs.csv, downloaded with its run-stamp.json."""
    got = download_exports(page, folder)
    return read_export(got["paraphrase-pairs.csv"], got["run-stamp.json"])


def model_sha256(dist_dir: Path) -> str:
    return json.loads((dist_dir / "assets" / "manifest.json").read_text())["encoder.onnx"]["sha256"]


def check_exports(
    exports: dict[str, str], threshold: float, sha: str
) -> tuple[list[dict], list[dict]]:
    """The stamp (run-stamp.json, the CSVs' fingerprint: model sha256, threshold, window
    256); pairs >= threshold and descending; groups are exactly the connected components of
    the pairs."""
    stamp_p, pairs = read_export(exports["paraphrase-pairs.csv"], exports["run-stamp.json"])
    stamp_g, groups = read_export(exports["paraphrase-groups.csv"], exports["run-stamp.json"])
    assert stamp_p == stamp_g
    s = json.dumps(stamp_p)
    assert sha in s, "the stamp names the model's sha256"
    settings = stamp_p.get("settings", stamp_p)
    assert settings["threshold"] == pytest.approx(threshold)
    assert settings["token_window"] == 256
    assert settings["model_sha256"] == sha
    cos = [float(p["cosine"]) for p in pairs]
    assert all(c >= round(threshold, 3) for c in cos), min(cos)
    assert cos == sorted(cos, reverse=True)
    # Union-find over the pairs gives the groups' member sets.
    parent: dict[int, int] = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        parent[find(int(p["row_a"]))] = find(int(p["row_b"]))
    comps: dict[int, set] = {}
    for x in list(parent):
        comps.setdefault(find(x), set()).add(x)
    got = sorted(sorted(int(r) for r in g["member_rows"].split()) for g in groups)
    assert got == sorted(sorted(c) for c in comps.values())
    for g in groups:
        assert int(g["size"]) == len(g["member_rows"].split())
    by_group = {g["group"]: set(g["member_rows"].split()) for g in groups}
    for p in pairs:
        assert {p["row_a"], p["row_b"]} <= by_group[p["group"]]
    return pairs, groups


# --------------------------------------------------------------------------- (a) worked example


def test_worked_example_at_load(para_page):
    p = para_page
    assert p.get_attribute("#para-results", "data-label") == "example"
    f = figures(p)
    assert number(f["rows_scanned"]) == 6
    assert number(f["groups"]) == 2
    assert number(f["groups_chained"]) == 1
    assert number(f["effective_rows"]) == 3
    assert number(f["rows_in_groups"]) == 5
    chained = p.query_selector_all('#para-groups tr[data-chained="yes"]')
    assert len(chained) == 1
    assert chained[0].get_attribute("data-members") == "1 2 3"
    lowest = chained[0].query_selector_all("td")[3].text_content()
    m = re.match(r"([0-9.]+) \(rows (\d+)–(\d+)\)", lowest)
    assert m, lowest
    assert float(m.group(1)) == pytest.approx(0.83, abs=0.01)
    assert (m.group(2), m.group(3)) == ("1", "3")
    plain = p.query_selector_all('#para-groups tr[data-chained="no"]')
    assert [r.get_attribute("data-members") for r in plain] == ["4 5"]
    # The threshold is drawn on the histogram, which holds one count per row: the bars over
    # the slider's range (0.75-1: bins 15-19 of 0.05) and the rows left of it (data-below).
    assert p.get_attribute("#para-histogram line.threshold", "data-threshold") == "0.90"
    counts = [
        int(b.get_attribute("data-count")) for b in p.query_selector_all("#para-histogram rect")
    ]
    below = int(p.get_attribute("#para-histogram", "data-below"))
    assert len(counts) == 5 and sum(counts) + below == 6
    for label in ("threshold", "model", "pooling", "window", "field"):
        assert p.text_content(f'#para-settings dd[data-setting="{label}"]').strip()
    assert "256" in p.text_content('#para-settings dd[data-setting="window"]')
    check_protocol(worker_messages(p))
    # The slider spans Python's floor..maximum and started at its default (ready.constants).
    from evalsieve import constants

    assert [float(v) for v in p.eval_on_selector("#para-threshold", "e => [e.min, e.max]")] == [
        constants.PARA_FLOOR,
        constants.PARA_THRESHOLD_MAX,
    ]
    assert (
        p.get_attribute("#para-results", "data-threshold")
        == f"{constants.PARA_THRESHOLD_DEFAULT:.2f}"
    )


def test_slider_on_the_example_and_invalid_paste_keeps_the_result(para_page):
    p = para_page
    set_threshold(p, 0.80)  # 1-3 (0.83) joins directly: the group is no longer chained
    f = figures(p)
    assert number(f["groups"]) == 2 and number(f["groups_chained"]) == 0
    set_threshold(p, 0.95)  # nothing is that close
    assert number(figures(p)["groups"]) == 0
    assert number(figures(p)["effective_rows"]) == 6
    # Pasting something that is not JSON Lines: an error, the last result stays and says so.
    p.fill("#para-paste", '{"text": "a broken row"\n')
    p.wait_for_selector('#para-fields[data-state="error"]', timeout=60_000)
    p.wait_for_selector("#para-results[data-stale]", timeout=60_000)
    assert p.is_visible("#para-error")
    assert "last valid result" in p.text_content("#para-stale")
    assert p.get_attribute("#para-results", "data-label") == "example"


# --------------------------------------------------------------------------- (b), (c) GSM8K


@pytest.fixture(scope="module")
def gsm_run(browser_context, base_url, dist_dir, tmp_path_factory):
    """200 rows (100 GSM8K test questions + their rephrasings) through the page: exports at
    0.90, then the slider at 0.80 and 0.95 (figures and exports at each)."""
    folder = tmp_path_factory.mktemp("para-gsm")
    path = gsm_rephrase_file(folder, 100)
    p = open_paraphrases(browser_context, base_url)
    try:
        t0 = time.perf_counter()
        assert run_para(p, path) == "done", p.text_content("#para-error")
        seconds = time.perf_counter() - t0
        out = {
            "path": path,
            "figures": {},
            "exports": {},
            "group_ms": {},
            "seconds": seconds,
            "settings": p.text_content('#para-settings dd[data-setting="encoder"]'),
        }
        out["figures"][0.90] = figures(p)
        out["exports"][0.90] = download_exports(p, folder / "090")
        for t in (0.80, 0.95):
            out["group_ms"][t] = set_threshold(p, t)
            out["figures"][t] = figures(p)
            out["exports"][t] = download_exports(p, folder / f"{int(t * 100):03d}")
        check_protocol(worker_messages(p))
        print(
            f"\n[paraphrases] 200 GSM8K rows in the page: {seconds:.1f} s end to end "
            f"({out['settings']}); slider round trip ms: {out['group_ms']}"
        )
    finally:
        close_page(p)
    return out


def test_gsm8k_rephrasings_found_and_slider_consistent(gsm_run, dist_dir):
    sha = model_sha256(dist_dir)
    f = {t: {k: v for k, v in fig.items()} for t, fig in gsm_run["figures"].items()}
    for fig in f.values():
        assert number(fig["rows_scanned"]) == 200
        rows, in_groups, groups = (
            number(fig[k]) for k in ("rows_scanned", "rows_in_groups", "groups")
        )
        assert number(fig["effective_rows"]) == rows - in_groups + groups
        assert number(fig["duplicate_share"]) == pytest.approx(
            round(100 * in_groups / rows, 1), abs=0.05
        )
    # Lower threshold: at least as many pairs and rows in groups, at most as many effective rows.
    lo, mid, hi = f[0.80], f[0.90], f[0.95]
    assert number(lo["pairs"]) >= number(mid["pairs"]) >= number(hi["pairs"])
    assert (
        number(lo["rows_in_groups"])
        >= number(mid["rows_in_groups"])
        >= number(hi["rows_in_groups"])
    )
    assert (
        number(lo["effective_rows"])
        <= number(mid["effective_rows"])
        <= number(hi["effective_rows"])
    )
    assert number(lo["effective_rows"]) < number(hi["effective_rows"])
    for t, exports in gsm_run["exports"].items():
        pairs, groups = check_exports(exports, t, sha)
        assert len(pairs) == number(f[t]["pairs"])
        assert len(groups) == number(f[t]["groups"])
        aligned = sum(
            1 for p in pairs if int(p["row_b"]) - int(p["row_a"]) == 100 and int(p["row_a"]) <= 100
        )
        assert aligned > len(pairs) / 2, (
            f"threshold {t}: {aligned} of {len(pairs)} pairs are question + its rephrasing"
        )
        # eval.deduplicated.jsonl: the input's own lines, one row per group (the first), as
        # many as the effective rows (no row is empty here); the rest listed with their group
        lines = gsm_run["path"].read_bytes().decode("utf-8").splitlines(keepends=True)
        dedup = exports["eval.deduplicated.jsonl"].splitlines(keepends=True)
        assert len(dedup) == number(f[t]["effective_rows"])
        _, dropped = read_export(exports["paraphrase-dropped.csv"])
        gone = {int(r["eval_row"]) for r in dropped}
        assert dedup == [x for i, x in enumerate(lines, 1) if i not in gone]
        first = {g["group"]: int(g["member_rows"].split()[0]) for g in groups}
        assert all(int(r["kept_row"]) == first[r["group"]] for r in dropped)
        assert len(gone) == number(f[t]["rows_in_groups"]) - number(f[t]["groups"])
    # At 0.90 most questions are found with their rephrasing.
    pairs90, _ = check_exports(gsm_run["exports"][0.90], 0.90, sha)
    found = {int(p["row_a"]) for p in pairs90 if int(p["row_b"]) - int(p["row_a"]) == 100}
    print(f"\n[paraphrases] question+rephrasing pairs found: {len(found)} at 0.90, of 100")
    assert len(found) >= 50


def test_cli_and_page_agree(gsm_run, dist_dir, tmp_path):
    """`evalsieve paraphrases` (native onnxruntime) on the same file: same pairs, cosines equal
    to 3 decimals, same figures. Both run the same int8 graph; onnxruntime-web's WASM kernels
    and the CPU provider may differ in the last float bits, so a cosine whose 4th decimal sits
    on a rounding edge may print 0.001 apart: that is the one tolerance allowed (and counted)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalsieve.cli",
            "paraphrases",
            str(gsm_run["path"]),
            "--out",
            str(tmp_path),
            "--json",
            "--field",
            "text",
            "--model-dir",
            str(dist_dir / "assets" / "model"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = json.loads(proc.stdout)
    page_fig = gsm_run["figures"][0.90]
    for key in (
        "rows_scanned",
        "groups",
        "groups_chained",
        "rows_in_groups",
        "effective_rows",
        "pairs",
        "rows_truncated",
    ):
        assert number(page_fig[key]) == cli[key], key
    assert number(page_fig["duplicate_share"]) == pytest.approx(cli["duplicate_share"])
    cp = cli["closest_pair"]
    assert (
        page_fig["closest_pair"]
        == f"rows {cp['row_a']} and {cp['row_b']}, cosine {cp['cosine']:.3f}"
    )
    _, page_pairs = read_export(gsm_run["exports"][0.90]["paraphrase-pairs.csv"])
    _, cli_pairs = read_export((tmp_path / "paraphrase-pairs.csv").read_text(encoding="utf-8"))
    page_map = {(p["row_a"], p["row_b"]): p["cosine"] for p in page_pairs}
    cli_map = {(p["row_a"], p["row_b"]): p["cosine"] for p in cli_pairs}
    assert set(page_map) == set(cli_map)
    diffs = [abs(float(page_map[k]) - float(cli_map[k])) for k in page_map]
    off = sum(1 for d in diffs if d > 0)
    print(
        f"\n[paraphrases] CLI vs page: {len(diffs)} pairs, {off} printed cosines differ "
        f"(max {max(diffs, default=0):.3f})"
    )
    assert all(d <= 0.0011 for d in diffs)
    assert off <= max(1, len(diffs) // 20)
    _, page_groups = read_export(gsm_run["exports"][0.90]["paraphrase-groups.csv"])
    _, cli_groups = read_export((tmp_path / "paraphrase-groups.csv").read_text(encoding="utf-8"))
    assert [g["member_rows"] for g in page_groups] == [g["member_rows"] for g in cli_groups]
    # the deduplicated file: the same bytes from the page and the CLI, as many rows as effective rows
    page_dedup = gsm_run["exports"][0.90]["eval.deduplicated.jsonl"].encode("utf-8")
    assert page_dedup == (tmp_path / "eval.deduplicated.jsonl").read_bytes()
    assert len(page_dedup.splitlines()) == cli["effective_rows"] == cli["rows_deduplicated"]


# --------------------------------------------------------------------------- (d) cancel


def test_cancel_during_embedding_then_rerun(para_page, tmp_path):
    p = para_page
    big = fixture_rows_file(tmp_path, 15)  # 600 rows
    before = para_runs(p)
    choose_para_file(p, big)
    p.click("#para-run")
    p.wait_for_selector('#para-progress[data-stage="embed"]:not([hidden])', timeout=120_000)
    t0 = time.perf_counter()
    p.click("#para-cancel")
    assert wait_para_runs(p, before + 1, 60_000) == "cancelled"
    print(f"\n[paraphrases] cancel seen after {time.perf_counter() - t0:.2f} s")
    errors = [m for m in worker_messages(p) if m["type"] == "error"]
    assert errors and errors[-1]["error"]["code"] == "cancelled"
    # The example's result is still shown, and the slider still regroups it.
    assert p.get_attribute("#para-results", "data-label") == "example"
    set_threshold(p, 0.80)
    assert number(figures(p)["groups_chained"]) == 0
    small = fixture_rows_file(tmp_path, 1)  # 40 rows
    assert run_para(p, small) == "done", p.text_content("#para-error")
    assert p.get_attribute("#para-results", "data-label") == "your file"
    assert number(figures(p)["rows_scanned"]) == 40
    check_protocol(worker_messages(p))


# --------------------------------------------------------------------------- (e) slider speed


def test_slider_regroup_at_2000_rows(para_page, tmp_path):
    p = para_page
    path = gsm_rephrase_file(tmp_path, 1000)
    t0 = time.perf_counter()
    assert run_para(p, path, timeout_ms=900_000) == "done", p.text_content("#para-error")
    run_s = time.perf_counter() - t0
    f = figures(p)
    assert (
        number(f["rows_scanned"]) + number(f["rows_empty"]) == 2000
    )  # a few rephrasings are empty
    times = {}
    for t in (0.85, 0.80, 0.95, 0.75, 0.90):
        times[t] = set_threshold(p, t)
        worker_ms = float(p.get_attribute("#para-results", "data-worker-ms"))
        times[t] = (round(times[t], 1), round(worker_ms, 1))
        assert number(figures(p)["rows_scanned"]) == number(f["rows_scanned"])
    print(
        f"\n[paraphrases] 2,000 rows: run {run_s:.1f} s "
        f"({p.text_content('#para-settings dd[data-setting=encoder]')}); "
        f"slider (page round trip ms, worker para.group ms): {times}"
    )


def test_refuses_up_front_when_the_estimate_is_too_long(para_page):
    """The worker measures the first batch and refuses a run estimated over its limit (30
    minutes in the page; a tiny limit here), naming the CLI."""
    err = para_page.evaluate("""async () => {
        const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ text: `question number ${i} about apples` })).join('\\n');
        const file = new File([rows + '\\n'], 'many.jsonl');
        const args = { eval: { name: 'many.jsonl', format: 'jsonl', field: 'text' }, threshold: 0.9, max_seconds: 0.001 };
        try {
            await window.evalsieve.client.request('para.run', args, { eval: file }).promise;
            return null;
        } catch (e) { return e; }
    }""")
    assert err is not None and err["code"] == "bad_input", err
    assert "minutes" in err["message"]
    assert "evalsieve paraphrases" in err["expected"]
    # The shown result (the example) is untouched and still live.
    set_threshold(para_page, 0.80)
    assert number(figures(para_page)["groups_chained"]) == 0
