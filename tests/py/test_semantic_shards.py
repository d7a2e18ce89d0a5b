"""The semantic rung's scan in shards (evalsieve.semantic_shards) against one scan of the
whole corpus: the same heaps, windows, window counts and request, with ties everywhere (a
small vocabulary, few candidates: which of equal windows a heap keeps depends on the
shards' window numbers moving on correctly) and shards of every size, empty ones too."""

import pickle
import random

import pytest
from hostile_common import scan_state

from evalsieve.semantic import SemanticConfig, SemanticScan
from evalsieve.semantic_shards import merge_shard, shard_state

ROWS = [["red apple pie and twelve eggs"], ["blue banana split 12"], ["green pear tart 7 red"]]
BG = ["some other text here"] * 3


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
    whole = scan_state(_whole(config, files))
    rng = random.Random(seed)
    for cuts_of in (
        lambda n: [],  # a file a shard
        lambda n: [n // 2],
        lambda n: sorted(rng.sample(range(n + 1), 5)),  # empty shards among them
        lambda n: list(range(1, n)),  # a record a shard
    ):
        assert scan_state(_sharded(config, files, cuts_of)) == whole
    assert whole[4] > 100 and any(len(h) == k for h in whole[2])


def test_a_shard_of_other_probes_is_refused():
    scan = SemanticScan(ROWS, SemanticConfig(), BG)
    other = SemanticScan(ROWS[:2], SemanticConfig(), BG)
    with pytest.raises(ValueError, match="a shard of 2 probes, not 3"):
        merge_shard(scan, shard_state(other), 0)


def test_shards_pack_small_files_and_cut_big_ones(tmp_path, monkeypatch):
    """semantic_pass.shard_tasks: about corpus / workers bytes a shard (at least
    SHARD_MIN_BYTES); consecutive whole files packed, a big JSONL file cut at line ends, a
    gzip file never cut; a small corpus, or one worker, is not sharded."""
    from evalsieve import semantic_pass

    monkeypatch.setattr(semantic_pass, "SHARD_MIN_BYTES", 1000)
    line = '{"text": "x"}\n'  # 14 bytes
    files = []
    for i, (lines, gz) in enumerate([(20, False), (30, False), (350, False), (15, True)]):
        p = tmp_path / f"f{i}.jsonl"
        p.write_text(line * lines)
        files.append({"path": str(p), "name": p.name, "fmt": "jsonl", "fields": ["text"]})
        files[-1].update(gzip=gz, size=p.stat().st_size)
    files += [dict(files[3], name="g.jsonl.gz", size=9000)]  # big, but gzip: whole
    shards = [[(t.file, t.start, t.end) for t in g] for g in semantic_pass.shard_tasks(files, 4)]
    # 14,810 bytes, 4 workers: shards of 3,702 bytes or more; f2 (4,900) one range, g alone
    assert shards == [[(0, 0, -1), (1, 0, -1)], [(2, 0, -1)], [(3, 0, -1)], [(4, 0, -1)]]
    shards = [[(t.file, t.start, t.end) for t in g] for g in semantic_pass.shard_tasks(files, 2)]
    assert shards == [[(0, 0, -1), (1, 0, -1), (2, 0, -1), (3, 0, -1)], [(4, 0, -1)]]
    files[2]["size"] = (tmp_path / "f2.jsonl").stat().st_size
    monkeypatch.setattr(semantic_pass, "SHARD_MIN_BYTES", 500)
    big = semantic_pass.shard_tasks(files[2:3], 4)  # 4,900 bytes: 4 ranges of 1,225 or more
    assert [(t.start, t.end) for (t,) in big] == [(0, 1232), (1232, 2464), (2464, 3682), (3682, -1)]
    assert all(t.start % 14 == 0 for (t,) in big)  # at line ends
    assert semantic_pass.shard_tasks(files[:2], 4) == []  # 700 bytes: one process
    assert semantic_pass.shard_tasks(files, 1) == []


def test_passes_on_two_threads_restore_the_settings_after_the_last(monkeypatch):
    """The pass lowers the GIL's switch interval and pauses the collector for the process;
    two passes that overlap (library calls on two threads) restore both after the last."""
    import gc
    import sys

    from evalsieve import semantic_pass

    interval = sys.getswitchinterval()
    a, b = semantic_pass._threads_that_hand_over(), semantic_pass._threads_that_hand_over()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # the first ends while the second runs
    assert sys.getswitchinterval() == semantic_pass.SWITCH_INTERVAL and not gc.isenabled()
    b.__exit__(None, None, None)
    assert sys.getswitchinterval() == interval and gc.isenabled()
