"""Import the real prover's logs: a cuzk daemon log and a benchmark driver's stdout.

Accepted formats, each from its source (docs/reference-logs.md has them in full):

* `TIMELINE,...` records of the cuzk engine (reflog_timeline, from cuzk-core engine.rs),
* `CUZK_TIMING:` / `CUZK_NTT_H:` lines of supraseal-c2 (reflog_cuda),
* the daemon's tracing-subscriber lines, ANSI colour or not (reflog_tracing),
* cuzk-bench's and prooflab's batch lines and `=== Batch Summary ===` (reflog_bench),
* run markers: prooflab's `RUN_ID=<id>` and `=== run <id> ===`; a daemon restart
  (tracing "cuzk-daemon starting") and a second benchmark header also start a new run.

The file is read as a stream, one line at a time; frames are built once per run at the end.

A line is *recognised* when it is a record or an informational line of one of these
formats. A line that starts like one but breaks its syntax (cut by a killed writer, garbled
by an interleaved write: a record that does not start its line, a fragment of one, a
non-number where a number belongs) is *malformed*: it is reported with file:line and its
text, skipped and counted in the integrity section (`strict=True` makes it fatal). Any other
line is unrelated output. A file with no recognised line is refused.

Runs are split by markers only, never by gaps in time: TIMELINE offsets run from the
daemon's epoch, so a second batch against the same daemon continues the clock and a
time-gap rule would move boundary events into the wrong run.
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
from .reflog_bench import (
    BENCH_HEADER, COMPLETION_START, SUMMARY_HEADER, parse_bench_header_line, parse_completion,
    parse_prooflab_header, parse_summary_line, summary_key,
)
from .reflog_cuda import NTT_H_PREFIX, STAGE_NAMES, TIMING_PREFIX, parse_cuda
from .reflog_lines import LineError, check_job_id, quote, uint
from .reflog_timeline import PREFIX as TIMELINE_PREFIX, parse_timeline
from .reflog_tracing import looks_like_tracing, parse_tracing, strip_ansi

RUN_MARKERS: tuple[re.Pattern[str], ...] = (
    re.compile(r"RUN_ID=(?P<id>\S+)"),
    re.compile(r"=== run (?P<id>\S+) ==="),
)
_EMBEDDED = ("TIMELINE,", "CUZK_TIMING:", "CUZK_NTT_H:")
# The tail of a TIMELINE record whose start went into another line.
_FRAGMENT = re.compile(r"(?:^|,)(?:worker|partition|kind|synth_ms|gpu_ms)=\w|,monolithic$")
_DAEMON_START = "cuzk-daemon starting"
_WORKER_STARTED = ("pipeline GPU worker started", "monolithic GPU worker started")
_ASSEMBLED = "Phase 7: all partitions complete, proof assembled"
_COMPLETED_PREFIX = "proof completed successfully"
_SOME = re.compile(r"Some\((\d+)\)")
MALFORMED_KEPT = 1000  # malformed lines listed per run (all are counted)
CUT_REASON = "last line has no end of line: cut when the writer was killed"


@dataclass
class _Section:
    run_id: str | None
    first_line: int
    last_line: int = 0
    events: list[tuple] = field(default_factory=list)  # (line, offset_ms, event, job_id, partition, worker, kind, value)
    cuda: list[tuple] = field(default_factory=list)  # (line, key, value_ms, gpu_tid)
    prestage: list[tuple[int, str]] = field(default_factory=list)
    gpus_named: set[int] = field(default_factory=set)
    worker_gpu: dict[int, int] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    engine_done: list[dict[str, Any]] = field(default_factory=list)
    completions: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    bench: dict[str, Any] = field(default_factory=dict)
    malformed: list[tuple[int, str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"records": 0, "informational": 0, "malformed": 0, "other": 0})
    cut: bool = False

    def has_records(self) -> bool:
        return bool(self.events or self.cuda or self.prestage or self.completions or self.summary
                    or self.failures or self.engine_done)

    def has_bench(self) -> bool:
        return bool(self.bench or self.completions or self.summary)


def _partition_field(value: str | None) -> int | None:
    """`partition` as an event field (`3`) or a span's `?partition_index` (`Some(3)` / `None`)."""
    if value is None or value == "None":
        return None
    m = _SOME.fullmatch(value)
    return int(m.group(1)) if m else uint(value, "partition")


