"""Checks to run before any number is computed from a timeline.

Each check returns a frame of issues (`ISSUE_COLUMNS`). A job named in any issue is
excluded from per-job and per-partition metrics (latency, throughput count, GPU time
per partition, stage statistics): the reference analysis averaged a proof with 9 of
10 partitions into its results; here such a proof is flagged and left out, and every
report says how many jobs were left out and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

import numpy as np
import pandas as pd

from . import schema

if TYPE_CHECKING:
    from .loaders import Run

ISSUE_COLUMNS = ["check", "source", "job", "partition", "worker", "device", "t_us", "detail"]

CHECKS = (
    "missing_partition",  # a job lacks some of its expected partitions
    "unexpected_partition",  # partition index >= the expected partition count
    "duplicate_partition",  # a partition recorded twice (same event or stages row twice)
    "duplicate_job_event",  # JOB_SUBMIT / JOB_DONE twice for one job
    "unmatched_pair",  # a START without its END or an END without its START
    "incomplete_job",  # JOB_SUBMIT without JOB_DONE / JOB_FAILED
    "job_failed",  # JOB_FAILED: counted as failed, not timed
    "partition_failed",  # stages.csv status=failed
    "clock_regression",  # timestamps that go backwards where they must not
    "partition_incomplete",  # reference log: a partition that never reached GPU_END
    "job_shape",  # reference log: a job recorded both with and without partition numbers
)

# Events written by the GPU worker thread itself: their file order is their time order.
# (B_G2_MSM and DEALLOC events come from the pool / detached threads and may be written
# out of order with the worker's next partition, so they are not part of this check.)
WORKER_THREAD_EVENTS = frozenset(
    {"GPU_PICKUP", "LOCK_WAIT_START", "PRESTAGE_START", "PRESTAGE_END", "GPU_START", "NTT_H", "BATCH_ADD", "TAIL_MSM", "GPU_END"}
)

# The causal order of one partition through the pipeline.
PARTITION_CHAIN = ("SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END")

# Events that occur once per partition.
ONCE_PER_PARTITION = (
    "SYNTH_START",
    "SYNTH_END",
    "GPU_QUEUE",
    "GPU_PICKUP",
    "GPU_START",
    "GPU_END",
    "PREP_MSM_START",
    "PREP_MSM_END",
    "B_G2_MSM_START",
    "B_G2_MSM_END",
    "DEALLOC_START",
    "DEALLOC_END",
)


@dataclass
class IntegrityReport:
    """Issues found, the jobs they exclude, and how the expected partition count was set."""

    issues: pd.DataFrame
    excluded_jobs: frozenset[int]
    expected_partitions: int | None
    expected_source: str  # "parameter" | "run.json" | "inferred" | "unknown"
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.issues.empty

    def counts(self) -> pd.DataFrame:
        """Issues per check: check, issues, jobs."""
        if self.issues.empty:
            return pd.DataFrame({"check": pd.Series(dtype=object), "issues": pd.Series(dtype="int64"), "jobs": pd.Series(dtype="int64")})
        grouped = self.issues.groupby("check", sort=True)
        return pd.DataFrame(
            {"issues": grouped.size(), "jobs": grouped["job"].nunique()}
        ).reset_index()

    def describe(self) -> str:
        """One sentence for reports: what was excluded and why."""
        if self.ok:
            return "integrity: no issues; no job excluded."
        parts = [f"{row.check} x{row.issues}" for row in self.counts().itertuples()]
        excluded = sorted(self.excluded_jobs)
        jobs = ", ".join(str(j) for j in excluded[:20]) or "none"
        if len(excluded) > 20:
            jobs += f", ... ({len(excluded)} jobs)"
        return f"integrity: {len(self.issues)} issue(s) ({'; '.join(parts)}); excluded job(s): {jobs}."


def _issues(rows: Iterable[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ISSUE_COLUMNS)
    for col in ("job", "partition", "worker", "device", "t_us"):
        frame[col] = frame[col].astype(schema.INT_DTYPE)
    for col in ("check", "source", "detail"):
        frame[col] = frame[col].astype(object)
    return frame


def _empty() -> pd.DataFrame:
    return _issues([])


def _int(value: object) -> int | None:
    return None if value is None or pd.isna(value) else int(value)  # type: ignore[arg-type]


def infer_expected_partitions(timeline: pd.DataFrame) -> int | None:
    """Largest partition index + 1 seen in any job (None when no partition is recorded)."""
    parts = timeline["partition"].dropna()
    return None if parts.empty else int(parts.max()) + 1


def check_partitions(timeline: pd.DataFrame, expected: int, single_call_jobs: frozenset[int] = frozenset()) -> pd.DataFrame:
    """Every job with any event must have partitions 0..expected-1 and no others; a
    single-GPU-call ("monolithic") job of a reference log has exactly partition 0."""
    jobs = timeline["job"].dropna().unique()
    seen = timeline.loc[timeline["partition"].notna() & timeline["job"].notna(), ["job", "partition"]].drop_duplicates()
    by_job = seen.groupby("job")["partition"].agg(lambda s: frozenset(int(p) for p in s))
    rows = []
    for job in sorted(int(j) for j in jobs):
        wanted = frozenset({0}) if job in single_call_jobs else frozenset(range(expected))
        have = by_job.get(job, frozenset())
        for part in sorted(wanted - have):
            rows.append({"check": "missing_partition", "source": "timeline", "job": job, "partition": part,
                         "detail": f"{len(have & wanted)} of {len(wanted)} partitions recorded"})
        for part in sorted(have - wanted):
            rows.append({"check": "unexpected_partition", "source": "timeline", "job": job, "partition": part,
                         "detail": f"partition index {part} >= expected count {len(wanted)}"})
    return _issues(rows)


def check_duplicates(timeline: pd.DataFrame) -> pd.DataFrame:
    """A once-per-partition event seen twice for one (job, partition); job events twice."""
    rows = []
    part = timeline[timeline["event"].isin(ONCE_PER_PARTITION) & timeline["partition"].notna() & timeline["job"].notna()]
    counts = part.groupby(["job", "partition", "event"]).size()
    for (job, partition, event), n in counts[counts > 1].items():
        rows.append({"check": "duplicate_partition", "source": "timeline", "job": int(job), "partition": int(partition),
                     "detail": f"{event} recorded {n} times"})
    jobs = timeline[timeline["event"].isin(("JOB_SUBMIT", "JOB_DONE", "JOB_FAILED")) & timeline["job"].notna()]
    counts = jobs.groupby(["job", "event"]).size()
    for (job, event), n in counts[counts > 1].items():
        rows.append({"check": "duplicate_job_event", "source": "timeline", "job": int(job), "detail": f"{event} recorded {n} times"})
    return _issues(rows)


def check_pairs(timeline: pd.DataFrame) -> pd.DataFrame:
    """START/END events must pair up within each (job, partition); END not before START.

    Partition-less events (a reference log without partition keys) are paired per job
    by count only.
    """
    rows = []
    for start, end in schema.PARTITION_INTERVALS.values():
        sub = timeline[timeline["event"].isin((start, end)) & timeline["job"].notna()]
        if sub.empty:
            continue
        keyed = sub.assign(partition=sub["partition"].fillna(-1))
        counts = keyed.groupby(["job", "partition", "event"]).size().unstack(fill_value=0)
        for ev in (start, end):
            if ev not in counts.columns:
                counts[ev] = 0
        bad = counts[counts[start] != counts[end]]
        for (job, partition), n in bad.iterrows():
            detail = f"{start} x{n[start]} vs {end} x{n[end]}"
            rows.append({"check": "unmatched_pair", "source": "timeline", "job": int(job),
                         "partition": None if partition == -1 else int(partition), "detail": detail})
        single = counts[(counts[start] == 1) & (counts[end] == 1)].index
        if len(single):
            first = keyed.groupby(["job", "partition", "event"])["t_us"].min().unstack()
            first = first.loc[first.index.intersection(single)]
            back = first[first[end] < first[start]]
            for (job, partition), t in back.iterrows():
                rows.append({"check": "clock_regression", "source": "timeline", "job": int(job),
                             "partition": None if partition == -1 else int(partition), "t_us": int(t[end]),
                             "detail": f"{end} at {int(t[end])} us is before {start} at {int(t[start])} us"})
    return _issues(rows)


def check_jobs(timeline: pd.DataFrame) -> pd.DataFrame:
    """JOB_SUBMIT must end in JOB_DONE or JOB_FAILED; JOB_FAILED is reported.

    Skipped for timelines without JOB_SUBMIT events (reference logs do not have them).
    """
    rows = []
    jobs = timeline[timeline["event"].isin(("JOB_SUBMIT", "JOB_DONE", "JOB_FAILED")) & timeline["job"].notna()]
    failed = jobs[jobs["event"] == "JOB_FAILED"]
    for r in failed.itertuples():
        rows.append({"check": "job_failed", "source": "timeline", "job": int(r.job), "t_us": int(r.t_us),
                     "detail": r.detail or "JOB_FAILED"})
    if not (timeline["event"] == "JOB_SUBMIT").any():
        return _issues(rows)
    submitted = set(int(j) for j in jobs.loc[jobs["event"] == "JOB_SUBMIT", "job"])
    ended = set(int(j) for j in jobs.loc[jobs["event"].isin(("JOB_DONE", "JOB_FAILED")), "job"])
    for job in sorted(submitted - ended):
        rows.append({"check": "incomplete_job", "source": "timeline", "job": job, "detail": "JOB_SUBMIT without JOB_DONE or JOB_FAILED"})
    for job in sorted(ended - submitted):
        rows.append({"check": "unmatched_pair", "source": "timeline", "job": job, "detail": "JOB_DONE/JOB_FAILED without JOB_SUBMIT"})
    # Nothing of a job may happen before it was submitted.
    submit_t = jobs[jobs["event"] == "JOB_SUBMIT"].groupby("job")["t_us"].min()
    others = timeline[timeline["job"].notna() & (timeline["event"] != "JOB_SUBMIT")]
    earliest = others.groupby("job")["t_us"].min()
    both = pd.concat([submit_t.rename("submit"), earliest.rename("first")], axis=1).dropna()
    for job, r in both[both["first"] < both["submit"]].iterrows():
        rows.append({"check": "clock_regression", "source": "timeline", "job": int(job), "t_us": int(r["first"]),
                     "detail": f"event at {int(r['first'])} us before JOB_SUBMIT at {int(r['submit'])} us"})
    return _issues(rows)


def check_clock(timeline: pd.DataFrame) -> pd.DataFrame:
    """Worker-thread events must not go back in time in file order, and each partition
    must pass SYNTH_START <= SYNTH_END <= GPU_QUEUE <= GPU_PICKUP <= GPU_START <= GPU_END."""
    rows = []
    sub = timeline[timeline["event"].isin(WORKER_THREAD_EVENTS) & timeline["worker"].notna()]
    if not sub.empty:
        keys = [sub["device"].fillna(-1), sub["worker"]]
        prev_max = sub.groupby(keys)["t_us"].cummax().groupby(keys).shift(1)
        back = sub[sub["t_us"] < prev_max]
        for idx, r in back.iterrows():
            rows.append({"check": "clock_regression", "source": "timeline", "job": _int(r["job"]),
                         "partition": _int(r["partition"]), "worker": int(r["worker"]), "device": _int(r["device"]),
                         "t_us": int(r["t_us"]),
                         "detail": f"{r['event']} at {int(r['t_us'])} us is {int(prev_max[idx] - r['t_us'])} us "
                                   f"before an earlier event of the same worker (timeline row {idx})"})
    chain = timeline[timeline["event"].isin(PARTITION_CHAIN) & timeline["partition"].notna() & timeline["job"].notna()]
    if not chain.empty:
        first = chain.groupby(["job", "partition", "event"])["t_us"].min().unstack()
        present = [e for e in PARTITION_CHAIN if e in first.columns]
        flagged: set[tuple[int, int]] = set()
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                back = first[(first[b] < first[a]).fillna(False)]
                for (job, partition), t in back.iterrows():
                    if (job, partition) in flagged:
                        continue
                    flagged.add((job, partition))
                    rows.append({"check": "clock_regression", "source": "timeline", "job": int(job),
                                 "partition": int(partition), "t_us": int(t[b]),
                                 "detail": f"{b} at {int(t[b])} us is before {a} at {int(t[a])} us"})
    return _issues(rows)


def check_stages(stages: pd.DataFrame, expected: int | None) -> pd.DataFrame:
    """stages.csv: one row per (job, partition), all partitions present, failures reported."""
    rows = []
    if stages.empty:
        return _issues(rows)
    counts = stages.groupby(["job", "partition"]).size()
    for (job, partition), n in counts[counts > 1].items():
        rows.append({"check": "duplicate_partition", "source": "stages", "job": int(job), "partition": int(partition),
                     "detail": f"{n} rows in stages.csv"})
    for r in stages[stages["status"].astype(str) == "failed"].itertuples():
        rows.append({"check": "partition_failed", "source": "stages", "job": int(r.job), "partition": int(r.partition),
                     "detail": "stages.csv status=failed"})
    if expected is not None:
        wanted = frozenset(range(expected))
        for job, parts in stages.groupby("job")["partition"]:
            have = frozenset(int(p) for p in parts)
            for part in sorted(wanted - have):
                rows.append({"check": "missing_partition", "source": "stages", "job": int(job), "partition": part,
                             "detail": f"{len(have & wanted)} of {expected} partitions in stages.csv"})
            for part in sorted(have - wanted):
                rows.append({"check": "unexpected_partition", "source": "stages", "job": int(job), "partition": part,
                             "detail": f"partition index {part} >= expected count {expected}"})
    return _issues(rows)


def check_timeline(
    timeline: pd.DataFrame,
    stages: pd.DataFrame | None = None,
    *,
    expected_partitions: int | None = None,
    config_partitions: int | None = None,
    single_call_jobs: frozenset[int] = frozenset(),
) -> IntegrityReport:
    """Run every check. The expected partition count comes from `expected_partitions`
    (a parameter), else `config_partitions` (run.json), else it is inferred as the
    largest partition index + 1 and the report says so."""
    notes: list[str] = []
    if expected_partitions is not None:
        expected, source = int(expected_partitions), "parameter"
    elif config_partitions is not None:
        expected, source = int(config_partitions), "run.json"
    else:
        expected = infer_expected_partitions(timeline[~timeline["job"].isin(list(single_call_jobs))])
        source = "inferred" if expected is not None else "unknown"
        if expected is not None:
            notes.append(
                f"expected partitions inferred as {expected} (largest index + 1); pass the count to make the "
                "missing-partition check independent of the data"
            )
        else:
            notes.append("no partition numbers recorded: missing-partition check skipped")
    frames = [check_duplicates(timeline), check_pairs(timeline), check_jobs(timeline), check_clock(timeline)]
    if expected is not None:
        frames.insert(0, check_partitions(timeline, expected, single_call_jobs))
    if stages is not None:
        frames.append(check_stages(stages, expected))
    frames = [f for f in frames if not f.empty]
    issues = pd.concat(frames, ignore_index=True) if frames else _empty()
    excluded = frozenset(int(j) for j in issues["job"].dropna().unique())
    return IntegrityReport(issues=issues, excluded_jobs=excluded, expected_partitions=expected,
                           expected_source=source, notes=notes)


def check_reference_log(run: Run) -> pd.DataFrame:
    """What only a reference log can get wrong: a partition that never reached GPU_END
    (killed daemon, failed or garbled partition), a job that the log says failed (tracing
    ERROR line, with its reason), a job recorded both with and without partition numbers."""
    rows = []
    tl = run.timeline
    jobs = run.extras.get("jobs")
    parts = tl[tl["job"].notna() & tl["partition"].notna()]
    if not parts.empty:
        ended = set(map(tuple, parts.loc[parts["event"] == "GPU_END", ["job", "partition"]].astype("int64").to_numpy()))
        last = parts.sort_values("t_us", kind="stable").groupby(["job", "partition"]).tail(1)
        for r in last.itertuples():
            if (int(r.job), int(r.partition)) not in ended:
                rows.append({"check": "partition_incomplete", "source": "log", "job": int(r.job),
                             "partition": int(r.partition), "worker": _int(r.worker), "device": _int(r.device),
                             "t_us": int(r.t_us), "detail": f"last event {r.event}, no GPU_END"})
    failures = run.extras.get("failures")
    if failures is not None:
        for r in failures.itertuples():
            if pd.notna(r.job):
                rows.append({"check": "job_failed", "source": "log", "job": int(r.job),
                             "partition": _int(r.partition), "detail": f"line {r.line}: {r.reason}"})
    if jobs is not None:
        for r in jobs[jobs["kind"] == "mixed"].itertuples():
            rows.append({"check": "job_shape", "source": "log", "job": int(r.job),
                         "detail": "TIMELINE records with and without partition numbers"})
    return _issues(rows)


def check_run(run: Run, expected_partitions: int | None = None) -> IntegrityReport:
    """`check_timeline` on a loaded run, taking the partition count from run.json; for a
    reference log also `check_reference_log`, with its monolithic jobs as one-partition jobs."""
    reference = run.meta.get("source") == "reference_log"
    jobs = run.extras.get("jobs") if reference else None
    single = frozenset(int(j) for j in jobs.loc[jobs["kind"] == "monolithic", "job"]) if jobs is not None else frozenset()
    report = check_timeline(
        run.timeline,
        run.stages,
        expected_partitions=expected_partitions,
        config_partitions=run.expected_partitions,
        single_call_jobs=single,
    )
    if reference:
        extra = check_reference_log(run)
        if not extra.empty:
            issues = pd.concat([f for f in (report.issues, extra) if not f.empty], ignore_index=True)
            report.issues = issues
            report.excluded_jobs = frozenset(int(j) for j in issues["job"].dropna().unique())
    return report


def without_jobs(frame: pd.DataFrame, jobs: Iterable[int]) -> pd.DataFrame:
    """Rows of `frame` (with a `job` column) whose job is not in `jobs`."""
    jobs = list(jobs)
    if not jobs:
        return frame
    return frame[~frame["job"].isin(np.asarray(jobs, dtype="int64"))]
