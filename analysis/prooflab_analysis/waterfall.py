"""Waterfall (Gantt) chart of a run: GPU workers, CUDA streams, CPU stages, counters.

Lanes, top to bottom:
* per device: one lane per GPU worker with its GPU_START..GPU_END bars coloured by job
  and labelled with the partition number where the bar is wide enough (the lock wait and, under
  two_lock, the pre-staging show as thin bars along the lane's bottom edge); then the
  device's CUDA lanes from cupti.csv: kernels and copies per stream, device syncs;
* CPU lanes: synthesis, prep_msm, b_g2_msm and dealloc, overlapping intervals packed
  into as many sub-rows as needed so that nothing overlaps within a row;
* counter strips (memory bandwidth, TLB shootdowns, ...) on the same time axis.

Every family of bars is one PolyCollection built from a numpy vertex array (one draw
call, not one patch per bar), so a million-event timeline draws in seconds. Bars
narrower than a pixel are widened to one pixel so that short kernels stay visible.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import schema  # noqa: E402
from .metrics import pair_intervals, run_window  # noqa: E402

CPU_STAGES: tuple[tuple[str, str, str], ...] = (
    ("synthesis", "SYNTH_START", "SYNTH_END"),
    ("prep_msm", "PREP_MSM_START", "PREP_MSM_END"),
    ("b_g2_msm", "B_G2_MSM_START", "B_G2_MSM_END"),
    ("dealloc", "DEALLOC_START", "DEALLOC_END"),
)
DEFAULT_COUNTER_METRICS: tuple[str, ...] = ("dram_bandwidth", "bandwidth", "tlb_shootdowns")
CUDA_COLORS = {"KERNEL": "#1f4e79", "MEMCPY": "#e07b00", "MEMSET": "#8c8c8c", "SYNC": "#b22222"}
LOCK_WAIT_COLOR = "#c8c8c8"
PRESTAGE_COLOR = "#5a3d8a"
RASTERIZE_ABOVE = 5000  # bars; above this an SVG embeds the bars as an image
WIDTH_IN = 16.0
DPI = 100


@dataclass
class _Bars:
    """One family of bars: lane index, start/end (s), colours, optional labels."""

    lane: np.ndarray
    start: np.ndarray
    end: np.ndarray
    colors: np.ndarray | str
    labels: np.ndarray | None = None
    height: float = 0.8
    offset: float = 0.0  # from the lane's centre, in lane units


def pack_rows(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Greedy interval partitioning: row index per interval so that intervals within
    one row never overlap (an interval may start where the previous one ended). Uses
    the minimum number of rows (the maximum overlap)."""
    n = len(start)
    rows = np.zeros(n, dtype="int64")
    if n == 0:
        return rows
    order = np.lexsort((end, start))
    free: list[tuple[float, int]] = []  # (end, row) of the last interval in each row
    n_rows = 0
    starts = np.asarray(start, dtype="float64")[order]
    ends = np.asarray(end, dtype="float64")[order]
    out = np.empty(n, dtype="int64")
    for k in range(n):
        if free and free[0][0] <= starts[k]:
            _, row = heapq.heapreplace(free, (ends[k], free[0][1]))
        else:
            row = n_rows
            n_rows += 1
            heapq.heappush(free, (ends[k], row))
        out[k] = row
    rows[order] = out
    return rows


def _job_colors(jobs: np.ndarray) -> np.ndarray:
    cmap = plt.get_cmap("tab20")
    palette = np.asarray([cmap(i % 20) for i in range(20)])
    idx = np.where(pd.isna(jobs), 0, jobs).astype("int64") % 20
    return palette[idx]


def _lane_label_for_gpu(device: int, worker: int | None, gpu_span: str) -> str:
    who = f"w{worker}" if worker is not None else "w?"
    what = "GPU (ref. span)" if gpu_span == "reference" else "GPU"
    return f"dev{device} {who} {what}"


