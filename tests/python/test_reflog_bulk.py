"""The bulk reader (reflog_chunks: a chunk at a time, common shapes parsed in bulk), in both
its implementations, the compiled scanner (prooflab.ReflogScanner) and the numpy fallback,
against the line-by-line scanner, which defines what every line means: on generated logs of
every kind and on lines made to sit at the edge of each bulk shape, all must give the same
runs, the same figures and the same malformed lines, and the two bulk implementations must
read exactly the same lines (issue 14 item 5). The compiled cases skip where the module is
not built."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cuzk_logs import Options, generate
from native_module import MODULE_DIR, load_module
from prooflab_analysis import integrity, loaders, reflog_chunks
from prooflab_analysis.loaders import RunFormatError
from prooflab_analysis.reflog import load_reference_log, parse_reference_log
from prooflab_analysis.reflog_figures import reference_figures
from prooflab_analysis.reflog_tracing import WORKER_SPAN, looks_like_tracing, parse_tracing, strip_ansi

NATIVE = load_module()


def _compiled_scanner() -> Any:
    if NATIVE is None:
        pytest.skip(f"the prooflab module is not built in {MODULE_DIR} (make build)")
    return NATIVE.ReflogScanner(**reflog_chunks.native_tables())


@pytest.fixture(params=["compiled", "numpy"])
def reader(request, monkeypatch) -> str:
    """Which implementation the bulk reader uses in this test."""
    scanner = _compiled_scanner() if request.param == "compiled" else None
    monkeypatch.setattr(reflog_chunks, "native_scanner", lambda: scanner)
    return request.param


def _equal(a: Any, b: Any, where: str) -> None:
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False, obj=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _equal(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, f"{where}[{k}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert a == b, where


def _same_figures(a, b) -> None:
    for x, y in zip(a, b):
        fx, fy = (reference_figures(r, integrity.check_run(r)) for r in (x, y))
        for f in dataclasses.fields(fx):
            _equal(getattr(fx, f.name), getattr(fy, f.name), f.name)


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
def test_bulk_and_line_by_line_agree_on_generated_logs(tmp_path, monkeypatch, reader, name, chunk_bytes):
    if chunk_bytes:  # chunk boundaries everywhere, runs split across chunks
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = tmp_path / "d.log"
    log = generate(LOGS[name], run_ids=None if name != "big" else ["alpha"])
    path.write_text(log.text)
    bulk, lines, listed = _all_ways(path)
    _same(bulk, lines)
    _same(lines, listed)
    _same_figures(bulk, lines)
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
def test_bulk_and_line_by_line_agree_on_edge_lines(tmp_path, monkeypatch, reader, chunk_bytes):
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
def test_gpu_worker_spans_map_workers_per_run_and_conflicts_are_reported_alike(tmp_path, monkeypatch, reader, chunk_bytes):
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


def _start_line(t: int, worker: int, gpu: int) -> str:
    return (f"2026-08-20T11:51:{t:02d}.000001Z  INFO cuzk_core::engine: pipeline GPU worker started "
            f"worker_id={worker} gpu={gpu} sub_id=0")


# A span that puts a worker on another GPU than a line before it in its run: each such line is
# malformed, whether the earlier line is a start line in the same chunk, a line of an earlier
# chunk, or a start line after bulk-read spans of the same run (line numbers of the file).
SPAN_CONFLICTS = {
    "start line, same chunk": ([_start_line(1, 0, 0), "TIMELINE,2,GPU_PICKUP,j,worker=0"]
                               + [_span_line(t, 0, 1) for t in (3, 4, 5)], None, [{0: 0}], [[3, 4, 5]]),
    "earlier chunk": ([_start_line(1, 0, 0), "TIMELINE,2,GPU_PICKUP,j,worker=0", "x" * 300]
                      + [_span_line(t, 0, 1) for t in (3, 4, 5)], 300, [{0: 0}], [[4, 5, 6]]),
    "start line, fields in another order": ([_start_line(1, 0, 1).replace("worker_id=0 gpu=1", "gpu=1 worker_id=0"),
                                             "TIMELINE,2,GPU_PICKUP,j,worker=0"]
                                            + [_span_line(t, 0, 0) for t in (3, 4, 5)], None, [{0: 1}], [[3, 4, 5]]),
    "start line after spans": (["RUN_ID=a", _span_line(1, 0, 1), "TIMELINE,2,GPU_PICKUP,j,worker=0", "RUN_ID=b",
                                _span_line(3, 0, 1), _span_line(4, 0, 1), _start_line(5, 0, 0),
                                "TIMELINE,6,GPU_PICKUP,k,worker=0"], None, [{0: 1}, {0: 1}], [[], [7]]),
}


@pytest.mark.parametrize("name", list(SPAN_CONFLICTS))
def test_every_span_line_against_its_run_is_reported(tmp_path, monkeypatch, reader, name):
    lines, chunk_bytes, worker_gpu, malformed = SPAN_CONFLICTS[name]
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = tmp_path / "conflicts.log"
    path.write_text("\n".join(lines) + "\n")
    bulk, by_line, listed = _all_ways(path)
    _same(bulk, by_line)
    _same(by_line, listed)
    assert [r.meta["worker_gpu"] for r in bulk] == worker_gpu
    assert [list(r.extras["malformed"]["line"]) if "malformed" in r.extras else [] for r in bulk] == malformed


def test_strict_stops_at_the_same_line(tmp_path, reader):
    path = tmp_path / "s.log"
    path.write_text("\n".join(EDGE_LINES[:7] + ["TIMELINE,21,GPU_END,job-1,worker=0,partition=0,"] + EDGE_LINES[7:]) + "\n")
    errors = []
    for bulk in (True, False):
        with pytest.raises(RunFormatError) as err:
            load_reference_log(path, bulk=bulk, strict=True)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    assert ":8" in errors[0] or "line 8" in errors[0]


# Lines at the edge of each branch of the compiled scanner (harness/python/reflog_scan.cpp),
# as bytes: colour, line ends and bytes that are not UTF-8 included.
SCANNER_EDGE_LINES: list[bytes] = [s.encode() if isinstance(s, str) else s for s in [
    "RUN_ID=scanner",
    "TIMELINE,30,GPU_END,job-4,worker=1,gpu_ms=5",
    "TIMELINE,31,SYNTH_END,job-4,synth_ms=7",
    "TIMELINE,32,SYNTH_START,job-5,kind=snap-update",
    "TIMELINE,32,SYNTH_START,job-5,kind=winning-post",
    "TIMELINE,32,SYNTH_START,job-5,kind=snap-updatex",
    "TIMELINE,32,SYNTH_START,job-5,kind=porep-c2,monolithic",
    "TIMELINE,33,GPU_QUEUE,job-5,monolithicx",
    "TIMELINE,33,GPU_QUEUE,job-5,monolithic,",
    "TIMELINE,34,GPU_PICKUP,job-5,worker=123456789012345678",  # 18 digits: accepted
    "TIMELINE,34,GPU_PICKUP,job-5,worker=1234567890123456789",
    "TIMELINE,35,GPU_START,job-5,worker=1,,partition=2",
    "TIMELINE,35,GPU_START,job-5,worker=1,Partition=2",
    "TIMELINE,35,GPU_START,job-5,worker=1,partition=",
    "TIMELINE,36,GPU_END,job-5,worker=1,partition=2,gpu_ms=3,extra=1",
    "TIMELINE,36,GPU_END,job-5,worker=1,partition=2,gpu_ms=3 ",
    "TIMELINE,36,GPU_END,job-5,worker=1,partition=2,synth_ms=3,gpu_ms=3",
    "TIMELINE,37,SYNTH_START," + "a" * 128 + ",partition=0",  # the longest job id
    "TIMELINE,37,SYNTH_START," + "a" * 129 + ",partition=0",
    "TIMELINE,38,SYNTH_START,.job,partition=0",
    "TIMELINE,38,SYNTH_START,jobCUZK_x,partition=0",
    "TIMELINE,38,SYNTH_START,job 5,partition=0",
    "TIMELINE,39,SYNTH_STARTX,job-5,partition=0",
    "TIMELINE,39,ABCDEFGHIJKLMNOPQ,job-5,partition=0",
    "TIMELINE,,SYNTH_START,job-5,partition=0",
    "TIMELINE,40,SYNTH_START,job-5",
    "TIMELINE,40,SYNTH_START,job-5,",
    "TIMELINE,",
    b"TIMELINE,41,SYNTH_START,job-\xff5,partition=0",
    "CUZK_TIMING: gpu_tid=-1 batch_add_ms=3",
    "CUZK_TIMING: gpu_tid=1 batch_add_ms=3 x=1",
    "CUZK_TIMING: gpu_tid=1batch_add_ms=3",
    "CUZK_TIMING: gpu_tid=1",
    "CUZK_TIMING: gpu_tid=2 barrier_wait_ms=-0",
    "CUZK_TIMING: gpu_tid=2 ntt_msm_h_ms=1234567890123456789",
    "CUZK_TIMING: split_vectors_ms=4 setup_to_split_ms=5",
    "CUZK_TIMING: mutex_held_ms=10 total_start_fn_ms=12",
    "CUZK_TIMING: mutex_held_ms=10  total_start_fn_ms=12",
    "CUZK_TIMING: mutex_held_ms=10 total_start_fn_ms=-12",
    "CUZK_TIMING: async_dealloc_ms=7 ",
    "CUZK_TIMING: pre_destructor_ms=11",
    "CUZK_TIMING: prestage_setup=skip_vram",
    "CUZK_TIMING: prestage_setup=fallback",
    "CUZK_TIMING: prestage_setup=ok ",
    "CUZK_TIMING: prestage_setup=5",
    "CUZK_TIMING: d_a_cache allocated 4096 MiB on gpu 1",
    "CUZK_TIMING: b_g2_msm_ms=-0 num_circuits=0",
    "CUZK_TIMING: b_g2_msm_ms=4 num_circuits=10",
    "CUZK_TIMING: prep_msm_ms=",
    "CUZK_TIMING: prep_msm_ms=-",
    "CUZK_TIMING: " + "a" * 25 + "=5",
    "CUZK_NTT_H: d_b_alloc=-0ms ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms total=20ms",
    "CUZK_NTT_H: d_b_alloc=1ms ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms",
    "CUZK_NTT_H: d_b_alloc=1ms ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms total=21ms ",
    "CUZK_NTT_H: d_b_alloc=1 ntt_kernels=2ms coset_intt_sync=3ms msm_init=4ms msm_invoke=5ms msm_dtor=6ms total=21ms",
    "2026-08-20T11:00:01Z  INFO a: b: no fraction job_id=job-1",
    "2026-08-20T11:00:01.123456789Z  INFO t: nine digits",
    "2026-08-20T11:00:01.1234567890Z  INFO t: ten digits",
    "2026-08-20T11:00:01.Z  INFO t: no digits",
    "2026-08-20T11:00:01.123Z INFOX t: x",
    "2026-08-20T11:00:01.123Z  INFO  t: two blanks before the target",
    "2026-08-20T11:00:01.123Z  INFO   t: three blanks",
    "2026-08-20T11:00:01.123Z  INFO x: y{job_id=Q! z}: m",
    "2026-08-20T11:00:01.123Z  INFO y{job_id=Q! z}: t: m",
    "2026-08-20T11:00:01.123Z  INFO y{a=1 job_id=job-3}: t: m",
    "2026-08-20T11:00:01.123Z  INFO y{a=1 job_id=job-3 b=2}:z{job_id=job-4}: t: m job_id=job-5 c=3",
    "2026-08-20T11:00:01.123Z  INFO y{xjob_id=free}: t: m",
    "2026-08-20T11:00:01.123Z  INFO a::b::c: path target job_id=j-1 partition=3",
    "2026-08-20T11:00:01.123Z  INFO a:::b: odd",
    "2026-08-20T11:00:01.123Z  INFO a::: odd",
    "2026-08-20T11:00:01.123Z  INFO s1{a={1}}: t: brace in a span",
    "2026-08-20T11:00:01.123Z  INFO s1{a=1: t: unclosed span",
    "2026-08-20T11:00:01.123Z  INFO s1{a=1}t: no colon after a span",
    "2026-08-20T11:00:01.123Z  INFO t: value job_id=ok more=1 job_id=",
    "2026-08-20T11:00:01.123Z  INFO t: value job_id=ok more=1 job_id=x}",
    "2026-08-20T11:00:01.123Z  INFO t: a.job_id=not checked",
    "2026-08-20T11:00:01.123Z  INFO t: phase job_id=jobTIMELINEx",
    "2026-08-20T11:00:01.123Z  INFO t: msg job_id=job-1 Key=1",
    b"2026-08-20T11:00:01.123Z DEBUG t: \xff\xfe not UTF-8 in a body",
    "2026-08-20T11:00:01.123Z TRACE t:",
    "2026-08-20T11:00:01.123Z  INFO t:x",
    "2026-08-20T11:00:01.123Z  WARN t: GPU worker started elsewhere",
    "2026-08-20T11:00:01.123Z  INFO t: pipeline GPU worker started worker_id=4 gpu=2 sub_id=0",
    "2026-08-20X11:00:01.123Z  INFO t: not a time",
    "\x1b[1m\x1b[32mTIMELINE\x1b[0m,50,SYNTH_START,job-6,partition=0",
    "CUZK_TIMING: prep_msm_ms=5\x1b[0m",
    "TIMELINE,51,SYNTH_START,job-6,partition=1\x1b[12",
    "\x1b\x1b[0mTIMELINE,51,SYNTH_START,job-6,partition=2",
    "\x1b[" + "1;" * 20 + "mTIMELINE,52,SYNTH_START,job-6,partition=3",  # an escape longer than 32 bytes
    "\x1b[mTIMELINE,52,SYNTH_START,job-6,partition=4\x1b[",
    "TIMELINE,53,SYNTH_START,job-6,partition=5\r\rTIMELINE,54,SYNTH_START,job-6,partition=6\r",
    "\x1b[2m2026-08-20T11:00:02.000001Z\x1b[0m \x1b[31mERROR\x1b[0m t: proof failed job_id=job-6",
]]


# gpu_worker spans: read (twice each, so that one line of the pair is read in bulk), with
# leading zeros (one worker, one GPU), ended by `}`, on an ERROR line first, after a start line
# of their worker; not read (19 digits, other field order, no gpu, a letter after the number);
# two in one line.
SPAN_EDGE_LINES = [
    "RUN_ID=spans",
    "2026-08-20T11:00:03.0Z  INFO t: pipeline GPU worker started worker_id=4 gpu=2 sub_id=0",
    "2026-08-20T11:00:03.1Z  INFO gpu_worker{worker_id=7 gpu=1 job_id=job-7}: t: call",
    "2026-08-20T11:00:03.2Z  INFO gpu_worker{worker_id=07 gpu=01 job_id=job-7}: t: call",
    "2026-08-20T11:00:03.3Z  INFO gpu_worker{worker_id=7 gpu=1 job_id=job-7}: t: call",
    "2026-08-20T11:00:03.4Z  INFO gpu_worker{worker_id=9 gpu=2}: t: call",
    "2026-08-20T11:00:03.5Z  INFO gpu_worker{worker_id=9 gpu=2}: t: call",
    "2026-08-20T11:00:03.6Z ERROR gpu_worker{worker_id=10 gpu=3 job_id=job-8}: t: call failed",
    "2026-08-20T11:00:03.7Z  INFO gpu_worker{worker_id=10 gpu=3 job_id=job-8}: t: call",
    "2026-08-20T11:00:03.8Z  INFO gpu_worker{worker_id=1234567890123456789 gpu=0}: t: call",
    "2026-08-20T11:00:03.9Z  INFO gpu_worker{worker_id=1234567890123456789 gpu=0}: t: call",
    "2026-08-20T11:00:04.1Z  INFO gpu_worker{gpu=1 worker_id=11}: t: call",
    "2026-08-20T11:00:04.2Z  INFO gpu_worker{worker_id=11}: t: call",
    "2026-08-20T11:00:04.3Z  INFO gpu_worker{worker_id=11 gpu=1x}: t: call",
    "2026-08-20T11:00:04.4Z  INFO gpu_worker{worker_id=12 gpu=0}:gpu_worker{worker_id=12 gpu=1}: t: call",
    "2026-08-20T11:00:04.5Z  INFO gpu_worker{worker_id=12 gpu=1}: t: call",
    "2026-08-20T11:00:04.6Z  INFO gpu_worker{worker_id=4 gpu=2}: t: call",
    "2026-08-20T11:00:04.7Z  INFO gpu_worker{worker_id=4 gpu=2}: t: call",
]


@pytest.mark.parametrize("chunk_bytes", [None, 97])
def test_bulk_and_line_by_line_agree_on_span_edge_lines(tmp_path, monkeypatch, reader, chunk_bytes):
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = tmp_path / "spans.log"
    path.write_text("\n".join(SPAN_EDGE_LINES) + "\n")
    bulk, lines, listed = _all_ways(path)
    _same(bulk, lines)
    _same(lines, listed)
    # Workers from the start line (4) and the spans: 7 (with and without leading zeros), 9, 10 (its
    # ERROR line), 11 (fields in the other order: read by the line scanner only), 12 (the inner
    # of two spans); the 19-digit worker and `gpu=1x` are malformed, on each of their lines.
    assert bulk[0].meta["worker_gpu"] == {4: 2, 7: 1, 9: 2, 10: 3, 11: 1, 12: 1}
    malformed = bulk[0].extras["malformed"]
    assert sum("1234567890123456789 gpu=0" in text for text in malformed["text"]) == 2
    assert sum("gpu=1x" in text for text in malformed["text"]) == 1
    assert len(malformed) == 3


def _scanner_edge_log(tmp_path: Path) -> Path:
    path = tmp_path / "scanner.log"
    path.write_bytes(b"\n".join(SCANNER_EDGE_LINES) + b"\n")
    return path


@pytest.mark.parametrize("chunk_bytes", [None, 97])
def test_bulk_and_line_by_line_agree_on_scanner_edge_lines(tmp_path, monkeypatch, reader, chunk_bytes):
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    path = _scanner_edge_log(tmp_path)
    bulk, lines, listed = _all_ways(path)
    _same(bulk, lines)
    _same(lines, listed)
    _same_figures(bulk, lines)
    # Counted by hand from the list: TIMELINE at 30, 31, 32 (two kinds), 34 (18 digits), 37 (128
    # characters), 50 and 52 (colour), 53 and 54 (lone CRs); CUZK values: barrier_wait -0,
    # split_vectors + setup_to_split, mutex_held + total_start_fn, pre_destructor, two b_g2_msm,
    # seven ntt_h and the coloured prep_msm; prestage skip_vram and fallback.
    assert len(bulk[0].timeline) == 10
    assert len(bulk[0].extras["cuzk_timing"]) == 16
    assert bulk[0].extras["prestage"]["prestage_setup"].tolist() == ["skip_vram", "fallback"]


def _spans_by_line_scanner(text: str) -> list[tuple[int, int, int]]:
    """(line, worker, gpu) of each line whose spans name a worker's GPU, as the line scanner reads it."""
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = strip_ansi(line)
        if WORKER_SPAN in line and looks_like_tracing(line):
            t = parse_tracing(line)
            if WORKER_SPAN in t.span_names and "gpu" in t.span_fields:
                out.append((lineno, int(t.span_fields["worker_id"]), int(t.span_fields["gpu"])))
    return out


