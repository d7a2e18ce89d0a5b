#!/usr/bin/env python3
"""Quality of the semantic rung on labelled public sets, leave-one-set-out (prints figures).

The sets are built from ../shared/data by ``benchmarks/semantic_sets.py`` (seeded; its
docstring says what each holds): nine *fitting* sets (gsm8k, humaneval, gsm8k_stem,
gsm8k_long, mrpc, stsb, bigbench, web, codealpaca) and *held-out* sets that no setting was
chosen on (mmlu_heldout; mmlu_rephrase and mmlu_chinese with ``--decontaminator DIR``, a
folder holding llm-decontaminator's ``data/rephrase/*_filtered_question.jsonl`` files). Each set runs through
the real ``ContaminationJob`` ladder with the semantic rung at ``SemanticConfig()``.

Printed per set: recall (contaminated rows caught), false positives (clean rows caught ÷ clean
rows), the candidate stage's recall (a candidate span overlaps the planted text); then

* the table at the committed defaults (``semantic_verifier.VERIFIER_WEIGHTS`` and
  ``VERIFIER_THRESHOLD``) and the worst set;
* **leave-one-set-out**: each fitting set scored at verifier weights and a threshold chosen on
  the other fitting sets (``semantic_fit.py``: logistic regression on labelled pairs; the
  thresholds, one for prose rows and one for code rows, are each the lowest at which ≤ 1% of
  the clean rows of that kind in the other sets with clean negatives are caught, each set
  weighing the same);
* with ``--fit``: the weights and threshold fitted on all nine fitting sets (what the module
  commits), and every set at them.

    .venv/bin/python benchmarks/bench_semantic.py [--data ../shared/data] [--model dist/assets/model]
        [--cache /tmp/evalsieve-emb-cache] [--sets a,b,...] [--decontaminator DIR] [--fit]
        [--candidates K] [--page ROWS]

Embeddings are cached on disk by sha256 of the text (``--cache``; ``--no-cache`` to time the
encoder): the first run embeds tens of thousands of texts (an hour on 2 shared cores); later
runs reuse them and take a few minutes (the scans). Refitting never embeds again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from evalsieve.contamination_job import ContaminationConfig, ContaminationJob  # noqa: E402
from evalsieve.semantic import SemanticConfig  # noqa: E402
from evalsieve.semantic_verifier import VERIFIER_WEIGHTS  # noqa: E402
from evalsieve.stamps import InputFile  # noqa: E402
import semantic_fit as F  # noqa: E402
import semantic_sets as S  # noqa: E402


class CachedEncoder:
    """NativeEncoder with a per-text on-disk cache (sha256 of the text -> 384 float32)."""

    def __init__(self, model_dir: str, cache_dir: str | None):
        from evalsieve.native_encoder import NativeEncoder
        import numpy as np

        self.np = np
        self.enc = NativeEncoder(
            os.path.join(model_dir, "encoder.onnx"),
            os.path.join(model_dir, "tokenizer.json"),
            batch_size=32,
        )
        self.cache_dir = cache_dir
        self.mem: dict[str, bytes] = {}
        self.path = os.path.join(cache_dir, "vectors.bin") if cache_dir else None
        if self.path and os.path.exists(self.path):
            with open(self.path, "rb") as f:
                data = f.read()
            step = 32 + 384 * 4
            for o in range(0, len(data) - step + 1, step):
                self.mem[data[o : o + 32].hex()] = data[o + 32 : o + step]
        self.embedded = 0
        self.seconds = 0.0

    def encode(self, texts):
        np = self.np
        keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in self.mem}.items())
        for c in range(0, len(todo), 512):  # append to the cache every 512 texts
            part = todo[c : c + 512]
            t0 = time.perf_counter()
            vecs, _ = self.enc.encode([t for _, t in part])
            self.seconds += time.perf_counter() - t0
            self.embedded += len(part)
            new = []
            for (k, _), v in zip(part, vecs):
                b = v.astype(np.float32).tobytes()
                self.mem[k] = b
                new.append(bytes.fromhex(k) + b)
            if self.path:
                os.makedirs(self.cache_dir, exist_ok=True)
                with open(self.path, "ab") as f:
                    f.write(b"".join(new))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(self.mem[k], dtype=np.float32)
        return out


def run_job(b, enc, cfg: SemanticConfig):
    """Run set ``b`` through the ladder job with the semantic rung; return (job, seconds)."""
    eval_text = "".join(json.dumps(r) + "\n" for r in b.rows)
    train_text = "".join(json.dumps({"text": t}) + "\n" for t in b.docs)
    job = ContaminationJob(
        ContaminationConfig(b.fields, ("text",), semantic=cfg),
        f"{b.name}-eval.jsonl",
        "jsonl",
        f"{b.name}-train.jsonl",
        "jsonl",
    )
    job.set_background(train_text[: 1 << 20])
    job.feed_eval(eval_text)
    job.end_eval()
    t0 = time.perf_counter()
    job.feed_train(train_text)
    req = job.semantic_request()
    t_scan = time.perf_counter() - t0
    t1 = time.perf_counter()
    e0 = enc.embedded
    ev_vecs = enc.encode(req["eval_texts"])
    win_vecs = enc.encode(req["window_texts"]) if req["window_texts"] else ev_vecs[:0]
    t_embed = time.perf_counter() - t1
    np = enc.np
    pairs = np.asarray(req["pairs"], dtype=np.int64).reshape(-1, 2)
    cos = np.einsum("ij,ij->i", ev_vecs[pairs[:, 0]], win_vecs[pairs[:, 1]]).tolist()
    t2 = time.perf_counter()
    job.set_semantic_cosines(cos, {})
    job.bench_cosines = cos
    job.finish(
        InputFile("eval", "e", "0" * 64, len(eval_text), "jsonl"),
        InputFile("train", "t", "0" * 64, len(train_text), "jsonl"),
        "2026-01-01T00:00:00Z",
    )
    t_verify = time.perf_counter() - t2
    times = {
        "scan": t_scan,
        "embed": t_embed,
        "verify": t_verify,
        "texts": len(req["eval_texts"]) + len(req["window_texts"]),
        "new_texts": enc.embedded - e0,
    }
    return job, times


def report_set(b, job, times) -> F.Run:
    """Print one set's figures at the committed defaults; return its Run for the fits."""
    sem = job.semantic
    fig = sem.figures()
    run = F.Run(b, sem, job.bench_cosines)
    rec, fpr, tp, fp = F.rates(b, [x.caught for x in sem.matches])
    neg = len(b.rows) - len(b.positive)
    parts = {}
    for i in b.positive:
        if sem.matches[i].caught:
            parts[sem.matches[i].part] = parts.get(sem.matches[i].part, 0) + 1
    print(
        f"\n== {b.name} ({b.role}): {b.note}. {len(b.rows)} eval rows ({len(b.positive)} "
        f"contaminated), {len(b.docs)} training records; {fig['probes']} probes, window "
        f"{fig['window_words']} words ({fig['window_how']})"
    )
    print(
        f"  recall {rec:.3f} ({tp}/{len(b.positive)}; caught by part "
        f"{dict(sorted(parts.items()))}); false positives {fpr:.4f} ({fp}/{neg})"
    )
    print(
        f"  candidate stage: {fig['windows']} windows, {fig['windows_sharing_a_key_term']} "
        f"share a key term, {fig['windows_embedded']} spans embedded, "
        f"{fig['pairs_verified']} pairs; candidate recall {F.candidate_recall(b, sem):.3f}"
    )
    print(
        f"  time: scan {times['scan']:.1f} s ({fig['windows'] / max(times['scan'], 1e-9):,.0f}"
        f" windows/s, all rungs), embedding {times['texts']} texts ({times['new_texts']} not "
        f"cached) {times['embed']:.1f} s, verify {times['verify']:.2f} s"
    )
    return run


