"""The model's self-check on measured runs (issue 20): calibrated on a run of the real engine
(CPU backend), the prediction of that run's own setting must give its measured throughput
back. Two committed runs of c8_j4/baseline: one from a quiet sitting
(results/2026-12-02-model-validation-cpu-v2 sitting D rep 0, copied without its proofs to
tests/data/model-selfcheck-cpu) and one measured at load 14
(results/2026-12-02-model-validation-cpu, rep 0), whose stage values are heavy-tailed (a few
instances preempted for 10x their time). The measured figure is computed here from
timeline.csv with the csv module (first JOB_SUBMIT to last JOB_DONE over the proofs done),
not with the analysis' metrics. With draws with replacement (before StageSampler replayed
the calibration run) the loaded run's self-check was -37 % (1 simulation) and -41 % (3)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from prooflab_analysis.loaders import load_run
from prooflab_analysis.model.predict import predict
from prooflab_analysis.model.validation import validate, validation_markdown

ROOT = Path(__file__).resolve().parents[2]
RUNS = {"quiet": ROOT / "tests" / "data" / "model-selfcheck-cpu",
        "loaded": ROOT / "results" / "2026-12-02-model-validation-cpu" / "c8_j4" / "baseline" / "0"}
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


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_committed_runs_are_measured_cpu_runs(name):
    run = load_run(RUNS[name])
    assert run.meta["status"] == "complete" and run.config["backend"] == "cpu"
    assert run.meta["host"]["cores"] >= 1 and run.meta.get("source") != "prediction"
    assert (run.config["count"], run.config["concurrency"]) == (8, 4)


@pytest.mark.parametrize("threads", ["fitted", "table"])
@pytest.mark.parametrize("reps", [1, 3])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_self_check_gives_the_measured_throughput_back(name, reps, threads):
    measured = measured_s_per_proof(RUNS[name])
    predicted = predict(load_run(RUNS[name]), reps=reps, threads=threads).table.iloc[1]
    assert predicted["setting"] == "calibration setting (predicted)"
    error = predicted["s_per_proof"] / measured - 1.0
    assert abs(error) <= TOLERANCE, f"self-check {error:+.1%} (predicted {predicted['s_per_proof']:.4f} s/proof, " \
                                    f"measured {measured:.4f})"


def test_validate_model_reports_the_self_check_of_its_calibration_arm():
    # Sitting D of the v2 validation: calibrated on c8_j4/baseline's three runs, one replayed
    # per simulation; its own row must give the mean of their measured throughputs back.
    sitting = ROOT / "results" / "2026-12-02-model-validation-cpu-v2" / "sitting-D"
    arm = sitting / "c8_j4" / "baseline"
    measured = sum(measured_s_per_proof(arm / str(rep)) for rep in range(3)) / 3
    v = validate(sitting, "c8_j4/baseline", "c4_j1/baseline", reps=3)
    own = v.table[(v.table["cell"] == "c8_j4") & (v.table["variant"] == "baseline")].iloc[0]
    assert own["measured_s_per_proof"] == pytest.approx(measured, rel=1e-6)
    assert v.self_check_error == pytest.approx(own["predicted_s_per_proof"] / measured - 1.0, rel=1e-9)
    assert abs(v.self_check_error) <= TOLERANCE
    assert f"self-check (the calibration arm c8_j4/baseline predicted): {v.self_check_error:+.1%}" \
        in validation_markdown(v)
    with pytest.raises(ValueError, match="threads must be one of"):
        validate(sitting, "c8_j4/baseline", threads="guess")
    # These runs predate the per-pool CPU counter: measured threads are refused, and say why.
    with pytest.raises(ValueError, match="has no summary.json cpu_seconds_by_pool"):
        validate(sitting, "c8_j4/baseline", threads="measured")
