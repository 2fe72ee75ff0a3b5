"""Writing figures: every figure of a report is a 200 dpi PNG and an SVG whose text stays
text (svg.fonttype 'none': searchable, selectable, small), whatever the caller's rcParams."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

DPI = 200


def save_figure(fig: Figure, stem: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write `<stem>.<fmt>` for each format; returns the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    with plt.rc_context({"svg.fonttype": "none"}):
        for fmt in formats:
            path = stem.with_suffix(f".{fmt}")
            fig.savefig(path, format=fmt, dpi=DPI)
            paths.append(path)
    return paths
