"""Importing reference-format logs: exact run splitting, records, malformed lines."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from builders import ALPHA_EVENTS, BETA_EVENTS, REFERENCE_LOG
from prooflab_analysis import schema
from prooflab_analysis.loaders import RunFormatError
from prooflab_analysis.reflog import PREAMBLE_RUN_ID, load_reference_log, parse_reference_log


def _runs(text: str = REFERENCE_LOG, **kw):
    return parse_reference_log(text.splitlines(), source="test.log", **kw)


def test_log_splits_exactly_at_run_markers_not_at_time_gaps() -> None:
    runs = _runs()
    assert [r.run_id for r in runs] == ["alpha", "beta"]
    alpha, beta = runs
    assert len(alpha.timeline) == ALPHA_EVENTS
    assert len(beta.timeline) == BETA_EVENTS
    # alpha holds a 94 s gap inside it and ends 1 ms before beta starts: only the
    # marker decides where each event belongs.
    assert alpha.timeline["t_us"].max() == 101_420_000
    assert beta.timeline["t_us"].min() == 101_421_000
    assert alpha.meta["first_line"] == 3 and alpha.meta["last_line"] == 37
    assert beta.meta["first_line"] == 38
    assert alpha.meta["gpu_span"] == "reference"


def test_timeline_records_become_the_tidy_frame() -> None:
    alpha = _runs()[0]
    tl = alpha.timeline
    assert list(tl.columns) == schema.TIMELINE_COLUMNS
    # t_us = offset_ms * 1000; job ids numbered in order of appearance.
    first = tl.iloc[0]
    assert (first["t_us"], first["event"], first["job"], first["partition"]) == (1_000_000, "SYNTH_START", 0, 0)
    assert alpha.extras["jobs"].to_dict("records") == [{"job": 0, "job_id": "job-aaa"}, {"job": 1, "job_id": "job-late"}]
    # GPU_START / GPU_END carry the worker of the GPU_PICKUP of the same partition.
    gpu = tl[tl["event"].isin(["GPU_START", "GPU_END"]) & (tl["job"] == 0)]
    assert gpu.set_index(["event", "partition"])["worker"].to_dict() == {
        ("GPU_START", 0): 0, ("GPU_END", 0): 0, ("GPU_START", 1): 1, ("GPU_END", 1): 1,
    }
    assert gpu["device"].tolist() == [0, 0, 0, 0]
    # keys not mapped to columns stay in detail, as k=v;k=v
    end = tl[(tl["event"] == "GPU_END") & (tl["job"] == 0) & (tl["partition"] == 0)].iloc[0]
    assert end["detail"] == "gpu_ms=2000"
    # The line that mentions TIMELINE in the middle is unrelated output.
    assert "SHOULD_NOT_PARSE" not in set(tl["event"])


def test_records_without_partition_key_keep_partition_empty() -> None:
    beta = _runs()[1]
    assert beta.timeline["partition"].isna().all()
    assert beta.timeline["worker"].tolist()[2:] == [0, 0, 0]
    assert beta.timeline["detail"].tolist()[-1] == "gpu_ms=11400"


def test_cuzk_timing_values_in_microseconds() -> None:
    alpha, beta = _runs()
    timing = alpha.extras["cuzk_timing"]
    values = timing.dropna(subset=["stage"]).set_index("stage")["value_us"].to_dict()
    assert values == {
        "prep_msm": 1_800_000.0, "b_g2_msm": 400_000.0, "lock_wait": 5_000.0, "ntt_h": 1_200_000.0,
        "batch_add": 300_000.0, "tail_msm": 320_000.0, "gpu_total": 1_820_000.0, "lock_held": 1_900_000.0,
        "dealloc": 350_000.0,
    }
    assert timing.loc[timing["key"] == "prestage_setup", "text"].tolist() == ["ok"]
    assert alpha.stages.empty  # alpha's CUZK_TIMING lines name no job: not attributable
    # beta's line names job and partition, so it becomes a stages row.
    assert len(beta.stages) == 1
    row = beta.stages.iloc[0]
    assert (row["job"], row["partition"], row["prep_msm_us"], row["pre_destructor_us"], row["prestage"]) == (
        0, 0, 1_700_000, 11_400_000, "skip_vram")


def test_completion_lines_and_batch_summary() -> None:
    alpha, beta = _runs()
    comp = alpha.extras["completions"]
    assert comp[["i", "n", "status", "wall_s", "prove_ms", "queue_ms"]].to_dict("records") == [
        {"i": 1, "n": 2, "status": "COMPLETED", "wall_s": 6.0, "prove_ms": 4010.0, "queue_ms": 270.0},
        {"i": 2, "n": 2, "status": "COMPLETED", "wall_s": 101.5, "prove_ms": 1000.0, "queue_ms": 10.0},
    ]
    assert alpha.summary == {
        "total_s": 101.5, "completed": 2, "failed": 0, "wall_s": {"avg": 53.8, "min": 6.0, "max": 101.5},
        "prove_s": {"avg": 2.5, "min": 1.0, "max": 4.0}, "throughput_proofs_per_min": 1.182,
        "s_per_proof": 50.8, "count": 2,
    }
    assert alpha.meta["status"] == "complete"
    assert beta.summary == {"count": 1}
    assert beta.meta["status"] == "unknown"


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("TIMELINE,12x,GPU_START,job-aaa,partition=0", "offset_ms '12x' is not a non-negative number"),
        ("TIMELINE,12,GPU_START", "needs TIMELINE,<offset_ms>,<EVENT>,<job_id>"),
        ("TIMELINE,12,gpu_start,job-aaa", "event 'gpu_start' is not an upper-case name"),
        ("TIMELINE,12,GPU_START,job-aaa,partition", "detail token 'partition' is not key=value"),
        ("TIMELINE,12,GPU_START,job-aaa,partition=two", "partition='two' is not a non-negative integer"),
        ("CUZK_TIMING: prep_msm_ms=fast", "prep_msm_ms='fast' is not a number"),
        ("CUZK_TIMING:", "has no key=value pairs"),
        ("CUZK_TIMING: prestage_setup=maybe", "prestage_setup='maybe'"),
        ("  [3/10] COMPLETED — 61.0s (prove=? ms, queue=270 ms)", "completion line does not match"),
    ],
)
def test_malformed_record_names_line_number_and_content(bad: str, reason: str) -> None:
    lines = REFERENCE_LOG.splitlines()
    lines.insert(6, bad)  # becomes line 7
    with pytest.raises(RunFormatError) as info:
        parse_reference_log(lines, source="test.log")
    err = info.value
    assert err.line == 7
    assert err.content == bad
    assert reason in str(err)
    assert "test.log:7" in str(err)


def test_malformed_batch_summary_line_is_an_error() -> None:
    text = REFERENCE_LOG.replace("throughput:    1.182 proofs/min (50.8s/proof)", "throughput:    lots")
    line_no = REFERENCE_LOG.splitlines().index("throughput:    1.182 proofs/min (50.8s/proof)") + 1
    with pytest.raises(RunFormatError, match="'throughput' does not parse") as info:
        _runs(text)
    assert info.value.line == line_no


def test_log_without_marker_is_one_run_named_after_the_file(tmp_path: Path) -> None:
    body = "\n".join(l for l in REFERENCE_LOG.splitlines() if not l.startswith(("RUN_ID=", "=== run ")))
    path = tmp_path / "daemon-2026.log"
    path.write_text(body)
    runs = load_reference_log(path, expected_partitions=2)
    assert [r.run_id for r in runs] == ["daemon-2026"]
    assert len(runs[0].timeline) == ALPHA_EVENTS + BETA_EVENTS
    assert runs[0].expected_partitions == 2


def test_records_before_the_first_marker_form_their_own_run() -> None:
    text = "TIMELINE,5,SYNTH_START,warmup,partition=0\n" + REFERENCE_LOG
    runs = _runs(text)
    assert [r.run_id for r in runs] == [PREAMBLE_RUN_ID, "alpha", "beta"]
    assert len(runs[0].timeline) == 1 and runs[0].meta["preamble"] is True


def test_repeated_marker_in_a_row_is_one_run_but_a_returning_id_is_an_error() -> None:
    doubled = REFERENCE_LOG.replace("RUN_ID=alpha\n", "RUN_ID=alpha\nRUN_ID=alpha\n")
    assert [r.run_id for r in _runs(doubled)] == ["alpha", "beta"]
    returning = REFERENCE_LOG + "RUN_ID=alpha\nTIMELINE,1,SYNTH_START,x,partition=0\n"
    with pytest.raises(RunFormatError, match="run id 'alpha' appears again"):
        _runs(returning)


def test_junk_only_log_gives_one_empty_run() -> None:
    runs = _runs("hello\nworld\n")
    assert len(runs) == 1 and runs[0].timeline.empty
    assert isinstance(runs[0].timeline, pd.DataFrame)
