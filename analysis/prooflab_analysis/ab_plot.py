"""A/B figure: every run of every arm, and each variant's relative change against the
minimum effect, with the verdict in the caption.

Left: per-run points of the metric for each arm of each cell (the repetitions side by
side in run order, the arm's mean as a bar), so that noise, drift and outliers are seen
before any statistic. Right: a forest plot, one row per (cell, variant) of
abtest.ab_table: the relative change of the mean with its 95 % bootstrap interval, the
zero line and the band of +/- the minimum effect (changes inside it are not results). The
caption gives each row's verdict with its numbers (and, when inconclusive, the runs per arm that
would resolve a minimum-effect change).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import stats  # noqa: E402

VERDICT_COLORS = {"improved": "#2ca02c", "regressed": "#d62728", "no detectable change": "#7f7f7f",
                  "inconclusive": "#ff7f0e"}
ARM_COLORS = ("#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def arm_values(runs: pd.DataFrame, column: str) -> pd.DataFrame:
    """The runs that count in an A/B table (complete, with a value): cell, variant, order, value."""
    usable = runs[runs["status"] == "complete"] if "status" in runs.columns else runs
    value = pd.to_numeric(usable[column], errors="coerce")
    usable = usable.assign(value=value)[value.notna()]
    order = usable["order"] if "order" in usable.columns else pd.Series(range(len(usable)), index=usable.index)
    return pd.DataFrame({"cell": usable["cell"], "variant": usable["variant"], "order": order,
                         "value": usable["value"]}).sort_values("order", kind="stable")


def _caption_line(row: pd.Series) -> str:
    if pd.isna(row["rel_change"]):
        numbers = "no estimate"
    elif pd.isna(row["ci_low"]):
        numbers = f"{row['rel_change']:+.1%}, no interval"
    else:
        p = "" if pd.isna(row["p_value"]) else f", p={row['p_value']:.3g}"
        numbers = f"{row['rel_change']:+.1%}, 95 % CI {row['ci_low']:+.1%} .. {row['ci_high']:+.1%}{p}"
    note = f"; {row['note']}" if isinstance(row["note"], str) and row["note"] else ""
    if row["verdict"] == "inconclusive" and pd.notna(row["reps_needed"]):
        note += f"; about {int(row['reps_needed'])} runs per arm would resolve a {row['min_effect']:.0%} change"
    return f"{row['variant']} @ {row['cell']}: {row['verdict']} ({numbers}{note})"


def ab_figure(runs: pd.DataFrame, table: pd.DataFrame, column: str, *, metric: str | None = None,
              baseline: str = "baseline", higher_is_better: bool = False) -> Figure:
    """Per-run points and the forest plot of an A/B table (abtest.ab_table over `column`)."""
    metric = metric or column
    if table.empty:
        raise ValueError(f"A/B figure for {metric}: the A/B table is empty (no variant besides {baseline!r})")
    values = arm_values(runs, column)
    cells = list(pd.unique(table["cell"]))
    arms = [baseline] + [v for v in pd.unique(table["variant"]) if v != baseline]
    n_rows = len(table)
    # Heights in inches: title, panels, the points panel's three-line tick labels, caption.
    top_in, axes_in, ticks_in = 0.55, 1.2 + 0.42 * max(n_rows, 3), 0.85
    caption_in = 0.2 + 0.2 * (n_rows + 1)
    fig_h = top_in + axes_in + ticks_in + caption_in
    fig = plt.figure(figsize=(16, fig_h), dpi=200)
    grid = fig.add_gridspec(1, 2, width_ratios=[1.0, 1.0], left=0.06, right=0.82, top=1 - top_in / fig_h,
                            bottom=(caption_in + ticks_in) / fig_h, wspace=0.55)
    points, forest = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])

    ticks, tick_labels = [], []
    x = 0.0
    for cell in cells:
        for arm in [baseline] + list(table.loc[table["cell"] == cell, "variant"]):
            sel = values[(values["cell"] == cell) & (values["variant"] == arm)]
            k = arms.index(arm)
            offsets = np.linspace(-0.25, 0.25, len(sel)) if len(sel) > 1 else np.zeros(len(sel))
            color = ARM_COLORS[k % len(ARM_COLORS)]
            points.scatter(x + offsets, sel["value"], s=22, color=color, zorder=3, label=arm if cell == cells[0] else None)
            if len(sel):
                points.hlines(stats.mean(sel["value"], f"{arm} {cell}"), x - 0.33, x + 0.33, color=color, linewidth=2.0, zorder=2)
            ticks.append(x)
            tick_labels.append(f"{arm}\n{cell}\nn={len(sel)}")
            x += 1.0
        x += 0.6
    points.set_xticks(ticks)
    points.set_xticklabels(tick_labels, fontsize=8.5)
    direction = "higher" if higher_is_better else "lower"
    points.set_ylabel(f"{metric} ({direction} is better)", fontsize=10)
    points.set_title("every run (bar: mean of the arm)", fontsize=11, loc="left")
    points.grid(axis="y", color="#e5e5e5", linewidth=0.6)
    points.tick_params(axis="y", labelsize=9)
    points.legend(fontsize=8.5, frameon=False, loc="best")

    min_effect = float(table["min_effect"].dropna().iloc[0]) if table["min_effect"].notna().any() else float("nan")
    ys = np.arange(n_rows)[::-1]
    if np.isfinite(min_effect):
        forest.axvspan(-100 * min_effect, 100 * min_effect, color="#eeeeee", zorder=0)
        for edge in (-1, 1):
            forest.axvline(edge * 100 * min_effect, color="#999999", linestyle=":", linewidth=1.0)
    forest.axvline(0.0, color="black", linewidth=0.9)
    for y, (_, row) in zip(ys, table.iterrows()):
        color = VERDICT_COLORS.get(str(row["verdict"]), "#333333")
        rel = 100 * float(row["rel_change"]) if pd.notna(row["rel_change"]) else np.nan
        if pd.notna(row["ci_low"]):
            err = [[rel - 100 * row["ci_low"]], [100 * row["ci_high"] - rel]]
        else:
            err = None
        forest.errorbar([rel], [y], xerr=err, fmt="o", color=color, capsize=4, markersize=7, linewidth=1.8,
                        label=str(row["verdict"]))
    forest.set_yticks(ys)
    forest.set_yticklabels([f"{r.variant} @ {r.cell}" for r in table.itertuples()], fontsize=9)
    forest.set_ylim(-0.7, n_rows - 0.3)
    forest.set_xlabel(f"relative change of the mean vs {baseline} [%]", fontsize=10)
    forest.set_title("change with 95 % bootstrap CI", fontsize=11, loc="left")
    forest.tick_params(axis="x", labelsize=9)
    forest.grid(axis="x", color="#e5e5e5", linewidth=0.6)
    handles = [Line2D([], [], marker="o", linestyle="", color=VERDICT_COLORS[v], label=v) for v in VERDICT_COLORS
               if v in set(table["verdict"])]
    if np.isfinite(min_effect):
        handles.append(Patch(facecolor="#eeeeee", edgecolor="#999999", linestyle=":",
                             label=f"within ±{min_effect:.0%} (minimum effect)"))
    forest.legend(handles=handles, fontsize=8.5, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))

    fig.suptitle(f"A/B: {metric} vs {baseline}, per cell", fontsize=12, x=0.06, ha="left")
    caption = ["Verdicts (improved / regressed need the CI on one side of 0, p < 0.05 and at least the minimum "
               "effect):"] + [_caption_line(row) for _, row in table.iterrows()]
    fig.text(0.06, (caption_in - 0.1) / fig_h, "\n".join(caption), ha="left", va="top", fontsize=9)
    return fig
