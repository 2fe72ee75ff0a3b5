"""Generate cuzk daemon logs (and benchmark stdout) with the real format strings, plus the
ground truth they were generated from, so tests compute every expected figure themselves.

The format strings follow the public sources (docs/reference-logs.md names each one);
the schedule is simulated here: jobs are submitted, their partitions synthesised, queued
and taken by the GPU workers (several per device, several devices) in (job, partition)
order. Options add what real logs contain: tracing noise (optionally ANSI-coloured), both
interleavings of stderr writes inside one line, a failed partition, a killed daemon with a
cut last line, monolithic (single GPU call) jobs, the Phase 10 prestage lines.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

CUDA_KEYS = ("prep_msm_ms", "pre_lock_cpu_ms", "mutex_wait_ms", "ntt_msm_h_ms", "barrier_wait_ms", "batch_add_ms",
             "tail_msm_ms", "gpu_total_ms", "mutex_held_ms", "total_start_fn_ms", "b_g2_msm_ms", "async_dealloc_ms")
NTT_H_KEYS = ("d_b_alloc", "ntt_kernels", "coset_intt_sync", "msm_init", "msm_invoke", "msm_dtor", "total")


@dataclass
class Partition:
    job_id: str
    partition: int | None  # None: a monolithic job
    device: int
    worker: int
    synth_start: int
    synth_ms: int
    queue: int
    pickup: int = 0
    start: int = 0
    gpu_ms: int = 0  # the engine's gpu_duration, printed as gpu_ms
    end: int = 0  # GPU_END: the span runs a little longer than gpu_duration
    ended: bool = True  # its GPU_END is in the log
    failed: bool = False


@dataclass
class RunTruth:
    jobs: list[str]
    kinds: dict[str, str]
    partitions: list[Partition]
    cuda_events: list[tuple[int, str, int]]  # (t_ms, key, value) of every duration printed
    prestage: list[str]
    pre_destructor: list[int]
    excluded: set[str]  # job ids that must be left out of per-job figures
    failed: dict[str, str]  # job id -> reason in the ERROR line
    submit: dict[str, int]
    done: dict[str, int]  # job id -> completion (engine "proof assembled"), ms on the TIMELINE clock
    bench_wall_s: list[float] = field(default_factory=list)
    bench_status: list[str] = field(default_factory=list)
    bench_total_s: float | None = None
    worker_gpu: dict[int, int] = field(default_factory=dict)
    cut_at: int | None = None

    def cuda(self, key: str) -> list[int]:
        return [v for _, k, v in self.cuda_events if k == key]
    first_line: int = 0
    garbled_lines: int = 0


@dataclass
class Options:
    jobs: int = 4
    partitions: int = 4
    monolithic_jobs: int = 1  # window-post jobs: one GPU call each
    devices: int = 2
    workers_per_device: int = 2
    ansi: bool = False
    noise: bool = True
    interleave: bool = False  # a CUZK_TIMING write inside a TIMELINE line and a TIMELINE write inside a tracing line
    fail_partition: bool = False  # one partition's GPU prove fails (ERROR line, no GPU_END)
    killed: bool = False  # the daemon is killed mid-run: partitions in flight, last line cut
    bench: bool = True  # append cuzk-bench's batch output
    prestage: str | None = None  # Phase 10 lines: prestage_setup=<value> and pre_destructor_ms per GPU call
    worker_lines: bool = True  # "pipeline GPU worker started" lines (worker -> GPU)
    worker_spans: bool = True  # the gpu_worker{worker_id gpu ...} span on the GPU call's tracing line (worker -> GPU)
    engine_done_lines: bool = True  # the engine's "proof assembled" / "proof completed" lines
    seed: int = 1


class _Log:
    def __init__(self, epoch: datetime, ansi: bool):
        self.items: list[tuple[int, int, str]] = []  # (t_ms, order, text)
        self.epoch = epoch
        self.ansi = ansi

    def add(self, t: int, text: str) -> None:
        self.items.append((t, len(self.items), text))

    def timeline(self, t: int, event: str, job: str, detail: str) -> None:
        self.add(t, f"TIMELINE,{t},{event},{job},{detail}")

    def cuda(self, t: int, body: str) -> None:
        self.add(t, f"CUZK_TIMING: {body}")

    def tracing(self, t: int, level: str, target: str, message: str, fields: dict[str, Any] | None = None,
                spans: list[tuple[str, dict[str, Any]]] | None = None) -> None:
        self.add(t, tracing_line(self.epoch + timedelta(milliseconds=t), level, target, message, fields or {},
                                 spans or [], self.ansi))

    def lines(self) -> list[str]:
        return [text for _, _, text in sorted(self.items)]


def tracing_line(ts: datetime, level: str, target: str, message: str, fields: dict[str, Any],
                 spans: list[tuple[str, dict[str, Any]]], ansi: bool) -> str:
    """tracing-subscriber's default (Full) format, with its ANSI styling when `ansi`."""
    stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
    colour = {"INFO": "32", "WARN": "33", "ERROR": "31", "DEBUG": "34", "TRACE": "35"}[level]

    def kv(k: str, v: Any) -> str:
        return f"\x1b[3m{k}\x1b[0m\x1b[2m=\x1b[0m{v}" if ansi else f"{k}={v}"

    span_text = ""
    for name, sf in spans:
        inner = " ".join(kv(k, v) for k, v in sf.items())
        span_text += (f"\x1b[1m{name}\x1b[0m\x1b[1m{{\x1b[0m{inner}\x1b[1m}}\x1b[0m\x1b[2m:\x1b[0m" if ansi
                      else f"{name}{{{inner}}}:")
    body = " ".join([message] * bool(message) + [kv(k, v) for k, v in fields.items()])
    if ansi:
        head = f"\x1b[2m{stamp}\x1b[0m \x1b[{colour}m{level:>5}\x1b[0m "
        return f"{head}{span_text + ' ' if span_text else ''}\x1b[2m{target}\x1b[0m\x1b[2m:\x1b[0m {body}"
    return f"{stamp} {level:>5} {span_text + ' ' if span_text else ''}{target}: {body}"


