"""Sweep figure: how throughput, utilisation and GPU time per partition move with concurrency.

Three panels against the concurrency j (the x ticks also give the proof count c), one
line per variant (the baseline first, in the same colour in every panel, the variants
set slightly apart around each j so that their bars stay visible):
1. the metric (s/proof by default; energy per proof with metric="j_per_proof" or
   "gpu_j_per_proof"), mean of the repetitions with its 95 % Student-t interval
   (sweep.sweep_table);
2. GPU busy from the timeline's GPU_START..GPU_END spans (solid) against CUPTI kernel busy
   (dashed): the gap is lock-held time the kernels did not use;
3. GPU ms per partition with its 95 % interval: its growth with load is the inflation
   the reference measured (5.0 -> 6.0 s).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def _tick_labels(table: pd.DataFrame) -> tuple[list[float], list[str]]:
    ticks = sorted(table["j"].dropna().unique())
    labels = []
    for j in ticks:
        cs = sorted(int(c) for c in table.loc[table["j"] == j, "c"].dropna().unique())
        labels.append(f"{int(j)}\nc={','.join(map(str, cs))}" if cs else f"{int(j)}")
    return ticks, labels


def _errorbar(ax, x: np.ndarray, mean: np.ndarray, lo: np.ndarray, hi: np.ndarray, **style) -> None:
    yerr = np.vstack([mean - lo, hi - mean])
    yerr = np.where(np.isnan(yerr), 0.0, yerr)  # one repetition: a point without a bar
    ax.errorbar(x, mean, yerr=yerr, capsize=4, linewidth=1.6, markersize=6, **style)


# metric of the first panel -> (its axis label, its title)
FIRST_PANEL = {
    "s_per_proof": ("s/proof (lower is better)", "throughput"),
    "j_per_proof": ("J/proof, GPU + host (lower is better)", "energy per proof"),
    "gpu_j_per_proof": ("GPU J/proof (lower is better)", "GPU energy per proof"),
}


def sweep_figure(table: pd.DataFrame, title: str = "", metric: str = "s_per_proof") -> Figure:
    """The figure of a sweep table (sweep.sweep_table: rows per cell and variant, baseline
    first); `metric` is what the first panel shows (FIRST_PANEL)."""
    if metric not in FIRST_PANEL:
        raise ValueError(f"sweep figure: metric {metric!r} is not one of {', '.join(FIRST_PANEL)}")
    if table.empty or table["j"].dropna().empty:
        raise ValueError("sweep figure: the sweep table has no rows with a concurrency (j)")
    if table[metric].dropna().empty:
        raise ValueError(f"sweep figure: no run of the sweep recorded {metric}")
    variants = list(pd.unique(table["variant"]))
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.0), dpi=200)
    ticks, tick_labels = _tick_labels(table)
    # Variants side by side around each j, so that their interval bars do not hide each other.
    dodge = 0.012 * (max(ticks) - min(ticks)) if len(ticks) > 1 else 0.05
    for k, variant in enumerate(variants):
        rows = table[table["variant"] == variant].sort_values("j")
        x = rows["j"].to_numpy(dtype="float64") + (k - (len(variants) - 1) / 2) * dodge
        color = PALETTE[k % len(PALETTE)]
        _errorbar(axes[0], x, rows[metric].to_numpy(dtype="float64"),
                  rows[f"{metric}_ci_low"].to_numpy(dtype="float64"),
                  rows[f"{metric}_ci_high"].to_numpy(dtype="float64"), color=color, marker="o", label=str(variant))
        axes[1].plot(x, 100 * rows["gpu_busy"].to_numpy(dtype="float64"), color=color, marker="o", linewidth=1.6,
                     label=f"GPU busy, spans ({variant})")
        kernel = rows["kernel_busy"].to_numpy(dtype="float64")
        if np.isfinite(kernel).any():
            axes[1].plot(x, 100 * kernel, color=color, marker="s", linestyle="--", linewidth=1.6,
                         label=f"kernel busy, CUPTI ({variant})")
        _errorbar(axes[2], x, rows["gpu_ms_per_partition"].to_numpy(dtype="float64"),
                  rows["gpu_ms_per_partition_ci_low"].to_numpy(dtype="float64"),
                  rows["gpu_ms_per_partition_ci_high"].to_numpy(dtype="float64"), color=color, marker="o",
                  label=str(variant))
    labels = (FIRST_PANEL[metric][0], "busy share of the run window [%]", "GPU ms per partition")
    for ax, ylabel in zip(axes, labels):
        ax.set_xticks(ticks)
        ax.set_xticklabels(tick_labels, fontsize=9)
        ax.set_xlabel("concurrency j (proofs in flight)", fontsize=10)
        ax.set_ylabel(ylabel, fontsize=10)
        ax.tick_params(axis="y", labelsize=9)
        ax.grid(color="#e5e5e5", linewidth=0.6)
        ax.legend(fontsize=8.5, frameon=False)
    axes[0].set_title(FIRST_PANEL[metric][1], fontsize=11, loc="left")
    axes[1].set_title("GPU busy vs kernel busy", fontsize=11, loc="left")
    axes[2].set_title("GPU time per partition (inflation with load)", fontsize=11, loc="left")
    axes[1].set_ylim(0, 105)
    heading = f"{title}: " if title else ""
    fig.suptitle(f"{heading}mean of the complete repetitions per cell; bars: 95 % t interval", fontsize=11,
                 x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
