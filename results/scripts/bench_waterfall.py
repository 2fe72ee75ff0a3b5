#!/usr/bin/env python3
"""Benchmark: time to draw the waterfall of a 1 M-event timeline (target: <= 5 s).

    .venv/bin/python results/scripts/bench_waterfall.py [--events N] [--reps R] [--out FILE.md]

Times, per repetition, the layout + drawing (`waterfall_figure`) and the 200 dpi PNG (wall
clock and the process's CPU time, which a shared machine disturbs less), and separately the
SVG, of the plausible single-device timeline that the tests use
(tests/python/builders.py `synthetic_timeline`: 2 workers, 10 partitions per job, every
stage with its sub-stages). Prints a markdown record (machine, load, date, commit, command,
median and spread) and writes it to --out when given.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))

import matplotlib.pyplot as plt  # noqa: E402

from builders import synthetic_timeline  # noqa: E402
from prooflab_analysis.figures import save_figure  # noqa: E402
from prooflab_analysis.waterfall import waterfall_figure  # noqa: E402


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()

    dirty = " (dirty)" if git("status", "--porcelain", "--untracked-files=no") else ""
    return git("rev-parse", "--short", "HEAD") + dirty


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    timeline = synthetic_timeline(args.events)
    draw_png, svg, draw_png_cpu = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.reps):
            t0, c0 = time.perf_counter(), time.process_time()
            fig = waterfall_figure(timeline, title=f"{len(timeline):,} events")
            save_figure(fig, Path(tmp) / "wf", ("png",))
            t1, c1 = time.perf_counter(), time.process_time()
            save_figure(fig, Path(tmp) / "wf", ("svg",))
            t2 = time.perf_counter()
            plt.close(fig)
            draw_png.append(t1 - t0)
            draw_png_cpu.append(c1 - c0)
            svg.append(t2 - t1)

    load = os.getloadavg()
    lines = [
        f"# Waterfall drawing time, {len(timeline):,} events — {dt.date.today().isoformat()}",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}; "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) at the end",
        f"- Commit: {commit()}; Python {platform.python_version()}",
        f"- Command: `{' '.join([Path(sys.executable).name, *sys.argv])}`",
        f"- Input: tests/python/builders.py `synthetic_timeline({args.events})`; {args.reps} repetitions",
        "",
        "| step | median s | min s | max s |",
        "|---|---|---|---|",
        f"| layout + draw + PNG (200 dpi), wall | {statistics.median(draw_png):.2f} | {min(draw_png):.2f} | "
        f"{max(draw_png):.2f} |",
        f"| layout + draw + PNG (200 dpi), CPU time of the process | {statistics.median(draw_png_cpu):.2f} | "
        f"{min(draw_png_cpu):.2f} | {max(draw_png_cpu):.2f} |",
        f"| SVG (text as text) | {statistics.median(svg):.2f} | {min(svg):.2f} | {max(svg):.2f} |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
