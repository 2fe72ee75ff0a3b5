"""A reference log read a large chunk at a time, with the lines of the common exact shapes
parsed for the whole chunk at once (issue 14 item 5: 1 GB in <= 30 s on 2 cores).

The line-by-line parsers (reflog_timeline, reflog_cuda, reflog_tracing) are the definition
of what a line means; this module only finds, a chunk at a time, the lines whose meaning
is certain without them, and reads those in bulk:

* TIMELINE records that match one of engine.rs' detail shapes exactly,
* CUZK_TIMING lines of the duration shapes and `prestage_setup=`, CUZK_NTT_H lines,
  with no negative duration,
* tracing lines that are informational for certain: well formed, not ERROR, no message
  the importer reads, no record written into them, every `job_id=` a valid job id; with
  the `gpu_worker{worker_id=W gpu=G ...}` spans among them (worker -> GPU), except that the
  chunk's first line of each (worker, gpu) pair, every `gpu_worker{` not of that shape, and
  every line of a worker named there (by spans and worker start lines) with two GPUs, or
  with another GPU than earlier in the file, go to the line scanner (`_tracing`).

Every other line (markers, benchmark output, tracing lines with figures, anything odd or
malformed) is handed back, decoded, to the line-by-line scanner in file order, so the
validation rules hold unchanged; `fast=False` hands back every line (the agreement test
compares both). Lines end at `\\n`, `\\r\\n` or a lone `\\r` (as Python's universal newlines),
ANSI escapes are removed from the whole chunk first (as strip_ansi per line).

Two implementations of the same reading, chosen per chunk:

* compiled: `prooflab.ReflogScanner` (harness/python/reflog_scan.cpp) when the `prooflab`
  module is importable and its fast readers are on (loaders.fast_module), given the tables
  below (native_tables) so that each shape is declared once;
* numpy, the fallback: numpy finds the line starts and classifies lines by their first
  bytes; the lines of one class are gathered into one text, and one `findall` over it
  returns a tuple per line (empty groups where the strict shape did not match, the
  catch-all alternative matched); the columns are checked and converted with numpy.

tests/python/test_reflog_bulk.py checks that both, and the line scanner alone, give the
same runs.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterator

import numpy as np

from .loaders import fast_module
from .reflog_cuda import NTT_H_PREFIX, PRESTAGE_VALUES, TIMING_PREFIX, _NTT_H_KEYS, _TIMING_SHAPES
from .reflog_lines import _RECORD_WORDS, JOB_ID, JOB_ID_MAX
from .reflog_timeline import _DETAILS, EVENTS, PREFIX as TIMELINE_PREFIX, PROOF_KINDS
from .reflog_tracing import _ANSI as _ANSI_TEXT, LEVELS, WORKER_SPAN

CHUNK_BYTES = 64 << 20
_ANSI = re.compile(_ANSI_TEXT.pattern.encode())
_N = r"([0-9]{1,18})"
_I = r"(-?[0-9]{1,18})"
_JOB = r"(?![A-Za-z0-9._/-]*(?:TIMELINE|CUZK_))" + JOB_ID.pattern  # reflog_lines.check_job_id

# TIMELINE: (offset, event, job, worker, partition, value key, value, kind, monolithic). The
# detail's items come in engine.rs' order, a comma only between two; which items an event may
# have (reflog_timeline's shapes) is checked per event below, as bits of the items present.
_ITEMS = ("worker", "partition", "synth_ms", "gpu_ms", "kind", "monolithic")  # in that order
_ITEM_END = r"(?:,(?=[a-z])|(?=\n))"
_TIMELINE = re.compile(
    re.escape(TIMELINE_PREFIX) + rf"(?:{_N},([A-Z_]{{1,16}}),({JOB_ID.pattern}),"
    rf"(?:worker={_N}{_ITEM_END})?(?:partition={_N}{_ITEM_END})?(?:(synth_ms|gpu_ms)={_N}{_ITEM_END})?"
    rf"(?:kind=({'|'.join(PROOF_KINDS)}){_ITEM_END})?(monolithic)?\n|[^\n]*\n)",
    re.ASCII,
)
_BIT = {item: 1 << k for k, item in enumerate(_ITEMS)}
_W, _P, _S, _G, _K, _M = _BIT.values()
_TIMELINE_SHAPES: dict[str, tuple[int, ...]] = {
    event: tuple(sum(_BIT[name] for name in names) for _, names in shapes) for event, shapes in _DETAILS.items()}
_EVENT_CODE = defaultdict(lambda: len(EVENTS), {e: k for k, e in enumerate(EVENTS)})  # else: no event
_EVENT_NAMES = np.array(list(EVENTS) + [""], dtype=object)
_TIMELINE_OK = np.zeros((len(EVENTS) + 1, 1 << 6), dtype=bool)  # [event code, items present]
for _e, _shapes in _TIMELINE_SHAPES.items():
    _TIMELINE_OK[_EVENT_CODE[_e], list(_shapes)] = True

# CUZK_TIMING duration shapes, from reflog_cuda's table: (gpu_tid?, first key, second key).
_COUNT_KEY = "num_circuits"  # b_g2_msm's second value: a count (%zu), not a duration
_DURATION_SHAPES = [(k[0] == "gpu_tid", *k[k[0] == "gpu_tid":]) for _, k in _TIMING_SHAPES
                    if k[-1].endswith("_ms") or k[-1] == _COUNT_KEY]
_FIRST_KEYS = np.array(sorted({k[1] for k in _DURATION_SHAPES}))
_SECOND_KEYS = np.array(sorted({k[2] for k in _DURATION_SHAPES if len(k) == 3}))
_CUDA = re.compile(
    re.escape(TIMING_PREFIX) + rf"(?:(?:gpu_tid={_N} )?([a-z0-9_]{{1,24}})={_I}(?: ([a-z_]{{1,24}})={_I})?\n"
    rf"|prestage_setup=({'|'.join(PRESTAGE_VALUES)})\n|[^\n]*\n)",
    re.ASCII,
)
# [gpu_tid present, first key, second key (0 = none, else 1 + index)]
_CUDA_OK = np.zeros((2, len(_FIRST_KEYS) + 1, len(_SECOND_KEYS) + 2), dtype=bool)
for _k in _DURATION_SHAPES:
    _CUDA_OK[int(_k[0]), list(_FIRST_KEYS).index(_k[1]), 1 + list(_SECOND_KEYS).index(_k[2]) if len(_k) == 3 else 0] = True
# A key no shape has gets a code past the table's end: not a duration line.
_FIRST_CODE = defaultdict(lambda: len(_FIRST_KEYS), {k: i for i, k in enumerate(_FIRST_KEYS)})
_SECOND_CODE = defaultdict(lambda: len(_SECOND_KEYS) + 1, {k: 1 + i for i, k in enumerate(_SECOND_KEYS)} | {"": 0})
_NUM_CIRCUITS = _SECOND_CODE[_COUNT_KEY]
_FIRST_NAMES = np.array(list(_FIRST_KEYS) + [""], dtype=object)
_SECOND_NAMES = np.array([""] + list(_SECOND_KEYS) + [""], dtype=object)
_NTT_H = re.compile(re.escape(NTT_H_PREFIX) + "(?:" + " ".join(f"{k}={_I}ms" for k in _NTT_H_KEYS) + r"\n|[^\n]*\n)",
                    re.ASCII)

# Tracing lines certain to be informational (reflog_tracing's _LINE, minus ERROR, with every
# `job_id=` at a field position followed by a job id and the end of its value).
_KEY = r"[a-z_][a-z0-9_.]*"
_SPAN_INNER = rf"(?:[^{{}}\nj]+|j(?!ob_id=)|(?<=[{{ ])job_id={_JOB}(?= {_KEY}=|\}})|(?<![{{ ])job_id=)*"
_BODY = rf"(?:[^\nj]+|j(?!ob_id=)|(?<= )job_id={_JOB}(?= {_KEY}=|\n)|(?<! )job_id=)*"
_INFO_LEVELS = [level for level in LEVELS if level != "ERROR"]  # an ERROR line is a failure
_TRACING = re.compile(
    r"(?:([0-9])[0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z +(?:" + "|".join(_INFO_LEVELS) + ") "
    rf"(?:[A-Za-z_][A-Za-z0-9_]*(?:\{{{_SPAN_INNER}\}})?:)* ?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*:"
    rf"(?: {_BODY})?\n|[^\n]*\n)",
    re.ASCII,
)
# The worker start lines ("pipeline GPU worker started worker_id=W gpu=G sub_id=S", reflog.py)
# name a worker's GPU as the spans do (`_tracing` counts them).
WORKER_STARTED = "GPU worker started"
# Substrings that make a tracing line one the scanner must see: a message it reads, or a
# record written into the line.
TRACING_SLOW = ("TIMELINE,", "CUZK_TIMING:", "CUZK_NTT_H:", "cuzk-daemon starting", WORKER_STARTED,
                "Phase 7: all partitions complete, proof assembled", "proof completed successfully")

_T, _C, _NH, _D = 1, 2, 3, 4


def native_tables() -> dict[str, Any]:
    """The tables prooflab.ReflogScanner reads lines by: the ones the numpy path and the line
    parsers use."""
    return {
        "timeline_prefix": TIMELINE_PREFIX, "timing_prefix": TIMING_PREFIX, "ntt_h_prefix": NTT_H_PREFIX,
        "events": list(EVENTS), "event_items": [[list(names) for _, names in _DETAILS[e]] for e in EVENTS],
        "proof_kinds": list(PROOF_KINDS), "job_id_max": JOB_ID_MAX, "record_words": list(_RECORD_WORDS),
        "durations": [(tid, first, rest[0] if rest else "") for tid, first, *rest in _DURATION_SHAPES],
        "count_key": _COUNT_KEY, "prestage_values": list(PRESTAGE_VALUES), "ntt_h_keys": list(_NTT_H_KEYS),
        "tracing_levels": _INFO_LEVELS, "tracing_slow": list(TRACING_SLOW), "worker_span": WORKER_SPAN,
        "worker_started": WORKER_STARTED,
    }


@functools.lru_cache(maxsize=2)
def _scanner_of(module: Any) -> Any:
    return module.ReflogScanner(**native_tables())


def native_scanner() -> Any:
    """The compiled scanner when the `prooflab` module is importable and its fast readers are
    on (loaders.use_fast_loader, PROOFLAB_FAST_LOADER), else None."""
    module = fast_module()
    return _scanner_of(module) if hasattr(module, "ReflogScanner") else None


def read_chunks(fh: BinaryIO, chunk_bytes: int | None = None) -> Iterator[memoryview]:
    """Pieces of the file of up to `chunk_bytes` (default CHUNK_BYTES; more for a longer line)
    that end at a `\\n` (the last one may not: a cut line). Each is a view of one buffer that
    is read into again for the next piece, and writable: the compiled scanner normalises it in
    place. So no piece is copied, and no new memory is touched per piece."""
    buf = bytearray(chunk_bytes or CHUNK_BYTES)
    kept = 0  # the start of a line, carried from the previous piece to the buffer's start
    while True:
        view = memoryview(buf)
        n = kept + fh.readinto(view[kept:])
        if n == kept:  # end of file
            if kept:
                yield view[:kept]
            return
        cut = buf.rfind(b"\n", 0, n) + 1
        if cut == 0:  # no line end yet: read on, into a larger buffer when this one is full
            if n == len(buf):
                buf = buf + bytearray(len(buf))
            kept = n
            continue
        yield view[:cut]
        buf[: n - cut] = buf[cut:n]
        kept = n - cut


def normalise(chunk: bytes) -> bytes:
    """Line ends as `\\n`, ANSI escapes removed."""
    if b"\r" in chunk:
        chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\x1b" in chunk:
        chunk = strip_ansi_bytes(np.frombuffer(chunk, dtype=np.uint8)).tobytes()
    return chunk


@dataclass
class ChunkScan:
    """One chunk of terminated lines: the lines read in bulk and those left to the scanner."""

    first_line: int
    n_lines: int
    slow: list[tuple[int, str]] = field(default_factory=list)  # (line number, text) in file order
    fast_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, "int64"))  # sorted line numbers
    fast_records: np.ndarray = field(default_factory=lambda: np.zeros(0, "int64"))  # cumulative count of records
    events: dict[str, np.ndarray] = field(default_factory=dict)  # sorted by line
    cuda: dict[str, np.ndarray] = field(default_factory=dict)  # sorted by line, line order within a line
    prestage: dict[str, np.ndarray] = field(default_factory=dict)
    worker_spans: dict[str, np.ndarray] = field(default_factory=dict)  # bulk-read gpu_worker spans, by line


def _ints(column: tuple[str, ...], absent: str = "-1") -> np.ndarray:
    """Digit strings ('' = absent) as int64, `absent` where absent (parsed in C)."""
    if not column:
        return np.zeros(0, dtype="int64")
    return np.fromstring(",".join([v or absent for v in column]), dtype=np.int64, sep=",")


def _codes(column: tuple[str, ...], code: dict[str, int]) -> np.ndarray:
    return np.fromiter(map(code.__getitem__, column), dtype=np.int64, count=len(column))



def _job_ids(column: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Job ids as an object array whose equal ids are one object (an id is in many lines), and
    whether each is acceptable (no record text in it: an interleaved write)."""
    seen: dict[str, str] = {}
    ids = np.array([seen.setdefault(v, v) for v in column], dtype=object)
    bad = [v for v in seen if any(w in v for w in _RECORD_WORDS)]  # as reflog_lines.check_job_id
    return ids, ~np.isin(ids, bad) if bad else np.ones(len(ids), dtype=bool)


