"""Load a run directory or an experiment index into tidy DataFrames.

A run directory (docs/run-directory.md) becomes a `Run`: one frame per CSV file and the
JSON metadata as dicts. Missing optional files give empty frames with the documented
columns, so every downstream function can rely on the columns being there. A file
that is present but malformed raises `RunFormatError` naming the file, the line and
its content: a silently skipped row is how a 9-of-10-partition proof gets averaged in.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import nodes, schema


# An error quotes at most this much of the line it names (a garbled 1 MB line must not
# become a 1 MB message).
QUOTE_LIMIT = 200


def quote(text: str) -> str:
    """`text` cut to QUOTE_LIMIT characters, saying how much was left out."""
    if len(text) <= QUOTE_LIMIT:
        return text
    return f"{text[:QUOTE_LIMIT]}... ({len(text) - QUOTE_LIMIT} more characters)"


class RunFormatError(ValueError):
    """A run-directory or log file does not follow the documented format."""

    def __init__(self, path: str | Path, message: str, line: int | None = None, content: str | None = None):
        self.path = str(path)
        self.line = line
        self.content = content
        self.reason = message
        where = self.path if line is None else f"{self.path}:{line}"
        text = f"{where}: {message}"
        if content is not None:
            text += f"\n  line {line}: {quote(content)!r}"
        super().__init__(text)


@dataclass
class Run:
    """Everything recorded about one run, as tidy frames.

    `meta` is run.json (or what a log importer could reconstruct), `summary` is
    summary.json; `extras` holds source-specific frames (for example the reference
    log's CUZK_TIMING values and per-proof completion lines); `notes` lists what the
    loader had to do that a reader should know (a dropped partial last line).
    """

    path: Path | None
    meta: dict[str, Any]
    timeline: pd.DataFrame
    stages: pd.DataFrame
    cupti: pd.DataFrame
    counters: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        rid = self.meta.get("run_id")
        if rid:
            return str(rid)
        return self.path.name if self.path is not None else "run"

    @property
    def config(self) -> dict[str, Any]:
        cfg = self.meta.get("config")
        return cfg if isinstance(cfg, dict) else {}

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "unknown"))

    @property
    def expected_partitions(self) -> int | None:
        value = self.config.get("partitions")
        if value is None:
            return None
        try:
            return int(value)
        except (TypeError, ValueError):
            raise RunFormatError(
                self.path / "run.json" if self.path else "run.json",
                f"config.partitions must be an integer, got {value!r}",
            ) from None

    @property
    def gpu_span(self) -> str:
        """What GPU_START..GPU_END covers: 'lock_held' (prooflab) or 'reference'."""
        return str(self.meta.get("gpu_span", "lock_held"))


# --------------------------------------------------------------------------- CSV

_EVENT_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_INT_RE = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class _Col:
    kind: str  # "int", "float", "str"
    required: bool = False  # empty value is an error
    allowed: frozenset[str] | None = None
    pattern: re.Pattern[str] | None = None
    min_value: float | None = None


_TIMELINE_SPEC: dict[str, _Col] = {
    "t_us": _Col("int", required=True, min_value=0),
    "event": _Col("str", required=True, pattern=_EVENT_RE),
    "job": _Col("int", min_value=0),
    "partition": _Col("int", min_value=0),
    "worker": _Col("int", min_value=0),
    "device": _Col("int", min_value=0),
    "detail": _Col("str"),
}

_STAGES_SPEC: dict[str, _Col] = {
    "job": _Col("int", required=True, min_value=0),
    "partition": _Col("int", required=True, min_value=0),
    "worker": _Col("int", min_value=0),
    "device": _Col("int", min_value=0),
    "status": _Col("str", required=True, allowed=schema.STAGE_STATUS_VALUES),
    "prestage": _Col("str", allowed=schema.PRESTAGE_VALUES),
    **{c: _Col("int", min_value=0) for c in schema.STAGES_COLUMNS if c.endswith(("_us", "_bytes"))},
    **{c: _Col("int", min_value=0) for c in schema.STAGES_OPTIONAL_COLUMNS},
}

_CUPTI_SPEC: dict[str, _Col] = {
    "kind": _Col("str", required=True, allowed=schema.CUPTI_KINDS),
    "device": _Col("int", required=True, min_value=0),
    "stream": _Col("int", min_value=0),
    "name": _Col("str"),
    "start_us": _Col("float", required=True),
    "end_us": _Col("float", required=True),
    "bytes": _Col("int", min_value=0),
    "correlation": _Col("int"),
}

_COUNTERS_SPEC: dict[str, _Col] = {
    "t_us": _Col("int", required=True, min_value=0),
    "source": _Col("str", required=True),
    "metric": _Col("str", required=True),
    "value": _Col("float", required=True),
    "unit": _Col("str"),
}


class _BadValue(Exception):
    def __init__(self, row: int, message: str):
        self.row = row
        self.message = message


def _split_lines(path: Path) -> tuple[list[str], bool]:
    """Lines without terminators, and whether the file ended with a newline."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raw = path.read_bytes()
        line = raw[: exc.start].count(b"\n") + 1
        raise RunFormatError(path, f"not UTF-8 text ({exc.reason})", line=line) from None
    ends_with_newline = text.endswith("\n")
    lines = text.split("\n")
    if ends_with_newline:
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines], ends_with_newline


