"""Where the GPU phase's time goes before the ntt_h sub-stage, per partition (this README).

    python3 phase_gap.py RUN_DIR [CUPTI_CSV(.xz)]

From timeline.csv: GPU_START to the start of NTT_H (its end minus dur_us), which holds the
stage (a, b, c or the witness uploaded) under the single lock. With a CUPTI file: for each
partition, the first device activity on any stream after GPU_START (the device idle before
it), and the HtoD copies in that window. Standard library only."""
import csv
import lzma
import statistics
import sys
from pathlib import Path


def opener(path: Path):
    return lzma.open(path, "rt", newline="") if path.suffix == ".xz" else open(path, newline="")


run = Path(sys.argv[1])
starts, ntt_start = {}, {}
with open(run / "timeline.csv", newline="") as f:
    for r in csv.DictReader(f):
        key = (r["job"], r["partition"])
        if r["event"] == "GPU_START":
            starts[key] = int(r["t_us"])
        elif r["event"] == "NTT_H":
            ntt_start[key] = int(r["t_us"]) - int(r["detail"].split("=")[1])
pre = sorted((ntt_start[k] - starts[k]) / 1e3 for k in starts if k in ntt_start)
print(f"{run}: {len(pre)} partitions, GPU_START -> NTT_H start ms: min {pre[0]:.1f} "
      f"median {statistics.median(pre):.1f} max {pre[-1]:.1f}")
if len(sys.argv) > 2:
    with opener(Path(sys.argv[2])) as f:
        rows = list(csv.DictReader(f))
    phases = [r for r in rows if r["kind"] == "MARKER" and r["name"].startswith("gpu_phase ")]
    device = [r for r in rows if r["kind"] in ("KERNEL", "MEMCPY", "MEMSET")]
    idle, copies = [], []
    for m in phases:
        t0 = float(m["start_us"])
        after = sorted(float(r["start_us"]) for r in device if float(r["start_us"]) >= t0)
        if after:
            idle.append((after[0] - t0) / 1e3)
        first = [r for r in device if r["kind"] == "MEMCPY" and r["name"] == "HtoD" and
                 float(r["start_us"]) >= t0 and int(r["bytes"] or 0) > 50_000_000]
        if first:
            r = min(first, key=lambda r: float(r["start_us"]))
            copies.append(int(r["bytes"]) / (float(r["end_us"]) - float(r["start_us"])) / 1e3)
    idle.sort()
    print(f"CUPTI: {len(idle)} phases, device idle from GPU_START to its first operation ms: "
          f"min {idle[0]:.1f} median {statistics.median(idle):.1f} max {idle[-1]:.1f}; "
          f"first large HtoD copy of the phase: median {statistics.median(copies):.2f} GB/s")
