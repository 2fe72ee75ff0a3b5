"""Per-proof lines and the Batch Summary of a benchmark driver's stdout.

Two drivers, one shape each (spacing as the source prints it):

cuzk-bench `batch` (extern/cuzk/cuzk-bench/src/main.rs)::

    === Batch Benchmark ===
    proof type:  porep
    count:       10
    concurrency: 5
      [3/10] COMPLETED — 61.0s (prove=45833 ms, queue=270 ms)     (also FAILED, CANCELLED, TIMEOUT, UNKNOWN)
    === Batch Summary ===
    total time:    610.2s
    completed:     10
    failed:        0
    wall time:     avg=61.0s min=40.1s max=70.2s
    prove time:    avg=45.8s min=44.0s max=47.1s
    throughput:    0.983 proofs/min (61.0s/proof)

`prove=` is the daemon's gpu_compute_ms (the sum of the proof's partition GPU times), not a
wall time; the wall time per proof runs from the request to the answer, so it includes
queueing and SRS loading. In concurrent mode the lines come in submission order.

prooflab `batch` (harness/batch_runner.cpp)::

    batch: <circuit>; 3 proofs x 2 partitions, concurrency 2, lock=single dealloc=async gw=1 throttle=off
    [1/3] COMPLETED — 1.2s (prove=800 ms, queue=3 ms)
    [2/3] FAILED — 0.4s: <reason>
    === Batch Summary ===
    total time: 3.1 s
    completed: 2, failed: 1 (of 3)[, INTERRUPTED]
    wall:  avg 1.0 s, min 0.4 s, max 1.2 s
    prove: avg 0.8 s, min 0.7 s, max 0.9 s
    throughput: 38.71 proofs/min (1.6 s/proof)
    run directory: results/runs/<id>

Here `[i/N]` counts completions, in completion order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .reflog_lines import LineError

BENCH_HEADER = "=== Batch Benchmark ==="
SUMMARY_HEADER = "=== Batch Summary ==="
STATUSES = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "UNKNOWN")

_U = r"(\d{1,18})"  # an integer that fits 64 bits
_F = r"(\d{1,15}\.\d)"  # {:.1}
_CUZK_COMPLETION = re.compile(rf"  \[{_U}/{_U}\] ({'|'.join(STATUSES)}) — {_F}s \(prove={_U} ms, queue={_U} ms\)")
_PL_COMPLETED = re.compile(rf"\[{_U}/{_U}\] COMPLETED — {_F}s \(prove={_U} ms, queue={_U} ms\)")
_PL_FAILED = re.compile(rf"\[{_U}/{_U}\] FAILED — {_F}s: (.*)")
COMPLETION_START = re.compile(r" *\[\d")
_PL_HEADER = re.compile(
    r"batch: .*; (\d{1,18}) proofs x (\d{1,18}) partitions, concurrency (\d{1,18}), lock=\S+ dealloc=\S+ gw=\d+ throttle=(?:on|off)"
)
_CUZK_HEADER_LINES = {
    "proof type:  ": ("proof_type", re.compile(r"\S+")),
    "count:       ": ("count", re.compile(r"\d+")),
    "concurrency: ": ("concurrency", re.compile(r"\d+")),
}
_STAT = rf"avg={_F}s min={_F}s max={_F}s"
_PL_STAT = rf"avg {_F} s, min {_F} s, max {_F} s"
# Summary line key -> shapes (cuzk-bench, prooflab) -> what each group is.
_SUMMARY: dict[str, tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]] = {
    "total time:": ((re.compile(rf"total time:    {_F}s"), ("total_s",)),
                    (re.compile(rf"total time: {_F} s"), ("total_s",))),
    "completed:": ((re.compile(r"completed:     (\d{1,18})"), ("completed",)),
                   (re.compile(r"completed: (\d{1,18}), failed: (\d{1,18}) \(of (\d{1,18})\)(, INTERRUPTED)?"),
                    ("completed", "failed", "count", "interrupted"))),
    "failed:": ((re.compile(r"failed:        (\d{1,18})"), ("failed",)),),
    "wall time:": ((re.compile(rf"wall time:     {_STAT}"), ("wall_s.avg", "wall_s.min", "wall_s.max")),),
    "prove time:": ((re.compile(rf"prove time:    {_STAT}"), ("prove_s.avg", "prove_s.min", "prove_s.max")),),
    "wall:": ((re.compile(rf"wall:  {_PL_STAT}"), ("wall_s.avg", "wall_s.min", "wall_s.max")),),
    "prove:": ((re.compile(rf"prove: {_PL_STAT}"), ("prove_s.avg", "prove_s.min", "prove_s.max")),),
    "throughput:": ((re.compile(rf"throughput:    (\d+\.\d{{3}}) proofs/min \({_F}s/proof\)"),
                     ("throughput_proofs_per_min", "s_per_proof")),
                    (re.compile(rf"throughput: (\d+\.\d\d) proofs/min \({_F} s/proof\)"),
                     ("throughput_proofs_per_min", "s_per_proof"))),
    "run directory:": ((re.compile(r"run directory: (.+)"), ("run_directory",)),),
}


@dataclass(frozen=True)
class Completion:
    i: int
    n: int
    status: str
    wall_s: float
    prove_ms: float | None
    queue_ms: float | None
    reason: str
    driver: str  # cuzk-bench | prooflab


def parse_completion(line: str) -> Completion:
    """A line that starts like `[i/N]`; LineError unless it is one of the drivers' shapes."""
    m = _CUZK_COMPLETION.fullmatch(line)
    if m:
        i, n, status, wall, prove, queue = m.groups()
        return Completion(int(i), int(n), status, float(wall), float(prove), float(queue), "" if status == "COMPLETED"
                          else status, "cuzk-bench")
    m = _PL_COMPLETED.fullmatch(line)
    if m:
        i, n, wall, prove, queue = m.groups()
        return Completion(int(i), int(n), "COMPLETED", float(wall), float(prove), float(queue), "", "prooflab")
    m = _PL_FAILED.fullmatch(line)
    if m:
        i, n, wall, reason = m.groups()
        return Completion(int(i), int(n), "FAILED", float(wall), None, None, reason or "FAILED", "prooflab")
    raise LineError("completion line is neither cuzk-bench's '  [i/N] STATUS — X.Xs (prove=N ms, queue=N ms)' "
                    "nor prooflab's '[i/N] COMPLETED — X.Xs (prove=N ms, queue=N ms)' / '[i/N] FAILED — X.Xs: reason'")


