"""Score impact: means of per-row scores with 95% intervals, standard library only.

What the contamination and paraphrase jobs do to a score: the mean of a per-row metric on
all rows, on the clean and the contaminated rows, their difference, and (when paraphrase
groups are known) the cluster-robust standard error beside the naive one. Every formula,
with its source, is written out in docs/SCORE_IMPACT.md; the short form:

* binary metric (every value 0 or 1): Wilson score interval (Wilson 1927);
* continuous metric: Student t interval, mean ± t(0.975, n − 1) · s/√n;
* a difference of independent means, or any linear combination Σ cᵢ·meanᵢ of them: MOVER
  (Zou & Donner 2008) built from each mean's own interval; for two proportions this is
  Newcombe's (1998) hybrid score interval, method 10;
* cluster-robust standard error of a mean (Liang & Zeger 1986; the CR1 small-sample
  correction G/(G−1)·(N−1)/(N−K), K = 1, as Stata and statsmodels apply it; Cameron &
  Miller 2015), its interval with t(G − 1); design effect = (SE_clustered / SE_naive)²,
  effective n = n / design effect (Kish 1965; Miller 2024, "Adding Error Bars to Evals").

Inputs are plain lists of floats; nothing here reads a file or a clock.
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


# -- distributions -------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes
    3rd ed. §6.4, ``betacf``)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b), for a, b > 0 and x in [0, 1].

    Source: Numerical Recipes 3rd ed. §6.4 (continued fraction, with the symmetry
    I_x(a, b) = 1 − I_{1−x}(b, a) where it converges faster). Accurate to about 1e-14.
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def _t_tail(t: float, df: float) -> float:
    """P(T > t) for t ≥ 0: ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1, 26.5.27),
    evaluated on whichever side of the beta function keeps the small tail exact."""
    a, b = df / 2.0, 0.5
    x, y = df / (df + t * t), t * t / (df + t * t)  # y = 1 − x without cancellation
    return 0.5 * (betainc(a, b, x) if x < (a + 1.0) / (a + b + 2.0) else 1.0 - betainc(b, a, y))


def t_cdf(t: float, df: float) -> float:
    """Student t distribution function P(T ≤ t) with ``df`` > 0 degrees of freedom.

    Uses P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2) (Abramowitz & Stegun 26.7.1 with 26.5.27).
    """
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    if t == 0:
        return 0.5
    tail = _t_tail(abs(t), df)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` > 0 degrees of freedom.

    Solves P(T > x) = min(p, 1 − p) by safeguarded Newton iteration inside a bracket found
    by doubling (a step that leaves the bracket is replaced by bisection), to double
    precision of the tail; agrees with scipy.stats.t.ppf to ~1e-12 relative for df ≤ 1000
    and ~1e-9 at df = 10⁶ (where lgamma's cancellation limits the tail). df = 1 and 2 have
    closed forms: cot(π·q) and (1 − 2q)·√(2 / (4q(1 − q))) for the tail q.

    Raises:
        ValueError: p outside (0, 1), or df ≤ 0.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    if p == 0.5:
        return 0.0
    sign, q = (1.0, 1.0 - p) if p > 0.5 else (-1.0, p)  # q = the smaller tail, exact
    if df == 1:
        return sign / math.tan(math.pi * q)
    if df == 2:
        return sign * (1.0 - 2.0 * q) * math.sqrt(2.0 / (4.0 * q * (1.0 - q)))
    lo, hi = 0.0, 1.0
    while _t_tail(hi, df) > q:
        lo, hi = hi, hi * 2.0
    x = min(max(-NormalDist().inv_cdf(q), lo), hi)
    log_c = math.lgamma((df + 1) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    for _ in range(200):
        f = q - _t_tail(x, df)  # increasing in x
        if f == 0:
            break
        if f < 0:
            lo = x
        else:
            hi = x
        dens = math.exp(log_c - (df + 1) / 2.0 * math.log1p(x * x / df))
        nx = x - f / dens if dens > 0 else 0.5 * (lo + hi)
        if not lo < nx < hi:
            nx = 0.5 * (lo + hi)
        done = abs(nx - x) <= 4e-16 * max(1.0, abs(x)) or nx in (lo, hi)
        x = nx
        if done:
            break
    return sign * x


# -- one mean ------------------------------------------------------------------------------
def is_binary(values) -> bool:
    """True when every value is 0 or 1 (then the mean is a proportion: Wilson interval)."""
    return all(v == 0 or v == 1 for v in values)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927, JASA 22:209).

    centre = (p̂ + z²/2n) / (1 + z²/n); half-width = z/(1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²).

    Args:
        successes: rows scoring 1 (0 ≤ successes ≤ n).
        n: rows, ≥ 1.
        z: the normal quantile (1.96 for 95%).
    Returns:
        (lo, hi) within [0, 1]; lo = 0 when successes = 0, hi = 1 when successes = n.
    Raises:
        ValueError: n < 1 or successes outside [0, n].
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, got {successes}/{n}")
    p = successes / n
    z2 = z * z
    den = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z / den * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def mean_sd(values: list[float]) -> tuple[float, float]:
    """(mean, sample standard deviation with n − 1); sd is 0.0 for one value."""
    n = len(values)
    m = math.fsum(values) / n
    if n < 2:
        return m, 0.0
    return m, math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))


def mean_interval(values: list[float], binary: bool | None = None) -> dict:
    """The mean of ``values`` with its 95% interval.

    Args:
        values: the rows' scores (at least one).
        binary: True for a 0/1 metric (Wilson), False for a continuous one (t); None
            decides from the values (:func:`is_binary`).
    Returns:
        ``{n, mean, ci95: [lo, hi], se, method}``; ``se`` = s/√n (the naive standard
        error). A continuous mean of one row has ci95 [None, None] (no spread to measure).
    Raises:
        ValueError: no values.
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    if binary is None:
        binary = is_binary(values)
    m, sd = mean_sd(values)
    se = sd / math.sqrt(n)
    if binary:
        lo, hi = wilson_interval(math.fsum(values), n)
        return {"n": n, "mean": m, "ci95": [lo, hi], "se": se, "method": "wilson"}
    if n < 2:
        return {"n": n, "mean": m, "ci95": [None, None], "se": None, "method": "t"}
    h = t_quantile(0.975, n - 1) * se
    return {"n": n, "mean": m, "ci95": [m - h, m + h], "se": se, "method": "t"}


