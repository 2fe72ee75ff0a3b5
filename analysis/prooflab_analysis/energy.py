"""Energy per proof: what a run's proofs cost, as summary.json's `energy` block records it.

The figures are defined and computed in one place, by the harness at the end of every batch
(harness/counters/energy_summary.hpp), from the cumulative energy rows of counters.csv
(`gpu_energy<d>/energy`, `host_energy/energy_*`) over the engine's run window: summary.json
is written by the harness on machines that may have no Python (the GPU hosts), and
`prooflab regress` gates on summary.json keys. This module reads them and never recomputes
them, so the report, the A/B tables, the sweep and `regress` all see the same number.

Metrics (run_metrics columns; NaN where the run recorded no such figure):

* `j_per_proof`: GPU + host joules per completed proof (only when both were measured);
  `gpu_j_per_proof`, `host_j_per_proof`: each part;
* `avg_power_w`, `gpu_avg_power_w`, `host_avg_power_w`: joules over the run window;
* `proofs_per_kwh`: completed proofs per kWh of GPU + host energy.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

from .loaders import RunFormatError

# metric -> (key of summary.json's `energy` block, label, higher is better)
ENERGY_METRICS: dict[str, tuple[str, str, bool]] = {
    "j_per_proof": ("j_per_proof", "energy per proof, GPU + host [J]", False),
    "gpu_j_per_proof": ("gpu_j_per_proof", "GPU energy per proof [J]", False),
    "host_j_per_proof": ("host_j_per_proof", "host energy per proof [J]", False),
    "avg_power_w": ("avg_power_w", "average power, GPU + host [W]", False),
    "gpu_avg_power_w": ("gpu_avg_power_w", "average GPU power [W]", False),
    "host_avg_power_w": ("host_avg_power_w", "average host power [W]", False),
    "proofs_per_kwh": ("proofs_per_kwh", "proofs per kWh", True),
}

HIGHER_IS_BETTER: frozenset[str] = frozenset(
    name for metric, (key, _, higher) in ENERGY_METRICS.items() if higher
    for name in (metric, f"summary.energy.{key}"))
LOWER_IS_BETTER: frozenset[str] = frozenset(
    name for metric, (key, _, higher) in ENERGY_METRICS.items() if not higher
    for name in (metric, f"summary.energy.{key}"))


def energy_metrics(summary: Mapping[str, Any], where: str | Path = "summary.json") -> dict[str, float]:
    """The energy metrics of one run's summary.json: NaN for each figure its `energy` block
    lacks, none at all when it has no such block (a summary written before energy was
    recorded, a reference log's Batch Summary).

    A figure that is neither a number nor null is an error naming `where` and the key."""
    block = summary.get("energy")
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        raise RunFormatError(where, f"energy: {block!r} is not an object")
    out: dict[str, float] = {}
    for metric, (key, _, _) in ENERGY_METRICS.items():
        value = block.get(key)
        if value is None:
            out[metric] = math.nan
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            out[metric] = float(value)
        else:
            raise RunFormatError(where, f"energy.{key}: {value!r} is not a finite number or null")
    return out


def energy_notes(summary: Mapping[str, Any]) -> list[str]:
    """Why figures are absent (the harness's notes), and its error if it could not compute them."""
    block = summary.get("energy")
    if not isinstance(block, Mapping):
        return []
    notes = [str(n) for n in block.get("notes", []) or []]
    if "error" in block:
        notes.insert(0, f"energy not computed: {block['error']}")
    return notes
