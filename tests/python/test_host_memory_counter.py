"""The `host_memory` counter source (harness/counters/host_memory_source.hpp, issue 19 item 5):
counters.csv holds the engine's charged host bytes over time, whose high-water mark is
summary.json's peak_host_charged_bytes. Through the binary, on the CPU backend; the
expectations come from the run's own summary.json and from the circuit's footprint the
summary records, not from the source."""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()
pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first")


def _batch(tmp_path: Path, *extra: str) -> Path:
    proc = subprocess.run([str(BIN), "batch", "--set", "circuit=porep-like", "--set", "constraints=4096",
                           "--set", "partitions=4", "--count", "4", "--concurrency", "2",
                           "--counter-period-ms", "2", "--out", str(tmp_path), "--run-id", "r",
                           "--param-dir", str(tmp_path / "params"), *extra],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path / "r"


def test_charged_host_memory_is_a_counter_series_bounded_by_the_summary_peak(tmp_path: Path) -> None:
    run = _batch(tmp_path)
    summary = json.loads((run / "summary.json").read_text())
    meta = json.loads((run / "run.json").read_text())
    assert meta["counters"]["host_memory"]["status"] == "used", meta["counters"]["host_memory"]
    rows = [r for r in csv.DictReader((run / "counters.csv").open()) if r["source"] == "host_memory"]
    assert rows and {r["metric"] for r in rows} == {"charged_bytes"} and {r["unit"] for r in rows} == {"B"}
    values = [float(r["value"]) for r in rows]
    peak, footprint = summary["peak_host_charged_bytes"], summary["partition_footprint_bytes"]
    assert peak > 0
    # Every sample is a moment of the charged total: never above its high-water mark, and
    # the last one, taken after the batch, finds every partition's buffers released.
    assert all(0 <= v <= peak for v in values), (max(values), peak)
    assert values[-1] == 0
    # Sampled every 2 ms through a batch of 16 partitions, the series sees at least one whole
    # partition charged (the footprint is what one partition reserves: a, b, c and witness).
    assert max(values) >= 0.5 * footprint, (max(values), footprint)
    times = [int(r["t_us"]) for r in rows]
    assert times == sorted(times)


def test_switched_off_it_says_so(tmp_path: Path) -> None:
    run = _batch(tmp_path, "--counters", "probe")
    meta = json.loads((run / "run.json").read_text())
    assert meta["counters"]["host_memory"]["status"] == "unavailable"
    assert "switched off" in meta["counters"]["host_memory"]["reason"]
    rows = [r for r in csv.DictReader((run / "counters.csv").open()) if r["source"] == "host_memory"]
    assert rows == []
