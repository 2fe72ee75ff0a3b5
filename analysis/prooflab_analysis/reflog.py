"""Import the real prover's logs: a cuzk daemon log and a benchmark driver's stdout.

Accepted formats, each from its source (docs/reference-logs.md has them in full):

* `TIMELINE,...` records of the cuzk engine (reflog_timeline, from cuzk-core engine.rs),
* `CUZK_TIMING:` / `CUZK_NTT_H:` lines of supraseal-c2 (reflog_cuda),
* the daemon's tracing-subscriber lines, ANSI colour or not (reflog_tracing),
* cuzk-bench's and prooflab's batch lines and `=== Batch Summary ===` (reflog_bench),
* run markers: prooflab's `RUN_ID=<id>` and `=== run <id> ===`; a daemon restart
  (tracing "cuzk-daemon starting") and a second benchmark header also start a new run.

A file is read in large chunks (reflog_chunks): the lines of the common exact shapes are
parsed a chunk at a time into typed arrays (by the compiled prooflab.ReflogScanner when the
module is built, else with numpy), every other line goes through the line-by-line scanner
below in file order; frames are built once per run at the end.

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
from typing import Any, BinaryIO, Iterable

import numpy as np
import pandas as pd

from . import schema
from .loaders import Run, RunFormatError, quote
from .reflog_chunks import ChunkScan, normalise, read_chunks, scan_chunk
from .reflog_bench import (
    BENCH_HEADER, COMPLETION_START, SUMMARY_HEADER, parse_bench_header_line, parse_completion,
    parse_prooflab_header, parse_summary_line, summary_key,
)
from .reflog_cuda import NTT_H_PREFIX, STAGE_NAMES, TIMING_PREFIX, parse_cuda
from .reflog_lines import LineError, check_job_id, uint
from .reflog_timeline import PREFIX as TIMELINE_PREFIX, parse_timeline
from .reflog_tracing import WORKER_SPAN, looks_like_tracing, parse_tracing, strip_ansi

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


class _Rows:
    """Records of one kind: rows added one at a time by the line scanner (tuples, None for an
    absent value) and whole column batches from reflog_chunks (-1 / "" for absent)."""

    def __init__(self, columns: dict[str, str]):
        self.columns = columns  # name -> "int" | "text"
        self.rows: list[tuple] = []
        self.batches: list[dict[str, np.ndarray]] = []

    def append(self, row: tuple) -> None:
        self.rows.append(row)

    def add_batch(self, batch: dict[str, np.ndarray]) -> None:
        self.batches.append(batch)

    def __bool__(self) -> bool:
        return bool(self.rows) or bool(self.batches)

    def take_arrays(self) -> dict[str, np.ndarray]:
        """All records as columns, in file order (stable within a line), taken out: the rows
        and batches are let go, so that the chunks' columns they were cut from are freed once
        the run's frame is built."""
        parts, self.batches = self.batches, []
        if self.rows:
            cols = list(zip(*self.rows))
            self.rows = []
            parts.append({name: np.array([-1 if v is None else v for v in col], dtype="int64") if kind == "int"
                          else np.array(["" if v is None else v for v in col], dtype=object)
                          for (name, kind), col in zip(self.columns.items(), cols)})
        if not parts:
            return {name: np.zeros(0, dtype="int64" if kind == "int" else object) for name, kind in self.columns.items()}
        out = {}
        for name in self.columns:
            out[name] = np.concatenate([p.pop(name) for p in parts])  # each part's column freed as it goes
        line = out["line"]
        if len(line) > 1 and not bool((line[1:] >= line[:-1]).all()):  # bulk rows and scanner rows interleave
            order = np.argsort(line, kind="stable")
            out = {name: v[order] for name, v in out.items()}
        return out


_EVENT_COLUMNS = {"line": "int", "offset_ms": "int", "event": "text", "job_id": "text", "partition": "int",
                  "worker": "int", "kind": "text", "value_ms": "int"}
_CUDA_COLUMNS = {"line": "int", "key": "text", "value_ms": "int", "gpu_tid": "int"}
_PRESTAGE_COLUMNS = {"line": "int", "prestage_setup": "text"}


