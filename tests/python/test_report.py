"""`python -m prooflab_analysis report` on a run, an experiment and a reference log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from builders import REFERENCE_LOG, write_ab_experiment, write_known_run, write_sweep_experiment
from prooflab_analysis.__main__ import main


def test_run_report_with_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_known_run(tmp_path / "run", drop={(1, 1)})
    assert main(["report", str(run)]) == 0
    out = Path(capsys.readouterr().out.strip())
    assert out == run / "report" / "report.md"
    text = out.read_text()
    assert "# Run report: known" in text
    assert "integrity: 2 issue(s) (missing_partition x2); excluded job(s): 1." in text
    assert "| s/proof (first JOB_SUBMIT .. last JOB_DONE) | 0.60 |" in text
    assert "| kernel busy (CUPTI) | 65.0 % |" in text
    assert "![waterfall](waterfall.png)" in text
    for name in ("waterfall.png", "waterfall.svg"):
        assert (out.parent / name).stat().st_size > 10_000


def test_report_out_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_known_run(tmp_path / "run")
    assert main(["report", str(run), "--out", str(tmp_path / "elsewhere")]) == 0
    assert Path(capsys.readouterr().out.strip()) == tmp_path / "elsewhere" / "report.md"
    assert (tmp_path / "elsewhere" / "waterfall.png").exists()


@pytest.mark.parametrize("blocked", ["run.json", "index.csv"])
def test_a_directory_where_a_file_belongs_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blocked: str
) -> None:
    (tmp_path / "d" / blocked).mkdir(parents=True)
    assert main(["report", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'd' / blocked}: is a directory, not a file"


def test_sweep_experiment_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", [(5, 5, 1.0), (10, 10, 0.8)], reps=1)
    assert main(["report", str(exp)]) == 0
    out = Path(capsys.readouterr().out.strip())
    text = out.read_text()
    assert "## Sweep" in text and "| c10_j10 | 10 | 10 | 1 | 0.32 |  |  | 187.500 |" in text  # 1 rep: no spread
    assert "## A/B" not in text  # one variant: nothing to compare
    assert pd.read_csv(out.parent / "sweep.csv")["s_per_proof"].round(6).tolist() == [0.4, 0.32]


def test_ab_experiment_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exp = write_ab_experiment(tmp_path / "exp", [38.0, 38.2, 37.9, 38.1, 38.0], [34.2, 34.3, 34.1, 34.4, 34.2])
    assert main(["report", str(exp)]) == 0
    out = Path(capsys.readouterr().out.strip())
    text = out.read_text()
    assert "## A/B: s_per_proof (from `summary.s_per_proof`" in text
    table = pd.read_csv(out.parent / "ab_s_per_proof.csv")
    assert table["verdict"].tolist() == ["improved"]
    rate = pd.read_csv(out.parent / "ab_proofs_per_min.csv")
    assert rate["verdict"].tolist() == ["improved"] and rate["rel_change"].iloc[0] > 0


def test_reference_log_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bench.log"
    log.write_text(REFERENCE_LOG)
    assert main(["report", str(log), "--partitions", "2"]) == 0
    out = Path(capsys.readouterr().out.strip())
    assert out == tmp_path / "bench-report" / "report.md"
    index = out.read_text()
    assert "[alpha](alpha/report.md)" in index and "[beta](beta/report.md)" in index
    alpha = (out.parent / "alpha" / "report.md").read_text()
    assert "spans the lock wait, the kernels and b_g2_msm" in alpha
    assert "expected partitions per proof: 2 (parameter)" in alpha
    assert (out.parent / "beta" / "waterfall.svg").exists()


def test_malformed_input_exits_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.log"
    log.write_text("hello\nTIMELINE,oops,GPU_START,j\n")
    assert main(["report", str(log)]) == 2
    err = capsys.readouterr().err
    assert "bad.log:2" in err and "TIMELINE,oops,GPU_START,j" in err


def test_module_entry_point_runs(tmp_path: Path) -> None:
    run = write_known_run(tmp_path / "run")
    done = subprocess.run([sys.executable, "-m", "prooflab_analysis", "report", str(run)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(run / "report" / "report.md")


def test_window_option_zooms_the_waterfall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_known_run(tmp_path / "run")
    assert main(["report", str(run), "--window", "0.2:0.6"]) == 0
    out = Path(capsys.readouterr().out.strip())
    assert "window 0.2..0.6 s" in (out.parent / "waterfall.svg").read_text()
    assert (out.parent / "report.html").exists()
    assert main(["report", str(run), "--window", "0.6"]) == 2
    assert "window '0.6' is not START:END" in capsys.readouterr().err
    exp = write_sweep_experiment(tmp_path / "exp", [(5, 5, 1.0)], reps=1)
    assert main(["report", str(exp), "--window", "0:1"]) == 2
    assert "is an experiment" in capsys.readouterr().err
