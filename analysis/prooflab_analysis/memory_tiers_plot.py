"""Memory-tier figure: s/proof against peak RSS for every (pw, gw) of a sweep, the Pareto
frontier as a step line, and the memory sizes of the recommendations (memory_tiers.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .memory_tiers import DEFAULT_HEADROOM, GW, PW  # noqa: E402
from .tables import fmt_bytes  # noqa: E402

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
GIB = float(2**30)


def memory_tiers_figure(points: pd.DataFrame, recommendations: pd.DataFrame, title: str = "",
                        headroom: float = DEFAULT_HEADROOM) -> Figure:
    """Points coloured by gw and labelled with their pw; frontier; one dashed line per memory size
    at its usable share, labelled with the size and the configuration recommended for it."""
    if points.empty:
        raise ValueError("memory-tier figure: no (pw, gw) point with both s/proof and peak RSS")
    scale, unit = (GIB, "GiB") if points["peak_rss_bytes"].max() >= GIB else (2.0**20, "MiB")
    fig, ax = plt.subplots(figsize=(12, 6.5), dpi=200)
    for k, gw in enumerate(sorted(points[GW].unique())):
        sel = points[points[GW] == gw]
        x = sel["peak_rss_bytes"].to_numpy(dtype="float64") / scale
        y = sel["s_per_proof"].to_numpy(dtype="float64")
        lo = sel["s_per_proof_ci_low"].to_numpy(dtype="float64")
        hi = sel["s_per_proof_ci_high"].to_numpy(dtype="float64")
        yerr = np.where(np.isnan([y - lo, hi - y]), 0.0, [y - lo, hi - y])
        ax.errorbar(x, y, yerr=yerr, fmt="o", color=PALETTE[k % len(PALETTE)], capsize=3, markersize=7,
                    label=f"gw={gw}")
        for xi, yi, pw in zip(x, y, sel[PW]):
            ax.annotate(f"pw={pw}", (xi, yi), xytext=(5, 5), textcoords="offset points", fontsize=8.5)
    frontier = points[points["on_frontier"]].sort_values("peak_rss_bytes")
    ax.step(frontier["peak_rss_bytes"] / scale, frontier["s_per_proof"], where="post", color="black", linewidth=1.4,
            label="Pareto frontier")
    top = ax.get_ylim()[1]
    for row in recommendations.itertuples():
        x = row.usable_bytes / scale
        ax.axvline(x, color="#888888", linestyle="--", linewidth=0.9)
        what = f"pw={row.partition_workers} gw={row.gpu_workers_per_device}" if not pd.isna(
            row.partition_workers) else "nothing fits"
        ax.text(x, top, f" {fmt_bytes(row.memory_bytes)} host: {what}", rotation=90, va="top", ha="right",
                fontsize=8.5, color="#555555")
    ax.set_xlabel(f"peak RSS [{unit}] (dashed: {headroom:.0%} of each host memory size)", fontsize=10)
    ax.set_ylabel("s/proof (lower is better), 95 % t interval", fontsize=10)
    ax.grid(color="#e5e5e5", linewidth=0.6)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] == "Pareto frontier")  # the gw groups first
    ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=9, frameon=False, loc="lower left")
    ax.set_title(f"{title + ': ' if title else ''}throughput against peak memory, partition workers x GPU workers",
                 fontsize=11, loc="left")
    fig.tight_layout()
    return fig
