"""Turn the captured output of one external prover run into a run directory.

`prooflab matrix` with `[runner] kind = "command"` (docs/external-runner.md) captures a
run's output into its run directory (the daemon's stderr, the bench's stdout, named log
files) and calls `import_reference_log` once, through the embedded interpreter. This is
the only function the harness calls: the importer behind it (`reflog`) may change as long
as this keeps its signature and what it writes.

Each log is parsed on its own (so an error names the right file and line) as one run, and
the pieces are merged: a daemon's stderr holds the TIMELINE and CUZK_TIMING records, the
bench's stdout the per-proof lines and the Batch Summary. Job ids are the reference's
strings; the merged run numbers them 0.. in order of first appearance over all the logs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from . import schema
from .loaders import Run, RunFormatError
from .reflog import load_reference_log


class NothingImportable(ValueError):
    """The logs hold no Batch Summary with a throughput line: nothing to measure."""


def _one_run(path: Path, expected_partitions: int | None) -> Run | None:
    """The run in one captured file; None when the file holds no line of a known format
    (an empty stdout, a daemon's unrelated chatter)."""
    if path.stat().st_size == 0:
        return None
    try:
        runs = load_reference_log(path, expected_partitions=expected_partitions)
    except RunFormatError:
        return None  # not strict: raised only when no line is of a format the importer knows
    if not runs:
        return None
    if len(runs) > 1:
        ids = ", ".join(r.run_id for r in runs)
        raise RunFormatError(str(path), f"holds {len(runs)} runs ({ids}); a run's own log must hold one")
    return runs[0]


def _global_jobs(run: Run, jobs: dict[str, int]) -> dict[int, int]:
    """Local job numbers of `run` -> numbers over all logs (assigned here on first sight)."""
    table = run.extras.get("jobs")
    mapping: dict[int, int] = {}
    if table is None:
        return mapping
    for local, job_id in zip(table["job"], table["job_id"]):
        mapping[int(local)] = jobs.setdefault(str(job_id), len(jobs))
    return mapping


def _renumber(frame: pd.DataFrame, mapping: dict[int, int]) -> pd.DataFrame:
    frame = frame.copy()
    frame["job"] = frame["job"].map(lambda j: mapping.get(int(j)) if pd.notna(j) else pd.NA).astype(schema.INT_DTYPE)
    return frame


def _csv(frame: pd.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(path)


def import_reference_log(
    log_paths: Sequence[str | Path],
    run_dir: str | Path,
    *,
    expected_partitions: int | None = None,
) -> dict[str, Any]:
    """Import the reference-format logs of one run into `run_dir`.

    Writes timeline.csv and stages.csv (docs/run-directory.md; the reference's TIMELINE in
    our columns, the CUZK_TIMING values that name their job and partition) and summary.json
    (the Batch Summary, plus `count` from the per-proof lines), and returns the summary.
    Logs that do not exist or hold no line of a known format are skipped; malformed lines
    are skipped and counted (`malformed_lines`), as `prooflab report` does. Raises
    NothingImportable when no log has a Batch Summary with a throughput line, and
    ValueError when two logs each have one.
    """
    run_dir = Path(run_dir)
    paths = [Path(p) for p in log_paths if Path(p).is_file()]
    jobs: dict[str, int] = {}
    timelines: list[pd.DataFrame] = []
    stages: list[pd.DataFrame] = []
    summary: dict[str, Any] = {}
    summary_from: Path | None = None
    count: int | None = None
    malformed = 0
    for path in paths:
        run = _one_run(path, expected_partitions)
        if run is None:
            continue
        malformed += int(run.meta.get("lines", {}).get("malformed", 0))
        count = run.config.get("count", count)
        mapping = _global_jobs(run, jobs)
        if not run.timeline.empty:
            timelines.append(_renumber(run.timeline, mapping))
        if not run.stages.empty:
            stages.append(_renumber(run.stages, mapping))
        if run.summary:
            if summary_from is not None:
                raise ValueError(f"both {summary_from} and {path} hold a Batch Summary; one run has one")
            summary, summary_from = dict(run.summary), path
    spp = summary.get("s_per_proof")
    if summary_from is not None and spp is None:
        raise NothingImportable(
            f"nothing importable: the Batch Summary in {summary_from} has no 'throughput:' line "
            f"(completed: {summary.get('completed')}, failed: {summary.get('failed')})"
        )
    if not isinstance(spp, float) or not math.isfinite(spp):
        listed = ", ".join(str(p) for p in paths) or "no log was written"
        raise NothingImportable(
            f"nothing importable: no '=== Batch Summary ===' with a 'throughput:' line in {listed}"
        )
    timeline = (
        pd.concat(timelines, ignore_index=True).sort_values("t_us", kind="stable")
        if timelines
        else schema.empty_timeline()
    )
    stage_frame = pd.concat(stages, ignore_index=True) if stages else schema.empty_stages()
    _csv(timeline[schema.TIMELINE_COLUMNS], run_dir / "timeline.csv")
    _csv(stage_frame[list(schema.empty_stages().columns)], run_dir / "stages.csv")
    if "count" not in summary and count is not None:
        summary["count"] = int(count)
    summary["imported_from"] = [str(p) for p in paths]
    summary["malformed_lines"] = malformed  # skipped by the importer (docs/reference-logs.md)
    tmp = run_dir / "summary.json.tmp"
    tmp.write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    tmp.replace(run_dir / "summary.json")
    return summary
