"""Sweep figure: one line per variant, each point the mean of its repetitions with the 95 %
t interval, GPU busy against kernel busy, GPU time per partition."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats

from builders import KNOWN, write_sweep_experiment
from prooflab_analysis import metrics
from prooflab_analysis.loaders import load_experiment
from prooflab_analysis.sweep import sweep_table
from prooflab_analysis.report import write_report
from prooflab_analysis.sweep_plot import sweep_figure

CELLS = [(5, 5, 1.0), (10, 10, 0.8), (20, 15, 0.75)]
VARIANTS = {"baseline": 1.0, "gw3": 0.9}
JITTER = [1.0, 1.06, 0.97]


@pytest.fixture(scope="module")
def figure(tmp_path_factory: pytest.TempPathFactory):
    exp = write_sweep_experiment(tmp_path_factory.mktemp("sweep") / "exp", CELLS, reps=3, variants=VARIANTS,
                                 rep_jitter=JITTER)
    fig = sweep_figure(sweep_table(metrics.experiment_metrics(load_experiment(exp))), "sweep")
    yield fig
    plt.close(fig)


def expected(base: float, scale: float, factor: float) -> tuple[float, float, float]:
    values = np.array([base * scale * factor * f for f in JITTER])
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return values.mean(), values.mean() - half, values.mean() + half


def error_bars(ax, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, y of the k-th errorbar's line and the low/high ends of its bars."""
    container = ax.containers[k]
    line = container.lines[0]
    segments = container.lines[2][0].get_segments()
    lows = np.array([min(s[0][1], s[1][1]) for s in segments])
    highs = np.array([max(s[0][1], s[1][1]) for s in segments])
    return line.get_xdata(), line.get_ydata(), lows, highs


@pytest.mark.parametrize("panel, base", [(0, KNOWN["s_per_proof"]), (2, KNOWN["gpu_ms_per_partition"])])
def test_points_and_intervals_per_variant(figure, panel: int, base: float) -> None:
    ax = figure.axes[panel]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["baseline", "gw3"]  # baseline first
    for k, (variant, factor) in enumerate(VARIANTS.items()):
        x, y, lo, hi = error_bars(ax, k)
        assert list(np.round(x)) == [5, 10, 15]  # variants set apart by a fraction of a step
        want = [expected(base, scale, factor) for _, _, scale in CELLS]
        assert y == pytest.approx([w[0] for w in want])
        assert lo == pytest.approx([w[1] for w in want]) and hi == pytest.approx([w[2] for w in want])


def test_gpu_busy_against_kernel_busy(figure) -> None:
    ax = figure.axes[1]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert sorted(lines) == sorted(f"{what} ({v})" for v in VARIANTS for what in
                                   ("GPU busy, spans", "kernel busy, CUPTI"))
    # the known run: GPU spans 75 % of the window, kernels 65 %, whatever the speed
    assert lines["GPU busy, spans (gw3)"].get_ydata() == pytest.approx([75.0] * 3)
    assert lines["kernel busy, CUPTI (baseline)"].get_ydata() == pytest.approx([65.0] * 3)
    assert lines["kernel busy, CUPTI (baseline)"].get_linestyle() == "--"


def test_ticks_name_j_and_c(figure) -> None:
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["5\nc=5", "10\nc=10", "15\nc=20"]


def test_experiment_report_embeds_the_sweep_figure(tmp_path: Path) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", CELLS[:2], reps=2)
    md = write_report(exp).read_text()
    assert "![sweep](sweep.png)" in md
    assert (tmp_path / "exp" / "report" / "sweep.svg").read_text().count("<text") > 10


def test_empty_table_is_an_error() -> None:
    import pandas as pd

    with pytest.raises(ValueError, match="no rows"):
        sweep_figure(pd.DataFrame({"j": [], "variant": []}))


GPU_J = 80.0  # GPU joules per proof of the unscaled run


def test_energy_per_proof_as_the_sweep_figures_metric(tmp_path: Path) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", CELLS, reps=3, variants=VARIANTS, rep_jitter=JITTER,
                                 gpu_j_per_proof=GPU_J)
    table = sweep_table(metrics.experiment_metrics(load_experiment(exp)))
    assert table["j_per_proof"].isna().all()  # no host figure: no sum
    fig = sweep_figure(table, "sweep", metric="gpu_j_per_proof")
    try:
        ax = fig.axes[0]
        assert ax.get_title(loc="left") == "GPU energy per proof" and ax.get_ylabel().startswith("GPU J/proof")
        for k, (_, factor) in enumerate(VARIANTS.items()):
            _, y, lo, hi = error_bars(ax, k)
            want = [expected(GPU_J, scale, factor) for _, _, scale in CELLS]
            assert y == pytest.approx([w[0] for w in want])
            assert lo == pytest.approx([w[1] for w in want]) and hi == pytest.approx([w[2] for w in want])
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="no run of the sweep recorded j_per_proof"):
        sweep_figure(table, "sweep", metric="j_per_proof")
    with pytest.raises(ValueError, match="metric 'watts' is not one of"):
        sweep_figure(table, "sweep", metric="watts")


def test_experiment_report_draws_the_energy_sweep_where_runs_recorded_energy(tmp_path: Path) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", CELLS, reps=2, variants=VARIANTS, gpu_j_per_proof=GPU_J)
    md = write_report(exp).read_text()
    assert "![sweep, energy per proof](sweep_energy.png)" in md
    assert (exp / "report" / "sweep_energy.svg").exists()
    assert "GPU J/proof" in md and "J/proof |" not in md.replace("GPU J/proof", "")  # the absent sum is left out
    plain = write_sweep_experiment(tmp_path / "plain", CELLS, reps=2, variants=VARIANTS)
    assert "sweep_energy" not in write_report(plain).read_text()