def parse_prooflab_header(line: str) -> dict[str, int] | None:
    """prooflab batch's first line: count, partitions, concurrency; None when it is not one."""
    m = _PL_HEADER.fullmatch(line)
    if m is None:
        return None
    return {"count": int(m[1]), "partitions": int(m[2]), "concurrency": int(m[3])}


def parse_bench_header_line(line: str) -> tuple[str, Any] | None:
    """cuzk-bench's `proof type:` / `count:` / `concurrency:` lines after its header."""
    for prefix, (key, shape) in _CUZK_HEADER_LINES.items():
        if line.startswith(prefix):
            value = line[len(prefix):]
            if not shape.fullmatch(value):
                raise LineError(f"cuzk-bench header line {key!r} does not parse")
            return key, int(value) if key != "proof_type" else value
    return None


def summary_key(line: str) -> str | None:
    for key in _SUMMARY:
        if line.startswith(key):
            return key
    return None


def parse_summary_line(key: str, line: str, summary: dict[str, Any]) -> None:
    """Add one Batch Summary line to `summary`; LineError when neither driver prints it so."""
    for pattern, names in _SUMMARY[key]:
        m = pattern.fullmatch(line)
        if m is None:
            continue
        for name, value in zip(names, m.groups()):
            if name == "interrupted":
                summary["interrupted"] = value is not None
            elif name == "run_directory":
                summary[name] = value
            elif "." in name:
                group, stat = name.split(".")
                summary.setdefault(group, {})[stat] = float(value)
            elif name in ("completed", "failed", "count"):
                summary[name] = int(value)
            else:
                summary[name] = float(value)
        return
    raise LineError(f"Batch Summary line {key!r} does not parse")
