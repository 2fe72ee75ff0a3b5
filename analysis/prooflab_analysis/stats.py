"""The statistics of prooflab, defined once.

Every figure that is a percentile, a mean or median, a busy fraction, an interval or a test
of a difference comes from here: the report's tables (metrics.py, reflog_figures.py), the
A/B verdicts (abtest.py), the model's validation and `prooflab regress` (through
regress_stats.py). The C++ side (summary.json, gpu-phase, regress, prooflab_gpu_bench) has
one implementation of the same definitions in core/stats/ (sample.hpp, interval_union.hpp);
tests/python/test_stats_agree.py feeds both the same samples through the `prooflab.stats`
binding, and tests/python/test_stats.py runs the engine and compares its summary.json.

* percentile: numpy's default ("linear", type 7 of Hyndman & Fan): for sorted x_0..x_{n-1}
  and q in [0, 100], h = (n - 1) q / 100, value = x_floor(h) + (h - floor(h)) (x_ceil(h) -
  x_floor(h)). It is what pandas' quantile does by default too. The median is the 50th
  percentile (the mean of the two middle values for even n). The C++ quantile takes q / 100.
* mean: the sum over n; sample_sd: ddof 1 (NaN below two values).
* percentile, median, mean and sample_sd refuse NaN with a ValueError naming the sample and
  the value's position (as the C++ side does); an empty sample gives NaN (C++: none).
* busy: the length of the union of intervals clipped to a window (union_us; overlapping
  intervals count once, touching ones merge), over the window's length (busy_fraction). GPU
  busy takes GPU_START..GPU_END, kernel busy the CUPTI KERNEL rows (metrics.py).
* bootstrap interval of the relative change of the mean (or median) of two independent
  samples: scipy.stats.bootstrap, percentile method, both samples resampled independently.
* rank test: two-sided Mann-Whitney U (scipy.stats.mannwhitneyu).
* interval of a mean of a few repetitions (sweep points, memory-tier cells): Student t,
  mean ± t_{(1+confidence)/2, n-1} · s / √n with s the sample sd (ddof 1); NaN, never 0,
  with one repetition (mean_t_interval). It leaves out non-finite values: a repetition
  without the figure is missing, not a number.
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


def _sample(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    """The values as float64, refusing NaN (the C++ side's require_no_nan, same message)."""
    a = np.asarray(values, dtype="float64").ravel()
    bad = np.flatnonzero(np.isnan(a))
    if bad.size:
        raise ValueError(f"{what}: value #{int(bad[0])} of {a.size} is NaN")
    return a


def percentile(values: Sequence[float] | np.ndarray, q: float, what: str = "sample") -> float:
    """The q-th percentile (q in [0, 100]) by the one definition above; NaN if empty."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")
    a = _sample(values, what)
    if a.size == 0:
        return float("nan")
    return float(np.percentile(a, q, method=PERCENTILE_METHOD))


def median(values: Sequence[float] | np.ndarray, what: str = "sample") -> float:
    """The 50th percentile; NaN if empty."""
    return percentile(values, 50, what)


def mean(values: Sequence[float] | np.ndarray, what: str = "sample") -> float:
    """The arithmetic mean; NaN if empty."""
    a = _sample(values, what)
    return float(a.mean()) if a.size else float("nan")


def sample_sd(values: Sequence[float] | np.ndarray, what: str = "sample") -> float:
    """Standard deviation with n - 1 in the denominator; NaN below two values."""
    a = _sample(values, what)
    return float(a.std(ddof=1)) if a.size >= 2 else float("nan")


def merge_intervals(starts: Iterable[float], ends: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """Union of intervals as disjoint sorted blocks (touching intervals merge; empty and
    reversed ones are dropped)."""
    s = np.asarray(starts, dtype="float64")
    e = np.asarray(ends, dtype="float64")
    keep = e > s
    s, e = s[keep], e[keep]
    if s.size == 0:
        return s, e
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    running_end = np.maximum.accumulate(e)
    new_block = np.empty(s.size, dtype=bool)
    new_block[0] = True
    new_block[1:] = s[1:] > running_end[:-1]
    first = np.flatnonzero(new_block)
    block_end = np.maximum.reduceat(e, first)
    return s[first], block_end


def union_us(starts: Iterable[float], ends: Iterable[float], lo: float | None = None, hi: float | None = None) -> float:
    """Length of the union of intervals, clipped to [lo, hi]."""
    s = np.asarray(starts, dtype="float64")
    e = np.asarray(ends, dtype="float64")
    if lo is not None:
        s = np.maximum(s, lo)
        e = np.maximum(e, lo)
    if hi is not None:
        s = np.minimum(s, hi)
        e = np.minimum(e, hi)
    bs, be = merge_intervals(s, e)
    return float((be - bs).sum())


def busy_fraction(starts: Iterable[float], ends: Iterable[float], lo: float, hi: float) -> float:
    """union_us over [lo, hi] divided by hi - lo; NaN for an empty or reversed window."""
    if not hi > lo:
        return float("nan")
    return union_us(starts, ends, lo, hi) / (hi - lo)


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
