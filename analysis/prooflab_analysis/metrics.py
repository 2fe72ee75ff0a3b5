"""Utilisation, gaps, latency, throughput and stage statistics from tidy run frames.

Definitions (also in docs/run-directory.md, "Metrics"):

* run window: first JOB_SUBMIT .. last JOB_DONE/JOB_FAILED (first .. last event when the
  timeline has no job events, as in reference logs).
* GPU busy: union of GPU_START..GPU_END intervals per device, clipped to the window,
  divided by the window (stats.busy_fraction). Under prooflab's schema GPU_START..GPU_END is the time the
  lock is held; under the reference's it also spans the lock wait and b_g2_msm, which
  is why its "GPU busy" reads far above kernel busy.
* kernel busy: union of CUPTI KERNEL intervals per device over the same window; where CUPTI
  recorded anything, a device without kernels is 0 % busy (summary.json's rule).
* a run's gpu_busy / kernel_busy: the mean over the run's devices (config.json `devices`,
  else those in the timeline), as summary.json's top-level figures.
* means, medians and percentiles: stats.py (one definition, shared with the C++ side).
* throughput: completed clean proofs / (last JOB_DONE - first JOB_SUBMIT); the steady
  variant is (completed - 1) / (last JOB_DONE - first JOB_DONE), which leaves out the
  pipeline fill.
* energy per proof, average power, proofs per kWh: read from summary.json, where the
  harness computed them (energy.py says why they are not recomputed here).

Device utilisation counts every recorded interval (the device was busy whatever the job);
per-job and per-partition numbers leave out the jobs that integrity checks flagged.
"""

from __future__ import annotations

import math

from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from . import energy as energy_mod
from . import integrity as integrity_mod
from . import stats as stats_mod
from . import schema
from .loaders import Run, is_run_dir, load_run, stage_long

INTERVAL_COLUMNS = ["job", "partition", "worker", "device", "start_us", "end_us", "dur_us"]


# ----------------------------------------------------------------- intervals


def _empty_intervals() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "job": pd.Series(dtype=schema.INT_DTYPE),
            "partition": pd.Series(dtype=schema.INT_DTYPE),
            "worker": pd.Series(dtype=schema.INT_DTYPE),
            "device": pd.Series(dtype=schema.INT_DTYPE),
            "start_us": pd.Series(dtype="int64"),
            "end_us": pd.Series(dtype="int64"),
            "dur_us": pd.Series(dtype="int64"),
        }
    )


