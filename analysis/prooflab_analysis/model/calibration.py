"""Stage distributions fitted from one measured run (and the bandwidth slowdown from two).

A prooflab run directory gives every stage's interval (timeline.csv; the epilogue from
stages.csv). What a stage measured is its work *under that run's contention*, so the
calibration turns each interval back into the CPU work it did: the integral over the
interval of the rate resources.cpu_rates gives it, with the set of stages that were running
at each moment as the timeline shows them (the same sharing rule the simulation applies
forward). Each stage's per-instance work values are its distribution: replayed as they are
(`fit="empirical"`, the default: StageSampler) or as a lognormal with their log-mean and
log-sd (`fit="lognormal"`). On a real GPU the sub-stages (ntt_h, batch_add, tail_msm) and the
upload are device time: their durations are used as measured.

The sharing rule needs the threads each stage keeps runnable. A stage on a pool can use
all of the pool's threads, but need not: at small sizes the emulated device's NTT and MSMs
gain nothing from a second thread. `fit_threads` takes each pool stage's effective
parallelism from the timeline: the count that makes its per-partition work least spread
(the partitions are the same size, so a wrong count shows as work that depends on what
ran beside it). `threads="table"` charges every pool stage its pool's size instead.

The memory-bandwidth slowdown beta (resources.py) needs two runs at different
concurrencies: with beta = 0 the bandwidth-bound stages' apparent work rises with the excess
bandwidth-bound cores x they ran beside. beta is the value for which the deconvolved
bandwidth-bound work is the same in both runs (a root found by scipy's brentq): the work
is a property of the workload, so what differs between the runs must be the slowdown.
With one run beta is 0 and the calibration says so. beta is fitted first, with every pool
stage at its pool's size; the effective threads then at that beta.

A reference log (its Run from reflog) has no per-partition intervals of every stage; its
CUZK_TIMING values are taken as durations ("duration" stages: the contention of the logged
run stays in them), which the docs mark as not validated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from .. import metrics, schema
from ..loaders import Run
from .. import stats
from ..stats import percentile
from .resources import CpuTask, bandwidth_excess, cpu_rates
from .settings import Settings, settings_from_config
from .stages import BANDWIDTH_BOUND, STAGE_POOL, cpu_task, pool_sizes, synthesis_pools

# The CPU backend's emulated device: bytes per FFT-domain element of a partition's VRAM
# (core/engine/cpu_backend.cpp: a, b, c staged; MSM scratch during the phase).
CPU_BACKEND_STAGED_PER_ELEMENT = 96
CPU_BACKEND_SCRATCH_PER_ELEMENT = 13
CPU_BACKEND_VRAM = 16 << 30  # the emulated device's default budget (kDefaultVram)
FITS = ("empirical", "lognormal")
# "auto": measured where every calibration run's summary.json has cpu_seconds_by_pool, else fitted.
THREADS = ("auto", "measured", "fitted", "table")
# Measured effective threads are clamped to [this, pool size]: a stage that ran keeps some
# thread runnable (a count near 0 would make its work vanish).
MEASURED_THREADS_FLOOR = 0.05
MEASURED_THREADS_PASSES = 8
# Per circuit: a partition's witness time over its prep_msm time (both serial, on the lane's
# thread), for runs recorded before WITNESS_END (witness_share_fallback): the thread CPU
# time of BM_porep_witness/22 over BM_porep_prep_msm/22 (tests/bench/synthesis_bench.cpp),
# 82.7 / 129.2 ms, results/2026-12-02-witness-split/README.md.
WITNESS_PER_PREP_MSM: dict[str, float] = {"porep-like": 0.64}
# Stage names of reference-log CUZK_TIMING values the model uses.
_REFERENCE_STAGES = {"prep_msm": "prep_msm", "b_g2_msm": "b_g2_msm", "ntt_h": "ntt_h", "batch_add": "batch_add",
                     "tail_msm": "tail_msm", "dealloc": "dealloc"}


class CalibrationError(ValueError):
    """The run cannot calibrate the model; the message says what is missing."""


@dataclass
class StageDistribution:
    """One stage's values (core-seconds of work, or seconds for a duration stage)."""

    stage: str
    values: np.ndarray
    duration: bool  # True: seconds as measured; False: CPU work in core-seconds
    fit: str = "empirical"
    batches: np.ndarray | None = None  # per value, the calibration run it came from (None: one run)

    def batch_values(self, batch: int) -> np.ndarray:
        """The values measured in calibration run `batch` (all values when that run has none)."""
        if self.batches is None:
            return self.values
        mine = self.values[self.batches == batch]
        return mine if mine.size else self.values

    def sample(self, rng: np.random.Generator) -> float:
        """One independent draw (with replacement)."""
        if self.values.size == 0:
            return 0.0
        if self.fit == "lognormal":
            logs = np.log(np.maximum(self.values, 1e-9))
            return float(rng.lognormal(logs.mean(), logs.std()))
        return float(self.values[rng.integers(self.values.size)])

    def describe(self) -> dict[str, Any]:
        return {"stage": self.stage, "kind": "duration_s" if self.duration else "work_core_s", "n": int(self.values.size),
                "mean": stats.mean(self.values, f"{self.stage} values"),
                "p50": percentile(self.values, 50), "p95": percentile(self.values, 95)}


