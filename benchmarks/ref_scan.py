"""Reference scanner for bench_contamination.py: a careful pure-Python n-gram scanner.

Not evalsieve's rule engine: the kind of scanner one writes by hand when speed matters in
pure Python, to measure against. It reads 1 MB batches of whole JSONL lines as bytes.

* Fast path, for lines that are pure ASCII with no ``\\u``, ``\\\\`` or ``\\b`` escape (their
  JSON string bytes are the text): the batch's escaped quotes are deleted and ``\\n \\r \\t
  \\f`` become spaces, one ``bytes.translate`` lower-cases it, deletes ASCII punctuation and
  turns the unescaped quotes (the edges of JSON strings) into spaces, and one ``split`` makes
  the words of the whole batch (a sentinel word between lines, so no window spans two
  records). Keys and other fields are scanned too; they can only add windows, and a line with
  a confirmed window is re-read by the careful path, which decides.
* Careful path, for the other lines: ``json.loads``, the field, NFKC, ``str.lower``, ASCII
  punctuation deleted with ``bytes.translate`` and each distinct non-ASCII punctuation
  character with ``str.replace``, split on white space.
* Probes: the three words at every (N-2)-th word (each window of N words holds exactly one
  such triple) are looked up, in one C-level pass (``map``, ``itertools.compress``), in a
  dict of the eval n-grams' word triples and their offsets; a hit is confirmed by looking up
  the window through it, as a tuple of words, in the set of eval n-grams.

Counts the distinct records holding each eval n-gram and applies the boilerplate rule (an
n-gram in more than max(10, ceil(0.001 x records)) records is dropped; GPT-3 App. C as
evalsieve states it), so its contaminated eval rows can be compared with the CLI's.

    python3 benchmarks/ref_scan.py EVAL.jsonl EVAL_FIELD TRAIN.jsonl TRAIN_FIELD N

Prints one JSON line: bytes, seconds (wall, the scan), cpu_seconds, records,
records_matched, contaminated (1-based eval rows with a matched n-gram).
"""

from __future__ import annotations

import json
import math
import re
import sys
import time
import unicodedata
from itertools import compress

PUNCT = bytes(c for c in range(128) if unicodedata.category(chr(c)).startswith("P"))
LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))
# the fast path: '"' (an unescaped quote is the edge of a JSON string) becomes a space
QUOTE_SPACE = bytes(0x20 if c == 0x22 else c for c in LOWER)
PUNCT_NO_QUOTE = PUNCT.replace(b'"', b"")
NON_ASCII = re.compile("[^\x00-\x7f]")
SENTINEL = b"\x00"


def words_of(text: str) -> list[bytes]:
    """The rule's words (NFKC, lower case, Unicode P* deleted, split on white space)."""
    t = unicodedata.normalize("NFKC", text).lower()
    b = t.encode("utf-8", "surrogatepass").translate(None, PUNCT)
    if not b.isascii():
        t = b.decode("utf-8", "surrogatepass")
        for c in set(NON_ASCII.findall(t)):
            if unicodedata.category(c).startswith("P"):
                t = t.replace(c, "")
        b = t.encode("utf-8", "surrogatepass")
    return b.split()


def careful(line: bytes, field: str) -> list[bytes]:
    v = json.loads(line).get(field)
    return words_of(v) if isinstance(v, str) else []


def main() -> int:
    ev_path, ev_field, train_path, field, n = sys.argv[1:6]
    n = int(n)
    if n < 3:
        raise SystemExit("ref_scan.py probes word triples: N must be 3 or more")
    grams: dict[tuple, int] = {}
    rows_of: list[list[int]] = []
    row = 0
    with open(ev_path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            row += 1
            ws = careful(line, ev_field)
            for i in range(len(ws) - n + 1):
                gid = grams.setdefault(tuple(ws[i : i + n]), len(grams))
                if gid == len(rows_of):
                    rows_of.append([])
                if row not in rows_of[gid]:
                    rows_of[gid].append(row)
    offsets: dict[tuple, set] = {}  # word triple -> its offsets in the eval n-grams
    for g in grams:
        for k in range(n - 2):
            offsets.setdefault(g[k : k + 3], set()).add(k)
    offsets = {w: sorted(ks) for w, ks in offsets.items()}
    counts = [0] * len(grams)
    t0, c0 = time.perf_counter(), time.process_time()
    total = records = matched = 0
    carry = b""

    def probe(words: list[bytes]) -> list[int]:
        """Start offsets of the windows of ``words`` that are eval n-grams."""
        # the triples at every (n-2)-th word, looked up in one C-level pass (map, compress)
        firsts = range(n - 3, len(words) - 2, n - 2)
        triples = zip(words[n - 3 :: n - 2], words[n - 2 :: n - 2], words[n - 1 :: n - 2])
        out = []
        hits = list(compress(firsts, map(offsets.__contains__, triples)))
        for p in hits:
            for k in offsets[(words[p], words[p + 1], words[p + 2])]:
                s = p - k
                if s >= 0 and tuple(words[s : s + n]) in grams:
                    out.append(s)
        return out

    def count(found: set) -> None:
        nonlocal matched
        if found:
            matched += 1
            for gid in found:
                counts[gid] += 1

    with open(train_path, "rb") as f:
        while True:
            raw = f.read(1 << 20)
            total += len(raw)
            batch = carry + raw
            cut = batch.rfind(b"\n") + 1 if raw else len(batch)
            carry, batch = batch[cut:], batch[:cut]
            if batch:
                fast, slow = [], []
                for line in batch.split(b"\n"):
                    if not line.strip():
                        continue
                    records += 1
                    if (
                        line.isascii()
                        and b"\\u" not in line
                        and b"\\\\" not in line
                        and b"\\b" not in line
                    ):
                        fast.append(line)
                    else:
                        slow.append(line)
                # careful lines: their own words, one at a time
                for line in slow:
                    ws = careful(line, field)
                    count({grams[tuple(ws[s : s + n])] for s in probe(ws)})
                # fast lines: one translate and one split for all of them
                text = (
                    b" \x00 ".join(fast)
                    .replace(b'\\"', b"")
                    .replace(b"\\n", b" ")
                    .replace(b"\\r", b" ")
                    .replace(b"\\t", b" ")
                    .replace(b"\\f", b" ")
                )
                words = text.translate(QUOTE_SPACE, PUNCT_NO_QUOTE).split()
                hit_lines = sorted({words[:s].count(SENTINEL) for s in probe(words)})
                for i in hit_lines:  # a confirmed window: the careful path decides
                    ws = careful(fast[i], field)
                    count({grams[tuple(ws[s : s + n])] for s in probe(ws)})
            if not raw:
                break
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    cutoff = max(10, math.ceil(0.001 * records))
    dirty = sorted({r for gid, c in enumerate(counts) if 0 < c <= cutoff for r in rows_of[gid]})
    print(
        json.dumps(
            {
                "bytes": total,
                "seconds": secs,
                "cpu_seconds": cpu,
                "records": records,
                "records_matched": matched,
                "contaminated": dirty,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