@dataclass
class _Section:
    run_id: str | None
    first_line: int
    last_line: int = 0
    events: _Rows = field(default_factory=lambda: _Rows(_EVENT_COLUMNS))
    cuda: _Rows = field(default_factory=lambda: _Rows(_CUDA_COLUMNS))
    prestage: _Rows = field(default_factory=lambda: _Rows(_PRESTAGE_COLUMNS))
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
        # Bulk-read lines of one chunk taken by the current section but not yet cut out of
        # the chunk's columns: (section, scan, lo, hi) of scan.fast_lines[lo:hi].
        self._pending: tuple[_Section, ChunkScan, int, int] | None = None

    def _open(self, run_id: str | None, lineno: int) -> _Section:
        section = _Section(run_id=run_id, first_line=lineno)
        self.sections.append(section)
        return section

    def _new_run(self, run_id: str | None, lineno: int) -> None:
        """A marker: `run_id` for an explicit one, None for a daemon restart or a second benchmark."""
        self._flush()  # whether the current run has records decides what a marker does
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

    def feed_file(self, fh: BinaryIO, fast: bool = True) -> None:
        """A binary file a chunk at a time (`fast=False`: every line through the line scanner)."""
        lineno = 0
        for piece in read_chunks(fh):
            terminated = piece[-1] == 10  # b"\n"
            if not terminated:  # the file's last piece, its last line without an end of line
                piece = bytes(piece)
            cut_at = len(piece) if terminated else piece.rfind(b"\n") + 1
            if cut_at:
                scan = scan_chunk(piece[:cut_at], lineno + 1, fast, self._named_workers())
                self._apply(scan)
                lineno += scan.n_lines
            if not terminated:  # the last line of the file, with no end of line
                tail = normalise(piece[cut_at:]).split(b"\n")
                if len(tail) > 1 and not tail[-1]:
                    tail.pop()  # it ended with a lone \r: a line end
                for k, text in enumerate(tail):
                    lineno += 1
                    self._feed_text(lineno, text.decode("utf-8", errors="replace"), cut=k == len(tail) - 1)
        self.total_lines = lineno

    def _named_workers(self) -> dict[int, int]:
        """The GPU of every worker that a run so far put on one, -1 where runs differ."""
        named: dict[int, int] = {}
        for section in self.sections:
            for worker, gpu in section.worker_gpu.items():
                if named.setdefault(worker, gpu) != gpu:
                    named[worker] = -1
        return named

    def _apply(self, scan: ChunkScan) -> None:
        """The chunk's lines in file order: runs of bulk-read lines go to the section current at
        their place, the others through the line scanner."""
        lines = scan.fast_lines
        done = 0
        for lineno, text in scan.slow:
            if done < len(lines) and lines[done] < lineno:
                upto = int(np.searchsorted(lines, lineno))
                self._commit(scan, done, upto)
                done = upto
            self._feed_text(lineno, text, cut=False)
        if done < len(lines):
            self._commit(scan, done, len(lines))
        self._flush()

    def _commit(self, scan: ChunkScan, lo: int, hi: int) -> None:
        """Bulk-read lines lo..hi-1 of the chunk belong to the current section: counted now, their
        rows taken with the section's next ones (one batch per section and chunk)."""
        cur = self.current
        records = int(scan.fast_records[hi - 1] - (scan.fast_records[lo - 1] if lo else 0))
        cur.counts["records"] += records
        cur.counts["informational"] += hi - lo - records
        cur.last_line = int(scan.fast_lines[hi - 1])
        pending = self._pending
        if pending is not None and pending[0] is cur and pending[1] is scan:
            self._pending = (cur, scan, pending[2], hi)
            return
        self._flush()
        self._pending = (cur, scan, lo, hi)

    def _flush(self) -> None:
        if self._pending is None:
            return
        cur, scan, lo, hi = self._pending
        self._pending = None
        first, last = int(scan.fast_lines[lo]), int(scan.fast_lines[hi - 1])
        for rows, batch in ((cur.events, scan.events), (cur.cuda, scan.cuda), (cur.prestage, scan.prestage)):
            if batch:
                a, b = np.searchsorted(batch["line"], [first, last + 1])
                if b > a:
                    rows.add_batch({name: column[a:b] for name, column in batch.items()})
        spans = scan.worker_spans
        if spans and len(spans["line"]):
            # Workers of this run named by bulk-read spans: each names its worker's only GPU in
            # the file so far (reflog_chunks._tracing sends the line scanner every other span).
            a, b = np.searchsorted(spans["line"], [first, last + 1])
            for worker, gpu in set(zip(spans["worker"][a:b].tolist(), spans["gpu"][a:b].tolist())):
                cur.worker_gpu.setdefault(worker, gpu)

    def _feed_line(self, lineno: int, raw: str, last: bool) -> None:
        line = raw.rstrip("\r\n")
        if "\x1b" in line:
            line = strip_ansi(line)
        self._feed_text(lineno, line, cut=last and not raw.endswith("\n"))

    def _feed_text(self, lineno: int, line: str, cut: bool) -> None:
        """One line without its end (ANSI removed); `cut`: the file's last line had no end of line."""
        if cut and line:
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
            self._worker_on_gpu(uint(t.fields.get("worker_id", ""), "worker_id"), uint(t.fields.get("gpu", ""), "gpu"))
            return "informational"
        if WORKER_SPAN in t.span_names and "gpu" in t.span_fields:
            self._worker_on_gpu(uint(t.span_fields.get("worker_id", ""), "gpu_worker worker_id"),
                                uint(t.span_fields["gpu"], "gpu_worker gpu"))
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

    def _worker_on_gpu(self, worker: int, gpu: int) -> None:
        """cuzk numbers its workers across every GPU (engine.rs: `global_worker_id`), so a
        worker drives one GPU for the daemon's life: a second GPU for it is a broken line."""
        known = self.current.worker_gpu.setdefault(worker, gpu)
        if known != gpu:
            raise LineError(f"worker {worker} on gpu {gpu}, but an earlier line of this run put it on gpu {known}")

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