@dataclass
class Calibration:
    """Everything the simulation draws on, fitted from a run."""

    run_id: str
    settings: Settings  # the calibration run's own knobs
    stages: dict[str, StageDistribution]
    beta: float
    gpu_on_cpu: bool  # the CPU backend: the GPU sub-stages are work on the host's cores
    host_bytes: int
    abc_bytes: int
    vram_staged_bytes: int
    vram_scratch_bytes: int
    vram_budget_bytes: int
    kernel_share: float  # of the GPU sub-stages' time, the share that is kernel time
    peak_rss_bytes: float  # of the calibration run; NaN when not recorded
    notes: list[str] = field(default_factory=list)
    runs: int = 1  # calibration runs pooled (StageDistribution.batches numbers them)
    # What two_lock admits a pre-staging on: the backend's estimate of a partition's device memory
    # (summary.json partition_vram_bytes), checked against the memory in use as the engine checks
    # vram_used + partition_vram_bytes; 0 = staged + scratch (runs that predate the record).
    vram_admit_bytes: int = 0
    threads: dict[str, float] = field(default_factory=dict)  # pool stages' effective parallelism

    def sampler(self, rng: np.random.Generator, simulation: int) -> "StageSampler":
        """The draws of simulation number `simulation` (StageSampler)."""
        return StageSampler(self, rng, simulation % self.runs)

    def is_duration(self, stage: str) -> bool:
        dist = self.stages.get(stage)
        return dist is not None and dist.duration

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([d.describe() for d in self.stages.values()])


class StageSampler:
    """The stage values one simulation draws. `empirical`: simulation k replays calibration
    run k mod runs — each stage's values of that run in a random order, without replacement,
    reshuffled when a setting needs more instances than the run measured. So a simulated
    batch of the calibration's own size does exactly the work the measured batch did,
    shuffled: with a few heavy-tailed values (a stage preempted by another tenant) draws
    with replacement would give each simulation a different total, and the mean of a few
    simulations would miss the measured one by the luck of the draw. `lognormal`:
    independent draws from the fitted law."""

    def __init__(self, cal: "Calibration", rng: np.random.Generator, batch: int):
        self.cal, self.rng, self.batch = cal, rng, batch
        self._queues: dict[str, list[float]] = {}

    def draw(self, stage: str) -> float:
        dist = self.cal.stages.get(stage)
        if dist is None or dist.values.size == 0:
            return 0.0
        if dist.fit == "lognormal":
            return dist.sample(self.rng)
        queue = self._queues.get(stage)
        if not queue:
            queue = self._queues[stage] = [float(v) for v in self.rng.permutation(dist.batch_values(self.batch))]
        return queue.pop()


# ------------------------------------------------------------ measured intervals

@dataclass(frozen=True)
class _Interval:
    start_s: float
    end_s: float
    stage: str
    device: int
    lane: int = 0  # synthesis: the lane (and so the pool) it ran on


def _assign_lanes(spans: pd.DataFrame, lanes: int) -> dict[tuple[int, int], int]:
    """(job, partition) -> synthesis lane. The timeline does not name the lane; a lane does
    one partition at a time (SYNTH_START..PREP_MSM_END), so partitions that overlap ran on
    different lanes: each span goes to the lane free longest (the lane that ended
    earliest), which is an assignment the timeline allows whenever one exists."""
    free_at = [-np.inf] * max(1, lanes)
    out = {}
    for r in spans.sort_values("start_us", kind="stable").itertuples():
        lane = int(np.argmin(free_at))
        free_at[lane] = r.end_us
        out[(int(r.job), int(r.partition))] = lane
    return out


def _pairs(tl: pd.DataFrame, start: str, end: str) -> pd.DataFrame:
    return metrics.pair_intervals(tl, start, end)


