"""The proving engine's policies as SimPy processes (core/engine/engine.cpp, docs/engine.md).

One process per thread of the engine, doing what that thread does, in the same order:
* the submitter admits a job while fewer than `concurrency` are in flight and queues its
  partitions for synthesis (FIFO);
* `partition_workers` synthesis lanes (today's engine: 2) take the next partition, take its
  host bytes from the budget, synthesize (the witness on the lane's thread, then the sparse
  products on its pool, which the throttle pauses), run prep_msm and put it in the GPU queue, a
  priority queue on (job, partition). Issue #19's permits: a lane holds its permit until the
  partition is queued and waits for room while `synthesis_lookahead` partitions wait; the
  pacer (`max_gpu_queue_depth`) admits a start only while waiting + synthesizing < N;
* `gpu_workers_per_device` workers per device: GPU_PICKUP, b_g2_msm submitted to the groth16
  pool at once, [two_lock: pre-stage under mem_mtx when the VRAM check passes], lock
  (single: the GPU lock; two_lock: compute_mtx; none: no lock), [two_lock without pre-staged
  buffers: the fallback's device-global synchronise + pool trim, which wait until nothing is
  in flight on the device], stage (allocate + upload), ntt_h, batch_add, tail_msm (scratch
  allocated for the phase), free, unlock; then join b_g2_msm, epilogue, dealloc by policy
  (inline: on the worker; async: a detached thread; serialized: detached, one mutex);
  `finalize = split` hands join + epilogue + dealloc to a finalizer (one thread per worker);
* the thread that accounts a job's last partition verifies its proofs (PROOF_DONE..JOB_DONE).
An allocation that does not fit the device fails the partition and its job (the Phase-10
failure); the job's later partitions are skipped, as the engine does.

Every CPU stage is a task on the shared cores (resources.SharedCpu) whose work is drawn
from its calibrated distribution; on a real GPU the GPU sub-stages are plain durations.
The simulation records the engine's TIMELINE events, so the analysis' own metrics and
waterfall read a predicted run exactly as they read a measured one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import simpy

from .calibration import Calibration
from .resources import ByteBudget, DeviceActivity, DeviceMemory, OutOfDeviceMemory, SharedCpu
from .settings import Settings
from .stages import GPU_SUB_STAGES, cpu_task, pool_sizes, synthesis_pools

@dataclass
class SimResult:
    """The simulated run: its TIMELINE rows (seconds) and what each resource did."""

    events: list[tuple[float, str, Any, Any, Any, Any, str]]
    settings: Settings
    end_s: float
    cpu_busy_core_s: float
    pool_busy_core_s: dict[str, float]
    pool_threads: dict[str, int]
    held_s: dict[str, float]  # lock / mutex name -> time held (summed over devices)
    holders: dict[str, int]   # name -> how many of it exist (locks per device x devices, lanes, workers)
    host_peak_bytes: int
    host_wait_s: float
    vram_peak_bytes: int
    failed_jobs: dict[int, str] = field(default_factory=dict)


class _Gate:
    """Waits until a predicate over the engine's counters holds (a condition variable)."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self._waiters: list[tuple[Callable[[], bool], simpy.Event]] = []

    def wait(self, predicate: Callable[[], bool]) -> simpy.Event:
        event = self.env.event()
        self._waiters.append((predicate, event))
        self.poke()
        return event

    def poke(self) -> None:
        ready = [(p, e) for p, e in self._waiters if p()]
        for item in ready:
            self._waiters.remove(item)
            item[1].succeed()


@dataclass
class _Partition:
    job: int
    index: int
    held_bytes: int = 0
    b_g2: simpy.Process | None = None
    failed: str = ""


@dataclass
class _Job:
    seq: int
    slot: Any
    accounted: int = 0
    failed: str = ""


