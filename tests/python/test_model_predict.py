"""`prooflab predict` (issue 20, items 1 and 4): the table, the binding resource, the
predicted waterfall, reference logs as input, and bad input."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.figure import Figure

import cuzk_logs
from prooflab_analysis.__main__ import main
from prooflab_analysis import metrics
from prooflab_analysis.model.engine_sim import simulate
from prooflab_analysis.model.predict import predict, predicted_run, write_run_directory
from prooflab_analysis.waterfall import run_waterfall

from test_model_analytic import calibration, settings
from test_model_calibration import simulated_run


def test_predict_reproduces_the_calibration_setting_and_writes_waterfalls(tmp_path, capsys):
    run = simulated_run(0.0)
    measured = metrics.throughput(run.timeline)["s_per_proof"]
    write_run_directory(run, tmp_path / "run", {})
    rc = main(["predict", str(tmp_path / "run"), "--axes", "gpu_workers_per_device=1,3", "--set", "throttle=on",
               "--waterfall", str(tmp_path / "wf"), "--runs", str(tmp_path / "pred"), "--reps", "1"])
    out = capsys.readouterr().out
    assert rc == 0
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| setting ")]
    assert [r.split("|")[1].strip() for r in rows] == [
        "measured (calibration run)", "calibration setting (predicted)",
        "gpu_workers_per_device=1 throttle=on", "gpu_workers_per_device=3 throttle=on"]
    # Constant stage work: the simulation of the calibration setting is the run itself.
    predicted = float(rows[1].split("|")[2])
    assert predicted == pytest.approx(measured, rel=0.005)
    for k in (0, 1):
        assert (tmp_path / f"wf-{k}.png").stat().st_size > 10_000
        assert (tmp_path / f"pred/point-{k}/timeline.csv").exists()
    assert "binding" in out and "utilisation per setting" in out


def test_the_binding_resource_says_why_more_gpu_workers_do_not_help():
    # GPU phase 1 s of device time, synthesis 0.2 s, b_g2_msm 1.5 s (started at pickup, joined
    # after the lock). gw=1: each partition takes max(1, 1.5) s. gw=2: while one worker joins
    # its b_g2_msm the other holds the lock, which is never idle after 0.2 s: 0.2 + 20 x 1 s,
    # the last b_g2_msm (picked up at 18.2 s) ending before its phase. gw=3 gains nothing.
    cal = calibration({"synth": (0.2, True), "ntt_h": (1.0, True), "b_g2_msm": (1.5, True)})
    cal.settings = settings(count=10, concurrency=10, partitions=2, cores=4)
    pred = predict(run_of(cal), axes=["gpu_workers_per_device=1,2,3"], reps=1, calibration=cal)
    table = pred.table.set_index("setting")
    gw1, gw2, gw3 = (table.loc[f"gpu_workers_per_device={g}"] if g != 2 else table.loc["calibration setting (predicted)"]
                     for g in (1, 2, 3))
    n = 10 * 2
    assert gw2["s_per_proof"] == pytest.approx((0.2 + n * 1.0) / 10, rel=1e-6)
    assert gw3["s_per_proof"] == pytest.approx(gw2["s_per_proof"], rel=1e-6)
    assert gw1["s_per_proof"] == pytest.approx((0.2 + n * 1.5) / 10, rel=1e-6)
    assert gw3["binding"] == "gpu lock" and gw3["binding_util"] == pytest.approx(n / (0.2 + n), rel=1e-6)
    assert gw1["binding"] == "gpu workers"


def run_of(cal):
    return predicted_run(simulate(cal, cal.settings), cal, "calibration")


def test_a_predicted_run_draws_with_the_measured_waterfall_code():
    run = simulated_run(0.0)
    fig = run_waterfall(run)
    assert isinstance(fig, Figure)
    assert set(run.timeline["event"]) >= {"JOB_SUBMIT", "SYNTH_START", "GPU_START", "NTT_H", "B_G2_MSM_END", "JOB_DONE"}


def test_predict_from_a_reference_log(tmp_path, capsys):
    log = cuzk_logs.generate([cuzk_logs.Options(jobs=3, partitions=2, monolithic_jobs=0, devices=1,
                                                workers_per_device=2, seed=5)]).text
    path = tmp_path / "cuzk.log"
    path.write_text(log)
    assert main(["predict", str(path), "--reps", "1"]) == 2
    assert "host's cores; give --set cores=N" in capsys.readouterr().err
    rc = main(["predict", str(path), "--cores", "8", "--axes", "gpu_workers_per_device=1,2", "--reps", "1"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "reference log: stage durations as logged" in out
    assert "gpu_workers_per_device=1" in out


@pytest.mark.parametrize("args,message", [
    (["--set", "gw=3"], "unknown knob 'gw'"),
    (["--axes", "lock_policy=single,three"], "knob 'lock_policy': bad value 'three'"),
    (["--set", "concurrency=100"], "concurrency (100) must not exceed count"),
])
def test_bad_knobs_are_errors_naming_them(tmp_path, capsys, args, message):
    write_run_directory(simulated_run(0.0), tmp_path / "run", {})
    assert main(["predict", str(tmp_path / "run"), "--reps", "1", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_source_is_an_error_naming_it(tmp_path, capsys):
    assert main(["predict", str(tmp_path / "nothing")]) == 2
    assert f"{tmp_path / 'nothing'}: no such run directory or log file" in capsys.readouterr().err
