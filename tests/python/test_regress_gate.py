"""What the regression gate promises (issue 16, item 2), end to end through the binary
(build/bin/prooflab; PROOFLAB_BIN overrides it; skipped when it is missing):

* a check in which every metric was skipped says so and exits 3, not "no regression" / 0;
* --junit (one testcase per metric), --markdown and an append-only --history, whose plot
  per metric regress_history draws;
* a timed regression's confirmation is an independent second measurement: its own output
  directories and run ids, never the first pass's (a matrix given those would resume the
  complete experiment and re-read it);
* stored wall-clock figures without the host's CPU model and load are incomparable;
* under CI (the variable CI set) stored wall-clock figures are never gated on, even when they
  were measured on this very host: CI gates timings only interleaved (--against-build).
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from prooflab_analysis import regress_history, stats

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()
pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first")


def _run(args: list[str], tmp_path: Path, timeout: float = 600, ci: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PROOFLAB_PARAM_DIR=str(tmp_path / "params"))
    env.pop("PROOFLAB_INJECT_SLOWDOWN", None)
    env.pop("CI", None)  # the CI system's own variable would change what stored timings mean
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([str(BIN), "regress", *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=timeout)


def _explain(p: subprocess.CompletedProcess) -> str:
    return f"exit {p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}"


def _gbench(path: Path, ns: list[float]) -> Path:
    path.write_text(json.dumps({
        "context": {"host_name": "test", "num_cpus": 2},
        "benchmarks": [{"name": "BM_msm_g1/12", "run_name": "BM_msm_g1/12", "run_type": "iteration",
                        "repetitions": len(ns), "repetition_index": i, "iterations": 10,
                        "real_time": t, "cpu_time": t, "time_unit": "ns"} for i, t in enumerate(ns)]}))
    return path


def test_all_skipped_is_not_a_pass(tmp_path: Path) -> None:
    junit, md = tmp_path / "j.xml", tmp_path / "s.md"
    proc = _run(["--baseline", "results/baselines/cpu.json", "--measure", "none", "--junit", str(junit),
                 "--markdown", str(md), "--json", str(tmp_path / "r.json")], tmp_path)
    assert proc.returncode == 3, _explain(proc)
    assert "NOTHING COMPARED" in proc.stdout and "no regression" not in proc.stdout
    n_metrics = len(json.loads((ROOT / "results/baselines/cpu.json").read_text())["metrics"])
    suite = ET.parse(junit).getroot().find("testsuite")
    assert int(suite.get("tests")) == n_metrics and int(suite.get("skipped")) == n_metrics
    assert len(suite.findall("testcase")) == n_metrics
    assert all(tc.find("skipped") is not None for tc in suite.findall("testcase"))
    assert "NOTHING COMPARED" in md.read_text()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["nothing_compared"] is True and report["exit_status"] == 3


def test_junit_markdown_and_history_over_commits(tmp_path: Path) -> None:
    base, hist = tmp_path / "bench.json", tmp_path / "history" / "bench.json"
    a = [100.0, 101.0, 99.5, 100.5, 100.2, 99.8]
    assert _run(["--baseline", str(base), "--update", "--reason", "t", str(_gbench(tmp_path / "a.json", a))],
                tmp_path).returncode == 0
    same = [100.3, 99.9, 100.8, 99.6, 100.1, 100.4]
    slow = [x * 1.5 for x in same]
    for i, sample in enumerate((same, slow)):
        junit, md = tmp_path / f"j{i}.xml", tmp_path / f"s{i}.md"
        proc = _run(["--baseline", str(base), "--metric", "gbench.*", "--junit", str(junit), "--markdown", str(md),
                     "--history", str(hist), str(_gbench(tmp_path / f"in{i}.json", sample))], tmp_path)
        assert proc.returncode == (0, 1)[i], _explain(proc)
        suite = ET.parse(junit).getroot().find("testsuite")
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == ["gbench.BM_msm_g1/12.cpu_time"]
        assert (cases[0].find("failure") is not None) == (i == 1)
        assert int(suite.get("failures")) == i
        text = md.read_text()
        assert ("**REGRESSION**" in text) == (i == 1) and "`gbench.BM_msm_g1/12.cpu_time`" in text
    doc = json.loads(hist.read_text())
    assert doc["format"] == "prooflab-regress-history" and len(doc["entries"]) == 2  # appended, not rewritten
    frame = regress_history.load_history(hist)
    nows = frame.sort_values("entry")["now"].tolist()
    assert nows == pytest.approx([stats.percentile(same, 50), stats.percentile(slow, 50)])
    assert frame["verdict"].tolist() == ["pass", "REGRESSION"]
    pngs = regress_history.write_plots(hist, tmp_path / "plots")
    assert [p.name for p in pngs] == ["gbench.BM_msm_g1_12.cpu_time.png"] and pngs[0].stat().st_size > 1000
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    proc = _run(["--baseline", str(base), "--metric", "gbench.*", "--history", str(tmp_path / "bad.json"),
                 str(_gbench(tmp_path / "in9.json", same))], tmp_path)
    assert proc.returncode == 2 and "bad.json" in proc.stderr and "not a prooflab regress history" in proc.stderr


def _timed_baseline(path: Path, key: str, measured_on: dict | None) -> Path:
    metric = {
        "metric": "tiny.total_s", "kind": "wallclock", "source": "command", "unit": "s",
        "direction": "lower_is_better", "tolerance": 0.3, "tolerance_interleaved": 0.05, "statistic": "median",
        "repetitions": 5, "warmup": 0,
        "command": ["batch", "--set", "circuit=porep-like", "--set", "constraints=1024", "--set", "partitions=2",
                    "--count", "6", "--concurrency", "1", "--out", "{out}", "--run-id", "{run_id}",
                    "--param-dir", "{param_dir}"],
        "result_dir": "{out}/{run_id}", "key": key, "value": 1e-3, "values": [1e-3, 1.1e-3, 0.9e-3, 1e-3],
        "commit": "0" * 40, "date": "2026-11-30T00:00:00Z"}
    if measured_on is not None:
        metric["measured_on"] = measured_on
    path.write_text(json.dumps({"format": "prooflab-regress-baseline", "version": 1, "description": "test",
                                "updated": {}, "history": [], "toolchain": {}, "host": {}, "metrics": [metric]}))
    return path


def test_stored_timings_without_host_conditions_are_incomparable(tmp_path: Path) -> None:
    base = _timed_baseline(tmp_path / "b.json", "total_s", None)
    proc = _run(["--baseline", str(base), "--measure", "wallclock", "--json", str(tmp_path / "r.json")], tmp_path)
    assert proc.returncode == 0, _explain(proc)
    r = json.loads((tmp_path / "r.json").read_text())["rows"][0]
    assert r["verdict"] == "incomparable" and "no CPU model and load" in r["note"], r


def _this_host_quiet() -> dict:
    # What harness/regress/regress_host.cpp records for this host (trace::host_info's cpu_model is
    # /proc/cpuinfo's "model name"), with a load of 0: the only thing that can make the
    # stored figures incomparable is then the load now, and CI.
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown")
    return {"cpu_model": model, "cores": os.cpu_count(), "load_1m_before": 0.0, "load_1m_after": 0.0}


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_stored_timings_are_never_gated_on(tmp_path: Path, ci: str) -> None:
    base = _timed_baseline(tmp_path / "b.json", "total_s", _this_host_quiet())
    proc = _run(["--baseline", str(base), "--measure", "wallclock", "--json", str(tmp_path / "r.json")], tmp_path,
                ci=ci)
    assert proc.returncode == 0, _explain(proc)
    r = json.loads((tmp_path / "r.json").read_text())["rows"][0]
    assert r["verdict"] == "incomparable", r
    assert "under CI" in r["note"] and "--against-build" in r["note"], r
    assert "CPU model" not in r["note"], r  # same host: the CPU is not why


def test_ci_false_is_not_ci(tmp_path: Path) -> None:
    base = _timed_baseline(tmp_path / "b.json", "total_s", _this_host_quiet())
    proc = _run(["--baseline", str(base), "--measure", "wallclock", "--json", str(tmp_path / "r.json")], tmp_path,
                ci="false")
    assert proc.returncode in (0, 1), _explain(proc)
    r = json.loads((tmp_path / "r.json").read_text())["rows"][0]
    assert "under CI" not in r["note"], r
    # Compared, unless this host is loaded right now (then incomparable because of the load).
    assert r["verdict"] != "incomparable" or "load" in r["note"], r


def test_confirmation_is_an_independent_measurement(tmp_path: Path) -> None:
    # Interleaved against a "baseline build" that proves 1 instead of 6 proofs per batch (6x: no overlap even on a loaded host): the
    # first pass regresses for certain, so the confirmation runs, whatever the host's load.
    wrapper_dir = tmp_path / "basebuild" / "bin"
    wrapper_dir.mkdir(parents=True)
    wrapper = wrapper_dir / "prooflab"
    wrapper.write_text("#!/bin/sh\n# the baseline build: the same binary, one proof per batch\n"
                       f'args=""; for a in "$@"; do [ "$a" = 6 ] && a=1; args="$args $a"; done\nexec {BIN} $args\n')
    wrapper.chmod(0o755)
    base = _timed_baseline(tmp_path / "b.json", "total_s", None)
    proc = _run(["--baseline", str(base), "--measure", "wallclock", "--against-build", str(tmp_path / "basebuild"),
                 "--json", str(tmp_path / "r.json"), "--keep-temp"], tmp_path)
    assert proc.returncode == 1, _explain(proc)
    r = json.loads((tmp_path / "r.json").read_text())["rows"][0]
    assert r["verdict"] == "REGRESSION" and "confirmed by a second measurement" in r["note"], r
    first, second = r["outputs"], r["confirmation"]["outputs"]
    assert len(first) == len(second) == 10  # 5 repetitions x 2 arms each
    assert not set(first) & set(second), "the confirmation re-used the first pass's output directories"
    run_ids = {json.loads((Path(d) / "run.json").read_text())["run_id"] for d in first + second}
    assert len(run_ids) == 20
    for d in second:
        assert json.loads((Path(d) / "run.json").read_text())["status"] == "complete"


H200_PW_SWEEP = ROOT / "results" / "2026-12-02-h200-campaign" / "h200-pw-sweep"


def _campaign_rows(proc: subprocess.CompletedProcess, report: Path) -> dict[str, dict]:
    assert report.exists(), _explain(proc)
    return {r["metric"]: r for r in json.loads(report.read_text())["rows"] if r["metric"].startswith("h200.")}


def test_the_gpu_baseline_gates_the_h200_campaigns_end_to_end_figures(tmp_path: Path) -> None:
    """results/baselines/gpu-h200.json holds the campaign's s/proof at pw 2 and 8 (issue 25):
    the committed runs pass against it, and the same runs with pw=8 made 1.5x slower (their
    summary.json figures, in a copy) are a REGRESSION of that metric alone."""
    import shutil

    proc = _run(["--baseline", "results/baselines/gpu-h200.json", str(H200_PW_SWEEP), "--json",
                 str(tmp_path / "r.json")], tmp_path)
    rows = _campaign_rows(proc, tmp_path / "r.json")
    assert set(rows) == {"h200.porep22x10.pw2.s_per_proof", "h200.porep22x10.pw8.s_per_proof"}, rows
    assert proc.returncode == 0 and all(r["verdict"] not in ("REGRESSION", "skipped") for r in rows.values()), \
        _explain(proc)

    slow = tmp_path / "h200-pw-sweep"
    shutil.copytree(H200_PW_SWEEP, slow, ignore=shutil.ignore_patterns("timeline.csv", "stages.csv", "report"))
    for summary in (slow / "base" / "pw8").glob("[0-9]*/summary.json"):
        s = json.loads(summary.read_text())
        s["s_per_proof"] *= 1.5
        summary.write_text(json.dumps(s))
    proc = _run(["--baseline", "results/baselines/gpu-h200.json", str(slow), "--json", str(tmp_path / "s.json")],
                tmp_path)
    rows = _campaign_rows(proc, tmp_path / "s.json")
    assert proc.returncode == 1, _explain(proc)
    assert rows["h200.porep22x10.pw8.s_per_proof"]["verdict"] == "REGRESSION", rows
    assert rows["h200.porep22x10.pw2.s_per_proof"]["verdict"] != "REGRESSION", rows
