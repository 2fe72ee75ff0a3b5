"""Import reference-format prover logs (cuzk / supraseal-c2 stderr + cuzk-bench stdout).

Recognised records, each at the start of a line (leading blanks allowed):

    TIMELINE,<offset_ms>,<EVENT>,<job_id>[,<k=v>,...]
    CUZK_TIMING: key=value key=value ...
    [i/N] COMPLETED — 61.0s (prove=45833 ms, queue=270 ms)
    === Batch Summary ===   (followed by `total time:`, `completed:`, ... lines)
    RUN_ID=<id>             run marker (also `=== run <id> ===`)

Everything else is unrelated output and is skipped. A line that *starts* like one of
the records but does not parse raises `RunFormatError` with its line number and text:
a half-parsed record silently dropped would bias every number computed afterwards.

Runs are split by run markers only, never by gaps in time: the reference's offsets
are from the daemon's epoch, so a second run in the same log continues the clock and
a time-gap heuristic would move boundary events into the wrong run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd

from . import schema
from .loaders import Run, RunFormatError

RUN_MARKERS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^\s*RUN_ID=(?P<id>\S+)\s*$"),
    re.compile(r"^\s*=== run (?P<id>\S+) ===\s*$"),
)

_TIMELINE_START = re.compile(r"^\s*TIMELINE,")
_CUZK_START = re.compile(r"^\s*CUZK_TIMING:")
_NUM = r"\d+(?:\.\d+)?"
_COMPLETION_START = re.compile(r"^\s*\[\d+/\d+\]\s+[A-Z][A-Z_]*\s+(?:—|–|--|-)\s")
_COMPLETION = re.compile(
    rf"^\s*\[(?P<i>\d+)/(?P<n>\d+)\]\s+(?P<status>[A-Z][A-Z_]*)\s+(?:—|–|--|-)\s+(?P<wall>{_NUM})s"
    rf"\s+\(prove=(?P<prove>{_NUM})\s*ms,\s*queue=(?P<queue>{_NUM})\s*ms\)\s*$"
)
_SUMMARY_HEADER = re.compile(r"^\s*=== Batch Summary ===\s*$")
_SUMMARY_LINES: dict[str, re.Pattern[str]] = {
    "total time": re.compile(rf"^\s*total time:\s+(?P<total>{_NUM})s\s*$"),
    "completed": re.compile(r"^\s*completed:\s+(?P<completed>\d+)\s*$"),
    "failed": re.compile(r"^\s*failed:\s+(?P<failed>\d+)\s*$"),
    "wall time": re.compile(
        rf"^\s*wall time:\s+avg=(?P<avg>{_NUM})s\s+min=(?P<min>{_NUM})s\s+max=(?P<max>{_NUM})s\s*$"
    ),
    "prove time": re.compile(
        rf"^\s*prove time:\s+avg=(?P<avg>{_NUM})s\s+min=(?P<min>{_NUM})s\s+max=(?P<max>{_NUM})s\s*$"
    ),
    "throughput": re.compile(
        rf"^\s*throughput:\s+(?P<ppm>{_NUM})\s+proofs/min\s+\((?P<spp>{_NUM})\s*s/proof\)\s*$"
    ),
}
_SUMMARY_KEY = re.compile(r"^\s*(total time|completed|failed|wall time|prove time|throughput):")

_EVENT = re.compile(r"^[A-Z][A-Z0-9_]*$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_OFFSET = re.compile(rf"^{_NUM}$")
_UINT = re.compile(r"^\d+$")

# CUZK_TIMING keys -> stage names of stages.csv (without the _us suffix).
REFERENCE_STAGE_KEYS: dict[str, str] = {
    "synth_ms": "synth",
    "prep_msm_ms": "prep_msm",
    "b_g2_msm_ms": "b_g2_msm",
    "mutex_wait_ms": "lock_wait",
    "ntt_msm_h_ms": "ntt_h",
    "batch_add_ms": "batch_add",
    "tail_msm_ms": "tail_msm",
    "gpu_total_ms": "gpu_total",
    "mutex_held_ms": "lock_held",
    "async_dealloc_ms": "dealloc",
    "pre_destructor_ms": "pre_destructor",
}
PRESTAGE_SETUP_VALUES = frozenset({"ok", "skip_vram", "fallback"})

# Events that happen on a GPU worker; the reference runs one device unless told.
_GPU_EVENTS = frozenset({"GPU_PICKUP", "GPU_START", "GPU_END"})
_COLUMN_KEYS = {"partition", "worker", "device", "gpu"}

PREAMBLE_RUN_ID = "(before-first-marker)"


@dataclass
class _Section:
    run_id: str
    first_line: int
    last_line: int
    preamble: bool = False
    events: list[tuple[int, float, str, str, dict[str, str]]] = field(default_factory=list)
    timings: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    completions: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)


def _fail(source: str, lineno: int, line: str, message: str) -> RunFormatError:
    return RunFormatError(source, message, line=lineno, content=line)


def _parse_timeline(source: str, lineno: int, line: str) -> tuple[float, str, str, dict[str, str]]:
    parts = line.strip().split(",")
    if len(parts) < 4:
        raise _fail(source, lineno, line, "TIMELINE record needs TIMELINE,<offset_ms>,<EVENT>,<job_id>[,k=v...]")
    _, offset, event, job_id, *rest = parts
    if not _OFFSET.match(offset):
        raise _fail(source, lineno, line, f"TIMELINE offset_ms {offset!r} is not a non-negative number")
    if not _EVENT.match(event):
        raise _fail(source, lineno, line, f"TIMELINE event {event!r} is not an upper-case name")
    if not job_id or job_id != job_id.strip():
        raise _fail(source, lineno, line, f"TIMELINE job_id {job_id!r} is empty or padded")
    kv: dict[str, str] = {}
    for token in rest:
        if token == "":
            continue  # the reference prints a trailing comma when the detail is empty
        key, sep, value = token.partition("=")
        if not sep or not _KEY.match(key):
            raise _fail(source, lineno, line, f"TIMELINE detail token {token!r} is not key=value")
        if key in _COLUMN_KEYS and not _UINT.match(value):
            raise _fail(source, lineno, line, f"TIMELINE {key}={value!r} is not a non-negative integer")
        kv[key] = value
    return float(offset), event, job_id, kv


def _parse_cuzk(source: str, lineno: int, line: str) -> dict[str, str]:
    body = line.split("CUZK_TIMING:", 1)[1].split()
    if not body:
        raise _fail(source, lineno, line, "CUZK_TIMING record has no key=value pairs")
    kv: dict[str, str] = {}
    for token in body:
        key, sep, value = token.partition("=")
        if not sep or not _KEY.match(key) or value == "":
            raise _fail(source, lineno, line, f"CUZK_TIMING token {token!r} is not key=value")
        if key.endswith("_ms") and not re.match(rf"^-?{_NUM}$", value):
            raise _fail(source, lineno, line, f"CUZK_TIMING {key}={value!r} is not a number")
        if key == "partition" and not _UINT.match(value):
            raise _fail(source, lineno, line, f"CUZK_TIMING partition={value!r} is not a non-negative integer")
        if key == "prestage_setup" and value not in PRESTAGE_SETUP_VALUES:
            raise _fail(
                source, lineno, line, f"CUZK_TIMING prestage_setup={value!r} is not one of {sorted(PRESTAGE_SETUP_VALUES)}"
            )
        kv[key] = value
    return kv


def _parse_summary_line(source: str, lineno: int, line: str, summary: dict[str, Any]) -> None:
    key = _SUMMARY_KEY.match(line).group(1)  # type: ignore[union-attr]
    m = _SUMMARY_LINES[key].match(line)
    if m is None:
        raise _fail(source, lineno, line, f"Batch Summary line {key!r} does not parse")
    if key == "total time":
        summary["total_s"] = float(m["total"])
    elif key == "completed":
        summary["completed"] = int(m["completed"])
    elif key == "failed":
        summary["failed"] = int(m["failed"])
    elif key in ("wall time", "prove time"):
        name = "wall_s" if key == "wall time" else "prove_s"
        summary[name] = {"avg": float(m["avg"]), "min": float(m["min"]), "max": float(m["max"])}
    else:
        summary["throughput_proofs_per_min"] = float(m["ppm"])
        summary["s_per_proof"] = float(m["spp"])


def _marker(line: str) -> str | None:
    for pattern in RUN_MARKERS:
        m = pattern.match(line)
        if m:
            return m["id"]
    return None


def _scan(lines: Iterable[str], source: str, default_run_id: str) -> list[_Section]:
    sections: list[_Section] = []
    seen_ids: dict[str, int] = {}
    current: _Section | None = None
    in_summary = False
    lineno = 0
    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        run_id = _marker(line)
        if run_id is not None:
            in_summary = False
            if current is not None and current.run_id == run_id and not current.preamble:
                current.last_line = lineno  # the same marker printed twice in a row
                continue
            if run_id in seen_ids:
                raise _fail(
                    source, lineno, line,
                    f"run id {run_id!r} appears again after another run (first at line {seen_ids[run_id]}); "
                    "runs must be contiguous to be split exactly",
                )
            seen_ids[run_id] = lineno
            current = _Section(run_id=run_id, first_line=lineno, last_line=lineno)
            sections.append(current)
            continue
        if current is None:
            current = _Section(run_id=PREAMBLE_RUN_ID, first_line=1, last_line=1, preamble=True)
            sections.append(current)
        current.last_line = lineno
        if in_summary:
            if _SUMMARY_KEY.match(line):
                _parse_summary_line(source, lineno, line, current.summary)
                continue
            in_summary = False
        if _TIMELINE_START.match(line):
            offset, event, job_id, kv = _parse_timeline(source, lineno, line)
            current.events.append((lineno, offset, event, job_id, kv))
        elif _CUZK_START.match(line):
            current.timings.append((lineno, _parse_cuzk(source, lineno, line)))
        elif _COMPLETION_START.match(line):
            m = _COMPLETION.match(line)
            if m is None:
                raise _fail(source, lineno, line, "completion line does not match '[i/N] STATUS — Xs (prove=N ms, queue=N ms)'")
            current.completions.append(
                {
                    "line": lineno,
                    "i": int(m["i"]),
                    "n": int(m["n"]),
                    "status": m["status"],
                    "wall_s": float(m["wall"]),
                    "prove_ms": float(m["prove"]),
                    "queue_ms": float(m["queue"]),
                }
            )
        elif _SUMMARY_HEADER.match(line):
            in_summary = True
    # A log with no marker is one run; name it after the file.
    if len(sections) == 1 and sections[0].preamble:
        sections[0].run_id = default_run_id
        sections[0].preamble = False
    # Drop a preamble that holds nothing but unrelated output.
    return [
        s for s in sections
        if not (s.preamble and not (s.events or s.timings or s.completions or s.summary))
    ]


def _job_index(section: _Section) -> dict[str, int]:
    jobs: dict[str, int] = {}
    for _, _, _, job_id, _ in section.events:
        jobs.setdefault(job_id, len(jobs))
    for _, kv in section.timings:
        if "job" in kv:
            jobs.setdefault(kv["job"], len(jobs))
    return jobs


def _timeline_frame(section: _Section, jobs: dict[str, int]) -> pd.DataFrame:
    if not section.events:
        return schema.empty_timeline()
    rows = []
    for lineno, offset, event, job_id, kv in section.events:
        device = kv.get("device", kv.get("gpu"))
        detail = ";".join(f"{k}={v}" for k, v in kv.items() if k not in _COLUMN_KEYS)
        rows.append(
            (
                lineno,
                int(round(offset * 1000.0)),
                event,
                jobs[job_id],
                kv.get("partition"),
                kv.get("worker"),
                device,
                detail,
            )
        )
    frame = pd.DataFrame(rows, columns=["line", "t_us", "event", "job", "partition", "worker", "device", "detail"])
    for col in ("partition", "worker", "device"):
        frame[col] = pd.to_numeric(frame[col]).astype(schema.INT_DTYPE)
    frame["job"] = frame["job"].astype(schema.INT_DTYPE)
    frame["t_us"] = frame["t_us"].astype("int64")
    frame["event"] = frame["event"].astype(object)
    frame["detail"] = frame["detail"].astype(object)
    # GPU_START / GPU_END of the reference name no worker: it is the one that picked the
    # partition up (GPU_PICKUP worker=N), so carry it forward within each partition.
    ordered = frame.sort_values(["t_us", "line"], kind="stable")
    group_key = [ordered["job"].fillna(-1), ordered["partition"].fillna(-1)]
    is_gpu = ordered["event"].isin(_GPU_EVENTS)
    for col in ("worker", "device"):
        filled = ordered.groupby(group_key, sort=False)[col].ffill()
        ordered[col] = ordered[col].where(~is_gpu | ordered[col].notna(), filled)
    ordered["device"] = ordered["device"].where(~is_gpu | ordered["device"].notna(), 0)
    frame = ordered.sort_values("line", kind="stable")
    return frame[schema.TIMELINE_COLUMNS].reset_index(drop=True)


def _timings_frames(section: _Section, jobs: dict[str, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(long frame of every CUZK_TIMING value, wide stages frame of attributed lines)."""
    long_rows = []
    for lineno, kv in section.timings:
        job = jobs[kv["job"]] if "job" in kv else None
        part = int(kv["partition"]) if "partition" in kv else None
        for key, value in kv.items():
            if key in ("job", "partition"):
                continue
            if key.endswith("_ms"):
                stage = REFERENCE_STAGE_KEYS.get(key, key[: -len("_ms")])
                long_rows.append((lineno, job, part, key, stage, float(value) * 1000.0, None))
            else:
                long_rows.append((lineno, job, part, key, None, np.nan, value))
    long = pd.DataFrame(long_rows, columns=["line", "job", "partition", "key", "stage", "value_us", "text"])
    long["job"] = long["job"].astype(schema.INT_DTYPE)
    long["partition"] = long["partition"].astype(schema.INT_DTYPE)
    long["value_us"] = long["value_us"].astype("float64")
    for col in ("key", "stage", "text"):
        long[col] = long[col].astype(object)

    attributed = long[long["job"].notna() & long["partition"].notna()]
    if attributed.empty:
        return long, schema.empty_stages()
    stages = schema.empty_stages()
    groups = attributed.groupby(["job", "partition"], sort=True)
    rows = []
    for (job, part), grp in groups:
        row: dict[str, Any] = {"job": job, "partition": part, "status": "ok", "prestage": ""}
        for _, r in grp.iterrows():
            if r["stage"] is not None and f"{r['stage']}_us" in stages.columns:
                row[f"{r['stage']}_us"] = int(round(r["value_us"]))
            elif r["key"] == "prestage_setup":
                row["prestage"] = r["text"]
        rows.append(row)
    wide = pd.DataFrame(rows)
    for col in stages.columns:
        if col not in wide.columns:
            wide[col] = pd.NA
        wide[col] = wide[col].astype(stages[col].dtype)
    return long, wide[list(stages.columns)]


