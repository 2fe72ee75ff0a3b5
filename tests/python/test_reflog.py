"""Importing real-format cuzk / supraseal-c2 / cuzk-bench logs: every line shape, malformed
lines, run splitting, jobs. Logs come from cuzk_logs.py, which also returns the truth."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import cuzk_logs
from cuzk_logs import Options, generate
from prooflab_analysis import integrity
from prooflab_analysis.loaders import RunFormatError
from prooflab_analysis.reflog import job_labels, load_reference_log, parse_reference_log

FULL = [Options(interleave=True, ansi=True, fail_partition=True, seed=5),
        Options(killed=True, bench=False, seed=6)]


def _parse(text: str, **kw):
    return parse_reference_log(text.splitlines(keepends=True), source="d.log", default_run_id="d", **kw)


def _count_shapes(text: str) -> dict[str, int]:
    keys = ("set pool release threshold", "d_a_cache allocated", "async_dealloc_ms=", "split_vectors_ms=",
            "prep_msm_ms=", "b_g2_msm_ms=", "pre_lock_cpu_ms=", "ntt_msm_h_ms=", "barrier_wait_ms=", "batch_add_ms=",
            "tail_msm_ms=", "mutex_held_ms=", "CUZK_NTT_H:")
    return {k: text.count(k) for k in keys}


def test_every_line_of_a_real_format_log_is_parsed_or_informational() -> None:
    log = generate([Options(ansi=False, seed=2), Options(ansi=True, seed=3)])
    runs = _parse(log.text)
    assert [r.run_id for r in runs] == ["d.1", "d.2"]
    for run, truth in zip(runs, log.runs):
        assert run.meta["lines"]["malformed"] == 0, run.extras["malformed"].to_dict("records")
        # every TIMELINE record and every duration of every CUZK line is read
        assert len(run.timeline) == sum(1 for l in log.text.splitlines()[truth.first_line - 1: run.meta["last_line"]]
                                        if l.startswith("TIMELINE,"))
        assert sorted(run.extras["cuzk_timing"]["value_us"] / 1000) == sorted(v for _, _, v in truth.cuda_events)
        assert run.meta["worker_gpu"] == truth.worker_gpu
        assert set(run.extras["jobs"]["job_id"]) == set(truth.jobs)
    shapes = _count_shapes(log.text)
    assert all(n > 0 for k, n in shapes.items() if k != "d_a_cache allocated")


def test_a_worker_on_two_gpus_in_one_run_is_a_malformed_line() -> None:
    # engine.rs numbers workers across all GPUs and a worker keeps its GPU, so a gpu_worker span
    # naming another GPU than the worker's start line is a broken (interleaved) line.
    text = ("2026-08-20T11:51:28.000001Z  INFO cuzk_core::engine: pipeline GPU worker started worker_id=2 gpu=1 sub_id=0\n"
            "2026-08-20T11:51:29.000001Z  INFO gpu_worker{worker_id=2 gpu=0 job_id=abc}: cuzk_core::engine: "
            "GPU_TIMING hot_path pre-prove overhead worker_id=2\n"
            "2026-08-20T11:51:30.000001Z  INFO gpu_worker{worker_id=3 gpu=1 job_id=abc}: cuzk_core::engine: "
            "GPU_TIMING hot_path pre-prove overhead worker_id=3\n"
            "TIMELINE,5,GPU_PICKUP,abc,worker=3,partition=0\n")
    run = _parse(text)[0]
    assert run.meta["worker_gpu"] == {2: 1, 3: 1}
    bad = run.extras["malformed"].to_dict("records")
    assert [r["line"] for r in bad] == [2]
    assert "worker 2 on gpu 0, but an earlier line of this run put it on gpu 1" in bad[0]["reason"]
    assert run.timeline["device"].tolist() == [1]  # worker 3's GPU, from its span


def test_the_non_key_value_cuzk_lines_are_informational() -> None:
    text = ("CUZK_TIMING: set pool release threshold to MAX on gpu 1\n"
            "CUZK_TIMING: d_a_cache allocated 4096 MiB on gpu 1\nTIMELINE,5,SYNTH_START,abc,partition=0\n")
    run = _parse(text)[0]
    assert run.meta["lines"] == {"records": 1, "informational": 2, "malformed": 0, "other": 0}
    assert run.meta["gpus_named"] == [1]


def test_runs_split_at_daemon_restarts_and_markers_never_by_time() -> None:
    log = generate([Options(seed=2), Options(seed=3)], run_ids=["alpha", "beta"])
    runs = _parse(log.text)
    assert [r.run_id for r in runs] == ["alpha", "beta"]
    for run, truth in zip(runs, log.runs):
        assert run.meta["first_line"] == truth.first_line
        # both runs restart the daemon's clock: their offsets overlap, only the marker splits them
        assert run.timeline["t_us"].min() == min(truth.submit.values()) * 1000
    assert runs[1].meta["first_line"] == runs[0].meta["last_line"] + 1


def test_interleaved_writes_are_reported_never_misread() -> None:
    log = generate(FULL)
    first, second = _parse(log.text)
    truth = log.runs[0]
    assert first.meta["lines"]["malformed"] == truth.garbled_lines
    reasons = " | ".join(first.extras["malformed"]["reason"])
    assert "does not start its line" in reasons and "fragment of a TIMELINE record" in reasons
    # no fragment became a job id, an event or a duration
    assert set(first.extras["jobs"]["job_id"]) == set(truth.jobs)
    assert 1777 not in set(first.extras["cuzk_timing"]["value_us"] / 1000)
    # the jobs that lost a record are excluded by id
    report = integrity.check_run(first)
    labels = dict(zip(first.extras["jobs"]["job"], first.extras["jobs"]["job_id"]))
    assert {labels[j] for j in report.excluded_jobs} == truth.excluded


def test_killed_daemon_cut_line_and_partitions_in_flight() -> None:
    log = generate(FULL)
    second = _parse(log.text)[1]
    truth = log.runs[1]
    bad = second.extras["malformed"]
    assert bad["reason"].tolist()[-1].startswith("last line has no end of line")
    assert bad["line"].tolist()[-1] == len(log.text.splitlines())
    assert second.meta["status"] == "interrupted"
    report = integrity.check_run(second)
    labels = dict(zip(second.extras["jobs"]["job"], second.extras["jobs"]["job_id"]))
    assert {labels[j] for j in report.excluded_jobs} == truth.excluded
    in_flight = {(p.job_id, p.partition if p.partition is not None else 0) for p in truth.partitions
                 if not p.ended and p.start <= truth.cut_at}
    flagged = report.issues[report.issues["check"] == "partition_incomplete"]
    assert {(labels[int(r.job)], int(r.partition)) for r in flagged.itertuples()} >= in_flight


def test_failed_partition_is_reported_with_its_reason_and_excluded() -> None:
    log = generate(FULL)
    first = _parse(log.text)[0]
    report = integrity.check_run(first)
    failed = report.issues[report.issues["check"] == "job_failed"]
    labels = job_labels(first, width=36)
    (job_id, reason), = log.runs[0].failed.items()
    assert [labels[int(j)] for j in failed["job"]] == [job_id]
    assert reason in failed["detail"].iloc[0]


def test_monolithic_jobs_have_one_gpu_phase_and_are_not_broken() -> None:
    log = generate([Options(jobs=2, monolithic_jobs=2, seed=4)])
    run = _parse(log.text)[0]
    jobs = run.extras["jobs"]
    truth = log.runs[0]
    assert dict(zip(jobs["job_id"], jobs["kind"])) == truth.kinds
    report = integrity.check_run(run, expected_partitions=4)
    assert report.ok, report.issues.to_dict("records")
    mono = jobs.loc[jobs["kind"] == "monolithic", "job"]
    assert set(run.timeline.loc[run.timeline["job"].isin(mono), "partition"]) == {0}


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("TIMELINE,12x,GPU_START,job-a,worker=0", "offset_ms '12x' is not a whole number"),
        ("TIMELINE,12,GPU_START", "needs TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>"),
        ("TIMELINE,12,GPU_BEGIN,job-a,worker=0", "event 'GPU_BEGIN' is not one cuzk emits"),
        ("TIMELINE,12,GPU_START,job-a,worker=zero", "GPU_START detail 'worker=zero' is not"),
        ("TIMELINE,12,GPU_END,job-a,worker=0,partition=1", "GPU_END detail"),
        ("TIMELINE,12,GPU_START,CUZK_TIMING: x,worker=0", "is not a job id"),
        ("CUZK_TIMING: prep_msm_ms=fast", "is no shape supraseal-c2 prints"),
        ("CUZK_TIMING: gpu_tid=0 batch_add_ms=-5", "negative duration"),
        ("CUZK_TIMING: prestage_setup=maybe", "is no shape"),
        ("CUZK_NTT_H: d_b_alloc=1ms", "CUZK_NTT_H line is not"),
        ("  [3/10] COMPLETED — 61.0s (prove=? ms, queue=270 ms)", "completion line is neither"),
        ("2026-08-20T11:00:00.000000Z ERROR cuzk_core::engine: partition GPU proving failed job_id=a b",
         "tracing job_id 'a b' is not a job id"),
    ],
)
def test_malformed_line_is_skipped_counted_and_named(bad: str, reason: str) -> None:
    lines = generate([Options(jobs=1, monolithic_jobs=0, noise=False, seed=9)]).text.splitlines(keepends=True)
    lines.insert(6, bad + "\n")  # becomes line 7
    run = parse_reference_log(lines, source="d.log")[0]
    bad_rows = run.extras["malformed"]
    assert bad_rows["line"].tolist() == [7] and bad_rows["text"].tolist() == [bad]
    assert reason in bad_rows["reason"].iloc[0]
    assert run.meta["lines"]["malformed"] == 1
    with pytest.raises(RunFormatError) as info:
        parse_reference_log(lines, source="d.log", strict=True)
    assert info.value.line == 7 and "d.log:7" in str(info.value) and reason in str(info.value)


def test_an_error_quotes_at_most_200_characters_of_the_line() -> None:
    long = "TIMELINE,1,GPU_START,job-a,worker=0" + "9" * 5000
    lines = ["TIMELINE,0,SYNTH_START,job-a,partition=0\n", long + "\n"]
    run = parse_reference_log(lines)[0]
    text = run.extras["malformed"]["text"].iloc[0]
    assert text.startswith(long[:200]) and len(text) < 260 and "more characters" in text
    with pytest.raises(RunFormatError) as info:
        parse_reference_log(lines, strict=True)
    assert len(str(info.value)) < 700


def test_a_file_with_no_recognised_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(os.urandom(200_000))
    with pytest.raises(RunFormatError, match="none of its .* lines is a record or informational line"):
        load_reference_log(path)
    with pytest.raises(RunFormatError, match=r"first malformed line d.log:2"):
        _parse("hello\nTIMELINE,oops,GPU_START,j\n")


def test_the_line_counts_add_up() -> None:
    log = generate(FULL)
    runs = _parse(log.text)
    total = sum(sum(r.meta["lines"].values()) for r in runs)
    assert total == len(log.text.splitlines())


def test_prooflab_batch_stdout_is_accepted() -> None:
    text = ("batch: porep-like 2^10; 3 proofs x 2 partitions, concurrency 2, lock=single dealloc=async gw=1 throttle=off\n"
            "[1/3] COMPLETED — 1.2s (prove=800 ms, queue=3 ms)\n"
            "[2/3] FAILED — 0.4s: partition 1: injected fault\n"
            "[3/3] COMPLETED — 1.6s (prove=900 ms, queue=5 ms)\n\n"
            "=== Batch Summary ===\ntotal time: 3.1 s\ncompleted: 2, failed: 1 (of 3)\n"
            "wall:  avg 1.4 s, min 1.2 s, max 1.6 s\nprove: avg 0.8 s, min 0.8 s, max 0.9 s\n"
            "throughput: 38.71 proofs/min (1.6 s/proof)\nrun directory: results/runs/x\n")
    run = _parse(text)[0]
    assert run.meta["lines"]["malformed"] == 0 and run.meta["lines"]["other"] == 1  # the blank line
    assert run.config == {"count": 3, "partitions": 2, "concurrency": 2}
    comp = run.extras["completions"]
    assert comp["status"].tolist() == ["COMPLETED", "FAILED", "COMPLETED"]
    assert comp["reason"].tolist()[1] == "partition 1: injected fault"
    assert run.summary == {"total_s": 3.1, "completed": 2, "failed": 1, "count": 3, "interrupted": False,
                           "wall_s": {"avg": 1.4, "min": 1.2, "max": 1.6}, "prove_s": {"avg": 0.8, "min": 0.8, "max": 0.9},
                           "throughput_proofs_per_min": 38.71, "s_per_proof": 1.6, "run_directory": "results/runs/x"}


def test_job_labels_are_the_log_s_ids_cut_to_a_unique_prefix() -> None:
    text = ("TIMELINE,0,SYNTH_START,porep-sector-0001,partition=0\n"
            "TIMELINE,1,SYNTH_START,porep-sector-0002,partition=0\n")
    run = _parse(text)[0]
    assert job_labels(run) == {0: "porep-sector-0001", 1: "porep-sector-0002"}
    uuid_log = generate([Options(jobs=2, monolithic_jobs=0, seed=3)])
    run = _parse(uuid_log.text)[0]
    assert set(job_labels(run).values()) == {j[:8] for j in uuid_log.runs[0].jobs}


def test_returning_run_id_is_an_error() -> None:
    text = "RUN_ID=a\nTIMELINE,0,SYNTH_START,x,partition=0\nRUN_ID=b\nTIMELINE,0,SYNTH_START,y,partition=0\nRUN_ID=a\n"
    with pytest.raises(RunFormatError, match="run id 'a' appears again"):
        _parse(text)
    assert cuzk_logs  # the generator module is what the other tests read
