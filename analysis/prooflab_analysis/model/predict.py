"""Predictions: the table, the binding resource of each setting, and predicted runs.

`predict` calibrates on a measured run, simulates the calibration's own setting (its
predicted row next to what was measured, the model's self-check) and every requested
setting, and reads each simulated run with the analysis' own metrics (metrics.throughput,
job_latency / stats.percentile, utilisation), so a predicted number means what the measured
one means. `predicted_run` turns a simulation into a `Run` (timeline.csv's schema, run.json's
config), which run_waterfall draws and `write_run_directory` saves.

The binding resource of a setting is the one with the highest utilisation over the run
window: the cores (busy core-seconds / cores), a GPU lock (held time; single: the GPU
mutex; two_lock: compute_mtx and mem_mtx), the synthesis lanes and the GPU workers (time
busy with a partition), the groth16 pool (its threads' busy time), the dealloc mutex, the
host-memory budget (time a partition waited for room) and the job slots (jobs in flight / j).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .. import metrics, schema
from ..loaders import Run, RunFormatError, is_run_dir, load_run
from ..reflog import load_reference_log
from .. import stats
from ..stats import percentile
from .calibration import Calibration, calibrate
from .engine_sim import SimResult, simulate
from .settings import KNOBS, Settings, apply_overrides, axis_points

TABLE_COLUMNS = ["setting", "s_per_proof", "proofs_per_min", "latency_p50_s", "latency_p95_s", "gpu_busy",
                 "kernel_busy", "peak_host_bytes", "binding", "binding_util", "failed_jobs"]


def load_source(path: str | Path) -> Run:
    """A run directory, or a reference log holding exactly one run."""
    path = Path(path)
    if path.is_dir():
        if not is_run_dir(path):
            raise RunFormatError(path, "not a run directory (no run.json or timeline.csv) and not a log file")
        return load_run(path)
    if not path.exists():
        raise RunFormatError(path, "no such run directory or log file")
    runs = load_reference_log(path)
    if len(runs) != 1:
        raise RunFormatError(path, f"the log holds {len(runs)} runs ({', '.join(r.run_id for r in runs)}): "
                             "predict from one (split the log at its run markers)")
    return runs[0]


# ---------------------------------------------------------------- simulated run

def timeline_frame(sim: SimResult) -> pd.DataFrame:
    """The simulation's events as timeline.csv rows (µs, the run-directory schema)."""
    columns = list(zip(*sim.events)) if sim.events else [()] * len(schema.TIMELINE_COLUMNS)
    frame = pd.DataFrame({"t_us": np.round(np.asarray(columns[0], dtype=float) * 1e6).astype("int64"),
                          "event": list(columns[1])})
    for col, values in zip(("job", "partition", "worker", "device"), columns[2:6]):
        frame[col] = pd.array(list(values), dtype=schema.INT_DTYPE)
    frame["detail"] = list(columns[6])
    frame["event"] = frame["event"].astype(object)
    frame["detail"] = frame["detail"].astype(object)
    return frame.sort_values("t_us", kind="stable").reset_index(drop=True)


def predicted_run(sim: SimResult, cal: Calibration, run_id: str) -> Run:
    """A Run of the simulated batch: the waterfall and the metrics read it as a measured one."""
    config = {k: v for k, v in sim.settings.items() if k != "cores"}
    config["backend"] = "cpu" if cal.gpu_on_cpu else "cuda"
    meta = {"run_id": run_id, "source": "prediction", "status": "complete", "config": config,
            "host": {"cores": sim.settings["cores"]}, "calibrated_on": cal.run_id}
    # What the engine's summary.json records of its pools (docs/run-directory.md): their
    # threads' CPU time, here the simulated pools' busy core-seconds.
    summary = {"cpu_seconds_by_pool": {p: sim.pool_busy_core_s.get(p, 0.0) for p in sim.pool_threads}}
    return Run(path=None, meta=meta, timeline=timeline_frame(sim), stages=schema.empty_stages(),
               cupti=schema.empty_cupti(), counters=schema.empty_counters(), summary=summary)