def _jobs(section: _Section, events: dict[str, np.ndarray]) -> tuple[pd.DataFrame, np.ndarray]:
    """One row per job id, numbered in order of first appearance; kind from its TIMELINE shape.
    Also each event's job number."""
    codes, ids = pd.factorize(events["job_id"], sort=False)
    n = len(ids)
    codes = codes.astype("int64")
    unnumbered = events["partition"] < 0
    has_none = np.bincount(codes, weights=unnumbered, minlength=n) > 0
    has_some = np.bincount(codes, weights=~unnumbered, minlength=n) > 0
    kinds = np.where(has_none & ~has_some, "monolithic", np.where(has_some & ~has_none, "partitioned", "mixed"))
    proof_kind = np.full(n, "", dtype=object)
    named = np.flatnonzero(events["kind"] != "")
    if len(named):
        last = pd.Series(events["kind"][named]).groupby(codes[named]).last()
        proof_kind[last.index.to_numpy()] = last.to_numpy()
    _, first_idx = np.unique(codes, return_index=True)
    columns = {"job_id": list(ids), "kind": kinds.tolist(), "proof_kind": proof_kind.tolist(),
               "first_line": events["line"][first_idx].tolist()}
    seen = set(columns["job_id"])
    for rec in section.failures + section.engine_done:
        if rec["job_id"] is not None and rec["job_id"] not in seen:
            seen.add(rec["job_id"])
            for key, value in (("job_id", rec["job_id"]), ("kind", "unknown"), ("proof_kind", ""),
                               ("first_line", rec["line"])):
                columns[key].append(value)
    frame = pd.DataFrame({"job": np.arange(len(columns["job_id"]), dtype="int64"),
                          **{key: pd.Series(values, dtype="int64" if key == "first_line" else object)
                             for key, values in columns.items()}})
    return frame, codes


def _nullable(values: np.ndarray) -> pd.arrays.IntegerArray:
    """-1 = absent."""
    return pd.arrays.IntegerArray(values.astype("int64", copy=False), values < 0)


