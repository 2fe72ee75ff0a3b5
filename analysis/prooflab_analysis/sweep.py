"""Concurrency-sweep table: one row per experiment cell (and variant), averaged over its
complete repetitions. c is the proof count and j the concurrency (`batch --count C
--concurrency J`), taken from the `count`/`concurrency` axes or each run's config.

Rows are ordered by c and j, then by the experiment's other axes (their values, numbers as
numbers: pw 1, 2, 4, 8, 12, not the runs' shuffled order), the baseline variant first
within each cell; the spread of the
repetitions is shown for the metrics in `SPREAD_METRICS`: sample standard deviation and a
95 % Student-t interval of the mean (stats.mean_t_interval; blank with one repetition)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .stats import mean, mean_t_interval
from .tables import fmt_float, fmt_percent, markdown_table

# Energy figures (energy.py); shown only where some run recorded them.
ENERGY_COLUMNS = ["j_per_proof", "gpu_j_per_proof", "avg_power_w", "proofs_per_kwh"]
METRIC_COLUMNS = [
    "s_per_proof",
    "proofs_per_min",
    "gpu_busy",
    "kernel_busy",
    "gpu_ms_per_partition",
    "synth_ms",
    "latency_p50_s",
    "latency_p95_s",
    "bandwidth_gbps",
    *ENERGY_COLUMNS,
]
SPREAD_METRICS = ["s_per_proof", "gpu_ms_per_partition", "j_per_proof", "gpu_j_per_proof"]
SPREAD_SUFFIXES = ["_sd", "_ci_low", "_ci_high"]
SPREAD_DIGITS = {"s_per_proof": 2, "gpu_ms_per_partition": 1, "j_per_proof": 1, "gpu_j_per_proof": 1}  # of the interval in markdown
SWEEP_COLUMNS = (["cell", "variant", "c", "j", "reps"]
                 + [c for m in METRIC_COLUMNS for c in [m] + ([m + s for s in SPREAD_SUFFIXES] if m in SPREAD_METRICS else [])]
                 + ["bandwidth_source"])

FORMATS = {
    "s_per_proof": fmt_float(2),
    "proofs_per_min": fmt_float(3),
    "gpu_busy": fmt_percent(1),
    "kernel_busy": fmt_percent(1),
    "gpu_ms_per_partition": fmt_float(1),
    "synth_ms": fmt_float(1),
    "latency_p50_s": fmt_float(2),
    "latency_p95_s": fmt_float(2),
    "bandwidth_gbps": fmt_float(1),
    "j_per_proof": fmt_float(1),
    "gpu_j_per_proof": fmt_float(1),
    "j_per_proof_sd": fmt_float(2),
    "gpu_j_per_proof_sd": fmt_float(2),
    "avg_power_w": fmt_float(1),
    "proofs_per_kwh": fmt_float(1),
    "s_per_proof_sd": fmt_float(3),
    "gpu_ms_per_partition_sd": fmt_float(2),
    "c": lambda v: str(int(v)),
    "j": lambda v: str(int(v)),
}
HEADERS = {
    "s_per_proof": "s/proof",
    "proofs_per_min": "proofs/min",
    "gpu_busy": "GPU busy",
    "kernel_busy": "kernel busy",
    "gpu_ms_per_partition": "GPU ms/partition",
    "synth_ms": "synth ms",
    "latency_p50_s": "p50 latency s",
    "latency_p95_s": "p95 latency s",
    "bandwidth_gbps": "bandwidth GB/s",
    "bandwidth_source": "bandwidth source",
    "j_per_proof": "J/proof",
    "gpu_j_per_proof": "GPU J/proof",
    "j_per_proof_sd": "sd",
    "j_per_proof_ci": "95 % CI",
    "gpu_j_per_proof_sd": "sd",
    "gpu_j_per_proof_ci": "95 % CI",
    "avg_power_w": "avg W",
    "proofs_per_kwh": "proofs/kWh",
    "s_per_proof_sd": "sd",
    "s_per_proof_ci": "95 % CI",
    "gpu_ms_per_partition_sd": "sd",
    "gpu_ms_per_partition_ci": "95 % CI",
}


def _axis(runs: pd.DataFrame, *names: str) -> pd.Series:
    for name in names:
        if name in runs.columns:
            return pd.to_numeric(runs[name], errors="coerce")
    return pd.Series(np.nan, index=runs.index)


def sweep_table(runs: pd.DataFrame, baseline: str = "baseline") -> pd.DataFrame:
    """Mean of each metric over the complete runs of each (cell, variant); `reps` counts
    them; sd and 95 % t interval for SPREAD_METRICS. Rows are ordered by c, j, the other
    axes of `runs.attrs['axes']` (numeric where every value is a number), then the
    `baseline` variant first and the others in name order."""
    usable = runs
    if "status" in usable.columns:
        usable = usable[usable["status"] == "complete"]
    if "loaded" in usable.columns:
        usable = usable[usable["loaded"].astype(bool)]
    usable = usable.assign(c=_axis(usable, "count", "c"), j=_axis(usable, "concurrency", "j"))
    for col in METRIC_COLUMNS:
        if col not in usable.columns:
            usable[col] = np.nan
        usable[col] = pd.to_numeric(usable[col], errors="coerce")
    if "bandwidth_source" not in usable.columns:
        usable["bandwidth_source"] = ""
    axes = [a for a in runs.attrs.get("axes", []) if a in usable.columns and a not in ("count", "concurrency")]
    rows, axis_keys = [], []
    for (cell, variant), grp in usable.groupby(["cell", "variant"], sort=False):
        row = {"cell": cell, "variant": variant, "c": grp["c"].iloc[0], "j": grp["j"].iloc[0], "reps": len(grp)}
        axis_keys.append({f"_axis_{a}": grp[a].iloc[0] for a in axes})
        for col in METRIC_COLUMNS:
            values = grp[col].dropna()
            row[col] = mean(values, col)
            if col in SPREAD_METRICS:
                _, sd, lo, hi = mean_t_interval(values)
                row.update({f"{col}_sd": sd, f"{col}_ci_low": lo, f"{col}_ci_high": hi})
        sources = sorted({s for s in grp["bandwidth_source"].fillna("").astype(str) for s in s.split(",") if s})
        row["bandwidth_source"] = ",".join(sources)
        rows.append(row)
    table = pd.DataFrame(rows, columns=SWEEP_COLUMNS)
    keys = pd.DataFrame(axis_keys, index=table.index, columns=[f"_axis_{a}" for a in axes])
    for col in keys.columns:  # numbers sort as numbers, anything else as text
        as_number = pd.to_numeric(keys[col], errors="coerce")
        keys[col] = as_number if as_number.notna().all() else keys[col].astype(str)
    table = pd.concat([table, keys], axis=1)
    table["_not_baseline"] = table["variant"] != baseline
    table = table.sort_values(["c", "j", *keys.columns, "_not_baseline", "variant"], kind="stable",
                              na_position="last")
    table = table.drop(columns=["_not_baseline", *keys.columns]).reset_index(drop=True)
    table["reps"] = table["reps"].astype("int64")
    return table


def _interval_text(lo: float, hi: float, digits: int) -> str:
    return "" if np.isnan(lo) or np.isnan(hi) else f"{lo:.{digits}f}–{hi:.{digits}f}"


def sweep_markdown(table: pd.DataFrame) -> str:
    shown = table.copy()
    for metric in SPREAD_METRICS:
        low, high = f"{metric}_ci_low", f"{metric}_ci_high"
        at = shown.columns.get_loc(low)
        text = [_interval_text(lo, hi, SPREAD_DIGITS[metric]) for lo, hi in zip(shown[low], shown[high])]
        shown = shown.drop(columns=[low, high])
        shown.insert(at, f"{metric}_ci", text)
    if shown["variant"].nunique() <= 1:
        shown = shown.drop(columns="variant")
    if not shown["bandwidth_source"].astype(bool).any():
        shown = shown.drop(columns="bandwidth_source")
    absent = [c for c in ENERGY_COLUMNS if shown[c].isna().all()]
    shown = shown.drop(columns=[c for m in absent for c in (m, f"{m}_sd", f"{m}_ci") if c in shown.columns])
    return markdown_table(shown, FORMATS, HEADERS)


def write_sweep(table: pd.DataFrame, out_dir: str | Path, stem: str = "sweep") -> tuple[Path, Path]:
    """Write `<stem>.md` and `<stem>.csv`; returns their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / f"{stem}.md"
    csv = out_dir / f"{stem}.csv"
    md.write_text(sweep_markdown(table), encoding="utf-8")
    table.to_csv(csv, index=False)
    return md, csv