def strip_ansi_bytes(arr: np.ndarray) -> np.ndarray:
    """`arr` without the escapes `ESC [ [0-9;]* letter` (reflog_tracing.strip_ansi, for a
    whole chunk): each ESC is checked up to 32 bytes on; a longer one goes to the regex."""
    esc = np.flatnonzero(arr == 0x1B)
    n = len(arr)
    live = esc[(esc + 1 < n)]
    live = live[arr[live + 1] == ord("[")]
    end = np.full(len(live), -1, dtype="int64")
    pending = np.ones(len(live), dtype=bool)
    for k in range(2, 34):
        idx = np.flatnonzero(pending & (live + k < n))
        if not len(idx):
            break
        b = arr[live[idx] + k]
        letter = ((b >= ord("A")) & (b <= ord("Z"))) | ((b >= ord("a")) & (b <= ord("z")))
        param = ((b >= ord("0")) & (b <= ord("9"))) | (b == ord(";"))
        end[idx[letter]] = live[idx[letter]] + k
        pending[idx[~param]] = False  # a letter ends it, anything else means no escape here
        if k == 33 and pending.any():
            return np.frombuffer(_ANSI.sub(b"", arr.tobytes()), dtype=np.uint8)
    starts = live[end >= 0]
    stops = end[end >= 0] + 1
    if not len(starts):
        return arr
    cut = np.zeros(n + 1, dtype=np.int8)
    cut[starts] += 1
    cut[stops] -= 1
    return arr[np.cumsum(cut[:-1], dtype=np.int8) == 0]