class _Engine:
    def __init__(self, cal: Calibration, settings: Settings, seed: int):
        self.cal, self.s = cal, settings
        self.env = simpy.Environment()
        self.draw = cal.sampler(np.random.default_rng(seed), seed).draw
        self.devices = settings["devices"]
        self.pools = pool_sizes(settings, self.devices)
        self.cpu = SharedCpu(self.env, settings["cores"], self.pools, cal.beta)
        self.events: list[tuple[float, str, Any, Any, Any, Any, str]] = []
        self.job_slots = simpy.Resource(self.env, settings["concurrency"])
        self.synth_queue = simpy.Store(self.env)
        self.gpu_queue = simpy.PriorityStore(self.env)
        self.finalizer_queue = simpy.Store(self.env)
        self.lanes = settings["partition_workers"]
        workers = settings["gpu_workers_per_device"] * self.devices
        budget = settings["host_mem_budget"] or cal.host_bytes * (self.lanes + workers + 2)
        self.budget = ByteBudget(self.env, budget)
        vram = settings["vram_limit"] or cal.vram_budget_bytes
        self.locks = [{name: simpy.Resource(self.env, 1) for name in ("gpu", "mem", "compute")}
                      for _ in range(self.devices)]
        self.memory = [DeviceMemory(vram) for _ in range(self.devices)]
        self.activity = [DeviceActivity(self.env) for _ in range(self.devices)]
        self.dealloc_mutex = simpy.Resource(self.env, 1)
        self.gate = _Gate(self.env)
        self.synthesizing = 0
        self.waiting = 0
        lookahead = settings["synthesis_lookahead"]
        self.lookahead = None if lookahead is None else (lookahead or self.lanes)
        self.b_g2_active = 0
        self.jobs: dict[int, _Job] = {}
        self.failed_jobs: dict[int, str] = {}
        self.held_s: dict[str, float] = {}
        self.partitions = settings["partitions"]

    # ---- helpers ----
    def record(self, event: str, job: Any = None, partition: Any = None, worker: Any = None, device: Any = None,
               detail: str = "") -> None:
        self.events.append((self.env.now, event, job, partition, worker, device, detail))

    def compute(self, stage: str, device: int = 0, lane: int = 0):
        """Runs one stage drawn from its distribution: work on the shared cores (on the
        device's or the lane's pool, with the calibrated effective threads), or (a real
        GPU's sub-stages) a duration."""
        value = self.draw(stage)
        if self.cal.is_duration(stage):
            yield self.env.timeout(value)
        else:
            yield self.cpu.run(cpu_task(stage, self.pools, device, lane, self.cal.threads), value)

    def hold(self, resource: simpy.Resource):
        """Acquires `resource`; returns (request, acquired time) for `release`."""
        request = resource.request()
        yield request
        return request, self.env.now

    def release(self, resource: simpy.Resource, held: tuple[Any, float], name: str) -> None:
        request, since = held
        resource.release(request)
        self.held_s[name] = self.held_s.get(name, 0.0) + self.env.now - since

    # ---- jobs ----
    def submitter(self):
        for seq in range(self.s["count"]):
            slot = self.job_slots.request()
            yield slot
            self.jobs[seq] = _Job(seq, slot)
            self.record("JOB_SUBMIT", seq)
            for p in range(self.partitions):
                yield self.synth_queue.put((seq, p))

    # ---- synthesis ----
    def lane(self, lane: int):
        depth = self.s["max_gpu_queue_depth"]
        while True:
            job, index = yield self.synth_queue.get()
            yield self.gate.wait(lambda: depth == 0 or self.waiting + self.synthesizing < depth)
            self.synthesizing += 1
            part = _Partition(job, index, held_bytes=self.cal.host_bytes)
            yield self.budget.acquire(part.held_bytes)
            self.record("SYNTH_START", job, index)
            t0 = self.env.now
            if "witness" in self.cal.stages:
                yield from self.compute("witness", lane=lane)
                self.record("WITNESS_END", job, index)
            yield from self.compute("synth", lane=lane)
            self.record("SYNTH_END", job, index, detail=f"synth_us={round((self.env.now - t0) * 1e6)}")
            self.record("PREP_MSM_START", job, index)
            yield from self.compute("prep_msm")
            self.record("PREP_MSM_END", job, index)
            if self.lookahead is not None:
                yield self.gate.wait(lambda: self.waiting < self.lookahead)
            self.waiting += 1
            self.synthesizing -= 1
            self.gate.poke()
            self.record("GPU_QUEUE", job, index)
            yield self.gpu_queue.put(simpy.PriorityItem((job, index), part))

    # ---- GPU workers ----
    def gpu_worker(self, device: int, worker: int):
        while True:
            item = yield self.gpu_queue.get()
            part: _Partition = item.item
            self.waiting -= 1
            self.gate.poke()
            self.record("GPU_PICKUP", part.job, part.index, worker, device)
            if self.jobs[part.job].failed:
                yield from self.account(part, worker, device, skipped=True)
                continue
            part.b_g2 = self.env.process(self.b_g2_msm(part, worker, device))
            yield from self.gpu_phase(part, worker, device)
            if part.failed:
                yield part.b_g2
                yield from self.account(part, worker, device)
                continue
            if self.s["finalize"] == "split":
                yield self.finalizer_queue.put((part, worker, device))
            else:
                yield from self.finalize(part, worker, device)

    def gpu_phase(self, part: _Partition, worker: int, device: int):
        cal, locks, mem, activity = self.cal, self.locks[device], self.memory[device], self.activity[device]
        policy = self.s["lock_policy"]
        staged = False
        if policy == "two_lock":
            self.record("PRESTAGE_START", part.job, part.index, worker, device)
            held = yield from self.hold(locks["mem"])
            outcome = "skip_vram"
            if mem.fits(cal.vram_admit_bytes or cal.vram_staged_bytes + cal.vram_scratch_bytes):
                mem.allocate(cal.vram_staged_bytes, "prestage")
                activity.begin()
                yield from self.compute("upload")
                activity.end()
                staged, outcome = True, "ok"
            self.release(locks["mem"], held, "mem_mtx")
            self.record("PRESTAGE_END", part.job, part.index, worker, device, f"prestage={outcome}")
        self.record("LOCK_WAIT_START", part.job, part.index, worker, device)
        lock_name = {"single": "gpu", "two_lock": "compute"}.get(policy)
        held = (yield from self.hold(locks[lock_name])) if lock_name else None
        self.record("GPU_START", part.job, part.index, worker, device)
        try:
            if not staged:
                if policy == "two_lock":
                    yield activity.idle()  # synchronize
                    yield activity.idle()  # trim_pool
                mem.allocate(cal.vram_staged_bytes, "gpu_phase")
                staged = True
                activity.begin()
                yield from self.compute("upload")
                activity.end()
            activity.begin()
            try:
                mem.allocate(cal.vram_scratch_bytes, "gpu_phase scratch")
                for stage, event in GPU_SUB_STAGES:
                    t0 = self.env.now
                    yield from self.compute(stage, device)
                    self.record(event, part.job, part.index, worker, device,
                                f"dur_us={round((self.env.now - t0) * 1e6)}")
                mem.release(cal.vram_scratch_bytes)
            finally:
                activity.end()
        except OutOfDeviceMemory as exc:
            part.failed = str(exc)
        if staged:
            mem.release(cal.vram_staged_bytes)
        self.record("GPU_END", part.job, part.index, worker, device)
        if held is not None:
            self.release(locks[lock_name], held, f"{lock_name}_lock")
        if self.s["early_free"] and not part.failed:
            self.budget.release(cal.abc_bytes)
            part.held_bytes -= cal.abc_bytes

    def b_g2_msm(self, part: _Partition, worker: int, device: int):
        self.b_g2_active += 1
        if self.b_g2_active == 1 and self.s["throttle"]:
            self.record("THROTTLE_ON")
            self.cpu.set_paused(synthesis_pools(self.pools), True)
        self.record("B_G2_MSM_START", part.job, part.index, worker, device)
        yield from self.compute("b_g2_msm")
        self.record("B_G2_MSM_END", part.job, part.index, worker, device)
        self.b_g2_active -= 1
        if self.b_g2_active == 0 and self.s["throttle"]:
            self.record("THROTTLE_OFF")
            self.cpu.set_paused(synthesis_pools(self.pools), False)

    def finalize(self, part: _Partition, worker: int, device: int):
        yield part.b_g2
        yield from self.compute("epilogue")
        policy = self.s["dealloc_policy"]
        if policy == "inline":
            yield from self.dealloc(part, worker, device)
        else:
            self.env.process(self.dealloc(part, worker, device, serialized=policy == "serialized"))

    def finalizer(self):
        while True:
            part, worker, device = yield self.finalizer_queue.get()
            yield from self.finalize(part, worker, device)

    def dealloc(self, part: _Partition, worker: int, device: int, serialized: bool = False):
        held = (yield from self.hold(self.dealloc_mutex)) if serialized else None
        self.record("DEALLOC_START", part.job, part.index, worker, device)
        yield from self.compute("dealloc")
        self.record("DEALLOC_END", part.job, part.index, worker, device)
        if held is not None:
            self.release(self.dealloc_mutex, held, "dealloc_mutex")
        yield from self.account(part, worker, device)

    def account(self, part: _Partition, worker: int, device: int, skipped: bool = False):
        self.budget.release(part.held_bytes)
        job = self.jobs[part.job]
        if part.failed and not job.failed:
            job.failed = f"partition {part.index}: {part.failed}"
        job.accounted += 1
        if job.accounted < self.partitions:
            return
        if job.failed:
            self.record("JOB_FAILED", job.seq, detail=f"reason={job.failed.replace(';', ' ')}")
            self.failed_jobs[job.seq] = job.failed
        else:
            self.record("PROOF_DONE", job.seq)
            yield from self.compute("verify")
            self.record("JOB_DONE", job.seq)
        self.job_slots.release(job.slot)

    def run(self) -> SimResult:
        self.env.process(self.submitter())
        for lane in range(self.lanes):
            self.env.process(self.lane(lane))
        workers = 0
        for d in range(self.devices):
            for w in range(self.s["gpu_workers_per_device"]):
                self.env.process(self.gpu_worker(d, w))
                workers += 1
                if self.s["finalize"] == "split":
                    self.env.process(self.finalizer())
        self.env.run()
        holders = {"gpu_lock": self.devices, "compute_lock": self.devices, "mem_mtx": self.devices,
                   "dealloc_mutex": 1}
        return SimResult(
            events=self.events, settings=self.s, end_s=self.env.now, cpu_busy_core_s=self.cpu.busy_core_s,
            pool_busy_core_s=dict(self.cpu.pool_busy_core_s), pool_threads=self.pools, held_s=self.held_s,
            holders=holders, host_peak_bytes=self.budget.peak, host_wait_s=self.budget.full_s,
            vram_peak_bytes=max(m.peak for m in self.memory), failed_jobs=self.failed_jobs,
        )


def simulate(cal: Calibration, settings: Settings, seed: int = 0) -> SimResult:
    """One simulated batch of `settings` with stage work drawn from `cal` (seeded)."""
    if settings["concurrency"] > settings["count"]:
        raise ValueError(f"concurrency ({settings['concurrency']}) must not exceed count ({settings['count']})")
    if settings["cores"] < 1:
        raise ValueError("the model needs the host's cores: the run has no host.cores; give --set cores=N")
    return _Engine(cal, settings, seed).run()
