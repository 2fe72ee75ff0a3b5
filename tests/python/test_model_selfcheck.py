"""The model's self-check on a measured run (issue 20): calibrated on a run of the real
engine (CPU backend, results/2026-12-02-model-validation-cpu-v2's c8_j4/baseline rep 0,
committed under tests/data/model-selfcheck-cpu without its proofs), the prediction of that
run's own setting must give its measured throughput back. The measured figure is computed
here from timeline.csv with the csv module (first JOB_SUBMIT to last JOB_DONE over the
proofs done), not with the analysis' metrics. Before the calibration run's values were
replayed per simulation (StageSampler), draws with replacement of this run's heavy-tailed
stage values put the same check tens of percent off."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from prooflab_analysis.loaders import load_run
from prooflab_analysis.model.predict import predict

RUN = Path(__file__).resolve().parents[1] / "data" / "model-selfcheck-cpu"
TOLERANCE = 0.03


def measured_s_per_proof(run_dir: Path) -> float:
    submits, dones = [], []
    with open(run_dir / "timeline.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["event"] == "JOB_SUBMIT":
                submits.append(int(row["t_us"]))
            elif row["event"] == "JOB_DONE":
                dones.append(int(row["t_us"]))
    assert dones, f"{run_dir}: no JOB_DONE"
    return (max(dones) - min(submits)) / 1e6 / len(dones)


def test_the_committed_run_is_a_measured_cpu_run():
    run = load_run(RUN)
    assert run.meta["status"] == "complete" and run.config["backend"] == "cpu"
    assert run.meta["host"]["cores"] >= 1 and run.meta.get("source") != "prediction"


@pytest.mark.parametrize("reps", [1, 3])
def test_the_self_check_gives_the_measured_throughput_back(reps):
    measured = measured_s_per_proof(RUN)
    predicted = predict(load_run(RUN), reps=reps).table.iloc[1]
    assert predicted["setting"] == "calibration setting (predicted)"
    error = predicted["s_per_proof"] / measured - 1.0
    assert abs(error) <= TOLERANCE, f"self-check {error:+.1%} (predicted {predicted['s_per_proof']:.4f} s/proof, " \
                                    f"measured {measured:.4f})"