def _timeline_frame(section: _Section, events: dict[str, np.ndarray], codes: np.ndarray,
                    monolithic: np.ndarray) -> pd.DataFrame:
    if not len(codes):
        return schema.empty_timeline()
    partition, worker, value, kind = events["partition"], events["worker"], events["value_ms"], events["kind"]
    # A monolithic job is one GPU call: its single phase is partition 0.
    partition = np.where((partition < 0) & monolithic[codes], 0, partition)
    gpu = section.worker_gpu
    if gpu:  # worker ids are any 18-digit numbers: looked up, not used as indices
        known = np.array(sorted(gpu), dtype="int64")
        at = np.minimum(np.searchsorted(known, worker), len(known) - 1)
        device = np.where((worker >= 0) & (known[at] == worker), np.array([gpu[w] for w in known.tolist()])[at], -1)
    else:
        device = np.full(len(worker), -1, dtype="int64")
    detail = np.full(len(codes), "", dtype=object)
    valued = np.flatnonzero(value >= 0)  # synth_ms of SYNTH_END, gpu_ms of GPU_END
    if len(valued):
        names = np.where(events["event"][valued] == "SYNTH_END", "synth_ms=", "gpu_ms=")
        detail[valued] = np.char.add(names, value[valued].astype(str)).astype(object)
    kinded = np.flatnonzero((value < 0) & (kind != ""))
    if len(kinded):
        detail[kinded] = np.char.add("kind=", kind[kinded].astype(str)).astype(object)
    frame = pd.DataFrame({
        "t_us": events["offset_ms"] * 1000,
        "event": pd.array(events["event"], dtype=object),
        "job": _nullable(codes),
        "partition": _nullable(partition),
        "worker": _nullable(worker),
        "device": _nullable(device),
        "detail": pd.array(detail, dtype=object),
    })
    return frame[schema.TIMELINE_COLUMNS].reset_index(drop=True)


def _cuda_frame(section: _Section) -> pd.DataFrame:
    cuda = section.cuda.take_arrays()
    key = cuda["key"]
    codes, keys = pd.factorize(key, sort=False)
    stage = np.array([STAGE_NAMES.get(k, k) for k in keys], dtype=object)[codes] if len(key) else key
    frame = pd.DataFrame({"line": cuda["line"], "key": pd.array(key, dtype=object),
                          "stage": pd.array(stage, dtype=object),
                          "value_us": cuda["value_ms"] * 1000.0,
                          "gpu_tid": _nullable(cuda["gpu_tid"])})
    # No CUZK line names a job: the C++ prover does not know the engine's job ids. (Zeros
    # under an all-true mask: pages the kernel never has to provide.)
    frame["job"] = pd.arrays.IntegerArray(np.zeros(len(frame), dtype="int64"), np.ones(len(frame), dtype=bool))
    frame["partition"] = pd.arrays.IntegerArray(np.zeros(len(frame), dtype="int64"), np.ones(len(frame), dtype=bool))
    return frame


def _frame(rows: list[dict[str, Any]], cols: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=cols)


def _status(section: _Section) -> str:
    if section.summary:
        return "interrupted" if section.summary.get("interrupted") else "complete"
    return "interrupted" if section.cut else "unknown"


def _section_to_run(section: _Section, source: str, run_id: str, expected_partitions: int | None) -> Run:
    events = section.events.take_arrays()
    jobs, codes = _jobs(section, events)
    index = dict(zip(jobs["job_id"], jobs["job"]))
    timeline = _timeline_frame(section, events, codes, (jobs["kind"] == "monolithic").to_numpy())
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
        "prestage": pd.DataFrame(section.prestage.take_arrays(), columns=["line", "prestage_setup"]),
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
    """Split a log into runs (by marker) and import each one, line by line.

    `lines` may keep their line ends (as a file iterates); a final line without one was cut
    by a killed writer.
    Job ids become integers 0.. in order of first appearance within each run;
    `Run.extras['jobs']` maps them back. Raises RunFormatError when no line is recognised,
    and (with `strict`) at the first malformed line.
    """
    scanner = _Scanner(source, strict)
    scanner.feed(lines)
    return _runs(scanner, source, default_run_id, expected_partitions)


def load_reference_log(path: str | Path, *, expected_partitions: int | None = None, strict: bool = False,
                       bulk: bool = True) -> list[Run]:
    """parse_reference_log of a file, read a chunk at a time; `bulk=False` sends every line
    through the line scanner (the definition the bulk reader is tested against)."""
    path = Path(path)
    scanner = _Scanner(str(path), strict)
    with path.open("rb") as fh:
        scanner.feed_file(fh, fast=bulk)
    return _runs(scanner, str(path), path.stem, expected_partitions)


def _runs(scanner: _Scanner, source: str, default_run_id: str, expected_partitions: int | None) -> list[Run]:
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
