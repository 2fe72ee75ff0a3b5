"""End-to-end tests of `prooflab regress` (docs/regress.md) through the binary that `make test`
builds (build/bin/prooflab; PROOFLAB_BIN overrides it). They skip, saying why, when the binary
or valgrind is missing.

The proof that the check works: an injected 5 % slowdown (PROOFLAB_INJECT_SLOWDOWN, which adds
work in the harness's workload code, never in core/) makes `regress` fail, and an unchanged
rerun passes -- for the deterministic instruction counts and for the interleaved timing."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from prooflab_analysis.regress_stats import run_request

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()


def _why_unusable() -> str | None:
    if not BIN.exists():
        return f"{BIN} is missing: build it first (make test builds build/bin/prooflab)"
    listing = subprocess.run([str(BIN), "--help"], capture_output=True, text=True).stdout
    if "regress" not in listing or "workload" not in listing:
        return f"{BIN} predates the regress/workload commands: rebuild it (make test does)"
    return None


_WHY = _why_unusable()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")
needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None,
                                    reason="valgrind is not installed (.ci/install-deps installs it)")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = dict(os.environ)
    e.pop("PROOFLAB_INJECT_SLOWDOWN", None)
    e["PROOFLAB_PARAM_DIR"] = str(tmp_path / "params")
    return e


_RUNS = itertools.count()


def regress(args: list[str], env: dict[str, str], inject: str | None = None,
            timeout: float = 300) -> tuple[subprocess.CompletedProcess, dict | None]:
    """Runs `prooflab regress ARGS --json OUT`; returns the process and the JSON table."""
    out = Path(env["PROOFLAB_PARAM_DIR"]).parent / f"regress-{next(_RUNS)}.json"
    e = dict(env)
    if inject:
        e["PROOFLAB_INJECT_SLOWDOWN"] = inject
    proc = subprocess.run([str(BIN), "regress", *args, "--json", str(out)], capture_output=True, text=True,
                          env=e, cwd=ROOT, timeout=timeout)
    table = json.loads(out.read_text()) if out.exists() else None
    return proc, table


def row(table: dict, metric: str) -> dict:
    rows = [r for r in table["rows"] if r["metric"] == metric]
    assert len(rows) == 1, f"{metric} not in {[r['metric'] for r in table['rows']]}"
    return rows[0]


def explain(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


# ---------------------------------------------------------------- instruction counts


@needs_valgrind
def test_counts_identical_run_to_run_and_injected_5_percent_fails(tmp_path: Path, env: dict[str, str]) -> None:
    base = tmp_path / "cpu.json"
    proc, _ = regress(["--baseline", str(base), "--update", "--reason", "test baseline"], env)
    assert proc.returncode == 0, explain(proc)
    stored = json.loads(base.read_text())
    counts = {m["metric"]: m["value"] for m in stored["metrics"] if m["source"] == "callgrind"}
    assert set(counts) == {"instructions.fp_mul", "instructions.g1_add", "instructions.msm_g1_2^12",
                           "instructions.ntt_2^14", "instructions.prove_tiny"}
    assert all(v and v > 1e6 for v in counts.values()), counts

    # Unchanged rerun: every count identical, exit 0.
    proc, table = regress(["--baseline", str(base)], env)
    assert proc.returncode == 0, explain(proc)
    for metric, value in counts.items():
        r = row(table, metric)
        assert r["now"] == value and r["verdict"] == "pass" and r["detail"] == "identical", r

    # 5 % more work in the fp_mul workload: exit 1, that row a REGRESSION of +5 %.
    proc, table = regress(["--baseline", str(base), "--metric", "instructions.fp_mul"], env, inject="fp_mul:5")
    assert proc.returncode == 1, explain(proc)
    r = row(table, "instructions.fp_mul")
    assert r["verdict"] == "REGRESSION", r
    assert 0.049 < r["change"] < 0.051, r
    assert "PROOFLAB_INJECT_SLOWDOWN=fp_mul:5" in proc.stdout
    assert table["regressions"] == 1 and table["exit_status"] == 1


@needs_valgrind
def test_tolerance_and_toolchain(tmp_path: Path, env: dict[str, str]) -> None:
    base = tmp_path / "cpu.json"
    proc, _ = regress(["--baseline", str(base), "--metric", "instructions.fp_mul", "--update", "--reason", "t"], env)
    assert proc.returncode == 0, explain(proc)

    # Half a percent is inside the 1 % tolerance: reported, not failed.
    proc, table = regress(["--baseline", str(base), "--metric", "instructions.fp_mul"], env, inject="fp_mul:0.5")
    assert proc.returncode == 0, explain(proc)
    r = row(table, "instructions.fp_mul")
    assert r["verdict"] == "pass" and r["detail"] == "within tolerance" and 0.004 < r["change"] < 0.006, r

    # Another compiler recorded in the baseline: counts are incomparable, not a regression.
    stored = json.loads(base.read_text())
    stored["toolchain"]["compiler"] = "gcc 99.0.0 (imaginary)"
    base.write_text(json.dumps(stored))
    proc, table = regress(["--baseline", str(base), "--metric", "instructions.fp_mul"], env, inject="fp_mul:5")
    assert proc.returncode == 0, explain(proc)
    assert "TOOLCHAIN DIFFERS" in proc.stdout
    r = row(table, "instructions.fp_mul")
    assert r["verdict"] == "incomparable" and "gcc 99.0.0" in r["note"], r


def test_update_records_who_what_why_and_refuses_without_reason(tmp_path: Path, env: dict[str, str]) -> None:
    base = tmp_path / "b.json"
    proc, _ = regress(["--baseline", str(base)], env)
    assert proc.returncode == 2 and "does not exist" in proc.stderr, explain(proc)
    proc, _ = regress(["--baseline", str(base), "--update", "--measure", "none"], env)
    assert proc.returncode == 2 and "--reason" in proc.stderr, explain(proc)
    proc, _ = regress(["--baseline", str(base), "--update", "--reason", "x", "--measure", "none"], env, inject="fp_mul:5")
    assert proc.returncode == 2 and "PROOFLAB_INJECT_SLOWDOWN" in proc.stderr, explain(proc)

    for reason in ("first", "second"):
        proc, _ = regress(["--baseline", str(base), "--update", "--reason", reason, "--measure", "none"], env)
        assert proc.returncode == 0, explain(proc)
    stored = json.loads(base.read_text())
    assert stored["format"] == "prooflab-regress-baseline" and stored["version"] == 1
    updated = stored["updated"]
    assert updated["reason"] == "second"
    assert len(updated["commit"]) == 40 or updated["commit"] == "unknown"
    assert updated["date"].endswith("Z") and "regress" in updated["command"] and updated["by"]
    assert [h["reason"] for h in stored["history"]] == ["first"]


# ---------------------------------------------------------------- files given as inputs


def _gbench(path: Path, ns: list[float]) -> Path:
    path.write_text(json.dumps({
        "context": {"host_name": "test", "num_cpus": 2},
        "benchmarks": [{"name": "BM_fp_mul", "run_name": "BM_fp_mul", "run_type": "iteration",
                        "repetitions": len(ns), "repetition_index": i, "iterations": 1000,
                        "real_time": t, "cpu_time": t, "time_unit": "ns"} for i, t in enumerate(ns)]
        + [{"name": "BM_fp_mul_mean", "run_name": "BM_fp_mul", "run_type": "aggregate",
            "aggregate_name": "mean", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"}],
    }))
    return path


def test_google_benchmark_json(tmp_path: Path, env: dict[str, str]) -> None:
    base = tmp_path / "bench.json"
    a = [100.0, 101.0, 99.5, 100.5, 100.2, 99.8]
    proc, _ = regress(["--baseline", str(base), "--update", "--reason", "bench", str(_gbench(tmp_path / "a.json", a))], env)
    assert proc.returncode == 0, explain(proc)
    stored = {m["metric"]: m for m in json.loads(base.read_text())["metrics"]}
    m = stored["gbench.BM_fp_mul.cpu_time"]
    assert m["values"] == a and m["kind"] == "wallclock"  # the aggregate row is not a sample

    same = [100.3, 99.9, 100.8, 99.6, 100.1, 100.4]
    proc, table = regress(["--baseline", str(base), "--metric", "gbench.*", str(_gbench(tmp_path / "b.json", same))], env)
    assert proc.returncode == 0, explain(proc)
    assert row(table, "gbench.BM_fp_mul.cpu_time")["verdict"] == "pass"

    slow = [x * 1.5 for x in same]  # beyond the 30 % tolerance of figures measured elsewhere
    proc, table = regress(["--baseline", str(base), "--metric", "gbench.*", str(_gbench(tmp_path / "c.json", slow))], env)
    assert proc.returncode == 1, explain(proc)
    r = row(table, "gbench.BM_fp_mul.cpu_time")
    assert r["verdict"] == "REGRESSION" and r["interval"][0] > 0, r


def _gpu_bench(path: Path, ms: list[float]) -> Path:
    path.write_text(json.dumps({"context": {"device": "NVIDIA H200"}, "benchmarks": [
        {"name": "ntt", "variant": "NN plan", "log_n": 24, "median_ms": sorted(ms)[len(ms) // 2], "samples_ms": ms}]}))
    return path


def test_gpu_bench_json_and_gpu_gating(tmp_path: Path, env: dict[str, str]) -> None:
    base = tmp_path / "gpu.json"
    ms = [1.30, 1.31, 1.29, 1.32, 1.30, 1.28, 1.31]
    proc, _ = regress(["--baseline", str(base), "--update", "--reason", "H200", str(_gpu_bench(tmp_path / "a.json", ms))], env)
    assert proc.returncode == 0, explain(proc)
    metrics = json.loads(base.read_text())["metrics"]
    assert [m["metric"] for m in metrics] == ["gpu.ntt/24/NN plan"]  # files alone: no CPU metrics
    assert metrics[0]["device"] == "cuda" and metrics[0]["field"] == "samples_ms" and metrics[0]["unit"] == "ms"

    # Figures from a file are compared wherever regress runs; 20 % slower is beyond the 10 %.
    proc, table = regress(["--baseline", str(base), str(_gpu_bench(tmp_path / "b.json", [x * 1.2 for x in ms]))], env)
    assert proc.returncode == 1 and row(table, "gpu.ntt/24/NN plan")["verdict"] == "REGRESSION", explain(proc)

    # A GPU metric that regress must measure itself is skipped, with the reason, without a GPU.
    stored = json.loads(base.read_text())
    stored["metrics"].append({
        "metric": "gpu.measured", "kind": "wallclock", "source": "command", "device": "cuda",
        "program": "bench/prooflab_gpu_bench", "command": ["--quick", "--json", "{out}/{run_id}.json"],
        "result_dir": "{out}/{run_id}.json", "benchmark": "ntt/24/NN plan", "field": "samples_ms",
        "unit": "ms", "direction": "lower_is_better", "tolerance": 0.1, "repetitions": 3})
    base.write_text(json.dumps(stored))
    devices = subprocess.run([str(BIN), "devices"], capture_output=True, text=True).stdout
    if not devices.startswith("GPU "):
        proc, table = regress(["--baseline", str(base), "--measure", "wallclock", "--metric", "gpu.measured"], env)
        # the only selected metric skipped: nothing compared, exit 3 (not a pass)
        assert proc.returncode == 3 and "NOTHING COMPARED" in proc.stdout, explain(proc)
        r = row(table, "gpu.measured")
        assert r["verdict"] == "skipped" and ("CUDA" in r["note"] or "cuda" in r["note"]), r


def test_regress_stats_uses_abtest_verdicts() -> None:
    res = run_request({"comparisons": [
        {"metric": "t", "baseline": [1.0, 1.01, 0.99, 1.0, 1.02, 0.98], "current": [1.06, 1.05, 1.07, 1.05, 1.06, 1.04],
         "higher_is_better": False, "min_effect": 0.03, "statistic": "median"},
        {"metric": "t", "baseline": [1.0, 1.01, 0.99], "current": [1.2, 1.2, 1.2],
         "higher_is_better": False, "min_effect": 0.03},
    ]})["results"]
    assert res[0]["verdict"] == "regressed" and res[0]["ci_low"] > 0
    assert res[1]["verdict"] == "inconclusive" and res[1]["p_value"] is None  # 3 vs 3: never a verdict


# ---------------------------------------------------------------- timing, interleaved A/B

TIMED_BASELINE = {
    "format": "prooflab-regress-baseline", "version": 1, "description": "test",
    "metrics": [{
        "metric": "cpu_seconds.prove_tiny", "kind": "wallclock", "source": "workload", "workload": "prove_tiny",
        "n": 1024, "unit": "s", "direction": "lower_is_better", "tolerance": 0.3, "tolerance_interleaved": 0.03,
        "statistic": "median", "repetitions": 16, "warmup": 1, "repeat_per_process": 5,
        "field": "kernel_cpu_seconds", "values": [], "value": None,
    }],
}


@pytest.mark.skipif(
    os.environ.get("PROOFLAB_TIMING_TESTS") != "1",
    reason="wall-clock detection of a 5 % slowdown depends on machine load (it missed once in "
    "make test on the loaded 2-core VM); run with PROOFLAB_TIMING_TESTS=1 on a quiet machine. "
    "The deterministic instruction-count injection test always runs.",
)
def test_interleaved_timing_catches_injected_5_percent(tmp_path: Path, env: dict[str, str]) -> None:
    """This build against itself (an A/A comparison: the 'baseline build' is the same binary),
    then with 5 % injected into this build's arm only. Thread CPU time of a one-thread kernel
    is not inflated by other processes on the machine, which is what makes 3 % resolvable.
    A chance 'regressed' in the A/A half would need a second, independent one to fail it."""
    base = tmp_path / "timed.json"
    base.write_text(json.dumps(TIMED_BASELINE))
    proc, table = regress(["--baseline", str(base), "--measure", "wallclock", "--against-build", str(BIN)], env)
    assert proc.returncode == 0, explain(proc)
    r = row(table, "cpu_seconds.prove_tiny")
    assert r["verdict"] != "REGRESSION" and r["n_now"] == 16 and r["n_baseline"] == 16, r
    assert table["wallclock_mode"] == "interleaved"

    proc, table = regress(["--baseline", str(base), "--measure", "wallclock", "--against-build", str(BIN)], env,
                          inject="prove_tiny:5")
    assert proc.returncode == 1, explain(proc)
    r = row(table, "cpu_seconds.prove_tiny")
    assert r["verdict"] == "REGRESSION" and r["interval"][0] > 0 and r["change"] > 0.03, r
    # A timed regression is measured twice before it fails the check.
    assert r["confirmation"]["verdict"] == "REGRESSION" and r["confirmation"]["n_now"] == 16, r
