"""Integrity checks: what gets flagged, and that flagged jobs leave the numbers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from builders import TimelineBuilder, known_stages, known_timeline, write_known_run
from prooflab_analysis import metrics
from prooflab_analysis.integrity import check_run, check_timeline
from prooflab_analysis.loaders import load_run


def _issues(report) -> list[tuple]:
    cols = ["check", "source", "job", "partition"]
    return [tuple(None if pd.isna(v) else v for v in r) for r in report.issues[cols].itertuples(index=False)]


def test_clean_run_has_no_issues(tmp_path: Path) -> None:
    report = check_run(load_run(write_known_run(tmp_path / "run")))
    assert report.ok
    assert report.excluded_jobs == frozenset()
    assert (report.expected_partitions, report.expected_source) == (2, "run.json")


def test_missing_partition_is_flagged_and_the_job_excluded_from_metrics(tmp_path: Path) -> None:
    run = load_run(write_known_run(tmp_path / "run", drop={(1, 1)}))
    report = check_run(run)
    assert _issues(report) == [
        ("missing_partition", "timeline", 1, 1),
        ("missing_partition", "stages", 1, 1),
    ]
    assert report.excluded_jobs == frozenset({1})
    assert "excluded job(s): 1" in report.describe()
    m = metrics.run_metrics(run, report=report)
    # Only jobs 0 and 2 count: 2 proofs over first JOB_SUBMIT (0) .. last JOB_DONE (1.2 s).
    assert m["jobs_excluded"] == 1 and m["excluded_jobs"] == "1"
    assert m["jobs_completed"] == 2
    assert m["s_per_proof"] == pytest.approx(0.6, rel=1e-12)
    assert m["latency_p50_s"] == pytest.approx((0.55 + 0.80) / 2, rel=1e-12)
    # GPU ms per partition over jobs 0 and 2: (200 + 180 + 90 + 140) / 4.
    assert m["gpu_ms_per_partition"] == pytest.approx(152.5, rel=1e-12)
    # The device was still busy with job 1's remaining partition: utilisation keeps it.
    assert m["gpu_busy"] == pytest.approx(760 / 1200, rel=1e-12)


def test_expected_partitions_parameter_overrides_run_json(tmp_path: Path) -> None:
    run = load_run(write_known_run(tmp_path / "run"))
    report = check_run(run, expected_partitions=3)
    assert report.expected_source == "parameter"
    assert {(c, j, p) for c, _, j, p in _issues(report)} == {
        ("missing_partition", j, 2) for j in (0, 1, 2)
    }
    assert report.excluded_jobs == frozenset({0, 1, 2})


def test_expected_partitions_inferred_when_unknown_and_said_so() -> None:
    report = check_timeline(known_timeline(drop={(2, 1)}))
    assert (report.expected_partitions, report.expected_source) == (2, "inferred")
    assert any("inferred" in n for n in report.notes)
    assert _issues(report) == [("missing_partition", "timeline", 2, 1)]


def test_duplicate_partition_and_unmatched_pair() -> None:
    tl = known_timeline()
    extra = tl[(tl["event"] == "GPU_END") & (tl["job"] == 2) & (tl["partition"] == 0)]
    doubled = pd.concat([tl, extra]).sort_index(kind="stable").reset_index(drop=True)  # written twice in a row
    report = check_timeline(doubled, expected_partitions=2)
    assert set(_issues(report)) == {
        ("duplicate_partition", "timeline", 2, 0),
        ("unmatched_pair", "timeline", 2, 0),
    }
    assert report.excluded_jobs == frozenset({2})


def test_start_without_end_is_unmatched() -> None:
    tl = known_timeline()
    tl = tl[~((tl["event"] == "SYNTH_END") & (tl["job"] == 0) & (tl["partition"] == 1))]
    report = check_timeline(tl, expected_partitions=2)
    assert _issues(report) == [("unmatched_pair", "timeline", 0, 1)]
    assert "SYNTH_START x1 vs SYNTH_END x0" in report.issues["detail"].iloc[0]


def test_worker_clock_going_backwards_is_flagged() -> None:
    tl = known_timeline().copy()
    # job 2 partition 0's GPU_START written after its GPU_PICKUP (910 ms) but stamped 880
    idx = tl.index[(tl["event"] == "GPU_START") & (tl["job"] == 2) & (tl["partition"] == 0)][0]
    tl.loc[idx, "t_us"] = 880_000
    report = check_timeline(tl, expected_partitions=2)
    checks = {(c, j, p) for c, _, j, p in _issues(report)}
    assert ("clock_regression", 2, 0) in checks
    regress = report.issues[report.issues["check"] == "clock_regression"]
    assert "30000 us before an earlier event of the same worker" in " ".join(regress["detail"])
    assert report.excluded_jobs == frozenset({2})


def test_end_before_start_is_a_clock_regression() -> None:
    b = TimelineBuilder()
    b.add(0, "JOB_SUBMIT", 0)
    b.add(10, "SYNTH_START", 0, 0).add(5, "SYNTH_END", 0, 0)
    b.add(20, "JOB_DONE", 0)
    report = check_timeline(b.frame(), expected_partitions=1)
    assert ("clock_regression", "timeline", 0, 0) in _issues(report)
    assert "SYNTH_END at 5000 us is before SYNTH_START at 10000 us" in " ".join(report.issues["detail"])


def test_failed_and_incomplete_jobs() -> None:
    b = TimelineBuilder()
    for job in (0, 1, 2):
        b.add(0, "JOB_SUBMIT", job)
        b.add(1, "SYNTH_START", job, 0).add(2, "SYNTH_END", job, 0)
    b.add(3, "JOB_DONE", 0)
    b.add(3, "JOB_FAILED", 1, detail="reason=out of memory")
    report = check_timeline(b.frame(), expected_partitions=1)
    assert set((c, j) for c, _, j, _ in _issues(report)) == {("job_failed", 1), ("incomplete_job", 2)}
    assert report.excluded_jobs == frozenset({1, 2})
    tp = metrics.throughput(b.frame(), report.excluded_jobs)
    assert (tp["completed"], tp["failed"]) == (1, 1)


def test_stages_duplicates_and_failures() -> None:
    stages = known_stages()
    dup = stages.iloc[[0]].copy()
    failed = stages.iloc[[3]].copy()
    failed["status"] = "failed"
    frame = pd.concat([stages.drop(index=3), dup, failed], ignore_index=True)
    report = check_timeline(known_timeline(), frame, expected_partitions=2)
    assert set(_issues(report)) == {
        ("duplicate_partition", "stages", 0, 0),
        ("partition_failed", "stages", 1, 1),
    }


def test_large_timeline_checks_clean_and_fast() -> None:
    import time

    from builders import synthetic_timeline

    timeline = synthetic_timeline(1_000_000)
    t0 = time.perf_counter()
    report = check_timeline(timeline, expected_partitions=10)
    elapsed = time.perf_counter() - t0
    print(f"\nintegrity on 1M events: {elapsed:.2f} s")
    assert report.ok, report.describe()
    assert elapsed < 30.0


def test_describe_shortens_long_exclusion_lists() -> None:
    from builders import synthetic_timeline

    report = check_timeline(synthetic_timeline(16 * 10 * 30), expected_partitions=11)
    assert len(report.excluded_jobs) == 30
    text = report.describe()
    assert "missing_partition x30" in text and text.endswith("... (30 jobs).")
