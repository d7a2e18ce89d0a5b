"""Generate a large English JSONL training file for the contamination benchmarks.

Records are runs of WikiText-2 sentences (shared/data/haystack, CC BY-SA 3.0) shuffled with a
fixed seed, about 1 KB each; every 5,000th record has a GSM8K test question (MIT) planted in
the middle, so the scan has real matches to find. Deterministic for a given size and seed.

    python3 benchmarks/make_training.py OUT.jsonl --mb 200 [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.environ.get("EVALSIEVE_SHARED", os.path.join(HERE, "..", "..", "shared")),
                      "data")  # EVALSIEVE_SHARED as in bench_contamination.py


def sentences() -> list[str]:
    path = os.path.join(SHARED, "haystack", "wikitext2_raw_test.txt")
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("="):
                continue
            out += [s.strip() + "." for s in line.split(" . ") if len(s.split()) > 4]
    return out


def planted() -> list[str]:
    path = os.path.join(SHARED, "gsm8k", "test.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(l)["question"] for l in f]


def generate(out: str, mb: float, seed: int = 13, gz: bool = False) -> int:
    """Write about ``mb`` MB of JSONL to ``out``; returns the number of records."""
    rng = random.Random(seed)
    sents = sentences()
    qs = planted()
    target = int(mb * 1e6)
    written = 0
    n = 0
    opener = gzip.open if gz else open
    with opener(out, "wt", encoding="utf-8") as f:
        while written < target:
            parts = []
            size = 0
            while size < 1000:
                s = sents[rng.randrange(len(sents))]
                parts.append(s)
                size += len(s) + 1
            n += 1
            if n % 5000 == 0:
                parts.insert(len(parts) // 2, qs[(n // 5000) % len(qs)])
            line = json.dumps({"id": n, "text": " ".join(parts)}) + "\n"
            f.write(line)
            written += len(line.encode("utf-8"))
    return n


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--gzip", action="store_true")
    a = ap.parse_args()
    print(generate(a.out, a.mb, a.seed, a.gzip))
