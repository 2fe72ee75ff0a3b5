"""A/B verdicts over interleaved repetitions.

For one metric, a variant is compared with the baseline of the same cell:

* relative change of the mean (or median): (variant - baseline) / baseline;
* a 95 % percentile-bootstrap confidence interval of that relative change (seeded,
  both arms resampled independently, 5000 resamples by default);
* a two-sided Mann-Whitney U rank test (scipy), which does not assume normal noise;
* a minimum effect size (default 2 %): changes smaller than that are not results.

Verdicts, with "better" meaning lower for times and higher for rates:

* improved / regressed: the CI lies entirely on one side of 0, the rank test has
  p < alpha, and the point estimate is at least the minimum effect;
* no detectable change: the whole CI lies inside (-min_effect, +min_effect) -- any
  effect there is smaller than what we care about (an A/A comparison lands here);
* inconclusive: anything else -- the CI reaches past the threshold on a side the test
  cannot confirm. `reps_needed` is then the repetitions per arm that would resolve a
  `min_effect` difference at 80 % power given the observed noise, and the note says what
  to run (`--reps N`); where that would take more than stats.MAX_PRACTICAL_REPS runs,
  reps_needed is NaN and the note says to lower the noise instead.

The statistics themselves (bootstrap, rank test, sample size) live in stats.py.

A 0.3 % difference from one run each is noise, not a result: with fewer than two runs
per arm, or too few for the rank test to be able to reach p < alpha at all (3 vs 3 at
alpha = 0.05; 4 vs 4 suffices), the verdict is inconclusive, whichever way the
bootstrap leans -- a bootstrap over three values is overconfident.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from . import nodes, stats

from . import energy

# Direction of "better" for the metrics that run_metrics produces.
HIGHER_IS_BETTER: frozenset[str] = frozenset(
    {"proofs_per_min", "steady_proofs_per_min", "gpu_busy", "kernel_busy", "throughput_proofs_per_min",
     "summary.throughput_proofs_per_min", "bandwidth_gbps"}
) | energy.HIGHER_IS_BETTER
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {"s_per_proof", "steady_s_per_proof", "latency_p50_s", "latency_p95_s", "latency_mean_s",
     "gpu_ms_per_partition", "synth_ms", "window_s", "idle_gap_ms_total", "handoff_gap_ms_total",
     "summary.s_per_proof", "summary.total_s"}
) | energy.LOWER_IS_BETTER

VERDICTS = ("improved", "regressed", "no detectable change", "inconclusive")


def metric_higher_is_better(metric: str) -> bool:
    """Direction of a known metric; stage times (`stage_*_ms`) are lower-is-better."""
    if metric in HIGHER_IS_BETTER:
        return True
    if metric in LOWER_IS_BETTER or (metric.startswith("stage_") and metric.endswith("_ms")):
        return False
    raise ValueError(
        f"direction of metric {metric!r} is unknown: pass higher_is_better explicitly "
        f"(known: {sorted(HIGHER_IS_BETTER | LOWER_IS_BETTER)})"
    )


@dataclass(frozen=True)
class Comparison:
    metric: str
    statistic: str
    higher_is_better: bool
    n_baseline: int
    n_variant: int
    baseline_value: float
    variant_value: float
    rel_change: float
    ci_low: float
    ci_high: float
    p_value: float
    min_effect: float
    verdict: str
    reps_needed: float
    note: str


def compare(
    baseline: Iterable[float],
    variant: Iterable[float],
    *,
    metric: str = "value",
    higher_is_better: bool,
    min_effect: float = 0.02,
    statistic: str = "mean",
    n_boot: int = 5000,
    seed: int = 0,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> Comparison:
    """Compare two samples of one metric; see the module docstring for the verdict rules."""
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    if n_boot < 2000:
        raise ValueError(f"n_boot must be at least 2000 for a stable 95 % interval, got {n_boot}")
    if not 0 < min_effect < 1:
        raise ValueError(f"min_effect is a fraction in (0, 1), got {min_effect}")
    a = np.asarray(list(baseline), dtype="float64")
    b = np.asarray(list(variant), dtype="float64")
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    nan = float("nan")
    base_value = float(stats.center(a, statistic)) if a.size else nan
    var_value = float(stats.center(b, statistic)) if b.size else nan
    rel = (var_value - base_value) / base_value if a.size and b.size and base_value != 0 else nan

    def result(verdict: str, lo: float, hi: float, p: float, note: str) -> Comparison:
        needed = nan
        if verdict == "inconclusive" and base_value != 0:
            needed, advice = stats.advice_for_more_reps(a, b, min_effect, alpha)
            note = f"{note}; {advice}" if note else advice
        return Comparison(metric, statistic, higher_is_better, int(a.size), int(b.size), base_value, var_value,
                          rel, lo, hi, p, min_effect, verdict, needed, note)

    if a.size < 2 or b.size < 2:
        return result("inconclusive", nan, nan, nan, "fewer than 2 repetitions in an arm: no estimate of noise")
    if base_value == 0:
        return result("inconclusive", nan, nan, nan, "baseline is 0: relative change undefined")
    if not stats.rank_test_can_reach(a.size, b.size, alpha):
        # A bootstrap over 2-3 runs per arm is overconfident; refuse both kinds of verdict.
        lo, hi = stats.bootstrap_rel_change(a, b, statistic, n_boot, seed, confidence)
        return result("inconclusive", lo, hi, nan,
                      f"{a.size} vs {b.size} runs: too few for the rank test to reach p < {alpha:g}")
    lo, hi = stats.bootstrap_rel_change(a, b, statistic, n_boot, seed, confidence)
    p = stats.mann_whitney_p(a, b)

    sign = 1.0 if higher_is_better else -1.0
    good, good_lo, good_hi = sign * rel, min(sign * lo, sign * hi), max(sign * lo, sign * hi)
    notes = []
    if good_lo > 0 and p < alpha and good >= min_effect:
        verdict = "improved"
    elif good_hi < 0 and p < alpha and -good >= min_effect:
        verdict = "regressed"
    elif -min_effect < lo and hi < min_effect:
        verdict = "no detectable change"
        if (lo > 0 or hi < 0) and p < alpha:
            notes.append(f"significant but smaller than the {min_effect:.0%} minimum effect")
    else:
        verdict = "inconclusive"
        if (good_lo > 0 or good_hi < 0) and p >= alpha:
            notes.append(f"CI excludes 0 but the rank test does not confirm it (p={p:.3g})")
        elif abs(rel) < min_effect:
            notes.append("CI reaches past the minimum effect")
        else:
            notes.append("CI includes 0")
    return result(verdict, lo, hi, p, "; ".join(notes))


def _interleaved(orders_a: Sequence[int], orders_b: Sequence[int]) -> bool:
    """True when the two arms' run orders overlap (neither arm ran entirely first)."""
    if not len(orders_a) or not len(orders_b):
        return True
    return max(orders_a) > min(orders_b) and max(orders_b) > min(orders_a)


