"""Runs grouped by the Slurm node run.json records, and comparisons that mix nodes flagged:
in the experiment frame (`node`), the A/B table's note, the node table and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from builders import write_ab_experiment
from prooflab_analysis import metrics, nodes
from prooflab_analysis.abtest import ab_table
from prooflab_analysis.loaders import load_experiment
from prooflab_analysis.report import write_experiment_report

BASE = [38.0, 38.2, 37.9, 38.1]
VARIANT = [36.5, 36.7, 36.4, 36.6]


def place_on_nodes(exp: Path, node_of: dict[tuple[str, int], str | None]) -> None:
    """Give each run (variant, rep) a `slurm` block as an array task on that node."""
    index = pd.read_csv(exp / "index.csv")
    for _, row in index.iterrows():
        node = node_of.get((row["variant"], int(row["rep"])))
        if node is None:
            continue
        path = exp / row["run_dir"] / "run.json"
        meta = json.loads(path.read_text())
        meta["slurm"] = {"job_id": str(100 + int(row["order"])), "array_job_id": "100",
                         "array_task_id": str(row["order"]), "node": node}
        path.write_text(json.dumps(meta))


def test_the_frame_carries_each_runs_node_and_nothing_outside_slurm(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", BASE, VARIANT)
    place_on_nodes(exp, {("baseline", 0): "gpu01", ("serialized_dealloc", 0): "gpu02"})
    frame = load_experiment(exp)
    got = {(r.variant, r.rep): r.node for r in frame.itertuples()}
    assert got[("baseline", 0)] == "gpu01"
    assert got[("serialized_dealloc", 0)] == "gpu02"
    assert all(pd.isna(got[(v, rep)]) for v in ("baseline", "serialized_dealloc") for rep in (1, 2, 3))


def test_a_comparison_across_nodes_is_flagged_with_the_counts(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", BASE, VARIANT)
    # Baseline reps on gpu01, the variant's first three on gpu02 and its last on gpu01.
    placement = {("baseline", r): "gpu01" for r in range(4)}
    placement.update({("serialized_dealloc", r): "gpu02" for r in range(3)})
    placement[("serialized_dealloc", 3)] = "gpu01"
    place_on_nodes(exp, placement)
    table = ab_table(metrics.experiment_metrics(load_experiment(exp)), "summary.s_per_proof", n_boot=2000)
    note = table.iloc[0]["note"]
    assert "runs on 2 nodes (gpu01: 5, gpu02: 3)" in note
    assert "--pin-node" in note


def test_one_node_or_no_node_is_no_mix(tmp_path: Path) -> None:
    for placement in ({(v, r): "gpu07" for v in ("baseline", "serialized_dealloc") for r in range(4)}, {}):
        exp = write_ab_experiment(tmp_path / f"exp{len(placement)}", BASE, VARIANT)
        place_on_nodes(exp, placement)
        table = ab_table(metrics.experiment_metrics(load_experiment(exp)), "summary.s_per_proof", n_boot=2000)
        assert "nodes" not in str(table.iloc[0]["note"])


def test_runs_outside_slurm_do_not_make_a_mix_with_one_node() -> None:
    assert nodes.mixed_nodes_note(["gpu01", None, float("nan"), "gpu01", ""]) is None
    assert nodes.mixed_nodes_note(["a", "b", None]) == (
        "runs on 2 nodes (a: 1, b: 1): host differences confound the comparison; pin the cell to one node (--pin-node)")


def test_node_table_and_report_group_by_node_and_warn(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", BASE, VARIANT)
    placement = {("baseline", r): "gpu01" for r in range(4)}
    placement.update({("serialized_dealloc", r): ("gpu02" if r % 2 else "gpu01") for r in range(4)})
    place_on_nodes(exp, placement)
    runs = load_experiment(exp)
    table = nodes.nodes_table(runs)
    assert table.to_dict("records") == [
        {"node": "gpu01", "cell": "c20_j15", "variant": "baseline", "runs": 4},
        {"node": "gpu01", "cell": "c20_j15", "variant": "serialized_dealloc", "runs": 2},
        {"node": "gpu02", "cell": "c20_j15", "variant": "serialized_dealloc", "runs": 2},
    ]
    assert nodes.cells_on_several_nodes(runs) == ["c20_j15"]
    report = write_experiment_report(exp, tmp_path / "report").read_text()
    assert "## Nodes" in report
    assert "**Warning**: cells `c20_j15` ran on several nodes" in report
    assert "| gpu02 | c20_j15 | serialized_dealloc | 2 |" in report


def test_a_report_without_slurm_runs_has_no_node_section(tmp_path: Path) -> None:
    exp = write_ab_experiment(tmp_path / "exp", BASE, VARIANT)
    assert nodes.nodes_table(load_experiment(exp)).empty
    report = write_experiment_report(exp, tmp_path / "report").read_text()
    assert "## Nodes" not in report and "| node |" not in report
