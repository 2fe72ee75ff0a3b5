"""The pipeline model on cases with exact answers (issue 20, item 3): one stage; a
two-stage pipeline with deterministic times (throughput = 1 / the slower stage); processor
sharing of the cores; the bandwidth slowdown; the GPU lock policies; the engine's own
policies (dealloc mutex, throttle, the Phase-10 VRAM failure)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prooflab_analysis import metrics
from prooflab_analysis.model.calibration import Calibration, StageDistribution
from prooflab_analysis.model.engine_sim import simulate
from prooflab_analysis.model.predict import predicted_run, resource_utilisation, binding_resource
from prooflab_analysis.model.resources import CpuTask, cpu_rates
from prooflab_analysis.model.settings import KNOBS, Settings, apply_overrides, axis_points, KnobError
from prooflab_analysis.stats import percentile


def settings(**kw) -> Settings:
    s = Settings({k: knob.default for k, knob in KNOBS.items()})
    s["cores"] = 1
    for key, value in kw.items():
        s[key] = value
    return s


def calibration(stages: dict[str, tuple[float, bool]], *, beta: float = 0.0, host_bytes: int = 0,
                staged: int = 0, scratch: int = 0, vram: int = 1 << 40) -> Calibration:
    """Every stage a constant: (value, duration?) — seconds, or core-seconds of work."""
    dists = {s: StageDistribution(s, np.array([v]), d) for s, (v, d) in stages.items()}
    return Calibration(run_id="synthetic", settings=settings(), stages=dists, beta=beta, gpu_on_cpu=True,
                       host_bytes=host_bytes, abc_bytes=0, vram_staged_bytes=staged, vram_scratch_bytes=scratch,
                       vram_budget_bytes=vram, kernel_share=1.0, peak_rss_bytes=float("nan"))


def timeline(cal: Calibration, s: Settings):
    sim = simulate(cal, s)
    return sim, predicted_run(sim, cal, "t").timeline


def job_done_s(tl) -> list[float]:
    return sorted(tl.loc[tl["event"] == "JOB_DONE", "t_us"].to_numpy() / 1e6)


def test_single_stage_serial_jobs():
    # One stage of 2 s, one partition, one job at a time: job k ends at 2 (k + 1).
    cal = calibration({"synth": (2.0, True)})
    sim, tl = timeline(cal, settings(count=5, concurrency=1, partitions=1))
    assert job_done_s(tl) == pytest.approx([2.0, 4.0, 6.0, 8.0, 10.0], abs=1e-6)
    tp = metrics.throughput(tl)
    assert tp["s_per_proof"] == pytest.approx(2.0, abs=1e-6)
    assert metrics.latency_percentiles(metrics.job_latency(tl))["p50"] == pytest.approx(2.0, abs=1e-6)


@pytest.mark.parametrize("a,g", [(1.0, 3.0), (3.0, 1.0), (2.0, 2.0)])
def test_two_stage_pipeline_throughput_is_the_slower_stage(a, g):
    # synthesis (one lane) a s, GPU phase g s under the lock, one worker; all jobs in flight.
    # Partition k leaves synthesis at a (k + 1) and the GPU at max(a (k + 1), previous) + g,
    # so the last of N ends at a + g + (N - 1) max(a, g): in the limit 1 / max(a, g).
    n = 40
    cal = calibration({"synth": (a, True), "ntt_h": (g, True)})
    s = settings(count=n, concurrency=n, partitions=1, partition_workers=1, gpu_workers_per_device=1)
    sim, tl = timeline(cal, s)
    ends, gpu_free = [], 0.0
    for k in range(n):
        gpu_free = max(a * (k + 1), gpu_free) + g
        ends.append(gpu_free)
    assert job_done_s(tl) == pytest.approx(ends, abs=1e-6)
    tp = metrics.throughput(tl)
    assert tp["s_per_proof"] == pytest.approx((a + g + (n - 1) * max(a, g)) / n, abs=1e-6)
    assert tp["steady_s_per_proof"] == pytest.approx(max(a, g), abs=1e-6)
    lat = metrics.job_latency(tl)["latency_s"].to_numpy()
    assert metrics.latency_percentiles(metrics.job_latency(tl))["p95"] == pytest.approx(percentile(ends, 95), abs=1e-6)
    assert lat.max() == pytest.approx(ends[-1], abs=1e-6)
    util = resource_utilisation(sim, tl, tp["window_s"])
    name, value = binding_resource(util)
    if a > g:
        assert name == "synthesis lanes" and value == pytest.approx(n * a / ends[-1], abs=1e-6)
    elif g > a:
        assert name in ("gpu lock", "gpu workers") and util["gpu lock"] == pytest.approx(n * g / ends[-1], abs=1e-6)


def test_processor_sharing_two_tasks_on_one_core():
    # Two lanes each synthesize 1 core-second on a 1-thread pool of a 1-core host: each runs at
    # half speed, both end at 2 s; a third partition then runs alone and ends at 3 s.
    cal = calibration({"synth": (1.0, False)})
    sim, tl = timeline(cal, settings(count=3, concurrency=3, partitions=1, synth_threads=1))
    assert job_done_s(tl) == pytest.approx([2.0, 2.0, 3.0], abs=1e-6)
    assert sim.cpu_busy_core_s == pytest.approx(3.0, abs=1e-6)


def test_cpu_rates_rule():
    own = CpuTask("prep_msm", None, 1, True)
    pool = CpuTask("b_g2_msm", "groth16", 4, False)
    # 1 own thread + a 4-thread pool task capped at 2 pool threads = 3 runnable on 2 cores.
    r = cpu_rates([own, pool], cores=2, pool_threads={"groth16": 2}, beta=0.0)
    assert r == pytest.approx([2 / 3, 4 / 3])
    # Two bandwidth-bound threads on two cores with beta 0.5: 1 / (1 + 0.5 (2 - 1)).
    r = cpu_rates([own, own], cores=2, pool_threads={}, beta=0.5)
    assert r == pytest.approx([1 / 1.5, 1 / 1.5])
    # A paused pool runs nothing and gives its cores to the others.
    r = cpu_rates([own, pool], cores=1, pool_threads={"groth16": 2}, beta=0.0, paused_pools=frozenset({"groth16"}))
    assert r == pytest.approx([1.0, 0.0])
    # A paused pool task keeping k = 2 of its pool's 8 threads busy spends 2/8 of its time in
    # the chunks, which stop; the rest (2 (1 - 2/8) = 1.5 threads) runs, outside the cap.
    part = CpuTask("synth", "synthesis0", 2, False)
    r = cpu_rates([part], cores=16, pool_threads={"synthesis0": 8}, beta=0.0, paused_pools=frozenset({"synthesis0"}))
    assert r == pytest.approx([1.5])


@pytest.mark.parametrize("k", [0.25, 0.5, 0.8])
def test_throttle_duty_cycle_stretches_the_products_by_one_over_one_minus_d(k):
    # One lane, a pool of 1 thread, the products keeping k of it busy (measured threads):
    # their chunked share d = k / 1 stops while b_g2_msm runs. Job 0's synthesis (1 core-s of
    # products) runs 0..1/k; its b_g2_msm (long: 100 core-s on 4 free cores) covers all of
    # job 1's products, which then take (1 / k) / (1 - d) instead of 1 / k.
    cal = calibration({"synth": (1.0, False), "b_g2_msm": (100.0, False)})
    cal = Calibration(**{**cal.__dict__, "threads": {"synth": k}})
    base = settings(count=2, concurrency=2, partitions=1, cores=4, synth_threads=1, gpu_threads=1,
                    gpu_workers_per_device=1, partition_workers=1)
    d = k
    for throttle, second in ((False, 1 / k), (True, (1 / k) / (1 - d))):
        _, tl = timeline(cal, base.replace(throttle=throttle))
        ends = sorted(tl.loc[tl["event"] == "SYNTH_END", "t_us"] / 1e6)
        assert ends == pytest.approx([1 / k, 1 / k + second], abs=1e-5), throttle


def test_bandwidth_slowdown_in_the_simulation():
    # Two lanes' prep_msm (1 core-second, bandwidth-bound) on 2 cores with beta 0.25: both
    # end at 1.25 s; without the second lane, at 1 s.
    cal = calibration({"prep_msm": (1.0, False)}, beta=0.25)
    _, tl = timeline(cal, settings(count=2, concurrency=2, partitions=1, cores=2))
    assert job_done_s(tl) == pytest.approx([1.25, 1.25], abs=1e-6)
    _, tl = timeline(cal, settings(count=2, concurrency=2, partitions=1, cores=2, partition_workers=1))
    assert job_done_s(tl) == pytest.approx([1.0, 2.0], abs=1e-6)


@pytest.mark.parametrize("policy,expected_end", [("single", 4 * 1.0), ("none", 1.0)])
def test_lock_policy_single_serialises_the_gpu_phase(policy, expected_end):
    # Four partitions ready at 0 (synthesis takes no time), four workers, GPU phase 1 s of
    # device time: the single lock runs them one after another; no lock runs them together.
    cal = calibration({"ntt_h": (1.0, True)})
    _, tl = timeline(cal, settings(count=1, concurrency=1, partitions=4, gpu_workers_per_device=4,
                                   partition_workers=4, lock_policy=policy))
    assert job_done_s(tl) == pytest.approx([expected_end], abs=1e-6)


@pytest.mark.parametrize("policy,expected", [("serialized", 4.0), ("async", 1.0), ("inline", 1.0)])
def test_dealloc_policies(policy, expected):
    # Four partitions of one job on four workers, no lock; dealloc 1 s of device-free time on
    # its own thread with 4 cores: serialised they take 4 s, detached or inline 1 s (in parallel).
    cal = calibration({"dealloc": (1.0, False)})
    _, tl = timeline(cal, settings(count=1, concurrency=1, partitions=4, gpu_workers_per_device=4, partition_workers=4,
                                   lock_policy="none", dealloc_policy=policy, cores=4))
    assert job_done_s(tl) == pytest.approx([expected], abs=1e-6)


def test_throttle_stops_synthesis_while_b_g2_msm_runs():
    # One lane, 1-thread pools, 2 cores. Job 0: synthesis 0..1 s; its b_g2_msm (2 core-s)
    # 1..3 s. Job 1's synthesis (1 core-s) starts at 1 s beside it: unthrottled it ends at 2 s;
    # throttled it stands still until b_g2_msm ends at 3 s and ends at 4 s.
    cal = calibration({"synth": (1.0, False), "b_g2_msm": (2.0, False)})
    base = settings(count=2, concurrency=2, partitions=1, cores=2, synth_threads=1, gpu_threads=1,
                    gpu_workers_per_device=1, partition_workers=1)
    for throttle, second_end, raised in ((False, 2.0, 0), (True, 4.0, 2)):
        _, tl = timeline(cal, base.replace(throttle=throttle))
        ends = sorted(tl.loc[tl["event"] == "SYNTH_END", "t_us"] / 1e6)
        assert ends == pytest.approx([1.0, second_end], abs=1e-6)
        assert (tl["event"] == "THROTTLE_ON").sum() == raised


def test_throttle_pauses_only_the_sparse_products_not_the_witness():
    # The engine's rule (core/engine/synthesis_throttle.hpp): only the sparse products yield,
    # between chunks of rows; the witness runs on. One lane (pool of 1), 2 cores. Job 0:
    # witness 0..w, products w..w+p; its b_g2_msm (b core-s) w+p..w+p+b. Job 1 starts at
    # w+p: its witness (w < b) ends at 2w+p, throttled or not; its products run at once
    # (end 2w+2p) or wait for b_g2_msm's end (end w+2p+b) — not w+2p+b+w, as when the
    # throttle stopped the whole of synthesis.
    w, p, b = 0.5, 1.0, 2.0
    cal = calibration({"witness": (w, False), "synth": (p, False), "b_g2_msm": (b, False)})
    base = settings(count=2, concurrency=2, partitions=1, cores=2, synth_threads=1, gpu_threads=1,
                    gpu_workers_per_device=1, partition_workers=1)
    for throttle, second_end in ((False, 2 * w + 2 * p), (True, w + 2 * p + b)):
        _, tl = timeline(cal, base.replace(throttle=throttle))
        witness_ends = sorted(tl.loc[tl["event"] == "WITNESS_END", "t_us"] / 1e6)
        assert witness_ends == pytest.approx([w, 2 * w + p], abs=1e-6)
        ends = sorted(tl.loc[tl["event"] == "SYNTH_END", "t_us"] / 1e6)
        assert ends == pytest.approx([w + p, second_end], abs=1e-6), throttle


def test_two_lock_prestage_and_fallback():
    # Room for one partition (staged 96 + scratch 13 bytes): the first worker pre-stages, the
    # second cannot (skip_vram) and takes the fallback path inside compute_mtx.
    cal = calibration({"upload": (0.5, True), "ntt_h": (1.0, True)}, staged=96, scratch=13, vram=109)
    sim, tl = timeline(cal, settings(count=1, concurrency=1, partitions=2, gpu_workers_per_device=2,
                                     partition_workers=2, lock_policy="two_lock"))
    outcomes = sorted(tl.loc[tl["event"] == "PRESTAGE_END", "detail"])
    assert outcomes == ["prestage=ok", "prestage=skip_vram"]
    # ok: upload 0..0.5 under mem_mtx, compute 0.5..1.5; fallback: lock at 1.5, upload, 1 s.
    assert job_done_s(tl) == pytest.approx([3.0], abs=1e-6)
    assert not sim.failed_jobs


def test_two_lock_admits_on_the_backends_estimate_not_the_partitions_peak():
    # A partition stages 40 bytes and adds 20 of scratch in its GPU phase, on a 170-byte device;
    # the backend estimates a partition at 100, and the engine admits a pre-staging when
    # in use + estimate <= budget. Uploads take 0.5 s under mem_mtx, one after another, and the
    # first partition's phase (scratch) begins as its upload ends. So the second asks at 0.5 s
    # with 40 + 20 in use, the third at 1.0 s with 40 + 20 + 40: on the peak (60) each fits
    # (120, 160 <= 170); on the estimate the third does not (100 + 100 > 170): skip_vram.
    stages = {"upload": (0.5, True), "ntt_h": (1.0, True)}
    knobs = dict(count=1, concurrency=1, partitions=3, gpu_workers_per_device=3, partition_workers=3,
                 lock_policy="two_lock")
    on_peak = calibration(stages, staged=40, scratch=20, vram=170)
    on_estimate = calibration(stages, staged=40, scratch=20, vram=170)
    on_estimate.vram_admit_bytes = 100
    outcomes = {name: sorted(timeline(cal, settings(**knobs))[1].query("event == 'PRESTAGE_END'")["detail"])
                for name, cal in (("peak", on_peak), ("estimate", on_estimate))}
    assert outcomes["peak"] == ["prestage=ok"] * 3
    assert outcomes["estimate"] == ["prestage=ok", "prestage=ok", "prestage=skip_vram"]


def test_a_partition_that_does_not_fit_the_device_fails_its_job():
    # 96 bytes to stage on a 50-byte device: the allocation fails, the job fails, and the
    # next job's partitions fail the same way (nothing waits for memory).
    cal = calibration({"ntt_h": (1.0, True)}, staged=96, scratch=13, vram=50)
    sim, tl = timeline(cal, settings(count=2, concurrency=1, partitions=2))
    assert sorted(sim.failed_jobs) == [0, 1]
    assert "out of device memory in gpu_phase: requested 96 bytes with 0 of 50 in use" in sim.failed_jobs[0]
    assert (tl["event"] == "JOB_FAILED").sum() == 2 and (tl["event"] == "JOB_DONE").sum() == 0
    assert (tl["event"] == "NTT_H").sum() == 0


def test_host_budget_bounds_partitions_in_memory():
    # Budget for 2 partitions; synthesis instant, GPU 1 s each, one worker: at most 2 held.
    cal = calibration({"ntt_h": (1.0, True)}, host_bytes=100)
    sim, _ = timeline(cal, settings(count=6, concurrency=6, partitions=1, gpu_workers_per_device=1,
                                    host_mem_budget=200))
    assert sim.host_peak_bytes == 200
    sim, _ = timeline(cal, settings(count=6, concurrency=6, partitions=1, gpu_workers_per_device=1))
    assert sim.host_peak_bytes == 100 * (2 + 1 + 2)  # the engine's auto budget: lanes + gw + 2


def test_split_finalize_frees_the_worker_before_b_g2_msm_ends():
    # b_g2_msm (2 s device-free work on its own pool) outlasts the GPU phase (1 s): inline, the
    # one worker waits for it before the next pickup; split, it picks up at once.
    cal = calibration({"ntt_h": (1.0, True), "b_g2_msm": (2.0, False)})
    s = settings(count=2, concurrency=2, partitions=1, gpu_workers_per_device=1, cores=4, gpu_threads=1)
    _, tl = timeline(cal, s)
    pickups = sorted(tl.loc[tl["event"] == "GPU_PICKUP", "t_us"] / 1e6)
    assert pickups == pytest.approx([0.0, 2.0], abs=1e-6)
    _, tl = timeline(cal, s.replace(finalize="split"))
    pickups = sorted(tl.loc[tl["event"] == "GPU_PICKUP", "t_us"] / 1e6)
    assert pickups == pytest.approx([0.0, 1.0], abs=1e-6)


def test_knob_errors_name_the_knob_and_value():
    with pytest.raises(KnobError, match="knob 'lock_policy': bad value 'three'"):
        apply_overrides(settings(), ["lock_policy=three"])
    with pytest.raises(KnobError, match="unknown knob 'gw'"):
        apply_overrides(settings(), ["gw=3"])
    with pytest.raises(KnobError, match="is not knob=value"):
        axis_points(["count"])
    assert axis_points(["count=2,4", "throttle=on,off"]) == [
        {"count": 2, "throttle": True}, {"count": 2, "throttle": False},
        {"count": 4, "throttle": True}, {"count": 4, "throttle": False}]
    with pytest.raises(ValueError, match="concurrency"):
        simulate(calibration({}), settings(count=1, concurrency=2))


def test_calibration_reads_the_admission_estimate_and_the_staged_bytes(tmp_path):
    """On a committed H200 run (10 x 2^24): staged = stages.csv abc_bytes, scratch = the rest of
    the smallest partition peak, admission on summary.json partition_vram_bytes where recorded
    (the committed runs predate it: a copy gets one), else on staged + scratch."""
    import csv
    import json
    import shutil
    from pathlib import Path

    from prooflab_analysis.loaders import load_run
    from prooflab_analysis.model.calibration import calibrate

    src = Path(__file__).resolve().parents[2] / "results/2026-12-02-h200-campaign/h200-phase10-2e24/base/baseline/0"
    with open(src / "stages.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    abc = sorted(int(r["abc_bytes"]) for r in rows)[len(rows) // 2]
    peak = min(int(r["vram_peak_bytes"]) for r in rows)
    cal = calibrate(load_run(src))
    assert (cal.vram_staged_bytes, cal.vram_scratch_bytes, cal.vram_admit_bytes) == (abc, peak - abc, peak)
    assert any("no summary.json partition_vram_bytes" in n for n in cal.notes)
    copy = tmp_path / "run"
    shutil.copytree(src, copy)
    summary = json.loads((copy / "summary.json").read_text())
    summary["partition_vram_bytes"] = 6_667_869_880  # the backend's 2^24 estimate, 6.21 GiB
    (copy / "summary.json").write_text(json.dumps(summary))
    assert calibrate(load_run(copy)).vram_admit_bytes == 6_667_869_880
