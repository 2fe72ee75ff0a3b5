"""Concurrency-sweep table values from an experiment of scaled known runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from builders import KNOWN, write_sweep_experiment
from prooflab_analysis import metrics
from prooflab_analysis.loaders import load_experiment
from prooflab_analysis.sweep import SWEEP_COLUMNS, sweep_markdown, sweep_table, write_sweep

CELLS = [(10, 10, 0.8), (5, 5, 1.0), (20, 15, 0.75)]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    exp = write_sweep_experiment(tmp_path_factory.mktemp("sweep") / "exp", CELLS, reps=2)
    return sweep_table(metrics.experiment_metrics(load_experiment(exp)))


def test_sweep_rows_ordered_by_c_and_j(table) -> None:
    assert list(table.columns) == SWEEP_COLUMNS
    assert table[["cell", "c", "j", "reps"]].values.tolist() == [
        ["c5_j5", 5, 5, 2], ["c10_j10", 10, 10, 2], ["c20_j15", 20, 15, 2]]


@pytest.mark.parametrize("row, scale", [(0, 1.0), (1, 0.8), (2, 0.75)])
def test_sweep_values(table, row: int, scale: float) -> None:
    r = table.iloc[row]
    # Times scale with the run; utilisation and bandwidth do not.
    assert r["s_per_proof"] == pytest.approx(KNOWN["s_per_proof"] * scale, rel=1e-9)
    assert r["proofs_per_min"] == pytest.approx(KNOWN["proofs_per_min"] / scale, rel=1e-9)
    assert r["gpu_busy"] == pytest.approx(0.75, rel=1e-9)
    assert r["kernel_busy"] == pytest.approx(0.65, rel=1e-9)
    assert r["gpu_ms_per_partition"] == pytest.approx(150.0 * scale, rel=1e-9)
    assert r["synth_ms"] == pytest.approx(1550.0 / 6 * scale, rel=1e-9)
    assert r["latency_p50_s"] == pytest.approx(0.8 * scale, rel=1e-9)
    assert r["latency_p95_s"] == pytest.approx(0.935 * scale, rel=1e-9)
    assert r["bandwidth_gbps"] == pytest.approx(30.0, rel=1e-9)
    assert r["bandwidth_source"] == "probe"


def test_sweep_markdown_and_files(table, tmp_path: Path) -> None:
    md = sweep_markdown(table)
    lines = md.splitlines()
    assert lines[0] == ("| cell | c | j | reps | s/proof | sd | 95 % CI | proofs/min | GPU busy | kernel busy "
                        "| GPU ms/partition | sd | 95 % CI | synth ms | p50 latency s | p95 latency s | bandwidth GB/s "
                        "| bandwidth source |")
    # two identical repetitions: no spread
    assert lines[2] == ("| c5_j5 | 5 | 5 | 2 | 0.40 | 0.000 | 0.40–0.40 | 150.000 | 75.0 % | 65.0 % | 150.0 | 0.00 "
                        "| 150.0–150.0 | 258.3 | 0.80 | 0.93 | 30.0 | probe |")
    md_path, csv_path = write_sweep(table, tmp_path)
    assert md_path.read_text() == md
    assert csv_path.read_text().splitlines()[0] == ",".join(SWEEP_COLUMNS)


def test_blank_bandwidth_when_no_counters(table) -> None:
    no_bw = table.assign(bandwidth_gbps=float("nan"), bandwidth_source="")
    md = sweep_markdown(no_bw)
    assert "bandwidth source" not in md
    assert md.splitlines()[2].endswith("| 0.80 | 0.93 |  |")  # 0.935 is 0.93499.. in binary


def test_baseline_first_and_spread_of_noisy_repetitions(tmp_path: Path) -> None:
    jitter = [1.0, 1.1, 0.95]
    exp = write_sweep_experiment(tmp_path / "exp", [(10, 10, 1.0), (5, 5, 1.0)], reps=3,
                                 variants={"a_variant": 0.9, "baseline": 1.0}, rep_jitter=jitter)
    table = sweep_table(metrics.experiment_metrics(load_experiment(exp)))
    assert table[["cell", "variant"]].values.tolist() == [
        ["c5_j5", "baseline"], ["c5_j5", "a_variant"], ["c10_j10", "baseline"], ["c10_j10", "a_variant"]]
    values = np.array([KNOWN["s_per_proof"] * 0.9 * f for f in jitter])
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / np.sqrt(3)
    row = table.iloc[1]
    assert row["s_per_proof"] == pytest.approx(values.mean())
    assert row["s_per_proof_sd"] == pytest.approx(values.std(ddof=1))
    assert (row["s_per_proof_ci_low"], row["s_per_proof_ci_high"]) == pytest.approx(
        (values.mean() - half, values.mean() + half))
    md = sweep_markdown(table).splitlines()
    assert md[3].startswith(f"| c5_j5 | a_variant | 5 | 5 | 3 | {values.mean():.2f} | {values.std(ddof=1):.3f} | "
                            f"{values.mean() - half:.2f}–{values.mean() + half:.2f} |")


def test_one_repetition_has_no_interval(tmp_path: Path) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", [(5, 5, 1.0)], reps=1)
    row = sweep_table(metrics.experiment_metrics(load_experiment(exp))).iloc[0]
    assert np.isnan(row["s_per_proof_sd"]) and np.isnan(row["s_per_proof_ci_low"])


def test_cells_of_another_axis_in_its_value_order_not_the_runs_order() -> None:
    # A pw sweep at one c/j, runs listed in a shuffled order (as index.csv lists them): the
    # rows follow pw as numbers (12 after 8, not after 1), the baseline first in each cell.
    order = [12, 1, 4, 2, 8]
    runs = pd.DataFrame([{"cell": f"pw{pw}", "variant": v, "count": 5, "concurrency": 5, "partition_workers": str(pw),
                          "status": "complete", "s_per_proof": 1.0 + pw / 100}
                         for pw in order for v in ("z_variant", "baseline")])
    runs.attrs["axes"] = ["partition_workers"]
    table = sweep_table(runs)
    assert table["cell"].tolist() == ["pw1", "pw1", "pw2", "pw2", "pw4", "pw4", "pw8", "pw8", "pw12", "pw12"]
    assert table["variant"].tolist()[:2] == ["baseline", "z_variant"]
    assert table["s_per_proof"].tolist()[::2] == pytest.approx([1.01, 1.02, 1.04, 1.08, 1.12])
    runs.attrs["axes"] = []  # without axes: c, j, baseline first, then the runs' order, as before
    plain = sweep_table(runs)
    assert plain.loc[plain["variant"] == "baseline", "cell"].tolist() == [f"pw{pw}" for pw in order]
