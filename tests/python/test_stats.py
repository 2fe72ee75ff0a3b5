"""One definition of each statistic (stats.py), and the C++ side agrees with it.

The percentile expectations are worked out from the formula by hand; the bootstrap is
checked against the delta-method interval it must approach on large samples; the engine
test runs `prooflab batch` and compares summary.json's latency_s with stats.percentile
over the same jobs' JOB_SUBMIT..JOB_DONE spans (it skips when the binary is missing)."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from prooflab_analysis import metrics, stats
from prooflab_analysis.loaders import load_run

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()


def _linear_by_hand(values: list[float], q: float) -> float:
    x = sorted(values)
    h = (len(x) - 1) * q / 100
    lo = math.floor(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


def test_percentile_is_linear_interpolation() -> None:
    lat = [4.10, 4.71, 3.98, 4.45, 4.02, 4.30]
    assert stats.percentile(lat, 95) == pytest.approx(4.645, abs=1e-12)  # nearest rank: 4.71
    assert stats.percentile(lat, 50) == pytest.approx(4.20, abs=1e-12)
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 40):
        v = list(rng.lognormal(1.4, 0.2, n))
        for q in (0, 5, 50, 95, 99, 100):
            assert stats.percentile(v, q) == pytest.approx(_linear_by_hand(v, q), rel=1e-12)
    assert math.isnan(stats.percentile([], 50))
    with pytest.raises(ValueError, match="in \\[0, 100\\]"):
        stats.percentile([1.0], 101)


def test_stage_and_latency_tables_use_the_same_percentile() -> None:
    import pandas as pd

    long = pd.DataFrame({"stage": ["synth"] * 6, "value_us": [4100, 4710, 3980, 4450, 4020, 4300],
                         "job": range(6), "partition": [0] * 6})
    table = metrics.stage_summary(long)
    assert table.iloc[0]["p95_ms"] == pytest.approx(4.645, abs=1e-9)
    lat = pd.DataFrame({"latency_s": [4.10, 4.71, 3.98, 4.45, 4.02, 4.30]})
    assert metrics.latency_percentiles(lat)["p95"] == pytest.approx(4.645, abs=1e-12)


def test_bootstrap_interval_approaches_the_delta_method_on_large_samples() -> None:
    rng = np.random.default_rng(7)
    a = rng.normal(100.0, 2.0, 400)
    b = rng.normal(103.0, 2.0, 400)
    lo, hi = stats.bootstrap_rel_change(a, b, "mean", 4000, seed=3, confidence=0.95)
    ma, mb = a.mean(), b.mean()
    rel = mb / ma - 1
    # delta method: var(mb/ma) ~ (mb/ma)^2 (var_b / (n mb^2) + var_a / (n ma^2))
    se = (mb / ma) * math.sqrt(b.var(ddof=1) / (b.size * mb**2) + a.var(ddof=1) / (a.size * ma**2))
    assert lo == pytest.approx(rel - 1.96 * se, abs=0.25 * se)
    assert hi == pytest.approx(rel + 1.96 * se, abs=0.25 * se)
    assert stats.bootstrap_rel_change(a, b, "mean", 4000, 3, 0.95) == (lo, hi)  # seeded


def test_reps_advice_is_a_command_or_says_to_lower_the_noise() -> None:
    # 1 % noise, 2 % minimum effect: n = 2 (1.96 + 0.84)^2 0.01^2 / 0.02^2 = 3.92 -> 4
    z = 1.959964 + 0.841621
    assert stats.reps_per_arm(0.01, 0.02) == max(math.ceil(2 * z * z / 4), 4)
    assert stats.reps_per_arm(0.03, 0.02) == math.ceil(2 * z * z * 9 / 4)  # 36
    a = [10.0, 10.3, 9.8, 10.1]
    b = [10.1, 9.9, 10.25, 10.0]
    noise = stats.relative_noise(a, b)
    expected = stats.reps_per_arm(noise, 0.02)
    n, advice = stats.advice_for_more_reps(a, b, 0.02)
    assert 4 < expected <= stats.MAX_PRACTICAL_REPS and n == expected
    assert f"--reps {int(expected)}" in advice
    noisy_a = [10.0, 11.0, 9.0, 10.5]
    n, advice = stats.advice_for_more_reps(noisy_a, [10.2, 9.3, 11.1, 9.9], 0.02)
    assert math.isnan(n) and "lower the noise" in advice


@pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first")
def test_engine_summary_percentiles_match_the_analysis(tmp_path: Path) -> None:
    env = dict(os.environ, PROOFLAB_PARAM_DIR=str(tmp_path / "params"))
    cmd = [str(BIN), "batch", "--set", "circuit=porep-like", "--set", "constraints=1024", "--set", "partitions=2",
           "--count", "7", "--concurrency", "3", "--out", str(tmp_path), "--run-id", "pct"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(tmp_path / "pct")
    summary = json.loads((tmp_path / "pct" / "summary.json").read_text())
    lat = metrics.job_latency(run.timeline)
    assert len(lat) == 7
    walls = lat["latency_s"].tolist()
    for q, key in ((50, "p50"), (95, "p95")):
        assert summary["latency_s"][key] == pytest.approx(stats.percentile(walls, q), rel=1e-9, abs=1e-6)
        assert summary["latency_s"][key] == pytest.approx(_linear_by_hand(walls, q), rel=1e-9, abs=1e-6)
