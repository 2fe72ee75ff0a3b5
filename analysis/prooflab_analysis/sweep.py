"""Concurrency-sweep table: one row per experiment cell (and variant), averaged over its
complete repetitions. c is the proof count and j the concurrency (`batch --count C
--concurrency J`), taken from the `count`/`concurrency` axes or each run's config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .tables import fmt_float, fmt_percent, markdown_table

# Energy figures (energy.py); shown only where some run recorded them.
ENERGY_COLUMNS = ["j_per_proof", "avg_power_w", "proofs_per_kwh"]
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
SWEEP_COLUMNS = ["cell", "variant", "c", "j", "reps"] + METRIC_COLUMNS + ["bandwidth_source"]

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
    "avg_power_w": fmt_float(1),
    "proofs_per_kwh": fmt_float(1),
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
    "avg_power_w": "avg W",
    "proofs_per_kwh": "proofs/kWh",
}


def _axis(runs: pd.DataFrame, *names: str) -> pd.Series:
    for name in names:
        if name in runs.columns:
            return pd.to_numeric(runs[name], errors="coerce")
    return pd.Series(np.nan, index=runs.index)


def sweep_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean of each metric over the complete runs of each (cell, variant); `reps` counts
    them. Rows are ordered by c, j, then variant."""
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
    rows = []
    for (cell, variant), grp in usable.groupby(["cell", "variant"], sort=False):
        row = {"cell": cell, "variant": variant, "c": grp["c"].iloc[0], "j": grp["j"].iloc[0], "reps": len(grp)}
        for col in METRIC_COLUMNS:
            values = grp[col].dropna()
            row[col] = float(values.mean()) if len(values) else np.nan
        sources = sorted({s for s in grp["bandwidth_source"].fillna("").astype(str) for s in s.split(",") if s})
        row["bandwidth_source"] = ",".join(sources)
        rows.append(row)
    table = pd.DataFrame(rows, columns=SWEEP_COLUMNS)
    table = table.sort_values(["c", "j", "variant"], kind="stable", na_position="last").reset_index(drop=True)
    table["reps"] = table["reps"].astype("int64")
    return table


def sweep_markdown(table: pd.DataFrame) -> str:
    shown = table
    if shown["variant"].nunique() <= 1:
        shown = shown.drop(columns="variant")
    if not shown["bandwidth_source"].astype(bool).any():
        shown = shown.drop(columns="bandwidth_source")
    shown = shown.drop(columns=[c for c in ENERGY_COLUMNS if shown[c].isna().all()])
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
