"""The model against a measured experiment (issue 20, item 3).

Calibrate on one arm of an experiment (a (cell, variant) of its index: every repetition,
their stage values pooled), fit the bandwidth slowdown with the first runs of it and of
another cell, then predict every (cell, variant)
with that run's own config and compare with what was measured in the same sitting:
throughput (s/proof, metrics.throughput over the timeline — the definition the prediction
uses) and latency p50. The relative error per cell and the median absolute error over the
cells the calibration did not use are the verdict.
"""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics, stats
from ..loaders import load_experiment, load_run
from ..tables import fmt_float, fmt_signed_percent, markdown_table
from .calibration import THREADS, Calibration, calibrate, pooled, resolve_threads, runs_threads
from .predict import point_prediction
from .settings import settings_from_config

COLUMNS = ["cell", "variant", "runs", "measured_s_per_proof", "predicted_s_per_proof", "error",
           "measured_p50_s", "predicted_p50_s", "p50_error", "binding", "used_for_calibration"]


@dataclass
class Validation:
    calibration: Calibration
    table: pd.DataFrame

    calibrated_on: str = ""

    @property
    def median_abs_error(self) -> float:
        held_out = self.table[~self.table["used_for_calibration"]]
        return stats.median(np.abs(held_out["error"]))

    @property
    def self_check_error(self) -> float:
        """The throughput error of the calibration arm's own prediction."""
        own = self.table[self.table["cell"] + "/" + self.table["variant"] == self.calibrated_on]
        return float(own["error"].iloc[0]) if not own.empty else float("nan")


def _arm(index: pd.DataFrame, arm: str) -> pd.DataFrame:
    cell, sep, variant = arm.partition("/")
    if not sep:
        raise ValueError(f"arm {arm!r} is not CELL/VARIANT (e.g. c8_j4/baseline)")
    rows = index[(index["cell"] == cell) & (index["variant"] == variant) & (index["status"] == "complete")]
    if rows.empty:
        known = sorted(set(index["cell"] + "/" + index["variant"]))
        raise ValueError(f"no complete run of {arm!r} in the experiment (arms: {', '.join(known)})")
    return rows.sort_values("rep")


def validate(experiment_dir: str | Path, calibrate_on: str, bandwidth_from: str | None = None, *, reps: int = 3,
             seed: int = 0, threads: str = "auto") -> Validation:
    """Calibrate on `calibrate_on`'s repetitions (`bandwidth_from`'s first fits beta; the
    effective threads are measured or fitted over all of them, or `threads="table"`),
    predict every arm and compare (module doc)."""
    if threads not in THREADS:
        raise ValueError(f"threads must be one of {THREADS}, got {threads!r}")
    index = load_experiment(experiment_dir)
    cal_runs = [load_run(p) for p in _arm(index, calibrate_on)["run_path"]]
    bw_run = load_run(_arm(index, bandwidth_from)["run_path"].iloc[0]) if bandwidth_from else None
    first = calibrate(cal_runs[0], bw_run, threads="table")
    threads, why = resolve_threads(threads, cal_runs)
    if threads in ("measured", "fitted"):
        found, how = runs_threads(cal_runs, first.beta, threads)
        probe, first = first, calibrate(cal_runs[0], beta=first.beta, threads=found)
        first.notes = [n for n in probe.notes if n.startswith("beta")] + [n for n in [why, how] if n] + \
            [n for n in first.notes if not n.startswith(("beta", "effective threads"))]
    cal = pooled([first] + [calibrate(r, beta=first.beta, threads=first.threads) for r in cal_runs[1:]])
    if reps % len(cal_runs):
        cal.notes.append(f"{reps} simulations per arm replay the {len(cal_runs)} calibration runs unevenly "
                         "(StageSampler: simulation k replays run k mod runs)")
    used = {calibrate_on, bandwidth_from}
    rows: list[dict[str, Any]] = []
    for (cell, variant), group in index[index["status"] == "complete"].groupby(["cell", "variant"], sort=True):
        measured_s, measured_p50 = [], []
        for path in group["run_path"]:
            run = load_run(path)
            tl = run.timeline
            measured_s.append(metrics.throughput(tl)["s_per_proof"])
            measured_p50.append(metrics.latency_percentiles(metrics.job_latency(tl))["p50"])
        config = load_run(group["run_path"].iloc[0]).config
        settings = settings_from_config(config, cal.settings["cores"])
        point = point_prediction(cal, settings, f"{cell}/{variant}", reps, seed, 0.0)
        m_s, m_p50 = stats.mean(measured_s, "measured s/proof"), stats.mean(measured_p50, "measured p50")
        rows.append({"cell": cell, "variant": variant, "runs": len(group), "measured_s_per_proof": m_s,
                     "predicted_s_per_proof": point.row["s_per_proof"],
                     "error": point.row["s_per_proof"] / m_s - 1.0,
                     "measured_p50_s": m_p50, "predicted_p50_s": point.row["latency_p50_s"],
                     "p50_error": point.row["latency_p50_s"] / m_p50 - 1.0,
                     "binding": f"{point.row['binding']} ({point.row['binding_util']:.0%})",
                     "used_for_calibration": f"{cell}/{variant}" in used})
    return Validation(cal, pd.DataFrame(rows, columns=COLUMNS), calibrate_on)


def validation_markdown(v: Validation) -> str:
    """The table and the verdict, as results/ records it."""
    shown = v.table.copy()
    shown["used_for_calibration"] = ["yes" if u else "" for u in shown["used_for_calibration"]]
    text = markdown_table(shown, {"measured_s_per_proof": fmt_float(3), "predicted_s_per_proof": fmt_float(3),
                                  "error": fmt_signed_percent(), "measured_p50_s": fmt_float(2),
                                  "predicted_p50_s": fmt_float(2), "p50_error": fmt_signed_percent()})
    mae = v.median_abs_error
    verdict = f"median absolute throughput error over the held-out arms: {mae:.1%}" if math.isfinite(mae) else \
        "no held-out arm"
    own = v.self_check_error
    check = f"self-check (the calibration arm {v.calibrated_on} predicted): {own:+.1%}" if math.isfinite(own) else ""
    return "\n".join([text, verdict, check, "", "calibration notes:"] + [f"- {n}" for n in v.calibration.notes]) + "\n"


def host_line() -> str:
    """Machine and load at the time of the call (for results/)."""
    try:
        load = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        load = ["?"] * 3
    return f"{platform.node()} ({platform.machine()}), load average {' '.join(load)}"