def _layout(
    timeline: pd.DataFrame, cupti: pd.DataFrame, t0: float, gpu_span: str
) -> tuple[list[str], list[tuple[int, str]], list[_Bars], dict[int, int]]:
    """Lane labels, category separators, bar families and the job ids seen on the GPU."""
    labels: list[str] = []
    separators: list[tuple[int, str]] = []
    bars: list[_Bars] = []
    sec = 1e6

    gpu = pair_intervals(timeline, "GPU_START", "GPU_END") if not timeline.empty else pair_intervals(
        schema.empty_timeline(), "GPU_START", "GPU_END"
    )
    waits = pair_intervals(timeline, "LOCK_WAIT_START", "GPU_START") if not timeline.empty else gpu.iloc[:0]
    prestage = pair_intervals(timeline, "PRESTAGE_START", "PRESTAGE_END") if not timeline.empty else gpu.iloc[:0]
    devices = sorted(
        set(int(d) for d in gpu["device"].dropna())
        | (set(int(d) for d in cupti["device"].dropna()) if not cupti.empty else set())
    )
    jobs_seen: dict[int, int] = {}
    for dev in devices:
        start_lane = len(labels)
        on_dev = gpu[gpu["device"] == dev]
        workers = sorted(int(w) for w in on_dev["worker"].dropna().unique())
        worker_keys: list[int | None] = list(workers) + ([None] if on_dev["worker"].isna().any() else [])
        for w in worker_keys:
            lane = len(labels)
            labels.append(_lane_label_for_gpu(dev, w, gpu_span))
            sel = on_dev[on_dev["worker"] == w] if w is not None else on_dev[on_dev["worker"].isna()]
            jobs = sel["job"].to_numpy(dtype="float64", na_value=np.nan)
            for j in sel["job"].dropna().unique():
                jobs_seen[int(j)] = 1
            bars.append(
                _Bars(
                    lane=np.full(len(sel), lane),
                    start=(sel["start_us"].to_numpy(dtype="float64") - t0) / sec,
                    end=(sel["end_us"].to_numpy(dtype="float64") - t0) / sec,
                    colors=_job_colors(jobs),
                    labels=np.asarray(["" if pd.isna(p) else str(int(p)) for p in sel["partition"]], dtype=object),
                )
            )
            for fam, color in ((waits, LOCK_WAIT_COLOR), (prestage, PRESTAGE_COLOR)):
                f = fam[(fam["device"] == dev) & ((fam["worker"] == w) if w is not None else fam["worker"].isna())]
                f = f[f["dur_us"] > 0]  # a lock taken at once has no wait to show
                if len(f):
                    bars.append(
                        _Bars(lane=np.full(len(f), lane),
                              start=(f["start_us"].to_numpy(dtype="float64") - t0) / sec,
                              end=(f["end_us"].to_numpy(dtype="float64") - t0) / sec,
                              colors=color, height=0.18, offset=0.31)
                    )
        if not cupti.empty:
            dev_rows = cupti[cupti["device"] == dev]
            for stream in sorted(int(s) for s in dev_rows["stream"].dropna().unique()) + (
                [None] if dev_rows["stream"].isna().any() else []
            ):
                in_stream = dev_rows[dev_rows["stream"] == stream] if stream is not None else dev_rows[dev_rows["stream"].isna()]
                s_name = f"s{stream}" if stream is not None else "s?"
                for title, kinds in (("kernels", ("KERNEL",)), ("copies", ("MEMCPY", "MEMSET"))):
                    rows = in_stream[in_stream["kind"].isin(kinds)]
                    if rows.empty:
                        continue
                    lane = len(labels)
                    labels.append(f"dev{dev} {s_name} {title}")
                    colors = np.asarray([to_rgba(CUDA_COLORS[k]) for k in rows["kind"]]) if len(
                        kinds) > 1 else CUDA_COLORS[kinds[0]]
                    bars.append(
                        _Bars(lane=np.full(len(rows), lane),
                              start=(rows["start_us"].to_numpy(dtype="float64") - t0) / sec,
                              end=(rows["end_us"].to_numpy(dtype="float64") - t0) / sec,
                              colors=colors, height=0.6)
                    )
            syncs = dev_rows[dev_rows["kind"] == "SYNC"]
            if not syncs.empty:
                lane = len(labels)
                labels.append(f"dev{dev} sync")
                bars.append(
                    _Bars(lane=np.full(len(syncs), lane),
                          start=(syncs["start_us"].to_numpy(dtype="float64") - t0) / sec,
                          end=(syncs["end_us"].to_numpy(dtype="float64") - t0) / sec,
                          colors=CUDA_COLORS["SYNC"], height=0.6)
                )
        if len(labels) > start_lane:
            separators.append((start_lane, f"device {dev}"))

    if not timeline.empty:
        for name, start_ev, end_ev in CPU_STAGES:
            iv = pair_intervals(timeline, start_ev, end_ev)
            if iv.empty:
                continue
            start = (iv["start_us"].to_numpy(dtype="float64") - t0) / sec
            end = (iv["end_us"].to_numpy(dtype="float64") - t0) / sec
            rows = pack_rows(start, end)
            first = len(labels)
            n_rows = int(rows.max()) + 1
            labels.extend([f"{name} [{n_rows}]"] + [""] * (n_rows - 1))
            separators.append((first, name))
            bars.append(
                _Bars(lane=first + rows, start=start, end=end,
                      colors=_job_colors(iv["job"].to_numpy(dtype="float64", na_value=np.nan)), height=0.8)
            )
    return labels, separators, bars, jobs_seen


