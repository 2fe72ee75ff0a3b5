"""Round trip (issue 14 item 4): `prooflab batch --log-format cuzk` writes the reference formats
(the cuzk daemon's log on stderr, cuzk-bench's lines on stdout); importing them gives the
figures of the native run directory the same batch wrote.

Every expected value is computed here from the native run directory (summary.json,
stages.csv, timeline.csv), never from the log. Tolerances are those of the formats'
rounding, stated where used:
* the reference writes whole ms truncated (as_millis, duration_cast), so a value read back
  lies in (native - 1 ms, native] and so does a mean of such values;
* cuzk-bench prints total time with one decimal ({:.1}), so s/proof from its Batch Summary
  lies within 0.05 s / completed of summary.json's;
* a GPU span read back from whole-ms offsets moves each end by less than 1 ms, so busy time
  over a window moves by less than 1 ms per span end and window end.
Runs the binary that `make test` builds (build/bin/prooflab; PROOFLAB_BIN overrides it) on the
CPU backend; skips when it is missing.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prooflab_analysis import integrity, metrics, stats
from prooflab_analysis.loaders import load_run
from prooflab_analysis.reflog import load_reference_log, reference_stage_long
from prooflab_analysis.reflog_figures import reference_figures

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()


def _why_unusable() -> str | None:
    if not BIN.exists():
        return f"{BIN} is missing: build it first (make test builds build/bin/prooflab)"
    usage = subprocess.run([str(BIN), "batch", "--help"], capture_output=True, text=True).stdout
    if "--log-format" not in usage:
        return f"{BIN} predates `batch --log-format`: rebuild it (make test does)"
    return None


_WHY = _why_unusable()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")

# Partition stages of a few ms on 2 cores: long enough that whole-ms truncation is a small
# part of each, short enough for a test. Two workers on one device, two proofs in flight.
BATCH = ["--set", "circuit=porep-like", "--set", "constraints=4096", "--set", "partitions=3",
         "--set", "gpu_workers_per_device=2", "--count", "4", "--concurrency", "2", "--no-verify"]
TRUNCATION_MS = 1.0


def _batch(tmp: Path, run_id: str, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PROOFLAB_PARAM_DIR=str(tmp / "params"))
    return subprocess.run([str(BIN), "batch", *BATCH, "--out", str(tmp / "runs"), "--run-id", run_id, *extra],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=300)


@pytest.fixture(scope="module")
def roundtrip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("roundtrip")


@pytest.fixture(scope="module")
def roundtrip(roundtrip_dir: Path):
    tmp = roundtrip_dir
    proc = _batch(tmp, "rt", "--log-format", "cuzk")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (tmp / "daemon.log").write_text(proc.stderr)
    (tmp / "bench.log").write_text(proc.stdout)
    native = load_run(tmp / "runs" / "rt")
    [daemon] = load_reference_log(tmp / "daemon.log", strict=True)
    [bench] = load_reference_log(tmp / "bench.log", strict=True)
    return native, daemon, bench


def _reference_spans(tl: pd.DataFrame) -> pd.DataFrame:
    """Per partition, from the native timeline: the reference's GPU call, LOCK_WAIT_START .. the
    later of GPU_END and B_G2_MSM_END (DESIGN.md §4), in µs."""
    keys = ["job", "partition"]
    at = {e: tl[tl["event"] == e].groupby(keys)["t_us"].max() for e in ("LOCK_WAIT_START", "GPU_END", "B_G2_MSM_END")}
    dev = tl[tl["event"] == "GPU_END"].groupby(keys)["device"].first()
    frame = pd.concat([at["LOCK_WAIT_START"].rename("start"), np.maximum(at["GPU_END"], at["B_G2_MSM_END"]).rename("end"),
                       dev.rename("device")], axis=1)
    return frame.dropna().reset_index()


def test_the_batch_summarys_prove_time_is_the_completion_lines_mean_min_max(roundtrip, roundtrip_dir):
    """`prove time: avg= min= max=` (core/stats summarize) over the `prove=N ms` of the
    COMPLETED lines, worked out here with the standard library; printed with one decimal."""
    text = (roundtrip_dir / "bench.log").read_text()
    prove_s = [int(ms) / 1e3 for ms in re.findall(r"COMPLETED — [0-9.]+s \(prove=(\d+) ms", text)]
    assert len(prove_s) == roundtrip[0].summary["completed"]
    [(avg, lo, hi)] = re.findall(r"prove time: +avg=([0-9.]+)s min=([0-9.]+)s max=([0-9.]+)s", text)
    assert abs(float(avg) - statistics.fmean(prove_s)) <= 0.05 + 1e-9
    assert abs(float(lo) - min(prove_s)) <= 0.05 + 1e-9 and abs(float(hi) - max(prove_s)) <= 0.05 + 1e-9


def test_the_log_imports_whole(roundtrip):
    native, daemon, bench = roundtrip
    assert daemon.meta["run_id"] == "rt"  # the RUN_ID line
    assert daemon.meta["lines"]["malformed"] == 0 and daemon.meta["lines"]["other"] == 0
    assert bench.meta["lines"]["malformed"] == 0
    report = integrity.check_run(daemon, expected_partitions=native.meta["config"]["partitions"])
    assert report.ok, report.describe()
    assert len(daemon.extras["jobs"]) == native.summary["count"] == 4
    assert set(daemon.meta["worker_gpu"].items()) == {(0, 0), (1, 0)}


def test_s_per_proof_from_the_batch_summary(roundtrip):
    native, _, bench = roundtrip
    fig = reference_figures(bench, integrity.check_run(bench))
    completed = native.summary["completed"]
    assert fig.throughput["completed"] == completed
    assert "Batch Summary" in fig.throughput["source"]
    assert abs(fig.throughput["s_per_proof"] - native.summary["s_per_proof"]) <= 0.05 / completed + 1e-9
    assert abs(fig.throughput["printed_s_per_proof"] - native.summary["s_per_proof"]) <= 0.05 + 1e-9
    # Latency from the completion lines, each wall time printed with one decimal.
    assert fig.latency["n"] == completed
    assert abs(fig.latency["mean_s"] - native.summary["wall_s"]["avg"]) <= 0.05 + 1e-9
    assert abs(fig.latency["max_s"] - native.summary["wall_s"]["max"]) <= 0.05 + 1e-9


def test_s_per_proof_from_the_daemon_log_alone(roundtrip):
    native, daemon, _ = roundtrip
    fig = reference_figures(daemon, integrity.check_run(daemon))
    tl = native.timeline
    # The engine's completion lines span first submission .. last completion.
    window_s = (tl.loc[tl["event"] == "JOB_DONE", "t_us"].max() - tl.loc[tl["event"] == "JOB_SUBMIT", "t_us"].min()) / 1e6
    n = native.summary["completed"]
    assert "engine completion lines" in fig.throughput["source"]
    # The start is read back as completion time - total_ms: later by less than 1 ms.
    assert window_s - TRUNCATION_MS / 1e3 - 1e-6 < fig.throughput["s_per_proof"] * n <= window_s + 1e-6


def test_gpu_busy_lock_held_and_kernel_busy(roundtrip):
    native, daemon, _ = roundtrip
    fig = reference_figures(daemon, integrity.check_run(daemon))
    tl = native.timeline
    spans = _reference_spans(tl)
    assert len(spans) == 4 * 3
    # The window: first .. last TIMELINE record written, i.e. first SYNTH_START .. last span end.
    t0 = tl.loc[tl["event"] == "SYNTH_START", "t_us"].min()
    t1 = spans["end"].max()
    busy_us = stats.union_us(spans["start"], spans["end"], t0, t1)
    row = fig.busy[fig.busy["device"] == 0].iloc[0]
    got_window_us = row["window_s"] * 1e6
    assert t1 - t0 - 1000 < got_window_us < t1 - t0 + 1000
    got_busy_us = row["gpu_busy"] * got_window_us
    assert abs(got_busy_us - busy_us) < 1000 * (2 * len(spans) + 2)
    # Lock-held busy: the sum of mutex_held_ms is prooflab's own GPU busy (GPU_START..GPU_END,
    # the lock held; one device, one lock, so the union is the sum).
    native_held = metrics.gpu_busy(tl, (t0, t1)).iloc[0]["busy_us"]
    held_row = fig.busy[fig.busy["device"] == "all"].iloc[0]
    got_held_us = held_row["lock_held_busy"] * got_window_us
    assert native_held - 1000 * len(spans) - 1 < got_held_us <= native_held + 1
    # Kernel busy: the sum of gpu_total_ms, prooflab's sum of the GPU sub-stages.
    native_kernel = native.stages["gpu_total_us"].sum()
    got_kernel_us = held_row["kernel_busy"] * got_window_us
    assert native_kernel - 1000 * len(spans) - 1 < got_kernel_us <= native_kernel + 1


@pytest.mark.parametrize("stage,column", [
    ("prep_msm", "prep_msm_us"), ("b_g2_msm", "b_g2_msm_us"), ("lock_wait", "lock_wait_us"), ("ntt_h", "ntt_h_us"),
    ("batch_add", "batch_add_us"), ("tail_msm", "tail_msm_us"), ("gpu_total", "gpu_total_us"),
    ("lock_held", "lock_held_us"), ("dealloc", "dealloc_us"),
])
def test_stage_means_match_stages_csv(roundtrip, stage, column):
    native, daemon, _ = roundtrip
    stats = metrics.stage_summary(reference_stage_long(daemon)).set_index("stage")
    values = native.stages[column].astype("float64") / 1e3
    assert stats.loc[stage, "n"] == len(values) == 12
    # Truncated whole ms: (native - 1 ms, native]. prep_msm alone is read from its two events,
    # a few µs wider than stages.csv's clock reads.
    slack = 0.05 if stage == "prep_msm" else 1e-9
    assert values.mean() - TRUNCATION_MS < stats.loc[stage, "mean_ms"] <= values.mean() + slack


def test_gpu_ms_and_synth_ms_per_partition(roundtrip):
    native, daemon, _ = roundtrip
    fig = reference_figures(daemon, integrity.check_run(daemon))
    spans = _reference_spans(native.timeline)
    gpu = fig.gpu_time.set_index("figure").loc["gpu_ms (GPU_END)"]
    expected_ms = ((spans["end"] - spans["start"]) / 1e3).mean()
    assert gpu["n"] == 12
    assert expected_ms - TRUNCATION_MS < gpu["mean_ms"] <= expected_ms + 1e-9
    synth = native.stages["synth_us"].astype("float64") / 1e3
    assert fig.synth["n"] == 12
    assert synth.mean() - TRUNCATION_MS < fig.synth["mean_ms"] <= synth.mean() + 1e-9


def test_two_devices_workers_numbered_across_gpus_and_attributed_to_theirs(tmp_path: Path):
    # cuzk numbers GPU workers across all GPUs (engine.rs: global_worker_id, gw per GPU); the
    # importer must put each worker, and so each GPU call, on the device the native run used.
    proc = _batch(tmp_path, "two", "--log-format", "cuzk", "--set", "devices=2", "--set", "device_threads=1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (tmp_path / "daemon.log").write_text(proc.stderr)
    native = load_run(tmp_path / "runs" / "two")
    [daemon] = load_reference_log(tmp_path / "daemon.log", strict=True)
    gw = native.meta["config"]["gpu_workers_per_device"]
    assert daemon.meta["worker_gpu"] == {d * gw + w: d for d in range(2) for w in range(gw)}
    jobs = daemon.extras["jobs"].set_index("job")["job_id"]
    keys = ["job", "partition"]
    mine = native.timeline[native.timeline["event"] == "GPU_PICKUP"].set_index(keys)[["worker", "device"]]
    theirs = daemon.timeline[daemon.timeline["event"] == "GPU_PICKUP"]
    theirs = theirs.assign(job=[int(jobs[j].removeprefix("job-")) for j in theirs["job"]]).set_index(keys)
    both = mine.join(theirs[["worker", "device"]].add_suffix("_ref"), how="inner")
    assert len(both) == len(mine) == 4 * 3
    assert (both["device_ref"] == both["device"]).all()
    assert (both["worker_ref"] == both["device"] * gw + both["worker"]).all()
    assert set(both["device"]) == {0, 1}  # both devices worked
    fig = reference_figures(daemon, integrity.check_run(daemon))
    assert fig.devices == 2 and "unknown" not in set(fig.busy["device"])


def test_an_unknown_log_format_is_refused(tmp_path: Path):
    proc = _batch(tmp_path, "bad", "--log-format", "cuzk2")
    assert proc.returncode != 0
    assert "--log-format" in proc.stderr and "cuzk2" in proc.stderr
    assert not (tmp_path / "runs" / "bad").exists()


def test_cuzk_format_needs_the_timeline(tmp_path: Path):
    proc = _batch(tmp_path, "norec", "--log-format", "cuzk", "--set", "record=off")
    assert proc.returncode != 0
    assert "record = on" in proc.stderr
    assert not (tmp_path / "runs" / "norec").exists()
