"""Long fault tests (minutes, not seconds): opt-in with PROOFLAB_LONG_TESTS=1 (`make
test-long`), so that `make test` stays within its time budget. docs/faults.md lists them
with their last recorded figures.

Memory: a 20,000-partition batch of the tiny circuit (one partition per proof, 4 proofs in
flight, the default async dealloc and recording) must keep its RSS flat. Before the fix
every partition's dealloc thread left its 0.5 MB TIMELINE ring behind (RSS 82 MB -> 6.7 GB
over 15,000 partitions)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()

pytestmark = [
    pytest.mark.skipif(os.environ.get("PROOFLAB_LONG_TESTS") != "1", reason="long test: set PROOFLAB_LONG_TESTS=1 (make test-long)"),
    pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first"),
]

PARTITIONS = 20_000
# Growth allowed after the first tenth of the batch (allocator arenas and page cache of a
# steady state); a leak of one ring per partition would be ~9 GB.
RSS_GROWTH_BOUND_MB = 64


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def completed(stdout: Path) -> int:
    return stdout.read_text(errors="replace").count(" COMPLETED ")


def test_rss_stays_flat_over_a_20000_partition_batch(tmp_path: Path) -> None:
    env = dict(os.environ, PROOFLAB_PARAM_DIR=str(tmp_path / "params"))
    env.pop("TERM", None)
    out = tmp_path / "stdout.txt"
    with out.open("w") as sink:
        proc = subprocess.Popen(
            [str(BIN), "batch", "--count", str(PARTITIONS), "--concurrency", "4", "--set", "circuit=tiny",
             "--set", "partitions=1", "--out", str(tmp_path / "runs"), "--run-id", "rss"],
            stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
        samples: list[tuple[int, float]] = []  # (partitions done, RSS MB)
        t0 = time.monotonic()
        while proc.poll() is None:
            rss = rss_mb(proc.pid)
            if rss is not None:
                samples.append((completed(out), rss))
            time.sleep(0.5)
    wall = time.monotonic() - t0
    assert proc.returncode == 0, out.read_text()[-2000:]
    assert completed(out) == PARTITIONS
    steady = [rss for done, rss in samples if done >= PARTITIONS // 10]
    assert len(steady) >= 10, f"too few samples after the first tenth: {samples}"
    baseline, peak = steady[0], max(steady)
    first = samples[0][1]
    print(f"\nRSS over {PARTITIONS} partitions in {wall:.0f} s: first sample {first:.0f} MB, "
          f"at {PARTITIONS // 10} partitions {baseline:.0f} MB, peak after that {peak:.0f} MB, "
          f"last {samples[-1][1]:.0f} MB ({len(samples)} samples)")
    assert peak - baseline <= RSS_GROWTH_BOUND_MB, samples[:: max(1, len(samples) // 40)]
