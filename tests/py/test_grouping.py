import math
import random
from array import array

import pytest

import evalsieve.para_exports as px
from evalsieve.grouping import PairGraph, connected_components, group_paraphrases
from evalsieve.paraphrase import DIM, ParaphraseConfig, ParaphraseJob
from evalsieve.stamps import InputFile
from hostile_common import without_fingerprint


def grouped(n, candidates, threshold, cosine, floor):
    """Group through the tile graph, with ``cosine`` for the pairs that are not candidates."""
    return group_paraphrases(PairGraph(n, candidates, floor, cosine=cosine), threshold)


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
    g = grouped(6, cands(0.5), 0.90, cos, 0.5)
    assert [x.members for x in g.groups] == [[0, 1, 2], [3, 4]]
    first = g.groups[0]
    assert first.lowest == 0.85 and first.lowest_pair == (0, 2) and first.chained
    # mean cosine to the others: row 1 (0.95 + 0.93) beats row 0 (0.95 + 0.85)
    assert first.representative == 1
    assert not g.groups[1].chained and g.groups[1].lowest == 0.97
    assert g.rows_in_groups == 5 and g.effective_rows == 6 - 5 + 2 == 3
    assert round(100 * g.duplicate_share, 1) == 83.3
    assert [(i, j) for i, j, _ in g.pairs()] == [(3, 4), (0, 1), (1, 2)]  # cosine descending


def test_threshold_moves_groups():
    g = grouped(6, cands(0.5), 0.80, cos, 0.5)
    assert not g.groups[0].chained and g.pairs_total == 4
    g = grouped(6, cands(0.5), 0.94, cos, 0.5)
    assert [x.members for x in g.groups] == [[0, 1], [3, 4]]  # by size, then first row
    assert g.effective_rows == 4


def test_lowest_pair_below_floor_uses_exact_cosine():
    # the floor keeps only pairs >= 0.9: the 0-2 pair (0.85) is not a candidate
    g = grouped(6, cands(0.9), 0.90, cos, 0.9)
    assert g.groups[0].lowest == 0.85 and g.groups[0].chained
    with pytest.raises(ValueError):
        grouped(6, cands(0.9), 0.85, cos, 0.9)


