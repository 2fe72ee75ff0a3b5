#!/usr/bin/env python3
"""Regenerate the committed reference runs of results/reference-runs/ (see README.md here).

    PROOFLAB=build/bin/prooflab python3 results/reference-runs/make_reference_runs.py

writes, next to this script,
  porep-c6-j3/   one run directory: porep-like 4096 constraints, 10 partitions, c=6, j=3
  two-lock-ab/   an experiment directory: baseline (single lock, gw=2) against two_lock
                 (gw=3, 160 KiB of device memory, so pre-staging does not fit and the
                 fallback path runs), 4 repetitions each at c=4 j=2, runs/ + index.csv

Each run is one `prooflab batch`; the index.csv (docs/run-directory.md, "Experiment
index") is written here, since a batch knows nothing about experiments. The arms are
interleaved in ABBA order so that drift over the session cannot pass for an effect.
Timings differ from one regeneration to the next; the notebook and tests only rely on
the format and on every run being complete.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

MAIN_RUN = ("porep-c6-j3", ["--count", "6", "--concurrency", "3", "--set", "circuit=porep-like",
                            "--set", "constraints=4096", "--set", "partitions=10"])

EXPERIMENT = "two-lock-ab"
CELL = {"count": 4, "concurrency": 2, "constraints": 1024, "partitions": 4}
VARIANTS = {
    # 16 GiB is the CPU backend's own device size: the baseline has the whole device.
    "baseline": {"lock_policy": "single", "gpu_workers_per_device": 2, "vram_limit": "16GiB"},
    "two_lock": {"lock_policy": "two_lock", "gpu_workers_per_device": 3, "vram_limit": "160KiB"},
}
REPS = 4


def batch(prooflab: str, out: Path, run_id: str, args: list[str]) -> str:
    """One `prooflab batch` into out/run_id; returns the run's final status."""
    cmd = [prooflab, "batch", *args, "--out", os.path.relpath(out, REPO), "--run-id", run_id]
    print("+", " ".join(cmd), flush=True)
    # A failed proof makes the exit status non-zero; the run directory still says why.
    subprocess.run(cmd, cwd=REPO, check=False, stdout=subprocess.DEVNULL)
    meta = json.loads((out / run_id / "run.json").read_text())
    return str(meta["status"])


def main() -> int:
    prooflab = os.environ.get("PROOFLAB", "build/bin/prooflab")
    if not (REPO / prooflab).exists() and shutil.which(prooflab) is None:
        print(f"no prooflab binary at {prooflab}: build it (make build) or set PROOFLAB", file=sys.stderr)
        return 1

    name, args = MAIN_RUN
    shutil.rmtree(HERE / name, ignore_errors=True)
    status = batch(prooflab, HERE, name, args)
    if status != "complete":
        print(f"{name}: status {status}", file=sys.stderr)
        return 1

    exp_dir = HERE / EXPERIMENT
    shutil.rmtree(exp_dir, ignore_errors=True)
    (exp_dir / "runs").mkdir(parents=True)
    cell = f"c{CELL['count']}_j{CELL['concurrency']}"
    axes = ["count", "concurrency", "constraints", "partitions", "lock_policy", "gpu_workers_per_device",
            "vram_limit"]
    rows = []
    order = 0
    names = list(VARIANTS)
    for rep in range(REPS):
        for variant in names if rep % 2 == 0 else names[::-1]:  # ABBA
            knobs = {**CELL, **VARIANTS[variant]}
            sets = [a for k in ("constraints", "partitions", "lock_policy", "gpu_workers_per_device", "vram_limit")
                    for a in ("--set", f"{k}={knobs[k]}")]
            run_id = f"{cell}_{variant}_r{rep}"
            status = batch(prooflab, exp_dir / "runs", run_id,
                           ["--count", str(CELL["count"]), "--concurrency", str(CELL["concurrency"]), *sets])
            rows.append({"experiment": EXPERIMENT, "cell": cell, "variant": variant, "rep": rep, "order": order,
                         "run_dir": f"runs/{run_id}", "status": status, **{a: knobs[a] for a in axes}})
            order += 1
    with open(exp_dir / "index.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {HERE / name} and {exp_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
