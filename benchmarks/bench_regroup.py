"""Regrouping 20,000 rows (the slider), bounded grouping against the quadratic reference.

Synthetic unit vectors (384 dimensions, seeded): unrelated rows (random directions: their
cosines are ~N(0, 1/384), far under the 0.75 floor), paraphrase blobs of 2–40 rows (members
around a centre, pairwise cosine ~0.8–0.97), and four large groups: chains of 1,000 and
1,500 rows (random walks whose neighbours are ≥ 0.9 alike but whose ends are unrelated: the
chained case the issue timed at 8.7 s for 1,000 rows) and blobs of 1,000 and 300 rows. Candidate pairs
(cosine ≥ 0.75) and nearest neighbours come from the CLI's tile scan
(``native_encoder.pairs_above``, numpy), as in a real run.

For each threshold it prints the seconds of

* ``regroup``  — ``ParaphraseJob.group(t)``: figures + the page's view (the shown groups' lowest
                 pairs and representatives within the view's work budget; ``view nulls``
                 counts shown groups left to the exports), what the slider waits for;
* ``export``   — the rest of what both exports need (every group's lowest pair), then the CSVs;
* ``reference``— the quadratic ``group_paraphrases`` of evalsieve 97c32dd
                 (tests/py/reference_grouping.py), which computed every group's lowest pair
                 on every regroup (run at ``--reference-at`` thresholds only);

medians of ``--repeat`` runs, the ratio reference ÷ regroup, and whether every figure (groups,
members, chained flags, lowest pairs, representatives, pairs) is equal to the reference's.

    .venv/bin/python benchmarks/bench_regroup.py [--rows 20000] [--repeat 3] [--reference-at 0.90,0.95]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "py"))

DIM = 384


def synthetic(rows: int, seed: int = 11):
    """float32 ``[rows, 384]`` unit vectors (see the module docstring)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []

    def unit(v):
        return v / np.linalg.norm(v, axis=-1, keepdims=True)

    def blob(m, spread):
        c = unit(rng.standard_normal(DIM))
        return unit(c + spread * rng.standard_normal((m, DIM)) / np.sqrt(DIM))

    def chain(m, step):
        v = [unit(rng.standard_normal(DIM))]
        for _ in range(m - 1):
            v.append(unit(v[-1] + step * rng.standard_normal(DIM) / np.sqrt(DIM)))
        return np.array(v)

    # a 1,000-row chain (edges ≥ 0.9 between neighbours), a 1,500-row looser chain, a
    # 1,000-row topic blob (pairwise ~0.72: ~40,000 pairs ≥ 0.75, none ≥ 0.9) and a dense
    # 300-row blob (every pair ≥ 0.75)
    big = [chain(1000, 0.30), chain(1500, 0.45), blob(1000, 0.62), blob(300, 0.45)]
    used = sum(len(b) for b in big)
    out += big
    while used < rows * 0.6:
        m = int(min(40, 2 + rng.geometric(0.35)))
        out.append(blob(m, float(rng.uniform(0.15, 0.5))))
        used += m
    out.append(unit(rng.standard_normal((max(0, rows - used), DIM))))
    emb = np.concatenate(out)[:rows].astype(np.float32)
    return emb[rng.permutation(rows)]


