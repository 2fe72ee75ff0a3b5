"""The figures of an imported reference log, each saying where it comes from.

What the log lets us know, and what it does not (docs/reference-logs.md, "Figures"):

* GPU time per partition: `gpu_ms` of GPU_END (the engine's gpu_duration), beside the
  GPU_START..GPU_END span and the lock-held time (`mutex_held_ms`). The first two are per
  partition, so excluded jobs are left out; CUZK_TIMING lines name no job, so lock-held
  and every CUDA sub-stage are statistics over *all lines* of the run.
* GPU busy: union of GPU_START..GPU_END per device over the window first .. last TIMELINE
  record of the run; every recorded span counts (the device was busy whatever the job).
  Lock-held busy and kernel busy are estimates: sum of `mutex_held_ms`, resp. of
  `gpu_total_ms` (else ntt_msm_h + batch_add + tail_msm), over window x devices. One GPU
  mutex per device serialises these phases, so the sum is the busy time.
* GPU starved vs handoff: a gap between GPU spans of one lane is `handoff` when a
  partition was queued (GPU_QUEUE and not yet picked up / started) at the gap's start,
  `starved` when none was; per device and per worker.
* Latency and s/proof: from the benchmark's completion lines and Batch Summary when the
  log has them (they include queueing and SRS load), else from the engine's completion
  lines (`total_ms`, tracing time), else from TIMELINE events; `source` says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import metrics, stats
from .integrity import IntegrityReport, without_jobs
from .loaders import Run
from .reflog import job_labels, reference_stage_long

UNKNOWN_DEVICE = "unknown"
KERNEL_PARTS = ("ntt_msm_h_ms", "batch_add_ms", "tail_msm_ms")


@dataclass
class ReferenceFigures:
    window_us: tuple[int, int] | None
    window_text: str
    devices: int
    devices_text: str
    gpu_time: pd.DataFrame  # figure, device, n, mean_ms, median_ms, scope
    busy: pd.DataFrame  # device, window_s, gpu_busy, lock_held_busy, kernel_busy
    kernel_source: str
    synth: dict[str, Any]
    gaps: pd.DataFrame  # lane, device, worker, kind, n, total_ms
    throughput: dict[str, Any]
    latency: dict[str, Any]
    failed: pd.DataFrame  # job, partition, reason, source
    prestage: pd.DataFrame  # prestage_setup, n
    pre_destructor: pd.DataFrame  # kind, n, mean_ms, median_ms, max_ms
    stages: pd.DataFrame  # metrics.stage_summary over all CUZK lines
    stage_scope: str
    notes: list[str] = field(default_factory=list)


def _device_label(value: Any) -> Any:
    return UNKNOWN_DEVICE if pd.isna(value) else int(value)


def _detail_ms(timeline: pd.DataFrame, event: str, key: str) -> pd.DataFrame:
    rows = timeline[timeline["event"] == event]
    values = rows["detail"].str.extract(rf"(?:^|;){key}=(\d+)")[0]
    out = rows.assign(value_ms=pd.to_numeric(values, errors="coerce"))
    return out[out["value_ms"].notna()]


def _stats(values: pd.Series) -> dict[str, float]:
    v = values.to_numpy(dtype="float64")
    if v.size == 0:
        return {"n": 0, "mean_ms": np.nan, "median_ms": np.nan}
    return {"n": int(v.size), "mean_ms": stats.mean(v), "median_ms": stats.median(v)}


def _gpu_time(tl: pd.DataFrame, excluded: list[int], cuda: pd.DataFrame) -> pd.DataFrame:
    rows = []
    gpu_ms = without_jobs(_detail_ms(tl, "GPU_END", "gpu_ms"), excluded)
    spans = without_jobs(metrics.pair_intervals(tl, "GPU_START", "GPU_END"), excluded)
    for figure, frame, col, scale in (("gpu_ms (GPU_END)", gpu_ms, "value_ms", 1.0),
                                      ("GPU_START..GPU_END span", spans, "dur_us", 1e-3)):
        if frame.empty:
            continue
        for dev, sub in frame.groupby(frame["device"].astype("float64").fillna(-1), sort=True):
            rows.append({"figure": figure, "device": UNKNOWN_DEVICE if dev == -1 else int(dev),
                         **_stats(sub[col] * scale), "scope": "partitions of counted jobs"})
        if frame["device"].nunique(dropna=False) > 1:
            rows.append({"figure": figure, "device": "all", **_stats(frame[col] * scale),
                         "scope": "partitions of counted jobs"})
    held = cuda[cuda["key"] == "mutex_held_ms"]["value_us"] / 1e3
    if len(held):
        rows.append({"figure": "mutex_held_ms (CUZK_TIMING)", "device": "all", **_stats(held),
                     "scope": "all lines (they name no job)"})
    return pd.DataFrame(rows, columns=["figure", "device", "n", "mean_ms", "median_ms", "scope"])


def _kernel_ms(cuda: pd.DataFrame) -> tuple[float, str]:
    total = cuda[cuda["key"] == "gpu_total_ms"]
    if not total.empty:
        return float(total["value_us"].sum() / 1e3), "sum of gpu_total_ms"
    parts = cuda[cuda["key"].isin(KERNEL_PARTS)]
    if not parts.empty:
        return float(parts["value_us"].sum() / 1e3), "sum of ntt_msm_h_ms + batch_add_ms + tail_msm_ms"
    return np.nan, "no CUDA sub-stage lines"


def _busy(tl: pd.DataFrame, window: tuple[int, int], devices: int, cuda: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    t0, t1 = window
    wall_ms = (t1 - t0) / 1e3
    iv = metrics.pair_intervals(tl, "GPU_START", "GPU_END")
    rows = []
    total_busy = 0.0
    for dev, sub in iv.groupby(iv["device"].astype("float64").fillna(-1), sort=True):
        busy = stats.union_us(sub["start_us"], sub["end_us"], t0, t1) / 1e3
        total_busy += busy
        rows.append({"device": UNKNOWN_DEVICE if dev == -1 else int(dev), "window_s": wall_ms / 1e3,
                     "gpu_busy": stats.busy_fraction(sub["start_us"], sub["end_us"], t0, t1),
                     "lock_held_busy": np.nan, "kernel_busy": np.nan})
    held = float(cuda.loc[cuda["key"] == "mutex_held_ms", "value_us"].sum() / 1e3)
    kernel, source = _kernel_ms(cuda)
    denom = wall_ms * devices if wall_ms > 0 else np.nan
    rows.append({"device": "all", "window_s": wall_ms / 1e3, "gpu_busy": total_busy / denom,
                 "lock_held_busy": held / denom if (cuda["key"] == "mutex_held_ms").any() else np.nan,
                 "kernel_busy": kernel / denom})
    return pd.DataFrame(rows, columns=["device", "window_s", "gpu_busy", "lock_held_busy", "kernel_busy"]), source


def _gaps(tl: pd.DataFrame) -> pd.DataFrame:
    cols = ["lane", "device", "worker", "kind", "n", "total_ms"]
    rows = []
    for per in ("device", "worker"):
        gaps = metrics.gpu_gaps(tl, per=per)
        if gaps.empty:
            continue
        gaps = gaps.assign(kind=np.where(gaps["queued"].fillna(0).astype("int64") > 0, "handoff", "starved"))
        keys = [gaps["device"].astype("float64").fillna(-1)]
        if per == "worker":
            keys.append(gaps["worker"].astype("float64").fillna(-1))
        for key, sub in gaps.groupby(keys + [gaps["kind"]], sort=True):
            dev = key[0]
            rows.append({"lane": per, "device": UNKNOWN_DEVICE if dev == -1 else int(dev),
                         "worker": int(key[1]) if per == "worker" else "", "kind": key[-1], "n": len(sub),
                         "total_ms": float(sub["gap_us"].sum() / 1e3)})
    return pd.DataFrame(rows, columns=cols)


def _latency_summary(values_s: np.ndarray, source: str) -> dict[str, Any]:
    if values_s.size == 0:
        return {"n": 0, "source": source}
    return {"n": int(values_s.size), "mean_s": stats.mean(values_s), "p50_s": stats.percentile(values_s, 50),
            "p95_s": stats.percentile(values_s, 95), "max_s": float(values_s.max()), "source": source}


def _counted_jobs(tl: pd.DataFrame, excluded: list[int]) -> pd.DataFrame:
    """Jobs with a GPU_END and not excluded: first event and last GPU_END, in µs."""
    jobs = tl[tl["job"].notna()]
    first = jobs.groupby("job")["t_us"].min()
    end = jobs[jobs["event"] == "GPU_END"].groupby("job")["t_us"].max()
    frame = pd.concat([first.rename("first_us"), end.rename("end_us")], axis=1).dropna().reset_index()
    return without_jobs(frame, excluded)


def _throughput_latency(run: Run, tl: pd.DataFrame, excluded: list[int]) -> tuple[dict[str, Any], dict[str, Any]]:
    comp = run.extras["completions"]
    done = comp[comp["status"] == "COMPLETED"] if not comp.empty else comp
    summary = run.summary
    driver = "prooflab batch" if (not comp.empty and (comp["driver"] == "prooflab").all()) else "cuzk-bench"
    if summary.get("total_s") is not None and summary.get("completed"):
        n = int(summary["completed"])
        tp = {"completed": n, "s_per_proof": summary["total_s"] / n, "proofs_per_min": 60.0 * n / summary["total_s"],
              "printed_s_per_proof": summary.get("s_per_proof"),
              "source": f"{driver} Batch Summary: total time / completed (includes queueing and SRS load)"}
    else:
        tp = {}
    if not done.empty:
        lat = _latency_summary(done["wall_s"].to_numpy(dtype="float64"),
                               f"{driver} completion lines: request to answer (includes queueing and SRS load)")
    else:
        lat = {}
    engine = run.extras["engine_done"]
    engine = without_jobs(engine, excluded) if not engine.empty else engine
    if not engine.empty:
        if not tp:
            starts = engine["t_s"] - engine["total_ms"] / 1e3
            window = float(engine["t_s"].max() - starts.min())
            n = len(engine)
            tp = {"completed": n, "s_per_proof": window / n, "proofs_per_min": 60.0 * n / window if window > 0 else np.nan,
                  "source": "engine completion lines: first submission (time - total_ms) .. last completion"}
        if not lat:
            lat = _latency_summary(engine["total_ms"].to_numpy(dtype="float64") / 1e3,
                                   "engine completion lines: total_ms (submission to completion)")
    counted = _counted_jobs(tl, excluded) if not tl.empty else pd.DataFrame()
    if not tp and not counted.empty:
        n = len(counted)
        window = (float(counted["end_us"].max()) - float(tl["t_us"].min())) / 1e6
        tp = {"completed": n, "s_per_proof": window / n, "proofs_per_min": 60.0 * n / window if window > 0 else np.nan,
              "source": "TIMELINE: first record .. last GPU_END of a counted job (no queueing before synthesis, "
                        "no proof assembly)"}
    if not lat and not counted.empty:
        lat = _latency_summary(((counted["end_us"] - counted["first_us"]) / 1e6).to_numpy(dtype="float64"),
                               "TIMELINE: first record .. last GPU_END of each counted job")
    return tp or {"source": "none: no completion line and no complete job"}, lat or {"n": 0, "source": "none"}


def _failed(run: Run, labels: dict[int, str]) -> pd.DataFrame:
    rows = []
    for r in run.extras["failures"].itertuples():
        job = labels.get(int(r.job), "") if pd.notna(r.job) else "(not named)"
        rows.append({"job": job, "partition": "" if pd.isna(r.partition) else int(r.partition), "reason": r.reason,
                     "source": f"line {r.line}: tracing ERROR"})
    comp = run.extras["completions"]
    if not comp.empty:
        for r in comp[comp["status"] != "COMPLETED"].itertuples():
            rows.append({"job": f"[{r.i}/{r.n}]", "partition": "", "reason": r.reason or r.status,
                         "source": f"line {r.line}: {r.driver} completion line"})
    return pd.DataFrame(rows, columns=["job", "partition", "reason", "source"])


def _prestage(run: Run, cuda: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    pre = run.extras["prestage"]
    counts = pre.groupby("prestage_setup").size().rename("n").reset_index() if not pre.empty else \
        pd.DataFrame(columns=["prestage_setup", "n"])
    values = cuda.loc[cuda["key"] == "pre_destructor_ms", "value_us"] / 1e3
    cols = ["kind", "n", "mean_ms", "median_ms", "max_ms"]
    if values.empty:
        return counts, pd.DataFrame(columns=cols)
    kinds = sorted(pre["prestage_setup"].unique()) if not pre.empty else []
    kind = kinds[0] if len(kinds) == 1 else ("not logged" if not kinds else
                                             "mixed: " + "/".join(kinds) + " (lines name no partition)")
    s = _stats(values)
    return counts, pd.DataFrame([{"kind": kind, "n": s["n"], "mean_ms": s["mean_ms"], "median_ms": s["median_ms"],
                                  "max_ms": float(values.max())}], columns=cols)


def reference_figures(run: Run, report: IntegrityReport) -> ReferenceFigures:
    tl = run.timeline
    cuda = run.extras["cuzk_timing"]
    excluded = sorted(report.excluded_jobs)
    labels = job_labels(run)
    known = sorted(set(int(g) for g in run.meta.get("worker_gpu", {}).values()))
    if known:
        devices, devices_text = len(known), f"{len(known)} device(s) from the GPU worker start lines and gpu_worker spans"
    elif run.meta.get("gpus_named"):
        devices = len(run.meta["gpus_named"])
        devices_text = f"{devices} device(s) named by CUZK_TIMING lines; which worker drives which is unknown"
    else:
        devices, devices_text = 1, "device unknown (no GPU worker start line or gpu_worker span): estimates assume one device"
    if tl.empty:
        window, window_text = None, "no TIMELINE record: no window"
        busy, kernel_source = pd.DataFrame(columns=["device", "window_s", "gpu_busy", "lock_held_busy",
                                                    "kernel_busy"]), ""
    else:
        window = (int(tl["t_us"].min()), int(tl["t_us"].max()))
        window_text = (f"first .. last TIMELINE record of the run: {window[0] / 1e3:.0f} .. {window[1] / 1e3:.0f} ms "
                       f"({(window[1] - window[0]) / 1e6:.3f} s)")
        busy, kernel_source = _busy(tl, window, devices, cuda)
    synth = _stats(without_jobs(_detail_ms(tl, "SYNTH_END", "synth_ms"), excluded)["value_ms"])
    tp, lat = _throughput_latency(run, tl, excluded)
    counts, pre_destructor = _prestage(run, cuda)
    gpu_calls_excluded = int(((tl["event"] == "GPU_START") & tl["job"].isin(excluded)).sum()) if excluded else 0
    scope = f"all {len(cuda)} CUZK_TIMING / CUZK_NTT_H values of the run (the lines name no job)"
    if excluded:
        scope += f"; up to {gpu_calls_excluded} GPU call(s) of excluded jobs are among them"
    notes = []
    if not run.extras["completions"].empty and excluded:
        notes.append("completion lines name no job: excluded jobs cannot be taken out of the benchmark's figures")
    return ReferenceFigures(
        window_us=window, window_text=window_text, devices=devices, devices_text=devices_text,
        gpu_time=_gpu_time(tl, excluded, cuda), busy=busy, kernel_source=kernel_source, synth=synth,
        gaps=_gaps(tl) if not tl.empty else pd.DataFrame(columns=["lane", "device", "worker", "kind", "n", "total_ms"]),
        throughput=tp, latency=lat, failed=_failed(run, labels), prestage=counts, pre_destructor=pre_destructor,
        stages=metrics.stage_summary(reference_stage_long(run)), stage_scope=scope, notes=notes,
    )
