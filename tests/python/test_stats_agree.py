"""The two implementations of each statistic agree: the C++ one (core/stats, through the
`prooflab.stats` binding of the build) and the Python one (prooflab_analysis.stats), on the
same samples (ties, n = 1, n = 2, odd and even n), and both equal what this test works out
itself: the order statistics by hand from h = (n - 1) q, the mean and sd with the standard
library's exact `statistics`, the union of integer spans by counting covered unit cells.
NaN is refused by both, with the same message. Skips when the module is not built."""

from __future__ import annotations

import math
import statistics as exact

import pytest

from native_module import load_module
from prooflab_analysis import stats

native = load_module()
pytestmark = pytest.mark.skipif(native is None, reason="the prooflab Python module is not built (build/python)")

SAMPLES = {
    "one": [7.5],
    "two": [3.0, 1.0],
    "odd": [4.10, 4.71, 3.98, 4.45, 4.02],
    "even": [4.10, 4.71, 3.98, 4.45, 4.02, 4.30],
    "ties": [5.0, 5.0, 1.0, 5.0, 2.0, 2.0, 9.0],
    "negative and zero": [-2.5, 0.0, 0.0, 3.25, -1.0, 10.0, 0.5, 7.0, 7.0],
}
QUANTILES = (0.0, 0.05, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0)


def _by_hand(values: list[float], q: float) -> float:
    x = sorted(values)
    h = (len(x) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


@pytest.mark.parametrize("name", SAMPLES)
def test_quantiles_agree_with_each_other_and_by_hand(name: str) -> None:
    v = SAMPLES[name]
    for q in QUANTILES:
        cpp = native.stats.quantile(v, q)
        py = stats.percentile(v, 100 * q)
        assert cpp == pytest.approx(_by_hand(v, q), rel=1e-12, abs=1e-12), (name, q)
        assert py == pytest.approx(cpp, rel=1e-15, abs=1e-15), (name, q)
    assert native.stats.median(v) == stats.median(v) == pytest.approx(exact.median(v), rel=1e-15)


@pytest.mark.parametrize("name", SAMPLES)
def test_mean_and_sd_agree_with_each_other_and_the_exact_ones(name: str) -> None:
    v = SAMPLES[name]
    assert native.stats.mean(v) == pytest.approx(float(exact.mean(v)), rel=1e-15, abs=1e-15)
    assert stats.mean(v) == pytest.approx(native.stats.mean(v), rel=1e-15, abs=1e-15)
    if len(v) < 2:
        assert native.stats.sample_sd(v) is None
        assert math.isnan(stats.sample_sd(v))
    else:
        assert native.stats.sample_sd(v) == pytest.approx(exact.stdev(v), rel=1e-13)
        assert stats.sample_sd(v) == pytest.approx(native.stats.sample_sd(v), rel=1e-13)


def test_an_empty_sample_has_no_figures_on_either_side() -> None:
    for f in ("median", "mean", "sample_sd"):
        assert getattr(native.stats, f)([]) is None
        assert math.isnan(getattr(stats, f)([]))
    assert native.stats.quantile([], 0.5) is None
    assert math.isnan(stats.percentile([], 50))


def test_nan_is_refused_by_both_with_the_same_message() -> None:
    v = [1.0, 2.0, float("nan"), 4.0]
    for cpp, py in ((lambda: native.stats.quantile(v, 0.5), lambda: stats.percentile(v, 50)),
                    (lambda: native.stats.median(v), lambda: stats.median(v)),
                    (lambda: native.stats.mean(v), lambda: stats.mean(v)),
                    (lambda: native.stats.sample_sd(v), lambda: stats.sample_sd(v))):
        with pytest.raises(ValueError, match=r"^sample: value #2 of 4 is NaN$"):
            cpp()
        with pytest.raises(ValueError, match=r"^sample: value #2 of 4 is NaN$"):
            py()


SPANS = [(0, 10), (5, 15), (15, 20), (30, 40), (35, 36), (50, 50), (60, 55), (-5, 2)]
WINDOWS = [(0, 100), (8, 32), (-10, 45), (41, 49), (12, 12), (20, 10)]


def _covered_cells(spans: list[tuple[int, int]], window: tuple[int, int]) -> int:
    """Unit cells [t, t+1) inside the window that some span covers."""
    lo, hi = window
    return sum(1 for t in range(lo, hi) if any(a <= t < b for a, b in spans))


@pytest.mark.parametrize("window", WINDOWS)
def test_busy_agrees_with_each_other_and_with_counting(window: tuple[int, int]) -> None:
    starts, ends = [a for a, _ in SPANS], [b for _, b in SPANS]
    expected = _covered_cells(SPANS, window)
    assert native.stats.union_length(SPANS, window) == expected
    assert stats.union_us(starts, ends, *window) == expected
    wall = window[1] - window[0]
    if wall <= 0:
        assert native.stats.busy_fraction(SPANS, window) is None
        assert math.isnan(stats.busy_fraction(starts, ends, *window))
    else:
        assert native.stats.busy_fraction(SPANS, window) == pytest.approx(expected / wall, rel=1e-15)
        assert stats.busy_fraction(starts, ends, *window) == native.stats.busy_fraction(SPANS, window)