def _synthesis_parts(tl: pd.DataFrame, witness_share: float | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Synthesis as its two parts (stages.STAGE_POOL): the witness SYNTH_START..WITNESS_END
    and the sparse products WITNESS_END..SYNTH_END. A partition without WITNESS_END (a run
    before the engine recorded it) is split at `witness_share` of its length; with no share
    all of it is the products, the rule before the split was known."""
    synth = _pairs(tl, "SYNTH_START", "SYNTH_END")
    if synth.empty:
        return synth, synth
    ends = tl[tl["event"] == "WITNESS_END"]
    witness_end = dict(zip(zip(ends["job"].astype(int), ends["partition"].astype(int)), ends["t_us"].astype(float)))
    keys = list(zip(synth["job"].astype(int), synth["partition"].astype(int)))
    start, end = synth["start_us"].to_numpy(dtype=float), synth["end_us"].to_numpy(dtype=float)
    share = 0.0 if witness_share is None else witness_share
    split = np.array([witness_end.get(k, np.nan) for k in keys])
    split = np.where(np.isnan(split), start + share * (end - start), np.clip(split, start, end))
    witness = synth.assign(end_us=split)
    products = synth.assign(start_us=split)
    return witness[witness["end_us"] > witness["start_us"]], products


def witness_share_fallback(run: Run) -> tuple[float | None, str]:
    """For a run whose timeline lacks WITNESS_END (an engine before it was recorded): the
    witness's share of each synthesis interval, and a note saying what was assumed. The
    witness and prep_msm both run serially on the lane's thread over the same variables, so
    the circuit's witness time per prep_msm time (WITNESS_PER_PREP_MSM, measured by an
    engine that records both) carries from host to host better than either time: the share is
    that ratio x the run's median prep_msm / its median synthesis, at most 1. A circuit not
    in the table leaves synthesis whole (all of it paused by the throttle, the rule before
    the split). (None, "") when every synthesis has its WITNESS_END."""
    tl = run.timeline
    synth = _pairs(tl, "SYNTH_START", "SYNTH_END")
    marked = tl[tl["event"] == "WITNESS_END"]
    if synth.empty or len(marked) >= len(synth):
        return None, ""
    circuit = str(run.config.get("circuit", ""))
    ratio = WITNESS_PER_PREP_MSM.get(circuit)
    prep = _pairs(tl, "PREP_MSM_START", "PREP_MSM_END")
    if ratio is None or prep.empty:
        return None, (f"synthesis split unknown (no WITNESS_END; no witness/prep_msm ratio for circuit {circuit!r}): "
                      "all of it taken as the sparse products the throttle pauses")
    share = float(min(1.0, ratio * stats.median(prep["dur_us"], "prep_msm us") / stats.median(synth["dur_us"], "synthesis us")))
    return share, (f"synthesis split estimated (no WITNESS_END): the witness is {share:.0%} of each synthesis "
                   f"({circuit}: witness = {ratio:g} x prep_msm, median prep_msm {stats.median(prep['dur_us']) / 1e3:.3g} ms, "
                   f"synthesis {stats.median(synth['dur_us']) / 1e3:.3g} ms)")


def measured_intervals(run: Run, gpu_on_cpu: bool, lanes: int = 1, witness_share: float | None = None
                       ) -> tuple[list[_Interval], list[tuple[float, float]], dict]:
    """The CPU-stage intervals of a prooflab run (synthesis with its lane of `lanes`, in its
    two parts: _synthesis_parts, `witness_share` for partitions without WITNESS_END), the
    throttle's on-periods, and the device-time durations (seconds) of a real GPU's stages."""
    tl = run.timeline
    out: list[_Interval] = []
    device_time: dict[str, list[float]] = {}
    lane_of = _assign_lanes(_pairs(tl, "SYNTH_START", "PREP_MSM_END"), lanes)

    def add(frame: pd.DataFrame, stage: str) -> None:
        for r in frame.itertuples():
            dev = 0 if pd.isna(r.device) else int(r.device)
            lane = lane_of.get((int(r.job), int(r.partition)), 0) if stage in ("witness", "synth") else 0
            out.append(_Interval(r.start_us / 1e6, r.end_us / 1e6, stage, dev, lane))

    witness, products = _synthesis_parts(tl, witness_share)
    add(witness, "witness")
    add(products, "synth")
    for stage, (start, end) in (("prep_msm", ("PREP_MSM_START", "PREP_MSM_END")),
                                ("b_g2_msm", ("B_G2_MSM_START", "B_G2_MSM_END")),
                                ("dealloc", ("DEALLOC_START", "DEALLOC_END"))):
        add(_pairs(tl, start, end), stage)
    verify = metrics.pair_intervals(tl, "PROOF_DONE", "JOB_DONE", keys=("job",))
    add(verify, "verify")

    gpu = _pairs(tl, "GPU_START", "GPU_END").set_index(["job", "partition"])
    sub = {}
    for stage, event in (("ntt_h", "NTT_H"), ("batch_add", "BATCH_ADD"), ("tail_msm", "TAIL_MSM")):
        rows = tl[tl["event"] == event]
        dur = schema.detail_value(rows, "dur_us").astype(float)
        sub[stage] = pd.DataFrame({"job": rows["job"].to_numpy(), "partition": rows["partition"].to_numpy(),
                                   "end_us": rows["t_us"].to_numpy(dtype=float), "dur_us": dur.to_numpy()}
                                  ).set_index(["job", "partition"])
    stages = run.stages.set_index(["job", "partition"]) if not run.stages.empty else None
    for key, g in gpu.iterrows():
        dev = 0 if pd.isna(g["device"]) else int(g["device"])
        if any(key not in sub[s].index for s in sub):
            continue
        ntt = sub["ntt_h"].loc[key]
        ntt_start = float(ntt["end_us"] - ntt["dur_us"])
        upload_start = float(g["start_us"])
        if stages is not None and key in stages.index:
            pre = stages.loc[key].get("pre_destructor_us")
            if pre is not None and not pd.isna(pre):
                upload_start += float(pre)
        upload = (upload_start / 1e6, max(upload_start, ntt_start) / 1e6)
        if gpu_on_cpu:
            out.append(_Interval(upload[0], upload[1], "upload", dev))
        else:
            device_time.setdefault("upload", []).append(upload[1] - upload[0])
        for stage, frame in sub.items():
            row = frame.loc[key]
            s, e = float(row["end_us"] - row["dur_us"]) / 1e6, float(row["end_us"]) / 1e6
            if gpu_on_cpu:
                out.append(_Interval(s, e, stage, dev))
            else:
                device_time.setdefault(stage, []).append(e - s)
    prestage = _pairs(tl, "PRESTAGE_START", "PRESTAGE_END")
    if not prestage.empty:
        ends = tl[tl["event"] == "PRESTAGE_END"]
        ok = set(zip(ends.loc[schema.detail_value(ends, "prestage") == "ok", "job"],
                     ends.loc[schema.detail_value(ends, "prestage") == "ok", "partition"]))
        add(prestage[[(j, p) in ok for j, p in zip(prestage["job"], prestage["partition"])]], "upload")
    if stages is not None and "epilogue_us" in run.stages:
        b_g2_end = _pairs(tl, "B_G2_MSM_START", "B_G2_MSM_END").set_index(["job", "partition"])["end_us"]
        for key, row in stages.iterrows():
            if row["status"] != "ok" or pd.isna(row["epilogue_us"]) or key not in gpu.index or key not in b_g2_end.index:
                continue
            start = max(float(gpu.loc[key, "end_us"]), float(b_g2_end.loc[key])) / 1e6
            dev = 0 if pd.isna(row["device"]) else int(row["device"])
            out.append(_Interval(start, start + float(row["epilogue_us"]) / 1e6, "epilogue", dev))
    on = tl.loc[tl["event"] == "THROTTLE_ON", "t_us"].to_numpy(dtype=float) / 1e6
    off = tl.loc[tl["event"] == "THROTTLE_OFF", "t_us"].to_numpy(dtype=float) / 1e6
    throttle = list(zip(np.sort(on), np.sort(off)))
    return out, throttle, device_time


def deconvolve(intervals: list[_Interval], throttle: list[tuple[float, float]], cores: int,
               pools: dict[str, int], beta: float, task_of) -> tuple[np.ndarray, np.ndarray]:
    """Work (core-seconds) of each interval under the sharing rule, and the mean bandwidth
    excess each one ran beside (weighted by its progress). A sweep over the intervals'
    boundaries; the rates of a set of running tasks depend only on which kinds of task run,
    so they are computed once per such set. `task_of(interval)` is its CpuTask."""
    tasks: list[CpuTask] = [task_of(iv) for iv in intervals]
    # (time, +1 start / -1 end / 0 throttle change, index or throttle delta)
    points = [(iv.start_s, 1, i) for i, iv in enumerate(intervals)] + [(iv.end_s, -1, i) for i, iv in enumerate(intervals)]
    points += [(on, 0, 1) for on, _ in throttle] + [(off, 0, -1) for _, off in throttle]
    points.sort(key=lambda p: (p[0], -abs(p[1])))
    work = np.zeros(len(intervals))
    excess = np.zeros(len(intervals))
    active: set[int] = set()
    throttled = 0
    cache: dict[tuple, tuple[dict[CpuTask, float], float]] = {}
    last = points[0][0] if points else 0.0
    for t, kind, value in points:
        dt = t - last
        if dt > 0 and active:
            key = (tuple(sorted(tasks[i] for i in active)), throttled > 0)
            if key not in cache:
                kinds = list(key[0])
                paused = synthesis_pools(pools) if key[1] else frozenset()
                rates = cpu_rates(kinds, cores, pools, beta, paused)
                cache[key] = (dict(zip(kinds, rates)), bandwidth_excess(kinds, cores, pools, paused))
            rate_of, x = cache[key]
            for i in active:
                r = rate_of[tasks[i]]
                work[i] += r * dt
                excess[i] += r * dt * x
        last = t
        if kind == 1:
            active.add(value)
        elif kind == -1:
            active.discard(value)
        else:
            throttled += value
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_excess = np.where(work > 0, excess / work, 0.0)
    return work, mean_excess


# --------------------------------------------------------------------- calibrate

class _MeasuredRun:
    """A run's stage intervals, read once, deconvolved for any beta."""

    def __init__(self, run: Run, settings: Settings, gpu_on_cpu: bool):
        self.witness_share, self.witness_note = witness_share_fallback(run)
        self.intervals, self.throttle, device_time = measured_intervals(run, gpu_on_cpu, settings["partition_workers"],
                                                                        self.witness_share)
        if not self.intervals:
            raise CalibrationError(f"{run.run_id}: the timeline has no stage intervals (SYNTH_START/END, GPU_START/END, ...)")
        self.device_time = {k: np.array(v) for k, v in device_time.items()}
        self.cores = settings["cores"]
        self.pools = pool_sizes(settings, settings["devices"])
        self.run_id = run.run_id
        self.cpu_seconds = run.summary.get("cpu_seconds_by_pool") if isinstance(run.summary, dict) else None

    def work(self, beta: float, threads: dict[str, float] | None = None
             ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
        """Per stage: the work values, and the mean bandwidth excess they ran beside;
        `threads`: pool stages' effective parallelism (default: their pool's size)."""
        work, excess = deconvolve(self.intervals, self.throttle, self.cores, self.pools, beta,
                                  lambda iv: cpu_task(iv.stage, self.pools, iv.device, iv.lane, threads))
        by_stage: dict[str, list[float]] = {}
        excess_by_stage: dict[str, list[float]] = {}
        for iv, w, x in zip(self.intervals, work, excess):
            by_stage.setdefault(iv.stage, []).append(w)
            excess_by_stage.setdefault(iv.stage, []).append(x)
        return {k: np.array(v) for k, v in by_stage.items()}, {k: float(np.mean(v)) for k, v in excess_by_stage.items()}


def _bandwidth_work(works: dict[str, np.ndarray], stages: list[str]) -> float:
    return sum(float(np.mean(works[s])) for s in stages)


def fit_beta(first: _MeasuredRun, second: _MeasuredRun) -> tuple[float, str]:
    """beta such that the bandwidth-bound stages did the same work in both runs (module
    doc): the root of W_hi(beta) / W_lo(beta) - 1, bracketed from the closed form at
    beta = 0; (beta, how it was found)."""
    (w1, x1), (w2, x2) = first.work(0.0), second.work(0.0)
    stages = sorted(s for s in BANDWIDTH_BOUND if s in w1 and s in w2)
    if not stages:
        return 0.0, "beta = 0: the two runs share no bandwidth-bound stage"

    def excess(work: dict, x: dict) -> float:
        total = _bandwidth_work(work, stages)
        return sum(float(np.mean(work[s])) * x[s] for s in stages) / total if total > 0 else 0.0

    e1, e2 = excess(w1, x1), excess(w2, x2)
    lo, hi = (first, second) if e1 <= e2 else (second, first)
    x_lo, x_hi = sorted((e1, e2))
    if x_hi - x_lo < 0.05:
        return 0.0, f"beta = 0: the two runs ran at the same bandwidth excess ({x_lo:.2f}, {x_hi:.2f})"

    def gap(beta: float) -> float:
        return _bandwidth_work(hi.work(beta)[0], stages) / _bandwidth_work(lo.work(beta)[0], stages) - 1.0

    rho = 1.0 + gap(0.0)
    if rho <= 1.0:
        return 0.0, f"beta = 0: bandwidth-bound work did not grow with bandwidth excess (ratio {rho:.3f} at " \
                    f"{x_lo:.2f} -> {x_hi:.2f})"
    upper = 1.0
    while gap(upper) > 0 and upper < 64:
        upper *= 2
    if gap(upper) > 0:
        return 0.0, f"beta = 0: no beta up to {upper:g} explains the work ratio {rho:.3f}"
    beta = float(optimize.brentq(gap, 0.0, upper, xtol=1e-3))
    return beta, f"beta = {beta:.3f}: bandwidth-bound work ratio {rho:.3f} between bandwidth excess {x_lo:.2f} and {x_hi:.2f}"


def _log_spread(values: np.ndarray) -> float:
    """Median absolute deviation of log(values): a spread that a few preempted instances
    do not dominate."""
    logs = np.log(np.maximum(values, 1e-12))
    return stats.median(np.abs(logs - stats.median(logs)))


def fit_threads(runs: list[_MeasuredRun], beta: float, grid_points: int = 9) -> tuple[dict[str, float], str]:
    """Each pool stage's effective parallelism, from the timeline alone (module doc): the
    partitions of a run are the same circuit size, so a stage's work should be the same
    for each of them; with the wrong thread count the deconvolved work of an instance
    depends on what ran beside it (a stage charged 2 threads that uses 1 comes out with
    twice the work when alone as when it shared the cores). For each stage whose pool has
    more than one thread, the count in [1, pool] (a grid of `grid_points`) that makes its
    work values least spread (_log_spread, averaged over `runs`), one stage at a time,
    two passes. (threads per stage, a note saying them)."""
    first = runs[0]
    stages = sorted({iv.stage for iv in first.intervals
                     if STAGE_POOL.get(iv.stage) and cpu_task(iv.stage, first.pools, iv.device, iv.lane).threads > 1})
    threads: dict[str, float] = {}
    for _ in range(2):
        for stage in stages:
            pool = cpu_task(stage, first.pools).threads
            spreads = []
            for k in np.linspace(1.0, pool, grid_points):
                trial = {**threads, stage: float(k)}
                spreads.append((float(np.mean([_log_spread(m.work(beta, trial)[0][stage]) for m in runs])), float(k)))
            threads[stage] = min(spreads)[1]
    note = "effective threads (fitted from the timeline): " + (", ".join(
        f"{s} {k:.3g} of {cpu_task(s, first.pools).threads:g}" for s, k in threads.items()) or "no pool stage")
    return threads, note


def _pool_cpu_seconds(m: _MeasuredRun, kind: str) -> float:
    """CPU seconds of the run's pools of `kind` (synthesis: synthesis0, synthesis1, ...) from
    summary.json's cpu_seconds_by_pool."""
    pools = [p for p in m.pools if p == kind or (p.startswith(kind) and p[len(kind):].isdigit())]
    absent = [p for p in pools if p not in m.cpu_seconds]
    if absent:
        raise CalibrationError(f"threads=measured: {m.run_id}: summary.json cpu_seconds_by_pool has no "
                               f"{', '.join(absent)} (has {', '.join(sorted(m.cpu_seconds)) or 'nothing'})")
    values = [m.cpu_seconds[p] for p in pools]
    bad = [v for v in values if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0]
    if bad:
        raise CalibrationError(f"threads=measured: {m.run_id}: summary.json cpu_seconds_by_pool: {bad[0]!r} is not "
                               "a number of seconds >= 0")
    return float(sum(values))


def measure_threads(runs: list[_MeasuredRun], beta: float) -> tuple[dict[str, float], str]:
    """Each pool stage's effective threads from the per-pool CPU time the engine recorded
    (summary.json cpu_seconds_by_pool). CPU time is work: the count k of a pool's stages
    (synthesis's products on the synthesis<i> pools, the GPU sub-stages on device<d> with
    the CPU backend, b_g2_msm on groth16; stages sharing a pool share its k) is the one under
    which the sharing rule gives those stages' instances, over `runs`, the work the pool's
    threads did: sum of deconvolved work = sum of CPU seconds (a root by brentq; the work
    grows with k). Where the stages ran on free cores that is CPU time / summed wall time.
    Clamped to [MEASURED_THREADS_FLOOR, pool size]; repeated over the pools until no count
    moves by 1e-3 (at most MEASURED_THREADS_PASSES), since each pool's count changes the
    contention the others ran under. (threads, a note)."""
    missing = [m.run_id for m in runs if not isinstance(m.cpu_seconds, dict)]
    if missing:
        raise CalibrationError(f"threads=measured: {', '.join(missing)} has no summary.json cpu_seconds_by_pool "
                               "(a run before the engine recorded it); use threads=fitted")
    first = runs[0]
    groups: dict[str, list[str]] = {}  # pool kind -> its stages that ran
    for stage, kind in STAGE_POOL.items():
        if kind is not None and any(iv.stage == stage for m in runs for iv in m.intervals):
            groups.setdefault(kind, []).append(stage)
    cpu = {kind: sum(_pool_cpu_seconds(m, kind) for m in runs) for kind in groups}
    size = {kind: max(cpu_task(s, first.pools).threads for s in stages) for kind, stages in groups.items()}
    threads: dict[str, float] = {}

    def work(kind: str, k: float) -> float:
        trial = {**threads, **{s: k for s in groups[kind]}}
        return sum(float(m.work(beta, trial)[0].get(s, np.zeros(0)).sum()) for m in runs for s in groups[kind])

    for _ in range(MEASURED_THREADS_PASSES):
        before = dict(threads)
        for kind, stages in groups.items():
            lo, hi = MEASURED_THREADS_FLOOR, size[kind]
            if work(kind, hi) <= cpu[kind]:
                k = hi
            elif work(kind, lo) >= cpu[kind]:
                k = lo
            else:
                k = float(optimize.brentq(lambda x: work(kind, x) - cpu[kind], lo, hi, xtol=1e-4))
            threads.update({s: k for s in stages})
        if before and max(abs(threads[s] - before[s]) for s in threads) < 1e-3:
            break
    wall = {kind: sum(iv.end_s - iv.start_s for m in runs for iv in m.intervals if iv.stage in stages)
            for kind, stages in groups.items()}
    note = "effective threads (measured: the pools' CPU time as the stages' work): " + (", ".join(
        f"{'/'.join(stages)} {threads[stages[0]]:.3g} of {size[kind]:g} ({cpu[kind]:.3g} CPU s in {wall[kind]:.3g} s)"
        for kind, stages in groups.items()) or "no pool stage")
    return threads, note


def _settings_of(run: Run, cores: int | None) -> Settings:
    host = run.meta.get("host") if isinstance(run.meta.get("host"), dict) else {}
    return settings_from_config(run.config, cores or host.get("cores"))


def _has_cpu_counter(run: Run) -> bool:
    return isinstance(run.summary, dict) and isinstance(run.summary.get("cpu_seconds_by_pool"), dict)


def resolve_threads(threads: str, runs: list[Run]) -> tuple[str, str]:
    """`auto` as `measured` where every run has the per-pool CPU counter, else `fitted`;
    (the mode, a note when auto chose fitted)."""
    if threads != "auto":
        return threads, ""
    if all(_has_cpu_counter(r) for r in runs):
        return "measured", ""
    return "fitted", "effective threads fitted: the run records no CPU time per pool (summary.json cpu_seconds_by_pool)"


def runs_threads(runs: list[Run], beta: float, threads: str, cores: int | None = None) -> tuple[dict[str, float], str]:
    """The effective threads of several runs of one setting, `measured` (their CPU time and
    wall time summed: measure_threads) or `fitted` (their spreads averaged: fit_threads)."""
    measured = [_MeasuredRun(r, _settings_of(r, cores), str(r.config.get("backend", "cpu")) == "cpu") for r in runs]
    return measure_threads(measured, beta) if threads == "measured" else fit_threads(measured, beta)


def calibrate(run: Run, bandwidth_run: Run | None = None, *, fit: str = "empirical", cores: int | None = None,
              beta: float | None = None, threads: str | dict[str, float] = "auto") -> Calibration:
    """The model of `run`; `bandwidth_run` (the same workload at another concurrency) fits
    the memory-bandwidth slowdown, or `beta` gives it. `cores` overrides the host's
    (required for a log). `threads`: the pool stages' effective parallelism — "measured"
    from the run's per-pool CPU time (measure_threads), "fitted" from its timeline
    (fit_threads, after beta), "auto" (measured where recorded, else fitted), "table" (each
    its pool's size), or given."""
    if fit not in FITS:
        raise CalibrationError(f"fit must be one of {FITS}, got {fit!r}")
    if isinstance(threads, str) and threads not in THREADS:
        raise CalibrationError(f"threads must be one of {THREADS} or a mapping, got {threads!r}")
    settings = _settings_of(run, cores)
    if settings["cores"] < 1:
        raise CalibrationError(f"{run.run_id}: the run does not record the host's cores; give --set cores=N")
    notes: list[str] = []
    if run.meta.get("source") == "reference_log":
        stages = _reference_stages(run, fit, notes)
        gpu_on_cpu, beta, threads = False, 0.0, {}
        if settings["concurrency"] > settings["count"]:
            notes.append(f"reference log: the bench's concurrency {settings['concurrency']} exceeds its "
                         f"{settings['count']} proofs; taken as {settings['count']}")
            settings["concurrency"] = settings["count"]
        notes.append("reference log: stage durations as logged (their run's contention included); not validated")
    else:
        gpu_on_cpu = str(run.config.get("backend", "cpu")) == "cpu"
        measured = _MeasuredRun(run, settings, gpu_on_cpu)
        if beta is not None:
            notes.append(f"beta = {beta:.3f} given")
        elif bandwidth_run is not None:
            beta, how = fit_beta(measured, _MeasuredRun(bandwidth_run, _settings_of(bandwidth_run, cores), gpu_on_cpu))
            notes.append(how + f" (runs {run.run_id}, {bandwidth_run.run_id})")
        else:
            beta = 0.0
            notes.append("beta = 0: one run given (the bandwidth slowdown needs a second at another concurrency)")
        if measured.witness_note:
            notes.append(measured.witness_note)
        if isinstance(threads, str):
            threads, why = resolve_threads(threads, [run])
            if why:
                notes.append(why)
        if threads == "measured":
            threads, how = measure_threads([measured], beta)
            notes.append(how)
        elif threads == "fitted":
            threads, how = fit_threads([measured], beta)
            notes.append(how)
        elif threads == "table":
            threads = {}
            notes.append("effective threads: every pool stage its pool's size (threads=table)")
        else:
            notes.append("effective threads given: " + ", ".join(f"{s} {k:.3g}" for s, k in threads.items()))
        work, _ = measured.work(beta, threads)
        device_time = measured.device_time
        stages = {s: StageDistribution(s, v, False, fit) for s, v in work.items()}
        stages.update({s: StageDistribution(s, v, True, fit) for s, v in device_time.items()})
    host_bytes, abc, staged, scratch, vram_budget = _memory(run, gpu_on_cpu, notes)
    admit = _vram_admit_bytes(run, staged + scratch, notes)
    rss = metrics.peak_rss(run)[0]
    return Calibration(run_id=run.run_id, settings=settings, stages=stages, beta=beta, gpu_on_cpu=gpu_on_cpu,
                       host_bytes=host_bytes, abc_bytes=abc, vram_staged_bytes=staged, vram_scratch_bytes=scratch,
                       vram_budget_bytes=vram_budget, vram_admit_bytes=admit, kernel_share=_kernel_share(run), peak_rss_bytes=rss, notes=notes,
                       threads=dict(threads))


def _reference_stages(run: Run, fit: str, notes: list[str]) -> dict[str, StageDistribution]:
    long = metrics.run_stage_long(run)
    out = {}
    synth = _pairs(run.timeline, "SYNTH_START", "SYNTH_END")
    if not synth.empty:
        out["synth"] = StageDistribution("synth", synth["dur_us"].to_numpy(dtype=float) / 1e6, True, fit)
    for key, stage in _REFERENCE_STAGES.items():
        values = long.loc[long["stage"] == key, "value_us"].to_numpy(dtype=float) / 1e6
        if values.size:
            out[stage] = StageDistribution(stage, values, True, fit)
    missing = [s for s in ("synth", "ntt_h", "b_g2_msm") if s not in out]
    if missing:
        raise CalibrationError(f"{run.run_id}: the log has no {', '.join(missing)} timings (TIMELINE SYNTH_START/END, "
                               "CUZK_TIMING ntt_msm_h_ms / b_g2_msm_ms)")
    return out


def _memory(run: Run, gpu_on_cpu: bool, notes: list[str]) -> tuple[int, int, int, int, int]:
    """host bytes per partition, its a/b/c bytes, VRAM staged and scratch, VRAM budget."""
    st = run.stages
    ok = st[st["status"] == "ok"] if not st.empty else st
    host = int(stats.median(ok["host_bytes"].dropna(), "host_bytes")) if not ok.empty and ok["host_bytes"].notna().any() else 0
    vram_limit = run.config.get("vram_limit")
    if gpu_on_cpu and not ok.empty and ok["vram_peak_bytes"].notna().any():
        # The smallest peak is a partition alone on the device: (96 + 13) bytes per element.
        domain = int(ok["vram_peak_bytes"].dropna().min()) // (CPU_BACKEND_STAGED_PER_ELEMENT + CPU_BACKEND_SCRATCH_PER_ELEMENT)
        staged, scratch = domain * CPU_BACKEND_STAGED_PER_ELEMENT, domain * CPU_BACKEND_SCRATCH_PER_ELEMENT
        budget = int(vram_limit) if vram_limit else CPU_BACKEND_VRAM
        return host, staged, staged, scratch, budget
    gpu = run.meta.get("gpu") if isinstance(run.meta.get("gpu"), dict) else {}
    budget = int(vram_limit) if vram_limit else int(gpu.get("mem_bytes") or 0)
    peak = int(ok["vram_peak_bytes"].dropna().min()) if not ok.empty and ok["vram_peak_bytes"].notna().any() else 0
    # What stage() uploads (a, b, c: stages.csv abc_bytes) stays from staging to the phase's end;
    # the rest of the partition's peak is the GPU phase's scratch.
    abc = int(stats.median(ok["abc_bytes"].dropna(), "abc_bytes")) if "abc_bytes" in ok and ok["abc_bytes"].notna().any() else 0
    staged = min(abc, peak)
    if staged:
        notes.append(f"VRAM: staged = a, b, c ({staged / 2**30:.2f} GiB, stages.csv abc_bytes), scratch = the rest of "
                     f"the smallest partition peak ({(peak - staged) / 2**30:.2f} GiB)")
    else:
        notes.append("VRAM: a partition's whole peak is charged at the GPU phase (no stages.csv abc_bytes); "
                     "early_free's a/b/c bytes unknown (taken as 0)")
    if not budget:
        budget = 1 << 62
        notes.append("VRAM budget unknown (no vram_limit, no gpu.mem_bytes): unbounded unless --set vram_limit")
    if not host:
        notes.append("host bytes per partition unknown (no stages.csv host_bytes): peak host memory not predicted")
    return host, abc, staged, peak - staged, budget


def _vram_admit_bytes(run: Run, staged_and_scratch: int, notes: list[str]) -> int:
    """two_lock's admission size: summary.json partition_vram_bytes (the backend's estimate, what
    the engine admits on), else a partition's staged + scratch bytes."""
    recorded = run.summary.get("partition_vram_bytes") if isinstance(run.summary, dict) else None
    if isinstance(recorded, (int, float)) and recorded > 0:
        return int(recorded)
    if run.config.get("lock_policy") == "two_lock" or staged_and_scratch:
        notes.append("two_lock admission: no summary.json partition_vram_bytes (runs before it was recorded): "
                     "admits on a partition's measured staged + scratch bytes, which can be below the backend's "
                     "estimate, so the model may pre-stage where the engine skips (skip_vram)")
    return staged_and_scratch


def _kernel_share(run: Run) -> float:
    """CUPTI kernel time over the GPU sub-stages' time; 1 without CUPTI (the sub-stages are
    taken as kernel time, which on the CPU backend is the emulated device computing)."""
    kernels = run.cupti[run.cupti["kind"] == "KERNEL"] if not run.cupti.empty else run.cupti
    if kernels.empty:
        return 1.0
    busy = stats.union_us(kernels["start_us"], kernels["end_us"])
    sub = run.timeline[run.timeline["event"].isin(["NTT_H", "BATCH_ADD", "TAIL_MSM"])]
    total = schema.detail_value(sub, "dur_us").astype(float).sum()
    return float(min(1.0, busy / total)) if total > 0 else 1.0


def pooled(calibrations: list[Calibration]) -> Calibration:
    """Repetitions of one setting as one calibration: each stage's values of all of them,
    numbered by run (StageSampler replays one run per simulation); the first's memory
    figures, beta, effective threads and knobs."""
    first = calibrations[0]
    stages = {}
    for name, dist in first.stages.items():
        parts = [(k, c.stages[name].values) for k, c in enumerate(calibrations) if name in c.stages]
        stages[name] = StageDistribution(name, np.concatenate([v for _, v in parts]), dist.duration, dist.fit,
                                         np.concatenate([np.full(v.size, k) for k, v in parts]))
    notes = first.notes + [f"pooled over {len(calibrations)} runs: {', '.join(c.run_id for c in calibrations)}"]
    return Calibration(**{**first.__dict__, "stages": stages, "notes": notes, "runs": len(calibrations),
                          "run_id": " + ".join(c.run_id for c in calibrations)})
