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
    # Synthesis in two parts (core/engine/engine.cpp): the witness on the lane's thread, then
    # the sparse products A·w, B·w, C·w on the lane's pool — the part the throttle pauses.
    "witness": None,        # the lane's thread (SYNTH_START..WITNESS_END)
    "synth": "synthesis",   # the lane's own synthesis pool (its share of synth_threads)
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
    """Threads of each pool (0 = all cores, as the engine's pools take it). Synthesis lane i
    has a pool of its own, `synthesis<i>`, with its share of synth_threads: total / lanes,
    one more for the first total % lanes lanes, at least 1 (core/engine/engine.cpp)."""
    cores = settings["cores"]
    total, lanes = settings["synth_threads"] or cores, settings["partition_workers"]
    sizes = {f"synthesis{i}": max(1, total // lanes + (1 if i < total % lanes else 0)) for i in range(lanes)}
    sizes["groth16"] = settings["gpu_threads"] or cores
    for d in range(devices):
        sizes[f"device{d}"] = settings["device_threads"] or cores
    return sizes


def synthesis_pools(pools: dict[str, int]) -> frozenset[str]:
    """The lanes' synthesis pools: what the throttle pauses (the sparse products, which yield
    between chunks of rows; the witness runs on the lane's thread and is not paused)."""
    return frozenset(p for p in pools if p.startswith("synthesis"))


def cpu_task(stage: str, pools: dict[str, int], device: int = 0, lane: int = 0,
             threads: dict[str, float] | None = None) -> CpuTask:
    """The task of one instance of `stage`: its pool (the device's, the lane's), and the
    threads it can use: the pool's size, or fewer where `threads` (the calibration's
    effective parallelism of a pool stage) says so."""
    pool = STAGE_POOL[stage]
    if pool == "device":
        pool = f"device{device}"
    elif pool == "synthesis":
        pool = f"synthesis{lane}"
    if pool is None:
        return CpuTask(stage, None, 1, stage in BANDWIDTH_BOUND)
    n = float(pools[pool])
    if threads and stage in threads:
        n = min(n, threads[stage])
    return CpuTask(stage, pool, n, stage in BANDWIDTH_BOUND)
