"""The bulk reader (reflog_chunks: a chunk at a time, common shapes parsed in bulk) against the
line-by-line scanner, which defines what every line means: on generated logs of every kind
and on lines made to sit at the edge of each bulk shape, both must give the same runs, the
same figures' inputs and the same malformed lines (issue 14 item 5)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cuzk_logs import Options, generate
from prooflab_analysis import reflog_chunks
from prooflab_analysis.loaders import RunFormatError
from prooflab_analysis.reflog import load_reference_log, parse_reference_log


def _same(a, b) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.meta == y.meta
        assert x.summary == y.summary
        assert x.notes == y.notes
        pd.testing.assert_frame_equal(x.timeline, y.timeline)
        assert x.extras.keys() == y.extras.keys()
        for key in x.extras:
            pd.testing.assert_frame_equal(x.extras[key].reset_index(drop=True), y.extras[key].reset_index(drop=True),
                                          check_dtype=False, obj=key)


def _all_ways(path: Path, **kw):
    bulk = load_reference_log(path, bulk=True, **kw)
    lines = load_reference_log(path, bulk=False, **kw)
    text = path.read_bytes().decode("utf-8", errors="replace")
    listed = parse_reference_log(text.splitlines(keepends=True), source=str(path), default_run_id=path.stem, **kw)
    return bulk, lines, listed


LOGS = {
    "ansi+interleaved": [Options(ansi=True, interleave=True, seed=2)],
    "two runs, one killed": [Options(prestage="skip_vram"), Options(killed=True, seed=5)],
    "failed partition, three GPUs": [Options(fail_partition=True, interleave=True), Options(devices=3, ansi=True)],
    "big": [Options(jobs=12, partitions=10, monolithic_jobs=3, ansi=True, bench=False, seed=3)],
    "no worker lines": [Options(worker_lines=False, engine_done_lines=False, prestage="fallback")],
    "devices from spans only": [Options(worker_lines=False, devices=2, ansi=True, seed=8),
                                Options(worker_lines=False, devices=3, workers_per_device=1, seed=9)],
}


@pytest.mark.parametrize("name", list(LOGS))
@pytest.mark.parametrize("chunk_bytes", [None, 4096])
def test_bulk_and_line_by_line_agree_on_generated_logs(tmp_path, monkeypatch, name, chunk_bytes):
    if chunk_bytes:  # chunk boundaries everywhere, runs split across chunks
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = tmp_path / "d.log"
    log = generate(LOGS[name], run_ids=None if name != "big" else ["alpha"])
    path.write_text(log.text)
    bulk, lines, listed = _all_ways(path)
    _same(bulk, lines)
    _same(lines, listed)
    assert sum(len(r.timeline) for r in bulk) > 0


EDGE_LINES = [
    "RUN_ID=edge",
    "TIMELINE,10,SYNTH_START,job-1,partition=0",
    "TIMELINE,11,SYNTH_END,job-1,partition=0,synth_ms=1",
    "TIMELINE,12,GPU_QUEUE,job-1,partition=0",
    "TIMELINE,13,GPU_PICKUP,job-1,worker=0,partition=0",
    "TIME\x1b[0mLINE,14,GPU_START,job-1,worker=0,partition=0",  # colour inside a record: stripped first
    "TIMELINE,20,GPU_END,job-1,worker=0,partition=0,gpu_ms=6\r",  # CRLF
    "TIMELINE,21,GPU_END,job-1,worker=0,partition=0,",  # trailing comma
    "TIMELINE,21,GPU_END,job-1,partition=0,worker=0,gpu_ms=5",  # items out of order
    "TIMELINE,21,SYNTH_END,job-1,partition=0,gpu_ms=5",  # the other event's value
    "TIMELINE,21,GPU_START,xTIMELINEx,worker=0",  # record text in the job id
    "TIMELINE,1234567890123456789,SYNTH_START,j,partition=1",  # 19 digits
    "TIMELINE,21,CHAN_SEND,job-1,partition=0",  # named in a comment, never emitted
    "TIMELINE,\u0661\u0662,SYNTH_START,job-2,partition=0",  # non-ASCII digits in the offset
    "TIMELINE,22,SYNTH_START,job-2,partition=\u0661",  # ... in a detail number (the line parser takes them)
    "TIMELINE,23,SYNTH_START,job-3,kind=window-post",
    "TIMELINE,24,GPU_QUEUE,job-3,monolithic",
    "TIMELINE,25,GPU_QUEUE,job-3,partition=0,monolithic",
    "CUZK_TIMING: b_g2_msm_ms=5 num_circuits=-0",  # %zu has no sign
    "CUZK_TIMING: b_g2_msm_ms=-0 num_circuits=1",  # %ld -0 is 0
    "CUZK_TIMING: mutex_wait_ms=3 pre_lock_cpu_ms=1",  # keys swapped
    "CUZK_TIMING: gpu_tid=0 prep_msm_ms=5",  # gpu_tid on a shape without it
    "CUZK_TIMING: gpu_tid=1 tail_msm_ms=3 gpu_total_ms=9",
    "CUZK_TIMING: prep_msm_ms=-5",
    "CUZK_TIMING: unknown_ms=5",
    "CUZK_TIMING: prestage_setup=maybe",
    "CUZK_TIMING: prestage_setup=ok",
    "CUZK_TIMING: set pool release threshold to MAX on gpu 1",
    "CUZK_TIMING: pre_lock_cpu_ms=1 mutex_wait_ms=3\rCUZK_TIMING: async_dealloc_ms=7",  # lone CR ends a line
    "CUZK_NTT_H: d_b_alloc=1ms ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms total=21ms",
    "CUZK_NTT_H: d_b_alloc=1ms ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms total=-1ms",
    "2026-08-20T11:00:00.000001Z  INFO cuzk_core::engine: partition synthesis complete job_id=job-1 partition=0",
    "2026-08-20T11:00:00.000002Z  INFO gpu_worker{worker_id=0 job_id=job-1}: cuzk_core::engine: picked",
    "2026-08-20T11:00:00.000003Z  INFO gpu_worker{job_id=job-1}: cuzk_core::engine: picked up",
    "2026-08-20T11:00:00.000004Z  INFO cuzk_core::engine: odd job_id=abc}",  # the value runs on: not a job id
    "2026-08-20T11:00:00.000005Z  INFO cuzk_core::engine: odd job_id=abc}: x",
    "2026-08-20T11:00:00.000006Z  INFO cuzk_core::engine: xjob_id=not a key",
    "2026-08-20T11:00:00.000007Z  INFO cuzk_core::engine: tab\tjob_id=not a key either",
    "2026-08-20T11:00:00.000008Z  INFO cuzk_core::engine: empty job_id= partition=1",
    "2026-08-20T11:00:00.000009Z  INFO cuzk_core::engine: spaced job_id=a b",
    "2026-08-20T11:00:00.000010Z  INFO cuzk_core::engine: long job_id=" + "a" * 130,
    "2026-08-20T11:00:00.000011Z  INFO cuzk_core::engine: says cuzk-daemon starting again",
    "2026-08-20T11:00:00.000012Z  WARN cuzk_core::engine: a TIMELINE,1,SYNTH_START,j,partition=0 inside",
    "2026-08-20T11:00:00.000013Z ERROR cuzk_core::engine: partition GPU proving failed error=boom job_id=job-3",
    "2026-08-20T11:00:00.000014Z  INFO cuzk_core::engine: proof completed successfully (pipeline) total_ms=40",
    "\x1b[2m2026-08-20T11:00:00.000015Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mcuzk_core::engine\x1b[0m\x1b[2m:\x1b[0m "
    "coloured \x1b[3mjob_id\x1b[0m\x1b[2m=\x1b[0mjob-2",
    "2026-08-20T11:00:00.000016Z  INFO cuzk_core::engine:",  # no message
    "2026-08-20T11:00:00.000017Z  INFO a{job_id=x y}: b: bad span value",
    "2026-08-20T11:00:00.00001Z  INFO cuzk_core::engine: short fraction",
    "2026-08-20 11:00:00  INFO not tracing",
    "",
    "partition=0,synth_ms=5",  # the tail of a record cut by an interleaved write
    "=== run second ===",
    "TIMELINE,5,SYNTH_START,job-9,partition=0",
    "  [1/1] COMPLETED — 1.0s (prove=5 ms, queue=1 ms)",
    "TIMELINE,6,SYNTH_END,job-9,partition=0,synth_ms=1",
]


@pytest.mark.parametrize("chunk_bytes", [None, 512])
def test_bulk_and_line_by_line_agree_on_edge_lines(tmp_path, monkeypatch, chunk_bytes):
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = tmp_path / "edge.log"
    path.write_bytes(("\n".join(EDGE_LINES) + "\nTIMELINE,7,GPU_QUE").encode())  # cut last line
    bulk, lines, listed = _all_ways(path)
    _same(bulk, lines)
    _same(lines, listed)
    # Each line made to break a shape is reported, with its line number, by both readers.
    numbered = {text: k for k, text in reversed(list(enumerate(path.read_text().splitlines(), start=1)))}
    reported = set(bulk[0].extras["malformed"]["line"])
    for text in BROKEN:
        assert numbered[text] in reported, text
    assert bulk[-1].meta["status"] == "interrupted"  # the cut last line


BROKEN = [line for line in EDGE_LINES if line.startswith(("TIMELINE,21,", "TIMELINE,1234", "TIMELINE,\u0661",
                                                         "TIMELINE,25,"))] + [
    "CUZK_TIMING: b_g2_msm_ms=5 num_circuits=-0", "CUZK_TIMING: mutex_wait_ms=3 pre_lock_cpu_ms=1",
    "CUZK_TIMING: gpu_tid=0 prep_msm_ms=5", "CUZK_TIMING: prep_msm_ms=-5", "CUZK_TIMING: unknown_ms=5",
    "CUZK_TIMING: prestage_setup=maybe"] + [line for line in EDGE_LINES if any(
        mark in line for mark in ("total=-1ms", "odd job_id", "spaced job_id", "long job_id", "empty job_id", "a TIMELINE,",
                                  "bad span value", "partition=0,synth_ms=5"))]


def _span_line(t: int, worker: int, gpu: int) -> str:
    return (f"2026-08-20T11:51:{t:02d}.000001Z  INFO gpu_worker{{worker_id={worker} gpu={gpu} job_id=j{t}}}: "
            f"cuzk_core::engine: GPU_TIMING hot_path pre-prove overhead worker_id={worker}")


@pytest.mark.parametrize("chunk_bytes", [None, 300])
def test_gpu_worker_spans_map_workers_per_run_and_conflicts_are_reported_alike(tmp_path, monkeypatch, chunk_bytes):
    # Two runs split by a marker inside one chunk, neither with worker start lines: each learns
    # its workers from its own spans; a later line putting worker 0 on another GPU is malformed.
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    lines = ["RUN_ID=a", _span_line(1, 0, 1), _span_line(2, 0, 1), _span_line(3, 1, 0), "TIMELINE,5,GPU_PICKUP,j,worker=0",
             "RUN_ID=b", _span_line(6, 0, 1), _span_line(7, 0, 1), "TIMELINE,8,GPU_PICKUP,k,worker=0",
             _span_line(9, 0, 1), _span_line(10, 0, 0), _span_line(11, 0, 1), _span_line(12, 0, 0)]
    path = tmp_path / "spans.log"
    path.write_text("\n".join(lines) + "\n")
    bulk, by_line, listed = _all_ways(path)
    _same(bulk, by_line)
    _same(by_line, listed)
    assert [r.meta["worker_gpu"] for r in bulk] == [{0: 1, 1: 0}, {0: 1}]
    assert list(bulk[1].extras["malformed"]["line"]) == [11, 13]  # each "worker 0 on gpu 0" line of the file
    assert [r.timeline["device"].tolist() for r in bulk] == [[1], [1]]


def test_strict_stops_at_the_same_line(tmp_path):
    path = tmp_path / "s.log"
    path.write_text("\n".join(EDGE_LINES[:7] + ["TIMELINE,21,GPU_END,job-1,worker=0,partition=0,"] + EDGE_LINES[7:]) + "\n")
    errors = []
    for bulk in (True, False):
        with pytest.raises(RunFormatError) as err:
            load_reference_log(path, bulk=bulk, strict=True)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    assert ":8" in errors[0] or "line 8" in errors[0]