AB_COLUMNS = [
    "cell", "variant", "baseline", "metric", "n_baseline", "n_variant", "baseline_value", "variant_value",
    "rel_change", "ci_low", "ci_high", "p_value", "min_effect", "verdict", "reps_needed", "note",
]


def ab_table(
    runs: pd.DataFrame,
    metric: str = "s_per_proof",
    *,
    baseline: str = "baseline",
    higher_is_better: bool | None = None,
    min_effect: float = 0.02,
    statistic: str = "mean",
    n_boot: int = 5000,
    seed: int = 0,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """One row per (cell, variant != baseline): the comparison with that cell's baseline.

    `runs` has one row per run with `cell`, `variant`, `order`, `status` and the metric
    (metrics.experiment_metrics). Only runs with status `complete` and a value count. With a
    `node` column (Slurm runs), a comparison whose runs span nodes says so in its note.
    """
    for col in ("cell", "variant", metric):
        if col not in runs.columns:
            raise ValueError(f"runs frame lacks column {col!r}")
    if baseline not in set(runs["variant"]):
        raise ValueError(f"baseline variant {baseline!r} not in the experiment (variants: {sorted(set(runs['variant']))})")
    direction = higher_is_better if higher_is_better is not None else metric_higher_is_better(metric)
    usable = runs
    if "status" in usable.columns:
        usable = usable[usable["status"] == "complete"]
    usable = usable[pd.to_numeric(usable[metric], errors="coerce").notna()]
    rows = []
    for cell in pd.unique(runs["cell"]):
        in_cell = usable[usable["cell"] == cell]
        all_in_cell = runs[runs["cell"] == cell]
        base = in_cell[in_cell["variant"] == baseline]
        for variant in pd.unique(all_in_cell["variant"]):
            if variant == baseline:
                continue
            var = in_cell[in_cell["variant"] == variant]
            if (all_in_cell["variant"] == baseline).sum() == 0:
                rows.append({"cell": cell, "variant": variant, "baseline": baseline, "metric": metric,
                             "n_baseline": 0, "n_variant": len(var), "verdict": "inconclusive",
                             "note": f"no {baseline!r} runs in this cell"})
                continue
            cmp = compare(base[metric].astype(float), var[metric].astype(float), metric=metric,
                          higher_is_better=direction, min_effect=min_effect, statistic=statistic,
                          n_boot=n_boot, seed=seed, alpha=alpha)
            row = {"cell": cell, "variant": variant, "baseline": baseline, **asdict(cmp)}
            excluded = int(len(all_in_cell[all_in_cell["variant"].isin([baseline, variant])]) - len(base) - len(var))
            notes = [row["note"]] if row["note"] else []
            if excluded:
                notes.append(f"{excluded} run(s) not complete or without a value left out")
            if "order" in runs.columns and not _interleaved(list(base["order"]), list(var["order"])):
                notes.append("arms were not interleaved: drift can look like an effect")
            if "node" in runs.columns:
                mixed = nodes.mixed_nodes_note(list(base["node"]) + list(var["node"]))
                if mixed:
                    notes.append(mixed)
            row["note"] = "; ".join(notes)
            rows.append(row)
    frame = pd.DataFrame(rows)
    for col in AB_COLUMNS:
        if col not in frame.columns:
            frame[col] = np.nan
    return frame[AB_COLUMNS]