def _field_count(line: str) -> int:
    if '"' not in line:
        return line.count(",") + 1
    return len(next(csv.reader([line])))


def _first_row(mask: pd.Series) -> int:
    return int(np.flatnonzero(mask.to_numpy(dtype=bool))[0])


def _rows_failing(raw: pd.Series, candidates: pd.Series, pattern: re.Pattern[str]) -> pd.Series:
    """Rows among `candidates` whose text does not match `pattern`. The regex runs on the
    distinct values only: a million-row column has few distinct events or indices."""
    bad_values = [v for v in pd.unique(raw[candidates]) if not pattern.match(v)]
    if not bad_values:
        return pd.Series(False, index=raw.index)
    return candidates & raw.isin(bad_values)


def _convert_column(col: str, raw: pd.Series, rule: _Col | None) -> pd.Series:
    """Typed copy of one all-string column; raises _BadValue at its first bad row."""
    if rule is None:  # documented extension columns we do not type
        return raw.astype(object)
    empty = raw == ""
    if rule.required and bool(empty.any()):
        raise _BadValue(_first_row(empty), f"column {col!r} must not be empty")
    if rule.kind == "str":
        if rule.allowed is not None:
            bad = ~raw.isin(rule.allowed) & ~(empty & (not rule.required))
            if bool(bad.any()):
                row = _first_row(bad)
                raise _BadValue(
                    row,
                    f"column {col!r} value {raw.iloc[row]!r} is not one of {sorted(v for v in rule.allowed if v)}",
                )
        if rule.pattern is not None:
            bad = _rows_failing(raw, ~empty, rule.pattern)
            if bool(bad.any()):
                row = _first_row(bad)
                raise _BadValue(row, f"column {col!r} value {raw.iloc[row]!r} does not match {rule.pattern.pattern}")
        return raw.astype(object)
    values = pd.to_numeric(raw.where(~empty, None), errors="coerce")
    bad = values.isna() & ~empty
    if rule.kind == "int" and values.dtype.kind not in "iu":
        # to_numeric gives an integer column only when every value was an integer
        # literal; otherwise reject "1.5", "1.0", "1e3" explicitly.
        bad |= _rows_failing(raw, ~empty & values.notna(), _INT_RE)
    if bool(bad.any()):
        row = _first_row(bad)
        what = "an integer" if rule.kind == "int" else "a number"
        raise _BadValue(row, f"column {col!r} value {raw.iloc[row]!r} is not {what}")
    if rule.kind == "float":
        finite = values.isna() | np.isfinite(values.to_numpy(dtype="float64", na_value=0.0))
        if not bool(finite.all()):
            row = _first_row(~finite)
            raise _BadValue(row, f"column {col!r} value {raw.iloc[row]!r} is not finite")
    if rule.min_value is not None:
        below = (values < rule.min_value).fillna(False)
        if bool(below.any()):
            row = _first_row(below)
            raise _BadValue(row, f"column {col!r} value {raw.iloc[row]!r} is below {rule.min_value:g}")
    if rule.kind == "int":
        return values.astype("int64") if rule.required else values.astype(schema.INT_DTYPE)
    return values.astype("float64")


