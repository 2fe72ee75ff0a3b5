"""Waterfall (Gantt) chart of a run: where the time goes, stage by stage.

Encoding:
* colour = the stage (`STAGE_COLORS`: synthesis, queue wait, lock wait, prestage, the GPU
  phase with its sub-stages ntt_h / batch_add / tail_msm drawn inside it, b_g2_msm,
  prep_msm, dealloc, throttle, job lifetime) or the CUDA activity kind (`CUDA_COLORS`);
* the job = a label on the bar (its id as the run or the reference log names it, with the
  partition) and a hatch that cycles over four patterns by job number, so that two
  neighbouring jobs' bars differ even where no label fits; bars at least 4 px wide have a
  thin outline;
* failed partitions and jobs the integrity checks exclude: a red / orange hatched frame;
* every kind of mark drawn has a legend entry; counter strips (memory bandwidth, TLB
  shootdowns) share the time axis.

Save with figures.save_figure. The lanes come from `waterfall_lanes.waterfall_layout`. Bars are drawn with
`Axes.broken_barh`, one collection per (lane, stage, hatch). Level of detail: when more
bars are in view than `DETAIL_MAX_BARS`, each lane and stage is drawn as pixel columns
shaded by the share of the column that is busy (8 steps of the stage's colour), so that a
million-event run stays readable (a GPU lane busy 85 % of the time looks 85 % dark) and
draws in seconds; labels, outlines and job hatches are then left out and a note says so.
A time window (`window=`, `prooflab report --window`) zooms in and brings the detail back.

Figures are 200 dpi; SVGs keep their text as text (svg.fonttype 'none').
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import schema  # noqa: E402
from .figures import DPI  # noqa: E402
from .loaders import Run  # noqa: E402
from .reflog import job_labels  # noqa: E402
from .waterfall_lanes import (  # noqa: E402
    FALLBACK_FAMILY, GPU_FAMILY, JOB_FAMILY, MARKS, STAGE_FAMILIES, SUB_STAGES, waterfall_layout,
)

STAGE_COLORS: dict[str, str] = {
    JOB_FAMILY: "#c5b0d5",
    "synthesis": "#1f77b4",
    "queue wait": "#ffbb78",
    "lock wait": "#c7c7c7",
    "prestage": "#9467bd",
    GPU_FAMILY: "#dbdb8d",
    FALLBACK_FAMILY: "#843c39",
    "ntt_h": "#d62728",
    "batch_add": "#ff7f0e",
    "tail_msm": "#2ca02c",
    "b_g2_msm": "#17becf",
    "prep_msm": "#8c564b",
    "dealloc": "#e377c2",
    "throttle": "#7f7f7f",
}
CUDA_COLORS: dict[str, str] = {"kernel": "#393b79", "memcpy": "#bcbd22", "memset": "#9edae5", "sync": "#843c39"}
FAMILY_COLORS: dict[str, str] = {**STAGE_COLORS, **CUDA_COLORS}
MARK_STYLES: dict[str, tuple[str, str, str]] = {  # mark: (colour, hatch, legend label)
    "failed": ("#d62728", "xxx", "failed partition / job"),
    "excluded": ("#ff7f0e", "\\\\\\", "excluded by integrity checks"),
}
JOB_HATCHES: tuple[str, ...] = ("", "///", "...", "\\\\\\")
# (height, offset from the lane centre) in lane units; y grows downwards.
GEOMETRY: dict[str, tuple[float, float]] = {
    **{f: (0.42, 0.0) for f in SUB_STAGES},
    "prestage": (0.26, 0.27),
    FALLBACK_FAMILY: (0.26, -0.27),
    **{f: (0.6, 0.0) for f in CUDA_COLORS},
}
DEFAULT_GEOMETRY = (0.8, 0.0)
LABELLED: frozenset[str] = frozenset({JOB_FAMILY, GPU_FAMILY, "synthesis"})
DEFAULT_COUNTER_METRICS: tuple[str, ...] = ("dram_bandwidth", "bandwidth", "tlb_shootdowns")
DETAIL_MAX_BARS = 3000
OUTLINE_MIN_PX = 4.0  # narrower bars are drawn without an outline, which would hide their colour
DENSITY_LEVELS = 8  # shades of a stage's colour in the dense view
RASTERIZE_ABOVE = 2000  # bars in one collection; above this an SVG embeds them as an image
WIDTH_IN = 16.0
FONT_PT = 8.0
LEFT_IN, RIGHT_IN = 2.1, 0.25


# ------------------------------------------------------------------- run -> figure


def device_kind(run: Run) -> str:
    """What the worker lanes are: a GPU, the CPU backend's emulated device, or a reference
    log's GPU span (which covers the lock wait and b_g2_msm too)."""
    if run.gpu_span == "reference":
        return "GPU (ref. span)"
    return "emulated" if str(run.config.get("backend", "")) == "cpu" else "GPU"


