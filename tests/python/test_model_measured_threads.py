"""The model's measured effective threads on a real run (issue 20, item 3): a tiny CPU-backend
batch of the real `prooflab batch` binary records every pool's CPU time in summary.json
(cpu_seconds_by_pool) and the witness apart from the sparse products (WITNESS_END); the
calibration takes the pool stages' thread counts from the former by default, each the count
under which the sharing rule gives the pool's stages the work its threads did."""

from __future__ import annotations

import numpy as np
import pytest

from prooflab_analysis import metrics
from prooflab_analysis.loaders import load_run
from prooflab_analysis.model.calibration import MEASURED_THREADS_FLOOR, _MeasuredRun, _settings_of, calibrate
from prooflab_analysis.model.stages import pool_sizes

from prooflab_cli import BIN, prooflab

POOLS = {"synthesis0", "synthesis1", "groth16", "device0", "engine"}


@pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first")
def test_a_real_cpu_backend_run_gives_measured_threads(tmp_path, env):
    proc = prooflab(["batch", "--count", "4", "--concurrency", "2", "--out", str(tmp_path), "--run-id", "tiny",
                     "--counters", "off", "--set", "constraints=2048", "--set", "partitions=2",
                     "--set", "synth_threads=2", "--set", "gpu_threads=2", "--set", "device_threads=2"],
                    env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = load_run(tmp_path / "tiny")
    cpu = run.summary["cpu_seconds_by_pool"]
    assert set(cpu) == POOLS
    assert all(v >= 0 for v in cpu.values())
    # Every partition's synthesis has its witness part, as stages.csv says.
    tl = run.timeline
    witness = metrics.pair_intervals(tl, "SYNTH_START", "WITNESS_END").set_index(["job", "partition"])
    assert len(witness) == 8
    stages = run.stages.set_index(["job", "partition"])
    assert witness["dur_us"].to_numpy().tolist() == stages.loc[witness.index, "witness_us"].to_numpy().tolist()

    cal = calibrate(run)  # auto: measured, the counter is there
    note = next(n for n in cal.notes if n.startswith("effective threads"))
    assert note.startswith("effective threads (measured: "), cal.notes
    sizes = pool_sizes(_settings_of(run, None), 1)
    kinds = {"synth": ["synthesis0", "synthesis1"], "b_g2_msm": ["groth16"], "ntt_h": ["device0"]}
    measured = _MeasuredRun(run, _settings_of(run, None), True)
    work, _ = measured.work(cal.beta, cal.threads)
    group = {"synth": ["synth"], "b_g2_msm": ["b_g2_msm"], "ntt_h": ["ntt_h", "batch_add", "tail_msm"]}
    for stage, pools in kinds.items():
        k = cal.threads[stage]
        assert MEASURED_THREADS_FLOOR <= k <= sizes[pools[0]], (stage, k)
        # Unless clamped, the stages' deconvolved work at k is the pools' CPU time.
        if MEASURED_THREADS_FLOOR < k < sizes[pools[0]]:
            done = sum(float(np.sum(work[s])) for s in group[stage])
            assert done == pytest.approx(sum(cpu[p] for p in pools), rel=1e-2), stage
    assert cal.threads["batch_add"] == cal.threads["ntt_h"] == cal.threads["tail_msm"]
