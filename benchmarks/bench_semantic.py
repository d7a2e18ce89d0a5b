#!/usr/bin/env python3
"""Quality and speed of the semantic rung on planted rephrasings (prints figures; not a test).

Two public sets, built the same way (seeded, so every run builds the same files):

* GSM8K: eval = the first 400 GSM8K test questions; 100 of them (seeded sample) have their
  GPT-4 rephrasing (llm-decontaminator ``rephrase_gsm8k.jsonl``, line-aligned with test)
  planted inside a WikiText paragraph at a random word; the other training records are
  3,000 GSM8K *train* questions (same topic, different problems) and 1,500 WikiText
  paragraphs (> 40 words). This is the issue's setup (``shared/baselines/semantic_windows.py``).
* HumanEval: eval = the 164 HumanEval programs (prompt + canonical solution); 82 (seeded
  sample of the 147 with a non-empty rephrasing; 17 rephrasings in the file are empty) have
  their rephrased program (``humaneval_python.jsonl``) planted inside an MBPP
  record (its task text and code) at a random line; the other training records are the 974
  MBPP records (other Python programs) and the CodeAlpaca-20k nearest neighbour of every
  HumanEval item (``CodeAlpacaDB.jsonl``: same task family, found by llm-decontaminator's own
  retrieval) except the 18 that GPT-4 judged to be rephrasings (those are real positives).

Recall = planted rows caught; false-positive rate = clean rows caught ÷ clean rows, both at the
default settings (``SemanticConfig()``), through the real ``ContaminationJob`` ladder with
``--semantic``. Also printed: the candidate stage's share of windows let through and its recall
(a window of the planted record overlapping the planted span is among the row's candidates),
the planted/clean score distributions, and a threshold sweep (docs/SEMANTIC.md; the default is
not fitted to it), and recall/false positives on the even- and odd-numbered eval rows
apart (0-based; for HumanEval the task id): a change tuned on one half is checked on the other.

    .venv/bin/python benchmarks/bench_semantic.py [--data ../shared/data] [--model dist/assets/model]
        [--cache /tmp/evalsieve-emb-cache] [--set gsm8k|humaneval|both] [--candidates K]
        [--threshold X] [--code-ngram N] [--no-docstring-cosine] [--no-explain-away]
        [--code-margin X] [--page ROWS]

Embeddings are cached on disk by sha256 of the text (``--cache``; ``--no-cache`` to time the
encoder): the first run embeds about 10,000 texts (minutes on 2 cores); later runs reuse them.
Speed figures (windows/s of the scan, eval rows/s, encoder texts/s) are printed for the run at
hand; the machine may be shared, so compare ratios within one run.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "py"))

from evalsieve.contamination_job import ContaminationConfig, ContaminationJob  # noqa: E402
from evalsieve.semantic import SemanticConfig  # noqa: E402
from evalsieve.stamps import InputFile  # noqa: E402


class CachedEncoder:
    """NativeEncoder with a per-text on-disk cache (sha256 of the text -> 384 float32)."""

    def __init__(self, model_dir: str, cache_dir: str | None):
        from evalsieve.native_encoder import NativeEncoder
        import numpy as np
        self.np = np
        self.enc = NativeEncoder(os.path.join(model_dir, "encoder.onnx"),
                                 os.path.join(model_dir, "tokenizer.json"), batch_size=32)
        self.cache_dir = cache_dir
        self.mem: dict[str, bytes] = {}
        self.path = os.path.join(cache_dir, "vectors.bin") if cache_dir else None
        if self.path and os.path.exists(self.path):
            with open(self.path, "rb") as f:
                data = f.read()
            step = 32 + 384 * 4
            for o in range(0, len(data) - step + 1, step):
                self.mem[data[o:o + 32].hex()] = data[o + 32:o + step]
        self.embedded = 0
        self.seconds = 0.0

    def encode(self, texts):
        np = self.np
        keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in self.mem}.items())
        for c in range(0, len(todo), 512):   # append to the cache every 512 texts
            part = todo[c:c + 512]
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


def _jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _plant(host_words: list[str], text: str, rng) -> tuple[str, int, int]:
    cut = rng.randrange(len(host_words) + 1)
    before = " ".join(host_words[:cut])
    start = len(before.split())
    doc = (before + " " + text + " " + " ".join(host_words[cut:])).strip()
    return doc, start, start + len(text.split())


def build_gsm8k(data: str):
    """Eval rows, training records, planted {eval index: (record index, start, end)}."""
    test = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "test.jsonl"))]
    reph = [r["text"] for r in _jsonl(os.path.join(data, "llm_decontaminator",
                                                     "rephrase_gsm8k.jsonl"))]
    train = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "train.jsonl"))]
    with open(os.path.join(data, "haystack", "wikitext2_raw_test.txt"), encoding="utf-8") as f:
        wiki = [p.strip() for p in f.read().split("\n") if len(p.split()) > 40]
    rng = random.Random(7)
    ev = test[:400]
    planted_rows = sorted(rng.sample(range(400), 100))
    docs, where = [], {}
    for i in planted_rows:
        doc, s, e = _plant(rng.choice(wiki).split(), reph[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += rng.sample(train, 3000) + rng.sample(wiki, 1500)
    return (ev, *_shuffle(docs, where, rng))


def build_humaneval(data: str):
    with gzip.open(os.path.join(data, "humaneval", "HumanEval.jsonl.gz"), "rt") as f:
        he = [json.loads(line) for line in f]
    ev = [h["prompt"] + h["canonical_solution"] for h in he]
    reph = [r["text"] for r in _jsonl(os.path.join(data, "llm_decontaminator",
                                                     "humaneval_python.jsonl"))]
    mbpp = [r["text"] + "\n" + r["code"] for r in _jsonl(os.path.join(data, "mbpp", "mbpp.jsonl"))]
    alpaca = _jsonl(os.path.join(data, "llm_decontaminator", "CodeAlpacaDB.jsonl"))
    neighbours = [t for r in alpaca if not any(r["results"]) for t in r["train"]]
    rng = random.Random(11)
    # 17 of the 164 rephrasings are empty strings: a row whose rephrasing is empty has
    # nothing to plant, so the planted rows are drawn from the 147 others.
    plantable = [i for i in range(len(ev)) if reph[i].strip()]
    planted_rows = sorted(rng.sample(plantable, len(ev) // 2))
    hosts = rng.sample(range(len(mbpp)), len(planted_rows))
    docs, where, used = [], {}, set()
    for i, h in zip(planted_rows, hosts):
        used.add(h)
        doc, s, e = _plant(mbpp[h].split(), reph[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += [m for j, m in enumerate(mbpp) if j not in used] + neighbours
    return (ev, *_shuffle(docs, where, rng))


def _shuffle(docs, where, rng):
    order = list(range(len(docs)))
    rng.shuffle(order)
    new_pos = {old: new for new, old in enumerate(order)}
    return [docs[o] for o in order], {i: (new_pos[r], s, e) for i, (r, s, e) in where.items()}


def run_set(name: str, ev: list[str], docs: list[str], planted: dict, enc, cfg: SemanticConfig):
    """Run the ladder job with the semantic rung; print quality and speed figures."""
    eval_text = "".join(json.dumps({"text": t}) + "\n" for t in ev)
    train_text = "".join(json.dumps({"text": t}) + "\n" for t in docs)
    job = ContaminationJob(ContaminationConfig(("text",), ("text",), semantic=cfg),
                           f"{name}-eval.jsonl", "jsonl", f"{name}-train.jsonl", "jsonl")
    job.set_background(train_text[:1 << 20])
    job.feed_eval(eval_text)
    job.end_eval()
    t0 = time.perf_counter()
    job.feed_train(train_text)
    req = job.semantic_request()
    t_scan = time.perf_counter() - t0
    t1 = time.perf_counter()
    e0, s0 = enc.embedded, enc.seconds
    ev_vecs = enc.encode(req["eval_texts"])
    win_vecs = enc.encode(req["window_texts"]) if req["window_texts"] else ev_vecs[:0]
    t_embed = time.perf_counter() - t1
    np = enc.np
    pairs = np.asarray(req["pairs"], dtype=np.int64).reshape(-1, 2)
    cos = np.einsum("ij,ij->i", ev_vecs[pairs[:, 0]], win_vecs[pairs[:, 1]]).tolist()
    t2 = time.perf_counter()
    job.set_semantic_cosines(cos, {})
    job.finish(InputFile("eval", "e", "0" * 64, len(eval_text), "jsonl"),
               InputFile("train", "t", "0" * 64, len(train_text), "jsonl"), "2026-01-01T00:00:00Z")
    t_verify = time.perf_counter() - t2
    sem = job.semantic
    fig = sem.figures()
    m = sem.matches
    # candidate-stage recall: a window of the planted record overlapping the planted span
    win_of = sem._windows
    cand_hit = 0
    for i, (rec, s, e) in planted.items():
        if any(win_of[j].record == rec + 1 and win_of[j].start < e
               and win_of[j].start + sem.window > s for (r, j) in sem.pairs if r == i):
            cand_hit += 1
    pos = [m[i] for i in planted]
    neg = [m[i] for i in range(len(ev)) if i not in planted]
    caught_pos = sum(1 for x in pos if x.caught)
    right_rec = sum(1 for i in planted if m[i].caught and m[i].training_record == planted[i][0] + 1)
    fp = [i for i in range(len(ev)) if i not in planted and m[i].caught]
    print(f"\n== {name}: {len(ev)} eval rows ({len(planted)} planted), {len(docs)} training "
          f"records; window {fig['window_words']} words ({fig['window_how']}), "
          f"k = {cfg.candidates}, threshold {cfg.threshold}, code shingles n = {cfg.code_ngram} "
          f"({fig['code_rows']} code rows; {fig['docstring_pairs']} docstring pairs)")
    print(f"  recall {caught_pos / len(pos):.3f} ({caught_pos}/{len(pos)}; {right_rec} matched "
          f"to the planted record); false positives {len(fp) / len(neg):.4f} "
          f"({len(fp)}/{len(neg)} clean rows){'; rows ' + str([i + 1 for i in fp]) if fp else ''}")
    halves = []
    for h, label in ((0, "even"), (1, "odd")):   # 0-based row = HumanEval task id
        hp = [i for i in planted if i % 2 == h]
        hn = [i for i in range(len(ev)) if i % 2 == h and i not in planted]
        tp = sum(1 for i in hp if m[i].caught)
        fh = sum(1 for i in hn if m[i].caught)
        halves.append(f"{label} rows {tp / len(hp):.2f} ({tp}/{len(hp)}) at "
                      f"{fh / len(hn):.3f} ({fh}/{len(hn)})")
    print("  by half of the eval rows (0-based index; a check against fitting one half): "
          + "; ".join(halves))
    print(f"  candidate stage: {fig['windows']} windows, {fig['windows_sharing_a_key_term']} "
          f"share a key term, {fig['windows_embedded']} embedded = "
          f"{fig['windows_embedded'] / max(1, fig['windows']):.3f} let through "
          f"({1 - fig['windows_embedded'] / max(1, fig['windows']):.3f} skipped); candidate "
          f"recall {cand_hit / len(planted):.3f} ({cand_hit}/{len(planted)})")
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")  # noqa
    for label, f in (("score", lambda x: x.score), ("cosine", lambda x: x.cosine),
                     ("lexical", lambda x: x.lexical), ("code", lambda x: x.code),
                     ("doc cos", lambda x: x.docstring_cosine)):
        pv = [f(x) for x in pos if f(x) is not None]
        nv = [f(x) for x in neg if f(x) is not None]
        if not pv or not nv:
            continue
        print(f"  {label:8s} planted median {statistics.median(pv):.3f} p10 {q(pv, .10):.3f} "
              f"min {min(pv):.3f} | clean median {statistics.median(nv):.3f} p99 {q(nv, .99):.3f} "
              f"max {max(nv):.3f}")
    sweep = []
    for th in (0.55, 0.60, 0.65, 0.70, 0.75, 0.80):
        r = sum(1 for x in pos if x.score is not None and x.score >= th) / len(pos)
        f_ = sum(1 for x in neg if x.score is not None and x.score >= th) / len(neg)
        sweep.append(f"{th:.2f}: {r:.2f}/{f_:.3f}")
    print("  threshold sweep (recall/FP): " + ", ".join(sweep))
    top = max((x.score for x in neg if x.score is not None), default=None)
    if top is not None:   # the best point with no false positive (not a default: a reading)
        r0 = sum(1 for x in pos if x.score is not None and x.score > top) / len(pos)
        print(f"  above the highest clean score ({top:.3f}): recall {r0:.3f} at 0 false positives")
    n_emb = len(req["eval_texts"]) + len(req["window_texts"])   # docstrings included
    print(f"  speed: scan {fig['windows'] / max(t_scan, 1e-9):,.0f} windows/s "
          f"(n-gram + exact + semantic candidate stage, {t_scan:.1f} s); embedding {n_emb} texts "
          f"in {t_embed:.1f} s ({enc.embedded - e0} not cached"
          + (f", {(enc.embedded - e0) / max(enc.seconds - s0, 1e-9):.0f} texts/s" if enc.embedded > e0 else "")
          + f"); verify {t_verify:.2f} s; eval rows checked "
          f"{len(ev) / max(t_scan + t_embed + t_verify, 1e-9):.1f} rows/s end to end")
    return caught_pos / len(pos), len(fp) / len(neg)


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
        return sorted(int(r["eval_row"]) for r in csv.DictReader(io.StringIO(body))
                      if r["rung"] == "semantic")

    t0 = time.perf_counter()
    assert cli_main(["contamination", str(ev_path), str(tr_path), "--eval-field", "text",
                     "--train-field", "text", "--semantic", "--model-dir", model,
                     "--out", str(tmp / "cli"), "--quiet"]) == 0
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
            page_rows = sorted(int(tr.get_attribute("data-row")) for tr in
                               page.query_selector_all("#ladder-rows tbody tr")
                               if tr.get_attribute("data-rung") == "semantic")
            ctx.close()
    finally:
        server.stop()
    emb = next((x.split("semantic rung: ", 1)[1] for x in log if "semantic rung: embedded" in x),
               "(no embedding line)")
    print(f"\n== page vs CLI, {name}: the first {rows} eval rows, {len(docs)} training records")
    print(f"  page: {t_page:.1f} s ({state}); {emb.strip()}")
    print(f"  CLI:  {t_cli:.1f} s (onnxruntime, every core); page / CLI = {t_page / t_cli:.2f}")
    print(f"  semantic rows caught: page {page_rows}, CLI {cli_rows} "
          f"({'the same' if page_rows == cli_rows else 'DIFFERENT'})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", default=os.path.join(ROOT, "dist", "assets", "model"))
    ap.add_argument("--cache", default="/tmp/evalsieve-emb-cache")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--set", default="both", choices=("gsm8k", "humaneval", "both"))
    ap.add_argument("--candidates", type=int, default=None)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--code-ngram", type=int, default=None,
                    help="code channel shingle length (0: off, code rows read as prose)")
    ap.add_argument("--no-docstring-cosine", action="store_true")
    ap.add_argument("--no-explain-away", action="store_true")
    ap.add_argument("--code-margin", type=float, default=None)
    ap.add_argument("--page", type=int, default=0, metavar="ROWS",
                    help="also time the page against the CLI on the first ROWS eval rows of "
                         "each set (needs dist/, chromium and playwright; slow)")
    a = ap.parse_args()
    if not os.path.isdir(a.data):
        sys.exit(f"bench_semantic: no data folder {a.data} (needs shared/data)")
    enc = CachedEncoder(a.model, None if a.no_cache else a.cache)
    kw = {}
    if a.candidates:
        kw["candidates"] = a.candidates
    if a.threshold:
        kw["threshold"] = a.threshold
    if a.code_ngram is not None:
        kw["code_ngram"] = a.code_ngram
    if a.no_docstring_cosine:
        kw["docstring_cosine"] = False
    if a.no_explain_away:
        kw["explain_away"] = False
    if a.code_margin is not None:
        kw["code_margin"] = a.code_margin
    cfg = SemanticConfig(**kw)
    if a.set in ("gsm8k", "both"):
        g = build_gsm8k(a.data)
        run_set("GSM8K", *g, enc, cfg)
        if a.page:
            page_vs_cli("gsm8k", g[0], g[1], a.page, a.model)
    if a.set in ("humaneval", "both"):
        h = build_humaneval(a.data)
        run_set("HumanEval", *h, enc, cfg)
        if a.page:
            page_vs_cli("humaneval", h[0], h[1], a.page, a.model)


if __name__ == "__main__":
    main()