class _Scanner:
    def __init__(self, source: str, strict: bool):
        self.source = source
        self.strict = strict
        self.sections: list[_Section] = []
        self.current = self._open(None, 1)
        self.in_summary = False
        self.in_bench_header = False
        self.total_lines = 0

    def _open(self, run_id: str | None, lineno: int) -> _Section:
        section = _Section(run_id=run_id, first_line=lineno)
        self.sections.append(section)
        return section

    def _new_run(self, run_id: str | None, lineno: int) -> None:
        """A marker: `run_id` for an explicit one, None for a daemon restart or a second benchmark."""
        self.in_summary = self.in_bench_header = False
        cur = self.current
        if run_id is not None:
            if cur.run_id == run_id:
                return  # the same marker twice in a row
            for s in self.sections:
                if s.run_id == run_id:
                    raise RunFormatError(self.source, f"run id {run_id!r} appears again after another run (first at "
                                         f"line {s.first_line}); runs must be contiguous to be split exactly",
                                         line=lineno)
        if not cur.has_records():
            if run_id is not None and cur.run_id is None:
                cur.run_id, cur.first_line = run_id, lineno  # the marker names the run begun so far
                return
            if run_id is None:
                return  # nothing recorded yet: the run goes on
        self.current = self._open(run_id, lineno)

    def malformed(self, lineno: int, line: str, reason: str) -> None:
        if self.strict:
            raise RunFormatError(self.source, reason, line=lineno, content=quote(line))
        cur = self.current
        cur.counts["malformed"] += 1
        if len(cur.malformed) < MALFORMED_KEPT:
            cur.malformed.append((lineno, quote(line), reason))

    def feed(self, lines: Iterable[str]) -> None:
        lineno = 0
        previous: str | None = None
        for lineno, raw in enumerate(lines, start=1):
            if previous is not None:
                self._feed_line(lineno - 1, previous, last=False)
            previous = raw
        if previous is not None:
            self._feed_line(lineno, previous, last=True)
        self.total_lines = lineno

    def _feed_line(self, lineno: int, raw: str, last: bool) -> None:
        line = raw.rstrip("\r\n")
        if "\x1b" in line:
            line = strip_ansi(line)
        if last and line and not raw.endswith("\n"):
            self.malformed(lineno, line, CUT_REASON)
            self.current.cut = True
        else:
            try:
                self.current.counts[self._line(lineno, line)] += 1
            except LineError as err:
                self.malformed(lineno, line, str(err))
                if _DAEMON_START in line:
                    self._new_run(None, lineno)  # a restart written onto the cut last line of a killed daemon
        self.current.last_line = lineno

    def _line(self, lineno: int, line: str) -> str:
        cur = self.current
        first = line[:1]
        if first == "T" and line.startswith(TIMELINE_PREFIX):
            r = parse_timeline(line)
            cur.events.append((lineno, r.offset_ms, r.event, r.job_id, r.partition, r.worker, r.kind, r.value_ms))
            return "records"
        if first == "C" and (line.startswith(TIMING_PREFIX) or line.startswith(NTT_H_PREFIX)):
            c = parse_cuda(line)
            for key, value in c.durations_ms:
                cur.cuda.append((lineno, key, value, c.gpu_tid))
            if c.prestage_setup is not None:
                cur.prestage.append((lineno, c.prestage_setup))
            if c.gpu is not None:
                cur.gpus_named.add(c.gpu)
            return "informational" if c.informational else "records"
        for token in _EMBEDDED:
            if token in line:
                raise LineError(f"{token.rstrip(',:')} record does not start its line: garbled by an interleaved write")
        if first.isdigit() and looks_like_tracing(line):
            return self._tracing(lineno, line)
        if " " not in line and _FRAGMENT.search(line):
            raise LineError("fragment of a TIMELINE record: the rest of a line cut by an interleaved write")
        return self._marker_or_bench(lineno, line)

    def _tracing(self, lineno: int, line: str) -> str:
        t = parse_tracing(line)
        message = t.message
        if message == _DAEMON_START:
            self._new_run(None, lineno)
            return "informational"
        cur = self.current
        if message in _WORKER_STARTED:
            worker = uint(t.fields.get("worker_id", ""), "worker_id")
            cur.worker_gpu[worker] = uint(t.fields.get("gpu", ""), "gpu")
            return "informational"
        job_id = t.field("job_id")
        if job_id is not None:
            check_job_id(job_id, "tracing job_id")
        if t.level == "ERROR":
            error = t.fields.get("error")
            cur.failures.append({"line": lineno, "job_id": job_id, "partition": _partition_field(t.field("partition")),
                                 "reason": quote(f"{message}: {error}" if error else message or "error")})
            return "records"
        if message == _ASSEMBLED or message.startswith(_COMPLETED_PREFIX):
            done = {"line": lineno, "t_s": t.epoch_s(), "job_id": job_id, "message": message}
            for key in ("total_ms", "queue_ms", "synth_ms", "gpu_ms"):
                value = t.fields.get(key)
                done[key] = float(uint(value, key)) if value is not None else np.nan
            if np.isnan(done["total_ms"]):
                raise LineError(f"{message!r} without total_ms")
            cur.engine_done.append(done)
            return "records"
        return "informational"

    def _marker_or_bench(self, lineno: int, line: str) -> str:
        for pattern in RUN_MARKERS:
            m = pattern.fullmatch(line)
            if m:
                self._new_run(m["id"], lineno)
                return "informational"
        cur = self.current
        if self.in_summary:
            key = summary_key(line)
            if key is not None:
                parse_summary_line(key, line, cur.summary)
                return "records"
            self.in_summary = False
        if self.in_bench_header:
            parsed = parse_bench_header_line(line)
            if parsed is not None:
                cur.bench[parsed[0]] = parsed[1]
                return "informational"
            self.in_bench_header = line == "" and not cur.bench
        if COMPLETION_START.match(line):
            c = parse_completion(line)
            cur.completions.append({"line": lineno, "i": c.i, "n": c.n, "status": c.status, "wall_s": c.wall_s,
                                    "prove_ms": c.prove_ms, "queue_ms": c.queue_ms, "reason": c.reason,
                                    "driver": c.driver})
            return "records"
        if line == SUMMARY_HEADER:
            self.in_summary = True
            return "informational"
        header = parse_prooflab_header(line) if line.startswith("batch: ") else None
        if line == BENCH_HEADER or header is not None:
            if cur.has_bench():
                self._new_run(None, lineno)
            self.current.bench.update(header or {"driver": "cuzk-bench"})
            self.in_bench_header = header is None
            return "informational"
        return "other"