@pytest.mark.parametrize("chunk_bytes", [None, 16384])
def test_compiled_spans_are_the_line_scanners_on_two_gpus(tmp_path, monkeypatch, chunk_bytes):
    # A two-GPU log without worker start lines: the workers' GPUs come from the spans alone.
    scanner = _compiled_scanner()
    monkeypatch.setattr(reflog_chunks, "native_scanner", lambda: scanner)
    if chunk_bytes:
        monkeypatch.setattr(reflog_chunks, "CHUNK_BYTES", chunk_bytes)
    log = generate([Options(worker_lines=False, devices=2, ansi=True, jobs=12, partitions=10, seed=4)])
    path = tmp_path / "two-gpus.log"
    path.write_text(log.text)
    expected = _spans_by_line_scanner(log.text)
    bulk_rows, slow_lines, first_line, firsts = [], set(), 1, set()
    with path.open("rb") as fh:
        for piece in reflog_chunks.read_chunks(fh, chunk_bytes):
            scan = reflog_chunks._native_scan(scanner, piece, first_line, {})
            spans = scan.worker_spans
            if spans:
                bulk_rows += zip(spans["line"].tolist(), spans["worker"].tolist(), spans["gpu"].tolist())
            slow_lines |= {lineno for lineno, _ in scan.slow}
            pairs: dict[tuple[int, int], int] = {}  # the chunk's first line of each (worker, gpu)
            for lineno, worker, gpu in expected:
                if first_line <= lineno < first_line + scan.n_lines:
                    pairs.setdefault((worker, gpu), lineno)
            firsts |= set(pairs.values())
            first_line += scan.n_lines
    # Each span line read in bulk is read as the line scanner reads it; the line scanner got the
    # chunk's first line of each pair (every worker keeps its GPU here), and no other.
    assert bulk_rows == [row for row in expected if row[0] not in slow_lines]
    assert {lineno for lineno, _, _ in expected} - {lineno for lineno, _, _ in bulk_rows} == firsts
    assert {gpu for _, _, gpu in bulk_rows} == {0, 1}
    truth = log.runs[0].worker_gpu
    assert set(truth.values()) == {0, 1}
    for line_scanner in (False, True):
        run = load_reference_log(path, bulk=not line_scanner)[0]
        assert run.meta["worker_gpu"] == truth