def pair_intervals(
    timeline: pd.DataFrame, start_event: str, end_event: str, keys: Sequence[str] = ("job", "partition")
) -> pd.DataFrame:
    """Intervals from matching START/END events: the k-th start of each key group (in
    time order) pairs with the k-th end. Worker and device come from the start event
    (from the end event where the start has none). Unpaired events are dropped here;
    integrity.check_pairs reports them."""
    cols = list(keys)
    starts = timeline[timeline["event"] == start_event]
    ends = timeline[timeline["event"] == end_event]
    if starts.empty or ends.empty:
        return _empty_intervals()

    def numbered(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.assign(**{k: frame[k].fillna(-1).astype("int64") for k in cols})
        frame = frame.sort_values(cols + ["t_us"], kind="stable")
        return frame.assign(_n=frame.groupby(cols, sort=False).cumcount())

    s = numbered(starts)
    e = numbered(ends)
    other = [c for c in ("job", "partition", "worker", "device") if c not in cols]
    m = s[cols + other + ["_n", "t_us"]].merge(
        e[cols + other + ["_n", "t_us"]], on=cols + ["_n"], suffixes=("", "_end"), how="inner"
    )
    out = pd.DataFrame(index=m.index)
    for col in ("job", "partition", "worker", "device"):
        if col in cols:
            out[col] = m[col].astype(schema.INT_DTYPE).mask(m[col] == -1)
        else:
            out[col] = m[col].astype(schema.INT_DTYPE).fillna(m[f"{col}_end"].astype(schema.INT_DTYPE))
    out["start_us"] = m["t_us"].astype("int64")
    out["end_us"] = m["t_us_end"].astype("int64")
    out["dur_us"] = out["end_us"] - out["start_us"]
    return out.sort_values(["start_us", "end_us"], kind="stable").reset_index(drop=True)


# -------------------------------------------------------------------- window


def run_window(timeline: pd.DataFrame) -> tuple[int, int]:
    """(t0, t1) in µs: first JOB_SUBMIT .. last JOB_DONE/JOB_FAILED, else first .. last event."""
    if timeline.empty:
        raise ValueError("empty timeline: no run window")
    submit = timeline.loc[timeline["event"] == "JOB_SUBMIT", "t_us"]
    done = timeline.loc[timeline["event"].isin(("JOB_DONE", "JOB_FAILED")), "t_us"]
    t0 = int(submit.min()) if not submit.empty else int(timeline["t_us"].min())
    t1 = int(done.max()) if not done.empty else int(timeline["t_us"].max())
    return t0, t1


# -------------------------------------------------------------- utilisation


def _busy_frame(intervals: pd.DataFrame, devices: Iterable[int], window: tuple[float, float]) -> pd.DataFrame:
    """Per device: busy_us (union of its intervals in the window) and busy (stats.busy_fraction)."""
    t0, t1 = window
    rows = []
    for dev in devices:
        sub = intervals[intervals["device"] == dev]
        rows.append({"device": int(dev), "wall_us": float(t1 - t0),
                     "busy_us": stats_mod.union_us(sub["start_us"], sub["end_us"], t0, t1),
                     "busy": stats_mod.busy_fraction(sub["start_us"], sub["end_us"], t0, t1)})
    return pd.DataFrame(rows, columns=["device", "wall_us", "busy_us", "busy"])


def gpu_busy(timeline: pd.DataFrame, window: tuple[float, float] | None = None, devices: int | None = None) -> pd.DataFrame:
    """Per device: union of GPU_START..GPU_END over the window / window length. Devices
    0..devices-1 when `devices` is given (a device that never ran a GPU phase is 0 % busy),
    else those the timeline names."""
    window = window if window is not None else run_window(timeline)
    named = {int(d) for d in timeline["device"].dropna().unique()}
    wanted = sorted(named | set(range(devices))) if devices is not None else sorted(named)
    return _busy_frame(pair_intervals(timeline, "GPU_START", "GPU_END"), wanted, window)


def kernel_busy(cupti: pd.DataFrame, window: tuple[float, float], devices: Iterable[int] = ()) -> pd.DataFrame:
    """Per device: union of CUPTI KERNEL intervals over the window / window length, for the
    devices with kernels and those in `devices` (0 % busy without kernels)."""
    kernels = cupti[cupti["kind"] == "KERNEL"]
    wanted = sorted({int(d) for d in kernels["device"].dropna().unique()} | {int(d) for d in devices})
    return _busy_frame(kernels, wanted, window)


def utilisation(
    timeline: pd.DataFrame, cupti: pd.DataFrame, window: tuple[float, float] | None = None,
    devices: int | None = None,
) -> pd.DataFrame:
    """Per device: GPU busy from the TIMELINE next to kernel busy from CUPTI (NaN when
    no CUPTI rows were recorded; 0 for a device without kernels when some were), over one
    window. `devices`: the run's device count (config.json), see gpu_busy."""
    if window is None:
        window = run_window(timeline) if not timeline.empty else (
            float(cupti["start_us"].min()), float(cupti["end_us"].max())
        )
    g = gpu_busy(timeline, window, devices) if not timeline.empty else pd.DataFrame(columns=["device", "wall_us", "busy_us", "busy"])
    k = kernel_busy(cupti, window, g["device"] if not cupti.empty else ())
    g = g.rename(columns={"busy_us": "gpu_busy_us", "busy": "gpu_busy"})
    k = k.rename(columns={"busy_us": "kernel_busy_us", "busy": "kernel_busy"}).drop(columns="wall_us")
    frame = g.merge(k, on="device", how="outer")
    frame["wall_us"] = float(window[1] - window[0])
    return frame[["device", "wall_us", "gpu_busy_us", "gpu_busy", "kernel_busy_us", "kernel_busy"]].sort_values(
        "device"
    ).reset_index(drop=True)


# ---------------------------------------------------------------------- gaps

GAP_COLUMNS = [
    "device", "worker", "prev_job", "prev_partition", "next_job", "next_partition",
    "start_us", "end_us", "gap_us", "same_job", "queued", "kind",
]


def _ready_times(timeline: pd.DataFrame, taken_event: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Sorted (ready, taken) times of partitions, for the queue depth at any instant:
    ready = GPU_QUEUE (SYNTH_END when the timeline has no GPU_QUEUE), taken = first
    `taken_event` (inf when it never happened)."""
    ready_event = "GPU_QUEUE" if (timeline["event"] == "GPU_QUEUE").any() else "SYNTH_END"
    ready = timeline[timeline["event"] == ready_event]
    if ready.empty:
        return None
    key = ["job", "partition"]
    r = ready.assign(partition=ready["partition"].fillna(-1)).groupby(key)["t_us"].min()
    st = timeline[timeline["event"] == taken_event]
    s = st.assign(partition=st["partition"].fillna(-1)).groupby(key)["t_us"].min()
    both = pd.concat([r.rename("ready"), s.rename("taken")], axis=1)
    both = both[both["ready"].notna()]
    taken = both["taken"].astype("float64").fillna(np.inf).to_numpy()
    return np.sort(both["ready"].to_numpy(dtype="float64")), np.sort(taken)


def gpu_gaps(timeline: pd.DataFrame, per: str = "worker") -> pd.DataFrame:
    """Gaps between consecutive GPU_START..GPU_END intervals of one lane.

    `per="worker"`: a lane is (device, worker); `per="device"`: a lane is a device and
    overlapping intervals are merged first. A gap is a `handoff` when the next interval
    belongs to the same job as the previous one, or when work was waiting at the gap's
    start; otherwise it is `idle`. Waiting means ready (GPU_QUEUE) and not yet taken:
    for a worker, not yet picked up by any worker (GPU_PICKUP); for a device, not yet
    started (GPU_START), so a partition that another worker holds while it waits for the
    lock counts. The first interval of each lane opens no gap.
    """
    if per not in ("worker", "device"):
        raise ValueError(f"per must be 'worker' or 'device', got {per!r}")
    iv = pair_intervals(timeline, "GPU_START", "GPU_END")
    if iv.empty:
        return pd.DataFrame(columns=GAP_COLUMNS)
    lanes = ["device", "worker"] if per == "worker" else ["device"]
    iv = iv.assign(**{c: iv[c].fillna(-1) for c in lanes})
    rows: list[dict[str, Any]] = []
    for lane, sub in iv.groupby(lanes, sort=True):
        sub = sub.sort_values(["start_us", "end_us"], kind="stable")
        s = sub["start_us"].to_numpy(dtype="int64")
        e = sub["end_us"].to_numpy(dtype="int64")
        if s.size < 2:
            continue
        running = np.maximum.accumulate(e)
        holder = np.maximum.accumulate(np.where(e == running, np.arange(s.size), 0))
        prev_end = running[:-1]
        gap = s[1:] - prev_end
        nxt = np.flatnonzero(gap >= 0) + 1
        jobs = sub["job"].to_numpy()
        parts = sub["partition"].to_numpy()
        lane_t = lane if isinstance(lane, tuple) else (lane,)
        for i in nxt:
            p = holder[i - 1]
            rows.append(
                {
                    "device": lane_t[0],
                    "worker": lane_t[1] if per == "worker" else pd.NA,
                    "prev_job": jobs[p],
                    "prev_partition": parts[p],
                    "next_job": jobs[i],
                    "next_partition": parts[i],
                    "start_us": int(running[i - 1]),
                    "end_us": int(s[i]),
                }
            )
    gaps = pd.DataFrame(rows, columns=GAP_COLUMNS[:8])
    if gaps.empty:
        return pd.DataFrame(columns=GAP_COLUMNS)
    for col in ("device", "worker", "prev_job", "prev_partition", "next_job", "next_partition"):
        gaps[col] = gaps[col].astype(schema.INT_DTYPE)
    gaps["device"] = gaps["device"].mask(gaps["device"] == -1)
    if per == "worker":
        gaps["worker"] = gaps["worker"].mask(gaps["worker"] == -1)
    gaps["gap_us"] = gaps["end_us"] - gaps["start_us"]
    gaps["same_job"] = (gaps["prev_job"] == gaps["next_job"]).fillna(False).astype(bool)
    has_pickup = bool((timeline["event"] == "GPU_PICKUP").any())
    ready = _ready_times(timeline, "GPU_PICKUP" if per == "worker" and has_pickup else "GPU_START")
    if ready is None:
        gaps["queued"] = pd.array([pd.NA] * len(gaps), dtype=schema.INT_DTYPE)
        queued_any = pd.Series(False, index=gaps.index)
    else:
        r, st = ready
        g = gaps["start_us"].to_numpy(dtype="float64")
        n = np.searchsorted(r, g, side="right") - np.searchsorted(st, g, side="right")
        gaps["queued"] = pd.array(np.maximum(n, 0), dtype=schema.INT_DTYPE)
        queued_any = gaps["queued"] > 0
    gaps["kind"] = np.where(gaps["same_job"] | queued_any.to_numpy(dtype=bool), "handoff", "idle")
    gaps["kind"] = gaps["kind"].astype(object)
    return gaps[GAP_COLUMNS].reset_index(drop=True)


def gap_summary(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per gap kind: count, total, mean, median and max in ms."""
    cols = ["kind", "n", "total_ms", "mean_ms", "median_ms", "max_ms"]
    if gaps.empty:
        return pd.DataFrame(columns=cols)
    grouped = gaps.groupby("kind", sort=True)["gap_us"]
    frame = pd.DataFrame(
        {
            "n": grouped.size(),
            "total_ms": grouped.sum() / 1e3,
            "mean_ms": grouped.agg(stats_mod.mean) / 1e3,
            "median_ms": grouped.agg(stats_mod.median) / 1e3,
            "max_ms": grouped.max() / 1e3,
        }
    ).reset_index()
    return frame[cols]


# ------------------------------------------------------------------ per job


def job_spans(timeline: pd.DataFrame) -> pd.DataFrame:
    """One row per job: submit_us, done_us, status (done | failed | incomplete), approximate.

    With JOB_SUBMIT/JOB_DONE events the span is exact. Without them (reference logs) a
    job spans its first to its last event and counts as done once it has a GPU_END;
    such rows are marked approximate.
    """
    cols = ["job", "submit_us", "done_us", "status", "approximate"]
    jobs_tl = timeline[timeline["job"].notna()]
    if jobs_tl.empty:
        return pd.DataFrame(columns=cols)
    if (timeline["event"] == "JOB_SUBMIT").any():
        submit = jobs_tl[jobs_tl["event"] == "JOB_SUBMIT"].groupby("job")["t_us"].min()
        done = jobs_tl[jobs_tl["event"] == "JOB_DONE"].groupby("job")["t_us"].max()
        failed = jobs_tl[jobs_tl["event"] == "JOB_FAILED"].groupby("job")["t_us"].max()
        all_jobs = sorted(set(submit.index) | set(done.index) | set(failed.index))
        frame = pd.DataFrame({"job": all_jobs})
        frame["submit_us"] = frame["job"].map(submit)
        frame["done_us"] = frame["job"].map(done).fillna(frame["job"].map(failed))
        frame["status"] = np.where(
            frame["job"].isin(failed.index), "failed", np.where(frame["job"].isin(done.index), "done", "incomplete")
        )
        frame["approximate"] = False
    else:
        grouped = jobs_tl.groupby("job")["t_us"]
        frame = pd.DataFrame({"submit_us": grouped.min(), "done_us": grouped.max()}).reset_index()
        has_end = set(jobs_tl.loc[jobs_tl["event"] == "GPU_END", "job"])
        frame["status"] = np.where(frame["job"].isin(has_end), "done", "incomplete")
        frame["approximate"] = True
    frame["job"] = frame["job"].astype(schema.INT_DTYPE)
    frame["status"] = frame["status"].astype(object)
    return frame[cols]


def job_latency(timeline: pd.DataFrame, exclude: Iterable[int] = ()) -> pd.DataFrame:
    """Completed jobs not in `exclude`: job, latency_s (JOB_SUBMIT..JOB_DONE), approximate."""
    spans = job_spans(timeline)
    spans = spans[spans["status"] == "done"]
    spans = integrity_mod.without_jobs(spans, exclude)
    out = spans[["job", "approximate"]].copy()
    out["latency_s"] = (spans["done_us"] - spans["submit_us"]).astype("float64") / 1e6
    return out[["job", "latency_s", "approximate"]].reset_index(drop=True)


def latency_percentiles(latency: pd.DataFrame, q: Sequence[float] = (50, 95)) -> dict[str, float]:
    """{'p50': .., 'p95': ..} in seconds (stats.percentile, the definition summary.json's
    latency_s uses too); NaN if empty."""
    values = latency["latency_s"].to_numpy(dtype="float64")
    return {f"p{p:g}": stats_mod.percentile(values, p) for p in q}


def throughput(timeline: pd.DataFrame, exclude: Iterable[int] = ()) -> dict[str, Any]:
    """Proofs per unit time over the run.

    completed: jobs with JOB_DONE that are not excluded. The window starts at the first
    JOB_SUBMIT of any job (the run started then) and ends at the last counted JOB_DONE.
    steady_*: (completed - 1) completions over first..last counted JOB_DONE.
    """
    exclude = set(int(j) for j in exclude)
    spans = job_spans(timeline)
    out: dict[str, Any] = {
        "completed": 0, "failed": int((spans["status"] == "failed").sum()) if not spans.empty else 0,
        "excluded": 0, "window_s": float("nan"), "s_per_proof": float("nan"), "proofs_per_min": float("nan"),
        "steady_s_per_proof": float("nan"), "steady_proofs_per_min": float("nan"),
    }
    if spans.empty:
        return out
    done = spans[spans["status"] == "done"]
    counted = done[~done["job"].isin(list(exclude))] if exclude else done
    out["excluded"] = int(len(done) - len(counted))
    n = len(counted)
    out["completed"] = n
    if n == 0:
        return out
    t0 = float(spans["submit_us"].min())
    t1 = float(counted["done_us"].max())
    window = (t1 - t0) / 1e6
    out["window_s"] = window
    if window > 0:
        out["s_per_proof"] = window / n
        out["proofs_per_min"] = 60.0 * n / window
    if n >= 2:
        steady = (t1 - float(counted["done_us"].min())) / 1e6
        if steady > 0:
            out["steady_s_per_proof"] = steady / (n - 1)
            out["steady_proofs_per_min"] = 60.0 * (n - 1) / steady
    return out


def gpu_time_per_partition(timeline: pd.DataFrame, exclude: Iterable[int] = ()) -> pd.DataFrame:
    """GPU_START..GPU_END per partition: per device and overall (device NA) n, mean_ms, median_ms."""
    iv = integrity_mod.without_jobs(pair_intervals(timeline, "GPU_START", "GPU_END"), exclude)
    cols = ["device", "n", "mean_ms", "median_ms"]
    if iv.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for dev, sub in iv.groupby("device", sort=True):
        rows.append({"device": int(dev), "n": len(sub), "mean_ms": stats_mod.mean(sub["dur_us"]) / 1e3,
                     "median_ms": stats_mod.median(sub["dur_us"]) / 1e3})
    rows.append({"device": pd.NA, "n": len(iv), "mean_ms": stats_mod.mean(iv["dur_us"]) / 1e3,
                 "median_ms": stats_mod.median(iv["dur_us"]) / 1e3})
    frame = pd.DataFrame(rows, columns=cols)
    frame["device"] = frame["device"].astype(schema.INT_DTYPE)
    return frame


# -------------------------------------------------------------------- stages


def timeline_stage_long(timeline: pd.DataFrame) -> pd.DataFrame:
    """Stage durations measured from START/END pairs of the timeline, long format
    (stage names: synth, prestage, gpu, prep_msm, b_g2_msm, dealloc)."""
    frames = []
    for stage, (start, end) in schema.PARTITION_INTERVALS.items():
        iv = pair_intervals(timeline, start, end)
        if iv.empty:
            continue
        frames.append(pd.DataFrame({"job": iv["job"], "partition": iv["partition"], "stage": stage,
                                    "value_us": iv["dur_us"].astype("float64")}))
    if not frames:
        return schema.empty_stage_long()
    out = pd.concat(frames, ignore_index=True)
    out["stage"] = out["stage"].astype(object)
    return out


def run_stage_long(run: Run) -> pd.DataFrame:
    """Stage durations of a run in long format: stages.csv when present, else the
    reference log's CUZK_TIMING values."""
    if not run.stages.empty:
        return stage_long(run.stages)
    from .reflog import reference_stage_long

    return reference_stage_long(run)


def stage_summary(long: pd.DataFrame, exclude: Iterable[int] = ()) -> pd.DataFrame:
    """Per stage: n, mean, median, p95 and max in ms (jobs in `exclude` left out)."""
    cols = ["stage", "n", "mean_ms", "median_ms", "p95_ms", "max_ms"]
    long = integrity_mod.without_jobs(long, exclude)
    if long.empty:
        return pd.DataFrame(columns=cols)
    grouped = long.groupby("stage", sort=False)["value_us"]
    frame = pd.DataFrame(
        {
            "n": grouped.size(),
            "mean_ms": grouped.agg(stats_mod.mean) / 1e3,
            "median_ms": grouped.agg(stats_mod.median) / 1e3,
            "p95_ms": grouped.agg(lambda v: stats_mod.percentile(v, 95)) / 1e3,
            "max_ms": grouped.max() / 1e3,
        }
    ).reset_index()
    return frame[cols]


def stage_inflation(loaded: pd.DataFrame, isolated: pd.DataFrame, statistic: str = "mean") -> pd.DataFrame:
    """Stage times under load relative to an isolated run (long frames in, one row per
    stage present in both out): isolated_ms, loaded_ms, ratio = loaded / isolated, delta_ms."""
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    center = stats_mod.mean if statistic == "mean" else stats_mod.median
    a = isolated.groupby("stage")["value_us"].agg(center) / 1e3
    b = loaded.groupby("stage")["value_us"].agg(center) / 1e3
    stages = [s for s in b.index if s in a.index]
    frame = pd.DataFrame({"stage": stages, "isolated_ms": a[stages].to_numpy(), "loaded_ms": b[stages].to_numpy()})
    frame["ratio"] = frame["loaded_ms"] / frame["isolated_ms"].where(frame["isolated_ms"] > 0)
    frame["delta_ms"] = frame["loaded_ms"] - frame["isolated_ms"]
    frame["stage"] = frame["stage"].astype(object)
    return frame


# ------------------------------------------------------------------ counters


def mean_bandwidth(counters: pd.DataFrame, window: tuple[float, float] | None = None) -> tuple[float, str]:
    """Mean memory bandwidth (GB/s) over the window and the source(s) it came from.

    Hardware DRAM counters (metric `dram_bandwidth`) are preferred over the software
    probe (metric `bandwidth`); (NaN, "") when neither was recorded.
    """
    bw = counters[counters["unit"].astype(str) == "GB/s"]
    hw = bw[bw["metric"] == "dram_bandwidth"]
    pick = hw if not hw.empty else bw[bw["metric"] == "bandwidth"]
    if window is not None and not pick.empty:
        pick = pick[(pick["t_us"] >= window[0]) & (pick["t_us"] <= window[1])]
    if pick.empty:
        return float("nan"), ""
    return stats_mod.mean(pick["value"].dropna(), "bandwidth"), ",".join(sorted(str(s) for s in pick["source"].unique()))


def peak_rss(run: Run) -> tuple[float, str]:
    """Peak resident set size of the run's process in bytes and where it came from:
    summary.json `peak_rss_bytes` when the engine recorded it ("summary"), else the largest
    `rss_bytes` sample of counters.csv ("counters": a lower bound, sampled every period),
    else (NaN, "")."""
    recorded = run.summary.get("peak_rss_bytes")
    if recorded is not None:
        try:
            value = float(recorded)
        except (TypeError, ValueError):
            value = float("nan")
        if not np.isfinite(value) or value < 0:
            where = run.path / "summary.json" if run.path is not None else "summary.json"
            raise ValueError(f"{where}: peak_rss_bytes must be a number of bytes >= 0, got {recorded!r}")
        return value, "summary"
    rss = run.counters[run.counters["metric"] == "rss_bytes"] if not run.counters.empty else run.counters
    if rss.empty:
        return float("nan"), ""
    return float(rss["value"].max()), "counters"


# ------------------------------------------------------------------- per run


def device_mean(values: pd.Series) -> float:
    """A run's figure from its devices' (summary.json's rule): their mean, NaN when any
    device has none."""
    values = pd.to_numeric(values, errors="coerce")
    return float("nan") if values.isna().any() else stats_mod.mean(values)


def _kernel_busy(run: Run, util: pd.DataFrame) -> tuple[float, str]:
    """Kernel busy from cupti.csv over the run window; for a run directory kept without its
    cupti.csv (committed results keep summary.json), the engine's own CUPTI figure from
    summary.json (`kernel_busy` with `kernel_busy_source` "cupti"); else NaN."""
    if not run.cupti.empty:
        return device_mean(util["kernel_busy"]), "cupti.csv"
    value = run.summary.get("kernel_busy")
    if run.summary.get("kernel_busy_source") == "cupti" and isinstance(value, (int, float)) and math.isfinite(value):
        return float(value), "summary.json"
    return float("nan"), ""


def run_metrics(
    run: Run,
    expected_partitions: int | None = None,
    report: integrity_mod.IntegrityReport | None = None,
) -> dict[str, Any]:
    """Headline numbers of one run, with integrity exclusions applied and recorded."""
    if report is None:
        report = integrity_mod.check_run(run, expected_partitions)
    excluded = sorted(report.excluded_jobs)
    tl = run.timeline
    cfg = run.config
    out: dict[str, Any] = {
        "run_id": run.run_id,
        "status": run.status,
        "gpu_span": run.gpu_span,
        "count": cfg.get("count"),
        "concurrency": cfg.get("concurrency"),
        "partitions_expected": report.expected_partitions,
        "partitions_source": report.expected_source,
        "issues": len(report.issues),
        "jobs_excluded": len(excluded),
        "excluded_jobs": ",".join(str(j) for j in excluded),
    }
    where = run.path / "summary.json" if run.path is not None else "summary.json"
    out.update(energy_mod.energy_metrics(run.summary, where))
    # memory-tier sweeps (memory_tiers.py), device sweeps (devices.py)
    for knob in ("partition_workers", "gpu_workers_per_device", "devices"):
        if cfg.get(knob) is not None:
            out[knob] = cfg[knob]
    out["peak_rss_bytes"], out["peak_rss_source"] = peak_rss(run)
    nan = float("nan")
    if tl.empty:
        out.update({k: nan for k in ("window_s", "s_per_proof", "proofs_per_min", "gpu_busy", "kernel_busy")})
        return out
    window = run_window(tl)
    tp = throughput(tl, excluded)
    out.update(
        {
            "jobs_completed": tp["completed"],
            "jobs_failed": tp["failed"],
            "window_s": tp["window_s"],
            "s_per_proof": tp["s_per_proof"],
            "proofs_per_min": tp["proofs_per_min"],
            "steady_s_per_proof": tp["steady_s_per_proof"],
            "steady_proofs_per_min": tp["steady_proofs_per_min"],
        }
    )
    lat = job_latency(tl, excluded)
    pct = latency_percentiles(lat)
    out["latency_p50_s"] = pct["p50"]
    out["latency_p95_s"] = pct["p95"]
    out["latency_mean_s"] = stats_mod.mean(lat["latency_s"])
    util = utilisation(tl, run.cupti, window, cfg.get("devices"))
    out["gpu_busy"] = device_mean(util["gpu_busy"])
    out["kernel_busy"], out["kernel_busy_source"] = _kernel_busy(run, util)
    gpt = gpu_time_per_partition(tl, excluded)
    overall = gpt[gpt["device"].isna()] if not gpt.empty else gpt
    out["gpu_ms_per_partition"] = float(overall["mean_ms"].iloc[0]) if not overall.empty else nan
    synth = integrity_mod.without_jobs(pair_intervals(tl, "SYNTH_START", "SYNTH_END"), excluded)
    out["synth_ms"] = stats_mod.mean(synth["dur_us"]) / 1e3
    gaps = gpu_gaps(tl)
    for kind in ("handoff", "idle"):
        sel = gaps[gaps["kind"] == kind] if not gaps.empty else gaps
        out[f"{kind}_gaps"] = int(len(sel))
        out[f"{kind}_gap_ms_total"] = float(sel["gap_us"].sum() / 1e3) if len(sel) else 0.0
    bw, source = mean_bandwidth(run.counters, window)
    out["bandwidth_gbps"] = bw
    out["bandwidth_source"] = source
    stages = stage_summary(run_stage_long(run), excluded)
    for r in stages.itertuples():
        out[f"stage_{r.stage}_ms"] = float(r.mean_ms)
    return out


def experiment_metrics(experiment: pd.DataFrame, expected_partitions: int | None = None) -> pd.DataFrame:
    """`run_metrics` for every run of an experiment index (loaders.load_experiment),
    joined to the index columns. Runs whose directory is absent get NaN metrics and
    `loaded=False`; a malformed run directory raises."""
    rows = []
    for _, row in experiment.iterrows():
        base = row.to_dict()
        path = Path(str(row["run_path"]))
        if is_run_dir(path):
            metrics = run_metrics(load_run(path), expected_partitions)
            metrics.pop("status", None)  # the index's status is the one that decides
            base.update(metrics)
            base["loaded"] = True
        else:
            base["loaded"] = False
        rows.append(base)
    frame = pd.DataFrame(rows)
    frame.attrs.update(experiment.attrs)
    return frame
