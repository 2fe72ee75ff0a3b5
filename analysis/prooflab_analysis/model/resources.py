"""The resources of the pipeline model, as SimPy objects.

* `SharedCpu`: the host's cores, shared by every CPU stage running at once. Linux schedules
  threads fairly, so the model does too (processor sharing per runnable thread): a task
  brings `threads` runnable threads, a thread pool caps the threads of all its tasks together
  at its size, every runnable thread runs at min(1, cores / runnable) of a core. Tasks marked
  bandwidth-bound share one memory-bandwidth budget on top: while B cores run such tasks,
  each of them progresses at 1 / (1 + beta * max(0, B - 1)) of its speed — beta is fitted
  from runs at two concurrencies (calibration.py). `cpu_rates` is that rule as a pure
  function, which calibration.py also uses to turn measured intervals back into work.
  SimPy has no processor-sharing resource, so SharedCpu is a SimPy process that re-plans
  the next completion whenever a task starts, ends or a pool is paused (the throttle: a
  paused pool's tasks keep the share of their progress that is not its chunks,
  `throttled_share`).
* `ByteBudget`: host memory of partition buffers; an acquire waits until it fits, and one
  larger than the whole budget is admitted when nothing is held (the engine's ByteBudget).
* `DeviceMemory`: a device's VRAM as the backend accounts it; an allocation that does not
  fit fails (the real allocator throws), it never waits.
* `DeviceActivity`: operations in flight on a device (uploads, GPU phases), with an event for
  "nothing in flight" — what the device-global synchronise and pool trim wait for.
GPU locks, the dealloc mutex and job slots are plain `simpy.Resource`s (engine_sim.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import simpy

# Work left below this (core-seconds, a nanosecond of a core) counts as done: float rounding.
_EPS = 1e-9


@dataclass(frozen=True, order=True)
class CpuTask:
    """What a stage asks of the CPU: its pool (None: threads of its own), the runnable
    threads it can use (an effective parallelism: fractional where calibrated so), and
    whether memory bandwidth limits it."""

    stage: str
    pool: str | None
    threads: float
    bandwidth_bound: bool


def cpu_rates(tasks: Iterable[CpuTask], cores: int, pool_threads: Mapping[str, int], beta: float,
              paused_pools: frozenset[str] = frozenset()) -> list[float]:
    """Core-seconds per second each task progresses at, by the rule in the module doc. A task
    of a paused pool (the throttle) runs at 1 - throttled_share of its threads, outside the
    pool's cap."""
    tasks = list(tasks)
    demand = {}
    for t in tasks:
        if t.pool is not None and t.pool not in paused_pools:
            demand[t.pool] = demand.get(t.pool, 0) + t.threads
    threads = []
    for t in tasks:
        if t.pool is None:
            threads.append(float(t.threads))
        elif t.pool in paused_pools:
            threads.append(t.threads * (1.0 - throttled_share(t, pool_threads[t.pool])))
        else:
            cap = pool_threads[t.pool]
            threads.append(t.threads * min(1.0, cap / demand[t.pool]))
    runnable = sum(threads)
    speed = min(1.0, cores / runnable) if runnable > 0 else 1.0
    bw_cores = sum(n * speed for n, t in zip(threads, tasks) if t.bandwidth_bound)
    efficiency = 1.0 / (1.0 + beta * max(0.0, bw_cores - 1.0))
    return [n * speed * (efficiency if t.bandwidth_bound else 1.0) for n, t in zip(threads, tasks)]


def throttled_share(task: CpuTask, pool_size: int) -> float:
    """The share of a paused pool task's progress that stops: the part of it that keeps the
    whole pool busy. The engine's throttle (core/engine/synthesis_throttle.hpp) sleeps only
    between the row chunks of the products' parallel_for, which occupy all of the lane's
    pool and are nearly all of its work there; the rest of the stage (the a/b/c allocation
    and tail fills on the lane's thread, the short value_kinds pass) runs on. A stage keeping k of the pool's n threads busy on average spends k/n of its
    time in the chunks (capped at 1: a stage counted at the pool's size is all chunks, a
    full pause), so throttled throughout it takes 1 / (1 - k/n) as long."""
    return min(1.0, task.threads / pool_size)


def bandwidth_excess(tasks: Iterable[CpuTask], cores: int, pool_threads: Mapping[str, int],
                     paused_pools: frozenset[str] = frozenset()) -> float:
    """max(0, B - 1): the bandwidth-bound cores beyond the first (beta's argument)."""
    tasks = list(tasks)
    rates = cpu_rates(tasks, cores, pool_threads, 0.0, paused_pools)
    return max(0.0, sum(r for r, t in zip(rates, tasks) if t.bandwidth_bound) - 1.0)