def _convert(frame: pd.DataFrame, spec: dict[str, _Col]) -> pd.DataFrame:
    """Typed copy of an all-string frame; raises _BadValue at the first bad row."""
    out = {col: _convert_column(col, frame[col].astype(str), spec.get(col)) for col in frame.columns}
    return pd.DataFrame(out, index=frame.index)


# ------------------------------------------------------------ fast path (optional)
#
# When the `prooflab` module (built with the C++ harness into build/python) is importable,
# the CSV files are split and their integer columns parsed in C++. The fast reader accepts
# only the plain form of the format (no quotes, complete lines, integers within 2^53) and
# declines everything else, which then goes through the pandas path below: the frames are
# identical either way, and so are the errors, which only the pandas path raises.
# PROOFLAB_FAST_LOADER=0 in the environment, or use_fast_loader(False), turns it off, and
# with it the module's other fast path, the reference-log line scanner (reflog_chunks).

_fast_choice: bool | None = None  # None: follow PROOFLAB_FAST_LOADER (default on)
_fast_module_cache: list[Any] = []


def use_fast_loader(enabled: bool | None = True) -> None:
    """Use the `prooflab` module's C++ readers (the CSV reader, the reference-log scanner)
    when it is importable (True), never (False), or as the environment says (None: on unless
    PROOFLAB_FAST_LOADER=0). Whether `import prooflab` works is looked up again after each
    call, so a notebook can put build/python on sys.path late and then call use_fast_loader()."""
    global _fast_choice
    _fast_choice = enabled
    _fast_module_cache.clear()


def fast_loader_active() -> bool:
    """Whether CSV files are read through the `prooflab` module right now."""
    return _fast_reader() is not None


def fast_module() -> Any:
    """The `prooflab` C++ module when it is importable and the fast readers are on, else None."""
    choice = _fast_choice
    if choice is None:
        choice = os.environ.get("PROOFLAB_FAST_LOADER", "1").strip().lower() not in ("0", "off", "false", "no")
    if not choice:
        return None
    if not _fast_module_cache:
        try:
            import prooflab  # the C++ module; absent in a Python-only checkout

            _fast_module_cache.append(prooflab)
        except ImportError:
            _fast_module_cache.append(None)
    return _fast_module_cache[0]


def _fast_reader() -> Callable[..., Any] | None:
    return getattr(fast_module(), "read_csv_columns", None)


def _fast_int_column(col: str, values: Any, rule: _Col) -> pd.Series:
    data = np.ma.getdata(values).astype("int64", copy=False)
    missing = np.ma.getmaskarray(values)
    if rule.required and bool(missing.any()):
        raise _BadValue(_first_row(pd.Series(missing)), f"column {col!r} must not be empty")
    if rule.min_value is not None and bool((data[~missing] < rule.min_value).any()):
        raise _BadValue(_first_row(pd.Series(~missing & (data < rule.min_value))), f"column {col!r} is below minimum")
    if rule.required:
        return pd.Series(data, dtype="int64")
    return pd.Series(pd.arrays.IntegerArray(data.copy(), missing.copy()))


