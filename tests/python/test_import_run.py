"""import_run.import_reference_log: the one function the external runner calls. A daemon's
stderr and a bench's stdout (the real cuzk formats, as the stand-in writes them) become one
run directory that the loaders read back; the errors name the file and the line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from prooflab_analysis import metrics
from prooflab_analysis.import_run import NothingImportable, import_reference_log
from prooflab_analysis.loaders import load_run

DAEMON = """\
INFO cuzk_daemon: cuzk-daemon ready, serving on unix:///tmp/x.sock
TIMELINE,100,SYNTH_START,5f0c-aaaa,partition=0
TIMELINE,100,SYNTH_START,5f0c-aaaa,partition=1
TIMELINE,900,SYNTH_END,5f0c-aaaa,partition=0,synth_ms=800
TIMELINE,900,GPU_QUEUE,5f0c-aaaa,partition=0
TIMELINE,910,GPU_PICKUP,5f0c-aaaa,worker=0,partition=0
TIMELINE,910,GPU_START,5f0c-aaaa,worker=0,partition=0
CUZK_TIMING: pre_lock_cpu_ms=0 mutex_wait_ms=0
CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=990
TIMELINE,950,SYNTH_START,77de-bbbb,partition=0
TIMELINE,950,SYNTH_START,77de-bbbb,partition=1
TIMELINE,1000,SYNTH_END,5f0c-aaaa,partition=1,synth_ms=900
TIMELINE,2710,GPU_END,5f0c-aaaa,worker=0,partition=0,gpu_ms=1800
TIMELINE,2720,GPU_PICKUP,5f0c-aaaa,worker=1,partition=1
TIMELINE,2720,GPU_START,5f0c-aaaa,worker=1,partition=1
TIMELINE,4520,GPU_END,5f0c-aaaa,worker=1,partition=1,gpu_ms=1800
TIMELINE,1750,SYNTH_END,77de-bbbb,partition=0,synth_ms=800
TIMELINE,4530,GPU_PICKUP,77de-bbbb,worker=0,partition=0
TIMELINE,4530,GPU_START,77de-bbbb,worker=0,partition=0
TIMELINE,6330,GPU_END,77de-bbbb,worker=0,partition=0,gpu_ms=1800
TIMELINE,1760,SYNTH_END,77de-bbbb,partition=1,synth_ms=810
TIMELINE,6340,GPU_PICKUP,77de-bbbb,worker=1,partition=1
TIMELINE,6340,GPU_START,77de-bbbb,worker=1,partition=1
TIMELINE,8140,GPU_END,77de-bbbb,worker=1,partition=1,gpu_ms=1800
"""

BENCH = """\
=== Batch Benchmark ===
proof type:  porep
count:       2
concurrency: 2

  [1/2] COMPLETED — 4.4s (prove=3610 ms, queue=0 ms)
  [2/2] COMPLETED — 5.4s (prove=1800 ms, queue=0 ms)

=== Batch Summary ===
total time:    6.3s
completed:     2
failed:        0
wall time:     avg=4.9s min=4.4s max=5.4s
prove time:    avg=2.7s min=1.8s max=3.6s
throughput:    19.048 proofs/min (3.1s/proof)
"""


@pytest.fixture
def logs(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "setup.stderr").write_text(DAEMON)
    (tmp_path / "run.stdout").write_text(BENCH)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"run_id": "r", "status": "complete", "config": {"count": 2}}))
    return tmp_path / "setup.stderr", tmp_path / "run.stdout", run_dir


def test_daemon_and_bench_logs_become_one_run(logs: tuple[Path, Path, Path]) -> None:
    daemon, bench, run_dir = logs
    summary = import_reference_log([daemon, run_dir / "absent.log", bench], run_dir, expected_partitions=2)
    assert summary["s_per_proof"] == 3.1
    assert summary["completed"] == 2 and summary["count"] == 2
    run = load_run(run_dir)
    assert run.summary == summary
    tl = run.timeline
    assert len(tl) == DAEMON.count("TIMELINE,")
    # Job ids in order of first appearance; offsets in µs; the file's order kept for equal times.
    assert list(tl.loc[tl["event"] == "GPU_END", "job"]) == [0, 0, 1, 1]
    assert list(tl["t_us"]) == sorted(tl["t_us"])
    assert tl.loc[tl["event"] == "GPU_END", "t_us"].max() == 8_140_000
    # The GPU_END of job 0 partition 1 carries worker 1 from its own detail.
    row = tl[(tl["event"] == "GPU_END") & (tl["job"] == 0) & (tl["partition"] == 1)].iloc[0]
    assert row["worker"] == 1
    # Every metric the A/B tables use comes from the timeline: 2 jobs done, first event
    # 100 ms, last GPU_END 8140 ms.
    m = metrics.run_metrics(run, expected_partitions=None)
    assert m["jobs_completed"] == 2
    assert m["s_per_proof"] == pytest.approx((8.140 - 0.100) / 2)


def test_a_bench_output_alone_gives_the_summary_throughput(logs: tuple[Path, Path, Path]) -> None:
    _, bench, run_dir = logs
    import_reference_log([bench], run_dir)
    run = load_run(run_dir)
    assert run.timeline.empty
    # No timeline value; the report's A/B tables then take summary.json's (report.SUMMARY_FALLBACK).
    assert math.isnan(metrics.run_metrics(run)["s_per_proof"])
    assert run.summary["s_per_proof"] == 3.1
    assert run.summary["throughput_proofs_per_min"] == 19.048


def test_nothing_importable(logs: tuple[Path, Path, Path]) -> None:
    daemon, _, run_dir = logs
    with pytest.raises(NothingImportable, match=r"no '=== Batch Summary ===' with a 'throughput:' line in .*setup.stderr"):
        import_reference_log([daemon], run_dir)
    assert not (run_dir / "summary.json").exists()
    failed_only = run_dir.parent / "failed.out"
    failed_only.write_text("=== Batch Summary ===\ntotal time:    1.0s\ncompleted:     0\nfailed:        3\n")
    with pytest.raises(NothingImportable, match=r"has no 'throughput:' line \(completed: 0, failed: 3\)"):
        import_reference_log([failed_only], run_dir)


def test_a_malformed_line_is_skipped_and_counted(logs: tuple[Path, Path, Path]) -> None:
    daemon, bench, run_dir = logs
    lines = DAEMON.splitlines()
    lines[3] = "TIMELINE,9x0,SYNTH_END,5f0c-aaaa,partition=0"
    daemon.write_text("\n".join(lines) + "\n")
    summary = import_reference_log([daemon, bench], run_dir)
    assert summary["malformed_lines"] == 1
    assert len(load_run(run_dir).timeline) == DAEMON.count("TIMELINE,") - 1


def test_a_file_of_unrelated_output_is_skipped(logs: tuple[Path, Path, Path]) -> None:
    _, bench, run_dir = logs
    chatter = bench.with_name("setup.stdout")
    chatter.write_text("starting up\nlistening\n")
    empty = bench.with_name("run.stderr")
    empty.write_text("")
    summary = import_reference_log([chatter, empty, bench], run_dir)
    assert summary["completed"] == 2 and summary["malformed_lines"] == 0


def test_two_summaries_are_refused(logs: tuple[Path, Path, Path]) -> None:
    _, bench, run_dir = logs
    copy = bench.with_name("again.out")
    copy.write_text(BENCH)
    with pytest.raises(ValueError, match="both .* hold a Batch Summary"):
        import_reference_log([bench, copy], run_dir)
