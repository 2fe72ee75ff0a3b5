"""The committed CUDA reference runs (results/reference-runs/cuda-h200: real H200 output of
`prooflab batch --set backend=cuda`) through the strict loaders, the metrics and
`prooflab trace`: the formats written by the CUPTI collector and the NVML source on a GPU
are the ones the analysis reads."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from prooflab_analysis import loaders, metrics

REPO = Path(__file__).resolve().parents[2]
RUNS = sorted((REPO / "results" / "reference-runs" / "cuda-h200").iterdir())
PROOFLAB = Path(os.environ.get("PROOFLAB_BUILD_DIR", REPO / "build")) / "bin" / "prooflab"


@pytest.mark.parametrize("run_dir", RUNS, ids=[p.name for p in RUNS])
def test_cuda_run_loads_with_cupti_and_nvml(run_dir: Path) -> None:
    run = loaders.load_run(run_dir)
    assert run.meta["status"] == "complete"
    assert run.meta["config"]["backend"] == "cuda"
    assert run.meta["counters"]["cupti"]["status"] == "used"
    assert run.meta["counters"]["cupti"]["dropped"] == 0
    kinds = set(run.cupti["kind"])
    assert {"KERNEL", "MEMCPY", "MEMSET", "SYNC", "MARKER"} <= kinds
    names = set(run.cupti.loc[run.cupti["kind"] == "KERNEL", "name"])
    assert any("accumulate_kernel" in n for n in names) and any("ntt_pass_kernel" in n for n in names)
    assert (run.cupti["end_us"] >= run.cupti["start_us"]).all()
    nvml = run.counters[run.counters["source"] == "nvml0"]
    assert {"gpu_util", "gpu_mem_used", "sm_clock"} <= set(nvml["metric"])
    util = metrics.utilisation(run.timeline, run.cupti)
    row = util.iloc[0]
    # Kernels run inside the GPU workers' spans: kernel busy is positive and below GPU busy.
    assert 0 < row["kernel_busy"] <= row["gpu_busy"] < 1


@pytest.mark.skipif(not PROOFLAB.exists(), reason=f"no {PROOFLAB}: build the harness first")
def test_trace_has_a_track_per_cuda_stream(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    subprocess.run([str(PROOFLAB), "trace", str(RUNS[0]), "--out", str(out)], check=True,
                   capture_output=True, text=True, timeout=120)
    trace = json.loads(out.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    thread_names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    assert any("stream" in n for n in thread_names), sorted(thread_names)[:20]
    assert any(e.get("ph") == "X" and "accumulate_kernel" in e.get("name", "") for e in events)
