"""Metrics on hand-built timelines whose answers are known exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from builders import KNOWN, TimelineBuilder, known_counters, known_cupti, known_timeline, write_known_run
from prooflab_analysis import metrics, stats
from prooflab_analysis.loaders import load_run


def test_known_run_headline_numbers(tmp_path: Path) -> None:
    m = metrics.run_metrics(load_run(write_known_run(tmp_path / "run")))
    for key, value in KNOWN.items():
        assert m[key] == pytest.approx(value, rel=1e-12, abs=0), key
    assert m["bandwidth_source"] == "probe"
    assert m["jobs_completed"] == 3 and m["jobs_excluded"] == 0


def test_gpu_busy_and_kernel_busy_per_device() -> None:
    util = metrics.utilisation(known_timeline(), known_cupti())
    row = util.iloc[0]
    assert (row["device"], row["wall_us"], row["gpu_busy_us"], row["kernel_busy_us"]) == (0, 1.2e6, 9e5, 7.8e5)
    assert row["gpu_busy"] == pytest.approx(0.75, rel=1e-12)
    assert row["kernel_busy"] == pytest.approx(0.65, rel=1e-12)


def test_a_device_without_kernels_or_phases_is_idle_as_in_summary_json() -> None:
    """A two-device run whose device 1 ran nothing: summary.json (core/trace/device_busy)
    gives device 1 gpu_busy 0 and, with CUPTI on, kernel_busy 0, and the run's figures are
    the mean over both devices. Known run: device 0 busy 0.75 (lock held) and 0.65 (kernels)."""
    util = metrics.utilisation(known_timeline(), known_cupti(), devices=2)
    assert list(util["device"]) == [0, 1]
    one = util.iloc[1]
    assert (one["gpu_busy_us"], one["gpu_busy"], one["kernel_busy_us"], one["kernel_busy"]) == (0, 0, 0, 0)
    assert metrics.device_mean(util["gpu_busy"]) == pytest.approx(0.75 / 2, rel=1e-12)
    assert metrics.device_mean(util["kernel_busy"]) == pytest.approx(0.65 / 2, rel=1e-12)
    # Without CUPTI rows there is no kernel figure at all, for any device.
    no_cupti = metrics.utilisation(known_timeline(), known_cupti().iloc[0:0], devices=2)
    assert no_cupti["kernel_busy"].isna().all() and np.isnan(metrics.device_mean(no_cupti["kernel_busy"]))


def test_kernel_busy_of_a_run_kept_without_cupti_csv_is_the_engines_own(tmp_path: Path) -> None:
    """Committed results keep summary.json, not cupti.csv: kernel busy then comes from the
    engine's CUPTI figure there (read here with json), saying so; a summary whose figure is
    not CUPTI's gives NaN; with cupti.csv the run's own rows decide."""
    import json
    import shutil

    h200 = (Path(__file__).resolve().parents[2] / "results" / "2026-12-02-h200-campaign" / "h200-phase9" / "c5_j5"
            / "baseline" / "0")
    assert not (h200 / "cupti.csv").exists()
    summary = json.loads((h200 / "summary.json").read_text())
    m = metrics.run_metrics(load_run(h200))
    assert (m["kernel_busy"], m["kernel_busy_source"]) == (summary["kernel_busy"], "summary.json")
    assert 0.05 < m["kernel_busy"] < m["gpu_busy"]

    copy = tmp_path / "run"
    shutil.copytree(h200, copy)
    (copy / "summary.json").write_text(json.dumps({**summary, "kernel_busy_source": "lock_held"}))
    m = metrics.run_metrics(load_run(copy))
    assert np.isnan(m["kernel_busy"]) and m["kernel_busy_source"] == ""

    m = metrics.run_metrics(load_run(write_known_run(tmp_path / "known")))
    assert m["kernel_busy_source"] == "cupti.csv" and m["kernel_busy"] == pytest.approx(KNOWN["kernel_busy"], rel=1e-12)


def test_gaps_classified_handoff_and_idle() -> None:
    gaps = metrics.gpu_gaps(known_timeline())
    got = [(int(r.start_us) // 1000, int(r.end_us) // 1000, r.kind, bool(r.same_job), int(r.queued))
           for r in gaps.itertuples()]
    assert got == [
        (300, 320, "handoff", True, 1),    # same job; j0p1 queued
        (500, 600, "idle", False, 0),      # next job, nothing ready at 500
        (750, 760, "handoff", True, 3),
        (900, 910, "handoff", False, 2),   # next job, but j2p0 and j2p1 were waiting
        (1000, 1010, "handoff", True, 1),
    ]
    summary = metrics.gap_summary(gaps).set_index("kind")
    assert summary.loc["handoff", "n"] == 4 and summary.loc["handoff", "total_ms"] == 50.0
    assert summary.loc["idle", "n"] == 1 and summary.loc["idle", "total_ms"] == 100.0


def _two_workers() -> pd.DataFrame:
    """Device 0, workers 0 and 1 sharing one lock (ms):
    w0 j0p0 0-100; w1 picks j0p1 at 10, waits, GPU 100-200; j1p0 ready at 150, picked by w0
    at 150, GPU 260-300 (held up, e.g. by pre-staging).
    Device 1, worker 0: j2p0 GPU 0-50 (a second device is its own lane)."""
    b = TimelineBuilder()
    for job in (0, 1, 2):
        b.add(0, "JOB_SUBMIT", job)
    b.add(0, "GPU_QUEUE", 0, 0).add(0, "GPU_PICKUP", 0, 0, 0, 0).add(0, "GPU_START", 0, 0, 0, 0)
    b.add(5, "GPU_QUEUE", 0, 1).add(10, "GPU_PICKUP", 0, 1, 1, 0).add(10, "LOCK_WAIT_START", 0, 1, 1, 0)
    b.add(100, "GPU_END", 0, 0, 0, 0).add(100, "GPU_START", 0, 1, 1, 0)
    b.add(200, "GPU_END", 0, 1, 1, 0)
    b.add(150, "GPU_QUEUE", 1, 0).add(150, "GPU_PICKUP", 1, 0, 0, 0).add(260, "GPU_START", 1, 0, 0, 0)
    b.add(300, "GPU_END", 1, 0, 0, 0)
    b.add(0, "GPU_QUEUE", 2, 0).add(0, "GPU_PICKUP", 2, 0, 0, 1).add(0, "GPU_START", 2, 0, 0, 1)
    b.add(50, "GPU_END", 2, 0, 0, 1)
    for job, t in ((0, 210), (1, 310), (2, 60)):
        b.add(t, "JOB_DONE", job)
    return b.frame()


def test_two_workers_per_worker_and_per_device_gaps() -> None:
    tl = _two_workers()
    per_worker = metrics.gpu_gaps(tl, per="worker")
    got = [(int(r.device), int(r.worker), int(r.start_us) // 1000, int(r.end_us) // 1000, r.kind)
           for r in per_worker.itertuples()]
    # w0's gap 100-260: next job, and at 100 nothing was waiting to be picked up
    # (j0p1 had been picked up by w1 at 10).
    assert got == [(0, 0, 100, 260, "idle")]
    per_device = metrics.gpu_gaps(tl, per="device")
    got = [(int(r.device), int(r.start_us) // 1000, int(r.end_us) // 1000, r.kind, int(r.queued))
           for r in per_device.itertuples()]
    # Device 0: lock handed from w0 to w1 at 100 (a zero gap, same job; j0p1 starts at that
    # instant so it no longer waits), then 200-260 with j1p0 picked up and waiting: handoff.
    assert got == [(0, 100, 100, "handoff", 0), (0, 200, 260, "handoff", 1)]
    busy = metrics.gpu_busy(tl).set_index("device")["busy"]
    assert busy[0] == pytest.approx(240 / 310, rel=1e-12)
    assert busy[1] == pytest.approx(50 / 310, rel=1e-12)


def test_overlapping_spans_count_once() -> None:
    """Reference spans include the lock wait, so two workers' spans overlap."""
    b = TimelineBuilder()
    b.add(0, "GPU_START", 0, 0, 0, 0).add(0, "GPU_START", 0, 1, 1, 0)
    b.add(100, "GPU_END", 0, 0, 0, 0).add(150, "GPU_END", 0, 1, 1, 0)
    b.add(200, "SYNTH_START", 1, 0)
    busy = metrics.gpu_busy(b.frame())
    assert busy["busy_us"].tolist() == [150_000.0]
    assert busy["busy"].tolist() == [0.75]


