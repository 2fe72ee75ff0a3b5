"""Calibration (issue 20, item 2): the work a stage did is recovered from a timeline in which
stages shared the cores; the bandwidth slowdown is recovered from two concurrencies; the
distributions are the run's values, resampled or lognormal."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prooflab_analysis.loaders import Run
from prooflab_analysis import metrics, schema
from prooflab_analysis.model.calibration import (WITNESS_PER_PREP_MSM, CalibrationError, StageDistribution, calibrate,
                                                 measured_intervals, pooled, witness_share_fallback)
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
    fitted = calibrate(run, threads="fitted")
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


def _threads_run(true: dict[str, float], **kw) -> Run:
    """A simulated run whose pool stages keep `true` threads busy, with its pools' CPU time
    in its summary (predict.predicted_run), the witness recorded apart from the products."""
    cal = calibration({**{s: (w, False) for s, w in WORK.items()}, "witness": (0.12, False)})
    cal.threads = dict(true)
    s = settings(**{"cores": 2, "count": 8, "concurrency": 4, "partitions": 2, "synth_threads": 4,
                    "gpu_threads": 2, "device_threads": 2, **kw})
    return predicted_run(simulate(cal, s), cal, "sim-measured")


def test_effective_threads_are_measured_from_the_pools_cpu_time():
    # Below one thread too (the CPU backend's device pool keeps ~0.5 of a core busy), which
    # the timeline fit cannot see: its floor is one thread.
    true = {"synth": 1.5, "ntt_h": 0.5, "batch_add": 0.5, "tail_msm": 0.5, "b_g2_msm": 1.25}
    run = _threads_run(true)  # 2 cores: the stages shared them
    cal = calibrate(run)  # auto: the summary has cpu_seconds_by_pool
    assert any(n.startswith("effective threads (measured: ") for n in cal.notes), cal.notes
    for stage, k in true.items():
        assert cal.threads[stage] == pytest.approx(k, abs=0.01), (stage, cal.threads)
        assert cal.stages[stage].values == pytest.approx(np.full(16, WORK[stage]), rel=0.01), stage
    assert cal.stages["witness"].values == pytest.approx(np.full(16, 0.12), abs=2e-5)


def test_measured_threads_on_free_cores_are_cpu_time_over_wall_time():
    true = {"synth": 1.5, "ntt_h": 0.5, "batch_add": 0.5, "tail_msm": 0.5, "b_g2_msm": 1.25}
    # Free cores, and one stage at a time on each pool (one GPU worker: b_g2_msm is joined
    # before the next starts; each lane has its own synthesis pool).
    run = _threads_run(true, cores=64, gpu_workers_per_device=1)
    tl = run.timeline
    products = metrics.pair_intervals(tl, "WITNESS_END", "SYNTH_END")
    b_g2 = metrics.pair_intervals(tl, "B_G2_MSM_START", "B_G2_MSM_END")
    cpu = run.summary["cpu_seconds_by_pool"]
    cal = calibrate(run, threads="measured")
    assert cal.threads["synth"] == pytest.approx((cpu["synthesis0"] + cpu["synthesis1"]) / (products["dur_us"].sum() / 1e6),
                                                 rel=1e-3)
    assert cal.threads["b_g2_msm"] == pytest.approx(cpu["groth16"] / (b_g2["dur_us"].sum() / 1e6), rel=1e-3)


def test_measured_threads_need_the_counter_and_name_what_is_wrong():
    run = _threads_run({"synth": 1.0})
    without = Run(path=None, meta=run.meta, timeline=run.timeline, stages=run.stages, cupti=run.cupti,
                  counters=run.counters)
    with pytest.raises(CalibrationError, match="no summary.json cpu_seconds_by_pool"):
        calibrate(without, threads="measured")
    fitted = calibrate(without)  # auto falls back, and says so
    assert any("records no CPU time per pool" in n for n in fitted.notes)
    assert any(n.startswith("effective threads (fitted from the timeline): ") for n in fitted.notes)
    bad = Run(path=None, meta=run.meta, timeline=run.timeline, stages=run.stages, cupti=run.cupti,
              counters=run.counters, summary={"cpu_seconds_by_pool": {**run.summary["cpu_seconds_by_pool"],
                                                                      "groth16": "fast"}})
    with pytest.raises(CalibrationError, match="'fast' is not a number"):
        calibrate(bad, threads="measured")
    partial = Run(path=None, meta=run.meta, timeline=run.timeline, stages=run.stages, cupti=run.cupti,
                  counters=run.counters, summary={"cpu_seconds_by_pool": {"groth16": 1.0}})
    with pytest.raises(CalibrationError, match="has no synthesis0, synthesis1"):
        calibrate(partial, threads="measured")


def test_a_run_without_witness_end_is_split_by_the_circuits_witness_ratio():
    run = _threads_run({"synth": 1.0})
    old = Run(path=None, meta={**run.meta, "config": {**run.config, "circuit": "porep-like"}},
              timeline=run.timeline[run.timeline["event"] != "WITNESS_END"].reset_index(drop=True),
              stages=run.stages, cupti=run.cupti, counters=run.counters, summary=run.summary)
    synth = metrics.pair_intervals(old.timeline, "SYNTH_START", "SYNTH_END")
    prep = metrics.pair_intervals(old.timeline, "PREP_MSM_START", "PREP_MSM_END")
    share = WITNESS_PER_PREP_MSM["porep-like"] * prep["dur_us"].median() / synth["dur_us"].median()
    assert 0 < share < 1
    got, note = witness_share_fallback(old)
    assert got == pytest.approx(share) and f"the witness is {share:.0%} of each synthesis" in note
    intervals, _, _ = measured_intervals(old, True, 2, got)
    witness = sorted(iv.end_s - iv.start_s for iv in intervals if iv.stage == "witness")
    assert witness == pytest.approx(sorted(share * synth["dur_us"] / 1e6), abs=1e-9)
    assert any(note == n for n in calibrate(old, threads="table").notes)
    # A circuit without a ratio: synthesis stays whole, as before the split, and the notes say so.
    other = Run(path=None, meta={**old.meta, "config": {**old.config, "circuit": "sha256-chain"}},
                timeline=old.timeline, stages=old.stages, cupti=old.cupti, counters=old.counters)
    assert witness_share_fallback(other)[0] is None
    cal = calibrate(other, threads="table")
    assert "witness" not in cal.stages and any("synthesis split unknown" in n for n in cal.notes)
    # With WITNESS_END recorded, no fallback.
    assert witness_share_fallback(run) == (None, "")


def test_throttle_share_of_the_h200_phase11_threads_rerun():
    # results/2026-12-02-model-throttle-share: the calibration arm's products keep k of their
    # 8-thread lane pool busy, measured from the pools' CPU time; k/8 is the share the
    # throttle stops. Independently: the synthesis pools' CPU seconds (summary.json) over the
    # products' summed wall time (WITNESS_END..SYNTH_END, timeline.csv read with csv), the
    # free-core value, which the contention-aware root may exceed only slightly (16 cores).
    import csv
    import json
    from pathlib import Path

    from prooflab_analysis.loaders import load_run
    from prooflab_analysis.model.calibration import runs_threads
    from prooflab_analysis.model.resources import throttled_share

    base = Path(__file__).resolve().parents[2] / "results/2026-12-02-h200-campaign/h200-phase11-threads/base/baseline"
    cpu = wall = 0.0
    for rep in ("0", "1"):
        pools = json.loads((base / rep / "summary.json").read_text())["cpu_seconds_by_pool"]
        cpu += pools["synthesis0"] + pools["synthesis1"]
        start = {}
        for row in csv.DictReader(open(base / rep / "timeline.csv")):
            key = (row["job"], row["partition"])
            if row["event"] == "WITNESS_END":
                start[key] = int(row["t_us"])
            elif row["event"] == "SYNTH_END":
                wall += (int(row["t_us"]) - start.pop(key)) / 1e6
    threads, _ = runs_threads([load_run(base / rep) for rep in ("0", "1")], 0.0, "measured")
    assert threads["synth"] == pytest.approx(cpu / wall, rel=0.02)
    task = CpuTask("synth", "synthesis0", threads["synth"], True)
    assert throttled_share(task, 8) == pytest.approx(threads["synth"] / 8)
    assert throttled_share(CpuTask("synth", "synthesis0", 8, True), 8) == 1.0
