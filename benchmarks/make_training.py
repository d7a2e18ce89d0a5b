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

``--script hangul|arabic|devanagari`` writes a corpus of the same shape in that script
instead: half its records are real text (the system's gettext translations into Korean,
Arabic or Hindi, /usr/share/locale/<lang>/LC_MESSAGES/*.mo, one message per unit, when
there), half synthetic text (words of random Hangul syllables; of Arabic letters; of
Devanagari syllables, a consonant with a vowel sign or, in 15 % of them, a conjunct with
the virama, and in 3 % a nukta on one of the seven letters Hindi puts it on), the same GSM8K test questions planted, and written as raw
UTF-8 (``ensure_ascii=False``, as most multilingual datasets are).

    python3 benchmarks/make_training.py OUT.jsonl --mb 200 [--gzip] [--script hangul]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(
    os.environ.get("EVALSIEVE_SHARED")
    or next(
        (
            p
            for p in (
                os.path.join(HERE, "..", "..", "shared"),
                os.path.join(HERE, "..", "..", "..", "shared"),
            )
            if os.path.isdir(p)
        ),
        os.path.join(HERE, "..", "..", "shared"),
    ),
    "data",
)  # EVALSIEVE_SHARED, or beside the checkout, as in bench_contamination.py
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
        if count + w > words:  # cut this unit after the word that completes the count
            m = list(_WORD_END.finditer(u))[words - count - 1]
            u = u[: m.end()]
            w = words - count
        parts.append(u)
        count += w
    return parts


SCRIPTS = {"hangul": "ko", "arabic": "ar", "devanagari": "hi"}


def real_units(lang: str) -> list[str]:
    """The gettext messages translated into ``lang`` on this system (sorted, deterministic;
    empty when none are installed)."""
    import gettext
    import glob

    out = []
    for path in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
        try:
            with open(path, "rb") as f:
                cat = gettext.GNUTranslations(f)._catalog
        except (OSError, ValueError):
            continue
        out += [
            " ".join(v.split())
            for k, v in sorted(cat.items(), key=lambda kv: str(kv[0]))
            if k and isinstance(v, str) and len(v.split()) >= 2
        ]
    return out


def _synthetic_word(rng: random.Random, script: str) -> str:
    if script == "hangul":
        return "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(1, 4)))
    if script == "arabic":
        return "".join(chr(rng.randrange(0x0628, 0x064B)) for _ in range(rng.randint(2, 7)))
    out = []
    for _ in range(rng.randint(1, 4)):  # devanagari
        c = chr(rng.randrange(0x0915, 0x093A))
        if rng.random() < 0.03:  # a nukta, on the letters Hindi
            c = rng.choice("\u0915\u0916\u0917\u091c\u0921\u0922\u092b") + "\u093c"  # puts it on
        r = rng.random()
        if r < 0.15:
            c += "\u094d" + chr(rng.randrange(0x0915, 0x093A))  # a conjunct (virama)
        elif r < 0.75:
            c += chr(rng.randrange(0x093E, 0x094D))  # a vowel sign
        out.append(c)
    return "".join(out)


def synthetic_units(rng: random.Random, script: str, count: int = 20000) -> list[str]:
    """Sentences of 5-15 synthetic words, ended by the script's full stop."""
    stop = {"hangul": ".", "arabic": ".", "devanagari": "\u0964"}[script]
    return [
        " ".join(_synthetic_word(rng, script) for _ in range(rng.randint(5, 15))) + stop
        for _ in range(count)
    ]


def generate(out: str, mb: float, seed: int = 13, gz: bool = False, script: str = "latin") -> int:
    """Write about ``mb`` MB of JSONL to ``out``; returns the number of records."""
    rng = random.Random(seed)
    qs = planted()
    if script == "latin":
        src = units()
        names = [s for s, _, _ in SOURCES]
        weights = [w for _, w, _ in SOURCES]
        seps = {s: sep for s, _, sep in SOURCES}
    else:
        real = real_units(SCRIPTS[script])
        src = {"synthetic": synthetic_units(rng, script), "real": real}
        names = ["synthetic", "real"] if real else ["synthetic"]
        weights = [0.5, 0.5] if real else [1.0]
        seps = {"synthetic": " ", "real": "\n"}
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
            line = (
                json.dumps(
                    {"id": n, "source": name, "text": seps[name].join(parts)},
                    ensure_ascii=script == "latin",
                )
                + "\n"
            )
            f.write(line)
            written += len(line.encode("utf-8"))
    return n


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--script", choices=("latin", *SCRIPTS), default="latin")
    a = ap.parse_args()
    print(generate(a.out, a.mb, a.seed, a.gzip, a.script))