def _rand_cuda(rng: random.Random) -> dict[str, int]:
    v = {"prep_msm_ms": rng.randint(1600, 2000), "pre_lock_cpu_ms": rng.randint(0, 30),
         "mutex_wait_ms": rng.randint(0, 900), "ntt_msm_h_ms": rng.randint(600, 800),
         "barrier_wait_ms": rng.randint(0, 3), "batch_add_ms": rng.randint(600, 700), "tail_msm_ms": rng.randint(70, 130)}
    v["gpu_total_ms"] = v["ntt_msm_h_ms"] + v["barrier_wait_ms"] + v["batch_add_ms"] + v["tail_msm_ms"]
    v["mutex_held_ms"] = v["gpu_total_ms"] + rng.randint(5, 40)
    v["total_start_fn_ms"] = v["mutex_held_ms"] + v["mutex_wait_ms"] + v["pre_lock_cpu_ms"]
    v["b_g2_msm_ms"] = rng.randint(370, 500)
    v["async_dealloc_ms"] = rng.randint(200, 3500)
    return v


def generate_run(log: _Log, t0: int, o: Options, *, daemon_start: bool = True) -> RunTruth:
    """One daemon run into `log` from t0 (ms on the TIMELINE clock); returns its truth."""
    rng = random.Random(o.seed)
    target = "cuzk_core::engine"
    if daemon_start:
        log.tracing(t0, "INFO", "cuzk_daemon", "cuzk-daemon starting")
        log.tracing(t0, "INFO", "cuzk_daemon", "configuration loaded", {"listen": "0.0.0.0:9820"})
    workers = []
    for dev in range(o.devices):
        log.cuda(t0, f"set pool release threshold to MAX on gpu {dev}")
        for sub in range(o.workers_per_device):
            w = len(workers)
            workers.append((w, dev))
            if o.worker_lines:
                log.tracing(t0, "INFO", target, "pipeline GPU worker started", {"worker_id": w, "gpu": dev, "sub_id": sub})
    log.tracing(t0, "INFO", target, "cuzk engine started", {"num_workers": len(workers), "pipeline": "true"})
    truth = RunTruth(jobs=[], kinds={}, partitions=[], cuda_events=[],
                     prestage=[], pre_destructor=[], excluded=set(), failed={}, submit={}, done={},
                     worker_gpu={w: d for w, d in workers} if o.worker_lines else {})
    # (worker_spans adds each worker that makes a GPU call as it makes it: _gpu_call)
    # Submissions: partitioned PoRep jobs, then monolithic WindowPoSt jobs.
    queue: list[Partition] = []
    n_total = o.jobs + o.monolithic_jobs
    for j in range(n_total):
        job_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        mono = j >= o.jobs
        submit = t0 + 50 + j * rng.randint(800, 2500)
        truth.jobs.append(job_id)
        truth.kinds[job_id] = "monolithic" if mono else "partitioned"
        truth.submit[job_id] = submit
        if mono:
            synth_ms = rng.randint(300, 900)
            log.timeline(submit, "SYNTH_START", job_id, "kind=window-post")
            log.timeline(submit + synth_ms, "SYNTH_END", job_id, f"synth_ms={synth_ms}")
            log.tracing(submit + synth_ms, "INFO", target, "synthesis complete, sending to GPU",
                        {"synth_ms": synth_ms, "circuit_id": "wpost-32g", "batch_size": 1, "sectors": 1})
            log.timeline(submit + synth_ms, "GPU_QUEUE", job_id, "monolithic")
            queue.append(Partition(job_id, None, -1, -1, submit, synth_ms, submit + synth_ms))
            continue
        for p in range(o.partitions):
            start = submit + p * rng.randint(0, 300)
            synth_ms = rng.randint(3000, 9000)
            log.timeline(start, "SYNTH_START", job_id, f"partition={p}")
            log.timeline(start + synth_ms, "SYNTH_END", job_id, f"partition={p},synth_ms={synth_ms}")
            log.tracing(start + synth_ms, "INFO", target, "partition synthesis complete, pushing to GPU queue",
                        {"job_id": job_id, "partition": p, "synth_ms": synth_ms})
            log.timeline(start + synth_ms, "GPU_QUEUE", job_id, f"partition={p}")
            queue.append(Partition(job_id, p, -1, -1, start, synth_ms, start + synth_ms))
    # GPU workers take the oldest job's lowest partition among those queued when they are free.
    free = {w: t0 for w, _ in workers}
    job_seq = {j: i for i, j in enumerate(truth.jobs)}
    pending = sorted(queue, key=lambda q: q.queue)
    fail_at = (truth.jobs[min(1, o.jobs - 1)], 2 % max(o.partitions, 1)) if o.fail_partition else None
    while pending:
        w = min(free, key=lambda k: (free[k], k))
        ready = [q for q in pending if q.queue <= free[w]]
        if not ready:
            free[w] = min(q.queue for q in pending)
            continue
        part = min(ready, key=lambda q: (job_seq[q.job_id], q.partition or 0))
        pending.remove(part)
        part.worker, part.device = w, dict(workers)[w]
        part.pickup = free[w] + rng.randint(0, 3)
        part.start = part.pickup + rng.randint(1, 4)
        v = _rand_cuda(rng)
        part.gpu_ms = v["total_start_fn_ms"] + v["b_g2_msm_ms"] + rng.randint(1, 50)
        end = part.start + part.gpu_ms + rng.randint(1, 5)
        part.end = end
        free[w] = part.start + v["total_start_fn_ms"]  # the worker loops once prove_start returns
        truth.partitions.append(part)
        _gpu_call(log, truth, part, v, end, rng, o, failing=fail_at == (part.job_id, part.partition))
    if o.killed:
        cut_at = sorted(p.end for p in truth.partitions)[-3]  # the last 2 GPU_ENDs never happen
        log.items = [it for it in log.items if it[0] <= cut_at]
        truth.cuda_events = [e for e in truth.cuda_events if e[0] <= cut_at]
        truth.pre_destructor = [e for e in truth.pre_destructor if e[0] <= cut_at]
        truth.prestage = [e for e in truth.prestage if e[0] <= cut_at]
        truth.jobs = [j for j in truth.jobs if truth.submit[j] <= cut_at]
        truth.partitions = [p for p in truth.partitions if p.synth_start <= cut_at]
        truth.cut_at = cut_at
        for p in truth.partitions:
            if p.end > cut_at:
                p.ended = False
                truth.excluded.add(p.job_id)
        for p in truth.partitions:  # partitions never picked up cannot be in flight after the cut
            if p.start > cut_at:
                p.ended = False
    _finish_jobs(log, truth, o)
    return truth


