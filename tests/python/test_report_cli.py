"""`prooflab report` (harness/commands/report.cpp: prooflab_analysis in an embedded Python) on the
committed reference runs.

Skipped where the harness is not built (a Python-only checkout). PROOFLAB_BUILD_DIR selects
another build directory than build/.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("PROOFLAB_BUILD_DIR", REPO / "build"))
PROOFLAB = BUILD_DIR / "bin" / "prooflab"
REFERENCE = REPO / "results" / "reference-runs"

pytestmark = pytest.mark.skipif(not PROOFLAB.exists(),
                                reason=f"no {PROOFLAB}: build the harness (make build) to test `prooflab report`")


def report(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(PROOFLAB), "report", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})}, cwd=REPO)
    if "built without Python embedding" in done.stderr:
        pytest.skip(f"{PROOFLAB} was built without Python embedding: {done.stderr.strip()}")
    return done


def printed(done: subprocess.CompletedProcess[str], kind: str) -> list[Path]:
    return [Path(line.split(":", 1)[1].strip()) for line in done.stdout.splitlines() if line.startswith(kind + ":")]


def test_run_report_with_waterfall(tmp_path: Path) -> None:
    done = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert printed(done, "report") == [tmp_path / "report.md"]
    assert printed(done, "figure") == [tmp_path / "waterfall.png", tmp_path / "waterfall.svg"]
    assert printed(done, "html") == [tmp_path / "report.html"]
    text = (tmp_path / "report.md").read_text()
    assert text.startswith("# Run report: porep-c6-j3")
    assert "integrity: no issues" in text and "![waterfall](waterfall.png)" in text
    assert (tmp_path / "waterfall.png").stat().st_size > 10_000
    assert (tmp_path / "waterfall.svg").stat().st_size > 10_000


def test_window_reaches_the_waterfall(tmp_path: Path) -> None:
    done = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path), "--window", "1:2.5")
    assert done.returncode == 0, done.stderr
    assert "(window 1..2.5 s)" in (tmp_path / "waterfall.svg").read_text()
    bad = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path), "--window", "2.5:1")
    assert bad.returncode != 0 and "window '2.5:1': need 0 <= START < END" in bad.stderr


def test_experiment_report_with_sweep_and_ab_tables(tmp_path: Path) -> None:
    done = report(str(REFERENCE / "two-lock-ab"), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert printed(done, "report") == [tmp_path / "report.md"]
    text = (tmp_path / "report.md").read_text()
    assert "## Sweep" in text and "## A/B: s_per_proof" in text and "| c4_j2 | two_lock |" in text
    tables = set(printed(done, "table"))
    for name in ("sweep.csv", "sweep.md", "ab_s_per_proof.csv", "ab_proofs_per_min.csv"):
        assert tmp_path / name in tables
        assert (tmp_path / name).stat().st_size > 0


def test_the_embedded_interpreter_ignores_pythonpath(tmp_path: Path) -> None:
    # A shadowing package on PYTHONPATH must not reach the report: it runs on the venv alone.
    fake = tmp_path / "shadow" / "prooflab_analysis"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise RuntimeError('shadowed')\n")
    done = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path / "out"),
                  env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.md").exists()


def test_input_errors_name_the_file(tmp_path: Path) -> None:
    done = report(str(tmp_path / "nowhere"))
    assert done.returncode != 0
    assert "nowhere: neither a run directory" in done.stderr and "Traceback" not in done.stderr
    run = tmp_path / "run"
    run.mkdir()
    (run / "timeline.csv").write_text("t_us,event,job,partition,worker,device,detail\n1,bad event,0,,,,\n")
    done = report(str(run))
    assert done.returncode != 0
    assert "timeline.csv:2: column 'event' value 'bad event'" in done.stderr


def test_a_missing_venv_says_how_to_fix_it(tmp_path: Path) -> None:
    done = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path), env={"PROOFLAB_VENV": str(tmp_path / "none")})
    assert done.returncode != 0
    assert f"no Python venv at {tmp_path / 'none'}" in done.stderr and "make deps" in done.stderr


def test_a_venv_of_another_python_is_refused(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 2.7.18\n")
    done = report(str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path), env={"PROOFLAB_VENV": str(venv)})
    assert done.returncode != 0
    assert "is Python 2.7.18 but this prooflab embeds Python 3." in done.stderr