# ------------------------------------------------------------------ frames


def _jobs(section: _Section) -> pd.DataFrame:
    """One row per job id, numbered in order of first appearance; kind from its TIMELINE shape."""
    order: dict[str, int] = {}
    shapes: dict[str, set[bool]] = {}
    proof_kind: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for line, _, _, job_id, partition, _, kind, _ in section.events:
        order.setdefault(job_id, len(order))
        first_line.setdefault(job_id, line)
        shapes.setdefault(job_id, set()).add(partition is None)
        if kind:
            proof_kind[job_id] = kind
    for rec in section.failures + section.engine_done:
        if rec["job_id"] is not None:
            order.setdefault(rec["job_id"], len(order))
            first_line.setdefault(rec["job_id"], rec["line"])
    rows = []
    for job_id, job in order.items():
        s = shapes.get(job_id, set())
        kind = "monolithic" if s == {True} else "partitioned" if s == {False} else "mixed" if s else "unknown"
        rows.append({"job": job, "job_id": job_id, "kind": kind, "proof_kind": proof_kind.get(job_id, ""),
                     "first_line": first_line[job_id]})
    frame = pd.DataFrame(rows, columns=["job", "job_id", "kind", "proof_kind", "first_line"])
    frame["job"] = frame["job"].astype("int64")
    return frame


