"""prooflab analysis: load run directories and reference logs, check their integrity,
and turn them into waterfalls, utilisation and gap numbers, sweep tables and A/B verdicts.

The run-directory format is specified in docs/run-directory.md; the analysis knows
nothing about the engine beyond it.
"""

from .abtest import Comparison, ab_table, compare
from .integrity import IntegrityReport, check_run, check_timeline
from .loaders import Run, RunFormatError, load_experiment, load_run
from .metrics import experiment_metrics, run_metrics
from .reflog import load_reference_log, parse_reference_log
from .report import write_report
from .sweep import sweep_table
from .figures import save_figure
from .waterfall import run_waterfall, waterfall_figure

__all__ = [
    "Comparison",
    "IntegrityReport",
    "Run",
    "RunFormatError",
    "ab_table",
    "check_run",
    "check_timeline",
    "compare",
    "experiment_metrics",
    "load_experiment",
    "load_reference_log",
    "load_run",
    "parse_reference_log",
    "run_metrics",
    "run_waterfall",
    "save_figure",
    "sweep_table",
    "waterfall_figure",
    "write_report",
]

__version__ = "0.1.0"
