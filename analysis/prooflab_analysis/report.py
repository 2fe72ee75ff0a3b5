"""Markdown reports with figures, for a run directory, an experiment or a reference log.

`write_report(path)` decides what `path` is (run directory: run.json or timeline.csv;
experiment: index.csv; anything else that is a file: a reference-format log) and writes
`report.md`, the same as one self-contained `report.html` (html_report.py), plus its
figures and tables into `<path>/report/` (a log gets
`<log dir>/<log stem>-report/`), or into `out` when given. It returns the report path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
import numpy as np
import pandas as pd

from . import (ab_plot, abtest, devices, energy, html_report, integrity, memory_tiers, memory_tiers_plot, metrics,
               sweep, sweep_plot, waterfall)
from .figures import save_figure
from .loaders import Run, RunFormatError, is_run_dir, load_experiment, load_run
from .reflog import job_labels, load_reference_log
from .reflog_figures import reference_figures
from .tables import fmt_float, fmt_percent, fmt_signed_percent, markdown_table

GPU_SPAN_NOTE = (
    "This log uses the reference's GPU_START..GPU_END, which spans the lock wait, the kernels "
    "and b_g2_msm; its \"GPU busy\" therefore overstates device use (prooflab's own timelines "
    "mark the lock-held time only)."
)


def _save(fig: Figure, stem: Path) -> None:
    """PNG (200 dpi) and SVG with text as text, then free the figure."""
    try:
        save_figure(fig, stem)
    finally:
        plt.close(fig)


def _fmt(value: Any, kind: str = "float2") -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if kind == "pct":
        return f"{100 * float(value):.1f} %"
    if kind == "int":
        return str(int(value))
    if kind == "float1":
        return f"{float(value):.1f}"
    if kind == "float3":
        return f"{float(value):.3f}"
    return f"{float(value):.2f}"


HEADLINE = [
    ("s_per_proof", "s/proof (first JOB_SUBMIT .. last JOB_DONE)", "float2"),
    ("proofs_per_min", "proofs/min", "float3"),
    ("steady_s_per_proof", "s/proof, steady (first .. last JOB_DONE)", "float2"),
    ("jobs_completed", "proofs counted", "int"),
    ("jobs_failed", "proofs failed", "int"),
    ("jobs_excluded", "proofs excluded by integrity checks", "int"),
    ("latency_p50_s", "latency p50 [s]", "float2"),
    ("latency_p95_s", "latency p95 [s]", "float2"),
    ("gpu_busy", "GPU busy (TIMELINE spans)", "pct"),
    ("kernel_busy", "kernel busy (CUPTI)", "pct"),
    ("gpu_ms_per_partition", "GPU ms / partition", "float1"),
    ("synth_ms", "synthesis ms / partition", "float1"),
    ("handoff_gap_ms_total", "handoff gaps, total ms", "float1"),
    ("idle_gap_ms_total", "idle gaps, total ms", "float1"),
    ("bandwidth_gbps", "memory bandwidth, mean GB/s", "float1"),
    *((metric, label, "float1") for metric, (_, label, _) in energy.ENERGY_METRICS.items()),
]


def _headline_table(m: dict[str, Any]) -> str:
    rows = [{"metric": label, "value": _fmt(m.get(key), kind)} for key, label, kind in HEADLINE if key in m]
    if m.get("bandwidth_source"):
        rows.append({"metric": "bandwidth source", "value": m["bandwidth_source"]})
    return markdown_table(pd.DataFrame(rows, columns=["metric", "value"]))


def _meta_lines(run: Run) -> list[str]:
    meta = run.meta
    lines = []
    if run.path is not None:
        lines.append(f"- run directory: `{run.path}`")
    if meta.get("source") == "reference_log":
        lines.append(f"- imported from reference log `{meta.get('log')}`, lines {meta.get('first_line')}-{meta.get('last_line')}")
    lines.append(f"- status: **{run.status}**")
    if "git_commit" in meta:
        dirty = " (dirty)" if meta.get("git_dirty") else ""
        lines.append(f"- commit: `{meta['git_commit']}`{dirty}")
    if "command" in meta:
        lines.append(f"- command: `{meta['command']}`")
    if "start_time" in meta:
        lines.append(f"- time: {meta.get('start_time')} .. {meta.get('end_time', '')}")
    host = meta.get("host")
    if isinstance(host, dict):
        mem = host.get("mem_bytes")
        mem_s = f", {mem / 2**30:.0f} GiB" if isinstance(mem, (int, float)) else ""
        lines.append(f"- host: {host.get('cpu_model', '?')}, {host.get('cores', '?')} cores{mem_s}")
    gpu = meta.get("gpu")
    if isinstance(gpu, dict):
        mem = gpu.get("mem_bytes")
        mem_s = f", {mem / 2**30:.0f} GiB" if isinstance(mem, (int, float)) else ""
        lines.append(f"- GPU: {gpu.get('name', '?')}, {gpu.get('sms', '?')} SMs{mem_s}, driver {gpu.get('driver', '?')}")
    elif "gpu" in meta:
        lines.append("- GPU: none (CPU backend)")
    return lines


def _config_table(run: Run) -> str:
    cfg = run.config
    if not cfg:
        return ""
    rows = [{"knob": k, "value": json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else str(v)}
            for k, v in cfg.items()]
    return markdown_table(pd.DataFrame(rows, columns=["knob", "value"]))


def _counter_sources(run: Run) -> str:
    counters = run.meta.get("counters")
    if not isinstance(counters, dict) or not counters:
        return ""
    rows = [{"source": k, "status": (v or {}).get("status", ""), "reason": (v or {}).get("reason", "")}
            for k, v in counters.items()]
    return markdown_table(pd.DataFrame(rows, columns=["source", "status", "reason"]))


def _import_lines(run: Run) -> list[str]:
    """What the importer recognised, and every malformed line (file:line, text, reason)."""
    c = run.meta.get("lines", {})
    parts = [f"- lines: {c.get('records', 0)} records, {c.get('informational', 0)} informational, "
             f"{c.get('malformed', 0)} malformed (skipped), {c.get('other', 0)} unrelated output", ""]
    bad = run.extras.get("malformed")
    if bad is not None and not bad.empty:
        shown = bad.head(50).assign(line=[f"{run.meta.get('log')}:{n}" for n in bad["line"].head(50)])
        parts += [markdown_table(shown[["line", "reason", "text"]])]
        if c.get("malformed", 0) > len(shown):
            parts += [f"({c['malformed'] - len(shown)} more malformed lines not shown)", ""]
    return parts


def _frame_md(frame: pd.DataFrame, pct: Sequence[str] = (), ms: Sequence[str] = ()) -> str:
    fmts = {c: fmt_percent(1) for c in pct} | {c: fmt_float(1) for c in ms}
    return markdown_table(frame, fmts)


def _reference_sections(run: Run, report: integrity.IntegrityReport) -> list[str]:
    """Headline, utilisation, gaps and stages of an imported log, each figure with its source."""
    f = reference_figures(run, report)
    tp, lat = f.throughput, f.latency
    rows = [
        {"figure": "s/proof", "value": _fmt(tp.get("s_per_proof")), "source": tp["source"]},
        {"figure": "proofs/min", "value": _fmt(tp.get("proofs_per_min"), "float3"), "source": tp["source"]},
        {"figure": "proofs counted", "value": _fmt(tp.get("completed"), "int"), "source": tp["source"]},
        {"figure": "latency mean / p50 / p95 / max [s]",
         "value": " / ".join(_fmt(lat.get(k)) for k in ("mean_s", "p50_s", "p95_s", "max_s")), "source": lat["source"]},
        {"figure": "synthesis ms / partition (mean, median)",
         "value": f"{_fmt(f.synth['mean_ms'], 'float1')}, {_fmt(f.synth['median_ms'], 'float1')}",
         "source": f"synth_ms of {f.synth['n']} SYNTH_END records of counted jobs"},
        {"figure": "proofs failed", "value": str(len(f.failed)), "source": "tracing ERROR lines, non-COMPLETED completion lines"},
    ]
    parts = ["## Headline (imported log)", "", GPU_SPAN_NOTE, "", markdown_table(pd.DataFrame(rows)), ""]
    parts += [f"- {note}" for note in f.notes]
    parts += ["## GPU time per partition", "", _frame_md(f.gpu_time, ms=("mean_ms", "median_ms")), "",
              "## GPU busy", "", f"- window: {f.window_text}", f"- devices: {f.devices_text}",
              f"- kernel busy is an estimate: {f.kernel_source} / (window x devices); lock-held busy: sum of "
              "mutex_held_ms / (window x devices); GPU busy: union of GPU_START..GPU_END spans per device", "",
              _frame_md(f.busy, pct=("gpu_busy", "lock_held_busy", "kernel_busy")), ""]
    if not f.gaps.empty:
        parts += ["## GPU starved and handoff time", "",
                  "A gap between GPU spans is *handoff* when a partition was queued at its start, *starved* when "
                  "none was (per device: queued and not started; per worker: queued and not picked up).", "",
                  _frame_md(f.gaps, ms=("total_ms",)), ""]
    if not f.failed.empty:
        parts += ["## Failed proofs", "", markdown_table(f.failed), ""]
    if not f.prestage.empty or not f.pre_destructor.empty:
        parts += ["## Pre-staging", "", markdown_table(f.prestage), "",
                  _frame_md(f.pre_destructor, ms=("mean_ms", "median_ms", "max_ms")), ""]
    if not f.stages.empty:
        parts += ["## Stages (CUZK_TIMING / CUZK_NTT_H)", "", f"- scope: {f.stage_scope}", "",
                  _frame_md(f.stages, ms=("mean_ms", "median_ms", "p95_ms", "max_ms")), ""]
    return parts


def run_report_markdown(run: Run, out_dir: Path, expected_partitions: int | None = None,
                        window: tuple[float, float] | None = None) -> str:
    """Markdown for one run; writes its figures into `out_dir` (`window`: the waterfall's
    time window, s since the run's start)."""
    report = integrity.check_run(run, expected_partitions)
    reference = run.meta.get("source") == "reference_log"
    m = metrics.run_metrics(run, expected_partitions, report)
    parts = [f"# Run report: {run.run_id}", "", *_meta_lines(run), ""]
    config = _config_table(run)
    if config:
        parts += ["## Configuration", "", config]
    sources = _counter_sources(run)
    if sources:
        parts += ["## Counter sources", "", sources]

    labels = job_labels(run) if reference else {}
    describe = report.describe()
    if labels and report.excluded_jobs:
        describe += " Job ids: " + ", ".join(f"{j} = {labels.get(j, '?')}" for j in sorted(report.excluded_jobs)[:20]) + "."
    parts += ["## Integrity", "", describe, ""]
    parts += [f"- expected partitions per proof: {report.expected_partitions} ({report.expected_source})"]
    parts += [f"- {note}" for note in report.notes + run.notes]
    parts.append("")
    if reference:
        parts += _import_lines(run)
    if not report.ok:
        shown = report.issues.head(50)
        if labels:
            shown = shown.assign(job=[labels.get(int(j), "") if pd.notna(j) else "" for j in shown["job"]])
        parts += [markdown_table(shown)]
        if len(report.issues) > len(shown):
            parts += [f"({len(report.issues) - len(shown)} more issues not shown)", ""]
        parts += [
            "Excluded jobs are left out of latency, the throughput count, GPU time per partition and "
            "stage statistics; device utilisation still counts their intervals.",
            "",
        ]

    if reference:
        parts += _reference_sections(run, report)
    else:
        parts += ["## Headline", "", _headline_table(m)]
        energy_notes = energy.energy_notes(run.summary)
        if energy_notes:
            parts += ["Energy (summary.json `energy`, computed by the harness):", "",
                      *[f"- {note}" for note in energy_notes], ""]
    if run.summary:
        parts += ["Recorded summary (summary.json / Batch Summary):", "", "```json",
                  json.dumps(run.summary, indent=2, default=str), "```", ""]

    if not run.timeline.empty and not reference:
        util = metrics.utilisation(run.timeline, run.cupti)
        parts += ["## Utilisation per device", "",
                  markdown_table(util, {"wall_us": fmt_float(0), "gpu_busy_us": fmt_float(0), "gpu_busy": fmt_percent(1),
                                        "kernel_busy_us": fmt_float(0), "kernel_busy": fmt_percent(1)})]
        gaps = metrics.gpu_gaps(run.timeline)
        if not gaps.empty:
            parts += ["## GPU gaps per worker", "",
                      "A handoff gap is followed by the same job's next partition or had work queued when it "
                      "began; an idle gap had nothing ready.", "",
                      markdown_table(metrics.gap_summary(gaps), {c: fmt_float(1) for c in
                                                                ("total_ms", "mean_ms", "median_ms", "max_ms")})]
    stages = metrics.stage_summary(metrics.run_stage_long(run), report.excluded_jobs)
    if not stages.empty and not reference:
        parts += ["## Stages", "", markdown_table(stages, {c: fmt_float(1) for c in
                                                          ("mean_ms", "median_ms", "p95_ms", "max_ms")})]
    completions = run.extras.get("completions")
    if completions is not None and not completions.empty:
        parts += ["## Completion lines", "", markdown_table(completions)]

    if not run.timeline.empty or not run.cupti.empty:
        _save(waterfall.run_waterfall(run, sorted(report.excluded_jobs), window=window), out_dir / "waterfall")
        parts += ["## Waterfall", "", "![waterfall](waterfall.png)", "", "[SVG](waterfall.svg)", ""]
    return "\n".join(parts)


def write_run_report(run_dir: str | Path, out: str | Path | None = None, expected_partitions: int | None = None,
                     window: tuple[float, float] | None = None) -> Path:
    run = load_run(run_dir)
    out_dir = Path(out) if out is not None else Path(run_dir) / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.md"
    path.write_text(run_report_markdown(run, out_dir, expected_partitions, window), encoding="utf-8")
    html_report.write_html(path)
    return path


def write_log_report(log: str | Path, out: str | Path | None = None, expected_partitions: int | None = None,
                     strict: bool = False, window: tuple[float, float] | None = None) -> Path:
    """One report per run found in a reference log, and an index report.md."""
    log = Path(log)
    runs = load_reference_log(log, expected_partitions=expected_partitions, strict=strict)
    out_dir = Path(out) if out is not None else log.parent / f"{log.stem}-report"
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = [f"# Reference log report: {log.name}", "", f"- log: `{log}`", f"- runs found: {len(runs)} "
             "(split at RUN_ID=<id> / `=== run <id> ===` markers, daemon restarts and benchmark headers, "
             "never by time)", ""]
    rows = []
    for run in runs:
        sub = out_dir / _safe(run.run_id)
        sub.mkdir(parents=True, exist_ok=True)
        (sub / "report.md").write_text(run_report_markdown(run, sub, expected_partitions, window), encoding="utf-8")
        html_report.write_html(sub / "report.md")
        check = integrity.check_run(run, expected_partitions)
        f = reference_figures(run, check)
        busy = f.busy.loc[f.busy["device"] == "all", "gpu_busy"]
        rows.append({"run": f"[{run.run_id}]({_safe(run.run_id)}/report.md)", "lines":
                     f"{run.meta['first_line']}-{run.meta['last_line']}", "events": len(run.timeline),
                     "malformed": run.meta["lines"]["malformed"], "s_per_proof": f.throughput.get("s_per_proof"),
                     "gpu_busy": busy.iloc[0] if len(busy) else np.nan, "issues": len(check.issues)})
    if rows:
        lines.append(markdown_table(pd.DataFrame(rows), {"s_per_proof": fmt_float(2), "gpu_busy": fmt_percent(1)}))
    lines += ["", GPU_SPAN_NOTE, ""]
    path = out_dir / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    html_report.write_html(path)
    return path


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "run"


AB_FORMATS = {
    "baseline_value": fmt_float(3), "variant_value": fmt_float(3), "rel_change": fmt_signed_percent(2),
    "ci_low": fmt_signed_percent(2), "ci_high": fmt_signed_percent(2), "p_value": fmt_float(4),
    "min_effect": fmt_percent(1), "reps_needed": lambda v: str(int(v)),
}

# Metric -> the summary.json key used when the timeline gives no value.
SUMMARY_FALLBACK = {"s_per_proof": "summary.s_per_proof", "proofs_per_min": "summary.throughput_proofs_per_min"}


def experiment_report_markdown(
    exp_dir: Path, out_dir: Path, *, expected_partitions: int | None = None,
    ab_metrics: Sequence[str] = ("s_per_proof", "proofs_per_min", "j_per_proof", "gpu_j_per_proof"), baseline: str = "baseline",
    min_effect: float = 0.02,
) -> str:
    experiment = load_experiment(exp_dir)
    runs = metrics.experiment_metrics(experiment, expected_partitions)
    name = str(experiment["experiment"].iloc[0]) if len(experiment) else exp_dir.name
    status_counts = experiment["status"].value_counts().to_dict()
    parts = [f"# Experiment report: {name}", "", f"- directory: `{exp_dir}`",
             f"- runs: {len(experiment)} ({', '.join(f'{k}: {v}' for k, v in status_counts.items())})",
             f"- cells: {experiment['cell'].nunique()}, variants: {', '.join(map(str, pd.unique(experiment['variant'])))}",
             ""]
    if "s_per_proof" in runs.columns and runs["s_per_proof"].notna().any():
        table = sweep.sweep_table(runs, baseline)
        sweep.write_sweep(table, out_dir)
        parts += ["## Sweep", "", "Means over the complete repetitions of each cell, the baseline first; sd and "
                  "95 % t interval of the repetitions ([CSV](sweep.csv)).", "", sweep.sweep_markdown(table)]
        if table["j"].nunique() >= 2:
            _save(sweep_plot.sweep_figure(table, name), out_dir / "sweep")
            parts += ["![sweep](sweep.png)", "", "[SVG](sweep.svg)", ""]
            # Energy per proof where the runs recorded it: GPU + host, else the GPU's alone.
            energy = next((m for m in ("j_per_proof", "gpu_j_per_proof") if table[m].notna().any()), None)
            if energy is not None:
                _save(sweep_plot.sweep_figure(table, name, metric=energy), out_dir / "sweep_energy")
                parts += ["![sweep, energy per proof](sweep_energy.png)", "", "[SVG](sweep_energy.svg)", ""]
    if devices.has_device_sweep(runs):
        table = devices.device_table(runs)
        table.to_csv(out_dir / "devices.csv", index=False)
        parts += ["## Devices", "",
                  "Per cell: s/proof and each device's GPU busy (lock held) and kernel busy (CUPTI) from summary.json, "
                  "means over the complete repetitions; speedup = s/proof of the one-device cell with the same other "
                  "axes / this cell's ([CSV](devices.csv)).", "", devices.device_markdown(table), ""]
    if memory_tiers.has_memory_sweep(runs):
        points = memory_tiers.memory_points(runs)
        recommendations = memory_tiers.recommend(points)
        points.to_csv(out_dir / "memory_tiers.csv", index=False)
        recommendations.to_csv(out_dir / "memory_recommendations.csv", index=False)
        _save(memory_tiers_plot.memory_tiers_figure(points, recommendations, name), out_dir / "memory_tiers")
        parts += ["## Memory tiers", "",
                  "s/proof (mean, 95 % t interval) against the largest peak RSS of the repetitions per partition "
                  "workers (pw) x GPU workers (gw); the Pareto frontier is what no other configuration beats on both "
                  "([CSV](memory_tiers.csv)).", "", memory_tiers.points_markdown(points),
                  f"Recommendation per host memory size: the fastest configuration whose peak RSS fits in "
                  f"{memory_tiers.DEFAULT_HEADROOM:.0%} of it ([CSV](memory_recommendations.csv)).", "",
                  memory_tiers.recommendations_markdown(recommendations),
                  "![memory tiers](memory_tiers.png)", "", "[SVG](memory_tiers.svg)", ""]
    for metric in ab_metrics:
        if baseline not in set(runs["variant"]) or runs["variant"].nunique() < 2:
            break
        column = metric
        if column not in runs.columns or not runs[column].notna().any():
            column = SUMMARY_FALLBACK.get(metric, "")
            if column not in runs.columns or not runs[column].notna().any():
                continue
        higher = abtest.metric_higher_is_better(metric)
        table = abtest.ab_table(runs, column, baseline=baseline, min_effect=min_effect, higher_is_better=higher)
        stem = f"ab_{metric}"
        table.to_csv(out_dir / f"{stem}.csv", index=False)
        md = markdown_table(table.drop(columns=["baseline", "metric", "min_effect"]), AB_FORMATS)
        (out_dir / f"{stem}.md").write_text(md, encoding="utf-8")
        source = "" if column == metric else f" (from `{column}`: the runs have no timeline value)"
        parts += [f"## A/B: {metric}{source}", "",
                  f"Relative change of the mean vs `{baseline}` in the same cell, 95 % bootstrap CI, Mann-Whitney U "
                  f"p-value, minimum effect {min_effect:.0%} ([CSV]({stem}.csv)).", "", md]
        if not table.empty:
            _save(ab_plot.ab_figure(runs, table, column, metric=metric, baseline=baseline, higher_is_better=higher),
                  out_dir / stem)
            parts += [f"![A/B {metric}]({stem}.png)", "", f"[SVG]({stem}.svg)", ""]
    cols = [c for c in ("cell", "variant", "rep", "order", "status", "run_dir", "s_per_proof", "proofs_per_min",
                        "issues", "excluded_jobs") if c in runs.columns]
    parts += ["## Runs", "", markdown_table(runs[cols], {"s_per_proof": fmt_float(2), "proofs_per_min": fmt_float(3),
                                                         "issues": lambda v: str(int(v))})]
    return "\n".join(parts)


def write_experiment_report(exp_dir: str | Path, out: str | Path | None = None, **kw: Any) -> Path:
    exp_dir = Path(exp_dir)
    out_dir = Path(out) if out is not None else exp_dir / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.md"
    path.write_text(experiment_report_markdown(exp_dir, out_dir, **kw), encoding="utf-8")
    html_report.write_html(path)
    return path


def write_report(path: str | Path, out: str | Path | None = None, *, expected_partitions: int | None = None,
                 strict: bool = False, window: tuple[float, float] | str | None = None, **kw: Any) -> Path:
    """Report for a run directory, an experiment directory or a reference log file.
    `window` ((start, end) or "START:END", s since the run's start) zooms the waterfall;
    `strict`: a malformed line of a log is an error."""
    path = Path(path)
    span = waterfall.parse_window(window) if isinstance(window, str) else window
    if path.is_dir() and (path / "index.csv").exists():
        if span is not None:
            raise ValueError(f"--window zooms a run's waterfall; {path} is an experiment (index.csv)")
        return write_experiment_report(path, out, expected_partitions=expected_partitions, **kw)
    if is_run_dir(path):
        return write_run_report(path, out, expected_partitions, span)
    if path.is_file():
        return write_log_report(path, out, expected_partitions, strict, span)
    raise RunFormatError(path, "neither a run directory (run.json / timeline.csv), an experiment (index.csv) "
                               "nor a log file")