def _gpu_call(log: _Log, truth: RunTruth, part: Partition, v: dict[str, int], end: int, rng: random.Random,
              o: Options, failing: bool) -> None:
    job, w = part.job_id, part.worker
    detail = f"worker={w}" + (f",partition={part.partition}" if part.partition is not None else "")
    log.timeline(part.pickup, "GPU_PICKUP", job, detail)
    spans = [("gpu_worker", {"worker_id": w, "gpu": part.device, "job_id": job, "proof_kind": "porep-c2",
                             "batch_size": 1, "partition": f"Some({part.partition})" if part.partition is not None else "None"})]
    if o.worker_spans:
        truth.worker_gpu[w] = part.device
    else:
        spans = [("gpu_call", {"job_id": job})]  # a span that names no GPU
    log.tracing(part.pickup, "INFO", "cuzk_core::engine", "GPU_TIMING hot_path pre-prove overhead",
                {"worker_id": w, "partition": f"Some({part.partition})", "status_ms": 0, "fail_check_ms": 0,
                 "mark_busy_ms": 0, "total_overhead_ms": 0}, spans)
    log.timeline(part.start, "GPU_START", job, detail)
    t = part.start
    split = (rng.randint(1, 9), rng.randint(1, 9))
    log.cuda(t + v["pre_lock_cpu_ms"], f"split_vectors_ms={split[0]} setup_to_split_ms={split[1]}")
    t += v["pre_lock_cpu_ms"] + v["mutex_wait_ms"]
    log.cuda(t, f"pre_lock_cpu_ms={v['pre_lock_cpu_ms']} mutex_wait_ms={v['mutex_wait_ms']}")
    log.cuda(t + 10, f"prep_msm_ms={v['prep_msm_ms']}")
    if o.prestage:
        log.cuda(t, f"prestage_setup={o.prestage}")
        truth.prestage.append((t, o.prestage))
    ntt = {k: rng.randint(1, 60) for k in NTT_H_KEYS[:-1]}
    ntt["total"] = sum(ntt.values())
    log.add(t + v["ntt_msm_h_ms"] - 1, "CUZK_NTT_H: " + " ".join(f"{k}={ntt[k]}ms" for k in NTT_H_KEYS))
    log.cuda(t + v["ntt_msm_h_ms"], f"gpu_tid=0 ntt_msm_h_ms={v['ntt_msm_h_ms']}")
    log.cuda(t + v["ntt_msm_h_ms"], f"gpu_tid=0 barrier_wait_ms={v['barrier_wait_ms']}")
    log.cuda(t + v["gpu_total_ms"] - v["tail_msm_ms"], f"gpu_tid=0 batch_add_ms={v['batch_add_ms']}")
    log.cuda(t + v["gpu_total_ms"], f"gpu_tid=0 tail_msm_ms={v['tail_msm_ms']} gpu_total_ms={v['gpu_total_ms']}")
    log.cuda(t + v["mutex_held_ms"], f"mutex_held_ms={v['mutex_held_ms']} total_start_fn_ms={v['total_start_fn_ms']}")
    log.cuda(end - 1, f"b_g2_msm_ms={v['b_g2_msm_ms']} num_circuits=1")
    log.cuda(end + 5, f"async_dealloc_ms={v['async_dealloc_ms']}")
    if o.prestage:
        pre = rng.randint(9000, 12000)
        log.cuda(end + 6, f"pre_destructor_ms={pre}")
        truth.pre_destructor.append((end + 6, pre))
    times = {"pre_lock_cpu_ms": t, "mutex_wait_ms": t, "prep_msm_ms": t + 10, "ntt_msm_h_ms": t + v["ntt_msm_h_ms"],
             "barrier_wait_ms": t + v["ntt_msm_h_ms"], "batch_add_ms": t + v["gpu_total_ms"] - v["tail_msm_ms"],
             "tail_msm_ms": t + v["gpu_total_ms"], "gpu_total_ms": t + v["gpu_total_ms"],
             "mutex_held_ms": t + v["mutex_held_ms"], "total_start_fn_ms": t + v["mutex_held_ms"],
             "b_g2_msm_ms": end - 1, "async_dealloc_ms": end + 5}
    for k in CUDA_KEYS:
        truth.cuda_events.append((times[k], k, v[k]))
    for k in NTT_H_KEYS:
        truth.cuda_events.append((t + v["ntt_msm_h_ms"] - 1, f"ntt_h.{k}", ntt[k]))
    truth.cuda_events.append((part.start + v["pre_lock_cpu_ms"], "split_vectors_ms", split[0]))
    truth.cuda_events.append((part.start + v["pre_lock_cpu_ms"], "setup_to_split_ms", split[1]))
    if failing:
        part.ended = False
        part.failed = True
        reason = "CUDA error 2: out of memory"
        truth.failed[job] = reason
        truth.excluded.add(job)
        log.tracing(end, "ERROR", "cuzk_core::engine", "partition GPU proving failed",
                    {"error": reason, "job_id": job, "partition": part.partition})
        return
    gpu_detail = detail.replace(f"worker={w}", f"worker={w}") + f",gpu_ms={part.gpu_ms}"
    log.timeline(end, "GPU_END", job, gpu_detail)
    if part.partition is not None:
        log.tracing(end, "INFO", "cuzk_core::engine", "partition GPU prove complete",
                    {"job_id": job, "partition": part.partition, "gpu_ms": part.gpu_ms, "filled": 0})


