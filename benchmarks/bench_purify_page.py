"""The page's purify against the page's contamination run on the same file, in one browser.

On make_training.py's corpus (as bench_contamination.py builds and caches it) against the
GSM8K test questions, each run on a fresh worker (booted first, untimed), taking turns:

* ``cont.run``: the contamination job (its whole run, and its training pass);
* ``purify.run`` with the full self-check and with ``changed``: scan + write + self-check,
  the cleaned file built in a Blob (the download path);

as MB/s of the training file (medians of ``--repeat``) and purify / contamination, with
purify's passes (scan, write) in MB/s and its self-check in seconds. It also checks that
the page's cleaned file is the CLI's (``evalsieve purify``, sha256).

    .venv/bin/python benchmarks/bench_purify_page.py --mb 50 --repeat 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_contamination import (  # noqa: E402
    PAGE_BOOT,
    eval_file,
    page_with_files,
    training_file,
)

RUN = """
async ([op, args]) => {
  const files = {eval: document.querySelector('#bench-eval').files[0],
                 train: document.querySelector('#bench-train').files[0]};
  const w = window.__w;
  const done = new Promise((resolve) => {
    w.onmessage = (e) => { if (['result', 'error', 'fatal'].includes(e.data.type)) resolve(e.data); };
  });
  const t = performance.now();
  w.postMessage({type: 'run', id: 1, op, args, files});
  const m = await done;
  const secs = (performance.now() - t) / 1000;
  w.terminate();
  if (m.type !== 'result') return {error: m.error, secs};
  const d = m.data;
  return {secs, timing: d.timing, summary: d.summary, output: d.output ? {bytes: d.output.bytes, sha256: d.output.sha256} : null};
}
"""


def cli_sha256(ev: Path, tr: Path) -> str:
    from evalsieve.cli import main
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
        assert (
            main(
                [
                    "purify",
                    str(ev),
                    str(tr),
                    "--out",
                    d,
                    "--eval-field",
                    "question",
                    "--train-field",
                    "text",
                    "--quiet",
                    "--workers",
                    "1",
                ]
            )
            == 0
        )
        return hashlib.sha256((Path(d) / tr.name).read_bytes()).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ev, tr = eval_file(), training_file(a.mb)
    size = tr.stat().st_size
    rule = {
        "eval": {"format": "jsonl", "fields": ["question"]},
        "train": {"format": "jsonl", "fields": ["text"]},
        "n": None,
        "boilerplate": True,
        "threshold": None,
    }
    runs = {
        "cont.run": ("cont.run", rule),
        "purify full": ("purify.run", {**rule, "purify": {"self_check": "full"}}),
        "purify changed": ("purify.run", {**rule, "purify": {"self_check": "changed"}}),
    }
    mbps = {k: [] for k in runs}
    train_pass = []
    shas = set()
    print(
        f"{tr.name}: {size / 1e6:.1f} MB; eval {ev.name}; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with page_with_files(ev, tr) as (page, _):
        for k in range(a.repeat):
            for name, (op, args) in runs.items():
                page.evaluate(PAGE_BOOT)
                r = page.evaluate(RUN, [op, args])
                assert "error" not in r, r
                mbps[name].append(size / 1e6 / r["timing"]["seconds"])
                extra = ""
                if r["output"]:
                    shas.add(r["output"]["sha256"])
                    s = r["summary"]
                    t = r["timing"]
                    extra = (
                        f"; scan {size / 1e6 / t['scan']:.1f}, write {size / 1e6 / t['write']:.1f}"
                        f", check {t['check']:.1f} s ({s['records_cut']} cut, "
                        f"{s['records_dropped']} dropped; self-check "
                        f"{s['self_check']['rows_contaminated']})"
                    )
                else:
                    extra = f"; training pass {r['timing']['train_mbps']:.1f} MB/s"
                    train_pass.append(r["timing"]["train_mbps"])
                print(
                    f"  {k + 1}: {name:15s} {mbps[name][-1]:6.1f} MB/s whole run{extra}", flush=True
                )
    med = {k: statistics.median(v) for k, v in mbps.items()}
    print(json.dumps({k: round(v, 2) for k, v in med.items()}))
    print(f"cont.run training pass: {statistics.median(train_pass):.1f} MB/s")
    for k in ("purify full", "purify changed"):
        print(f"{k} / cont.run (whole runs): {med[k] / med['cont.run']:.2f}")
    want = cli_sha256(ev, tr)
    print(
        f"page output sha256 {sorted(shas)}; CLI {want}: "
        f"{'same' if shas == {want} else 'DIFFERENT'}"
    )
    return 0 if shas == {want} else 1


if __name__ == "__main__":
    sys.exit(main())