def _read_fast(
    path: Path, required_columns: list[str], spec: dict[str, _Col], check: Callable[[pd.DataFrame], None] | None
) -> pd.DataFrame | None:
    """The typed frame from the C++ reader, or None where the pandas path must read it."""
    reader = _fast_reader()
    if reader is None:
        return None
    try:
        columns = reader(str(path), [c for c, rule in spec.items() if rule.kind == "int"])
    except ValueError:  # prooflab.CsvDeclined: not the plain form; also undecodable text
        return None
    header = list(columns)
    if any(not c for c in header) or any(c not in header for c in required_columns):
        return None
    try:
        out = {}
        for col, values in columns.items():
            rule = spec.get(col)
            if rule is not None and rule.kind == "int":
                out[col] = _fast_int_column(col, values, rule)
            else:
                out[col] = _convert_column(col, pd.Series(values, dtype=object), rule)
        frame = pd.DataFrame(out)
        if check is not None:
            check(frame)
    except _BadValue:
        return None
    return frame


def read_csv_strict(
    path: str | Path,
    required_columns: list[str],
    spec: dict[str, _Col],
    *,
    optional_columns: tuple[str, ...] | list[str] = (),
    allow_partial_tail: bool = False,
    check: Callable[[pd.DataFrame], None] | None = None,
    notes: list[str] | None = None,
) -> pd.DataFrame:
    """Read one of the run CSVs, validating the header, every field count and value.

    Embedded newlines inside quoted fields are not part of the format, so line numbers
    in errors are exact. `allow_partial_tail` drops a last line that has no newline
    terminator and does not parse (a run killed mid-write), recording it in `notes`.
    """
    path = Path(path)
    _require_file(path)
    typed = _read_fast(path, required_columns, spec, check)
    if typed is None:
        typed = _read_pandas(path, required_columns, spec, allow_partial_tail=allow_partial_tail, check=check,
                             notes=notes)
    for col in optional_columns:
        if col not in typed.columns:
            kind = spec[col].kind if col in spec else "str"
            typed[col] = pd.Series(pd.NA, index=typed.index, dtype=schema.INT_DTYPE if kind == "int" else object)
    ordered = [c for c in required_columns + list(optional_columns)] + [
        c for c in typed.columns if c not in required_columns and c not in optional_columns
    ]
    return typed[ordered].reset_index(drop=True)


def _read_pandas(
    path: Path,
    required_columns: list[str],
    spec: dict[str, _Col],
    *,
    allow_partial_tail: bool,
    check: Callable[[pd.DataFrame], None] | None,
    notes: list[str] | None,
) -> pd.DataFrame:
    lines, ends_with_newline = _split_lines(path)
    if not lines:
        raise RunFormatError(path, f"empty file: expected header {','.join(required_columns)}")
    header = next(csv.reader([lines[0]]))
    missing = [c for c in required_columns if c not in header]
    if missing:
        raise RunFormatError(
            path,
            f"header lacks column(s) {missing}; expected {','.join(required_columns)}",
            line=1,
            content=lines[0],
        )
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise RunFormatError(path, f"header repeats column(s) {dup}", line=1, content=lines[0])
    n_fields = len(header)

    body = lines[1:]
    partial_tail = allow_partial_tail and not ends_with_newline and len(body) > 0

    def drop_tail(reason: str) -> None:
        if notes is not None:
            notes.append(f"{path.name}: dropped partial last line {len(lines)} ({reason}): {lines[-1]!r}")
        body.pop()

    for i, line in enumerate(body):
        if line == "":
            raise RunFormatError(path, "blank line inside the data", line=i + 2, content=line)
        count = _field_count(line)
        if count != n_fields:
            if partial_tail and i == len(body) - 1:
                drop_tail(f"{count} fields")
                partial_tail = False
                break
            raise RunFormatError(path, f"expected {n_fields} fields, found {count}", line=i + 2, content=line)

    text = "\n".join([lines[0]] + body) + "\n"
    frame = pd.read_csv(
        io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False, engine="c"
    )
    for attempt in range(2):
        try:
            typed = _convert(frame, spec)
            if check is not None:
                check(typed)
            break
        except _BadValue as bad:
            if attempt == 0 and partial_tail and bad.row == len(body) - 1:
                drop_tail(bad.message)
                frame = frame.iloc[:-1]
                continue
            raise RunFormatError(path, bad.message, line=bad.row + 2, content=body[bad.row]) from None
    return typed