class SharedCpu:
    """Processor sharing of `cores` among the running CpuTasks (see module doc)."""

    def __init__(self, env: simpy.Environment, cores: int, pool_threads: Mapping[str, int], beta: float):
        if cores < 1:
            raise ValueError(f"cores must be >= 1, got {cores}")
        self.env = env
        self.cores = cores
        self.pool_threads = dict(pool_threads)
        self.beta = beta
        self._tasks: dict[int, list] = {}  # id -> [task, remaining work, done event, rate]
        self._next_id = 0
        self._paused: set[str] = set()
        self._last = env.now
        self._wake = env.event()
        self.busy_core_s = 0.0  # integral of the cores in use
        self.pool_busy_core_s: dict[str, float] = {}
        env.process(self._plan())

    def run(self, task: CpuTask, work: float) -> simpy.Event:
        """Starts `work` core-seconds of `task`; the event fires when it is done."""
        self._advance()
        done = self.env.event()
        if work <= _EPS:
            done.succeed()
            return done
        self._tasks[self._next_id] = [task, float(work), done, 0.0]
        self._next_id += 1
        self._replan()
        return done

    def set_paused(self, pools: frozenset[str], paused: bool) -> None:
        """Stops (or restarts) the chunked share of these pools' tasks: the synthesis throttle."""
        self._advance()
        if paused:
            self._paused |= pools
        else:
            self._paused -= pools
        self._replan()

    def running(self) -> int:
        return len(self._tasks)

    def _advance(self) -> None:
        dt = self.env.now - self._last
        self._last = self.env.now
        if dt <= 0:
            return
        for entry in self._tasks.values():
            task, _, _, rate = entry
            entry[1] -= rate * dt
            self.busy_core_s += rate * dt
            key = task.pool or task.stage
            self.pool_busy_core_s[key] = self.pool_busy_core_s.get(key, 0.0) + rate * dt

    def _replan(self) -> None:
        if not self._wake.triggered:
            self._wake.succeed()

    def _plan(self):
        while True:
            self._advance()
            for key in [k for k, e in self._tasks.items() if e[1] <= _EPS]:
                self._tasks.pop(key)[2].succeed()
            entries = list(self._tasks.values())
            rates = cpu_rates([e[0] for e in entries], self.cores, self.pool_threads, self.beta,
                              frozenset(self._paused))
            for e, r in zip(entries, rates):
                e[3] = r
            finishing = [e[1] / r for e, r in zip(entries, rates) if r > 0]
            self._wake = self.env.event()
            if finishing:
                yield self._wake | self.env.timeout(max(0.0, min(finishing)))
            else:
                yield self._wake


class ByteBudget:
    """Host bytes held by partitions (module doc); records the peak held."""

    def __init__(self, env: simpy.Environment, total: int):
        self.env = env
        self.total = total
        self.used = 0
        self.peak = 0
        self._waiting: list[tuple[int, simpy.Event]] = []
        self.full_s = 0.0  # time someone waited for room
        self._last_change = env.now

    def acquire(self, n: int) -> simpy.Event:
        event = self.env.event()
        self._waiting.append((n, event))
        self._admit()
        return event

    def release(self, n: int) -> None:
        self._account_wait()
        self.used -= n
        self._admit()

    def _fits(self, n: int) -> bool:
        return self.used + n <= self.total or self.used == 0

    def _account_wait(self) -> None:
        if self._waiting:
            self.full_s += self.env.now - self._last_change
        self._last_change = self.env.now

    def _admit(self) -> None:
        self._account_wait()
        while self._waiting and self._fits(self._waiting[0][0]):
            n, event = self._waiting.pop(0)
            self.used += n
            self.peak = max(self.peak, self.used)
            event.succeed()


class OutOfDeviceMemory(Exception):
    """An allocation did not fit the device's budget."""


class DeviceMemory:
    """A device's accounted VRAM."""

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self.peak = 0

    def fits(self, n: int) -> bool:
        return self.used + n <= self.budget

    def allocate(self, n: int, stage: str) -> None:
        if not self.fits(n):
            raise OutOfDeviceMemory(f"out of device memory in {stage}: requested {n} bytes with {self.used} "
                                    f"of {self.budget} in use")
        self.used += n
        self.peak = max(self.peak, self.used)

    def release(self, n: int) -> None:
        self.used -= n


class DeviceActivity:
    """Operations in flight on one device and the 'idle' events waiting for none."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.in_flight = 0
        self._idle_waiters: list[simpy.Event] = []

    def begin(self) -> None:
        self.in_flight += 1

    def end(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            for event in self._idle_waiters:
                event.succeed()
            self._idle_waiters.clear()

    def idle(self) -> simpy.Event:
        event = self.env.event()
        if self.in_flight == 0:
            event.succeed()
        else:
            self._idle_waiters.append(event)
        return event