def unit(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def test_job_end_to_end_with_synthetic_vectors():
    rng = random.Random(2)
    base = [unit([rng.gauss(0, 1) for _ in range(DIM)]) for _ in range(3)]
    noisy = lambda v, s: unit([x + rng.gauss(0, s) for x in v])
    vecs = [
        base[0],
        noisy(base[0], 0.01),
        base[1],
        noisy(base[1], 0.015),
        base[2],
    ]  # cos ~0.98, ~0.96
    text = (
        "".join('{"id": "r%d", "q": "row %d"}\n' % (k, k) for k in range(5))
        + '{"id": "e", "q": ""}\n'
    )
    job = ParaphraseJob(ParaphraseConfig("q", "id", 0.9), "e.jsonl", "jsonl")
    job.feed_eval(text)
    e = job.end_eval()
    assert e["rows"] == 5 and e["rows_empty"] == 1
    dotp = lambda a, b: sum(x * y for x, y in zip(a, b))
    pairs = [
        (i, j, dotp(vecs[i], vecs[j]))
        for i in range(5)
        for j in range(i + 1, 5)
        if dotp(vecs[i], vecs[j]) >= 0.75
    ]
    nn = [max(dotp(vecs[i], vecs[j]) for j in range(5) if j != i) for i in range(5)]
    nn_idx = [
        max((j for j in range(5) if j != i), key=lambda j: dotp(vecs[i], vecs[j])) for i in range(5)
    ]
    emb = array("f", [x for v in vecs for x in v])
    job.set_similarity(pairs, nn, nn_idx, 0, emb.tobytes(), {"model_sha256": "ab" * 32})
    f = job.group(0.9)
    assert f["groups"] == 2 and f["rows_in_groups"] == 4 and f["effective_rows"] == 3
    assert f["duplicate_share"] == 80.0
    assert f["closest_pair"]["row_a"] in (1, 3)
    assert abs(job.cosine(0, 1) - dotp(vecs[0], vecs[1])) < 1e-5
    stamp = job.stamp(
        0.9, InputFile("eval", "e.jsonl", "0" * 64, len(text)), "2026-01-01T00:00:00+00:00"
    )
    res = job.result(stamp)
    pairs_csv = px.export(res, "paraphrase-pairs.csv")[1].split("\r\n")
    assert pairs_csv[0] == "group,row_a,row_b,label_a,label_b,cosine,text_a,text_b,run_fingerprint"
    assert len([l for l in pairs_csv[1:] if l]) == 2
    assert all(l.endswith("," + stamp.to_dict()["fingerprint"]) for l in pairs_csv[1:] if l)
    assert '"model_sha256": "abab' in px.export(res, "run-stamp.json")[1]
    groups_csv = px.export(res, "paraphrase-groups.csv")[1].split("\r\n")
    assert groups_csv[1].split(",")[:3] == ["1", "2", "1 2"]
    # slider: a higher threshold than both pairs empties the groups without re-embedding
    f = job.group(0.9999)
    assert f["groups"] == 0 and f["effective_rows"] == 5


# -- the bounded grouping against the quadratic reference ---------------------------------------

import functools
import json
import os
import sys

from evalsieve import grouping
from evalsieve.errors import EvalsieveError
import reference_grouping

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")
sys.path.insert(0, GOLDEN)
import make_paraphrase_golden as golden  # noqa: E402


def f32(x):
    return array("f", [x])[0]


def tile_scan(vecs, floor):
    """What the encoder side hands over: pairs ≥ floor with float32 cosines, in (i, j) order."""
    n = len(vecs)
    return [
        (i, j, f32(sum(a * b for a, b in zip(vecs[i], vecs[j]))))
        for i in range(n)
        for j in range(i + 1, n)
        if f32(sum(a * b for a, b in zip(vecs[i], vecs[j]))) >= floor
    ]


def flat(vecs):
    out = array("f")
    for v in vecs:
        out.extend(v)
    return out


def as_tuples(g):
    return (
        [(x.members, x.lowest, x.lowest_pair, x.chained, x.representative) for x in g.groups],
        list(g.pairs()),
        g.rows_in_groups,
        g.effective_rows,
        g.duplicate_share,
    )


def random_rows(seed, dim=24):
    """Unit vectors in ``dim`` dimensions: blobs, a chain (a random walk) and loners."""
    rng = random.Random(seed)
    rows = []
    for size, spread in ((60, 0.35), (45, 0.6), (7, 0.2), (3, 0.1), (2, 0.05)):
        c = unit([rng.gauss(0, 1) for _ in range(dim)])
        rows += [
            unit([x + spread * rng.gauss(0, 1) / math.sqrt(dim) for x in c]) for _ in range(size)
        ]
    v = unit([rng.gauss(0, 1) for _ in range(dim)])
    for _ in range(50):
        rows.append(v)
        v = unit([x + 0.35 * rng.gauss(0, 1) / math.sqrt(dim) for x in v])
    rows += [unit([rng.gauss(0, 1) for _ in range(dim)]) for _ in range(20)]
    rng.shuffle(rows)
    return [array("f", r) for r in rows]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("small", [grouping.SMALL_GROUP, 2])
def test_bounded_grouping_equals_the_quadratic_reference_on_random_vectors(
    seed, small, monkeypatch
):
    """Groups, chained flags, lowest pairs (value and pair), representatives and edges are the
    reference's, bit for bit, on the plain path and on the bounded one (small=2 sends every
    group of three or more through the S-vector and angle-bound path)."""
    monkeypatch.setattr(grouping, "SMALL_GROUP", small)
    vecs = random_rows(seed)
    dim = len(vecs[0])
    floor = 0.5
    cands = tile_scan(vecs, floor)
    emb = flat(vecs)
    exact = lambda i, j: sum(
        map(lambda a, b: a * b, emb[i * dim : (i + 1) * dim], emb[j * dim : (j + 1) * dim])
    )
    graph = PairGraph(len(vecs), cands, floor, emb, dim)
    sizes = set()
    for t in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        got = group_paraphrases(graph, t)
        want = reference_grouping.reference_grouping(len(vecs), cands, t, exact, floor)
        assert as_tuples(got) == want, t
        sizes |= {len(x.members) for x in got.groups}
        assert all(x.chained == (x.lowest < t) for x in got.groups)
    assert max(sizes) > 40 and 2 in sizes  # large groups and pairs were both exercised


def test_chained_triple_hand_computed_with_vectors():
    """A = (1, 0, 0), B = (0.8, 0.6, 0), C = (0.28, 0.96, 0): A·B = 0.8, B·C = 0.224 + 0.576
    = 0.8, A·C = 0.28. At threshold 0.75 (also the floor) A–B and B–C are edges, A–C is not
    even a candidate: one chained group {A, B, C}, lowest pair A–C at 0.28 (the exact dot),
    representative B (0.8 + 0.8 beats 0.8 + 0.28)."""
    vecs = [array("f", v) for v in ((1, 0, 0), (0.8, 0.6, 0), (0.28, 0.96, 0), (0, 0, 1))]
    cands = tile_scan(vecs, 0.75)
    assert [(i, j) for i, j, _ in cands] == [(0, 1), (1, 2)]
    for small in (32, 2):
        grouping.SMALL_GROUP, old = small, grouping.SMALL_GROUP
        try:
            g = group_paraphrases(PairGraph(4, cands, 0.75, flat(vecs), 3), 0.75)
        finally:
            grouping.SMALL_GROUP = old
        (grp,) = g.groups
        assert grp.members == [0, 1, 2] and grp.chained and grp.edge_count == 2
        assert grp.lowest == pytest.approx(0.28, abs=1e-6) and grp.lowest_pair == (0, 2)
        assert grp.representative == 1
        assert g.effective_rows == 4 - 3 + 1 and g.pairs_total == 2
    # at 0.81 no pair is an edge
    assert group_paraphrases(PairGraph(4, cands, 0.75, flat(vecs), 3), 0.81).groups == []


def test_group_is_not_chained_when_a_pair_missing_from_the_scan_is_above_the_threshold():
    """The rule is the exact one: a member pair that the tile scan did not report (rounding at
    the floor) counts with its exact cosine; when that is ≥ threshold the group is a clique."""
    vecs = [array("f", v) for v in ((1, 0), (0.8, 0.6), (0.96, 0.28))]  # A·C = 0.96
    cands = [(0, 1, 0.8), (1, 2, 0.936)]  # (0, 2) left out
    emb = flat(vecs)
    g = group_paraphrases(PairGraph(3, cands, 0.75, emb, 2), 0.8)
    exact = lambda i, j: sum(a * b for a, b in zip(vecs[i], vecs[j]))
    want = reference_grouping.reference_grouping(3, cands, 0.8, exact, 0.75)
    assert as_tuples(g) == want
    assert not g.groups[0].chained and g.groups[0].lowest == pytest.approx(0.8, abs=1e-6)


def test_pair_graph_refuses_bad_candidates():
    with pytest.raises(ValueError, match="twice"):
        PairGraph(3, [(0, 1, 0.9), (1, 0, 0.8)], 0.75, cosine=cos)
    with pytest.raises(ValueError, match="distinct"):
        PairGraph(3, [(1, 1, 0.9)], 0.75, cosine=cos)
    with pytest.raises(ValueError, match="distinct"):
        PairGraph(3, [(0, 3, 0.9)], 0.75, cosine=cos)
    job = ParaphraseJob(ParaphraseConfig("q"), "e.jsonl", "jsonl")
    job.feed_eval('{"q": "a"}\n{"q": "b"}\n')
    job.end_eval()
    with pytest.raises(EvalsieveError, match="twice") as e:
        job.set_similarity([(0, 1, 0.9), (0, 1, 0.9)], [0.9, 0.9], [1, 0], 0)
    assert e.value.code == "bad_input"


_golden_inputs = functools.lru_cache(maxsize=1)(golden.inputs)  # read-only below


def golden_job(threshold, floor=golden.FLOOR):
    text, emb, cands, nn, nn_index = _golden_inputs()
    job = ParaphraseJob(ParaphraseConfig("text", "id", threshold, floor), "golden.jsonl", "jsonl")
    job.feed_eval(text)
    job.end_eval()
    job.set_similarity(cands, nn, nn_index, 0, emb.tobytes(), {"model_sha256": "0" * 64})
    return job, InputFile("eval", "golden.jsonl", "0" * 64, len(text))


def bodies(job, eval_file, threshold):
    res = job.result(job.stamp(threshold, eval_file, "t"))
    return {
        name: without_fingerprint(px.export(res, name)[1])
        if name.endswith(".csv")
        else px.export(res, name)[1]
        for name in px.export_names(res)
        if name != "run-stamp.json"
    }


@pytest.mark.parametrize("small", [grouping.SMALL_GROUP, 2])
def test_exports_on_real_embeddings_equal_the_quadratic_golden(small, monkeypatch):
    """tests/golden/paraphrase_golden.json holds the exports of evalsieve 97c32dd (quadratic
    grouping) on 56 real all-MiniLM-L6-v2 vectors at seven thresholds (groups of up to 27
    rows, chained and not); the bounded grouping writes the same bytes."""
    monkeypatch.setattr(grouping, "SMALL_GROUP", small)
    want = json.load(open(os.path.join(GOLDEN, "paraphrase_golden.json"), encoding="utf-8"))
    assert want["floor"] == golden.FLOOR
    job, eval_file = golden_job(0.9)
    chained_seen = False
    for key, exports in want["exports"].items():
        got = bodies(job, eval_file, float(key))  # (exports added since: tests/py/test_dedup.py)
        assert {k: got[k] for k in exports} == exports, key
        chained_seen |= ",yes," in exports["paraphrase-groups.csv"]
    assert chained_seen


def test_exports_at_a_threshold_equal_a_fresh_run_at_it():
    """No hidden threshold: after regrouping at other thresholds (and exporting at one), the
    exports at X are a fresh run's exports at X, stamp included."""
    job, eval_file = golden_job(0.9)
    job.group(0.35)
    job.group(0.62)
    bodies(job, eval_file, 0.80)
    job.group(0.30)
    for x in (0.45, 0.55):
        fresh, _ = golden_job(x)
        fresh.group(x)
        a, b = job.stamp(x, eval_file, "t"), fresh.stamp(x, eval_file, "t")
        assert a == b and a.settings["threshold"] == x
        ra, rb = job.result(a), fresh.result(b)
        for name in px.export_names(ra):
            assert px.export(ra, name) == px.export(rb, name)
    with pytest.raises(EvalsieveError, match="out of range"):
        job.stamp(0.2, eval_file, "t")
    with pytest.raises(EvalsieveError, match="out of range"):
        job.group(None)


def test_export_steps_report_progress_to_the_total_and_can_stop_early():
    job, eval_file = golden_job(0.9)
    steps = list(job.export_steps(0.30))
    done = [d for d, _ in steps]
    (total,) = {t for _, t in steps}
    g = job.grouping(0.30)
    assert total == sum(len(x.members) * (len(x.members) - 1) // 2 for x in g.groups)
    assert done == sorted(done) and done[0] == 0 and done[-1] == total
    # stopping after the first step (a cancel) leaves the job able to export, unchanged
    job2, _ = golden_job(0.9)
    gen = job2.export_steps(0.30)
    next(gen), next(gen)
    gen.close()
    assert bodies(job2, eval_file, 0.30) == bodies(job, eval_file, 0.30)


def test_view_details_are_computed_for_the_shown_groups_only():
    """A regroup computes lowest pairs for the (at most 20) groups the view shows; the rest
    wait for the exports."""
    rng = random.Random(5)
    n = 2 * 30
    cands = [(2 * k, 2 * k + 1, 0.9 + rng.random() / 20) for k in range(30)]
    job = ParaphraseJob(ParaphraseConfig("q"), "e.jsonl", "jsonl")
    job.feed_eval("".join('{"q": "r%d"}\n' % k for k in range(n)))
    job.end_eval()
    job.set_similarity(cands, [0.9] * n, [k ^ 1 for k in range(n)], 0)
    f = job.group(0.9)
    g = job.grouping(0.9)
    assert f["groups"] == 30 and len(f["view"]["groups"]) == 20
    assert [x._detail is not None for x in g.groups] == [True] * 20 + [False] * 10


def test_view_budget_leaves_large_groups_to_the_exports(monkeypatch):
    """Past the view's work budget a shown group's lowest pair is null (the page says it is
    in the CSV); its chained flag is still exact and the exports still have every value."""
    from evalsieve import paraphrase

    monkeypatch.setattr(paraphrase, "VIEW_DETAIL_PAIRS", 100)  # 27 members: 351 pairs
    job, eval_file = golden_job(0.9)
    f = job.group(0.35)
    first = f["view"]["groups"][0]
    assert first["size"] == 27 and first["chained"] is True
    assert (
        first["lowest"] is None and first["lowest_pair"] is None and first["representative"] is None
    )
    assert f["view"]["groups"][-1]["lowest"] is not None  # small groups fit the budget
    want = json.load(open(os.path.join(GOLDEN, "paraphrase_golden.json"), encoding="utf-8"))
    got = bodies(job, eval_file, 0.35)
    assert {k: got[k] for k in want["exports"]["0.35"]} == want["exports"]["0.35"]


def arc_job(n, step, floor):
    """``n`` unit vectors on an arc, row k at angle k·step (first two of the 384 dimensions):
    cos(row i, row j) = cos((j − i)·step). The candidates are every pair with dot ≥ floor,
    as the tile scan gives them (float32 values, products taken as doubles)."""
    vec = array("f", bytes(4 * n * DIM))
    for k in range(n):
        vec[k * DIM], vec[k * DIM + 1] = math.cos(k * step), math.sin(k * step)
    x = [vec[k * DIM] for k in range(n)]
    y = [vec[k * DIM + 1] for k in range(n)]
    reach = int(math.acos(floor) / step) + 2
    cands = [
        (i, j, x[i] * x[j] + y[i] * y[j])
        for i in range(n)
        for j in range(i + 1, min(n, i + reach))
        if x[i] * x[j] + y[i] * y[j] >= floor
    ]
    job = ParaphraseJob(ParaphraseConfig("q", threshold=floor, floor=floor), "e.jsonl", "jsonl")
    job.feed_eval("".join('{"q": "r%d"}\n' % k for k in range(n)))
    job.end_eval()
    job.set_similarity(cands, [0.0] * n, [0] * n, 0, vec.tobytes())
    return job, cands


def test_regroup_of_one_1000_row_group_does_not_visit_its_member_pairs(monkeypatch):
    """A regroup once recomputed every member pair of every group (one group of 1,000
    rows: 499,500 cosines, 8.7 s). Now the slider's regroup of such a group looks at its
    edges and one member pair outside them; the lowest pair waits for the exports.

    1,000 rows on an arc 0.002 rad apart, floor = threshold = 0.99: rows up to 70 apart are
    candidates (cos 0.140 = 0.99022; cos 0.142 = 0.98994 is under the floor), so every
    candidate is an edge and the rows form one chained group. With no candidate left outside
    the edges, the chained test needs one exact dot: rows 0 and 71 (cos 0.142 < 0.99)."""
    job, cands = arc_job(1000, 0.002, 0.99)
    assert len(cands) == sum(1000 - d for d in range(1, 71))  # 67,515
    calls = []
    exact = grouping.PairGraph.exact
    monkeypatch.setattr(
        grouping.PairGraph, "exact", lambda self, i, j: calls.append((i, j)) or exact(self, i, j)
    )
    f = job.group(0.99)
    assert (f["groups"], f["groups_chained"], f["rows_in_groups"], f["pairs"]) == (
        1,
        1,
        1000,
        len(cands),
    )
    shown = f["view"]["groups"][0]
    assert shown["size"] == 1000 and shown["chained"] is True
    # 499,500 member pairs are past the view's budget: no lowest pair computed for the view
    assert (shown["lowest"], shown["lowest_pair"], shown["representative"]) == (None, None, None)
    (grp,) = job.grouping(0.99).groups
    assert grp.pair_count == 499_500 and not grp.computed
    assert calls == [(0, 71)]


def test_dead_code_stays_gone():
    """grouping.py's unused ``dot`` and ``Group.edges`` stay removed (a group keeps its
    edge count; its edges are a prefix of the tile graph)."""
    assert not hasattr(grouping, "dot")
    assert "edges" not in grouping.Group.__slots__ and not hasattr(grouping.Group, "edges")


def test_paraphrase_config_refuses_bad_settings_on_construction():
    """Configs validate on construction, so para.start fails before any pass."""
    from evalsieve.errors import EvalsieveError

    for kw in (
        {"threshold": 5},
        {"threshold": None},
        {"threshold": "x"},
        {"threshold": 0.7},  # under the default floor 0.75
        {"floor": -3, "threshold": 0.9},
        {"floor": 1.5, "threshold": 0.9},
        {"window": 0},
        {"window": 257},
        {"window": 2.5},
        {"field": ""},
    ):
        args = {"field": "q", **kw}
        with pytest.raises(EvalsieveError) as e:
            ParaphraseConfig(**args)
        assert e.value.code == "bad_input", kw
    assert ParaphraseConfig("q", threshold=0.5, floor=0.5).floor == 0.5  # the CLI's floor
    assert ParaphraseConfig("q", threshold=1, window=256).window == 256
    from evalsieve.bridge import call

    r = json.loads(
        call(
            "para.start",
            json.dumps({"eval": {"name": "e", "format": "jsonl", "field": "q"}, "threshold": None}),
        )
    )
    assert r["ok"] is False and r["error"]["code"] == "bad_input"