def write_run_directory(run: Run, directory: str | Path, summary: dict[str, Any]) -> Path:
    """run.json, timeline.csv and summary.json of a predicted run (docs/run-directory.md)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "run.json").write_text(json.dumps(run.meta, indent=2) + "\n")
    run.timeline.to_csv(directory / "timeline.csv", index=False)
    (directory / "summary.json").write_text(json.dumps(summary, indent=2, default=float) + "\n")
    return directory


# -------------------------------------------------------------- utilisation

def _busy_s(tl: pd.DataFrame, start: str, end: str, keys: Sequence[str] = ("job", "partition")) -> float:
    iv = metrics.pair_intervals(tl, start, end, keys)
    return float(iv["dur_us"].sum()) / 1e6 if not iv.empty else 0.0


def resource_utilisation(sim: SimResult, tl: pd.DataFrame, window_s: float) -> dict[str, float]:
    """Utilisation of each resource over the run window (module doc)."""
    s = sim.settings
    if not window_s > 0:
        return {}
    devices, workers = s["devices"], s["gpu_workers_per_device"] * s["devices"]
    out = {"cpu cores": sim.cpu_busy_core_s / (s["cores"] * window_s)}
    if s["lock_policy"] == "single":
        out["gpu lock"] = sim.held_s.get("gpu_lock", 0.0) / (devices * window_s)
    elif s["lock_policy"] == "two_lock":
        out["compute_mtx"] = sim.held_s.get("compute_lock", 0.0) / (devices * window_s)
        out["mem_mtx"] = sim.held_s.get("mem_mtx", 0.0) / (devices * window_s)
    out["synthesis lanes"] = _busy_s(tl, "SYNTH_START", "PREP_MSM_END") / (s["partition_workers"] * window_s)
    worker_end = "GPU_END" if s["finalize"] == "split" else ("DEALLOC_END" if s["dealloc_policy"] == "inline" else "B_G2_MSM_END")
    out["gpu workers"] = _busy_s(tl, "GPU_PICKUP", worker_end) / (workers * window_s)
    out["groth16 pool"] = sim.pool_busy_core_s.get("groth16", 0.0) / (sim.pool_threads["groth16"] * window_s)
    if s["dealloc_policy"] == "serialized":
        out["dealloc mutex"] = sim.held_s.get("dealloc_mutex", 0.0) / window_s
    out["host memory budget"] = sim.host_wait_s / window_s
    out["job slots"] = _busy_s(tl, "JOB_SUBMIT", "JOB_DONE", ("job",)) / (s["concurrency"] * window_s)
    return {k: float(min(v, 1.0)) for k, v in out.items()}


def binding_resource(util: dict[str, float]) -> tuple[str, float]:
    if not util:
        return "", float("nan")
    name = max(util, key=lambda k: util[k])
    return name, util[name]


# ---------------------------------------------------------------- metrics

@dataclass
class PointPrediction:
    label: str
    settings: Settings
    sims: list[SimResult]
    runs: list[Run]
    row: dict[str, Any]
    utilisation: dict[str, float]


def _kernel_busy(tl: pd.DataFrame, window: tuple[float, float], share: float) -> float:
    sub = tl[tl["event"].isin(["NTT_H", "BATCH_ADD", "TAIL_MSM"])]
    if sub.empty:
        return float("nan")
    dur = schema.detail_value(sub, "dur_us").astype(float).to_numpy()
    end = sub["t_us"].to_numpy(dtype=float)
    busy = [stats.union_us(end[m] - dur[m], end[m], window[0], window[1]) for m in
            [(sub["device"] == d).to_numpy(dtype=bool) for d in sub["device"].dropna().unique()]]
    return stats.mean(busy, "predicted kernel busy per device") / (window[1] - window[0]) * share


def point_prediction(cal: Calibration, settings: Settings, label: str, reps: int, seed: int,
                     rss_baseline: float) -> PointPrediction:
    """Simulates `settings` `reps` times (seeds seed..seed+reps-1) and averages the metrics;
    latency percentiles are over the jobs of all repetitions."""
    sims, runs, rows, utils, latencies = [], [], [], [], []
    for k in range(reps):
        sim = simulate(cal, settings, seed + k)
        run = predicted_run(sim, cal, f"predicted/{label}/{k}")
        tl = run.timeline
        tp = metrics.throughput(tl)
        window = metrics.run_window(tl)
        util_frame = metrics.utilisation(tl, run.cupti, window)
        latencies.extend(metrics.job_latency(tl)["latency_s"].tolist())
        util = resource_utilisation(sim, tl, tp["window_s"])
        rows.append({"s_per_proof": tp["s_per_proof"], "proofs_per_min": tp["proofs_per_min"],
                     "gpu_busy": stats.mean(util_frame["gpu_busy"], "predicted GPU busy per device"),
                     "kernel_busy": _kernel_busy(tl, window, cal.kernel_share),
                     "peak_host_bytes": sim.host_peak_bytes + rss_baseline if cal.host_bytes else float("nan"),
                     "failed_jobs": len(sim.failed_jobs)})
        sims.append(sim)
        runs.append(run)
        utils.append(util)
    row = {"setting": label, **{k: _mean([r[k] for r in rows]) for k in rows[0]}}
    row["latency_p50_s"] = percentile(latencies, 50)
    row["latency_p95_s"] = percentile(latencies, 95)
    util = {k: stats.mean([u.get(k, 0.0) for u in utils], f"predicted {k} utilisation") for k in utils[0]}
    row["binding"], row["binding_util"] = binding_resource(util)
    return PointPrediction(label, settings, sims, runs, row, util)


def measured_row(run: Run) -> dict[str, Any]:
    """The calibration run's own numbers in the table's columns."""
    m = metrics.run_metrics(run)
    return {"setting": "measured (calibration run)", "s_per_proof": m.get("s_per_proof"),
            "proofs_per_min": m.get("proofs_per_min"), "latency_p50_s": m.get("latency_p50_s"),
            "latency_p95_s": m.get("latency_p95_s"), "gpu_busy": m.get("gpu_busy"), "kernel_busy": m.get("kernel_busy"),
            "peak_host_bytes": m.get("peak_rss_bytes"), "binding": "", "binding_util": float("nan"),
            "failed_jobs": m.get("jobs_failed", 0)}


@dataclass
class Prediction:
    calibration: Calibration
    points: list[PointPrediction]
    table: pd.DataFrame


def _text(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _mean(values: list[float]) -> float:
    """The mean over the repetitions that have the figure (a CPU-backend calibration has no
    kernel busy, one without host bytes no peak): missing, not a number."""
    return stats.mean([v for v in values if v is not None and math.isfinite(v)], "predicted repetitions")


def _label(base: Settings, settings: Settings) -> str:
    changed = [f"{k}={_text(settings[k])}" for k in KNOBS if settings[k] != base[k]]
    return " ".join(changed) if changed else "calibration setting"


def predict(source: Run, sets: Sequence[str] = (), axes: Sequence[str] = (), *, bandwidth_run: Run | None = None,
            reps: int = 3, seed: int = 0, fit: str = "empirical", threads: str = "auto", cores: int | None = None,
            calibration: Calibration | None = None) -> Prediction:
    """Calibrate on `source` (or use `calibration`), then predict the calibration setting and
    each point of `axes` over `sets` (module doc)."""
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    cal = calibration or calibrate(source, bandwidth_run, fit=fit, cores=cores, threads=threads)
    base = cal.settings
    own = point_prediction(cal, base, "calibration setting (predicted)", reps, seed, 0.0)
    rss_baseline = 0.0
    if math.isfinite(cal.peak_rss_bytes) and cal.host_bytes:
        rss_baseline = cal.peak_rss_bytes - own.row["peak_host_bytes"]
        own.row["peak_host_bytes"] += rss_baseline
    else:
        cal.notes.append("peak host memory: the partition buffers charged to the budget only (the run recorded no RSS)")
    points = [own]
    target = apply_overrides(base, sets)
    for point in axis_points(axes):
        settings = target.replace(**point)
        points.append(point_prediction(cal, settings, _label(base, settings), reps, seed, rss_baseline))
    rows = [measured_row(source)] + [p.row for p in points]
    return Prediction(cal, points, pd.DataFrame(rows, columns=TABLE_COLUMNS))


def format_table(pred: Prediction) -> str:
    """The table as text, with the binding resource of each setting and the notes."""
    from ..tables import fmt_bytes, fmt_float, fmt_percent, markdown_table

    shown = pred.table.copy()
    shown["binding"] = [f"{b} ({u:.0%})" if b else "" for b, u in zip(shown["binding"], shown["binding_util"])]
    shown = shown.drop(columns=["binding_util"])
    text = markdown_table(shown, {"s_per_proof": fmt_float(3), "proofs_per_min": fmt_float(2),
                                  "latency_p50_s": fmt_float(2), "latency_p95_s": fmt_float(2),
                                  "gpu_busy": fmt_percent(), "kernel_busy": fmt_percent(),
                                  "peak_host_bytes": fmt_bytes, "failed_jobs": fmt_float(1)})
    lines = [f"calibrated on {pred.calibration.run_id}", "", text, "", "utilisation per setting:"]
    for p in pred.points:
        lines.append(f"  {p.label}: " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(p.utilisation.items(),
                                                                                    key=lambda kv: -kv[1])))
    lines += ["", "notes:"] + [f"  - {n}" for n in pred.calibration.notes]
    return "\n".join(lines)


def predict_command(path: str, sets: Sequence[str] = (), axes: Sequence[str] = (), *, waterfall: str | None = None,
                    runs_dir: str | None = None, bandwidth_run: str | None = None, reps: int = 3, seed: int = 0,
                    fit: str = "empirical", threads: str = "auto", cores: int | None = None) -> str:
    """`prooflab predict`: the table as text; writes the predicted waterfall(s) to
    `waterfall` (a file stem; `-<k>` added per setting when there are several) and the
    predicted runs under `runs_dir`. Returns the text printed."""
    from ..figures import save_figure
    from ..waterfall import run_waterfall

    source = load_source(path)
    other = load_source(bandwidth_run) if bandwidth_run else None
    pred = predict(source, sets, axes, bandwidth_run=other, reps=reps, seed=seed, fit=fit, threads=threads, cores=cores)
    # The calibration setting's own prediction is drawn only when nothing else was asked.
    shown = pred.points if len(pred.points) == 1 else pred.points[1:]
    lines = [format_table(pred)]
    for k, point in enumerate(shown):
        run = point.runs[0]
        if waterfall:
            stem = Path(waterfall)
            stem = stem.with_suffix("") if len(shown) == 1 else stem.with_name(f"{stem.with_suffix('').name}-{k}")
            for written in save_figure(run_waterfall(run), stem):
                lines.append(f"waterfall ({point.label}): {written}")
        if runs_dir:
            summary = {**run.summary, **{k2: v for k2, v in point.row.items() if k2 != "setting"}}
            written = write_run_directory(run, Path(runs_dir) / f"point-{k}", summary)
            lines.append(f"predicted run ({point.label}): {written}")
    return "\n".join(lines)
