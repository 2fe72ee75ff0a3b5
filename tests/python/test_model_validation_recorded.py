"""The model's validation target (issue 20, item 3: median absolute throughput error <= 10 %
over the held-out arms of a c/j sweep and the I1/I2/I3/two-lock arms) on three sittings of
the real engine on the CPU backend, measured on a quiet 2-vCPU VM and committed without their
proofs (results/2026-12-03-model-validation-cpu-quiet, README there: machine, commit, load,
commands). Each sitting is experiments/model-validation-cpu.toml run whole, interleaved.

The measured s/proof of each arm is computed from the runs' timeline.csv with the csv
module (test_model_selfcheck.measured_s_per_proof: first JOB_SUBMIT to the last JOB_DONE,
over the proofs done; the mean over the arm's repetitions), not with the analysis' metrics, and so is the held-out median error: the
test takes only the model's predicted s/proof from `validate`.

Deterministic (the simulations are seeded), ~4 s a sitting."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from statistics import mean, median

import pytest

from prooflab_analysis.model.validation import validate
from test_model_selfcheck import measured_s_per_proof

ROOT = Path(__file__).resolve().parents[2]
SITTINGS = ROOT / "results" / "2026-12-03-model-validation-cpu-quiet"
CALIBRATE, BANDWIDTH = "c8_j4/baseline", "c4_j1/baseline"
TARGET = 0.10


def measured_arms(sitting: Path) -> dict[str, float]:
    arms: dict[str, list[float]] = {}
    with open(sitting / "index.csv", newline="") as f:
        for row in csv.DictReader(f):
            assert row["status"] == "complete", f"{sitting.name} {row['run_dir']}: {row['status']}"
            assert json.loads((sitting / row["run_dir"] / "run.json").read_text())["config"]["backend"] == "cpu"
            arms.setdefault(f"{row['cell']}/{row['variant']}", []).append(measured_s_per_proof(sitting / row["run_dir"]))
    assert all(len(v) == 3 for v in arms.values()), {k: len(v) for k, v in arms.items()}
    return {arm: mean(v) for arm, v in arms.items()}


@pytest.mark.parametrize("name", ["sitting-F", "sitting-G", "sitting-H"])
def test_held_out_median_error_meets_the_target_on_a_quiet_sitting(name: str) -> None:
    sitting = SITTINGS / name
    measured = measured_arms(sitting)
    assert len(measured) == 8  # 4 c/j cells of the baseline + I1, I2, I3, two_lock at c8_j4
    table = validate(sitting, CALIBRATE, BANDWIDTH, reps=3).table
    errors = {}
    for row in table.to_dict("records"):
        arm = f"{row['cell']}/{row['variant']}"
        assert row["measured_s_per_proof"] == pytest.approx(measured[arm], rel=1e-9), arm
        if arm not in (CALIBRATE, BANDWIDTH):
            errors[arm] = abs(row["predicted_s_per_proof"] - measured[arm]) / measured[arm]
    assert sorted(errors) == ["c6_j2/baseline", "c8_j4/I1", "c8_j4/I2", "c8_j4/I3", "c8_j4/two_lock",
                              "c8_j8/baseline"]
    assert median(errors.values()) <= TARGET, {k: f"{v:.1%}" for k, v in errors.items()}
