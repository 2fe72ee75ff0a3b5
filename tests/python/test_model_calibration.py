"""Calibration (issue 20, item 2): the work a stage did is recovered from a timeline in which
stages shared the cores; the bandwidth slowdown is recovered from two concurrencies; the
distributions are the run's values, resampled or lognormal."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prooflab_analysis.loaders import Run
from prooflab_analysis import schema
from prooflab_analysis.model.calibration import CalibrationError, StageDistribution, calibrate, pooled
from prooflab_analysis.model.engine_sim import simulate
from prooflab_analysis.model.predict import predicted_run
from prooflab_analysis.model.resources import CpuTask
from prooflab_analysis.model.stages import cpu_task, pool_sizes, synthesis_pools

from test_model_analytic import calibration, settings

WORK = {"synth": 0.30, "prep_msm": 0.10, "upload": 0.05, "ntt_h": 0.20, "batch_add": 0.05, "tail_msm": 0.10,
        "b_g2_msm": 0.15, "dealloc": 0.02, "verify": 0.01}


def simulated_run(beta: float, **kw) -> Run:
    cal = calibration({s: (w, False) for s, w in WORK.items()}, beta=beta)
    s = settings(**{"cores": 2, "count": 8, "concurrency": 4, "partitions": 2, **kw})
    return predicted_run(simulate(cal, s), cal, f"sim-j{s['concurrency']}")


def test_work_is_recovered_from_a_contended_timeline():
    run = simulated_run(0.0)
    # The stages did overlap: synthesis took longer than its work somewhere.
    synth = run.timeline[run.timeline["event"].isin(["SYNTH_START", "SYNTH_END"])]
    spans = synth.groupby(["job", "partition"])["t_us"].agg(lambda t: t.max() - t.min()) / 1e6
    assert spans.max() > WORK["synth"] * 1.5
    cal = calibrate(run)
    assert cal.settings["cores"] == 2 and cal.beta == 0.0
    for stage, work in WORK.items():
        values = cal.stages[stage].values
        assert values.size > 0
        # µs timestamps: a few µs of error per boundary.
        assert values == pytest.approx(np.full(values.size, work), abs=2e-5), stage


def test_bandwidth_slowdown_is_recovered_from_two_concurrencies():
    beta = 0.4
    low = simulated_run(beta, concurrency=1, partition_workers=1, gpu_workers_per_device=1)
    high = simulated_run(beta, concurrency=4, partition_workers=4)
    cal = calibrate(high, low)
    assert cal.beta == pytest.approx(beta, rel=0.15)
    # With it, the bandwidth-bound stages' work is the true work again.
    assert cal.stages["synth"].values.mean() == pytest.approx(WORK["synth"], rel=0.05)
    # One run: beta 0, and the calibration says why.
    alone = calibrate(high)
    assert alone.beta == 0.0 and any("one run given" in n for n in alone.notes)


def test_lognormal_fit_samples_the_fitted_law():
    rng = np.random.default_rng(1)
    values = rng.lognormal(np.log(2.0), 0.3, size=400)
    dist = StageDistribution("synth", values, True, fit="lognormal")
    draws = np.array([dist.sample(np.random.default_rng(k)) for k in range(4000)])
    logs = np.log(values)
    assert np.log(draws).mean() == pytest.approx(logs.mean(), abs=0.02)
    assert np.log(draws).std() == pytest.approx(logs.std(), abs=0.02)
    empirical = StageDistribution("synth", values, True)
    assert set(empirical.sample(np.random.default_rng(k)) for k in range(50)) <= set(values)


def test_a_run_without_stage_intervals_cannot_calibrate():
    run = Run(path=None, meta={"run_id": "empty", "host": {"cores": 2}, "config": {"count": 1}},
              timeline=schema.empty_timeline(), stages=schema.empty_stages(), cupti=schema.empty_cupti(),
              counters=schema.empty_counters())
    with pytest.raises(CalibrationError, match="empty: the timeline has no stage intervals"):
        calibrate(run)
    run.meta["host"] = {}
    with pytest.raises(CalibrationError, match="does not record the host's cores; give --set cores=N"):
        calibrate(run)


def test_empirical_draws_replay_one_calibration_run_per_simulation():
    # Two pooled runs of a stage, one with a heavy-tailed value (a preempted instance).
    first = calibration({"synth": (0.0, True)})
    first.stages["synth"] = StageDistribution("synth", np.array([1.0, 2.0, 3.0, 100.0]), True)
    second = calibration({"synth": (0.0, True)})
    second.stages["synth"] = StageDistribution("synth", np.array([5.0, 6.0]), True)
    cal = pooled([first, second])
    assert cal.runs == 2
    for simulation, own in ((0, [1.0, 2.0, 3.0, 100.0]), (1, [5.0, 6.0]), (2, [1.0, 2.0, 3.0, 100.0])):
        sampler = cal.sampler(np.random.default_rng(simulation), simulation)
        draws = [sampler.draw("synth") for _ in range(2 * len(own))]
        # Each pass over the run's values is a permutation of them: the total is the run's.
        assert sorted(draws[:len(own)]) == own and sorted(draws[len(own):]) == own, (simulation, draws)
    orders = {tuple(cal.sampler(np.random.default_rng(k), 0).draw("synth") for _ in range(4)) for k in range(8)}
    assert len(orders) > 1  # shuffled, not replayed in the measured order
    assert cal.sampler(np.random.default_rng(0), 0).draw("no such stage") == 0.0
    lognormal = StageDistribution("synth", np.array([1.0, 2.0, 3.0, 100.0]), True, fit="lognormal")
    cal.stages["synth"] = lognormal
    sampler = cal.sampler(np.random.default_rng(0), 0)
    assert not {sampler.draw("synth") for _ in range(4)} <= {1.0, 2.0, 3.0, 100.0}


def test_a_simulated_batch_does_the_work_the_measured_batch_did():
    run = simulated_run(0.0)
    cal = calibrate(run)
    measured = {s: d.values.sum() for s, d in cal.stages.items()}
    varied = calibrate(run)
    rng = np.random.default_rng(5)
    for d in varied.stages.values():  # every instance a different value, as in a measured run
        d.values = d.values * rng.uniform(0.5, 3.0, d.values.size)
    sim = simulate(varied, cal.settings, seed=3)
    assert sim.cpu_busy_core_s == pytest.approx(sum(d.values.sum() for d in varied.stages.values()), rel=1e-6)
    assert sum(measured.values()) == pytest.approx(sum(WORK[s] * (8 if s == "verify" else 16) for s in WORK), rel=1e-3)


def test_synthesis_lanes_have_pools_of_their_own_as_the_engine_builds_them():
    # core/engine/engine.cpp: lane i gets total / lanes threads, +1 for i < total % lanes, at least 1.
    assert {k: v for k, v in pool_sizes(settings(cores=8, synth_threads=5, partition_workers=2), 1).items()
            if k.startswith("synthesis")} == {"synthesis0": 3, "synthesis1": 2}
    assert {k: v for k, v in pool_sizes(settings(cores=2, partition_workers=4), 1).items()
            if k.startswith("synthesis")} == {f"synthesis{i}": 1 for i in range(4)}
    pools = pool_sizes(settings(cores=4, partition_workers=2), 1)
    assert synthesis_pools(pools) == {"synthesis0", "synthesis1"}
    assert cpu_task("synth", pools, lane=1) == CpuTask("synth", "synthesis1", 2.0, True)
    assert cpu_task("ntt_h", pools, device=0, threads={"ntt_h": 1.5}) == CpuTask("ntt_h", "device0", 1.5, False)
    assert cpu_task("ntt_h", pools, threads={"ntt_h": 9.0}).threads == 4.0  # never more than the pool
    assert cpu_task("verify", pools) == CpuTask("verify", None, 1, False)


def test_effective_threads_are_recovered_from_the_timeline():
    # The device's stages keep one of their pool's two threads busy, b_g2_msm 1.5 of 2.
    true = {"ntt_h": 1.0, "batch_add": 1.0, "tail_msm": 1.0, "b_g2_msm": 1.5}
    cal = calibration({s: (w, False) for s, w in WORK.items()})
    cal.threads = dict(true)
    s = settings(cores=2, count=8, concurrency=4, partitions=2)
    run = predicted_run(simulate(cal, s), cal, "sim-threads")
    fitted = calibrate(run)
    for stage, k in true.items():
        assert fitted.threads[stage] == pytest.approx(k, abs=0.13), (stage, fitted.threads)
        assert fitted.stages[stage].values == pytest.approx(np.full(16, WORK[stage]), rel=0.05), stage
    assert any(n.startswith("effective threads (fitted from the timeline): ") for n in fitted.notes)
    # Charged their pools' two threads, the same instances come out with work that depends on
    # what ran beside them.
    table = calibrate(run, threads="table")
    assert table.threads == {}
    assert np.ptp(table.stages["ntt_h"].values) > 0.2 * WORK["ntt_h"]
    with pytest.raises(CalibrationError, match="threads must be one of"):
        calibrate(run, threads="guess")