def device_name(run: Run) -> str:
    gpu = run.meta.get("gpu")
    if isinstance(gpu, dict) and gpu.get("name"):
        return str(gpu["name"])
    if str(run.config.get("backend", "")) == "cpu":
        return "CPU backend's emulated device"
    if run.meta.get("source") == "reference_log":
        return "not recorded (reference log)"
    return "unknown"


def run_title(run: Run) -> str:
    """Run id and the knobs that shape a waterfall: lock, dealloc, c, j, gw, pw, backend, device."""
    cfg = run.config

    def knob(key: str) -> str:
        value = cfg.get(key)
        return "?" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

    knobs = (f"lock={knob('lock_policy')}  dealloc={knob('dealloc_policy')}  c={knob('count')}  "
             f"j={knob('concurrency')}  gw={knob('gpu_workers_per_device')}  pw={knob('partition_workers')}  "
             f"backend={knob('backend')}  device: {device_name(run)}")
    return f"{run.run_id}\n{knobs}"


def failed_partitions(run: Run) -> set[tuple[int, int]]:
    """(job, partition) of stages.csv rows with status `failed`."""
    st = run.stages
    if st.empty:
        return set()
    bad = st[(st["status"] == "failed") & st["job"].notna() & st["partition"].notna()]
    return {(int(j), int(p)) for j, p in zip(bad["job"], bad["partition"])}


def run_waterfall(run: Run, excluded_jobs: Sequence[int] = (), *, window: tuple[float, float] | None = None,
                  **kw: Any) -> Figure:
    """The waterfall of a loaded run: its title, device kind, job names and failed partitions;
    `excluded_jobs` are the integrity checks' exclusions."""
    return waterfall_figure(run.timeline, run.cupti, run.counters, title=run_title(run), device_kind=device_kind(run),
                            job_names=job_labels(run), failed_partitions=failed_partitions(run),
                            excluded_jobs=excluded_jobs, window=window, stages=run.stages, **kw)


def parse_window(text: str) -> tuple[float, float]:
    """`START:END` in seconds since the run's start (as the command lines take it)."""
    start, sep, end = text.partition(":")
    try:
        if not sep:
            raise ValueError
        lo, hi = float(start), float(end)
    except ValueError:
        raise ValueError(f"window {text!r} is not START:END in seconds (e.g. 120:180)") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or lo < 0:
        raise ValueError(f"window {text!r}: need 0 <= START < END, finite")
    return lo, hi


# ---------------------------------------------------------------------- drawing