def empty_figure() -> dict:
    """The figure of an empty subset: ``{n: 0, mean: None, ci95: [None, None], ...}``."""
    return {"n": 0, "mean": None, "ci95": [None, None], "se": None, "method": ""}


# -- linear combinations of independent means ------------------------------------------------
def mover(terms: list[tuple[float, dict]]) -> dict:
    """A 95% interval for θ = Σ cᵢ·meanᵢ over independent subsets (MOVER).

    Zou & Donner 2008 (Stat Med 27:1693), "method of variance estimates recovery": with each
    mean's own interval (lᵢ, uᵢ),
        L = θ − √Σ (cᵢmᵢ − min(cᵢlᵢ, cᵢuᵢ))²,   U = θ + √Σ (max(cᵢlᵢ, cᵢuᵢ) − cᵢmᵢ)².
    With two Wilson intervals and c = (1, −1) this is Newcombe's (1998, Stat Med 17:873)
    hybrid score interval for a difference of proportions (his method 10).

    Args:
        terms: ``(c, figure)`` pairs, figure from :func:`mean_interval`; terms with c = 0
            or an empty subset (n = 0) are left out.
    Returns:
        ``{estimate, ci95: [lo, hi]}``; lo/hi None when a term has no interval.
    """
    est = 0.0
    lo2 = hi2 = 0.0
    ok = True
    for c, f in terms:
        if c == 0 or not f["n"]:
            continue
        m = f["mean"]
        lo, hi = f["ci95"]
        est += c * m
        if lo is None or hi is None:
            ok = False
            continue
        a, b = sorted((c * lo, c * hi))
        lo2 += (c * m - a) ** 2
        hi2 += (b - c * m) ** 2
    if not ok:
        return {"estimate": est, "ci95": [None, None]}
    return {"estimate": est, "ci95": [est - math.sqrt(lo2), est + math.sqrt(hi2)]}


# -- cluster-robust standard error -----------------------------------------------------------
def clustered_mean(values: list[float], clusters: list) -> dict:
    """The mean with its naive and cluster-robust standard errors.

    The mean is OLS on an intercept; residuals eᵢ = yᵢ − ȳ. With G clusters and N rows:
        SE_naive² = s²/N, s² = Σeᵢ²/(N − 1)
        SE_CR1² = c · Σ_g (Σ_{i∈g} eᵢ)² / N²,   c = G/(G − 1) · (N − 1)/(N − K), K = 1
                (so c = G/(G − 1) for a mean)
    (Liang & Zeger 1986; CR1 as in Cameron & Miller 2015, J. Human Resources 50:317, §VI.A,
    and statsmodels ``cov_type='cluster'`` with its default corrections). The interval is
    ȳ ± t(0.975, G − 1)·SE_CR1 (Cameron & Miller §VI.C: t with G − 1 degrees of freedom).
    Design effect = SE_CR1² / SE_naive²; effective n = N / design effect (Kish 1965).

    Args:
        values: the rows' scores (N ≥ 2).
        clusters: one hashable cluster id per row; a row alone in its cluster is a singleton.
    Returns:
        ``{n, clusters, mean, se_naive, se_clustered, design_effect, effective_n, ci95}``;
        design effect and effective n are None when SE_naive = 0; se_clustered and ci95 are
        None when G < 2.
    Raises:
        ValueError: fewer than 2 values, or len(clusters) != len(values).
    """
    n = len(values)
    if n < 2:
        raise ValueError("a standard error needs at least 2 values")
    if len(clusters) != n:
        raise ValueError(f"{len(clusters)} cluster ids for {n} values")
    m, sd = mean_sd(values)
    se_naive = sd / math.sqrt(n)
    sums: dict = {}
    for v, g in zip(values, clusters):
        sums[g] = sums.get(g, 0.0) + (v - m)
    g_count = len(sums)
    out = {
        "n": n,
        "clusters": g_count,
        "mean": m,
        "se_naive": se_naive,
        "se_clustered": None,
        "design_effect": None,
        "effective_n": None,
        "ci95": [None, None],
    }
    if g_count < 2:
        return out
    c = g_count / (g_count - 1)  # G/(G − 1) · (N − 1)/(N − K), and N − K = N − 1 for a mean
    se_cl = math.sqrt(c * math.fsum(s * s for s in sums.values())) / n
    out["se_clustered"] = se_cl
    h = t_quantile(0.975, g_count - 1) * se_cl
    out["ci95"] = [m - h, m + h]
    if se_naive > 0:
        deff = (se_cl / se_naive) ** 2
        out["design_effect"] = deff
        out["effective_n"] = n / deff if deff > 0 else None
    return out