#: The rung's targets (recall at least, false positives at most) where it has one.
TARGETS = {
    "gsm8k": (0.90, 0.01),
    "humaneval": (0.90, 0.01),
    "gsm8k_stem": (0.80, 0.01),
    "gsm8k_long": (0.80, 0.01),
}


def table(title, rows):
    """Print a Markdown table of (set, role, recall, FP, target met?, extra) and the worst
    sets."""
    print(f"\n{title}\n")
    print("| set | role | rows | contaminated | recall | false positives | target met? | |")
    print("|---|---|---|---|---|---|---|---|")
    for name, role, n, npos, rec, fpr, extra in rows:
        t = TARGETS.get(name)
        met = (
            ""
            if t is None
            else f"{'yes' if rec >= t[0] and fpr <= t[1] + 1e-12 else 'NO'} "
            f"(≥ {t[0]:.2f} at ≤ {100 * t[1]:.0f}%)"
        )
        print(
            f"| {name} | {role} | {n} | {npos} | {rec:.3f} | {100 * fpr:.1f}% | {met} | {extra} |"
        )
    fit = [r for r in rows if r[1] == "fit"]
    if fit:
        lo = min(fit, key=lambda r: r[4])
        hi = max((r for r in fit if r[0] not in F.GRADED), key=lambda r: r[5], default=None)
        print(
            f"\nworst fitting set by recall: {lo[0]} ({lo[4]:.3f} at {100 * lo[5]:.1f}%)"
            + (
                f"; by false positives (clean negatives): {hi[0]} ({100 * hi[5]:.1f}%)"
                if hi
                else ""
            )
        )
    held = [r for r in rows if r[1] != "fit"]
    if held:
        lo = min(held, key=lambda r: r[4])
        print(f"worst held-out set by recall: {lo[0]} ({lo[4]:.3f} at {100 * lo[5]:.1f}%)")