def _timeline_frame(section: _Section, jobs: dict[str, int], monolithic: set[str]) -> pd.DataFrame:
    if not section.events:
        return schema.empty_timeline()
    line, offset, event, job_id, partition, worker, kind, value = zip(*section.events)
    frame = pd.DataFrame({
        "line": np.asarray(line, dtype="int64"),
        "t_us": np.asarray(offset, dtype="int64") * 1000,
        "event": pd.array(event, dtype=object),
        "job": pd.array([jobs[j] for j in job_id], dtype=schema.INT_DTYPE),
        # A monolithic job is one GPU call: its single phase is partition 0.
        "partition": pd.array([0 if (p is None and j in monolithic) else p for p, j in zip(partition, job_id)],
                              dtype=schema.INT_DTYPE),
        "worker": pd.array(worker, dtype=schema.INT_DTYPE),
    })
    gpu = section.worker_gpu
    frame["device"] = pd.array([gpu.get(w) if w is not None else None for w in worker], dtype=schema.INT_DTYPE)
    names = {"SYNTH_END": "synth_ms", "GPU_END": "gpu_ms"}
    detail = []
    for ev, k, v in zip(event, kind, value):
        if v is not None:
            detail.append(f"{names[ev]}={v}")
        elif k:
            detail.append(f"kind={k}")
        else:
            detail.append("")
    frame["detail"] = pd.array(detail, dtype=object)
    return frame[schema.TIMELINE_COLUMNS].reset_index(drop=True)


def _cuda_frame(section: _Section) -> pd.DataFrame:
    cols = ["line", "key", "stage", "value_us", "gpu_tid"]
    if not section.cuda:
        frame = pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
    else:
        line, key, value, tid = zip(*section.cuda)
        frame = pd.DataFrame({"line": line, "key": pd.array(key, dtype=object),
                              "stage": pd.array([STAGE_NAMES.get(k, k) for k in key], dtype=object),
                              "value_us": np.asarray(value, dtype="float64") * 1000.0,
                              "gpu_tid": pd.array(tid, dtype=schema.INT_DTYPE)})
    frame["line"] = frame["line"].astype("int64")
    frame["value_us"] = frame["value_us"].astype("float64")
    frame["gpu_tid"] = frame["gpu_tid"].astype(schema.INT_DTYPE)
    # No CUZK line names a job: the C++ prover does not know the engine's job ids.
    frame["job"] = pd.array([pd.NA] * len(frame), dtype=schema.INT_DTYPE)
    frame["partition"] = pd.array([pd.NA] * len(frame), dtype=schema.INT_DTYPE)
    return frame


def _frame(rows: list[dict[str, Any]], cols: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=cols)


def _status(section: _Section) -> str:
    if section.summary:
        return "interrupted" if section.summary.get("interrupted") else "complete"
    return "interrupted" if section.cut else "unknown"


def _section_to_run(section: _Section, source: str, run_id: str, expected_partitions: int | None) -> Run:
    jobs = _jobs(section)
    index = dict(zip(jobs["job_id"], jobs["job"]))
    monolithic = set(jobs.loc[jobs["kind"] == "monolithic", "job_id"])
    timeline = _timeline_frame(section, index, monolithic)
    failures = _frame(section.failures, ["line", "job_id", "partition", "reason"])
    failures["job"] = pd.array([index.get(j) if j is not None else None for j in failures["job_id"]],
                               dtype=schema.INT_DTYPE)
    engine_done = _frame(section.engine_done, ["line", "t_s", "job_id", "message", "total_ms", "queue_ms", "synth_ms",
                                               "gpu_ms"])
    engine_done["job"] = pd.array([index.get(j) if j is not None else None for j in engine_done["job_id"]],
                                  dtype=schema.INT_DTYPE)
    completions = _frame(section.completions, ["line", "i", "n", "status", "wall_s", "prove_ms", "queue_ms", "reason",
                                               "driver"])
    summary = dict(section.summary)
    config: dict[str, Any] = {k: v for k, v in section.bench.items() if k in ("count", "concurrency", "partitions")}
    if "count" not in config and not completions.empty:
        config["count"] = int(completions["n"].max())
    if expected_partitions is not None:
        config["partitions"] = int(expected_partitions)
    meta = {
        "run_id": run_id,
        "source": "reference_log",
        "log": source,
        "first_line": section.first_line,
        "last_line": section.last_line,
        # The reference's GPU_START..GPU_END spans the lock wait, the kernels and b_g2_msm.
        "gpu_span": "reference",
        "status": _status(section),
        "config": config,
        "driver": section.bench.get("driver", "prooflab" if "partitions" in section.bench else ""),
        "lines": dict(section.counts),
        "worker_gpu": dict(section.worker_gpu),
        "gpus_named": sorted(section.gpus_named),
    }
    extras = {
        "jobs": jobs,
        "cuzk_timing": _cuda_frame(section),
        "prestage": _frame([{"line": l, "prestage_setup": v} for l, v in section.prestage], ["line", "prestage_setup"]),
        "failures": failures,
        "engine_done": engine_done,
        "completions": completions,
        "malformed": _frame([{"line": l, "text": t, "reason": r} for l, t, r in section.malformed],
                            ["line", "text", "reason"]),
    }
    notes = []
    if section.counts["malformed"]:
        notes.append(f"{section.counts['malformed']} malformed line(s) skipped (listed under Integrity)")
    return Run(path=None, meta=meta, timeline=timeline, stages=schema.empty_stages(), cupti=schema.empty_cupti(),
               counters=schema.empty_counters(), summary=summary, extras=extras, notes=notes)


