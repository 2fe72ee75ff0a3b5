"""Where each stage of the engine runs and what it asks of the host (core/engine/engine.cpp).

A stage runs on a thread pool (its task can use the whole pool: the pools' nested parallel
loops do) or on a thread of its own; bandwidth-bound stages stream memory (sparse products,
walks, copies, munmap) rather than compute (MSMs, NTTs). Both the calibration (measured
intervals back to work) and the simulation (work forward to intervals) read this table.
"""

from __future__ import annotations

from .resources import CpuTask
from .settings import Settings

STAGE_POOL: dict[str, str | None] = {
    "synth": "synthesis",   # synthesis pool (synth_threads), both lanes' evaluations
    "prep_msm": None,       # the lane's thread
    "upload": None,         # the GPU worker's thread (CPU backend: a real copy)
    "ntt_h": "device", "batch_add": "device", "tail_msm": "device",  # the emulated device's pool
    "b_g2_msm": "groth16",  # the groth16 pool (gpu_threads)
    "epilogue": None,       # the GPU worker (or finalizer) thread
    "dealloc": None,        # a detached thread, or the worker (inline)
    "verify": None,         # the thread that accounts the job's last partition
}
BANDWIDTH_BOUND: frozenset[str] = frozenset({"synth", "prep_msm", "upload", "dealloc"})
# The GPU phase's sub-stages in order, with the TIMELINE event that ends each.
GPU_SUB_STAGES: tuple[tuple[str, str], ...] = (("ntt_h", "NTT_H"), ("batch_add", "BATCH_ADD"), ("tail_msm", "TAIL_MSM"))


def pool_sizes(settings: Settings, devices: int) -> dict[str, int]:
    """Threads of each pool (0 = all cores, as the engine's pools take it)."""
    cores = settings["cores"]
    sizes = {"synthesis": settings["synth_threads"] or cores, "groth16": settings["gpu_threads"] or cores}
    for d in range(devices):
        sizes[f"device{d}"] = settings["device_threads"] or cores
    return sizes


def cpu_task(stage: str, pools: dict[str, int], device: int = 0) -> CpuTask:
    pool = STAGE_POOL[stage]
    if pool == "device":
        pool = f"device{device}"
    return CpuTask(stage, pool, pools[pool] if pool else 1, stage in BANDWIDTH_BOUND)
