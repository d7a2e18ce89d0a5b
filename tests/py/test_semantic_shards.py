"""The semantic rung's scan in shards (evalsieve.semantic_shards) against one scan of the
whole corpus: the same heaps, windows, window counts and request, with ties everywhere (a
small vocabulary, few candidates: which of equal windows a heap keeps depends on the
shards' window numbers moving on correctly) and shards of every size, empty ones too."""

import pickle
import random

import pytest

from evalsieve.semantic import SemanticConfig, SemanticScan
from evalsieve.semantic_shards import merge_shard, shard_state

ROWS = [["red apple pie and twelve eggs"], ["blue banana split 12"], ["green pear tart 7 red"]]
BG = ["some other text here"] * 3


def _state(scan):
    req = scan.request()
    windows = {
        s: (w.record, w.start, w.end, w.context_start, w.context, w.file)
        for s, w in scan._kept.items()
    }
    heaps = [sorted(h) for h in scan._heaps]
    return req, scan.window_df, heaps, windows, scan.windows_seen, scan.windows_with_key


def _corpus(seed: int, files: int = 3, records: int = 60):
    rng = random.Random(seed)
    words = "red apple pie blue banana split twelve eggs 12 7 green pear tart x y z".split()
    out = []
    for k in range(files):
        recs = [
            (r + 1, [" ".join(rng.choices(words, k=rng.randint(0, 40)))]) for r in range(records)
        ]
        out.append((f"f{k}.jsonl", recs))
    return out


def _whole(config, files):
    scan = SemanticScan(ROWS, config, BG)
    for k, (name, recs) in enumerate(files):
        scan.set_file(k, name)
        scan.scan(recs)
    return scan


def _sharded(config, files, cuts_of):
    """Each file cut at ``cuts_of(file's records)``; every piece scanned by a fresh copy of
    the unscanned scan (as a task unpickles it), merged in corpus order."""
    merged = SemanticScan(ROWS, config, BG)
    blank = pickle.dumps(merged)
    for k, (name, recs) in enumerate(files):
        before = 0
        cuts = [0, *cuts_of(len(recs)), len(recs)]
        for a, b in zip(cuts, cuts[1:]):
            part = pickle.loads(blank)
            part.set_file(k, name)
            part.scan([(i - a, segs) for i, segs in recs[a:b]])  # numbered from the piece
            merge_shard(merged, shard_state(part), before)
            before += b - a
    return merged


@pytest.mark.parametrize("seed,k,w", [(1, 1, 4), (2, 3, 6), (3, 8, 5), (4, 2, 40)])
def test_shards_merged_are_one_scan(seed, k, w):
    config = SemanticConfig(candidates=k, window_words=w)
    files = _corpus(seed)
    whole = _state(_whole(config, files))
    rng = random.Random(seed)
    for cuts_of in (
        lambda n: [],  # a file a shard
        lambda n: [n // 2],
        lambda n: sorted(rng.sample(range(n + 1), 5)),  # empty shards among them
        lambda n: list(range(1, n)),  # a record a shard
    ):
        assert _state(_sharded(config, files, cuts_of)) == whole
    assert whole[4] > 100 and any(len(h) == k for h in whole[2])


def test_a_shard_of_other_probes_is_refused():
    scan = SemanticScan(ROWS, SemanticConfig(), BG)
    other = SemanticScan(ROWS[:2], SemanticConfig(), BG)
    with pytest.raises(ValueError, match="a shard of 2 probes, not 3"):
        merge_shard(scan, shard_state(other), 0)
