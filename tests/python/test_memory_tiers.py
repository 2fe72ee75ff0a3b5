"""Memory tiers on a generated pw x gw sweep: points, Pareto frontier, recommendation per
memory size, the figure and the report section."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from builders import GIB, KNOWN, run_meta, write_memory_experiment, write_run
from prooflab_analysis import metrics
from prooflab_analysis.loaders import load_experiment, load_run
from prooflab_analysis.memory_tiers import (
    has_memory_sweep, memory_points, pareto_frontier, recommend, recommendations_markdown, round_memory_size,
)
from prooflab_analysis.memory_tiers_plot import memory_tiers_figure
from prooflab_analysis.report import write_report

# (pw, gw): (time scale, peak RSS). (4, 2) is slower than (4, 1) and needs more memory.
CELLS = {(2, 1): (1.6, 60 * GIB), (2, 2): (1.4, 90 * GIB), (4, 1): (1.2, 120 * GIB), (4, 2): (1.25, 150 * GIB),
         (8, 1): (1.0, 230 * GIB), (8, 2): (0.95, 400 * GIB)}
REP_RSS = [1.0, 1.02]
JITTER = [1.0, 1.04]
SUMMARY_PEAK = {(8, 2): 1.05}  # recorded by the engine: wins over the counter samples


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    exp = write_memory_experiment(tmp_path_factory.mktemp("mem") / "exp", CELLS, reps=2, rep_rss=REP_RSS,
                                  rep_jitter=JITTER, summary_peak=SUMMARY_PEAK)
    return metrics.experiment_metrics(load_experiment(exp))


def expected_peak(cell: tuple[int, int]) -> float:
    peak = CELLS[cell][1]
    return SUMMARY_PEAK[cell] * peak if cell in SUMMARY_PEAK else max(REP_RSS) * peak


def expected_s(cell: tuple[int, int]) -> float:
    return KNOWN["s_per_proof"] * CELLS[cell][0] * float(np.mean(JITTER))


def test_a_sweep_that_also_varies_the_devices_gets_no_memory_tiers(runs: pd.DataFrame) -> None:
    assert has_memory_sweep(runs)
    assert has_memory_sweep(runs.assign(devices=1))
    assert not has_memory_sweep(runs.assign(devices=[1 + i % 2 for i in range(len(runs))]))


def test_points_per_cell(runs: pd.DataFrame) -> None:
    points = memory_points(runs)
    got = {(r.partition_workers, r.gpu_workers_per_device): r for r in points.itertuples()}
    assert set(got) == set(CELLS)
    for cell, row in got.items():
        assert row.reps == 2
        assert row.s_per_proof == pytest.approx(expected_s(cell))
        assert row.peak_rss_bytes == pytest.approx(expected_peak(cell))  # the worse repetition
        assert row.peak_rss_source == ("summary" if cell in SUMMARY_PEAK else "counters")
    assert list(points["peak_rss_bytes"]) == sorted(points["peak_rss_bytes"])


def test_frontier_leaves_out_the_dominated_cell(runs: pd.DataFrame) -> None:
    points = memory_points(runs)
    frontier = {(r.partition_workers, r.gpu_workers_per_device) for r in points.itertuples() if r.on_frontier}
    assert frontier == set(CELLS) - {(4, 2)}


def test_pareto_frontier_against_a_sweep_line() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        mem = rng.integers(1, 8, 12).astype(float)
        sec = rng.integers(1, 8, 12).astype(float)
        keep = pareto_frontier(mem, sec)
        # sweep line: by memory, the best time at each memory level is on the frontier when it beats all
        # smaller memories; ties of both values stay
        expect = np.zeros(12, dtype=bool)
        for i in range(12):
            smaller = sec[mem < mem[i]]
            same = sec[mem == mem[i]]
            expect[i] = sec[i] == same.min() and (smaller.size == 0 or sec[i] < smaller.min())
        assert keep.tolist() == expect.tolist()


def test_recommendation_per_memory_size(runs: pd.DataFrame) -> None:
    points = memory_points(runs)
    sizes = [64 * GIB, 128 * GIB, 256 * GIB, 512 * GIB]
    table = recommend(points, sizes, headroom=0.9)
    for size, row in zip(sizes, table.itertuples()):
        fits = [c for c in CELLS if expected_peak(c) <= 0.9 * size]
        if not fits:
            assert pd.isna(row.partition_workers)
            continue
        best = min(fits, key=expected_s)
        assert (row.partition_workers, row.gpu_workers_per_device) == best
        assert row.s_per_proof == pytest.approx(expected_s(best))
    # 64 GiB: 57.6 usable < 61.2 needed by the leanest configuration
    assert "nothing measured fits" in recommendations_markdown(table).splitlines()[2]


def test_default_sizes_are_round_sizes_of_the_frontier(runs: pd.DataFrame) -> None:
    points = memory_points(runs)
    table = recommend(points)
    wanted = sorted({round_memory_size(expected_peak(c) / 0.9) for c in CELLS if c != (4, 2)})
    assert list(table["memory_bytes"]) == wanted
    assert round_memory_size(130 * GIB) == 192 * GIB and round_memory_size(250 * GIB) == 256 * GIB
    # every size gets a configuration that fits it
    assert (table["peak_rss_bytes"] <= 0.9 * table["memory_bytes"]).all()


def test_figure_shows_points_frontier_and_tiers(runs: pd.DataFrame) -> None:
    points = memory_points(runs)
    table = recommend(points, [128 * GIB, 256 * GIB, 512 * GIB])
    fig = memory_tiers_figure(points, table, "mem")
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["gw=1", "gw=2", "Pareto frontier"]
        gw1 = ax.containers[0].lines[0]
        cells = sorted((c for c in CELLS if c[1] == 1), key=expected_peak)
        assert list(gw1.get_xdata()) == pytest.approx([expected_peak(c) / GIB for c in cells])
        step = next(line for line in ax.get_lines() if line.get_label() == "Pareto frontier")
        assert len(step.get_xdata()) == 5
        tiers = [t.get_text() for t in ax.texts if "host" in t.get_text()]
        # 256 GiB: pw=8 gw=1 needs 234.6 GiB > 230.4 usable, so pw=4 gw=1
        assert tiers == [" 128 GiB host: pw=2 gw=2", " 256 GiB host: pw=4 gw=1", " 512 GiB host: pw=8 gw=2"]
        assert sum(t.get_text().startswith("pw=") for t in ax.texts) == len(CELLS)
    finally:
        plt.close(fig)


def test_report_section(tmp_path: Path) -> None:
    exp = write_memory_experiment(tmp_path / "exp", CELLS, reps=2, rep_rss=REP_RSS, rep_jitter=JITTER)
    md = write_report(exp).read_text()
    assert "## Memory tiers" in md and "![memory tiers](memory_tiers.png)" in md
    # pw=8 gw=1 peaks at 230 x 1.02 = 234.6 GiB: 234.6 / 0.9 = 260.7 needs the 384 GiB size, not 256
    assert "| 384 GiB | 346 GiB | pw=8 gw=1 | 0.41 | 235 GiB |" in md
    assert "| 192 GiB | 173 GiB | pw=4 gw=1 | 0.49 | 122 GiB |" in md
    assert (tmp_path / "exp" / "report" / "memory_recommendations.csv").exists()


def test_peak_rss_sources_and_bad_value(tmp_path: Path) -> None:
    run = load_run(write_run(tmp_path / "a", meta=run_meta()))
    assert np.isnan(metrics.peak_rss(run)[0]) and metrics.peak_rss(run)[1] == ""
    bad = load_run(write_run(tmp_path / "b", meta=run_meta(), summary={"peak_rss_bytes": "lots"}))
    with pytest.raises(ValueError, match=r"summary.json: peak_rss_bytes must be a number of bytes >= 0, got 'lots'"):
        metrics.peak_rss(bad)
