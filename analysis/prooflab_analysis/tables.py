"""Markdown rendering of result tables (no extra dependency: pandas' to_markdown needs
tabulate). Numbers are formatted per column; NaN / NA print as blank cells, because a
blank is honest where a made-up 0 is not."""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import pandas as pd

Formatter = Callable[[Any], str]


def fmt_float(digits: int) -> Formatter:
    return lambda v: f"{float(v):.{digits}f}"


def fmt_percent(digits: int = 1) -> Formatter:
    return lambda v: f"{100.0 * float(v):.{digits}f} %"


def fmt_signed_percent(digits: int = 1) -> Formatter:
    return lambda v: f"{100.0 * float(v):+.{digits}f} %"


def fmt_bytes(value: Any) -> str:
    """Binary units, three significant figures: 512 B, 1.5 MiB, 400 GiB."""
    v, units = float(value), ("B", "KiB", "MiB", "GiB", "TiB")
    i = 0
    while abs(v) >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    return f"{v:.0f} {units[i]}" if i == 0 or abs(v) >= 100 else f"{v:.3g} {units[i]}"


def _is_blank(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _cell(value: Any, formatter: Formatter | None) -> str:
    if _is_blank(value):
        return ""
    text = formatter(value) if formatter is not None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame, formats: Mapping[str, Formatter] | None = None,
                   headers: Mapping[str, str] | None = None) -> str:
    """GitHub-flavoured markdown table of `frame` (all columns, in order)."""
    formats = formats or {}
    headers = headers or {}
    cols = list(frame.columns)
    head = "| " + " | ".join(headers.get(c, c) for c in cols) + " |"
    rule = "|" + "|".join("---" for _ in cols) + "|"
    lines = [head, rule]
    for row in frame.itertuples(index=False):
        cells = [_cell(v, formats.get(c)) for c, v in zip(cols, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
