"""Every figure of an imported log against values computed here from the generator's truth."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from cuzk_logs import Options, RunTruth, generate
from prooflab_analysis import integrity
from prooflab_analysis.reflog import parse_reference_log
from prooflab_analysis.reflog_figures import reference_figures


def _import(options: list[Options]):
    log = generate(options)
    runs = parse_reference_log(log.text.splitlines(keepends=True), source="d.log")
    out = []
    for run, truth in zip(runs, log.runs):
        report = integrity.check_run(run)
        out.append((run, truth, reference_figures(run, report), log.text))
    return out


def _timeline_times(text: str, run) -> list[int]:
    lines = text.splitlines()[run.meta["first_line"] - 1: run.meta["last_line"]]
    return [int(l.split(",")[1]) for l in lines if l.startswith("TIMELINE,") and l.count(",") >= 4 and l.split(",")[1].isdigit()
            and l.split(",")[2] in ("SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END")]


def _counted(truth: RunTruth):
    return [p for p in truth.partitions if p.job_id not in truth.excluded and p.ended]


def _union(intervals: list[tuple[int, int]], lo: int, hi: int) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted((max(s, lo), min(e, hi)) for s, e in intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


RUNS = [Options(interleave=True, ansi=True, fail_partition=True, seed=5), Options(killed=True, bench=False, seed=6)]


@pytest.fixture(scope="module")
def imported():
    return _import(RUNS)


def test_gpu_ms_span_and_lock_held_per_partition(imported) -> None:
    for run, truth, f, _ in imported:
        g = f.gpu_time.set_index(["figure", "device"])
        for dev in range(2):
            parts = [p for p in _counted(truth) if p.device == dev]
            assert g.loc[("gpu_ms (GPU_END)", dev), "n"] == len(parts)
            assert g.loc[("gpu_ms (GPU_END)", dev), "mean_ms"] == pytest.approx(statistics.mean(p.gpu_ms for p in parts))
            assert g.loc[("gpu_ms (GPU_END)", dev), "median_ms"] == pytest.approx(statistics.median(p.gpu_ms for p in parts))
            assert g.loc[("GPU_START..GPU_END span", dev), "mean_ms"] == pytest.approx(
                statistics.mean(p.end - p.start for p in parts))
        every = _counted(truth)
        assert g.loc[("gpu_ms (GPU_END)", "all"), "mean_ms"] == pytest.approx(statistics.mean(p.gpu_ms for p in every))
        held = truth.cuda("mutex_held_ms")
        assert g.loc[("mutex_held_ms (CUZK_TIMING)", "all"), "n"] == len(held)
        assert g.loc[("mutex_held_ms (CUZK_TIMING)", "all"), "mean_ms"] == pytest.approx(statistics.mean(held))


def test_gpu_busy_kernel_busy_and_lock_held_busy_over_the_stated_window(imported) -> None:
    for run, truth, f, text in imported:
        times = _timeline_times(text, run)
        lo, hi = min(times), max(times)
        assert f.window_us == (lo * 1000, hi * 1000)
        assert f"{lo} .. {hi} ms" in f.window_text
        busy = f.busy.set_index("device")
        total = 0
        for dev in range(2):
            spans = [(p.start, p.end) for p in truth.partitions if p.device == dev and p.ended]
            u = _union(spans, lo, hi)
            total += u
            assert busy.loc[dev, "gpu_busy"] == pytest.approx(u / (hi - lo))
        assert busy.loc["all", "gpu_busy"] == pytest.approx(total / (2 * (hi - lo)))
        assert busy.loc["all", "kernel_busy"] == pytest.approx(sum(truth.cuda("gpu_total_ms")) / (2 * (hi - lo)))
        assert busy.loc["all", "lock_held_busy"] == pytest.approx(sum(truth.cuda("mutex_held_ms")) / (2 * (hi - lo)))
        assert f.kernel_source == "sum of gpu_total_ms"


def test_synthesis_from_synth_ms(imported) -> None:
    for run, truth, f, _ in imported:
        jobs = {p.job_id for p in truth.partitions} - truth.excluded
        values = [p.synth_ms for p in truth.partitions if p.job_id in jobs]
        assert f.synth == {"n": len(values), "mean_ms": pytest.approx(statistics.mean(values)),
                           "median_ms": pytest.approx(statistics.median(values))}


def _gaps(truth: RunTruth, lane_of, taken_of, lanes) -> dict[tuple, tuple[int, float]]:
    out: dict[tuple, list] = {}
    partitions = [p for p in truth.partitions if p.ended]
    for lane in lanes:
        iv = sorted((p.start, p.end) for p in partitions if lane_of(p) == lane)
        running = None
        for s, e in iv:
            if running is not None and s >= running:
                queued = sum(1 for q in truth.partitions if q.queue <= running and
                             (taken_of(q) > running or (q.start == 0 and q.pickup == 0)))
                kind = "handoff" if queued > 0 else "starved"
                out.setdefault(lane + (kind,), []).append(s - running)
            running = e if running is None else max(running, e)
    return {k: (len(v), float(sum(v))) for k, v in out.items()}


def test_gpu_starved_and_handoff_time_per_device_and_per_worker(imported) -> None:
    for run, truth, f, _ in imported:
        got = {}
        for r in f.gaps.itertuples():
            key = (r.device,) if r.lane == "device" else (r.device, r.worker)
            got[(r.lane,) + key + (r.kind,)] = (r.n, r.total_ms)
        # Queued partitions are those whose GPU_QUEUE is in the log; a partition the killed
        # daemon never picked up stays queued.
        picked = lambda q: q.pickup if q.pickup else np.inf  # noqa: E731
        started = lambda q: q.start if q.start else np.inf  # noqa: E731
        dev = _gaps(truth, lambda p: (p.device,), started, [(d,) for d in range(2)])
        wrk = _gaps(truth, lambda p: (p.device, p.worker), picked, sorted({(p.device, p.worker) for p in truth.partitions}))
        want = {("device",) + k: v for k, v in dev.items()} | {("worker",) + k: v for k, v in wrk.items()}
        assert got == want


def test_latency_and_s_per_proof_from_the_bench_when_present(imported) -> None:
    run, truth, f, _ = imported[0]
    completed = [w for w, s in zip(truth.bench_wall_s, truth.bench_status) if s == "COMPLETED"]
    assert f.throughput["s_per_proof"] == pytest.approx(truth.bench_total_s / len(completed))
    assert f.throughput["completed"] == len(completed)
    assert "Batch Summary" in f.throughput["source"]
    assert f.latency["mean_s"] == pytest.approx(np.mean(completed))
    assert f.latency["p95_s"] == pytest.approx(np.percentile(completed, 95))
    assert "completion lines" in f.latency["source"] and "queueing" in f.latency["source"]
    assert len(f.failed) == 1 + truth.bench_status.count("FAILED")


def test_latency_and_s_per_proof_from_engine_completion_lines(imported) -> None:
    run, truth, f, _ = imported[1]  # killed: no bench output
    jobs = [j for j in truth.done if j not in truth.excluded]
    total = [(truth.done[j] - truth.submit[j]) / 1000 for j in jobs]
    window = (max(truth.done[j] for j in jobs) - min(truth.submit[j] for j in jobs)) / 1000
    assert f.throughput["s_per_proof"] == pytest.approx(window / len(jobs), rel=1e-6)
    assert f.latency["mean_s"] == pytest.approx(np.mean(total))
    assert f.latency["max_s"] == pytest.approx(max(total))
    assert f.throughput["source"].startswith("engine completion lines")


def test_latency_and_s_per_proof_from_timeline_events_otherwise() -> None:
    run, truth, f, text = _import([Options(bench=False, engine_done_lines=False, seed=8)])[0]
    jobs = {p.job_id for p in truth.partitions} - truth.excluded
    first = min(_timeline_times(text, run))
    ends = {j: max(p.end for p in truth.partitions if p.job_id == j) for j in jobs}
    starts = {j: min(p.synth_start for p in truth.partitions if p.job_id == j) for j in jobs}
    assert f.throughput["s_per_proof"] == pytest.approx((max(ends.values()) - first) / 1000 / len(jobs))
    assert f.latency["mean_s"] == pytest.approx(np.mean([(ends[j] - starts[j]) / 1000 for j in jobs]))
    assert f.throughput["source"].startswith("TIMELINE")


def test_prestage_counts_and_pre_destructor_by_kind() -> None:
    run, truth, f, _ = _import([Options(prestage="skip_vram", seed=4)])[0]
    assert f.prestage.to_dict("records") == [{"prestage_setup": "skip_vram", "n": len(truth.prestage)}]
    values = [v for _, v in truth.pre_destructor]
    row = f.pre_destructor.iloc[0]
    assert row["kind"] == "skip_vram" and row["n"] == len(values)
    assert row["mean_ms"] == pytest.approx(statistics.mean(values)) and row["max_ms"] == max(values)


def test_device_unknown_when_the_log_does_not_say() -> None:
    run, truth, f, _ = _import([Options(worker_lines=False, worker_spans=False, seed=4)])[0]
    assert set(f.gpu_time["device"]) == {"unknown", "all"}
    assert "unknown" in set(f.busy["device"])
    assert "named by CUZK_TIMING lines" in f.devices_text  # 'set pool release threshold ... on gpu N'


def test_gpu_worker_spans_alone_attribute_workers_to_devices() -> None:
    # No worker start lines (a log that begins after the daemon started): the gpu_worker span
    # on each GPU call's line says which GPU the engine-wide worker number drives.
    run, truth, f, _ = _import([Options(worker_lines=False, devices=2, workers_per_device=2, seed=7)])[0]
    assert run.meta["worker_gpu"] == truth.worker_gpu and set(truth.worker_gpu.values()) == {0, 1}
    assert sorted(truth.worker_gpu) == [0, 1, 2, 3]  # numbered across both GPUs, as cuzk does
    g = f.gpu_time.set_index(["figure", "device"])
    for dev in range(2):
        parts = [p for p in _counted(truth) if p.device == dev]
        assert g.loc[("gpu_ms (GPU_END)", dev), "n"] == len(parts)
        assert g.loc[("gpu_ms (GPU_END)", dev), "mean_ms"] == pytest.approx(statistics.mean(p.gpu_ms for p in parts))
    assert "unknown" not in set(f.busy["device"])
    assert f.devices == 2 and "gpu_worker spans" in f.devices_text


def test_stage_statistics_say_all_lines_and_how_many_calls_are_excluded(imported) -> None:
    run, truth, f, _ = imported[0]
    stages = f.stages.set_index("stage")
    assert stages.loc["ntt_h", "mean_ms"] == pytest.approx(statistics.mean(truth.cuda("ntt_msm_h_ms")))
    assert stages.loc["prep_msm", "n"] == len(truth.cuda("prep_msm_ms"))
    excluded_calls = sum(1 for p in truth.partitions if p.job_id in truth.excluded)
    assert f"up to {excluded_calls} GPU call(s) of excluded jobs" in f.stage_scope
    assert f.stage_scope.startswith(f"all {len(truth.cuda_events)} CUZK_TIMING")