def _check_cupti(frame: pd.DataFrame) -> None:
    bad = frame["end_us"] < frame["start_us"]
    if bool(bad.any()):
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise _BadValue(row, "end_us is before start_us")


def read_timeline(path: str | Path, **kw: Any) -> pd.DataFrame:
    frame = read_csv_strict(path, schema.TIMELINE_COLUMNS, _TIMELINE_SPEC, **kw)
    return frame


def read_stages(path: str | Path, **kw: Any) -> pd.DataFrame:
    return read_csv_strict(
        path, schema.STAGES_COLUMNS, _STAGES_SPEC, optional_columns=schema.STAGES_OPTIONAL_COLUMNS, **kw
    )


def read_cupti(path: str | Path, **kw: Any) -> pd.DataFrame:
    return read_csv_strict(path, schema.CUPTI_COLUMNS, _CUPTI_SPEC, check=_check_cupti, **kw)


def read_counters(path: str | Path, **kw: Any) -> pd.DataFrame:
    return read_csv_strict(path, schema.COUNTERS_COLUMNS, _COUNTERS_SPEC, **kw)


# -------------------------------------------------------------------------- JSON


def _require_file(path: Path) -> None:
    """A directory where a run file belongs is a format error, not an OSError traceback."""
    if path.is_dir():
        raise RunFormatError(path, "is a directory, not a file")


def read_json(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    _require_file(path)
    text = path.read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        content = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else None
        raise RunFormatError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, content=content) from None
    if not isinstance(value, dict):
        raise RunFormatError(path, f"top level must be a JSON object, got {type(value).__name__}")
    return value


def _check_run_meta(path: Path, meta: dict[str, Any]) -> None:
    status = meta.get("status")
    if status is not None and status not in schema.RUN_STATUSES:
        raise RunFormatError(path, f"status {status!r} is not one of {sorted(schema.RUN_STATUSES)}")
    cfg = meta.get("config")
    if cfg is not None and not isinstance(cfg, dict):
        raise RunFormatError(path, f"config must be an object, got {type(cfg).__name__}")


# ------------------------------------------------------------------------ public


RUN_FILES = ("run.json", "timeline.csv", "stages.csv", "cupti.csv", "counters.csv", "summary.json")


def is_run_dir(path: str | Path) -> bool:
    path = Path(path)
    return path.is_dir() and any((path / f).exists() for f in ("run.json", "timeline.csv"))


