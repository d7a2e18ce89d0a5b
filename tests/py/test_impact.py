"""impact.py: distributions against scipy, intervals against published tables and hand work,
the cluster-robust standard error against statsmodels."""

import math
import random

import pytest

from evalsieve.impact import (
    betainc,
    clustered_mean,
    is_binary,
    mean_interval,
    mover,
    t_cdf,
    t_quantile,
    wilson_interval,
)


# -- distributions ---------------------------------------------------------------------------
def test_t_quantile_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 4, 5, 7, 10, 29, 30, 60, 119, 1000, 1e6, 2.5, 0.7):
        for p in (0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 0.025, 0.001, 1e-6):
            want = stats.t.ppf(p, df)
            rel = 1e-11 if df <= 1000 else 1e-8  # lgamma cancellation at huge df
            assert t_quantile(p, df) == pytest.approx(want, rel=rel, abs=1e-12), (p, df)


def test_t_quantile_textbook_values():
    # the familiar table row: t(0.975) for df 1, 2, 3, 10, 30 (any t table, e.g. NIST/SEMATECH
    # e-Handbook 1.3.6.7.2)
    for df, want in ((1, 12.706), (2, 4.303), (3, 3.182), (10, 2.228), (30, 2.042)):
        assert round(t_quantile(0.975, df), 3) == want


def test_t_cdf_and_betainc_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    special = pytest.importorskip("scipy.special")
    for df in (1, 3, 8.5, 40):
        for t in (-6.0, -1.3, 0.0, 0.2, 2.0, 9.0):
            assert t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-12, abs=1e-15)
    for a, b, x in ((0.5, 0.5, 0.3), (2, 3, 0.9), (15, 0.5, 0.97), (100, 200, 0.33)):
        assert betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-11)


def test_t_quantile_rejects_bad_arguments():
    for p, df in ((0, 3), (1, 3), (0.5, 0), (-0.1, 2)):
        with pytest.raises(ValueError):
            t_quantile(p, df)


# -- Wilson ----------------------------------------------------------------------------------
# Newcombe 1998, "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Stat Med 17:857, worked examples, method 3 (Wilson score, no continuity
# correction).
NEWCOMBE_1998_EXAMPLES = [
    ((81, 263), (0.2553, 0.3662)),
    ((15, 148), (0.0624, 0.1605)),
    ((0, 20), (0.0, 0.1611)),
    ((1, 29), (0.0061, 0.1718)),
]


@pytest.mark.parametrize("counts,want", NEWCOMBE_1998_EXAMPLES)
def test_wilson_matches_newcombe_table(counts, want):
    lo, hi = wilson_interval(*counts)
    assert (round(lo, 4), round(hi, 4)) == want


def test_wilson_by_hand_and_against_statsmodels():
    # 7/10, z = 1.959964: centre = (0.7 + z²/20)/(1 + z²/10), half = z/(1 + z²/10)·√(0.021 + z²/400)
    z = 1.959963984540054
    den = 1 + z * z / 10
    centre = (0.7 + z * z / 20) / den
    half = z / den * math.sqrt(0.7 * 0.3 / 10 + z * z / 400)
    assert wilson_interval(7, 10) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert wilson_interval(7, 10) == pytest.approx((0.3968, 0.8922), abs=5e-5)
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for k, n in ((0, 1), (1, 1), (3, 7), (28, 1316), (500, 1000)):
        assert wilson_interval(k, n) == pytest.approx(
            proportion.proportion_confint(k, n, method="wilson"), abs=1e-12
        )


def test_wilson_rejects_impossible_counts():
    for k, n in ((3, 2), (-1, 4), (0, 0)):
        with pytest.raises(ValueError):
            wilson_interval(k, n)


# -- one mean --------------------------------------------------------------------------------
def test_mean_interval_t_by_hand():
    # 1, 2, 3, 4: mean 2.5, s = √(5/3), se = s/2, t(0.975, 3) = 3.182446305284263
    f = mean_interval([1.0, 2.0, 3.0, 4.0])
    se = math.sqrt(5 / 3) / 2
    assert f["method"] == "t" and f["n"] == 4 and f["mean"] == 2.5
    assert f["se"] == pytest.approx(se, rel=1e-14)
    assert f["ci95"] == pytest.approx(
        [2.5 - 3.182446305284263 * se, 2.5 + 3.182446305284263 * se], rel=1e-12
    )


def test_mean_interval_binary_is_wilson():
    f = mean_interval([1, 0, 0, 1, 1, 1, 0, 1, 1, 1])
    assert f["method"] == "wilson" and f["mean"] == 0.7
    assert f["ci95"] == pytest.approx(list(wilson_interval(7, 10)))
    assert is_binary([0.0, 1.0, True]) and not is_binary([0, 0.5])


def test_mean_interval_of_one_continuous_row_has_no_interval():
    assert mean_interval([0.3])["ci95"] == [None, None]
    with pytest.raises(ValueError):
        mean_interval([])


