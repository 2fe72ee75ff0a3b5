"""The engine knobs the pipeline model understands, declared once.

Each knob has the name the engine uses (docs/engine.md, run.json `config`), a parser that
accepts what `--set key=value` accepts, and a status saying how far the model of it has been
checked: `compared` (predicted and compared with measured runs in
results/2026-12-02-model-validation-cpu.md — 12.3 % median error there, above the 10 % target),
`modelled` (simulated from the engine's code or docs, not yet checked against runs) or
`model-only` (a property of the machine the model needs, not an engine knob). Adding a knob
is adding a row here and using it in engine_sim.py; an engine knob the model ignores is a row
of UNMODELLED saying why (tests/python/test_knobs.py checks both against the engine's table).

Knobs of issue #19 (partition_workers, synthesis_lookahead, max_gpu_queue_depth, early_free,
finalize) follow that branch's semantics (core/engine/synthesis_permits.hpp,
gpu_queue_pacer.hpp, finalizer.hpp, host_memory_budget.hpp); with their defaults the model is
today's engine (two synthesis lanes, no lookahead bound, no pacer, inline finalize).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

# Synthesis lanes of today's engine (core/engine/engine.cpp kSynthesisLanes).
ENGINE_SYNTHESIS_LANES = 2

_BYTE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "KB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20,
               "MB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30, "GB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40,
               "TB": 1 << 40}


class KnobError(ValueError):
    """A knob name or value the model does not accept; the message names both."""


def _uint(lo: int, hi: int) -> Callable[[str, Any], int]:
    def parse(key: str, value: Any) -> int:
        text = str(value).strip()
        if not re.fullmatch(r"\d+", text) or not lo <= int(text) <= hi:
            raise KnobError(f"knob '{key}': bad value {value!r} (accepted: an integer from {lo} to {hi})")
        return int(text)
    return parse


def _choice(*options: str) -> Callable[[str, Any], str]:
    def parse(key: str, value: Any) -> str:
        text = str(value).strip()
        if text not in options:
            raise KnobError(f"knob '{key}': bad value {value!r} (accepted: {' | '.join(options)})")
        return text
    return parse


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("on", "true", "1", "yes"):
        return True
    if text in ("off", "false", "0", "no"):
        return False
    raise KnobError(f"knob '{key}': bad value {value!r} (accepted: on | off)")


def _bytes(key: str, value: Any) -> int:
    if value is None:
        return 0
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", str(value).strip())
    if not m or m.group(2) not in _BYTE_UNITS:
        raise KnobError(f"knob '{key}': bad value {value!r} (accepted: a byte count such as 1048576, 512MiB, 16GiB)")
    return int(m.group(1)) * _BYTE_UNITS[m.group(2)]


def _optional_uint(lo: int, hi: int) -> Callable[[str, Any], int | None]:
    inner = _uint(lo, hi)

    def parse(key: str, value: Any) -> int | None:
        return None if value is None or str(value).strip() in ("", "none") else inner(key, value)
    return parse


@dataclass(frozen=True)
class Knob:
    name: str
    parse: Callable[[str, Any], Any]
    default: Any
    status: str  # compared | modelled | model-only
    meaning: str


KNOBS: dict[str, Knob] = {k.name: k for k in [
    Knob("count", _uint(1, 1_000_000), 1, "compared", "proofs in the batch (c)"),
    Knob("concurrency", _uint(1, 10_000), 1, "compared", "proofs in flight (j)"),
    Knob("partitions", _uint(1, 1000), 10, "modelled", "partitions per proof (stage distributions reused)"),
    Knob("gpu_workers_per_device", _uint(1, 64), 2, "compared", "GPU workers per device (gw)"),
    Knob("devices", _uint(1, 64), 1, "modelled", "devices, each with its own lock(s) and VRAM"),
    Knob("lock_policy", _choice("single", "two_lock", "none"), "single", "compared", "GPU interlock"),
    Knob("dealloc_policy", _choice("async", "serialized", "inline"), "async", "compared",
         "host-buffer free: detached / one mutex (I1) / on the worker"),
    Knob("gpu_threads", _uint(0, 4096), 0, "compared", "groth16 pool threads for b_g2_msm (I2); 0 = cores"),
    Knob("synth_threads", _uint(0, 4096), 0, "modelled", "synthesis pool threads; 0 = cores"),
    Knob("device_threads", _uint(0, 4096), 0, "modelled", "CPU backend: the emulated device's threads; 0 = cores"),
    Knob("throttle", _bool, False, "compared", "synthesis yields while any b_g2_msm runs (I3)"),
    Knob("vram_limit", _bytes, 0, "compared", "usable device memory in bytes; 0 = the calibrated device's"),
    Knob("host_mem_budget", _bytes, 0, "modelled", "host bytes of partition buffers; 0 = the engine's auto"),
    Knob("partition_workers", _uint(1, 1024), ENGINE_SYNTHESIS_LANES, "modelled",
         "issue #19 pw: partitions synthesized at once (today: the engine's 2 lanes)"),
    Knob("synthesis_lookahead", _optional_uint(0, 4096), None, "modelled",
         "issue #19: synthesized partitions allowed to wait for the GPU; 0 = pw; unset = unbounded (today)"),
    Knob("max_gpu_queue_depth", _uint(0, 4096), 0, "modelled",
         "issue #19 pacer: start synthesis only while waiting + synthesizing < N; 0 = off"),
    Knob("early_free", _bool, False, "modelled", "issue #19: a, b, c freed at GPU_END, before b_g2_msm's join"),
    Knob("finalize", _choice("inline", "split"), "inline", "modelled",
         "issue #19: split hands join + epilogue + dealloc to a finalizer (one thread per GPU worker)"),
    Knob("cores", _uint(1, 4096), 0, "model-only", "CPU cores of the host (default: run.json host.cores)"),
]}

# The engine's knobs the model leaves out, each with why. With KNOBS (less the model-only
# ones) these are exactly the engine's table of knobs (core/engine/knobs.hpp, `prooflab knobs`);
# tests/python/test_knobs.py fails when a knob is added there and in neither place here.
UNMODELLED: dict[str, str] = {
    "circuit": "the stage times come from the calibration run, whatever circuit it proved",
    "constraints": "the stage times come from the calibration run; the model does not rescale them",
    "seed": "the witness seed changes no stage time the model draws",
    "verify": "verification is not simulated",
    "backend": "the calibration run's device stands for the backend",
    "b_g2_msm": "b_g2_msm is simulated on the CPU pool, where the calibration run measured it",
    "sparse_products": "the products are simulated where the calibration run computed them (synthesis's "
                       "products part, or inside ntt_h with sparse_products = gpu)",
    "prep_msm": "prep_msm is simulated where the calibration run made the plan (the partition worker, "
                "or inside GPU_START..GPU_END with prep_msm = gpu)",
    "pin_uploads": "the upload is inside the calibration run's GPU phase, page-locked or not; the "
                   "locking and unlocking (HOST_PIN / HOST_UNPIN on the GPU worker, outside the lock) "
                   "are not simulated",
    "fixed_base_h": "the MSM of H is inside the calibration run's GPU phase, in whichever mode it ran; "
                    "the table's one-time build (in the first phase of a key) is not simulated",
    "overlap_batch_add": "the batch additions and tail MSMs are inside the calibration run's GPU phase, "
                         "one after the other or side by side as it ran them",
    "tails_beside_h": "H, the batch additions and the tail MSMs are inside the calibration run's GPU "
                      "phase, one after the other or side by side as it ran them",
    "batch_add_tables": "the batch additions are inside the calibration run's GPU phase, over the "
                        "group tables (pairs, quads) or none as it ran them; the tables' one-time build "
                        "(in the first phase of a key) is not simulated",
    "h_basis": "H's transforms and MSM are inside the calibration run's GPU phase (seven, six or four "
               "as its key's basis made them), C·w inside its synthesis or not; a coset key's setup is "
               "not simulated",
    "record": "the TIMELINE's cost is inside the calibration run's stage times",
    "cupti": "CUPTI's cost is inside the calibration run's stage times",
}


class Settings(dict):
    """Knob name -> parsed value, for every knob in KNOBS."""

    def replace(self, **changes: Any) -> "Settings":
        out = Settings(self)
        for key, value in changes.items():
            out[key] = parse_knob(key, value)
        return out


def parse_knob(key: str, value: Any) -> Any:
    knob = KNOBS.get(key)
    if knob is None:
        raise KnobError(f"unknown knob '{key}' (known: {', '.join(KNOBS)})")
    return knob.parse(key, value)


def settings_from_config(config: Mapping[str, Any], host_cores: int | None) -> Settings:
    """The knobs of a measured run (run.json `config`); knobs it lacks take their defaults.
    Values the engine wrote are parsed as a user's would be, so a bad run.json is an error
    naming the knob."""
    out = Settings()
    for name, knob in KNOBS.items():
        if knob.status == "model-only":
            continue
        value = config.get(name, knob.default)
        out[name] = knob.default if value is None and name != "synthesis_lookahead" else knob.parse(name, value)
    out["cores"] = int(host_cores) if host_cores else 0  # 0: unknown, the caller must ask for it
    return out


def _split_assignment(text: str, what: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise KnobError(f"{what} {text!r} is not knob=value")
    return key.strip(), value.strip()


def apply_overrides(settings: Settings, assignments: Iterable[str]) -> Settings:
    """`--set knob=value ...` on top of `settings`."""
    out = Settings(settings)
    for text in assignments:
        key, value = _split_assignment(text, "--set")
        out[key] = parse_knob(key, value)
    return out


def axis_points(axes: Iterable[str]) -> list[dict[str, Any]]:
    """`--axes knob=v1,v2 ...`: the cartesian product, one dict of parsed values per point
    (the first axis varies slowest); [{}] without axes."""
    points: list[dict[str, Any]] = [{}]
    seen: set[str] = set()
    for text in axes:
        key, values = _split_assignment(text, "--axes")
        if key in seen:
            raise KnobError(f"--axes names knob '{key}' twice")
        seen.add(key)
        parsed = [parse_knob(key, v) for v in values.split(",") if v.strip()]
        if not parsed:
            raise KnobError(f"--axes {text!r}: no values")
        points = [{**p, key: v} for p in points for v in parsed]
    return points