def _columns(part: dict[str, np.ndarray]) -> dict[str, list]:
    return {k: v.tolist() for k, v in part.items()} if part and len(part["line"]) else {}


@pytest.mark.parametrize("name", ["scanner edge", "span edge", "edge", *LOGS])
def test_compiled_and_numpy_read_the_same_lines(tmp_path, monkeypatch, name):
    """Not only the same runs: each line read in bulk by one is read in bulk, to the same values,
    by the other, so neither leaves to the line scanner a line that the other reads."""
    scanner = _compiled_scanner()
    if name == "scanner edge":
        chunk = _scanner_edge_log(tmp_path).read_bytes()
    elif name in ("edge", "span edge"):
        chunk = ("\n".join(EDGE_LINES if name == "edge" else SPAN_EDGE_LINES) + "\n").encode()
    else:
        chunk = generate(LOGS[name]).text.encode()
        chunk = chunk[: chunk.rfind(b"\n") + 1]  # whole lines (a killed run's cut line is the importer's)
    compiled = reflog_chunks._native_scan(scanner, chunk, 7, {})
    monkeypatch.setattr(reflog_chunks, "native_scanner", lambda: None)
    numpy_scan = reflog_chunks.scan_chunk(chunk, 7, fast=True)
    assert compiled.n_lines == numpy_scan.n_lines
    assert compiled.fast_lines.tolist() == numpy_scan.fast_lines.tolist()
    assert compiled.fast_records.tolist() == numpy_scan.fast_records.tolist()
    assert compiled.slow == numpy_scan.slow
    for part in ("events", "cuda", "prestage", "worker_spans"):
        assert _columns(getattr(compiled, part)) == _columns(getattr(numpy_scan, part)), part
    assert len(compiled.fast_lines) > 0 and len(compiled.slow) > 0