def median_time(fn, repeat: int):
    """(median CPU seconds of this process, median wall seconds, the last value). On a
    loaded machine the CPU time is the figure to quote (the work is one Python thread)."""
    cpu, wall, value = [], [], None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        value = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), value


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache", default="", help="an .npz to keep the synthetic set in between runs")
    ap.add_argument("--thresholds", default="0.75,0.85,0.90,0.95")
    ap.add_argument(
        "--reference-at",
        default="0.90,0.95",
        help="thresholds at which to run the quadratic reference too ('' for none): "
        "it visits every member pair of every group, minutes at 0.75",
    )
    a = ap.parse_args(argv)
    from evalsieve import para_exports
    from evalsieve.native_encoder import nearest_neighbours, pairs_above
    from evalsieve.paraphrase import ParaphraseConfig, ParaphraseJob
    from evalsieve.stamps import InputFile
    import reference_grouping

    t0 = time.perf_counter()
    cache = Path(a.cache) if a.cache else None
    if cache and cache.exists():
        import numpy as np

        z = np.load(cache)
        emb, nn, nni = z["emb"], z["nn"], z["nni"]
        cands = list(zip(z["ci"].tolist(), z["cj"].tolist(), z["cc"].tolist()))
    else:
        emb = synthetic(a.rows)
        cands = pairs_above(emb, 0.75)
        nn, nni = nearest_neighbours(emb)
        if cache:
            import numpy as np

            ci, cj, cc = zip(*cands)
            np.savez(
                cache,
                emb=emb,
                nn=nn,
                nni=nni,
                ci=np.array(ci),
                cj=np.array(cj),
                cc=np.array(cc, dtype=np.float64),
            )
    print(
        f"{a.rows} rows × {DIM}, {len(cands):,} candidate pairs ≥ 0.75 "
        f"(made in {time.perf_counter() - t0:.1f} s)"
    )
    text = "".join('{"q": "row %d"}\n' % k for k in range(a.rows))
    job = ParaphraseJob(ParaphraseConfig("q"), "synthetic.jsonl", "jsonl")
    job.feed_eval(text)
    job.end_eval()
    flat = array("f", emb.ravel().tolist())
    cpu, wall, _ = median_time(
        lambda: job.set_similarity(cands, nn.tolist(), nni.tolist(), 0, flat), 1
    )
    print(
        f"set_similarity (sort the pairs, index each row's neighbours; once per run): "
        f"{cpu:.2f} s CPU ({wall:.2f} s wall)"
    )
    ref_at = {float(x) for x in a.reference_at.split(",") if x}
    cosine = job.cosine
    eval_file = InputFile("eval", "synthetic.jsonl", "0" * 64, len(text))
    print("seconds of CPU (wall in brackets); regroup: median of --repeat")
    print(
        f"{'threshold':>9} {'groups':>7} {'largest':>7} {'chained':>7} {'view nulls':>10} "
        f"{'regroup s':>16} {'export s':>16} {'reference s':>18} {'ratio':>6}  same"
    )
    for t in (float(x) for x in a.thresholds.split(",")):

        def regroup(t=t):
            job._groupings.clear()  # time a fresh regroup, not the kept one
            return job.group(t)

        secs, secs_wall, fig = median_time(regroup, a.repeat)
        g = job.grouping(t)

        def export(t=t):
            stamp = job.stamp(t, eval_file, "t")
            for _ in job.export_steps(t):
                pass
            res = job.result(stamp)
            return [para_exports.export(res, name) for name in para_exports.export_names(res)]

        export_s, export_wall, _ = median_time(export, 1)
        ref_s, ref_wall, same = float("nan"), float("nan"), "-"
        if t in ref_at:
            ref_s, ref_wall, ref = median_time(
                lambda t=t: reference_grouping.reference_grouping(a.rows, cands, t, cosine, 0.75), 1
            )
            mine = (
                [
                    (x.members, x.lowest, x.lowest_pair, x.chained, x.representative)
                    for x in g.groups
                ],
                list(g.pairs()),
                g.rows_in_groups,
                g.effective_rows,
                g.duplicate_share,
            )
            same = "yes" if mine == ref else "NO"
        largest = len(g.groups[0].members) if g.groups else 0
        nulls = sum(1 for x in fig["view"]["groups"] if x["lowest"] is None)
        print(
            f"{t:9.2f} {fig['groups']:7d} {largest:7d} {fig['groups_chained']:7d} {nulls:10d} "
            f"{secs:7.3f} ({secs_wall:6.3f}) {export_s:7.2f} ({export_wall:6.2f}) "
            f"{ref_s:8.2f} ({ref_wall:7.2f}) {ref_s / secs:6.0f}  {same}"
        )


if __name__ == "__main__":
    main()