def page_vs_cli(name: str, ev: list[str], docs: list[str], rows: int, model: str) -> None:
    """The page (Debian chromium, dist/ as built, served by build.py's server) and the CLI on
    the same files: the first ``rows`` eval rows of a set against all its training records,
    the semantic rung at its defaults. Prints the wall time of each run (page: from the Run
    click to the end of the run; CLI: ``main([...])``), the page's own embedding line, and
    whether both caught the same rows. Not cached: both embed everything."""
    import csv
    import io
    import tempfile
    from pathlib import Path

    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    from pagekit import DistServer, choose_file, launch, open_page, runs_so_far, wait_for_runs
    from playwright.sync_api import sync_playwright
    from evalsieve.cli import main as cli_main

    tmp = Path(tempfile.mkdtemp(prefix="evalsieve-bench-page-"))
    ev_path, tr_path = tmp / f"{name}-eval.jsonl", tmp / f"{name}-train.jsonl"
    ev_path.write_text("".join(json.dumps({"text": t}) + "\n" for t in ev[:rows]), "utf-8")
    tr_path.write_text("".join(json.dumps({"text": t}) + "\n" for t in docs), "utf-8")

    def caught_cli(out: Path) -> list[int]:
        text = (out / "contamination-report.csv").read_text("utf-8")
        body = "".join(line for line in io.StringIO(text) if not line.startswith("# "))
        return sorted(
            int(r["eval_row"]) for r in csv.DictReader(io.StringIO(body)) if r["rung"] == "semantic"
        )

    t0 = time.perf_counter()
    assert (
        cli_main(
            [
                "contamination",
                str(ev_path),
                str(tr_path),
                "--eval-field",
                "text",
                "--train-field",
                "text",
                "--semantic",
                "--model-dir",
                model,
                "--out",
                str(tmp / "cli"),
                "--quiet",
            ]
        )
        == 0
    )
    t_cli = time.perf_counter() - t0
    cli_rows = caught_cli(tmp / "cli")

    server = DistServer(Path(ROOT) / "dist")
    try:
        with sync_playwright() as pw:
            ctx = launch(pw, str(tmp / "profile"), viewport={"width": 1280, "height": 1000})
            page = open_page(ctx, server.url)
            wait_for_runs(page, 1)
            choose_file(page, "eval", ev_path, ["text"])
            choose_file(page, "train", tr_path, ["text"])
            page.check("#setting-semantic")
            before = runs_so_far(page)
            t0 = time.perf_counter()
            page.click("#run")
            state = wait_for_runs(page, before + 1, 3_600_000)
            t_page = time.perf_counter() - t0
            log = [li.text_content() for li in page.query_selector_all("#log li")]
            page_rows = sorted(
                int(tr.get_attribute("data-row"))
                for tr in page.query_selector_all("#ladder-rows tbody tr")
                if tr.get_attribute("data-rung") == "semantic"
            )
            ctx.close()
    finally:
        server.stop()
    emb = next(
        (x.split("semantic rung: ", 1)[1] for x in log if "semantic rung: embedded" in x),
        "(no embedding line)",
    )
    print(f"\n== page vs CLI, {name}: the first {rows} eval rows, {len(docs)} training records")
    print(f"  page: {t_page:.1f} s ({state}); {emb.strip()}")
    print(f"  CLI:  {t_cli:.1f} s (onnxruntime, every core); page / CLI = {t_page / t_cli:.2f}")
    print(
        f"  semantic rows caught: page {page_rows}, CLI {cli_rows} "
        f"({'the same' if page_rows == cli_rows else 'DIFFERENT'})"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data",
        default=next(
            (
                d
                for d in (
                    os.path.join(ROOT, "..", "shared", "data"),
                    os.path.join(ROOT, "..", "..", "shared", "data"),
                )
                if os.path.isdir(d)
            ),
            os.path.join(ROOT, "..", "shared", "data"),
        ),
    )
    ap.add_argument("--model", default=os.path.join(ROOT, "dist", "assets", "model"))
    ap.add_argument("--cache", default="/tmp/evalsieve-emb-cache")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument(
        "--sets",
        default=",".join(list(S.FIT_SETS) + ["mmlu_heldout", "mmlu_rephrase", "mmlu_chinese"]),
    )
    ap.add_argument(
        "--decontaminator",
        default=None,
        metavar="DIR",
        help="folder with llm-decontaminator's data/rephrase/*_filtered_question"
        ".jsonl (the MMLU rephrasing sets; skipped without it)",
    )
    ap.add_argument(
        "--fit",
        action="store_true",
        help="also fit the weights and threshold on all fitting sets and print them",
    )
    ap.add_argument("--candidates", type=int, default=None)
    ap.add_argument(
        "--page",
        type=int,
        default=0,
        metavar="ROWS",
        help="also time the page against the CLI on the first ROWS eval rows of "
        "gsm8k and humaneval (needs dist/, chromium and playwright; slow)",
    )
    a = ap.parse_args()
    if not os.path.isdir(a.data):
        sys.exit(f"bench_semantic: no data folder {a.data} (needs shared/data)")
    enc = CachedEncoder(a.model, None if a.no_cache else a.cache)
    cfg = SemanticConfig(**({"candidates": a.candidates} if a.candidates else {}))
    runs = []
    for b in S.build_sets(a.data, a.sets.split(","), a.decontaminator):
        job, times = run_job(b, enc, cfg)
        runs.append(report_set(b, job, times))
        sys.stdout.flush()
        if a.page and b.name in ("gsm8k", "humaneval"):
            page_vs_cli(b.name, [r["text"] for r in b.rows], b.docs, a.page, a.model)
    w0, t0 = VERIFIER_WEIGHTS, (cfg.threshold, cfg.code_threshold)

    def row(r, w, t, extra=""):
        rec, fpr, _, _ = r.rates(w, t)
        return (r.name, r.b.role, len(r.b.rows), len(r.b.positive), rec, fpr, extra)

    table(
        f"At the committed defaults: weights {w0}, thresholds {t0} (prose, code rows), "
        f"k = {cfg.candidates}",
        [row(r, w0, t0) for r in runs],
    )
    fit = [r for r in runs if r.b.role == "fit"]
    if len(fit) > 1:
        loo = F.leave_one_out(fit)
        table(
            "Leave-one-set-out: each fitting set at weights and threshold chosen without it",
            [
                (
                    r.name,
                    "fit",
                    len(r.b.rows),
                    len(r.b.positive),
                    loo[r.name][2],
                    loo[r.name][3],
                    f"weights {loo[r.name][0]}, thresholds {loo[r.name][1]}",
                )
                for r in fit
            ],
        )
    if a.fit and fit:
        w = F.fit_weights(fit)
        t = F.choose_thresholds(fit, w)
        print(
            f"\nFitted on all {len(fit)} fitting sets: VERIFIER_WEIGHTS = {w}, "
            f"VERIFIER_THRESHOLD = {t[0]}, VERIFIER_CODE_THRESHOLD = {t[1]}"
        )
        table(
            "Every set at the weights and threshold fitted on all fitting sets",
            [row(r, w, t) for r in runs],
        )
    for r in runs:  # leave every scan at the defaults
        r.scan.verify(r.cos)


if __name__ == "__main__":
    main()
