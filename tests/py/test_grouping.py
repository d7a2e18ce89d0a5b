import math
import random
from array import array

import pytest

from evalsieve.grouping import connected_components, group_paraphrases
from evalsieve.paraphrase import DIM, ParaphraseConfig, ParaphraseJob
from evalsieve.stamps import InputFile

# The worked example's shape: 0-1 0.95, 1-2 0.93, 0-2 0.85 (chained through row 1),
# 3-4 0.97 (capital of France), row 5 unrelated.
COS = {(0, 1): 0.95, (1, 2): 0.93, (0, 2): 0.85, (3, 4): 0.97}


def cos(i, j):
    return COS.get((min(i, j), max(i, j)), 0.1)


def cands(floor):
    return [(i, j, c) for (i, j), c in COS.items() if c >= floor]


def test_components_are_order_independent():
    rng = random.Random(0)
    edges = [(rng.randrange(50), rng.randrange(50)) for _ in range(40)]
    base = connected_components(50, edges)
    for _ in range(10):
        rng.shuffle(edges)
        assert connected_components(50, [(j, i) for i, j in edges]) == base
    assert all(len(c) >= 2 for c in base)


def test_chained_group_and_figures_hand_computed():
    g = group_paraphrases(6, cands(0.5), 0.90, cos, 0.5)
    assert [x.members for x in g.groups] == [[0, 1, 2], [3, 4]]
    first = g.groups[0]
    assert first.lowest == 0.85 and first.lowest_pair == (0, 2) and first.chained
    # mean cosine to the others: row 1 (0.95 + 0.93) beats row 0 (0.95 + 0.85)
    assert first.representative == 1
    assert not g.groups[1].chained and g.groups[1].lowest == 0.97
    assert g.rows_in_groups == 5 and g.effective_rows == 6 - 5 + 2 == 3
    assert round(100 * g.duplicate_share, 1) == 83.3
    assert [(i, j) for i, j, _ in g.pairs] == [(3, 4), (0, 1), (1, 2)]   # cosine descending


def test_threshold_moves_groups():
    g = group_paraphrases(6, cands(0.5), 0.80, cos, 0.5)
    assert not g.groups[0].chained and len(g.pairs) == 4
    g = group_paraphrases(6, cands(0.5), 0.94, cos, 0.5)
    assert [x.members for x in g.groups] == [[0, 1], [3, 4]]   # by size, then first row
    assert g.effective_rows == 4


def test_lowest_pair_below_floor_uses_exact_cosine():
    # the floor keeps only pairs >= 0.9: the 0-2 pair (0.85) is not a candidate
    g = group_paraphrases(6, cands(0.9), 0.90, cos, 0.9)
    assert g.groups[0].lowest == 0.85 and g.groups[0].chained
    with pytest.raises(ValueError):
        group_paraphrases(6, cands(0.9), 0.85, cos, 0.9)


def unit(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def test_job_end_to_end_with_synthetic_vectors():
    rng = random.Random(2)
    base = [unit([rng.gauss(0, 1) for _ in range(DIM)]) for _ in range(3)]
    noisy = lambda v, s: unit([x + rng.gauss(0, s) for x in v])
    vecs = [base[0], noisy(base[0], 0.01), base[1], noisy(base[1], 0.015), base[2]]  # cos ~0.98, ~0.96
    text = "".join('{"id": "r%d", "q": "row %d"}\n' % (k, k) for k in range(5)) + '{"id": "e", "q": ""}\n'
    job = ParaphraseJob(ParaphraseConfig("q", "id", 0.9), "e.jsonl", "jsonl")
    job.feed_eval(text)
    e = job.end_eval()
    assert e["rows"] == 5 and e["rows_empty"] == 1
    dotp = lambda a, b: sum(x * y for x, y in zip(a, b))
    pairs = [(i, j, dotp(vecs[i], vecs[j])) for i in range(5) for j in range(i + 1, 5)
             if dotp(vecs[i], vecs[j]) >= 0.75]
    nn = [max(dotp(vecs[i], vecs[j]) for j in range(5) if j != i) for i in range(5)]
    nn_idx = [max((j for j in range(5) if j != i), key=lambda j: dotp(vecs[i], vecs[j])) for i in range(5)]
    emb = array("f", [x for v in vecs for x in v])
    job.set_similarity(pairs, nn, nn_idx, 0, emb.tobytes(), {"model_sha256": "ab" * 32})
    f = job.group()
    assert f["groups"] == 2 and f["rows_in_groups"] == 4 and f["effective_rows"] == 3
    assert f["duplicate_share"] == 80.0
    assert f["closest_pair"]["row_a"] in (1, 3)
    assert abs(job.cosine(0, 1) - dotp(vecs[0], vecs[1])) < 1e-5
    job.finish(InputFile("eval", "e.jsonl", "0" * 64, len(text)), "2026-01-01T00:00:00+00:00")
    pairs_csv = job.export("paraphrase-pairs.csv")[1].split("\r\n")
    assert pairs_csv[0].startswith("# run_stamp") and '"model_sha256":"abab' in pairs_csv[0]
    assert pairs_csv[1] == "group,row_a,row_b,label_a,label_b,cosine,text_a,text_b"
    assert len([l for l in pairs_csv[2:] if l]) == 2
    groups_csv = job.export("paraphrase-groups.csv")[1].split("\r\n")
    assert groups_csv[2].split(",")[:3] == ["1", "2", "1 2"]
    # slider: a higher threshold than both pairs empties the groups without re-embedding
    f = job.group(0.9999)
    assert f["groups"] == 0 and f["effective_rows"] == 5
