"""Energy per proof (docs/run-directory.md, summary.json `energy`): the analysis reads the
harness's figures into run metrics, the report, A/B tables and the sweep; `prooflab regress`
gates on them; a real `prooflab batch` writes the block and says why the energy sources did
not run here. Expected values are computed in the tests from the recorded inputs."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from builders import run_meta, write_run

from prooflab_analysis import energy, load_experiment, metrics
from prooflab_analysis.abtest import ab_table, metric_higher_is_better
from prooflab_analysis.loaders import RunFormatError, load_run
from prooflab_analysis.report import write_report
from prooflab_analysis.sweep import sweep_markdown, sweep_table

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()


def energy_block(gpu_j: float | None, host_j: float | None, proofs: int, window_s: float) -> dict:
    """summary.json's `energy` as the harness writes it (harness/counters/energy_summary.hpp)."""
    total = gpu_j + host_j if gpu_j is not None and host_j is not None else None

    def per(x: float | None, d: float) -> float | None:
        return None if x is None or d <= 0 else x / d

    return {"window_s": window_s, "proofs": proofs, "gpu_j": gpu_j, "host_j": host_j, "total_j": total,
            "gpu_j_per_proof": per(gpu_j, proofs), "host_j_per_proof": per(host_j, proofs),
            "j_per_proof": per(total, proofs), "gpu_avg_power_w": per(gpu_j, window_s),
            "host_avg_power_w": per(host_j, window_s), "avg_power_w": per(total, window_s),
            "proofs_per_kwh": None if total is None else proofs / (total / 3.6e6),
            "gpu_sources": ["gpu_energy0"], "host_sources": ["energy_psys"],
            "notes": [] if total is not None else ["no host energy recorded (run.json counters.host_energy says why)"]}


def test_energy_metrics_read_the_summary_block() -> None:
    m = energy.energy_metrics({"energy": energy_block(8400.0, 2100.0, 4, 30.0)})
    assert m["j_per_proof"] == pytest.approx((8400 + 2100) / 4)
    assert m["gpu_j_per_proof"] == pytest.approx(2100.0)
    assert m["host_j_per_proof"] == pytest.approx(525.0)
    assert m["avg_power_w"] == pytest.approx(10500 / 30)
    assert m["proofs_per_kwh"] == pytest.approx(4 / (10500 / 3.6e6))
    partial = energy.energy_metrics({"energy": energy_block(8400.0, None, 4, 30.0)})
    assert math.isnan(partial["j_per_proof"]) and partial["gpu_j_per_proof"] == pytest.approx(2100.0)
    assert energy.energy_metrics({"s_per_proof": 1.0}) == {}  # no block: no energy rows in reports


def test_a_bad_figure_is_an_error_naming_the_file_and_key(tmp_path: Path) -> None:
    block = energy_block(8400.0, 2100.0, 4, 30.0)
    block["j_per_proof"] = "2625 J"
    run = write_run(tmp_path / "r", meta=run_meta(), summary={"energy": block})
    with pytest.raises(RunFormatError, match=r"r/summary.json: energy.j_per_proof: '2625 J' is not a finite number"):
        metrics.run_metrics(load_run(run))
    with pytest.raises(RunFormatError, match="energy: 3 is not an object"):
        energy.energy_metrics({"energy": 3})


def test_run_report_shows_energy_and_the_harness_notes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", meta=run_meta(), summary={"energy": energy_block(900.0, None, 3, 12.0)})
    m = metrics.run_metrics(load_run(run))
    assert m["gpu_j_per_proof"] == pytest.approx(300.0) and math.isnan(m["j_per_proof"])
    text = write_report(run).read_text()
    assert "| GPU energy per proof [J] | 300.0 |" in text
    assert "| energy per proof, GPU + host [J] |  |" in text  # blank, not a made-up number
    assert "- no host energy recorded (run.json counters.host_energy says why)" in text


def write_energy_experiment(path: Path, arms: dict[str, list[float]], cells: dict[str, tuple[int, int]]) -> Path:
    """Runs with only run.json and summary.json; arms[variant] = J/proof per repetition
    (GPU 80 %, host 20 %), the same in every cell; arms interleaved in order."""
    rows, order = [], 0
    reps = len(next(iter(arms.values())))
    for cell, (c, j) in cells.items():
        for rep in range(reps):
            for variant, per_proof in arms.items():
                run_dir = f"runs/{cell}_{variant}_r{rep}"
                total = per_proof[rep] * c
                summary = {"s_per_proof": 1.0, "energy": energy_block(0.8 * total, 0.2 * total, c, 10.0 * c)}
                write_run(path / run_dir, meta=run_meta(run_id=f"{cell}_{variant}_r{rep}", count=c, concurrency=j),
                          summary=summary)
                rows.append({"experiment": "energy", "cell": cell, "variant": variant, "rep": rep, "order": order,
                             "run_dir": run_dir, "status": "complete", "count": c, "concurrency": j})
                order += 1
    pd.DataFrame(rows).to_csv(path / "index.csv", index=False)
    return path


BASE = [2500.0, 2510.0, 2490.0, 2505.0, 2495.0, 2502.0]
HOT = [x * 1.10 for x in [2498.0, 2507.0, 2493.0, 2500.0, 2503.0, 2496.0]]


