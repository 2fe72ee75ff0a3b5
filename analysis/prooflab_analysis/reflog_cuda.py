"""`CUZK_TIMING:` and `CUZK_NTT_H:` lines of supraseal-c2 (extern/supraseal-c2/cuda/).

Each `fprintf(stderr, ...)` of groth16_cuda.cu and groth16_ntt_h.cu prints one fixed
shape; a line is accepted only when it matches one of them exactly, so a line garbled by
an interleaved write is reported instead of half-read. The lines name no job: the C++
prover does not know the engine's job ids. `gpu_tid` is the index of the GPU thread
inside one multi-GPU call (0 when a call uses one GPU), not a device ordinal.

Two shapes are not in the curio commit this importer was written against but are named by
the Phase 10 two-lock work that prooflab models (DESIGN.md section 1):
`prestage_setup=ok|skip_vram|fallback` and `pre_destructor_ms=N`, one key per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .loaders import quote
from .reflog_lines import LineError

TIMING_PREFIX = "CUZK_TIMING: "
NTT_H_PREFIX = "CUZK_NTT_H: "
PRESTAGE_VALUES = ("ok", "skip_vram", "fallback")

_I = r"(-?\d{1,18})"  # %ld
_Z = r"(\d{1,18})"  # %zu / %d of an index
# (shape, keys of the groups); keys ending in _ms are durations. `gpu` names a device.
_TIMING_SHAPES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(p), k) for p, k in (
        (rf"set pool release threshold to MAX on gpu {_Z}", ("gpu",)),
        (rf"d_a_cache allocated {_Z} MiB on gpu {_Z}", ("d_a_cache_mib", "gpu")),
        (rf"async_dealloc_ms={_I}", ("async_dealloc_ms",)),
        (rf"split_vectors_ms={_I} setup_to_split_ms={_I}", ("split_vectors_ms", "setup_to_split_ms")),
        (rf"prep_msm_ms={_I}", ("prep_msm_ms",)),
        (rf"b_g2_msm_ms={_I} num_circuits={_Z}", ("b_g2_msm_ms", "num_circuits")),
        (rf"pre_lock_cpu_ms={_I} mutex_wait_ms={_I}", ("pre_lock_cpu_ms", "mutex_wait_ms")),
        (rf"gpu_tid={_Z} ntt_msm_h_ms={_I}", ("gpu_tid", "ntt_msm_h_ms")),
        (rf"gpu_tid={_Z} barrier_wait_ms={_I}", ("gpu_tid", "barrier_wait_ms")),
        (rf"gpu_tid={_Z} batch_add_ms={_I}", ("gpu_tid", "batch_add_ms")),
        (rf"gpu_tid={_Z} tail_msm_ms={_I} gpu_total_ms={_I}", ("gpu_tid", "tail_msm_ms", "gpu_total_ms")),
        (rf"mutex_held_ms={_I} total_start_fn_ms={_I}", ("mutex_held_ms", "total_start_fn_ms")),
        (r"prestage_setup=(" + "|".join(PRESTAGE_VALUES) + ")", ("prestage_setup",)),
        (rf"pre_destructor_ms={_I}", ("pre_destructor_ms",)),
    )
)
_NTT_H_KEYS = ("d_b_alloc", "ntt_kernels", "coset_intt_sync", "msm_init", "msm_invoke", "msm_dtor", "total")
_NTT_H_SHAPE = re.compile(" ".join(f"{k}={_I}ms" for k in _NTT_H_KEYS))

# Keys -> stage names shared with stages.csv where prooflab has the same stage.
STAGE_NAMES: dict[str, str] = {
    "prep_msm_ms": "prep_msm",
    "b_g2_msm_ms": "b_g2_msm",
    "mutex_wait_ms": "lock_wait",
    "pre_lock_cpu_ms": "pre_lock_cpu",
    "ntt_msm_h_ms": "ntt_h",
    "barrier_wait_ms": "barrier_wait",
    "batch_add_ms": "batch_add",
    "tail_msm_ms": "tail_msm",
    "gpu_total_ms": "gpu_total",
    "mutex_held_ms": "lock_held",
    "total_start_fn_ms": "start_fn",
    "async_dealloc_ms": "dealloc",
    "split_vectors_ms": "split_vectors",
    "setup_to_split_ms": "setup_to_split",
    "pre_destructor_ms": "pre_destructor",
    **{f"ntt_h.{k}": f"ntt_h.{k}" for k in _NTT_H_KEYS},
}


@dataclass(frozen=True)
class CudaLine:
    durations_ms: tuple[tuple[str, int], ...]  # (key, value) in line order
    gpu_tid: int | None
    gpu: int | None  # a device the line names ("... on gpu N")
    prestage_setup: str | None
    informational: bool  # a line without durations (pool threshold, d_a cache)


def _shapes_hint() -> str:
    return "; ".join(p.pattern.replace(_I, "N").replace(_Z, "N") for p, _ in _TIMING_SHAPES[:4]) + "; ..."


def parse_cuda(line: str) -> CudaLine:
    """A line starting with `CUZK_TIMING: ` or `CUZK_NTT_H: `; LineError when it is no shape the source prints."""
    if line.startswith(NTT_H_PREFIX):
        m = _NTT_H_SHAPE.fullmatch(line[len(NTT_H_PREFIX):])
        if m is None:
            raise LineError("CUZK_NTT_H line is not " + " ".join(f"{k}=Nms" for k in _NTT_H_KEYS))
        values = tuple((f"ntt_h.{k}", int(v)) for k, v in zip(_NTT_H_KEYS, m.groups()))
        return _checked(CudaLine(values, None, None, None, False))
    body = line[len(TIMING_PREFIX):]
    for pattern, keys in _TIMING_SHAPES:
        m = pattern.fullmatch(body)
        if m is None:
            continue
        values = dict(zip(keys, m.groups()))
        durations = tuple((k, int(v)) for k, v in values.items() if k.endswith("_ms"))
        return _checked(CudaLine(
            durations_ms=durations,
            gpu_tid=int(values["gpu_tid"]) if "gpu_tid" in values else None,
            gpu=int(values["gpu"]) if "gpu" in values else None,
            prestage_setup=values.get("prestage_setup"),
            informational=not durations and "prestage_setup" not in values,
        ))
    raise LineError(f"CUZK_TIMING line {quote(body)!r} is no shape supraseal-c2 prints ({_shapes_hint()})")


def _checked(parsed: CudaLine) -> CudaLine:
    for key, value in parsed.durations_ms:
        if value < 0:
            raise LineError(f"{key}={value} is a negative duration")
    return parsed
