"""Reference scanner for bench_contamination.py: a careful pure-Python n-gram scanner.

Not evalsieve's rule engine: the kind of scanner one writes by hand when speed matters in
pure Python, to measure against. It reads 1 MB batches of whole lines as bytes, lower-cases
and deletes ASCII punctuation with one ``bytes.translate``, splits the batch into words once
(a sentinel word between lines, so no window spans two records), and probes every N-th word
(each window of N words holds exactly one probe): a probe word found in the eval n-grams is
confirmed by looking up each window through it in the set of eval n-grams (tuples of words).
Raw JSON lines are scanned as text (keys and escapes included), as grep-style scanners do.

    python3 benchmarks/ref_scan.py EVAL.jsonl EVAL_FIELD TRAIN.jsonl N

Prints one JSON line: bytes, seconds, records, windows confirmed.
"""

from __future__ import annotations

import json
import sys
import time
import unicodedata

PUNCT = bytes(c for c in range(128) if unicodedata.category(chr(c)).startswith("P"))
LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))
SENTINEL = b"\x00"


def words_of(text: str) -> list[bytes]:
    t = unicodedata.normalize("NFKC", text).lower()
    t = "".join(c for c in t if not unicodedata.category(c).startswith("P"))
    return t.encode("utf-8").split()


def main() -> int:
    ev_path, ev_field, train_path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    grams: set[tuple] = set()
    offsets: dict[bytes, list[int]] = {}
    with open(ev_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                ws = words_of(str(json.loads(line).get(ev_field, "")))
                for i in range(len(ws) - n + 1):
                    grams.add(tuple(ws[i:i + n]))
    for g in grams:
        for k, w in enumerate(g):
            offsets.setdefault(w, set()).add(k)
    offsets = {w: sorted(ks) for w, ks in offsets.items()}
    t0 = time.perf_counter()
    total = records = found = 0
    carry = b""
    with open(train_path, "rb") as f:
        while True:
            raw = f.read(1 << 20)
            total += len(raw)
            batch = carry + raw
            cut = batch.rfind(b"\n") + 1 if raw else len(batch)
            carry, batch = batch[cut:], batch[:cut]
            if batch:
                records += batch.count(b"\n") + (0 if batch.endswith(b"\n") else 1)
                words = batch.translate(LOWER, PUNCT).replace(b"\n", b" \x00 ").split()
                get = offsets.get
                for p in range(n - 1, len(words), n):
                    ks = get(words[p])
                    if ks is None:
                        continue
                    for k in ks:
                        s = p - k
                        if s >= 0 and tuple(words[s:s + n]) in grams:
                            found += 1
            if not raw:
                break
    secs = time.perf_counter() - t0
    print(json.dumps({"bytes": total, "seconds": secs, "records": records, "found": found}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
