"""A/B figure: every run as a point per arm, the forest plot of the relative change with its
interval against the minimum-effect band, and the verdict in the caption."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from builders import write_ab_experiment
from prooflab_analysis import abtest, metrics
from prooflab_analysis.ab_plot import VERDICT_COLORS, ab_figure
from prooflab_analysis.loaders import load_experiment
from prooflab_analysis.report import write_report

BASE = [38.0, 38.2, 37.9, 38.1, 38.0]
VARIANT = [34.2, 34.3, 34.1, 34.4, 34.2]
COLUMN = "summary.s_per_proof"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    exp = write_ab_experiment(tmp_path_factory.mktemp("ab") / "exp", BASE, VARIANT)
    return metrics.experiment_metrics(load_experiment(exp))


@pytest.fixture(scope="module")
def figure(runs: pd.DataFrame):
    table = abtest.ab_table(runs, COLUMN, higher_is_better=False, min_effect=0.02)
    fig = ab_figure(runs, table, COLUMN, metric="s_per_proof")
    yield fig, table
    plt.close(fig)


def test_every_run_is_a_point_of_its_arm(figure) -> None:
    fig, _ = figure
    points = fig.axes[0]
    arms = {c.get_label(): sorted(c.get_offsets()[:, 1]) for c in points.collections if c.get_label() in
            ("baseline", "serialized_dealloc")}
    assert arms == {"baseline": pytest.approx(sorted(BASE)), "serialized_dealloc": pytest.approx(sorted(VARIANT))}
    assert [t.get_text() for t in points.get_xticklabels()] == ["baseline\nc20_j15\nn=5",
                                                                "serialized_dealloc\nc20_j15\nn=5"]
    means = sorted(float(seg[0][1]) for c in points.collections if c.get_label() not in arms
                   for seg in c.get_segments())
    assert means == pytest.approx(sorted([np.mean(BASE), np.mean(VARIANT)]))


def test_forest_row_is_the_change_with_its_interval(figure) -> None:
    fig, table = figure
    forest = fig.axes[1]
    row = table.iloc[0]
    rel = (np.mean(VARIANT) - np.mean(BASE)) / np.mean(BASE)
    assert row["rel_change"] == pytest.approx(rel)
    container = forest.containers[0]
    assert container.lines[0].get_xdata()[0] == pytest.approx(100 * rel)
    (x0, _), (x1, _) = container.lines[2][0].get_segments()[0]
    assert sorted([x0, x1]) == pytest.approx([100 * row["ci_low"], 100 * row["ci_high"]])
    assert container.lines[0].get_color() == VERDICT_COLORS["improved"]
    band = [p for p in forest.patches if p.get_facecolor()[:3] == pytest.approx((0xee / 255,) * 3)]
    assert len(band) == 1
    assert (band[0].get_x(), band[0].get_x() + band[0].get_width()) == pytest.approx((-2.0, 2.0))
    assert [t.get_text() for t in forest.get_yticklabels()] == ["serialized_dealloc @ c20_j15"]
    legend = [t.get_text() for t in forest.get_legend().get_texts()]
    assert legend == ["improved", "within ±2% (minimum effect)"]


def test_caption_states_the_verdict(figure) -> None:
    fig, table = figure
    caption = fig.texts[-1].get_text()
    row = table.iloc[0]
    assert (f"serialized_dealloc @ c20_j15: improved ({row['rel_change']:+.1%}, 95 % CI {row['ci_low']:+.1%} .. "
            f"{row['ci_high']:+.1%}, p={row['p_value']:.3g})") in caption


def test_inconclusive_row_without_interval(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", [38.0], [37.0])
    runs = metrics.experiment_metrics(load_experiment(exp))
    table = abtest.ab_table(runs, COLUMN, higher_is_better=False)
    fig = ab_figure(runs, table, COLUMN)
    try:
        assert "inconclusive (-2.6%, no interval; fewer than 2 repetitions" in fig.texts[-1].get_text()
        assert fig.axes[1].containers[0].lines[0].get_color() == VERDICT_COLORS["inconclusive"]
    finally:
        plt.close(fig)


def test_experiment_report_embeds_ab_figures(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", BASE, VARIANT)
    md = write_report(exp).read_text()
    for metric in ("s_per_proof", "proofs_per_min"):
        assert f"![A/B {metric}](ab_{metric}.png)" in md
        assert (tmp_path / "exp" / "report" / f"ab_{metric}.svg").exists()


def test_inconclusive_caption_says_how_many_runs_would_resolve_it(tmp_path: Path) -> None:
    base, variant = [38.0, 38.9, 37.6, 38.5], [37.7, 38.6, 37.0, 38.4]  # noise ~1.5 %: ~12 runs
    exp = write_ab_experiment(tmp_path / "exp", base, variant)
    runs = metrics.experiment_metrics(load_experiment(exp))
    table = abtest.ab_table(runs, COLUMN, higher_is_better=False)
    assert table["verdict"].tolist() == ["inconclusive"]
    # Expected count computed here: pooled sd relative to the baseline mean, normal
    # approximation n = 2 (z_0.975 + z_0.8)^2 noise^2 / effect^2, rounded up.
    pooled = np.sqrt((np.var(base, ddof=1) + np.var(variant, ddof=1)) / 2) / np.mean(base)
    needed = int(np.ceil(2 * (1.959964 + 0.841621) ** 2 * pooled**2 / 0.02**2))
    fig = ab_figure(runs, table, COLUMN)
    try:
        assert f"about {needed} runs per arm would resolve a 2% change" in fig.texts[-1].get_text()
    finally:
        plt.close(fig)