def _finish_jobs(log: _Log, truth: RunTruth, o: Options) -> None:
    by_job: dict[str, list[Partition]] = {}
    for p in truth.partitions:
        by_job.setdefault(p.job_id, []).append(p)
    for job in truth.jobs:
        parts = by_job.get(job, [])
        if job in truth.excluded or not parts or not all(p.ended for p in parts):
            if not parts or not all(p.ended for p in parts):
                truth.excluded.add(job)
            continue
        done = max(p.end for p in parts) + 3
        truth.done[job] = done
        if not o.engine_done_lines:
            continue
        total = done - truth.submit[job]
        synth = sum(p.synth_ms for p in parts)
        gpu = sum(p.gpu_ms for p in parts)
        if truth.kinds[job] == "partitioned":
            log.tracing(done, "INFO", "cuzk_core::engine", "Phase 7: all partitions complete, proof assembled",
                        {"job_id": job, "proof_len": 1920, "total_ms": total, "synth_ms": synth, "gpu_ms": gpu})
        else:
            log.tracing(done, "INFO", "cuzk_core::engine", "proof completed successfully (pipeline)",
                        {"proof_len": 192, "total_ms": total, "queue_ms": 0, "synth_ms": synth, "gpu_ms": gpu})


def bench_lines(truth: RunTruth, jobs: list[str]) -> list[str]:
    """cuzk-bench `batch` output for the run (main.rs format strings, exact spacing)."""
    out = ["=== Batch Benchmark ===", "proof type:  porep", f"count:       {len(jobs)}", "concurrency: 4", ""]
    first = min(truth.submit[j] for j in jobs)
    last = first
    walls = []
    for i, job in enumerate(jobs, start=1):
        if job in truth.done:
            wall = float(f"{(truth.done[job] - truth.submit[job] + 40) / 1000.0:.1f}")  # + the gRPC round trip, as printed
            last = max(last, truth.done[job] + 40)
            gpu = sum(p.gpu_ms for p in truth.partitions if p.job_id == job)
            out.append(f"  [{i}/{len(jobs)}] COMPLETED — {wall:.1f}s (prove={gpu} ms, queue=12 ms)")
            walls.append(wall)
            truth.bench_status.append("COMPLETED")
        else:
            wall = 30.0
            out.append(f"  [{i}/{len(jobs)}] FAILED — {wall:.1f}s (prove=0 ms, queue=0 ms)")
            truth.bench_status.append("FAILED")
        truth.bench_wall_s.append(wall)
    total = (last - first) / 1000.0
    truth.bench_total_s = round(total, 1)
    out += ["", "=== Batch Summary ===", f"total time:    {total:.1f}s", f"completed:     {len(walls)}",
            f"failed:        {len(jobs) - len(walls)}"]
    if walls:
        proves = [sum(p.gpu_ms for p in truth.partitions if p.job_id == j) / 1000.0 for j in jobs if j in truth.done]
        out.append(f"wall time:     avg={sum(walls) / len(walls):.1f}s min={min(walls):.1f}s max={max(walls):.1f}s")
        out.append(f"prove time:    avg={sum(proves) / len(proves):.1f}s min={min(proves):.1f}s max={max(proves):.1f}s")
        out.append(f"throughput:    {len(walls) / total * 60:.3f} proofs/min ({total / len(walls):.1f}s/proof)")
    return out


