"""The statistics of prooflab, defined once.

Every figure that is a percentile, an interval or a test of a difference comes from here:
the report's tables, the A/B verdicts (abtest.py) and `prooflab regress` (through
regress_stats.py). The engine's summary.json computes its latency percentiles in C++
with the same definition (core/trace/percentile.hpp); tests/python/test_stats.py runs the
engine and checks that both sides agree on the same jobs.

* percentile: numpy's default ("linear", type 7 of Hyndman & Fan): for sorted x_0..x_{n-1}
  and q in [0, 100], h = (n - 1) q / 100, value = x_floor(h) + (h - floor(h)) (x_ceil(h) -
  x_floor(h)). It is what pandas' quantile does by default too.
* bootstrap interval of the relative change of the mean (or median) of two independent
  samples: scipy.stats.bootstrap, percentile method, both samples resampled independently.
* rank test: two-sided Mann-Whitney U (scipy.stats.mannwhitneyu).
* interval of a mean of a few repetitions (sweep points, memory-tier cells): Student t,
  mean ± t_{(1+confidence)/2, n-1} · s / √n with s the sample sd (ddof 1); NaN, never 0,
  with one repetition (mean_t_interval).
* repetitions per arm: the normal-approximation sample size for a given minimum effect,
  with the advice it leads to (advice_for_more_reps).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
from scipy import stats as sp_stats

PERCENTILE_METHOD = "linear"

# Past this many repetitions per arm, more runs are not practical advice: the noise
# itself has to come down.
MAX_PRACTICAL_REPS = 30


def percentile(values: Sequence[float] | np.ndarray, q: float) -> float:
    """The q-th percentile (q in [0, 100]) by the one definition above; NaN if empty."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")
    a = np.asarray(values, dtype="float64")
    if a.size == 0:
        return float("nan")
    return float(np.percentile(a, q, method=PERCENTILE_METHOD))


def center(values: np.ndarray, statistic: str, axis: int | None = None) -> np.ndarray | float:
    """Mean or median (the two statistics a comparison may use)."""
    if statistic == "mean":
        return np.mean(values, axis=axis)
    if statistic == "median":
        return np.median(values, axis=axis)
    raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")


def bootstrap_rel_change(
    baseline: np.ndarray, variant: np.ndarray, statistic: str, n_boot: int, seed: int, confidence: float
) -> tuple[float, float]:
    """Percentile-bootstrap CI of (stat(variant) - stat(baseline)) / stat(baseline), the two
    samples resampled independently (scipy.stats.bootstrap); seeded, so reproducible."""

    def rel_change(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        sa = center(a, statistic, axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (center(b, statistic, axis=axis) - sa) / sa

    res = sp_stats.bootstrap(
        (np.asarray(baseline, dtype="float64"), np.asarray(variant, dtype="float64")),
        rel_change,
        n_resamples=n_boot,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        paired=False,
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def mann_whitney_p(baseline: np.ndarray, variant: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value; 1 when both samples are one repeated value."""
    a = np.asarray(baseline, dtype="float64")
    b = np.asarray(variant, dtype="float64")
    if a.size and np.all(a == a[0]) and np.all(b == a[0]):
        return 1.0
    return float(sp_stats.mannwhitneyu(b, a, alternative="two-sided").pvalue)


def rank_test_can_reach(n_a: int, n_b: int, alpha: float) -> bool:
    """Whether a two-sided Mann-Whitney U on arms of these sizes can give p < alpha at
    all (its smallest p-value, with complete separation, is 2 / C(n_a + n_b, n_a))."""
    return 2.0 / math.comb(n_a + n_b, n_a) < alpha


def min_reps_for_rank_test(alpha: float) -> int:
    """Smallest n per arm for which a two-sided Mann-Whitney U can reach p < alpha."""
    n = 1
    while not rank_test_can_reach(n, n, alpha):
        n += 1
    return n


def relative_noise(baseline: Sequence[float], variant: Sequence[float]) -> float:
    """Pooled sample standard deviation of both arms relative to the baseline mean; NaN
    when either arm has fewer than two values or the baseline mean is 0."""
    a = np.asarray(baseline, dtype="float64")
    b = np.asarray(variant, dtype="float64")
    if a.size < 2 or b.size < 2 or a.mean() == 0:
        return float("nan")
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    return pooled / abs(a.mean())


def reps_per_arm(noise: float, min_effect: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Repetitions per arm that detect a `min_effect` relative change with `power` at
    two-sided level `alpha` when one run's relative noise is `noise` (normal
    approximation n = 2 (z_{1-alpha/2} + z_power)^2 noise^2 / min_effect^2), and at least
    what the rank test needs to reach alpha. NaN when the noise is unknown."""
    if not math.isfinite(noise):
        return float("nan")
    z = sp_stats.norm.ppf(1 - alpha / 2) + sp_stats.norm.ppf(power)
    n = 2.0 * z * z * noise * noise / (min_effect * min_effect)
    return float(max(math.ceil(n), min_reps_for_rank_test(alpha), 2))


def advice_for_more_reps(
    baseline: Sequence[float], variant: Sequence[float], min_effect: float, alpha: float = 0.05
) -> tuple[float, str]:
    """For an inconclusive comparison: (repetitions per arm to ask for, what to do).

    The count is NaN when the noise cannot be estimated or when it would exceed
    MAX_PRACTICAL_REPS: then the advice is to lower the noise, not to add runs."""
    noise = relative_noise(baseline, variant)
    n = reps_per_arm(noise, min_effect, alpha)
    if not math.isfinite(n):
        return float("nan"), "noise unknown (fewer than 2 runs in an arm): run at least 2 per arm"
    have = min(len(baseline), len(variant))
    if n > MAX_PRACTICAL_REPS:
        return float("nan"), (
            f"run-to-run noise {noise:.1%}: resolving a {min_effect:.0%} change would take ~{int(n)} runs "
            f"per arm; lower the noise first (a quiet host, more proofs per run) or raise min_effect"
        )
    if n <= have:
        return float("nan"), (
            f"{have} runs per arm already suffice for a {min_effect:.0%} change at this noise ({noise:.1%}): "
            "the difference is smaller than or near the minimum effect"
        )
    return n, (
        f"{int(n)} runs per arm would resolve a {min_effect:.0%} change (matrix/sweep: --reps {int(n)}, which "
        f"resumes and appends rounds; regress: the metric's repetitions)"
    )


def mean_t_interval(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, float, float]:
    """(mean, sd, low, high) of the finite values: the Student-t interval of the mean;
    sd/low/high NaN with fewer than two values."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence is a fraction in (0, 1), got {confidence}")
    x = np.asarray(list(values), dtype="float64")
    x = x[np.isfinite(x)]
    nan = float("nan")
    if x.size == 0:
        return nan, nan, nan, nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, nan, nan, nan
    sd = float(x.std(ddof=1))
    half = float(sp_stats.t.ppf((1 + confidence) / 2, x.size - 1)) * sd / math.sqrt(x.size)
    return mean, sd, mean - half, mean + half