def _names(sections: list[_Section], default_run_id: str) -> list[str]:
    unnamed = [s for s in sections if s.run_id is None]
    if len(sections) == 1 and unnamed:
        return [default_run_id]
    return [s.run_id if s.run_id is not None else f"{default_run_id}.{k}" for k, s in enumerate(sections, start=1)]


def parse_reference_log(
    lines: Iterable[str],
    *,
    source: str = "<log>",
    default_run_id: str = "run",
    expected_partitions: int | None = None,
    strict: bool = False,
) -> list[Run]:
    """Split a log into runs (by marker) and import each one.

    `lines` may keep their line ends (as a file iterates); a final line without one was cut
    by a killed writer.
    Job ids become integers 0.. in order of first appearance within each run;
    `Run.extras['jobs']` maps them back. Raises RunFormatError when no line is recognised,
    and (with `strict`) at the first malformed line.
    """
    scanner = _Scanner(source, strict)
    scanner.feed(lines)
    sections = [s for s in scanner.sections if s.has_records() or s.counts["malformed"] or s.run_id is not None]
    recognised = sum(s.counts["records"] + s.counts["informational"] for s in scanner.sections)
    if recognised == 0:
        bad = next((m for s in scanner.sections for m in s.malformed), None)
        hint = f"; first malformed line {source}:{bad[0]}: {bad[2]}: {bad[1]!r}" if bad else ""
        raise RunFormatError(source, f"none of its {scanner.total_lines} lines is a record or informational line of "
                             f"a format the importer knows (docs/reference-logs.md){hint}")
    if not sections:
        sections = scanner.sections[:1]
    names = _names(sections, default_run_id)
    return [_section_to_run(s, source, name, expected_partitions) for s, name in zip(sections, names)]


def load_reference_log(path: str | Path, *, expected_partitions: int | None = None, strict: bool = False) -> list[Run]:
    path = Path(path)
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        return parse_reference_log(fh, source=str(path), default_run_id=path.stem,
                                   expected_partitions=expected_partitions, strict=strict)


def reference_stage_long(run: Run) -> pd.DataFrame:
    """CUZK_TIMING / CUZK_NTT_H values as (job, partition, stage, value_us); job and partition
    are NA: the lines name no job."""
    timing = run.extras.get("cuzk_timing")
    if timing is None or timing.empty:
        return schema.empty_stage_long()
    return timing[schema.STAGE_LONG_COLUMNS].reset_index(drop=True)


def job_labels(run: Run, width: int = 8) -> dict[int, str]:
    """job number -> the job id as the log writes it, cut to the shortest unique prefix of at
    least `width` characters."""
    jobs = run.extras.get("jobs")
    if jobs is None or jobs.empty:
        return {}
    ids = list(jobs["job_id"])
    n = width
    while n < max(len(i) for i in ids) and len({i[:n] for i in ids}) < len(set(ids)):
        n += 1
    return {int(j): (i if len(i) <= n else i[:n]) for j, i in zip(jobs["job"], ids)}