def _section_to_run(section: _Section, source: str, expected_partitions: int | None) -> Run:
    jobs = _job_index(section)
    timeline = _timeline_frame(section, jobs)
    timing_long, stages = _timings_frames(section, jobs)
    completions = pd.DataFrame(
        section.completions, columns=["line", "i", "n", "status", "wall_s", "prove_ms", "queue_ms"]
    )
    summary = dict(section.summary)
    if not completions.empty and "count" not in summary:
        summary["count"] = int(completions["n"].max())
    config: dict[str, Any] = {}
    if expected_partitions is not None:
        config["partitions"] = int(expected_partitions)
    if "count" in summary:
        config["count"] = summary["count"]
    meta = {
        "run_id": section.run_id,
        "source": "reference_log",
        "log": source,
        "first_line": section.first_line,
        "last_line": section.last_line,
        "preamble": section.preamble,
        # The reference's GPU_START..GPU_END spans lock wait, kernels and b_g2_msm.
        "gpu_span": "reference",
        "status": "complete" if section.summary else "unknown",
        "config": config,
    }
    extras = {
        "cuzk_timing": timing_long,
        "completions": completions,
        "jobs": pd.DataFrame({"job": list(jobs.values()), "job_id": list(jobs.keys())}),
    }
    return Run(
        path=None,
        meta=meta,
        timeline=timeline,
        stages=stages,
        cupti=schema.empty_cupti(),
        counters=schema.empty_counters(),
        summary=summary,
        extras=extras,
    )


def parse_reference_log(
    lines: Iterable[str],
    *,
    source: str = "<log>",
    default_run_id: str = "run",
    expected_partitions: int | None = None,
) -> list[Run]:
    """Split a reference-format log into runs (by run marker) and import each one.

    Job ids (strings in the reference) become integers 0.. in order of first
    appearance within each run; `Run.extras['jobs']` maps them back.
    """
    sections = _scan(lines, source, default_run_id)
    return [_section_to_run(s, source, expected_partitions) for s in sections]


def load_reference_log(path: str | Path, *, expected_partitions: int | None = None) -> list[Run]:
    path = Path(path)
    with path.open(encoding="utf-8", errors="replace") as fh:
        runs = parse_reference_log(
            fh, source=str(path), default_run_id=path.stem, expected_partitions=expected_partitions
        )
    for run in runs:
        run.path = None
    return runs


def reference_stage_long(run: Run) -> pd.DataFrame:
    """CUZK_TIMING values as (job, partition, stage, value_us); job/partition may be NA."""
    timing = run.extras.get("cuzk_timing")
    if timing is None or timing.empty:
        return schema.empty_stage_long()
    values = timing[timing["stage"].notna()]
    return values[schema.STAGE_LONG_COLUMNS].reset_index(drop=True)
