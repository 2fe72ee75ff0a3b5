"""Per-device table of an experiment whose runs used several devices (the devices x gw sweep,
experiments/devices-gw-sweep.toml): one row per (cell, variant) with the mean over its complete
repetitions of s/proof, of each device's GPU busy and kernel busy as summary.json gives them
(`summary.devices.<d>.gpu_busy`, `.kernel_busy`: docs/run-directory.md "summary.json"), and the
speed-up over the one-device cell that differs only in `devices`.

Every figure comes from summary.json (written by the engine and the harness), so the table
needs no timeline; tests/python/test_devices_cli.py checks those figures against timeline.csv.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .stats import mean
from .tables import fmt_float, fmt_percent, markdown_table

_DEVICE_COLUMN = re.compile(r"summary\.devices\.(\d+)\.(gpu_busy|kernel_busy)$")
# Axes that are not part of "the same configuration but for the device count".
_NOT_CONFIG = {"experiment", "cell", "variant", "rep", "order", "run_dir", "run_path", "status", "loaded", "devices"}


def has_device_sweep(runs: pd.DataFrame) -> bool:
    """Whether some run used more than one device."""
    return "devices" in runs.columns and bool((pd.to_numeric(runs["devices"], errors="coerce") > 1).any())


def _device_columns(runs: pd.DataFrame) -> list[tuple[int, str, str]]:
    found = [(int(m[1]), m[2], c) for c in runs.columns if (m := _DEVICE_COLUMN.match(str(c)))]
    return sorted(found)


def device_table(runs: pd.DataFrame, axes: list[str] | None = None) -> pd.DataFrame:
    """Rows per (cell, variant) of the complete runs: devices, the other `axes` (default: the
    index's axis columns), reps, s_per_proof, gpu_busy_<d> and kernel_busy_<d> per device, and
    `speedup` = s/proof of the one-device row with the same variant and other axes / this one's
    (NaN without such a row)."""
    usable = runs
    if "status" in usable.columns:
        usable = usable[usable["status"] == "complete"]
    if axes is None:
        index_cols = [c for c in runs.attrs.get("axes", []) if c in runs.columns]
        axes = [c for c in index_cols if c not in _NOT_CONFIG]
    per_device = _device_columns(usable)
    rows = []
    for (cell, variant), grp in usable.groupby(["cell", "variant"], sort=False):
        row = {"cell": cell, "variant": variant, "devices": int(pd.to_numeric(grp["devices"]).iloc[0])}
        row.update({a: grp[a].iloc[0] for a in axes})
        row["reps"] = len(grp)
        row["s_per_proof"] = mean(pd.to_numeric(grp["s_per_proof"], errors="coerce").dropna(), "s_per_proof")
        for d, figure, col in per_device:
            values = pd.to_numeric(grp[col], errors="coerce").dropna()
            row[f"{figure}_{d}"] = mean(values, col)
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    one = table[table["devices"] == 1].set_index(["variant", *axes])["s_per_proof"]
    keys = list(zip(table["variant"], *(table[a] for a in axes)))
    base = [one.get(k if axes else k[0], np.nan) for k in keys]
    table["speedup"] = np.asarray(base, dtype="float64") / table["s_per_proof"].to_numpy(dtype="float64")
    return table.sort_values(["variant", *axes, "devices"], kind="stable").reset_index(drop=True)


def device_markdown(table: pd.DataFrame) -> str:
    formats = {c: fmt_percent(1) for c in table.columns if c.startswith(("gpu_busy_", "kernel_busy_"))}
    formats.update({"s_per_proof": fmt_float(2), "speedup": fmt_float(2)})
    shown = table.drop(columns=[c for c in table.columns if c.startswith("kernel_busy_") and table[c].isna().all()])
    return markdown_table(shown, formats)
