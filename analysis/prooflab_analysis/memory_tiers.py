"""Memory tiers: throughput against peak RSS over a partition-workers x GPU-workers sweep,
its Pareto frontier, and the configuration to run for each host memory size.

The reference authors tune pw (partition workers: syntheses in flight) and gw (GPU workers
per device) against the host's memory by hand ("RAM tier recommendations" in
cuzk-project.md). Here they are computed from the runs of an experiment:

* a *point* per (pw, gw): mean s/proof of its complete runs with a 95 % t interval, and the
  largest peak RSS of those runs (a tier must hold the worst repetition);
* the *frontier*: the points no other point beats on both s/proof and peak RSS;
* a *recommendation* per memory size M: the fastest point whose peak RSS fits in
  `headroom` x M (default 90 %: the rest for the OS, page cache and the SRS file). Without
  explicit sizes, the sizes are the "round" memory sizes (2^k and 1.5 x 2^k bytes) just
  large enough for each frontier point.

pw and gw come from run.json's config keys `partition_workers` and
`gpu_workers_per_device` (or the experiment's axes of those names); peak RSS from
summary.json `peak_rss_bytes`, else the largest counters.csv `rss_bytes` sample
(metrics.peak_rss).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from .stats import mean_t_interval
from .tables import fmt_bytes, fmt_float, markdown_table

PW, GW = "partition_workers", "gpu_workers_per_device"
POINT_COLUMNS = [PW, GW, "reps", "s_per_proof", "s_per_proof_ci_low", "s_per_proof_ci_high", "peak_rss_bytes",
                 "peak_rss_source", "on_frontier"]
RECOMMENDATION_COLUMNS = ["memory_bytes", "usable_bytes", PW, GW, "s_per_proof", "peak_rss_bytes"]
DEFAULT_HEADROOM = 0.9


def has_memory_sweep(runs: pd.DataFrame) -> bool:
    """Whether the runs vary pw or gw and have s/proof and peak RSS to compare. Not when they
    also vary the device count: a (pw, gw) point would average unlike machines (the devices
    table, devices.py, is that sweep's)."""
    needed = (PW, GW, "s_per_proof", "peak_rss_bytes")
    if any(c not in runs.columns for c in needed):
        return False
    if "devices" in runs.columns and runs["devices"].nunique() > 1:
        return False
    usable = runs.dropna(subset=list(needed))
    return len(usable.groupby([PW, GW])) >= 2


def memory_points(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (pw, gw) over the complete runs with s/proof and peak RSS (POINT_COLUMNS),
    ordered by peak RSS; `on_frontier` marks the Pareto-optimal points."""
    for col in (PW, GW, "s_per_proof", "peak_rss_bytes"):
        if col not in runs.columns:
            raise ValueError(f"memory tiers: the runs have no {col!r} (run.json config / summary.json / counters.csv)")
    usable = runs[runs["status"] == "complete"] if "status" in runs.columns else runs
    usable = usable.assign(**{c: pd.to_numeric(usable[c], errors="coerce")
                              for c in (PW, GW, "s_per_proof", "peak_rss_bytes")})
    usable = usable.dropna(subset=[PW, GW, "s_per_proof", "peak_rss_bytes"])
    rows = []
    for (pw, gw), grp in usable.groupby([PW, GW], sort=True):
        mean, _, lo, hi = mean_t_interval(grp["s_per_proof"])
        worst = grp.loc[grp["peak_rss_bytes"].idxmax()]
        rows.append({PW: int(pw), GW: int(gw), "reps": len(grp), "s_per_proof": mean, "s_per_proof_ci_low": lo,
                     "s_per_proof_ci_high": hi, "peak_rss_bytes": float(worst["peak_rss_bytes"]),
                     "peak_rss_source": str(worst.get("peak_rss_source", ""))})
    points = pd.DataFrame(rows, columns=POINT_COLUMNS[:-1])
    points = points.sort_values(["peak_rss_bytes", "s_per_proof"], kind="stable").reset_index(drop=True)
    points["on_frontier"] = pareto_frontier(points["peak_rss_bytes"].to_numpy(), points["s_per_proof"].to_numpy())
    return points


def pareto_frontier(memory: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """True for the points no other point dominates: none needs no more memory and no more
    s/proof while needing less of one (exact ties both stay). Quadratic; sweeps are small."""
    m, t = np.asarray(memory, dtype="float64"), np.asarray(seconds, dtype="float64")
    no_worse = (m[None, :] <= m[:, None]) & (t[None, :] <= t[:, None])
    better = (m[None, :] < m[:, None]) | (t[None, :] < t[:, None])
    return ~(no_worse & better).any(axis=1)


def round_memory_size(nbytes: float) -> int:
    """The smallest 2^k or 1.5 x 2^k bytes that is at least `nbytes` (16, 24, 32, 48 GiB...)."""
    if nbytes <= 1:
        return 1
    k = math.ceil(math.log2(nbytes))
    candidates = [2 ** k, 3 * 2 ** (k - 2)]
    return int(min(c for c in candidates if c >= nbytes))


def recommend(points: pd.DataFrame, memory_sizes: Sequence[float] | None = None,
              headroom: float = DEFAULT_HEADROOM) -> pd.DataFrame:
    """Per memory size, the fastest point whose peak RSS fits in headroom x size
    (RECOMMENDATION_COLUMNS; pw/gw empty where nothing fits)."""
    if not 0 < headroom <= 1:
        raise ValueError(f"headroom is the usable share of memory in (0, 1], got {headroom}")
    if memory_sizes is None:
        frontier = points[points["on_frontier"]]
        memory_sizes = sorted({round_memory_size(r / headroom) for r in frontier["peak_rss_bytes"]})
    rows = []
    for size in memory_sizes:
        if not size > 0:
            raise ValueError(f"memory sizes are positive byte counts, got {size!r}")
        usable = headroom * float(size)
        fits = points[points["peak_rss_bytes"] <= usable]
        row = {"memory_bytes": float(size), "usable_bytes": usable, PW: pd.NA, GW: pd.NA,
               "s_per_proof": float("nan"), "peak_rss_bytes": float("nan")}
        if not fits.empty:
            best = fits.sort_values(["s_per_proof", "peak_rss_bytes"], kind="stable").iloc[0]
            row.update({PW: int(best[PW]), GW: int(best[GW]), "s_per_proof": float(best["s_per_proof"]),
                        "peak_rss_bytes": float(best["peak_rss_bytes"])})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=RECOMMENDATION_COLUMNS)
    return frame.astype({PW: "Int64", GW: "Int64"})


def points_markdown(points: pd.DataFrame) -> str:
    shown = points.assign(
        ci=[f"{lo:.2f}–{hi:.2f}" if np.isfinite(lo) else "" for lo, hi in
            zip(points["s_per_proof_ci_low"], points["s_per_proof_ci_high"])],
        on_frontier=np.where(points["on_frontier"], "yes", ""))
    shown = shown[[PW, GW, "reps", "s_per_proof", "ci", "peak_rss_bytes", "peak_rss_source", "on_frontier"]]
    return markdown_table(shown, {"s_per_proof": fmt_float(2), "peak_rss_bytes": fmt_bytes},
                          {PW: "pw", GW: "gw", "s_per_proof": "s/proof", "ci": "95 % CI", "peak_rss_bytes": "peak RSS",
                           "peak_rss_source": "RSS from", "on_frontier": "Pareto frontier"})


def recommendations_markdown(table: pd.DataFrame, headroom: float = DEFAULT_HEADROOM) -> str:
    shown = table.assign(config=[f"pw={pw} gw={gw}" if not pd.isna(pw) else "nothing measured fits"
                                 for pw, gw in zip(table[PW], table[GW])])
    shown = shown[["memory_bytes", "usable_bytes", "config", "s_per_proof", "peak_rss_bytes"]]
    return markdown_table(shown, {"memory_bytes": fmt_bytes, "usable_bytes": fmt_bytes, "s_per_proof": fmt_float(2),
                                  "peak_rss_bytes": fmt_bytes},
                          {"memory_bytes": "host memory", "usable_bytes": f"usable ({headroom:.0%})",
                           "config": "run", "s_per_proof": "s/proof", "peak_rss_bytes": "peak RSS"})
