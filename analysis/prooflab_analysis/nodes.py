"""Which host each run ran on, and comparisons that span hosts.

A run under Slurm records its node in run.json (`slurm.node`, docs/run-directory.md). Two
hosts of one model still differ (clocks, DIMMs, cooling, other tenants), so an A/B arm pair
measured on different nodes measures the hosts too: `mixed_nodes_note` says so for a
comparison and `nodes_table` counts each cell's runs per node for the report. Runs that
did not run under Slurm have no node (None) and never count as a mix.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

NODES_COLUMNS = ["node", "cell", "variant", "runs"]


def run_node(meta: dict[str, Any]) -> str | None:
    """The node of a run's run.json, or None when it did not run under Slurm."""
    slurm = meta.get("slurm")
    if not isinstance(slurm, dict):
        return None
    node = slurm.get("node")
    return str(node) if isinstance(node, str) and node else None


def _known(nodes: Iterable[Any]) -> list[str]:
    return [str(n) for n in nodes if isinstance(n, str) and n]


def mixed_nodes_note(nodes: Iterable[Any]) -> str | None:
    """A note when the runs of one comparison ran on more than one node, else None."""
    counts = pd.Series(_known(nodes), dtype=object).value_counts()
    if len(counts) < 2:
        return None
    listed = ", ".join(f"{node}: {n}" for node, n in sorted(counts.items()))
    return (f"runs on {len(counts)} nodes ({listed}): host differences confound the comparison; "
            "pin the cell to one node (--pin-node)")


def nodes_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs per (node, cell, variant), nodes in name order; empty when no run has a node."""
    if "node" not in runs.columns:
        return pd.DataFrame(columns=NODES_COLUMNS)
    known = runs[[isinstance(n, str) and bool(n) for n in runs["node"]]]
    if known.empty:
        return pd.DataFrame(columns=NODES_COLUMNS)
    table = known.groupby(["node", "cell", "variant"], sort=True).size().reset_index(name="runs")
    return table[NODES_COLUMNS].reset_index(drop=True)


def cells_on_several_nodes(runs: pd.DataFrame) -> list[str]:
    """Cells whose runs ran on more than one node, in order of first appearance."""
    if "node" not in runs.columns:
        return []
    return [cell for cell in pd.unique(runs["cell"])
            if mixed_nodes_note(runs.loc[runs["cell"] == cell, "node"]) is not None]