NOISE = [
    ("INFO", "cuzk_core::pipeline", "buffers", {"event": "synth_start", "in_flight": 3}),
    ("WARN", "cuzk_core::srs_manager", "SRS file not in page cache, loading from disk", {"circuit_id": "porep-32g"}),
    ("INFO", "cuzk_core::engine", "FIN_TIMING finalizer partition", {"worker_id": 1, "partition": "Some(2)",
                                                                    "finish_ms": 480, "total_ms": 481}),
    ("DEBUG", "h2::codec::framed_write", "send", {"frame": "Data { stream_id: StreamId(1) }"}),
]


def _add_noise(log: _Log, t_end: int, rng: random.Random) -> None:
    for k in range(0, t_end, 700):
        level, target, message, fields = NOISE[k // 700 % len(NOISE)]
        log.tracing(k + rng.randint(0, 600), level, target, message, fields)
    for k in range(0, t_end, 5000):
        log.add(k + 1, rng.choice(["random library chatter = 42", "bellperson: synthesizing 130278869 constraints",
                                   "thread 'tokio-runtime-worker' has overflowed its stack... just kidding", ""]))


@dataclass
class GeneratedLog:
    text: str
    runs: list[RunTruth]


def _interleave(lines: list[str], truth: RunTruth) -> list[str]:
    """Both interleavings, each destroying one record of one job (which must then be excluded):
    a CUZK_TIMING write lands inside a TIMELINE line (fprintf between eprintln's pieces), and
    a TIMELINE write lands inside a tracing line."""
    out = list(lines)
    idx = next(i for i, l in enumerate(out) if l.startswith("TIMELINE,") and ",GPU_END," in l)
    original = out[idx]
    out[idx:idx + 1] = [original[:20] + "CUZK_TIMING: prep_msm_ms=1777", original[20:]]
    job = original.split(",")[3]
    truth.excluded.add(job)
    part = int(original.split("partition=")[1].split(",")[0]) if "partition=" in original else None
    next(p for p in truth.partitions if p.job_id == job and p.partition == part).ended = False
    truth.garbled_lines += 2
    jdx = next(i for i, l in enumerate(out) if "partition synthesis complete" in l and i > idx)
    synth = next(i for i in range(jdx, 0, -1) if out[i].startswith("TIMELINE,") and ",SYNTH_END," in out[i])
    record = out.pop(synth)
    jdx -= 1
    cut = len(out[jdx]) // 2
    out[jdx:jdx + 1] = [out[jdx][:cut] + record, out[jdx][cut:]]
    truth.excluded.add(record.split(",")[3])
    truth.garbled_lines += 1  # the tail of the tracing line is unrelated text, not a fragment of a record
    return out


def generate(runs: list[Options], *, run_ids: list[str] | None = None) -> GeneratedLog:
    """A log of one or more daemon runs (each starting with "cuzk-daemon starting"); a killed
    run must be the last one."""
    texts: list[str] = []
    truths: list[RunTruth] = []
    for k, o in enumerate(runs):
        epoch = datetime(2026, 8, 20, 11, 0, tzinfo=timezone.utc) + timedelta(hours=k)
        log = _Log(epoch, o.ansi)
        truth = generate_run(log, 0, o)
        if o.noise:
            _add_noise(log, max(t for t, _, _ in log.items), random.Random(o.seed + 7))
        lines = log.lines()
        if o.interleave:
            lines = _interleave(lines, truth)
        if o.bench and not o.killed:
            lines += bench_lines(truth, truth.jobs)
        if o.killed:  # the daemon dies while writing a record: its line is cut, with no end of line
            record = f"TIMELINE,{truth.cut_at + 1},GPU_PICKUP,{truth.jobs[-1]},worker=0,partition=0"
            lines.append(record[: len(record) // 2])
        if run_ids:
            lines.insert(0, f"RUN_ID={run_ids[k]}")
        truth.first_line = sum(len(t) for t in texts) + 1
        texts.append(lines)
        truths.append(truth)
    flat = [l for t in texts for l in t]
    text = "\n".join(flat) + ("" if runs and runs[-1].killed else "\n")
    return GeneratedLog(text=text, runs=truths)