def test_ab_table_over_energy_per_proof(tmp_path: Path) -> None:
    exp = write_energy_experiment(tmp_path / "exp", {"baseline": BASE, "I3": HOT}, {"c4_j2": (4, 2)})
    runs = metrics.experiment_metrics(load_experiment(exp))
    assert metric_higher_is_better("j_per_proof") is False
    assert metric_higher_is_better("proofs_per_kwh") is True
    table = ab_table(runs, "j_per_proof")
    r = table[table["variant"] == "I3"].iloc[0]
    assert r["rel_change"] == pytest.approx(np.mean(HOT) / np.mean(BASE) - 1, rel=1e-9)
    assert r["verdict"] == "regressed"  # 10 % more energy per proof, 6 runs each, tight noise
    kwh = ab_table(runs, "proofs_per_kwh")
    assert kwh[kwh["variant"] == "I3"].iloc[0]["verdict"] == "regressed"  # fewer proofs per kWh

    text = write_report(exp).read_text()
    assert "## A/B: j_per_proof" in text
    assert (exp / "report" / "ab_j_per_proof.csv").exists()


def test_sweep_table_carries_energy_per_proof(tmp_path: Path) -> None:
    exp = write_energy_experiment(tmp_path / "exp", {"baseline": BASE[:2]}, {"c4_j2": (4, 2), "c8_j4": (8, 4)})
    runs = metrics.experiment_metrics(load_experiment(exp))
    table = sweep_table(runs)
    assert list(table["c"]) == [4, 8]
    assert table["j_per_proof"].tolist() == pytest.approx([np.mean(BASE[:2])] * 2)
    # avg power = J/proof × c proofs over a 10 s × c window
    assert table["avg_power_w"].tolist() == pytest.approx([np.mean(BASE[:2]) / 10.0] * 2)
    assert "J/proof" in sweep_markdown(table)
    no_energy = table.assign(j_per_proof=np.nan, gpu_j_per_proof=np.nan, avg_power_w=np.nan, proofs_per_kwh=np.nan)
    assert "J/proof" not in sweep_markdown(no_energy)  # absent figures are not shown as columns


# ------------------------------------------------------------------ through the binary

needs_bin = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first (make test builds it)")


def _prooflab(args: list[str], tmp_path: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PROOFLAB_PARAM_DIR=str(tmp_path / "params"))
    env.pop("PROOFLAB_INJECT_SLOWDOWN", None)
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=timeout)


@needs_bin
def test_batch_writes_the_energy_block_and_the_sources_say_why(tmp_path: Path) -> None:
    proc = _prooflab(["batch", "--count", "2", "--concurrency", "2", "--set", "circuit=tiny", "--out",
                      str(tmp_path / "runs"), "--run-id", "e"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = tmp_path / "runs" / "e"
    meta = json.loads((run / "run.json").read_text())
    summary = json.loads((run / "summary.json").read_text())
    block = summary["energy"]
    assert block["proofs"] == summary["completed"] == 2
    assert block["window_s"] >= summary["total_s"]  # the batch runner's window contains the engine's
    assert meta["counter_sampling"]["start_us"] >= 0
    for source in ("gpu_energy", "host_energy"):
        status = meta["counters"][source]
        assert status["status"] in ("used", "unavailable") and status["reason"], status
    if meta["counters"]["gpu_energy"]["status"] == "unavailable":
        assert block["gpu_j"] is None and block["j_per_proof"] is None
        assert "no GPU energy recorded (run.json counters.gpu_energy says why)" in block["notes"]
    if not Path("/sys/bus/event_source/devices/power").exists():
        assert meta["counters"]["host_energy"]["reason"].startswith("no power PMU (RAPL energy counters) under ")
        assert block["host_j"] is None
    assert "energy: " in proc.stdout


@needs_bin
def test_regress_gates_on_energy_per_proof(tmp_path: Path) -> None:
    def runs(name: str, per_proof: list[float]) -> list[str]:
        out = []
        for k, v in enumerate(per_proof):
            d = write_run(tmp_path / name / f"r{k}", meta=run_meta(run_id=f"{name}{k}"),
                          summary={"s_per_proof": 1.0, "energy": energy_block(0.8 * v * 3, 0.2 * v * 3, 3, 3.0)})
            out.append(str(d))
        return out

    base = tmp_path / "energy.json"
    proc = _prooflab(["regress", "--baseline", str(base), "--update", "--reason", "energy", *runs("a", BASE)], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    stored = {m["metric"]: m for m in json.loads(base.read_text())["metrics"]}
    m = stored["runs.j_per_proof"]
    assert m["key"] == "energy.j_per_proof" and m["unit"] == "J" and m["direction"] == "lower_is_better"
    assert m["values"] == pytest.approx(BASE)

    proc = _prooflab(["regress", "--baseline", str(base), "--metric", "runs.j_per_proof", *runs("b", BASE[::-1])],
                     tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    much_hotter = [x * 1.5 for x in BASE]  # beyond the 30 % tolerance of stored figures
    proc = _prooflab(["regress", "--baseline", str(base), "--metric", "runs.j_per_proof", "--json",
                      str(tmp_path / "t.json"), *runs("c", much_hotter)], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    row = [r for r in json.loads((tmp_path / "t.json").read_text())["rows"] if r["metric"] == "runs.j_per_proof"][0]
    assert row["verdict"] == "REGRESSION"
    assert row["change"] == pytest.approx(np.median(much_hotter) / np.median(BASE) - 1, rel=1e-6)