def _prefix_mask(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray, candidates: np.ndarray,
                 prefix: bytes) -> np.ndarray:
    """Lines among `candidates` (their first byte already checked) that start with `prefix`."""
    idx = np.flatnonzero(candidates & (lengths >= len(prefix)))
    for k, byte in enumerate(prefix[1:], start=1):
        idx = idx[arr[starts[idx] + k] == byte]
    out = np.zeros(len(starts), dtype=bool)
    out[idx] = True
    return out


def _timeline(text: str, lines: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    offset, event, job, worker, partition, vkey, value, kind, mono = zip(*_TIMELINE.findall(text))
    worker, partition, value = _ints(worker), _ints(partition), _ints(value)
    vkey = _codes(vkey, {"": 0, "synth_ms": _S, "gpu_ms": _G})
    kind = np.array(kind, dtype=object)
    bits = (worker >= 0) * _W | (partition >= 0) * _P | vkey | (kind != "") * _K
    bits |= np.fromiter(map(bool, mono), dtype=bool, count=len(mono)) * _M
    codes = _codes(event, _EVENT_CODE)
    jobs, good_job = _job_ids(job)
    ok = _TIMELINE_OK[codes, bits] & good_job
    return ok, {
        "line": lines[ok], "offset_ms": _ints(offset, "0")[ok], "event": _EVENT_NAMES[codes[ok]],
        "job_id": jobs[ok], "partition": partition[ok], "worker": worker[ok], "kind": kind[ok],
        "value_ms": value[ok],
    }


def _cuda(text: str, lines: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    tid, k1, v1, k2, v2_text, pre = zip(*_CUDA.findall(text))
    first, second = _codes(k1, _FIRST_CODE), _codes(k2, _SECOND_CODE)
    v1, v2, tids = _ints(v1, "0"), _ints(v2_text, "0"), _ints(tid)
    durations = _CUDA_OK[(tids >= 0).astype("int64"), first, second] & (v1 >= 0) & (v2 >= 0)
    counts = np.flatnonzero(durations & (second == _NUM_CIRCUITS))
    signed = [i for i in counts.tolist() if v2_text[i].startswith("-")]  # %zu has no sign, not even -0
    durations[signed] = False
    prestage = np.fromiter(map(bool, pre), dtype=bool, count=len(pre))
    two = durations & (second > 0) & (second != _NUM_CIRCUITS)
    rows = np.concatenate([np.flatnonzero(durations), np.flatnonzero(two)])
    order = np.argsort(rows, kind="stable")  # per line: the first key, then the second
    keys = np.concatenate([_FIRST_NAMES[first[durations]], _SECOND_NAMES[second[two]]])[order]
    values = np.concatenate([v1[durations], v2[two]])[order]
    rows = rows[order]
    cuda = {"line": lines[rows], "key": keys, "value_ms": values, "gpu_tid": tids[rows]}
    pre_values = np.array(pre, dtype=object)[prestage]
    return durations | prestage, cuda, {"line": lines[prestage], "prestage_setup": pre_values}


def _ntt_h(text: str, lines: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    k = len(_NTT_H_KEYS)
    rows = _NTT_H.findall(text)
    matched = np.fromiter((bool(r[0]) for r in rows), dtype=bool, count=len(rows))
    ints = _ints(tuple(v for r in rows for v in r), "0").reshape(len(rows), k)
    ok = matched & (ints >= 0).all(axis=1)
    n = int(ok.sum())
    return ok, {"line": np.repeat(lines[ok], k),
                "key": np.tile(np.array([f"ntt_h.{key}" for key in _NTT_H_KEYS], dtype=object), n),
                "value_ms": ints[ok].reshape(-1), "gpu_tid": np.full(n * k, -1, dtype="int64")}


# The span engine.rs opens around each GPU call, naming the worker's GPU (reflog_tracing.WORKER_SPAN);
# a worker keeps its GPU, so the scanner needs to see only one line per (worker, gpu) pair.
# Numbers as the line scanner takes them (reflog_lines.uint: at most 18 digits).
_WORKER_SPAN = re.compile(re.escape(WORKER_SPAN).encode() + rb"\{(?:worker_id=([0-9]{1,18}) gpu=([0-9]{1,18})[ }])?")
# A worker start line, wherever its text is (one the scanner does not take as one only sends
# it more lines); its worker and GPU when they follow as in engine.rs.
_WORKER_STARTED = re.compile(re.escape(WORKER_STARTED).encode() + rb"(?: worker_id=([0-9]{1,18}) gpu=([0-9]{1,18})(?=[ \n]))?")


def _worker_starts(chunk: bytes) -> list[tuple[int, int] | None]:
    """(worker, gpu) of each worker start text of the chunk, None where not of that form."""
    return [(int(m[1]), int(m[2])) if m[1] is not None else None for m in _WORKER_STARTED.finditer(chunk)]


def _tracing(raw: bytes, named: dict[int, int], starts: list[tuple[int, int] | None]
             ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Which tracing lines are read in bulk, and the (line index, worker, gpu) of the
    gpu_worker spans among them. `named`: the GPU each worker was put on earlier in the file
    (-1: several), `starts`: the chunk's worker start lines (`_worker_starts`)."""
    ok = np.array(_TRACING.findall(raw.decode("utf-8", errors="replace"))) != ""
    ends = None

    def line_of(pos: int) -> int:  # the line whose end is the first after pos
        nonlocal ends
        if ends is None:
            ends = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 10)
        return int(np.searchsorted(ends, pos))

    for token in TRACING_SLOW:
        needle = token.encode()
        pos = raw.find(needle)
        while pos >= 0:
            ok[line_of(pos)] = False
            pos = raw.find(needle, pos + 1)
    # gpu_worker spans: the first line of each (worker, gpu) pair of the chunk goes to the
    # scanner (which maps the worker in its run), and every span it cannot read in bulk. A
    # worker keeps its GPU; every line of a worker that may break that goes to the scanner too,
    # which checks each against its run: one named here (by spans and start lines) with two
    # GPUs, or with another than earlier in the file; every worker, where a start line does
    # not say its worker and GPU. So a span read in bulk never conflicts with its run.
    first: dict[tuple[int, int], int] = {}
    lines_of: dict[int, list[int]] = {}
    gpus_of: dict[int, set[int]] = {}
    span_line, span_worker, span_gpu = [], [], []
    for m in _WORKER_SPAN.finditer(raw):
        line = line_of(m.start())
        if m[1] is None:
            ok[line] = False
            continue
        worker, gpu = int(m[1]), int(m[2])  # as numbers: worker_id=01 is worker 1
        first.setdefault((worker, gpu), line)
        lines_of.setdefault(worker, []).append(line)
        gpus_of.setdefault(worker, set()).add(gpu)
        span_line.append(line)
        span_worker.append(worker)
        span_gpu.append(gpu)
    for line in first.values():
        ok[line] = False
    for start in starts:
        if start is not None and start[0] in gpus_of:
            gpus_of[start[0]].add(start[1])
    unread_start = None in starts
    for worker, gpus in gpus_of.items():
        if unread_start or len(gpus) > 1 or named.get(worker, next(iter(gpus))) not in gpus:
            ok[lines_of[worker]] = False
    spans = {"line": np.asarray(span_line, dtype="int64"),
             "worker": np.asarray(span_worker, dtype="int64"), "gpu": np.asarray(span_gpu, dtype="int64")}
    keep = ok[spans["line"]] if len(span_line) else np.zeros(0, dtype=bool)  # the bulk-read ones
    return ok, {k: v[keep] for k, v in spans.items()}


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    parts = [p for p in parts if p and len(p["line"])]
    if not parts:
        return {}
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    order = np.argsort(out["line"], kind="stable")
    return {k: v[order] for k, v in out.items()}


_KIND_NAMES = np.array(list(PROOF_KINDS) + [""], dtype=object)  # code -1: no kind
_PRESTAGE_NAMES = np.array(PRESTAGE_VALUES, dtype=object)


def _native_scan(scanner: Any, chunk: bytes | memoryview, first_line: int, named: dict[int, int]) -> ChunkScan:
    """ChunkScan from prooflab.ReflogScanner's columns of codes."""
    r = scanner.scan(chunk, first_line, named)
    ev, cu, pre, spans = r["events"], r["cuda"], r["prestage"], r["worker_spans"]
    scan = ChunkScan(first_line=first_line, n_lines=r["n_lines"], slow=r["slow"], fast_lines=r["fast_lines"],
                     fast_records=r["fast_records"])
    if len(ev["line"]):
        scan.events = {"line": ev["line"], "offset_ms": ev["offset_ms"], "event": _EVENT_NAMES[ev["event"]],
                       "job_id": np.array(r["job_ids"], dtype=object)[ev["job"]], "partition": ev["partition"],
                       "worker": ev["worker"], "kind": _KIND_NAMES[ev["kind"]], "value_ms": ev["value_ms"]}
    if len(cu["line"]):
        keys = np.array(scanner.value_keys, dtype=object)
        scan.cuda = {"line": cu["line"], "key": keys[cu["key"]], "value_ms": cu["value_ms"], "gpu_tid": cu["gpu_tid"]}
    if len(pre["line"]):
        scan.prestage = {"line": pre["line"], "prestage_setup": _PRESTAGE_NAMES[pre["value"]]}
    if len(spans["line"]):
        scan.worker_spans = spans
    return scan


def scan_chunk(chunk: bytes | memoryview, first_line: int, fast: bool, named: dict[int, int] | None = None) -> ChunkScan:
    """`chunk`: whole lines as read, every one ending with `\\n`; its first line has number
    `first_line`. `fast`: lines of the common shapes read here (compiled when the module is
    there; a writable chunk is then normalised in place), else every line handed back.
    `named`: worker -> GPU of the workers the runs before the chunk put on a GPU (-1 where
    they differ), which decides the span lines the scanner must check."""
    named = named or {}
    scanner = native_scanner() if fast else None
    if scanner is not None:
        return _native_scan(scanner, chunk, first_line, named)
    chunk = normalise(bytes(chunk))
    arr = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype("int64") if len(ends) else ends
    lengths = ends - starts
    numbers = np.arange(first_line, first_line + len(ends), dtype="int64")
    scan = ChunkScan(first_line=first_line, n_lines=len(ends))
    fast_mask = np.zeros(len(ends), dtype=bool)
    record_mask = np.zeros(len(ends), dtype=bool)
    if fast and len(ends):
        first = arr[starts]
        classes = np.zeros(len(ends), dtype=np.uint8)
        classes[_prefix_mask(arr, starts, lengths, first == ord("T"), TIMELINE_PREFIX.encode())] = _T
        is_c = first == ord("C")
        classes[_prefix_mask(arr, starts, lengths, is_c, TIMING_PREFIX.encode())] = _C
        classes[_prefix_mask(arr, starts, lengths, is_c, NTT_H_PREFIX.encode())] = _NH
        digit = np.flatnonzero((first >= ord("0")) & (first <= ord("9")) & (lengths > 20))
        classes[digit[arr[starts[digit] + 10] == ord("T")]] = _D
        per_byte = np.repeat(classes, lengths + 1)
        cuda_parts, prestage_parts = [], []
        for cls in (_T, _C, _NH, _D):
            where = np.flatnonzero(classes == cls)
            if not len(where):
                continue
            raw = arr[per_byte == cls].tobytes()  # the class's lines, each with its \n
            if cls == _D:
                ok, spans = _tracing(raw, named, _worker_starts(chunk))
                fast_mask[where[ok]] = True
                scan.worker_spans = {**spans, "line": numbers[where][spans["line"]]}
                continue
            text = raw.decode("utf-8", errors="replace")
            if cls == _T:
                ok, scan.events = _timeline(text, numbers[where])
            elif cls == _C:
                ok, cuda, prestage = _cuda(text, numbers[where])
                cuda_parts.append(cuda)
                prestage_parts.append(prestage)
            else:
                ok, cuda = _ntt_h(text, numbers[where])
                cuda_parts.append(cuda)
            fast_mask[where[ok]] = True
            record_mask[where[ok]] = True
        scan.cuda = _concat(cuda_parts)
        scan.prestage = _concat(prestage_parts)
    fast_idx = np.flatnonzero(fast_mask)
    scan.fast_lines = numbers[fast_idx]
    scan.fast_records = np.cumsum(record_mask[fast_idx], dtype="int64")
    slow = np.flatnonzero(~fast_mask)
    scan.slow = [(first_line + int(i), chunk[s:e].decode("utf-8", errors="replace"))
                 for i, s, e in zip(slow.tolist(), starts[slow].tolist(), ends[slow].tolist())]
    return scan
