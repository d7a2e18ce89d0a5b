"""20,000 eval rows grouped end to end, in the page and in the CLI, in one run.

Rows: GSM8K test + train questions, GSM8K test's GPT-4 rephrasings (llm-decontaminator) and
MMLU test questions from ../shared/data, first 20,000 non-empty (MIT / Apache-2.0 / MIT).
The page runs the real worker op `paraphrases` (read, embed, tiles, groups, figures); the CLI
runs ``evalsieve paraphrases``. Prints seconds, rows/s and the figures of each, and whether
they agree. A figure, never a pass/fail.

    .venv/bin/python benchmarks/bench_paraphrases_20k.py [--rows 20000] [--skip-cli]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("EVALSIEVE_SHARED", ROOT.parent / "shared")) / "data"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Page seconds for 20,000 rows with the first page encoder (onnxruntime-web 1.30.0 WASM): the
#: baseline the speed target is measured against.
PAGE_BASELINE_S = 663.0
KEYS = (
    "rows_scanned",
    "groups",
    "groups_chained",
    "rows_in_groups",
    "duplicate_share",
    "effective_rows",
    "rows_truncated",
)


def rows(n: int) -> list[str]:
    out = []
    for name in ("test.jsonl", "train.jsonl"):
        with open(SHARED / "gsm8k" / name, encoding="utf-8") as f:
            out += [json.loads(l)["question"] for l in f]
    with open(SHARED / "llm_decontaminator" / "rephrase_gsm8k.jsonl", encoding="utf-8") as f:
        out += [
            json.loads(l)["text"].split("Answer:")[0].replace("Question:", "").strip() for l in f
        ]
    for p in sorted((SHARED / "mmlu" / "test").glob("*.csv")):
        with open(p, encoding="utf-8", newline="") as f:
            out += [r[0] for r in csv.reader(f) if r and r[0] != "question"]
    out = [t for t in out if t.strip()]
    return out[:n]


PAGE_JS = """
async () => {
  const file = document.querySelector('#bench-eval').files[0];
  const w = new Worker('worker/worker.js', {type: 'module'});
  const done = new Promise((resolve) => {
    w.onmessage = (e) => { const m = e.data; if (m.type === 'result' || m.type === 'error' || m.type === 'fatal') resolve(m); };
  });
  w.postMessage({type: 'init'});
  await new Promise((r) => { const h = (e) => { if (e.data.type === 'ready') { w.removeEventListener('message', h); r(); } }; w.addEventListener('message', h); });
  const t = performance.now();
  w.postMessage({type: 'run', id: 1, op: 'para.run', files: {eval: file},
                 args: {eval: {format: 'jsonl', field: 'text', label_field: null}, threshold: 0.9}});
  const m = await done;
  const secs = (performance.now() - t) / 1000;
  w.terminate();
  return {m, secs};
}
"""


def page_run(path: Path) -> tuple[float, dict]:
    from playwright.sync_api import sync_playwright
    import build

    build.DistHandler.log_message = lambda *a, **k: None
    server = build.make_server(ROOT / "dist", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://%s:%d/index.html" % server.server_address[:2]
    chromium = os.environ.get("EVALSIEVE_CHROMIUM", "/usr/bin/chromium")
    with tempfile.TemporaryDirectory() as prof, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            prof, executable_path=chromium, headless=True, args=FLAGS
        )
        page = ctx.new_page()
        page.set_default_timeout(0)
        page.goto(url)
        page.evaluate("""() => { const i = document.createElement('input'); i.type = 'file';
            i.id = 'bench-eval'; i.hidden = true; document.body.append(i); }""")
        page.set_input_files("#bench-eval", str(path))
        r = page.evaluate(PAGE_JS)
        ctx.close()
    server.shutdown()
    m = r["m"]
    if m["type"] != "result":
        raise SystemExit(f"page run failed: {m}")
    d = m["data"]
    figures = d.get("figures", d)
    return r["secs"], figures


def cli_run(path: Path) -> tuple[float, dict]:
    from evalsieve.cli import main
    import contextlib
    import io

    out = io.StringIO()
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(out):
        code = main(["paraphrases", str(path), "--field", "text", "--out", d, "--json", "--quiet"])
    secs = time.perf_counter() - t
    if code:
        raise SystemExit(f"CLI failed with {code}")
    return secs, json.loads(out.getvalue())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--skip-page", action="store_true")
    a = ap.parse_args()
    texts = rows(a.rows)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"rows{len(texts)}.jsonl"
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        print(f"{len(texts)} rows; load average {os.getloadavg()[0]:.1f}", flush=True)
        res = {}
        if not a.skip_page:
            secs, f = page_run(path)
            res["page"] = (secs, f)
            print(
                f"page: {secs:.0f} s, {len(texts) / secs:.1f} rows/s end to end; "
                + ", ".join(f"{k} {f.get(k)}" for k in KEYS),
                flush=True,
            )
            # The target: >= 3x faster than the 663 s measured for 20,000 rows. Below
            # 20,000 rows the baseline is scaled by the row count: embedding, linear in rows,
            # is most of those 663 s (29 mixed rows/s would take 690 s alone). The encoder's
            # start (fetch, session creation, ~10-30 s) is fixed, so small runs come out
            # worse than they would at 20,000 rows; the page/cli ratio below is fairer.
            base = PAGE_BASELINE_S * len(texts) / 20000
            print(
                f"page vs the {PAGE_BASELINE_S:.0f} s baseline (scaled to {len(texts)} rows: {base:.0f} s): "
                f"{base / secs:.2f}x faster (target 3x)",
                flush=True,
            )
        if not a.skip_cli:
            secs, f = cli_run(path)
            res["cli"] = (secs, f)
            print(
                f"cli:  {secs:.0f} s, {len(texts) / secs:.1f} rows/s end to end; "
                + ", ".join(f"{k} {f.get(k)}" for k in KEYS),
                flush=True,
            )
        if len(res) == 2:
            same = {k: res["page"][1].get(k) == res["cli"][1].get(k) for k in KEYS}
            print(
                f"page/cli time ratio {res['page'][0] / res['cli'][0]:.2f}; figures equal: {same}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
