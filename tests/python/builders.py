"""Builders of small run directories, reference logs and experiments with known answers.

Nothing here is a committed data file: every fixture is generated from a few lines of
code, so that the expected numbers can be read off next to the data that produces them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prooflab_analysis import schema

import cuzk_logs


@dataclass
class TimelineBuilder:
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, t_ms: float, event: str, job: int | None = None, partition: int | None = None,
            worker: int | None = None, device: int | None = None, detail: str = "") -> "TimelineBuilder":
        self.rows.append({"t_us": int(round(t_ms * 1000)), "event": event, "job": job, "partition": partition,
                          "worker": worker, "device": device, "detail": detail})
        return self

    def frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(self.rows, columns=schema.TIMELINE_COLUMNS)
        frame["t_us"] = frame["t_us"].astype("int64")
        for col in ("job", "partition", "worker", "device"):
            frame[col] = frame[col].astype(schema.INT_DTYPE)
        frame["event"] = frame["event"].astype(object)
        frame["detail"] = frame["detail"].astype(object)
        return frame


# ---------------------------------------------------------------- known run
#
# One device, one GPU worker, 3 jobs x 2 partitions (times in ms):
#
#   JOB_SUBMIT  j0@0  j1@0  j2@400            JOB_DONE  j0@550  j1@950  j2@1200
#   synthesis   j0p0 0-100  j0p1 0-120  j1p0 200-550  j1p1 200-560  j2p0 400-700  j2p1 400-720
#   GPU_QUEUE   at each SYNTH_END
#   GPU (w0)    j0p0 100-300  j0p1 320-500  j1p0 600-750  j1p1 760-900  j2p0 910-1000  j2p1 1010-1150
#
# Window 0..1200 ms. GPU busy = 900 / 1200 = 0.75.
# Gaps on w0: 300-320 handoff (same job), 500-600 idle (next job, nothing queued at 500),
#   750-760 handoff (same job), 900-910 handoff (next job, j2p0/j2p1 queued), 1000-1010
#   handoff (same job): handoff 4 gaps / 50 ms, idle 1 gap / 100 ms.
# Kernels (CUPTI, stream 7): 110-290 330-490 610-740 770-890 920-990 1020-1140 = 780 ms,
#   plus a kernel on stream 8 at 150-250 that overlaps and must not count twice:
#   kernel busy = 780 / 1200 = 0.65.
# Latency: j0 0.55 s, j1 0.95 s, j2 0.80 s -> p50 0.80 s, p95 0.935 s (linear).
# Throughput: 3 proofs / 1.2 s = 0.4 s/proof = 150 proofs/min; steady: 2 / 0.65 s.
# GPU time per partition: 150 ms. Synthesis: 1550 / 6 ms.
# Probe bandwidth: 10, 20, 30, 40, 50 GB/s inside the window (+1000 after it): mean 30.

KNOWN_GPU = {  # (job, partition): (start_ms, end_ms)
    (0, 0): (100, 300), (0, 1): (320, 500), (1, 0): (600, 750),
    (1, 1): (760, 900), (2, 0): (910, 1000), (2, 1): (1010, 1150),
}
KNOWN_SYNTH = {
    (0, 0): (0, 100), (0, 1): (0, 120), (1, 0): (200, 550),
    (1, 1): (200, 560), (2, 0): (400, 700), (2, 1): (400, 720),
}
KNOWN_SUBMIT = {0: 0, 1: 0, 2: 400}
KNOWN_DONE = {0: 550, 1: 950, 2: 1200}
KNOWN_KERNELS = [(7, 110, 290), (7, 330, 490), (7, 610, 740), (7, 770, 890), (7, 920, 990), (7, 1020, 1140),
                 (8, 150, 250)]

KNOWN = {
    "window_s": 1.2,
    "gpu_busy": 0.75,
    "kernel_busy": 0.65,
    "handoff_gaps": 4,
    "handoff_gap_ms_total": 50.0,
    "idle_gaps": 1,
    "idle_gap_ms_total": 100.0,
    "latency_p50_s": 0.8,
    "latency_p95_s": 0.935,
    "s_per_proof": 0.4,
    "proofs_per_min": 150.0,
    "steady_s_per_proof": 0.325,
    "gpu_ms_per_partition": 150.0,
    "synth_ms": 1550.0 / 6.0,
    "bandwidth_gbps": 30.0,
}


def known_timeline(drop: set[tuple[int, int]] | None = None, scale: float = 1.0) -> pd.DataFrame:
    """The hand-built timeline above; `drop` removes every event of those partitions;
    `scale` multiplies every time (for sweep fixtures with different speeds)."""
    drop = drop or set()
    b = TimelineBuilder()
    s = scale
    for job, t in KNOWN_SUBMIT.items():
        b.add(t * s, "JOB_SUBMIT", job)
    for (job, part), (t0, t1) in KNOWN_SYNTH.items():
        if (job, part) in drop:
            continue
        b.add(t0 * s, "SYNTH_START", job, part)
        b.add(t1 * s, "SYNTH_END", job, part, detail=f"synth_us={int((t1 - t0) * s * 1000)}")
        b.add(t1 * s, "GPU_QUEUE", job, part)
        b.add(t1 * s, "PREP_MSM_START", job, part)
        b.add((t1 + 50) * s, "PREP_MSM_END", job, part)
    for (job, part), (t0, t1) in KNOWN_GPU.items():
        if (job, part) in drop:
            continue
        b.add(t0 * s, "GPU_PICKUP", job, part, worker=0, device=0)
        b.add(t0 * s, "LOCK_WAIT_START", job, part, worker=0, device=0)
        b.add(t0 * s, "GPU_START", job, part, worker=0, device=0)
        b.add((t0 + 0.5 * (t1 - t0)) * s, "NTT_H", job, part, worker=0, device=0, detail="dur_us=1")
        b.add(t1 * s, "GPU_END", job, part, worker=0, device=0)
        b.add(t1 * s, "B_G2_MSM_START", job, part, worker=0, device=0)
        b.add((t1 + 30) * s, "B_G2_MSM_END", job, part, worker=0, device=0)
        b.add((t1 + 30) * s, "DEALLOC_START", job, part, worker=0, device=0)
        b.add((t1 + 70) * s, "DEALLOC_END", job, part, worker=0, device=0)
    for job, t in KNOWN_DONE.items():
        b.add(t * s, "PROOF_DONE", job)
        b.add(t * s, "JOB_DONE", job)
    frame = b.frame()
    # Rows in time order as a real recorder writes them; ties keep insertion order.
    return frame.sort_values("t_us", kind="stable").reset_index(drop=True)


def known_cupti(scale: float = 1.0) -> pd.DataFrame:
    rows = []
    for stream, t0, t1 in KNOWN_KERNELS:
        rows.append({"kind": "KERNEL", "device": 0, "stream": stream, "name": "msm_kernel<int, 3>",
                     "start_us": t0 * 1000.0 * scale, "end_us": t1 * 1000.0 * scale, "bytes": None, "correlation": len(rows)})
    for t0 in (100, 320, 600):
        rows.append({"kind": "MEMCPY", "device": 0, "stream": 9, "name": "HtoD",
                     "start_us": t0 * 1000.0 * scale, "end_us": (t0 + 10) * 1000.0 * scale, "bytes": 1 << 20,
                     "correlation": len(rows)})
    frame = pd.DataFrame(rows, columns=schema.CUPTI_COLUMNS)
    for col in ("device", "stream", "bytes", "correlation"):
        frame[col] = frame[col].astype(schema.INT_DTYPE)
    return frame


def known_counters(scale: float = 1.0) -> pd.DataFrame:
    rows = [{"t_us": int(t * 1000 * scale), "source": "probe", "metric": "bandwidth", "value": v, "unit": "GB/s"}
            for t, v in ((0, 10.0), (250, 20.0), (500, 30.0), (750, 40.0), (1000, 50.0), (1300, 1000.0))]
    rows += [{"t_us": int(t * 1000 * scale), "source": "proc", "metric": "tlb_shootdowns", "value": v, "unit": "1/s"}
             for t, v in ((0, 0.0), (300, 1200.0), (600, 300.0), (900, 5000.0))]
    return pd.DataFrame(rows, columns=schema.COUNTERS_COLUMNS)


def known_stages(drop: set[tuple[int, int]] | None = None) -> pd.DataFrame:
    drop = drop or set()
    rows = []
    for (job, part), (g0, g1) in KNOWN_GPU.items():
        if (job, part) in drop:
            continue
        s0, s1 = KNOWN_SYNTH[(job, part)]
        rows.append({
            "job": job, "partition": part, "worker": 0, "device": 0, "status": "ok",
            "synth_us": (s1 - s0) * 1000, "prep_msm_us": 50_000, "queue_us": (g0 - s1) * 1000,
            "lock_wait_us": 0, "prestage_us": 0, "ntt_h_us": (g1 - g0) * 500, "batch_add_us": (g1 - g0) * 200,
            "tail_msm_us": (g1 - g0) * 300, "gpu_total_us": (g1 - g0) * 1000, "lock_held_us": (g1 - g0) * 1000,
            "b_g2_msm_us": 30_000, "epilogue_us": 100, "dealloc_us": 40_000, "host_bytes": 1 << 30,
            "vram_peak_bytes": 3 << 30, "prestage": "empty",
        })
    return pd.DataFrame(rows, columns=schema.STAGES_COLUMNS)


def run_meta(run_id: str = "known", partitions: int = 2, count: int = 3, concurrency: int = 2,
             status: str = "complete") -> dict[str, Any]:
    return {
        "run_id": run_id,
        "git_commit": "0123456789abcdef0123456789abcdef01234567",
        "git_dirty": False,
        "command": "prooflab batch --count 3 --concurrency 2",
        "config": {"count": count, "concurrency": concurrency, "partitions": partitions, "constraints": 4096,
                   "circuit": "porep_like", "backend": "cpu", "lock_policy": "single", "dealloc_policy": "async",
                   "gpu_threads": 4, "throttle": False, "gpu_workers_per_device": 1, "devices": 1,
                   "synth_threads": 2, "vram_limit": None, "host_mem_budget": 1 << 33},
        "host": {"cpu_model": "test", "cores": 2, "mem_bytes": 24 << 30},
        "gpu": None,
        "counters": {"probe": {"status": "used", "reason": ""},
                     "likwid": {"status": "unavailable", "reason": "no perf counters"}},
        "start_time": "2026-11-30T10:00:00Z",
        "end_time": "2026-11-30T10:00:02Z",
        "status": status,
    }


def write_run(path: Path, timeline: pd.DataFrame | None = None, *, stages: pd.DataFrame | None = None,
              cupti: pd.DataFrame | None = None, counters: pd.DataFrame | None = None,
              meta: dict[str, Any] | None = None, summary: dict[str, Any] | None = None) -> Path:
    """Write a run directory in the documented format (missing frames: file absent)."""
    path.mkdir(parents=True, exist_ok=True)
    if meta is not None:
        (path / "run.json").write_text(json.dumps(meta, indent=2))
    for name, frame in (("timeline.csv", timeline), ("stages.csv", stages), ("cupti.csv", cupti),
                        ("counters.csv", counters)):
        if frame is not None:
            frame.to_csv(path / name, index=False, na_rep="", lineterminator="\n")
    if summary is not None:
        (path / "summary.json").write_text(json.dumps(summary, indent=2))
    return path


def write_known_run(path: Path, drop: set[tuple[int, int]] | None = None, **meta_kw: Any) -> Path:
    return write_run(path, known_timeline(drop), stages=known_stages(drop), cupti=known_cupti(),
                     counters=known_counters(), meta=run_meta(**meta_kw),
                     summary={"count": 3, "completed": 3, "failed": 0, "s_per_proof": 0.4})


# ----------------------------------------------------------- rich run (waterfall)
#
# Every stage the waterfall draws, on one device with two workers (times in ms):
#   jobs        j0 0-340  j1 0-520  j2 100-600 (JOB_FAILED; its p1 is queued, never picked up)
#   synthesis   j0p0 0-100 j0p1 0-150 j1p0 100-300 j1p1 150-320 j2p0 300-420 j2p1 320-440
#   queue wait  GPU_QUEUE at SYNTH_END .. GPU_PICKUP (RICH_PICKUP)
#   lock wait   LOCK_WAIT_START at pickup .. GPU_START;  prestage j0p0 100-110 (two_lock)
#   GPU         RICH_GPU below, sub-stages RICH_SUB (ntt_h, batch_add, tail_msm end times)
#   prep_msm    SYNTH_END .. +30;  b_g2_msm GPU_END .. +20;  dealloc +20 .. +35
#   throttle    250-280
# CUPTI: streams 7..15, stream 7+i has one kernel of (i + 1) ms at 110 + 10 i; stream 15 a
# copy at 300-305; one device sync at 400-402.

RICH_SUBMIT = {0: 0, 1: 0, 2: 100}
RICH_END = {0: ("JOB_DONE", 340), 1: ("JOB_DONE", 520), 2: ("JOB_FAILED", 600)}
RICH_SYNTH = {(0, 0): (0, 100), (0, 1): (0, 150), (1, 0): (100, 300), (1, 1): (150, 320), (2, 0): (300, 420),
              (2, 1): (320, 440)}
RICH_PICKUP = {(0, 0): (100, 0), (0, 1): (150, 1), (1, 0): (300, 0), (1, 1): (400, 1), (2, 0): (480, 0)}  # (t, worker)
RICH_GPU = {(0, 0): (110, 210), (0, 1): (210, 300), (1, 0): (300, 400), (1, 1): (400, 480), (2, 0): (480, 560)}
RICH_SUB_MS = {"NTT_H": 0.6, "BATCH_ADD": 0.1, "TAIL_MSM": 0.25}  # share of the GPU phase, in this order
RICH_PRESTAGE = {(0, 0): (100, 110)}
RICH_THROTTLE = (250, 280)
RICH_STREAMS = range(7, 16)


def rich_sub_stages(job: int, part: int) -> dict[str, tuple[float, float]]:
    """(start, end) ms of each GPU sub-stage of a partition: consecutive from GPU_START."""
    g0, g1 = RICH_GPU[(job, part)]
    out, t = {}, float(g0)
    for name, share in RICH_SUB_MS.items():
        out[name] = (t, t + share * (g1 - g0))
        t += share * (g1 - g0)
    return out


def rich_timeline() -> pd.DataFrame:
    b = TimelineBuilder()
    for job, t in RICH_SUBMIT.items():
        b.add(t, "JOB_SUBMIT", job)
    for (job, part), (t0, t1) in RICH_SYNTH.items():
        b.add(t0, "SYNTH_START", job, part)
        b.add(t1, "SYNTH_END", job, part, detail=f"synth_us={(t1 - t0) * 1000}")
        b.add(t1, "GPU_QUEUE", job, part)
        b.add(t1, "PREP_MSM_START", job, part)
        b.add(t1 + 30, "PREP_MSM_END", job, part)
    for key, (t_pick, w) in RICH_PICKUP.items():
        job, part = key
        g0, g1 = RICH_GPU[key]
        b.add(t_pick, "GPU_PICKUP", job, part, worker=w, device=0)
        b.add(t_pick, "LOCK_WAIT_START", job, part, worker=w, device=0)
        if key in RICH_PRESTAGE:
            p0, p1 = RICH_PRESTAGE[key]
            b.add(p0, "PRESTAGE_START", job, part, worker=w, device=0)
            b.add(p1, "PRESTAGE_END", job, part, worker=w, device=0, detail="prestage=ok")
        b.add(g0, "GPU_START", job, part, worker=w, device=0)
        for name, (s0, s1) in rich_sub_stages(job, part).items():
            b.add(s1, name, job, part, worker=w, device=0, detail=f"dur_us={int(round((s1 - s0) * 1000))}")
        b.add(g1, "GPU_END", job, part, worker=w, device=0)
        b.add(g1, "B_G2_MSM_START", job, part, worker=w, device=0)
        b.add(g1 + 20, "B_G2_MSM_END", job, part, worker=w, device=0)
        b.add(g1 + 20, "DEALLOC_START", job, part, worker=w, device=0)
        b.add(g1 + 35, "DEALLOC_END", job, part, worker=w, device=0)
    b.add(RICH_THROTTLE[0], "THROTTLE_ON")
    b.add(RICH_THROTTLE[1], "THROTTLE_OFF")
    for job, (event, t) in RICH_END.items():
        b.add(t, event, job, detail="reason=out_of_memory" if event == "JOB_FAILED" else "")
    return b.frame().sort_values("t_us", kind="stable").reset_index(drop=True)


def rich_cupti() -> pd.DataFrame:
    rows = []
    for i, stream in enumerate(RICH_STREAMS):
        t0 = 110 + 10 * i
        rows.append({"kind": "KERNEL", "device": 0, "stream": stream, "name": f"kernel_{stream}",
                     "start_us": t0 * 1000.0, "end_us": (t0 + i + 1) * 1000.0, "bytes": None, "correlation": len(rows)})
    rows.append({"kind": "MEMCPY", "device": 0, "stream": 15, "name": "DtoH", "start_us": 300_000.0,
                 "end_us": 305_000.0, "bytes": 1 << 20, "correlation": len(rows)})
    rows.append({"kind": "SYNC", "device": 0, "stream": None, "name": "context_synchronize", "start_us": 400_000.0,
                 "end_us": 402_000.0, "bytes": None, "correlation": len(rows)})
    rows.append({"kind": "MARKER", "device": 0, "stream": None, "name": "gpu_phase job=0 partition=0",
                 "start_us": 110_000.0, "end_us": 210_000.0, "bytes": None, "correlation": None})
    frame = pd.DataFrame(rows, columns=schema.CUPTI_COLUMNS)
    for col in ("device", "stream", "bytes", "correlation"):
        frame[col] = frame[col].astype(schema.INT_DTYPE)
    return frame


# ---------------------------------------------------------- reference log

# Two runs of one GPU with two workers (partitioned and monolithic jobs), written with the
# real cuzk / supraseal-c2 / cuzk-bench format strings by tests/python/cuzk_logs.py, split
# by RUN_ID markers. test_reflog*.py check the importer against the generator's truth.
REFERENCE_LOG = cuzk_logs.generate(
    [cuzk_logs.Options(jobs=2, partitions=2, monolithic_jobs=1, devices=1, workers_per_device=2, seed=11),
     cuzk_logs.Options(jobs=1, partitions=2, monolithic_jobs=0, devices=1, workers_per_device=1, bench=False, seed=12)],
    run_ids=["alpha", "beta"],
).text


# --------------------------------------------------------------- big timeline


def synthetic_timeline(n_events: int, partitions: int = 10, workers: int = 2, seed: int = 1) -> pd.DataFrame:
    """A large, plausible single-device timeline with ~n_events rows (vectorised)."""
    rng = np.random.default_rng(seed)
    per_partition = 16
    n_parts = max(1, n_events // per_partition)
    jobs = np.arange(n_parts) // partitions
    parts = np.arange(n_parts) % partitions
    gpu_ms = 1800 + rng.normal(0, 100, n_parts).clip(-500, 500)
    gpu_start = np.cumsum(gpu_ms + rng.exponential(300, n_parts)) * 1000
    gpu_end = gpu_start + gpu_ms * 1000
    worker = np.arange(n_parts) % workers
    synth_end = gpu_start - rng.uniform(6e5, 3e6, n_parts)  # queued before the pickup (gpu_start - 0.5 s)
    synth_start = synth_end - rng.uniform(2e7, 3e7, n_parts)
    base = synth_start.min()
    sub_stage_us = {"NTT_H": np.full(n_parts, 1e6), "BATCH_ADD": np.full(n_parts, 3e5),
                    "TAIL_MSM": gpu_end - gpu_start - 1.3e6}
    events = [
        ("SYNTH_START", synth_start, False), ("SYNTH_END", synth_end, False), ("GPU_QUEUE", synth_end, False),
        ("PREP_MSM_START", synth_end, False), ("PREP_MSM_END", synth_end + 1.8e6, False),
        ("GPU_PICKUP", gpu_start - 5e5, True), ("LOCK_WAIT_START", gpu_start - 5e5, True), ("GPU_START", gpu_start, True),
        ("NTT_H", gpu_start + 1e6, True), ("BATCH_ADD", gpu_start + 1.3e6, True), ("TAIL_MSM", gpu_end, True),
        ("GPU_END", gpu_end, True), ("B_G2_MSM_START", gpu_end, True), ("B_G2_MSM_END", gpu_end + 4e5, True),
        ("DEALLOC_START", gpu_end + 4e5, True), ("DEALLOC_END", gpu_end + 9e5, True),
    ]
    frames = []
    na = pd.array([pd.NA] * n_parts, dtype=schema.INT_DTYPE)
    for name, t, on_worker in events:
        frames.append(pd.DataFrame({
            "t_us": (t - base).astype("int64"), "event": name, "job": pd.array(jobs, dtype=schema.INT_DTYPE),
            "partition": pd.array(parts, dtype=schema.INT_DTYPE),
            "worker": pd.array(worker, dtype=schema.INT_DTYPE) if on_worker else na,
            "device": pd.array(np.zeros(n_parts, dtype="int64"), dtype=schema.INT_DTYPE) if on_worker else na,
            "detail": "dur_us=" + pd.Series(sub_stage_us[name].astype("int64")).astype(str) if name in sub_stage_us
            else "",
        }))
    frame = pd.concat(frames, ignore_index=True).sort_values("t_us", kind="stable").reset_index(drop=True)
    frame["event"] = frame["event"].astype(object)
    frame["detail"] = frame["detail"].astype(object)
    return frame


# ----------------------------------------------------------------- experiments


def write_sweep_experiment(path: Path, cells: list[tuple[int, int, float]], reps: int = 2,
                           variants: dict[str, float] | None = None, rep_jitter: list[float] | None = None,
                           gpu_j_per_proof: float | None = None) -> Path:
    """Experiment whose runs are the known timeline scaled per run by the cell's `scale`
    ((count c, concurrency j, scale)), the variant's factor (`variants`, default
    {"baseline": 1.0}) and the repetition's factor (`rep_jitter[rep]`, default 1). Every
    metric that is a time scales with it; arms are interleaved in run order. With
    `gpu_j_per_proof`, each run's summary.json has an energy block whose GPU joules per
    proof scale the same way and whose host figure is null (a host counter that gave none)."""
    path.mkdir(parents=True, exist_ok=True)
    variants = variants or {"baseline": 1.0}
    jitter = rep_jitter or [1.0] * reps
    rows = []
    order = 0
    for rep in range(reps):
        for c, j, scale in cells:
            for variant, factor in variants.items():
                cell = f"c{c}_j{j}"
                run_dir = f"runs/{cell}_{variant}_r{rep}" if len(variants) > 1 else f"runs/{cell}_r{rep}"
                run_scale = scale * factor * jitter[rep]
                meta = run_meta(run_id=Path(run_dir).name, count=c, concurrency=j)
                summary = None
                if gpu_j_per_proof is not None:
                    summary = {"energy": {"gpu_j_per_proof": gpu_j_per_proof * run_scale, "host_j_per_proof": None,
                                          "j_per_proof": None, "notes": ["host_energy/energy_psys: no figure"]}}
                write_run(path / run_dir, known_timeline(scale=run_scale), cupti=known_cupti(run_scale),
                          counters=known_counters(run_scale), meta=meta, summary=summary)
                rows.append({"experiment": "sweep", "cell": cell, "variant": variant, "rep": rep, "order": order,
                             "run_dir": run_dir, "status": "complete", "count": c, "concurrency": j})
                order += 1
    pd.DataFrame(rows).to_csv(path / "index.csv", index=False)
    return path


def write_ab_experiment(path: Path, baseline_s: list[float], variant_s: list[float],
                        variant: str = "serialized_dealloc") -> Path:
    """A/B experiment without timelines: each run has only run.json and summary.json,
    enough for an A/B table over `summary.s_per_proof`; arms interleaved in order."""
    path.mkdir(parents=True, exist_ok=True)
    rows = []
    order = 0
    for rep, (a, b) in enumerate(zip(baseline_s, variant_s)):
        for name, value in (("baseline", a), (variant, b)):
            run_dir = f"runs/{name}_r{rep}"
            write_run(path / run_dir, meta=run_meta(run_id=f"{name}_r{rep}", count=20, concurrency=15),
                      summary={"s_per_proof": value, "throughput_proofs_per_min": 60.0 / value})
            rows.append({"experiment": "ab", "cell": "c20_j15", "variant": name, "rep": rep, "order": order,
                         "run_dir": run_dir, "status": "complete", "dealloc_policy": name})
            order += 1
    pd.DataFrame(rows).to_csv(path / "index.csv", index=False)
    return path


GIB = 2**30


def write_memory_experiment(path: Path, cells: dict[tuple[int, int], tuple[float, float]], reps: int = 2,
                            rep_rss: list[float] | None = None, rep_jitter: list[float] | None = None,
                            summary_peak: dict[tuple[int, int], float] | None = None) -> Path:
    """A partition-workers x GPU-workers sweep: cells {(pw, gw): (time scale, peak RSS bytes)};
    repetition r runs the known timeline at scale x rep_jitter[r] and samples RSS in
    counters.csv up to peak x rep_rss[r]; `summary_peak` cells also record
    summary.json peak_rss_bytes (that factor x the cell's peak), which wins over the samples."""
    path.mkdir(parents=True, exist_ok=True)
    rep_rss = rep_rss or [1.0] * reps
    jitter = rep_jitter or [1.0] * reps
    summary_peak = summary_peak or {}
    rows, order = [], 0
    for rep in range(reps):
        for (pw, gw), (scale, peak) in cells.items():
            run_id = f"pw{pw}_gw{gw}_r{rep}"
            meta = run_meta(run_id=run_id, count=10, concurrency=5)
            meta["config"].update({"partition_workers": pw, "gpu_workers_per_device": gw})
            top = peak * rep_rss[rep]
            rss = pd.DataFrame({"t_us": [0, 300_000, 600_000, 900_000], "source": "proc", "metric": "rss_bytes",
                                "value": [0.2 * top, 0.7 * top, top, 0.5 * top], "unit": "B"})
            counters = pd.concat([known_counters(scale * jitter[rep]), rss], ignore_index=True)
            summary = {"peak_rss_bytes": summary_peak[(pw, gw)] * peak} if (pw, gw) in summary_peak else None
            write_run(path / "runs" / run_id, known_timeline(scale=scale * jitter[rep]), counters=counters, meta=meta,
                      summary=summary)
            rows.append({"experiment": "memory", "cell": f"pw{pw}_gw{gw}", "variant": "baseline", "rep": rep,
                         "order": order, "run_dir": f"runs/{run_id}", "status": "complete",
                         "partition_workers": pw, "gpu_workers_per_device": gw})
            order += 1
    pd.DataFrame(rows).to_csv(path / "index.csv", index=False)
    return path
