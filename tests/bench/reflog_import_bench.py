"""Benchmark (not a test): import a generated cuzk daemon log of a given size and report the
wall time, CPU time (user and system), peak memory and the machine's load around the run.
Issue 14 item 5 asks for <= 30 s for 1 GB on 2 cores.

    .venv/bin/python tests/bench/reflog_import_bench.py --size-mb 1024 [--log /tmp/big.log] [--keep]
        [--json out.json] [--reader compiled|numpy|line-by-line]

The log is one long daemon run: a generated run (tests/python/cuzk_logs.py: real format
strings, ANSI colour, noise) repeated, each copy with its job ids renamed and its whole
clock moved on by the run's span: TIMELINE offsets and tracing times alike, so the engine's
completion lines give a true s/proof (one copy's span / its jobs). The file is written by a
child process, so that neither the time nor the memory of writing it is counted.

Readers: `compiled` (default) reads the common lines with prooflab.ReflogScanner (the module
from $PROOFLAB_BUILD_DIR/python, default build/python; refused when it is not built), `numpy`
with reflog_chunks' numpy fallback, `line-by-line` sends every line through the line scanner
(the definition both are tested against). Peak RSS is the process's (getrusage), after the
import and after the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))

MODULE_DIR = Path(os.environ.get("PROOFLAB_BUILD_DIR", HERE.parents[1] / "build")) / "python"
sys.path.insert(0, str(MODULE_DIR))

import cuzk_logs  # noqa: E402
from prooflab_analysis import integrity, loaders, reflog_chunks  # noqa: E402
from prooflab_analysis.reflog import load_reference_log  # noqa: E402
from prooflab_analysis.reflog_figures import reference_figures  # noqa: E402

_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
_OFFSET = re.compile(r"^TIMELINE,(\d+),", re.M)


def write_log(path: Path, size_bytes: int) -> dict:
    """Copies of one generated run until `size_bytes`; returns what one copy holds."""
    base = cuzk_logs.generate([cuzk_logs.Options(jobs=40, partitions=10, monolithic_jobs=4, ansi=True, bench=False,
                                                 seed=3)])
    lines = base.text.splitlines(keepends=True)
    head = [l for l in lines[:12] if "TIMELINE," not in l]  # daemon start, worker lines: once
    body = "".join(lines[len(head):])
    span_ms = max(int(m.group(1)) for m in _OFFSET.finditer(body)) + 1000
    jobs = base.runs[0].jobs
    job_re = re.compile("|".join(map(re.escape, jobs)))
    stamps = {m: datetime.strptime(m, "%Y-%m-%dT%H:%M:%S.%fZ") for m in set(_STAMP.findall(body))}
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.writelines(head)
        k = 0
        while written < size_bytes:
            rename = {j: f"{k:08x}{j[8:]}" for j in jobs}
            shift = timedelta(milliseconds=k * span_ms)
            text = job_re.sub(lambda m: rename[m.group(0)], body)
            text = _OFFSET.sub(lambda m: f"TIMELINE,{int(m.group(1)) + k * span_ms},", text)
            text = _STAMP.sub(lambda m: (stamps[m.group(0)] + shift).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), text)
            out.write(text)
            written += len(text.encode())
            k += 1
    return {"copies": k, "span_s": span_ms / 1000, "jobs_per_copy": len(jobs)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--log", type=Path, default=Path("/tmp/prooflab-reflog-bench.log"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", action="store_true", help="reuse --log when it exists")
    ap.add_argument("--reader", choices=["compiled", "numpy", "line-by-line"], default="compiled")
    ap.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)  # the child that writes the log
    a = ap.parse_args()
    if a.write_only:
        print(json.dumps(write_log(a.log, int(a.size_mb * 2**20))))
        return 0
    loaders.use_fast_loader(a.reader == "compiled")
    if a.reader == "compiled" and reflog_chunks.native_scanner() is None:
        sys.exit(f"--reader compiled: the prooflab module is not importable from {MODULE_DIR} (make build)")
    copies = None
    if not (a.keep and a.log.exists()):
        child = subprocess.run([sys.executable, __file__, "--write-only", "--log", str(a.log), "--size-mb", str(a.size_mb)],
                               check=True, capture_output=True, text=True)
        copies = json.loads(child.stdout)
    size = a.log.stat().st_size
    load_before = os.getloadavg()
    t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    runs = load_reference_log(a.log, bulk=a.reader != "line-by-line")
    t_import, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    figures = [reference_figures(r, integrity.check_run(r)) for r in runs]
    wall, r2 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    load_after = os.getloadavg()
    user, system = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
    result = {
        "log_bytes": size, "runs": len(runs), "timeline_records": sum(len(r.timeline) for r in runs),
        "cuzk_values": sum(len(r.extras["cuzk_timing"]) for r in runs),
        "import_s": round(t_import, 2), "import_cpu_s": round(user + system, 2), "import_user_s": round(user, 2),
        "import_sys_s": round(system, 2), "import_peak_rss_mib": round(r1.ru_maxrss / 1024),
        "import_and_figures_s": round(wall, 2),
        "cpu_s": round(r2.ru_utime - r0.ru_utime + r2.ru_stime - r0.ru_stime, 2),
        "peak_rss_mib": round(r2.ru_maxrss / 1024), "s_per_proof": figures[0].throughput.get("s_per_proof"),
        "s_per_proof_source": figures[0].throughput.get("source"), "generated": copies,
        "reader": a.reader, "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}, "
                   f"{len(os.sched_getaffinity(0))} cores", "python": platform.python_version(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                 cwd=HERE).stdout.strip(),
        "date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv),
    }
    print(json.dumps(result, indent=2))
    if a.json:
        a.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
