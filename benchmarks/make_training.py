"""Generate a large English JSONL training file for the contamination benchmarks.

Shaped like a web-text pretraining corpus (200 MB of English JSONL, 95,795 records of 100–600 words
drawn from WikiText, Shakespeare and GSM8K-train text): each record is a run of consecutive
text from one source, cut after a word count drawn uniformly from 100..600 —

* WikiText-2 raw test paragraphs (shared/data/haystack, CC BY-SA 3.0), 60 % of records;
* Tiny Shakespeare lines, speaker names and line breaks kept (public domain), 25 %;
* GSM8K train question + answer pairs (MIT), with their line breaks and ``<<calc>>``
  annotations, 15 %;

written with ``json.dumps`` (line breaks and non-ASCII characters become JSON escapes, as in
most exported datasets). Every 5,000th record has a GSM8K *test* question planted between two
of its units, so the scan has known matches to find (GSM8K train itself shares a 13-gram with
3 test questions, so records drawn from it can match too: real overlaps, found by every
scanner alike). Deterministic for a given size and seed.

    python3 benchmarks/make_training.py OUT.jsonl --mb 200 [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.environ.get("EVALSIEVE_SHARED", os.path.join(HERE, "..", "..", "shared")),
                      "data")  # EVALSIEVE_SHARED as in bench_contamination.py
#: (source, share of records, separator between its units)
SOURCES = (("wikitext", 0.60, "\n\n"), ("shakespeare", 0.25, "\n"), ("gsm8k_train", 0.15, "\n\n"))
WORDS = (100, 600)
_WORD_END = re.compile(r"\S+")


def units() -> dict[str, list[str]]:
    """Each source's units, in file order: WikiText paragraphs (headings dropped), Shakespeare
    lines (blank lines dropped), GSM8K train question-answer pairs."""
    out: dict[str, list[str]] = {}
    with open(os.path.join(SHARED, "haystack", "wikitext2_raw_test.txt"), encoding="utf-8") as f:
        out["wikitext"] = [l.strip() for l in f if l.strip() and not l.strip().startswith("=")]
    with open(os.path.join(SHARED, "haystack", "tinyshakespeare.txt"), encoding="utf-8") as f:
        out["shakespeare"] = [l.rstrip("\n") for l in f if l.strip()]
    with open(os.path.join(SHARED, "gsm8k", "train.jsonl"), encoding="utf-8") as f:
        out["gsm8k_train"] = [f"{r['question']}\n{r['answer']}" for r in map(json.loads, f)]
    return out


def planted() -> list[str]:
    with open(os.path.join(SHARED, "gsm8k", "test.jsonl"), encoding="utf-8") as f:
        return [json.loads(l)["question"] for l in f]


def _record(rng: random.Random, src: list[str], sep: str, words: int) -> list[str]:
    """Consecutive units of one source from a random start, cut after ``words`` words."""
    at = rng.randrange(len(src))
    parts, count = [], 0
    while count < words:
        u = src[at % len(src)]
        at += 1
        w = len(u.split())
        if count + w > words:   # cut this unit after the word that completes the count
            m = list(_WORD_END.finditer(u))[words - count - 1]
            u = u[:m.end()]
            w = words - count
        parts.append(u)
        count += w
    return parts


def generate(out: str, mb: float, seed: int = 13, gz: bool = False) -> int:
    """Write about ``mb`` MB of JSONL to ``out``; returns the number of records."""
    rng = random.Random(seed)
    src = units()
    qs = planted()
    names = [s for s, _, _ in SOURCES]
    weights = [w for _, w, _ in SOURCES]
    seps = {s: sep for s, _, sep in SOURCES}
    target = int(mb * 1e6)
    written = 0
    n = 0
    opener = gzip.open if gz else open
    with opener(out, "wt", encoding="utf-8") as f:
        while written < target:
            name = rng.choices(names, weights)[0]
            parts = _record(rng, src[name], seps[name], rng.randint(*WORDS))
            n += 1
            if n % 5000 == 0:
                parts.insert(len(parts) // 2, qs[(n // 5000) % len(qs)])
            line = json.dumps({"id": n, "source": name, "text": seps[name].join(parts)}) + "\n"
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
