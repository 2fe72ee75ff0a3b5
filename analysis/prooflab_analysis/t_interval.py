"""Student-t confidence interval of a mean, for figures and tables that show the spread of a
few repetitions (sweep points, memory-tier cells).

With n repetitions: mean ± t_{(1+confidence)/2, n-1} · s / √n, s the sample standard
deviation (ddof 1). One repetition has no estimate of noise: the interval is NaN, never 0.
(The A/B verdicts use a bootstrap and a rank test instead: abtest.py.)
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from scipy import stats


def mean_t_interval(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, float, float]:
    """(mean, sd, low, high) of the finite values; sd/low/high NaN with fewer than two."""
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
    half = float(stats.t.ppf((1 + confidence) / 2, x.size - 1)) * sd / math.sqrt(x.size)
    return mean, sd, mean - half, mean + half