def test_the_compiled_scanner_is_off_with_the_fast_loaders(monkeypatch):
    _compiled_scanner()
    monkeypatch.setattr(loaders, "_fast_module_cache", [NATIVE])
    monkeypatch.setattr(loaders, "_fast_choice", None)
    assert reflog_chunks.native_scanner() is not None
    monkeypatch.setattr(loaders, "_fast_choice", False)
    assert reflog_chunks.native_scanner() is None
    monkeypatch.setattr(loaders, "_fast_choice", None)
    monkeypatch.setenv("PROOFLAB_FAST_LOADER", "0")
    assert reflog_chunks.native_scanner() is None


@pytest.mark.parametrize(("change", "message"), [
    ({"event_items": [[["partition"]], [["partitions"]]] + [[[]]] * 4}, "names item 'partitions'"),
    ({"events": []}, "events and event_items"),
    ({"job_id_max": 0}, "job_id_max"),
    ({"durations": [(False, "", "")]}, "duration key"),
    ({"timing_prefix": ""}, "prefix"),
    ({"worker_span": ""}, "worker_span or worker_started is empty"),
    ({"worker_started": ""}, "worker_span or worker_started is empty"),
    ({"colour": True}, "unknown table 'colour'"),
])
def test_the_compiled_scanner_refuses_bad_tables(change, message):
    _compiled_scanner()
    with pytest.raises(ValueError, match=message):
        NATIVE.ReflogScanner(**(reflog_chunks.native_tables() | change))
    tables = reflog_chunks.native_tables()
    del tables["count_key"]
    with pytest.raises(ValueError, match="missing table 'count_key'"):
        NATIVE.ReflogScanner(**tables)
