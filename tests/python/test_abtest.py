"""A/B verdicts: A/A is no change, a 10 % shift is found in the right direction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from builders import write_ab_experiment
from prooflab_analysis import metrics
from prooflab_analysis.abtest import ab_table, compare, metric_higher_is_better
from prooflab_analysis.stats import min_reps_for_rank_test
from prooflab_analysis.loaders import load_experiment


def _sample(mean: float, rel_sd: float, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(mean, mean * rel_sd, n)


@pytest.mark.parametrize("seed", range(5))
def test_a_a_is_no_detectable_change(seed: int) -> None:
    a = _sample(38.0, 0.005, 10, seed)
    b = _sample(38.0, 0.005, 10, seed + 100)
    cmp = compare(a, b, metric="s_per_proof", higher_is_better=False)
    assert cmp.verdict == "no detectable change"
    assert -0.02 < cmp.ci_low <= cmp.rel_change <= cmp.ci_high < 0.02
    assert np.isnan(cmp.reps_needed)


def test_ten_percent_faster_is_improved_for_s_per_proof() -> None:
    a = _sample(38.0, 0.01, 8, 1)
    b = _sample(38.0 * 0.9, 0.01, 8, 2)
    cmp = compare(a, b, metric="s_per_proof", higher_is_better=False)
    assert cmp.verdict == "improved"
    assert cmp.rel_change == pytest.approx(-0.10, abs=0.01)
    assert cmp.ci_high < 0 and cmp.p_value < 0.05
    assert (cmp.n_baseline, cmp.n_variant) == (8, 8)


def test_direction_awareness() -> None:
    a = _sample(38.0, 0.01, 8, 3)
    slower = _sample(38.0 * 1.1, 0.01, 8, 4)
    assert compare(a, slower, higher_is_better=False).verdict == "regressed"
    # the same numbers read as a rate (proofs/min): higher is better
    assert compare(a, slower, higher_is_better=True).verdict == "improved"
    assert metric_higher_is_better("proofs_per_min") is True
    assert metric_higher_is_better("s_per_proof") is False
    assert metric_higher_is_better("stage_b_g2_msm_ms") is False
    with pytest.raises(ValueError, match="direction of metric 'mystery'"):
        metric_higher_is_better("mystery")


def test_one_run_each_is_never_a_result() -> None:
    cmp = compare([38.0], [37.9], higher_is_better=False)  # the 0.3 % "result"
    assert cmp.verdict == "inconclusive"
    assert "fewer than 2 repetitions" in cmp.note


def test_noisy_small_sample_is_inconclusive_and_says_to_lower_the_noise() -> None:
    a = _sample(38.0, 0.05, 3, 5)
    b = _sample(38.0 * 0.97, 0.05, 3, 6)
    cmp = compare(a, b, higher_is_better=False)
    assert cmp.verdict == "inconclusive"
    # ~5 % noise against a 2 % minimum effect needs on the order of 2 * 7.85 * 6.25 ~ 100 runs
    # per arm: not advice one can act on, so no count, and the note says what to do instead.
    assert np.isnan(cmp.reps_needed)
    assert "lower the noise first" in cmp.note and "runs per arm" in cmp.note


def test_moderately_noisy_sample_gets_a_reps_command() -> None:
    a = _sample(38.0, 0.012, 4, 9)
    b = _sample(38.0 * 0.985, 0.012, 4, 10)
    cmp = compare(a, b, higher_is_better=False)
    assert cmp.verdict == "inconclusive"
    assert 4 < cmp.reps_needed <= 30 and float(cmp.reps_needed).is_integer()
    assert f"--reps {int(cmp.reps_needed)}" in cmp.note


def test_bootstrap_is_seeded() -> None:
    a, b = _sample(10, 0.02, 6, 7), _sample(10.3, 0.02, 6, 8)
    first = compare(a, b, higher_is_better=False, seed=11)
    again = compare(a, b, higher_is_better=False, seed=11)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)


def test_parameters_are_validated() -> None:
    with pytest.raises(ValueError, match="n_boot must be at least 2000"):
        compare([1, 2], [1, 2], higher_is_better=False, n_boot=100)
    with pytest.raises(ValueError, match="statistic"):
        compare([1, 2], [1, 2], higher_is_better=False, statistic="mode")


def test_rank_test_needs_four_reps_per_arm_at_5_percent() -> None:
    assert min_reps_for_rank_test(0.05) == 4  # 2 / C(8, 4) = 0.029; 2 / C(6, 3) = 0.1


def test_ab_table_over_an_experiment(tmp_path: Path) -> None:
    base = [38.0, 38.2, 37.9, 38.1, 38.0]
    var = [x * 0.9 for x in (38.1, 37.9, 38.0, 38.2, 37.95)]
    exp = load_experiment(write_ab_experiment(tmp_path / "exp", base, var))
    runs = metrics.experiment_metrics(exp)
    table = ab_table(runs, "summary.s_per_proof", higher_is_better=False)
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["cell"], row["variant"], row["verdict"]) == ("c20_j15", "serialized_dealloc", "improved")
    assert row["rel_change"] == pytest.approx(np.mean(var) / np.mean(base) - 1, rel=1e-12)
    assert row["note"] == ""


def test_ab_table_notes_non_interleaved_arms_and_missing_baseline() -> None:
    runs = pd.DataFrame({
        "cell": ["a"] * 8 + ["b"] * 2, "variant": ["baseline"] * 4 + ["v"] * 4 + ["v", "v"],
        "order": list(range(10)), "status": ["complete"] * 10,
        "s_per_proof": [38.0, 38.1, 37.9, 38.0, 38.0, 38.1, 37.9, 38.05, 30.0, 30.1],
    })
    table = ab_table(runs, "s_per_proof").set_index("cell")
    assert table.loc["a", "verdict"] == "no detectable change"
    assert "not interleaved" in table.loc["a", "note"]
    assert table.loc["b", "verdict"] == "inconclusive" and "no 'baseline' runs" in table.loc["b", "note"]
    with pytest.raises(ValueError, match="baseline variant 'control'"):
        ab_table(runs, "s_per_proof", baseline="control")


def test_three_runs_each_cannot_give_a_verdict() -> None:
    a = [38.00, 38.01, 37.99]
    cmp = compare(a, [x * 0.9 for x in a], higher_is_better=False)
    assert cmp.verdict == "inconclusive"
    assert "too few for the rank test" in cmp.note
    assert cmp.ci_high < 0  # the bootstrap alone would have claimed an improvement
    assert cmp.reps_needed == 4
    same = compare(a, a, higher_is_better=False)
    assert same.verdict == "inconclusive"
