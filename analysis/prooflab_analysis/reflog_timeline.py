"""TIMELINE records of the cuzk engine (extern/cuzk/cuzk-core/src/engine.rs, `timeline_event`).

The engine writes `TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>` with `eprintln!`, the
offset in whole milliseconds (`as_millis()`) since the engine's epoch. Each event has a
fixed set of detail shapes, one per call site; anything else is a malformed line, so an
interleaved write can never be read as a record:

    SYNTH_START  partition=P                  (partitioned job, per partition)
                 kind=<proof kind>            (monolithic / batched job)
    SYNTH_END    partition=P,synth_ms=N  |  synth_ms=N
    GPU_QUEUE    partition=P  |  monolithic
    GPU_PICKUP   worker=W[,partition=P]
    GPU_START    worker=W[,partition=P]
    GPU_END      worker=W[,partition=P],gpu_ms=N

`worker` is the engine-wide GPU worker id; which GPU it drives is only in the tracing line
"pipeline GPU worker started worker_id=W gpu=G" (reflog_tracing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .loaders import quote
from .reflog_lines import LineError, check_job_id

PREFIX = "TIMELINE,"
EVENTS = ("SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END")
# cuzk-core types.rs, `impl Display for ProofKind`.
PROOF_KINDS = ("porep-c2", "snap-update", "window-post", "winning-post")

_N = r"(\d{1,18})"  # a number that fits 64 bits, not a run of digits from a garbled write
_DETAILS: dict[str, tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]] = {
    "SYNTH_START": ((re.compile(rf"partition={_N}"), ("partition",)),
                    (re.compile(r"kind=(" + "|".join(PROOF_KINDS) + ")"), ("kind",))),
    "SYNTH_END": ((re.compile(rf"partition={_N},synth_ms={_N}"), ("partition", "synth_ms")),
                  (re.compile(rf"synth_ms={_N}"), ("synth_ms",))),
    "GPU_QUEUE": ((re.compile(rf"partition={_N}"), ("partition",)), (re.compile("(monolithic)"), ("monolithic",))),
    "GPU_PICKUP": ((re.compile(rf"worker={_N},partition={_N}"), ("worker", "partition")),
                   (re.compile(rf"worker={_N}"), ("worker",))),
    "GPU_START": ((re.compile(rf"worker={_N},partition={_N}"), ("worker", "partition")),
                  (re.compile(rf"worker={_N}"), ("worker",))),
    "GPU_END": ((re.compile(rf"worker={_N},partition={_N},gpu_ms={_N}"), ("worker", "partition", "gpu_ms")),
                (re.compile(rf"worker={_N},gpu_ms={_N}"), ("worker", "gpu_ms"))),
}
_SHAPES = {event: " | ".join(p.pattern.replace(_N, "N") for p, _ in shapes) for event, shapes in _DETAILS.items()}


@dataclass(frozen=True)
class TimelineRecord:
    offset_ms: int
    event: str
    job_id: str
    partition: int | None
    worker: int | None
    kind: str | None  # proof kind of a monolithic SYNTH_START
    monolithic: bool  # the record names no partition: a single-GPU-call job
    value_ms: int | None  # synth_ms of SYNTH_END, gpu_ms of GPU_END


def parse_timeline(line: str) -> TimelineRecord:
    """One `TIMELINE,...` line (without its newline); LineError when it breaks engine.rs' syntax."""
    parts = line.split(",", 4)
    if len(parts) != 5:
        raise LineError("TIMELINE record needs TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>")
    _, offset, event, job_id, detail = parts
    if not offset.isascii() or not offset.isdigit() or len(offset) > 18:
        raise LineError(f"TIMELINE offset_ms {quote(offset)!r} is not a whole number of milliseconds")
    if event not in _DETAILS:
        raise LineError(f"TIMELINE event {quote(event)!r} is not one cuzk emits ({', '.join(EVENTS)})")
    check_job_id(job_id, "TIMELINE job_id")
    for pattern, names in _DETAILS[event]:
        m = pattern.fullmatch(detail)
        if m:
            values = dict(zip(names, m.groups()))
            break
    else:
        raise LineError(f"TIMELINE {event} detail {quote(detail)!r} is not {_SHAPES[event]}")
    value = values.get("synth_ms", values.get("gpu_ms"))
    return TimelineRecord(
        offset_ms=int(offset),
        event=event,
        job_id=job_id,
        partition=int(values["partition"]) if "partition" in values else None,
        worker=int(values["worker"]) if "worker" in values else None,
        kind=values.get("kind"),
        monolithic="partition" not in values,
        value_ms=int(value) if value is not None else None,
    )