# -- MOVER / Newcombe --------------------------------------------------------------------------
# Newcombe 1998, "Interval estimation for the difference between independent proportions:
# comparison of eleven methods", Stat Med 17:873, worked examples, method 10 (score, no CC).
@pytest.mark.parametrize(
    "a,b,want", [((56, 70), (48, 80), (0.0524, 0.3339)), ((9, 10), (3, 10), (0.1705, 0.8090))]
)
def test_difference_of_proportions_matches_newcombe_method_10(a, b, want):
    fa = mean_interval([1.0] * a[0] + [0.0] * (a[1] - a[0]))
    fb = mean_interval([1.0] * b[0] + [0.0] * (b[1] - b[0]))
    d = mover([(1, fa), (-1, fb)])
    assert d["estimate"] == pytest.approx(a[0] / a[1] - b[0] / b[1])
    assert (round(d["ci95"][0], 4), round(d["ci95"][1], 4)) == want


def test_mover_by_hand_and_scaling():
    # two intervals: A 0.5 [0.3, 0.8], B 0.2 [0.1, 0.4]; θ = A − B = 0.3
    A = {"n": 5, "mean": 0.5, "ci95": [0.3, 0.8]}
    B = {"n": 5, "mean": 0.2, "ci95": [0.1, 0.4]}
    d = mover([(1, A), (-1, B)])
    assert d["estimate"] == pytest.approx(0.3)
    assert d["ci95"][0] == pytest.approx(0.3 - math.hypot(0.2, 0.2))
    assert d["ci95"][1] == pytest.approx(0.3 + math.hypot(0.3, 0.1))
    # c·A for c < 0 flips the interval: −0.5·A = −0.25 [−0.4, −0.15]
    h = mover([(-0.5, A)])
    assert h["estimate"] == pytest.approx(-0.25)
    assert h["ci95"] == pytest.approx([-0.4, -0.15])
    # empty subsets and zero weights drop out
    assert mover([(1, A), (0, B), (-1, {"n": 0, "mean": None, "ci95": [None, None]})]) == {
        "estimate": 0.5,
        "ci95": pytest.approx([0.3, 0.8]),
    }


# -- cluster-robust SE -------------------------------------------------------------------------
def test_clustered_by_hand():
    # y = 1, 0, 1, 1; clusters {a, a}, {b}, {c}; mean 0.75; residuals .25, −.75, .25, .25
    # cluster sums −.5, .25, .25 → Σ² = .375; G = 3 → var = 3/2 · .375 / 16 = .03515625
    # naive: s² = .75/3 = .25 → se = .5/√4 = .25; design effect (.1875/.25)² = .5625
    c = clustered_mean([1, 0, 1, 1], ["a", "a", "b", "c"])
    assert c["mean"] == 0.75 and c["clusters"] == 3 and c["n"] == 4
    assert c["se_clustered"] == pytest.approx(0.1875, rel=1e-14)
    assert c["se_naive"] == pytest.approx(0.25, rel=1e-14)
    assert c["design_effect"] == pytest.approx(0.5625)
    assert c["effective_n"] == pytest.approx(4 / 0.5625)
    assert c["ci95"] == pytest.approx(
        [0.75 - t_quantile(0.975, 2) * 0.1875, 0.75 + t_quantile(0.975, 2) * 0.1875]
    )


def test_clustered_all_singletons_equals_naive():
    # N singletons: CR1 = N/(N−1)·Σe²/N² = s²/N, the naive variance exactly
    ys = [0.1, 0.9, 0.4, 0.4, 0.7]
    c = clustered_mean(ys, list(range(5)))
    assert c["se_clustered"] == pytest.approx(c["se_naive"], rel=1e-13)
    assert c["design_effect"] == pytest.approx(1.0)


def _statsmodels_cluster_se(ys, groups):
    sm = pytest.importorskip("statsmodels.api")
    np = pytest.importorskip("numpy")
    codes = {g: i for i, g in enumerate(dict.fromkeys(groups))}
    fit = sm.OLS(np.asarray(ys, float), np.ones((len(ys), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray([codes[g] for g in groups])}
    )
    naive = sm.OLS(np.asarray(ys, float), np.ones((len(ys), 1))).fit()
    return float(fit.bse[0]), float(naive.bse[0])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clustered_matches_statsmodels(seed):
    rng = random.Random(seed)
    ys, groups = [], []
    for g in range(40):  # groups of 1..6 rows with a shared effect
        size = rng.choice([1, 1, 1, 2, 3, 6])
        u = rng.random()
        for _ in range(size):
            ys.append(float(rng.random() < 0.3 + 0.6 * u) if seed != 3 else rng.gauss(u, 1))
            groups.append(g)
    want_cl, want_naive = _statsmodels_cluster_se(ys, groups)
    c = clustered_mean(ys, groups)
    assert c["se_clustered"] == pytest.approx(want_cl, rel=1e-10)
    assert c["se_naive"] == pytest.approx(want_naive, rel=1e-10)


def test_clustered_needs_two_rows_and_matching_ids():
    with pytest.raises(ValueError):
        clustered_mean([1.0], [0])
    with pytest.raises(ValueError):
        clustered_mean([1.0, 0.0], [0])
    one = clustered_mean([1.0, 0.0], ["g", "g"])
    assert one["clusters"] == 1 and one["se_clustered"] is None