def test_union_clipped_to_window() -> None:
    assert stats.union_us([0, 5, 20], [10, 15, 30], lo=2, hi=25) == 13 + 5
    assert stats.union_us([], []) == 0.0


def test_pair_intervals_matches_kth_start_with_kth_end() -> None:
    b = TimelineBuilder()
    b.add(0, "SYNTH_START", 0, 0).add(1, "SYNTH_START", 0, 1).add(3, "SYNTH_END", 0, 1).add(4, "SYNTH_END", 0, 0)
    iv = metrics.pair_intervals(b.frame(), "SYNTH_START", "SYNTH_END")
    assert iv[["partition", "start_us", "end_us", "dur_us"]].values.tolist() == [[0, 0, 4000, 4000], [1, 1000, 3000, 2000]]


def test_latency_and_throughput_definitions() -> None:
    tl = known_timeline()
    lat = metrics.job_latency(tl)
    assert lat.set_index("job")["latency_s"].to_dict() == pytest.approx({0: 0.55, 1: 0.95, 2: 0.80}, rel=1e-12)
    pct = metrics.latency_percentiles(lat, q=(50, 95, 100))
    assert pct == pytest.approx({"p50": 0.8, "p95": 0.935, "p100": 0.95}, rel=1e-12)
    tp = metrics.throughput(tl)
    assert tp["window_s"] == pytest.approx(1.2, rel=1e-12)
    assert tp["proofs_per_min"] == pytest.approx(150.0, rel=1e-12)
    assert tp["steady_proofs_per_min"] == pytest.approx(60 * 2 / 0.65, rel=1e-12)