def load_run(path: str | Path) -> Run:
    """Load a run directory. Every file is optional except that one of run.json and
    timeline.csv must exist; absent files give empty frames with the documented columns.

    Rows of a run that did not finish (`status` other than complete) may end in a line
    cut off mid-write; that line is dropped and the drop is recorded in `Run.notes`.
    """
    path = Path(path)
    if not path.is_dir():
        raise RunFormatError(path, "not a directory")
    if not is_run_dir(path):
        raise RunFormatError(path, "not a run directory: neither run.json nor timeline.csv is present")
    meta: dict[str, Any] = {}
    if (path / "run.json").exists():
        meta = read_json(path / "run.json")
        _check_run_meta(path / "run.json", meta)
    unfinished = meta.get("status", "running") != "complete"
    notes: list[str] = []
    kw = {"allow_partial_tail": unfinished, "notes": notes}

    def optional(name: str, reader: Callable[..., pd.DataFrame], empty: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        file = path / name
        return reader(file, **kw) if file.exists() else empty()

    timeline = optional("timeline.csv", read_timeline, schema.empty_timeline)
    stages = optional("stages.csv", read_stages, schema.empty_stages)
    cupti = optional("cupti.csv", read_cupti, schema.empty_cupti)
    counters = optional("counters.csv", read_counters, schema.empty_counters)
    summary = read_json(path / "summary.json") if (path / "summary.json").exists() else {}
    return Run(
        path=path,
        meta=meta,
        timeline=timeline,
        stages=stages,
        cupti=cupti,
        counters=counters,
        summary=summary,
        notes=notes,
    )


def flatten(mapping: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{'wall_s': {'avg': 1}} -> {'wall_s.avg': 1}; lists become JSON text."""
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        elif isinstance(value, (list, tuple)):
            out[name] = json.dumps(value)
        else:
            out[name] = value
    return out


def _node_of(run_path: Path) -> str | None:
    """The Slurm node a run directory records; None without one. A damaged run.json is
    load_run's to report (experiment_metrics), not the index's."""
    try:
        return nodes.run_node(read_json(run_path / "run.json")) if (run_path / "run.json").exists() else None
    except RunFormatError:
        return None


def load_experiment(path: str | Path) -> pd.DataFrame:
    """Read `<experiment>/index.csv` and join each run's summary.json.

    Returns one row per run: the index columns, the axis columns, `run_path` (absolute),
    `node` (the Slurm node from run.json, missing for a run outside Slurm; nodes.py) and
    `summary.<key>` columns (nested keys joined with '.'); runs without a summary
    get NaN there. The experiment directory is kept in `frame.attrs['experiment_dir']`, the
    axis column names in `frame.attrs['axes']`.
    """
    path = Path(path)
    index_file = path / "index.csv" if path.is_dir() else path
    exp_dir = index_file.parent
    if not index_file.exists():
        raise RunFormatError(index_file, "experiment index not found")
    spec = {
        "experiment": _Col("str", required=True),
        "cell": _Col("str", required=True),
        "variant": _Col("str", required=True),
        "rep": _Col("int", required=True, min_value=0),
        "order": _Col("int", required=True, min_value=0),
        "run_dir": _Col("str", required=True),
        "status": _Col("str", required=True, allowed=schema.INDEX_STATUSES),
    }
    frame = read_csv_strict(index_file, schema.INDEX_COLUMNS, spec)
    # Axis columns stay strings in the file; give them numbers where every value is one.
    axes = list(frame.columns[len(schema.INDEX_COLUMNS) :])
    for col in axes:
        numeric = pd.to_numeric(frame[col], errors="coerce")
        if not bool(numeric.isna().any()):
            frame[col] = numeric
    frame["run_path"] = [str((exp_dir / rd).resolve()) for rd in frame["run_dir"]]
    frame["node"] = [_node_of(Path(p)) for p in frame["run_path"]]
    summaries = []
    for run_path in frame["run_path"]:
        file = Path(run_path) / "summary.json"
        summaries.append(flatten(read_json(file), "summary.") if file.exists() else {})
    summary_frame = pd.DataFrame(summaries, index=frame.index)
    frame = pd.concat([frame, summary_frame], axis=1)
    frame.attrs["experiment_dir"] = str(exp_dir.resolve())
    frame.attrs["axes"] = axes
    return frame


def stage_long(stages: pd.DataFrame) -> pd.DataFrame:
    """Melt stages.csv into (job, partition, stage, value_us); stage names lose `_us`.

    Failed partitions are left out: their durations describe an aborted path.
    """
    if stages.empty:
        return schema.empty_stage_long()
    ok = stages[stages["status"].astype(str) == "ok"] if "status" in stages else stages
    cols = [c for c in schema.STAGE_DURATION_COLUMNS if c in ok.columns]
    long = ok.melt(id_vars=["job", "partition"], value_vars=cols, var_name="stage", value_name="value_us")
    long = long[long["value_us"].notna()].copy()
    long["stage"] = long["stage"].str.removesuffix("_us").astype(object)
    long["value_us"] = long["value_us"].astype("float64")
    long["job"] = long["job"].astype(schema.INT_DTYPE)
    long["partition"] = long["partition"].astype(schema.INT_DTYPE)
    return long.reset_index(drop=True)

