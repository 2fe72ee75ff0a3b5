"""Per-commit history of `prooflab regress` (asv-style): one figure per metric over commits.

`prooflab regress ... --history results/regress-history/cpu.json` appends one entry per
check (commit, date, host, load, wall-clock mode, every metric's figure and verdict); this
module reads that file and plots each metric in commit order, marking regressions:

    python -m prooflab_analysis.regress_history results/regress-history/cpu.json --out DIR

Prints the written PNG paths; exits 2 with the error on a malformed file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .loaders import RunFormatError  # noqa: E402

HISTORY_COLUMNS = ["entry", "commit", "dirty", "date", "wallclock_mode", "metric", "unit", "kind", "now",
                   "baseline", "change", "ci_low", "ci_high", "verdict"]


def load_history(path: str | Path) -> pd.DataFrame:
    """One row per (entry, metric), entries in file (= append) order."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise RunFormatError(f"{path}: cannot read a regress history: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != "prooflab-regress-history" or not isinstance(
            doc.get("entries"), list):
        raise RunFormatError(f"{path}: not a prooflab regress history (format 'prooflab-regress-history' "
                             "with an 'entries' list)")
    rows = []
    for i, entry in enumerate(doc["entries"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("metrics"), list):
            raise RunFormatError(f"{path}: entry {i} has no 'metrics' list")
        for m in entry["metrics"]:
            if not isinstance(m, dict) or "metric" not in m:
                raise RunFormatError(f"{path}: entry {i} has a metric without a 'metric' name")
            interval = m.get("interval") if isinstance(m.get("interval"), list) else [None, None]
            rows.append({
                "entry": i, "commit": str(entry.get("commit", "")), "dirty": bool(entry.get("dirty", False)),
                "date": entry.get("date", ""), "wallclock_mode": entry.get("wallclock_mode", ""),
                "metric": m["metric"], "unit": m.get("unit", ""), "kind": m.get("kind", ""),
                "now": m.get("now"), "baseline": m.get("baseline"), "change": m.get("change"),
                "ci_low": interval[0], "ci_high": interval[1], "verdict": m.get("verdict", ""),
            })
    frame = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    for col in ("now", "baseline", "change", "ci_low", "ci_high"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    return frame


def plot_metric(history: pd.DataFrame, metric: str) -> plt.Figure:
    """The metric's figure per check in commit order (short hash, '+' when dirty); the
    baseline it was compared with as a dashed line; REGRESSION points in red."""
    sub = history[(history["metric"] == metric) & history["now"].notna()].sort_values("entry")
    if sub.empty:
        raise ValueError(f"metric {metric!r} has no measured figure in the history")
    fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(sub) + 2), 3.2))
    x = list(range(len(sub)))
    ax.plot(x, sub["now"], marker="o", color="tab:blue", label="measured")
    if sub["baseline"].notna().any():
        ax.plot(x, sub["baseline"], linestyle="--", color="grey", label="baseline")
    bad = [i for i, v in enumerate(sub["verdict"]) if v == "REGRESSION"]
    if bad:
        ax.scatter([x[i] for i in bad], sub["now"].iloc[bad], color="tab:red", zorder=3, label="REGRESSION")
    labels = [c[:8] + ("+" if d else "") for c, d in zip(sub["commit"], sub["dirty"])]
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
    unit = sub["unit"].iloc[-1]
    ax.set_ylabel(unit or "value")
    ax.set_title(metric, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def write_plots(path: str | Path, out_dir: str | Path) -> list[Path]:
    """One PNG per metric of the history in out_dir; returns their paths."""
    history = load_history(path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for metric in pd.unique(history.loc[history["now"].notna(), "metric"]):
        fig = plot_metric(history, metric)
        target = out / (re.sub(r"[^A-Za-z0-9._-]+", "_", metric) + ".png")
        fig.savefig(target, dpi=100)
        plt.close(fig)
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m prooflab_analysis.regress_history",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("history", help="history JSON written by prooflab regress --history")
    parser.add_argument("--out", required=True, help="directory for the PNGs")
    args = parser.parse_args(argv)
    try:
        for p in write_plots(args.history, args.out):
            print(p)
    except (RunFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