def _collection(b: _Bars, min_width: float) -> PolyCollection:
    x0 = b.start
    x1 = np.maximum(b.end, b.start + min_width)
    y_mid = b.lane.astype("float64") + b.offset
    y0 = y_mid - b.height / 2
    y1 = y_mid + b.height / 2
    verts = np.empty((len(x0), 4, 2))
    verts[:, 0, 0] = x0
    verts[:, 0, 1] = y0
    verts[:, 1, 0] = x0
    verts[:, 1, 1] = y1
    verts[:, 2, 0] = x1
    verts[:, 2, 1] = y1
    verts[:, 3, 0] = x1
    verts[:, 3, 1] = y0
    coll = PolyCollection(verts, facecolors=b.colors, edgecolors="none", linewidths=0, antialiaseds=False)
    if len(x0) > RASTERIZE_ABOVE:
        coll.set_rasterized(True)
    return coll


def waterfall_figure(
    timeline: pd.DataFrame,
    cupti: pd.DataFrame | None = None,
    counters: pd.DataFrame | None = None,
    *,
    title: str = "",
    gpu_span: str = "lock_held",
    counter_metrics: Sequence[str] = DEFAULT_COUNTER_METRICS,
    max_labels: int = 400,
    min_label_px: float = 8.0,
) -> Figure:
    """Draw the waterfall of one run; returns the Figure (save it with `save_figure`).

    Time is in seconds from the start of the run window (first JOB_SUBMIT, or the first
    event). `gpu_span="reference"` marks the GPU lanes as reference-log spans, which
    include the lock wait and b_g2_msm.
    """
    cupti = cupti if cupti is not None else schema.empty_cupti()
    counters = counters if counters is not None else schema.empty_counters()
    if timeline.empty and cupti.empty:
        raise ValueError("nothing to draw: the timeline and cupti frames are empty")
    if not timeline.empty:
        t0, t1 = run_window(timeline)
        t1 = max(t1, int(timeline["t_us"].max()))
    else:
        t0, t1 = float(cupti["start_us"].min()), float(cupti["end_us"].max())
    if not cupti.empty:
        t1 = max(float(t1), float(cupti["end_us"].max()))
        t0 = min(float(t0), float(cupti["start_us"].min()))
    labels, separators, bars, jobs_seen = _layout(timeline, cupti, float(t0), gpu_span)

    strips = []
    if not counters.empty:
        for metric in counter_metrics:
            sel = counters[counters["metric"] == metric]
            for source in sorted(sel["source"].unique()):
                strips.append((metric, source, sel[sel["source"] == source].sort_values("t_us")))

    n_lanes = max(len(labels), 1)
    lane_in = 0.22 if n_lanes <= 60 else max(0.05, 13.0 / n_lanes)
    gantt_h = min(max(n_lanes * lane_in + 0.8, 2.5), 30.0)
    strip_h = 1.1
    fig_h = gantt_h + strip_h * len(strips) + 0.9
    fig = plt.figure(figsize=(WIDTH_IN, fig_h), dpi=DPI)
    ratios = [gantt_h] + [strip_h] * len(strips)
    grid = fig.add_gridspec(len(ratios), 1, height_ratios=ratios, hspace=0.08,
                            left=0.12, right=0.985, top=1 - 0.45 / fig_h, bottom=0.55 / fig_h)
    ax = fig.add_subplot(grid[0])
    x_max = max((float(t1) - float(t0)) / 1e6, 1e-6)
    ax.set_xlim(0.0, x_max)
    ax.set_ylim(n_lanes - 0.5, -0.5)
    axes_px = fig.get_figwidth() * DPI * (0.985 - 0.12)
    px_per_s = axes_px / x_max
    min_width = 1.0 / px_per_s

    n_labels = 0
    for b in bars:
        if len(b.start) == 0:
            continue
        ax.add_collection(_collection(b, min_width), autolim=False)
        if b.labels is not None:
            wide = ((b.end - b.start) * px_per_s >= min_label_px) & (b.labels != "")
            if n_labels + int(wide.sum()) <= max_labels:
                for x0, x1, y, text in zip(b.start[wide], b.end[wide], b.lane[wide], b.labels[wide]):
                    ax.text((x0 + x1) / 2, y, str(text), ha="center", va="center", fontsize=6.5, color="black",
                            clip_on=True)
                n_labels += int(wide.sum())

    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7 if n_lanes <= 60 else 5)
    ax.tick_params(axis="y", length=0)
    for lane, _name in separators[1:] if separators else []:
        ax.axhline(lane - 0.5, color="#999999", linewidth=0.6)
    ax.grid(axis="x", color="#e5e5e5", linewidth=0.5)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    if 0 < len(jobs_seen) <= 20:
        palette = _job_colors(np.asarray(sorted(jobs_seen), dtype="float64"))
        handles = [Patch(facecolor=c, label=f"job {j}") for j, c in zip(sorted(jobs_seen), palette)]
        ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=6,
                  ncol=min(len(handles), 10), frameon=False, borderaxespad=0.2)

    axes = [ax]
    for i, (metric, source, rows) in enumerate(strips, start=1):
        sax = fig.add_subplot(grid[i], sharex=ax)
        x = (rows["t_us"].to_numpy(dtype="float64") - float(t0)) / 1e6
        y = rows["value"].to_numpy(dtype="float64")
        visible = (x >= 0) & (x <= x_max)  # so that the y scale fits what is shown
        x, y = x[visible], y[visible]
        sax.step(x, y, where="post", linewidth=0.9, color="#2a7f62")
        unit = str(rows["unit"].iloc[0]) if len(rows) else ""
        sax.set_ylabel(f"{metric}\n{source} [{unit}]", fontsize=7, rotation=0, ha="right", va="center")
        sax.tick_params(axis="y", labelsize=6)
        sax.grid(axis="x", color="#e5e5e5", linewidth=0.5)
        axes.append(sax)
    for a in axes[:-1]:
        a.tick_params(axis="x", labelbottom=False)
    axes[-1].set_xlabel("time since run start [s]", fontsize=8)
    axes[-1].tick_params(axis="x", labelsize=7)
    return fig


def save_figure(fig: Figure, stem: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write `<stem>.<fmt>` for each format; returns the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix(f".{fmt}")
        fig.savefig(path, format=fmt, dpi=DPI)
        paths.append(path)
    return paths