def test_job_spans_without_job_events_are_approximate() -> None:
    b = TimelineBuilder()
    b.add(10, "SYNTH_START", 0, 0).add(40, "GPU_START", 0, 0, 0, 0).add(90, "GPU_END", 0, 0, 0, 0)
    b.add(20, "SYNTH_START", 1, 0)
    spans = metrics.job_spans(b.frame())
    assert spans[["job", "submit_us", "done_us", "status", "approximate"]].values.tolist() == [
        [0, 10_000, 90_000, "done", True], [1, 20_000, 20_000, "incomplete", True]]


def test_stage_inflation_relative_to_isolated_run() -> None:
    isolated = metrics.timeline_stage_long(known_timeline())
    loaded = metrics.timeline_stage_long(known_timeline(scale=1.2))
    infl = metrics.stage_inflation(loaded, isolated).set_index("stage")
    assert infl.loc["gpu", "isolated_ms"] == pytest.approx(150.0, rel=1e-12)
    assert infl.loc["gpu", "loaded_ms"] == pytest.approx(180.0, rel=1e-12)
    assert infl["ratio"].to_numpy() == pytest.approx(np.full(len(infl), 1.2), rel=1e-9)
    assert set(infl.index) == {"synth", "gpu", "prep_msm", "b_g2_msm", "dealloc"}


def test_bandwidth_prefers_dram_counters_over_probe() -> None:
    counters = known_counters()
    assert metrics.mean_bandwidth(counters, (0, 1_200_000)) == (30.0, "probe")
    dram = pd.DataFrame([{"t_us": 100, "source": "likwid", "metric": "dram_bandwidth", "value": 70.0, "unit": "GB/s"},
                         {"t_us": 200, "source": "likwid", "metric": "dram_bandwidth", "value": 80.0, "unit": "GB/s"}])
    both = pd.concat([counters, dram], ignore_index=True)
    assert metrics.mean_bandwidth(both) == (75.0, "likwid")
    value, source = metrics.mean_bandwidth(counters.iloc[0:0])
    assert np.isnan(value) and source == ""
