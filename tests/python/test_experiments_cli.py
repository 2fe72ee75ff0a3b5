"""End-to-end tests of the experiment commands (`prooflab matrix`, `sweep`, `run`) through the
binary that `make test` builds (build/bin/prooflab; PROOFLAB_BIN overrides it), with the
parameter cache in a temporary directory. They skip, saying why, when the binary is missing.

The runner's logic (interleaving, resume decisions, stop flags) is tested in C++
(tests/cpp/experiment_*_test.cpp); these check the same things through the real engine, and
that the analysis package reads what the runner writes."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from prooflab_analysis import abtest, metrics, sweep
from prooflab_analysis.loaders import load_experiment
from prooflab_cli import BIN, ROOT, prooflab

EXPERIMENTS = ROOT / "experiments"


def _why_unusable() -> str | None:
    if not BIN.exists():
        return f"{BIN} is missing: build it first (make test builds build/bin/prooflab)"
    listing = subprocess.run([str(BIN), "--help"], capture_output=True, text=True).stdout
    if not all(cmd in listing for cmd in ("matrix", "sweep")):
        return f"{BIN} predates the matrix/sweep commands: rebuild it (make test does)"
    return None


_WHY = _why_unusable()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


TINY_EXPERIMENT = """
[experiment]
reps = {reps}
seed = 2
[base]
circuit = "{circuit}"
constraints = {constraints}
partitions = {partitions}
count = 2
concurrency = 2
[variants]
baseline = {{}}
I1 = {{ dealloc_policy = "serialized" }}
"""


@pytest.fixture(scope="module")
def ci_smoke(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("results")
    t0 = time.monotonic()
    proc = prooflab(["matrix", str(EXPERIMENTS / "ci-smoke.toml"), "--out", str(out)], env, cwd=out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert time.monotonic() - t0 < 30, "ci-smoke must run in seconds"
    return out / "ci-smoke", proc


# ----------------------------------------------------------------------------- files


def test_every_shipped_experiment_dry_runs(tmp_path: Path, env: dict[str, str]) -> None:
    files = sorted(p for p in EXPERIMENTS.glob("*.toml") if p.name != "default-cpu.toml")
    assert len(files) >= 9
    for file in files:
        proc = prooflab(["matrix", str(file), "--dry-run", "--out", str(tmp_path)], env, cwd=tmp_path)
        assert proc.returncode == 0, f"{file.name}: {proc.stderr}"
        assert f"experiment {file.stem} " in proc.stdout
        assert "runs:" in proc.stdout
        if file.stem.endswith("-external"):  # an external prover (docs/external-runner.md)
            assert "runner: command" in proc.stdout, file.name
            continue
        backend = tomllib.loads(file.read_text())["base"].get("backend", "cpu")
        # The file's name says its backend where it ends in -cpu / -gpu.
        assert backend == {"-cpu": "cpu", "-gpu": "cuda"}.get(file.stem[-4:], backend), file.name
        assert f"backend={backend}" in proc.stdout, file.name
    assert not any(tmp_path.iterdir()), "a dry run must not write anything"


def test_schema_errors_name_file_line_and_key(tmp_path: Path, env: dict[str, str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nreps = 2\n[base]\nlock_policy = "two-lock"\n')
    proc = prooflab(["matrix", str(bad), "--dry-run"], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert f"{bad}:4: [base] key 'lock_policy': bad value 'two-lock'" in proc.stderr

    bad.write_text('[variants]\nbaseline = {}\nI1 = { gpu_threads = 2 }\n[[exclude]]\nvariants = ["I7"]\n')
    proc = prooflab(["matrix", str(bad), "--dry-run"], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert f"{bad}:5: [[exclude]] key 'variants': unknown variant 'I7'" in proc.stderr


def test_a_cuda_experiment_without_a_gpu_stops_with_the_backends_error(tmp_path: Path, env: dict[str, str]) -> None:
    devices = prooflab(["devices"], env, cwd=tmp_path).stdout
    if devices.startswith("GPU "):
        pytest.skip("a GPU is visible: this checks the error of machines without one (and the "
                    "experiment itself is sized for the reference's host)")
    proc = prooflab(["matrix", str(EXPERIMENTS / "phase9-baseline-gpu.toml"), "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode != 0
    # A build without CUDA names the key; a CUDA build on a machine without a GPU gives the
    # CUDA runtime's reason.
    assert ("config key 'backend': 'cuda' needs a build with CUDA" in proc.stderr
            or "backend 'cuda': no usable CUDA device" in proc.stderr), proc.stderr
    record = json.loads((tmp_path / "phase9-baseline-gpu" / "experiment.json").read_text())
    assert record["status"] == "failed"


# ------------------------------------------------------------------------ ci-smoke


def test_ci_smoke_runs_and_loads_into_an_ab_table(ci_smoke: tuple[Path, subprocess.CompletedProcess]) -> None:
    exp_dir, proc = ci_smoke
    assert f"index: {exp_dir / 'index.csv'}" in proc.stdout
    # The report command as the user can type it from where they stand: the binary as invoked.
    assert f"report: {BIN} report {exp_dir}" in proc.stdout
    assert "[10/10]" in proc.stdout  # one progress line per run off a terminal

    runs = load_experiment(exp_dir)
    assert len(runs) == 8  # 2 cells x 2 variants x 2 reps; the 2 warm-ups are not indexed
    assert set(runs["status"]) == {"complete"}
    assert set(runs["variant"]) == {"baseline", "I1"}
    assert set(runs["cell"]) == {"tiny", "porep-like"}
    assert runs.groupby(["cell", "variant"]).size().eq(2).all()
    assert {"count", "concurrency", "circuit", "dealloc_policy"} <= set(runs.columns)
    assert set(runs.loc[runs["variant"] == "I1", "dealloc_policy"]) == {"serialized"}
    assert runs["summary.s_per_proof"].notna().all()
    for run_dir in runs["run_path"]:
        assert json.loads((Path(run_dir) / "run.json").read_text())["status"] == "complete"

    # Interleaved: in every cell, each arm's repetition k precedes every arm's repetition k+1.
    for _, cell in runs.groupby("cell"):
        by_rep = cell.groupby("rep")["order"]
        assert by_rep.max().iloc[0] < by_rep.min().iloc[1]

    table = abtest.ab_table(metrics.experiment_metrics(runs), "s_per_proof", n_boot=2000)
    assert len(table) == 2
    assert set(table["variant"]) == {"I1"}
    assert set(table["cell"]) == {"tiny", "porep-like"}
    # 2 vs 2 runs: the analysis says so rather than guessing.
    assert set(table["verdict"]) == {"inconclusive"}

    record = json.loads((exp_dir / "experiment.json").read_text())
    assert record["status"] == "complete"
    assert record["seed"] == 1
    assert len(record["runs"]) == 10
    assert sum(r["warmup"] for r in record["runs"]) == 2
    assert all(r["status"] == "complete" for r in record["runs"])


def test_resume_skips_complete_runs_and_redoes_an_interrupted_one(
    ci_smoke: tuple[Path, subprocess.CompletedProcess], tmp_path: Path, env: dict[str, str]
) -> None:
    exp_dir = tmp_path / "ci-smoke"
    shutil.copytree(ci_smoke[0], exp_dir)
    index = pd.read_csv(exp_dir / "index.csv")
    victim = index.iloc[3]["run_dir"]
    run_json = exp_dir / victim / "run.json"
    meta = json.loads(run_json.read_text())
    meta["status"] = "interrupted"
    run_json.write_text(json.dumps(meta))
    shutil.rmtree(exp_dir / index.iloc[5]["run_dir"])
    untouched = exp_dir / index.iloc[0]["run_dir"] / "run.json"
    before = untouched.stat().st_mtime_ns

    dry = prooflab(["matrix", str(EXPERIMENTS / "ci-smoke.toml"), "--out", str(tmp_path), "--dry-run"], env, cwd=tmp_path)
    assert f"{victim} (interrupted, redo)" in dry.stdout
    assert f"{index.iloc[5]['run_dir']} (pending)" in dry.stdout

    proc = prooflab(["matrix", str(EXPERIMENTS / "ci-smoke.toml"), "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "resume: 8 of 10 runs already complete, skipped" in proc.stdout
    assert "8 were complete before, 2 ran now" in proc.stdout
    assert json.loads(run_json.read_text())["status"] == "complete"
    assert untouched.stat().st_mtime_ns == before
    after = pd.read_csv(exp_dir / "index.csv")
    assert len(after) == 8 and set(after["status"]) == {"complete"}
    assert len(json.loads((exp_dir / "experiment.json").read_text())["sessions"]) == 2


def test_sigint_stops_after_the_current_run(tmp_path: Path, env: dict[str, str]) -> None:
    exp = tmp_path / "slow.toml"
    exp.write_text(TINY_EXPERIMENT.format(reps=4, circuit="porep-like", constraints=2048, partitions=2))
    proc = subprocess.Popen([str(BIN), "matrix", str(exp), "--out", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    assert proc.stdout is not None
    first = ""
    while not first.startswith("[1/"):
        first = proc.stdout.readline()
        assert first, "the runner ended before its first run"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "stopping after the current run" in err
    record = json.loads((tmp_path / "slow" / "experiment.json").read_text())
    assert record["status"] == "interrupted"
    done = [r for r in record["runs"] if r["status"] != "pending"]
    assert 1 <= len(done) < 8
    for r in record["runs"]:
        run_json = tmp_path / "slow" / r["run_dir"] / "run.json"
        if r["status"] == "complete":
            assert json.loads(run_json.read_text())["status"] == "complete"
        else:
            assert r["status"] == "pending" and not run_json.exists()


# --------------------------------------------------------------------- sweep, run


def test_sweep_plans_product_or_pairs(tmp_path: Path, env: dict[str, str]) -> None:
    proc = prooflab(["sweep", "--c", "5,10", "--j", "5,10", "--dry-run", "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "cells: 3" in proc.stdout  # (5,5), (10,5), (10,10): j > c is left out
    assert "sweep-c5-10-j5-10" in proc.stdout
    proc = prooflab(["sweep", "--c", "5,10", "--j", "5,10", "--pairs", "--dry-run"], env, cwd=tmp_path)
    assert "cells: 2" in proc.stdout
    proc = prooflab(["sweep", "--c", "5,10", "--j", "5", "--pairs", "--dry-run"], env, cwd=tmp_path)
    assert proc.returncode != 0 and "--pairs" in proc.stderr


def test_sweep_runs_into_a_sweep_table(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "engine.toml"
    config.write_text('[engine]\ncircuit = "tiny"\nconstraints = 1024\npartitions = 1\n')
    proc = prooflab(["sweep", "--c", "2,3", "--j", "1,2", "--pairs", "--config", str(config), "--set", "gpu_workers_per_device=1",
                     "--reps", "1", "--name", "cj", "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"index: {tmp_path / 'cj' / 'index.csv'}" in proc.stdout
    runs = load_experiment(tmp_path / "cj")
    assert sorted(zip(runs["count"], runs["concurrency"])) == [(2, 1), (3, 2)]
    table = sweep.sweep_table(metrics.experiment_metrics(runs))
    assert list(table["c"]) == [2, 3] and list(table["j"]) == [1, 2]


def test_run_is_batch_with_a_config(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "engine.toml"
    config.write_text('[engine]\ncircuit = "tiny"\nconstraints = 1024\npartitions = 2\ncount = 2\nconcurrency = 2\n')
    proc = prooflab(["run", str(config), "--out", str(tmp_path / "runs"), "--run-id", "one"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "=== Batch Summary ===" in proc.stdout
    meta = json.loads((tmp_path / "runs" / "one" / "run.json").read_text())
    assert meta["status"] == "complete"
    assert meta["config"]["count"] == 2 and meta["config"]["circuit"] == "tiny"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