def covered_per_bin(start: np.ndarray, end: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Length of [start, end) intervals inside each bin [edges[i], edges[i+1]), summed
    (overlapping intervals count twice). C(x) = sum of min(max(x - s, 0), e - s) is the
    covered length left of x; a bin holds C(right) - C(left)."""
    s = np.sort(start)
    e = np.sort(end)
    cs = np.concatenate([[0.0], np.cumsum(s)])
    ce = np.concatenate([[0.0], np.cumsum(e)])
    ns = np.searchsorted(s, edges, side="left")
    ne = np.searchsorted(e, edges, side="left")
    covered_left = edges * ns - cs[ns] - (edges * ne - ce[ne])
    return np.diff(covered_left)


def _density_runs(start: np.ndarray, end: np.ndarray, lo: float, hi: float, n_bins: int,
                  levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel columns with the busy share of each quantised to `levels` steps, runs of equal
    steps merged: (run start, run end, level 1..levels); empty columns are left out."""
    edges = np.linspace(lo, hi, n_bins + 1)
    share = np.clip(covered_per_bin(start, end, edges) / np.diff(edges), 0.0, 1.0)
    level = np.ceil(share * levels - 1e-9).astype("int64")  # any work in a column shows
    change = np.flatnonzero(np.diff(level)) + 1
    first = np.concatenate([[0], change])
    last = np.concatenate([change, [n_bins]])
    keep = level[first] > 0
    return edges[first[keep]], edges[last[keep]], level[first[keep]]


def _draw_bars(ax: Any, xs: np.ndarray, xe: np.ndarray, lane: int, geometry: tuple[float, float], min_w: float,
               **style: Any) -> None:
    height, offset = geometry
    ranges = np.column_stack([xs, np.maximum(xe - xs, min_w)])
    coll = ax.broken_barh(ranges, (lane + offset - height / 2, height), **style)
    if len(ranges) > RASTERIZE_ABOVE:
        coll.set_rasterized(True)


def _job_label(job: float, partition: float, names: Mapping[int, str], family: str) -> str:
    if np.isnan(job):
        return ""
    name = names.get(int(job), str(int(job)))
    if family == JOB_FAMILY or np.isnan(partition):
        return name
    return f"{name} p{int(partition)}"


def _legend_handles(bars: pd.DataFrame, detail: bool) -> list[Any]:
    present = set(bars["family"].unique())
    edge = "black" if detail else "none"
    handles: list[Any] = [Patch(facecolor=FAMILY_COLORS[f], edgecolor=edge, linewidth=0.4, label=f)
                          for f in (*STAGE_FAMILIES, *CUDA_COLORS) if f in present]
    if detail:
        jobs = bars["job"].dropna().to_numpy()
        used = [int(k) for k in np.unique(jobs.astype("int64") % len(JOB_HATCHES))]
        if len(used) > 1:
            handles += [Patch(facecolor="white", edgecolor="black", linewidth=0.4, hatch=JOB_HATCHES[k],
                              label=f"jobs {k}, {k + len(JOB_HATCHES)}, ... (hatch)") for k in used]
    marks = set(bars["mark"].unique())
    for mark in MARKS:
        if mark in marks:
            color, hatch, label = MARK_STYLES[mark]
            handles.append(Patch(facecolor="none", edgecolor=color, hatch=hatch, linewidth=1.2, label=label))
    return handles


def waterfall_figure(
    timeline: pd.DataFrame,
    cupti: pd.DataFrame | None = None,
    counters: pd.DataFrame | None = None,
    *,
    title: str = "",
    device_kind: str = "GPU",
    job_names: Mapping[int, str] | None = None,
    failed_partitions: Sequence[tuple[int, int]] | set[tuple[int, int]] = (),
    excluded_jobs: Sequence[int] = (),
    window: tuple[float, float] | None = None,
    counter_metrics: Sequence[str] = DEFAULT_COUNTER_METRICS,
    max_labels: int = 300,
    max_streams: int = 6,
    stages: pd.DataFrame | None = None,
) -> Figure:
    """Draw the waterfall of one run; returns the Figure (save it with figures.save_figure).

    Time is in seconds from the start of the run window (first JOB_SUBMIT, or the first
    event); `window=(start, end)` in those seconds zooms in. See the module docstring for
    the encoding and waterfall_lanes for the lanes.
    """
    counters = counters if counters is not None else schema.empty_counters()
    names = dict(job_names or {})
    layout = waterfall_layout(timeline, cupti, window=window, device_kind=device_kind,
                              failed_partitions=failed_partitions, excluded_jobs=excluded_jobs, max_streams=max_streams,
                              stages=stages)
    bars = layout.bars
    x_lo, x_hi = window if window is not None else (0.0, max((layout.t1_us - layout.t0_us) / 1e6, 1e-6))
    detail = len(bars) <= DETAIL_MAX_BARS

    strips = []
    if not counters.empty:
        lo_us, hi_us = layout.t0_us + x_lo * 1e6, layout.t0_us + x_hi * 1e6
        for metric in counter_metrics:
            sel = counters[(counters["metric"] == metric) & (counters["t_us"] >= lo_us) & (counters["t_us"] <= hi_us)]
            for source in sorted(sel["source"].unique()):
                strips.append((metric, source, sel[sel["source"] == source].sort_values("t_us")))

    if window is not None:
        title = f"{title}  (window {x_lo:g}..{x_hi:g} s)" if title else f"window {x_lo:g}..{x_hi:g} s"
    handles = _legend_handles(bars, detail)
    n_lanes = max(len(layout.lanes), 1)
    lane_in = 0.26 if n_lanes <= 50 else max(0.13, 13.0 / n_lanes)
    gantt_in = max(n_lanes * lane_in + 0.2, 1.5)
    strip_in = 1.0
    title_in = 0.22 * (title.count("\n") + 1) if title else 0.0
    ncol = 7
    legend_in = 0.21 * math.ceil(len(handles) / ncol) + 0.1 if handles else 0.0
    top_in, bottom_in = 0.15 + title_in + legend_in + (0.1 if detail else 0.25), 0.55
    fig_h = top_in + gantt_in + strip_in * len(strips) + 0.1 * len(strips) + bottom_in
    fig = plt.figure(figsize=(WIDTH_IN, fig_h), dpi=DPI)
    grid = fig.add_gridspec(1 + len(strips), 1, height_ratios=[gantt_in] + [strip_in] * len(strips), hspace=0.1,
                            left=LEFT_IN / WIDTH_IN, right=1 - RIGHT_IN / WIDTH_IN, top=1 - top_in / fig_h,
                            bottom=bottom_in / fig_h)
    ax = fig.add_subplot(grid[0])
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(n_lanes - 0.5, -0.5)
    px_per_s = (WIDTH_IN - LEFT_IN - RIGHT_IN) * DPI / (x_hi - x_lo)
    min_w = 1.0 / px_per_s
    n_columns = int(round((WIDTH_IN - LEFT_IN - RIGHT_IN) * DPI))

    for (lane, family), grp in bars.groupby(["lane", "family"], sort=False):
        color = FAMILY_COLORS[str(family)]
        geometry = GEOMETRY.get(str(family), DEFAULT_GEOMETRY)
        start, end = grp["start_s"].to_numpy(), grp["end_s"].to_numpy()
        if detail:
            hatch_of = np.nan_to_num(grp["job"].to_numpy(), nan=0.0).astype("int64") % len(JOB_HATCHES)
            for k in np.unique(hatch_of):
                sel = hatch_of == k
                # an outline only where the bar is wide enough to keep its colour inside it
                outline = np.where((end[sel] - start[sel]) * px_per_s >= OUTLINE_MIN_PX, 0.4, 0.0)
                _draw_bars(ax, start[sel], end[sel], int(lane), geometry, min_w, facecolors=color, edgecolors="black",
                           linewidths=outline, hatch=JOB_HATCHES[k] or None, label=str(family))
        else:
            s, e, level = _density_runs(start, end, x_lo, x_hi, n_columns, DENSITY_LEVELS)
            rgba = np.tile(to_rgba(color), (len(level), 1))
            rgba[:, 3] = level / DENSITY_LEVELS
            _draw_bars(ax, s, e, int(lane), geometry, 0.0, facecolors=rgba, edgecolors="none", linewidths=0,
                       antialiaseds=False, label=str(family))
    for mark in MARKS:
        marked = bars[bars["mark"] == mark]
        color, hatch, _ = MARK_STYLES[mark]
        for lane, grp in marked.groupby("lane", sort=False):
            s, e = grp["start_s"].to_numpy(), grp["end_s"].to_numpy()
            if not detail:
                s, e, _ = _density_runs(s, e, x_lo, x_hi, n_columns, 1)
            _draw_bars(ax, s, e, int(lane), (0.9, 0.0), min_w, facecolors="none", edgecolors=color, linewidths=1.2,
                       hatch=hatch, label=mark)

    if detail:
        _draw_labels(ax, bars, names, px_per_s, max_labels)
    else:
        ax.text(1.0, 1.0 + 0.04 / gantt_in, f"{len(bars):,} bars: each pixel column shaded by the share of it "
                f"that is busy; labels, outlines and job hatches with a narrower time window (window=, --window)",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=FONT_PT, color="#555555")

    ax.set_yticks(range(len(layout.lanes)))
    ax.set_yticklabels(layout.lanes, fontsize=FONT_PT if n_lanes <= 50 else 6.5)
    ax.tick_params(axis="y", length=0)
    for lane, _name in layout.groups[1:]:
        ax.axhline(lane - 0.5, color="#999999", linewidth=0.6)
    ax.grid(axis="x", color="#e5e5e5", linewidth=0.5)
    ax.set_axisbelow(True)
    if title:
        fig.text(LEFT_IN / WIDTH_IN, 1 - 0.12 / fig_h, title, ha="left", va="top", fontsize=10)
    if handles:
        fig.legend(handles=handles, loc="upper left", ncol=ncol, fontsize=FONT_PT, frameon=False,
                   bbox_to_anchor=(LEFT_IN / WIDTH_IN, 1 - (0.15 + title_in) / fig_h), borderaxespad=0.0,
                   handlelength=2.2, handleheight=1.1, columnspacing=1.5)

    axes = [ax]
    for i, (metric, source, rows) in enumerate(strips, start=1):
        sax = fig.add_subplot(grid[i], sharex=ax)
        x = (rows["t_us"].to_numpy(dtype="float64") - layout.t0_us) / 1e6
        y = rows["value"].to_numpy(dtype="float64")
        unit = str(rows["unit"].iloc[0]) if len(rows) else ""
        sax.step(x, y, where="post", linewidth=0.9, color="#2a7f62", label=f"{metric} ({source}) [{unit}]")
        sax.legend(loc="upper right", fontsize=FONT_PT, frameon=False)
        sax.set_ylabel(f"{metric}\n{source} [{unit}]", fontsize=FONT_PT, rotation=0, ha="right", va="center")
        sax.tick_params(axis="y", labelsize=FONT_PT)
        sax.grid(axis="x", color="#e5e5e5", linewidth=0.5)
        axes.append(sax)
    for a in axes[:-1]:
        a.tick_params(axis="x", labelbottom=False)
    axes[-1].set_xlabel("time since run start [s]", fontsize=9)
    axes[-1].tick_params(axis="x", labelsize=FONT_PT)
    return fig


def _draw_labels(ax: Any, bars: pd.DataFrame, names: Mapping[int, str], px_per_s: float, max_labels: int) -> None:
    """Job labels on the bars wide enough to hold them, at most `max_labels`."""
    char_px = 0.6 * 7.0 * DPI / 72.0
    shown = 0
    for row in bars[bars["family"].isin(LABELLED)].itertuples(index=False):
        text = _job_label(row.job, row.partition, names, row.family)
        if not text or (row.end_s - row.start_s) * px_per_s < len(text) * char_px + 4:
            continue
        if shown >= max_labels:
            break
        ax.text((row.start_s + row.end_s) / 2, row.lane, text, ha="center", va="center", fontsize=7.0, clip_on=True,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.6})
        shown += 1
