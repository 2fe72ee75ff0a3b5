"""The per-device table of a devices x gw experiment (prooflab_analysis.devices) on a hand-made
experiment frame whose means and speed-ups are worked out here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prooflab_analysis.devices import device_markdown, device_table, has_device_sweep


def _runs() -> pd.DataFrame:
    rows = []

    def run(cell, devices, gw, s, busy=(), kernel=(), status="complete"):
        row = {"cell": cell, "variant": "baseline", "status": status, "count": 8, "concurrency": 4,
               "devices": devices, "gpu_workers_per_device": gw, "s_per_proof": s}
        for d, b in enumerate(busy):
            row[f"summary.devices.{d}.gpu_busy"] = b
        for d, k in enumerate(kernel):
            row[f"summary.devices.{d}.kernel_busy"] = k
        rows.append(row)

    run("dev1_gw1", 1, 1, 10.0, busy=[0.9])
    run("dev1_gw1", 1, 1, 12.0, busy=[0.7])
    run("dev2_gw1", 2, 1, 6.0, busy=[0.5, 0.4])
    run("dev2_gw1", 2, 1, 5.0, busy=[0.7, 0.6])
    run("dev2_gw1", 2, 1, 99.0, busy=[0.0, 0.0], status="failed")  # left out
    run("dev1_gw2", 1, 2, 8.0, busy=[0.95])
    run("dev2_gw2", 2, 2, 5.0, busy=[0.8, 0.2])
    frame = pd.DataFrame(rows)
    frame.attrs["axes"] = ["count", "concurrency", "devices", "gpu_workers_per_device"]
    return frame


def test_means_per_device_and_the_speedup_over_the_one_device_cell() -> None:
    table = device_table(_runs()).set_index("cell")
    assert list(table.index) == ["dev1_gw1", "dev2_gw1", "dev1_gw2", "dev2_gw2"]
    assert table.loc["dev1_gw1", "s_per_proof"] == pytest.approx(11.0)
    assert table.loc["dev2_gw1", "reps"] == 2  # the failed run is not averaged in
    assert table.loc["dev2_gw1", "s_per_proof"] == pytest.approx(5.5)
    assert table.loc["dev2_gw1", "gpu_busy_0"] == pytest.approx(0.6)
    assert table.loc["dev2_gw1", "gpu_busy_1"] == pytest.approx(0.5)
    assert np.isnan(table.loc["dev1_gw1", "gpu_busy_1"])  # one device: no second column value
    assert table.loc["dev2_gw1", "speedup"] == pytest.approx(11.0 / 5.5)
    assert table.loc["dev2_gw2", "speedup"] == pytest.approx(8.0 / 5.0)  # against gw=2's one-device cell
    assert table.loc["dev1_gw2", "speedup"] == pytest.approx(1.0)


def test_only_experiments_with_several_devices_get_the_table() -> None:
    runs = _runs()
    assert has_device_sweep(runs)
    assert not has_device_sweep(runs[runs["devices"] == 1])
    assert not has_device_sweep(runs.drop(columns="devices"))


def test_the_markdown_leaves_out_kernel_columns_no_run_recorded() -> None:
    md = device_markdown(device_table(_runs()))
    assert "gpu_busy_1" in md and "kernel_busy" not in md
    assert "| dev2_gw1 | baseline | 2 |" in md and "60.0 %" in md and "2.00" in md
