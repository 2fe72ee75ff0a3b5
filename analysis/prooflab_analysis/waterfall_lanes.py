"""Where the waterfall's bars go: lanes and one tidy frame of bars built from a run.

`waterfall_layout` turns timeline.csv and cupti.csv rows into a `Layout`: the lane labels
top to bottom, the lane groups, and one row per bar with its lane, its *family* (the
stage it shows: colour encodes the family) and the job and partition it belongs to (the
job is drawn as a label and a hatch). The drawing (waterfall.py) knows nothing of events;
this module knows nothing of matplotlib, so lanes can be tested as numbers.

Lanes, top to bottom (a lane group exists only when it has a bar in the time window):
* jobs: each job's lifetime JOB_SUBMIT..JOB_DONE/JOB_FAILED (to its last event when it
  never ended);
* synthesis, queue wait (GPU_QUEUE..GPU_PICKUP): CPU-side, overlapping intervals packed
  into as few rows as never overlap;
* per device (a group per device; "device unknown" for workers whose device the log does
  not say, as in a reference log without worker start lines): one lane per GPU worker with its lock wait (LOCK_WAIT_START..GPU_START),
  pre-staging (two_lock), the GPU phase (GPU_START..GPU_END, lock held) and inside it the
  sub-stages ntt_h, batch_add, tail_msm (each event ends its sub-stage and carries
  `dur_us`), and the two-lock fallback's device-wide synchronise and pool trim inside the
  lock ("fallback sync": stages.csv's `pre_destructor_us` of the partition, drawn from its
  GPU_START, where core/engine/engine.cpp runs it right after taking the lock); then the device's CUDA activity from cupti.csv: kernels and copies per stream
  for the `max_streams` busiest streams, the others merged into one pair of lanes, and
  device synchronisations. NVTX markers are not drawn: they repeat the timeline's stages;
* prep_msm, b_g2_msm, dealloc (packed like synthesis), throttle (global).

Bars of failed partitions (stages.csv status `failed`, or the job's JOB_FAILED) carry
mark `failed`; bars of jobs the integrity checks exclude carry mark `excluded`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

from . import schema
from .metrics import job_spans, pair_intervals, run_window

# Families in legend order. Colours are the drawing's business (waterfall.STAGE_COLORS).
JOB_FAMILY = "job lifetime"
GPU_FAMILY = "gpu (lock held)"
FALLBACK_FAMILY = "fallback sync"
STAGE_FAMILIES: tuple[str, ...] = (
    JOB_FAMILY, "synthesis", "queue wait", "lock wait", "prestage", GPU_FAMILY, FALLBACK_FAMILY, "ntt_h",
    "batch_add", "tail_msm", "b_g2_msm", "prep_msm", "dealloc", "throttle",
)
CUDA_FAMILIES: dict[str, str] = {"KERNEL": "kernel", "MEMCPY": "memcpy", "MEMSET": "memset", "SYNC": "sync"}
MARKS: tuple[str, ...] = ("failed", "excluded")

# START/END event pairs per family; the waits drop zero-length intervals (a lock taken at
# once, a partition picked up the moment it was queued: nothing to show).
PAIRED: dict[str, tuple[str, str]] = {
    "synthesis": ("SYNTH_START", "SYNTH_END"),
    "queue wait": ("GPU_QUEUE", "GPU_PICKUP"),
    "lock wait": ("LOCK_WAIT_START", "GPU_START"),
    "prestage": ("PRESTAGE_START", "PRESTAGE_END"),
    GPU_FAMILY: ("GPU_START", "GPU_END"),
    "prep_msm": ("PREP_MSM_START", "PREP_MSM_END"),
    "b_g2_msm": ("B_G2_MSM_START", "B_G2_MSM_END"),
    "dealloc": ("DEALLOC_START", "DEALLOC_END"),
}
WAIT_FAMILIES = frozenset({"queue wait", "lock wait"})
SUB_STAGES: dict[str, str] = {"ntt_h": "NTT_H", "batch_add": "BATCH_ADD", "tail_msm": "TAIL_MSM"}
WORKER_FAMILIES: tuple[str, ...] = ("lock wait", "prestage", GPU_FAMILY, FALLBACK_FAMILY, *SUB_STAGES)
PACKED_BEFORE_GPU: tuple[str, ...] = ("synthesis", "queue wait")
PACKED_AFTER_GPU: tuple[str, ...] = ("prep_msm", "b_g2_msm", "dealloc")

BAR_COLUMNS = ["lane", "family", "job", "partition", "start_s", "end_s", "mark"]


@dataclass
class Layout:
    """Lanes top to bottom, lane groups (first lane, name) and the bars (BAR_COLUMNS;
    times in s since `t0_us`, the start of the run window)."""

    lanes: list[str]
    groups: list[tuple[int, str]]
    bars: pd.DataFrame
    t0_us: float
    t1_us: float

    def lane_of(self, label: str) -> int:
        return self.lanes.index(label)


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


class _Builder:
    """Collects lanes and bar arrays; clips every interval to the window first."""

    def __init__(self, t0_us: float, window_us: tuple[float, float]) -> None:
        self.t0 = t0_us
        self.lo, self.hi = window_us
        self.lanes: list[str] = []
        self.groups: list[tuple[int, str]] = []
        self.parts: list[pd.DataFrame] = []

    def clip(self, iv: pd.DataFrame) -> pd.DataFrame:
        """Intervals (start_us, end_us) overlapping the window, clipped to it."""
        if iv.empty:
            return iv
        keep = (iv["end_us"] >= self.lo) & (iv["start_us"] <= self.hi)
        iv = iv[keep]
        return iv.assign(start_us=iv["start_us"].clip(lower=self.lo), end_us=iv["end_us"].clip(upper=self.hi))

    def add_lane(self, label: str) -> int:
        self.lanes.append(label)
        return len(self.lanes) - 1

    def add_bars(self, lane: np.ndarray | int, family: str, iv: pd.DataFrame) -> None:
        n = len(iv)
        if n == 0:
            return
        job = iv["job"] if "job" in iv.columns else pd.Series(pd.NA, index=iv.index)
        part = iv["partition"] if "partition" in iv.columns else pd.Series(pd.NA, index=iv.index)
        self.parts.append(pd.DataFrame({
            "lane": np.broadcast_to(np.asarray(lane, dtype="int64"), (n,)),
            "family": family,
            "job": job.to_numpy(dtype="float64", na_value=np.nan),
            "partition": part.to_numpy(dtype="float64", na_value=np.nan),
            "start_s": (iv["start_us"].to_numpy(dtype="float64") - self.t0) / 1e6,
            "end_s": (iv["end_us"].to_numpy(dtype="float64") - self.t0) / 1e6,
        }))

    def add_packed(self, name: str, family: str, iv: pd.DataFrame) -> None:
        """One group of as many rows as the intervals overlap."""
        iv = self.clip(iv)
        if iv.empty:
            return
        rows = pack_rows(iv["start_us"].to_numpy(dtype="float64"), iv["end_us"].to_numpy(dtype="float64"))
        n_rows = int(rows.max()) + 1
        first = len(self.lanes)
        self.lanes.extend([f"{name} [{n_rows}]"] + [""] * (n_rows - 1))
        self.groups.append((first, name))
        self.add_bars(first + rows, family, iv)

    def frame(self) -> pd.DataFrame:
        if not self.parts:
            return pd.DataFrame({c: pd.Series(dtype="float64") for c in BAR_COLUMNS}).astype(
                {"lane": "int64", "family": object, "mark": object})
        bars = pd.concat(self.parts, ignore_index=True)
        bars["mark"] = ""
        return bars[BAR_COLUMNS]


def _by_event(timeline: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {str(event): rows for event, rows in timeline.groupby("event", sort=False)}


def _paired(events: dict[str, pd.DataFrame], family: str) -> pd.DataFrame:
    start, end = PAIRED[family]
    if start not in events or end not in events:
        return pair_intervals(schema.empty_timeline(), start, end)
    iv = pair_intervals(pd.concat([events[start], events[end]]), start, end)
    if family in WAIT_FAMILIES:
        iv = iv[iv["dur_us"] > 0]
    return iv


def _sub_stage(events: dict[str, pd.DataFrame], event: str) -> pd.DataFrame:
    """A sub-stage event ends its sub-stage: [t - dur_us, t]. Rows without dur_us are skipped."""
    rows = events.get(event)
    if rows is None:
        return pair_intervals(schema.empty_timeline(), "GPU_START", "GPU_END")
    dur = pd.to_numeric(schema.detail_value(rows, "dur_us"), errors="coerce")
    rows = rows[dur.notna()]
    dur = dur[dur.notna()].to_numpy(dtype="float64")
    end = rows["t_us"].to_numpy(dtype="float64")
    return pd.DataFrame({"job": rows["job"], "partition": rows["partition"], "worker": rows["worker"],
                         "device": rows["device"], "start_us": end - dur, "end_us": end})


def fallback_sync_intervals(events: dict[str, pd.DataFrame], stages: pd.DataFrame | None) -> pd.DataFrame:
    """The two-lock fallback's synchronise-and-trim of each partition that ran it: from the
    partition's GPU_START for its stages.csv `pre_destructor_us` (rows without it, or 0, ran
    no fallback)."""
    empty = pair_intervals(schema.empty_timeline(), "GPU_START", "GPU_END")
    if stages is None or stages.empty or "pre_destructor_us" not in stages.columns or "GPU_START" not in events:
        return empty
    dur = pd.to_numeric(stages["pre_destructor_us"], errors="coerce")
    ran = stages[(dur > 0) & stages["job"].notna() & stages["partition"].notna()]
    if ran.empty:
        return empty
    starts = events["GPU_START"].dropna(subset=["job", "partition"])
    starts = starts.drop_duplicates(subset=["job", "partition"], keep="first")
    key = ["job", "partition"]
    merged = ran.assign(job=ran["job"].astype("int64"), partition=ran["partition"].astype("int64"),
                        dur_us=dur[ran.index].astype("float64"))[key + ["dur_us"]].merge(
        starts.assign(job=starts["job"].astype("int64"), partition=starts["partition"].astype("int64"))[
            key + ["t_us", "worker", "device"]], on=key, how="inner")
    start = merged["t_us"].to_numpy(dtype="float64")
    return pd.DataFrame({"job": merged["job"], "partition": merged["partition"], "worker": merged["worker"],
                         "device": merged["device"], "start_us": start,
                         "end_us": start + merged["dur_us"].to_numpy(dtype="float64")})


def _job_lifetimes(timeline: pd.DataFrame, events: dict[str, pd.DataFrame]) -> pd.DataFrame:
    job_events = [events[e] for e in ("JOB_SUBMIT", "JOB_DONE", "JOB_FAILED") if e in events]
    # With JOB_SUBMIT the job events alone define the spans (and are much fewer rows).
    spans = job_spans(pd.concat(job_events) if "JOB_SUBMIT" in events else timeline)
    if spans.empty:
        return pd.DataFrame(columns=["job", "start_us", "end_us"])
    last = timeline[timeline["job"].notna()].groupby("job")["t_us"].max()
    end = spans["done_us"].astype("float64").fillna(spans["job"].map(last).astype("float64"))
    return pd.DataFrame({"job": spans["job"], "start_us": spans["submit_us"].astype("float64"), "end_us": end})


def _stream_rank(rows: pd.DataFrame, max_streams: int) -> tuple[list[int | None], list[int | None]]:
    """Streams shown on their own (the busiest, in stream order) and the others."""
    busy = (rows["end_us"] - rows["start_us"]).groupby(rows["stream"].fillna(-1).astype("int64")).sum()
    ranked = list(busy.sort_values(ascending=False, kind="stable").index)
    shown = sorted(ranked[:max_streams])
    rest = sorted(ranked[max_streams:])
    as_key = lambda s: None if s == -1 else int(s)  # noqa: E731
    return [as_key(s) for s in shown], [as_key(s) for s in rest]


def _in_streams(rows: pd.DataFrame, streams: list[int | None]) -> pd.DataFrame:
    key = rows["stream"].fillna(-1).astype("int64")
    return rows[key.isin([-1 if s is None else s for s in streams])]


def _cuda_lanes(b: _Builder, dev_rows: pd.DataFrame, dev: int, max_streams: int) -> None:
    work = dev_rows[dev_rows["kind"].isin(("KERNEL", "MEMCPY", "MEMSET"))]
    if not work.empty:
        shown, rest = _stream_rank(work, max_streams)
        lanes: list[tuple[str, pd.DataFrame]] = [(f"s{s}" if s is not None else "s?", _in_streams(work, [s]))
                                                 for s in shown]
        if rest:
            lanes.append((f"{len(rest)} other streams", _in_streams(work, rest)))
        for name, rows in lanes:
            for title, kinds in (("kernels", ("KERNEL",)), ("copies", ("MEMCPY", "MEMSET"))):
                sel = rows[rows["kind"].isin(kinds)]
                if sel.empty:
                    continue
                lane = b.add_lane(f"dev{dev} {name} {title}")
                for kind in kinds:
                    b.add_bars(lane, CUDA_FAMILIES[kind], sel[sel["kind"] == kind])
    syncs = dev_rows[dev_rows["kind"] == "SYNC"]
    if not syncs.empty:
        b.add_bars(b.add_lane(f"dev{dev} sync"), "sync", syncs)


UNKNOWN_DEVICE_GROUP = "device unknown"


def _worker_label(dev: int | None, worker: int | None, device_kind: str) -> str:
    return f"dev{dev if dev is not None else '?'} w{worker if worker is not None else '?'} {device_kind}"


def waterfall_layout(
    timeline: pd.DataFrame,
    cupti: pd.DataFrame | None = None,
    *,
    window: tuple[float, float] | None = None,
    device_kind: str = "GPU",
    failed_partitions: Iterable[tuple[int, int]] = (),
    excluded_jobs: Iterable[int] = (),
    max_streams: int = 6,
    stages: pd.DataFrame | None = None,
) -> Layout:
    """Lanes and bars of one run. `window` is (start, end) in s since the run window's
    start (first JOB_SUBMIT); bars are clipped to it. `device_kind` names the worker
    lanes: "GPU", "emulated" (the CPU backend's simulated device) or "GPU (ref. span)".
    `stages` (stages.csv) adds the fallback sync bars."""
    cupti = cupti if cupti is not None else schema.empty_cupti()
    if timeline.empty and cupti.empty:
        raise ValueError("nothing to draw: the timeline and cupti frames are empty")
    if max_streams < 1:
        raise ValueError(f"max_streams must be at least 1, got {max_streams}")
    if not timeline.empty:
        t0, t1 = (float(t) for t in run_window(timeline))
        t1 = max(t1, float(timeline["t_us"].max()))
    else:
        t0, t1 = float(cupti["start_us"].min()), float(cupti["end_us"].max())
    work = cupti[cupti["kind"] != "MARKER"] if not cupti.empty else cupti
    if not work.empty:
        t0, t1 = min(t0, float(work["start_us"].min())), max(t1, float(work["end_us"].max()))
    lo_us, hi_us = t0, t1
    if window is not None:
        lo_s, hi_s = window
        if not (np.isfinite(lo_s) and np.isfinite(hi_s)) or hi_s <= lo_s:
            raise ValueError(f"window must be (start, end) in s with end > start, got {window!r}")
        lo_us, hi_us = t0 + lo_s * 1e6, t0 + hi_s * 1e6
        if hi_us < t0 or lo_us > t1:
            raise ValueError(f"window {lo_s:g}..{hi_s:g} s lies outside the run (0..{(t1 - t0) / 1e6:g} s)")
    b = _Builder(t0, (lo_us, hi_us))
    events = _by_event(timeline) if not timeline.empty else {}

    if events:
        b.add_packed("jobs", JOB_FAMILY, _job_lifetimes(timeline, events))
        for family in PACKED_BEFORE_GPU:
            b.add_packed(family, family, _paired(events, family))

    def worker_intervals(family: str) -> pd.DataFrame:
        if family == FALLBACK_FAMILY:
            return fallback_sync_intervals(events, stages)
        return _paired(events, family) if family in PAIRED else _sub_stage(events, SUB_STAGES[family])

    per_worker = {f: b.clip(worker_intervals(f)) for f in WORKER_FAMILIES} if events else {}
    devices = set()
    unknown_device = False  # worker bars without a device: a reference log that does not say
    for iv in per_worker.values():
        devices |= {int(d) for d in iv["device"].dropna().unique()}
        unknown_device |= bool(iv["device"].isna().any())
    work = b.clip(work) if not work.empty else work
    if not work.empty:
        devices |= {int(d) for d in work["device"].dropna().unique()}
    for dev in sorted(devices) + [None] * unknown_device:
        first = len(b.lanes)
        on_dev = {f: iv[iv["device"].isna()] if dev is None else iv[iv["device"] == dev]
                  for f, iv in per_worker.items()}
        workers: set[int | None] = set()
        for iv in on_dev.values():
            workers |= {int(w) for w in iv["worker"].dropna().unique()}
            if iv["worker"].isna().any():
                workers.add(None)
        for w in sorted(workers, key=lambda x: (x is None, x or 0)):
            lane = b.add_lane(_worker_label(dev, w, device_kind))
            for family in WORKER_FAMILIES:
                iv = on_dev[family]
                b.add_bars(lane, family, iv[iv["worker"].isna()] if w is None else iv[iv["worker"] == w])
        if not work.empty and dev is not None:
            _cuda_lanes(b, work[work["device"] == dev], dev, max_streams)
        if len(b.lanes) > first:
            b.groups.append((first, f"device {dev}" if dev is not None else UNKNOWN_DEVICE_GROUP))

    if events:
        for family in PACKED_AFTER_GPU:
            b.add_packed(family, family, _paired(events, family))
        if "THROTTLE_ON" in events and "THROTTLE_OFF" in events:
            throttle = b.clip(pair_intervals(pd.concat([events["THROTTLE_ON"], events["THROTTLE_OFF"]]),
                                             "THROTTLE_ON", "THROTTLE_OFF", keys=("job",)))
            if not throttle.empty:
                lane = b.add_lane("throttle")
                b.groups.append((lane, "throttle"))
                b.add_bars(lane, "throttle", throttle.assign(job=pd.NA, partition=pd.NA))

    bars = b.frame()
    failed_jobs = {int(j) for j in events["JOB_FAILED"]["job"].dropna()} if "JOB_FAILED" in events else set()
    bars["mark"] = _marks(bars, failed_jobs, set(failed_partitions), set(int(j) for j in excluded_jobs))
    return Layout(b.lanes, b.groups, bars, t0, t1)


def _marks(bars: pd.DataFrame, failed_jobs: set[int], failed_partitions: set[tuple[int, int]],
           excluded: set[int]) -> np.ndarray:
    job = bars["job"].to_numpy()
    part = bars["partition"].to_numpy()
    known = ~np.isnan(job)
    mark = np.full(len(bars), "", dtype=object)
    mark[known & np.isin(job, list(excluded))] = "excluded"
    failed = known & np.isin(job, list(failed_jobs))
    if failed_partitions:
        pairs = pd.MultiIndex.from_tuples(sorted(failed_partitions))
        here = pd.MultiIndex.from_arrays([np.nan_to_num(job, nan=-1).astype("int64"),
                                          np.nan_to_num(part, nan=-1).astype("int64")])
        failed |= known & here.isin(pairs)
    mark[failed] = "failed"
    return mark
