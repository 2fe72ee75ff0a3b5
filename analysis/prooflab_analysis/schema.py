"""Column lists, event names and dtypes of the run directory (docs/run-directory.md).

One place defines the contract so that the loaders, the reference-log importer and
the test builders cannot drift apart.
"""

from __future__ import annotations

import re

import pandas as pd

TIMELINE_COLUMNS: list[str] = ["t_us", "event", "job", "partition", "worker", "device", "detail"]

# Events the engine writes (DESIGN.md section 4). Unknown upper-case events are kept
# by the loader (forward compatibility) and ignored by the metrics.
TIMELINE_EVENTS: frozenset[str] = frozenset(
    {
        "JOB_SUBMIT",
        "SYNTH_START",
        "SYNTH_END",
        "GPU_QUEUE",
        "GPU_PICKUP",
        "LOCK_WAIT_START",
        "PRESTAGE_START",
        "PRESTAGE_END",
        "GPU_START",
        "NTT_H",
        "BATCH_ADD",
        "TAIL_MSM",
        "GPU_END",
        "PREP_MSM_START",
        "PREP_MSM_END",
        "B_G2_MSM_START",
        "B_G2_MSM_END",
        "DEALLOC_START",
        "DEALLOC_END",
        "THROTTLE_ON",
        "THROTTLE_OFF",
        "PROOF_DONE",
        "JOB_DONE",
        "JOB_FAILED",
        "EARLY_FREE",
        "FINALIZE_START",
        "FINALIZE_END",
        "WITNESS_END",
        "HOST_PIN",
        "HOST_UNPIN",
    }
)

# START/END pairs that describe one interval per (job, partition).
PARTITION_INTERVALS: dict[str, tuple[str, str]] = {
    "synth": ("SYNTH_START", "SYNTH_END"),
    "prestage": ("PRESTAGE_START", "PRESTAGE_END"),
    "gpu": ("GPU_START", "GPU_END"),
    "prep_msm": ("PREP_MSM_START", "PREP_MSM_END"),
    "b_g2_msm": ("B_G2_MSM_START", "B_G2_MSM_END"),
    "dealloc": ("DEALLOC_START", "DEALLOC_END"),
    "finalize": ("FINALIZE_START", "FINALIZE_END"),
}

STAGES_COLUMNS: list[str] = [
    "job",
    "partition",
    "worker",
    "device",
    "status",
    "synth_us",
    "prep_msm_us",
    "queue_us",
    "lock_wait_us",
    "prestage_us",
    "ntt_h_us",
    "batch_add_us",
    "tail_msm_us",
    "gpu_total_us",
    "lock_held_us",
    "b_g2_msm_us",
    "epilogue_us",
    "dealloc_us",
    "host_bytes",
    "vram_peak_bytes",
    "prestage",
]
# Optional trailing columns of stages.csv (documented extensions).
STAGES_OPTIONAL_COLUMNS: list[str] = ["pre_destructor_us", "abc_bytes", "aux_bytes", "density_bytes", "witness_us"]

STAGE_DURATION_COLUMNS: list[str] = [c for c in STAGES_COLUMNS if c.endswith("_us")] + [
    "pre_destructor_us", "witness_us"
]
STAGE_STATUS_VALUES: frozenset[str] = frozenset({"ok", "failed"})
PRESTAGE_VALUES: frozenset[str] = frozenset({"ok", "skip_vram", "fallback", "empty", ""})

CUPTI_COLUMNS: list[str] = ["kind", "device", "stream", "name", "start_us", "end_us", "bytes", "correlation"]
CUPTI_KINDS: frozenset[str] = frozenset({"KERNEL", "MEMCPY", "MEMSET", "SYNC", "MARKER"})

COUNTERS_COLUMNS: list[str] = ["t_us", "source", "metric", "value", "unit"]

INDEX_COLUMNS: list[str] = ["experiment", "cell", "variant", "rep", "order", "run_dir", "status"]

RUN_STATUSES: frozenset[str] = frozenset({"complete", "interrupted", "failed", "running"})
# index.csv says how each run ended (a run left "running" is indexed as interrupted).
INDEX_STATUSES: frozenset[str] = frozenset({"complete", "interrupted", "failed"})

# Long-format stage timings (stages.csv melted, or CUZK_TIMING lines of a reference log).
STAGE_LONG_COLUMNS: list[str] = ["job", "partition", "stage", "value_us"]

INT_DTYPE = "Int64"  # nullable: partition/worker/device are empty for job-level events


def empty_timeline() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "t_us": pd.Series(dtype="int64"),
            "event": pd.Series(dtype=object),
            "job": pd.Series(dtype=INT_DTYPE),
            "partition": pd.Series(dtype=INT_DTYPE),
            "worker": pd.Series(dtype=INT_DTYPE),
            "device": pd.Series(dtype=INT_DTYPE),
            "detail": pd.Series(dtype=object),
        }
    )


def empty_stages() -> pd.DataFrame:
    cols: dict[str, pd.Series] = {}
    for c in STAGES_COLUMNS + STAGES_OPTIONAL_COLUMNS:
        if c in ("status", "prestage"):
            cols[c] = pd.Series(dtype=object)
        else:
            cols[c] = pd.Series(dtype=INT_DTYPE)
    return pd.DataFrame(cols)


def empty_cupti() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "kind": pd.Series(dtype=object),
            "device": pd.Series(dtype=INT_DTYPE),
            "stream": pd.Series(dtype=INT_DTYPE),
            "name": pd.Series(dtype=object),
            "start_us": pd.Series(dtype="float64"),
            "end_us": pd.Series(dtype="float64"),
            "bytes": pd.Series(dtype=INT_DTYPE),
            "correlation": pd.Series(dtype=INT_DTYPE),
        }
    )


def empty_counters() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "t_us": pd.Series(dtype="int64"),
            "source": pd.Series(dtype=object),
            "metric": pd.Series(dtype=object),
            "value": pd.Series(dtype="float64"),
            "unit": pd.Series(dtype=object),
        }
    )


def empty_stage_long() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "job": pd.Series(dtype=INT_DTYPE),
            "partition": pd.Series(dtype=INT_DTYPE),
            "stage": pd.Series(dtype=object),
            "value_us": pd.Series(dtype="float64"),
        }
    )


def parse_detail(detail: str) -> dict[str, str]:
    """`k=v;k=v` -> dict. Empty string -> {}."""
    out: dict[str, str] = {}
    if not detail:
        return out
    for token in detail.split(";"):
        if not token:
            continue
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"detail token {token!r} is not k=v in {detail!r}")
        out[key] = value
    return out


def detail_value(timeline: pd.DataFrame, key: str) -> pd.Series:
    """Value of one `key` in the detail column (string, NA where absent), vectorised."""
    # A detail holding only this key is sliced; others go through one compiled pattern. Both
    # are several times faster than Series.str.extract on a million rows.
    search = re.compile(rf"(?:^|;){re.escape(key)}=([^;]*)").search
    prefix = f"{key}="

    def value(detail: object) -> object:
        if not isinstance(detail, str):
            return pd.NA
        if detail.startswith(prefix) and ";" not in detail:
            return detail[len(prefix):]
        m = search(detail)
        return m.group(1) if m else pd.NA

    return pd.Series([value(d) for d in timeline["detail"]], index=timeline.index, dtype=object)
