"""Command line: `python -m prooflab_analysis report PATH [--out DIR] [--window START:END]`
and `python -m prooflab_analysis predict RUN_OR_LOG [--set k=v ...] [--axes k=v1,v2 ...]`.

report: PATH is a run directory, an experiment directory (index.csv) or a reference-format
log; prints the path of the written report.md. predict: the pipeline model (docs/model.md)
calibrated on a run or a log, its predictions as a table. Both exit 2 with the error on
malformed input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .loaders import RunFormatError
from .report import write_report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m prooflab_analysis", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="write report.md and figures for a run, an experiment or a log")
    rep.add_argument("path", help="run directory, experiment directory or reference log file")
    rep.add_argument("--out", help="output directory (default: <path>/report, or <log>-report beside a log)")
    rep.add_argument("--partitions", type=int, help="expected partitions per proof (default: run.json config)")
    rep.add_argument("--strict", action="store_true", help="a malformed line of a log is an error (default: skip and count it)")
    rep.add_argument("--baseline", default="baseline", help="baseline variant for A/B tables (default: baseline)")
    rep.add_argument("--min-effect", type=float, default=0.02, help="minimum relative effect for A/B (default 0.02)")
    rep.add_argument("--window", metavar="START:END",
                     help="time window of the waterfall, s since the run's start (runs and logs; e.g. 120:180)")
    pre = sub.add_parser("predict", help="predict throughput, latency, utilisation and memory for other settings")
    pre.add_argument("path", help="run directory or reference log to calibrate on")
    pre.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                     help="a knob of every predicted setting (repeatable)")
    pre.add_argument("--axes", action="append", default=[], metavar="KNOB=V1,V2",
                     help="an axis of settings to predict (repeatable: the cartesian product)")
    pre.add_argument("--waterfall", metavar="OUT", help="write the predicted waterfall(s): OUT.png/.svg (OUT-<k> per setting)")
    pre.add_argument("--runs", metavar="DIR", help="write each predicted run as a run directory under DIR")
    pre.add_argument("--bandwidth-run", metavar="RUN",
                     help="the same workload at another concurrency: fits the memory-bandwidth slowdown")
    pre.add_argument("--reps", type=int, default=3, help="simulations per setting (default 3)")
    pre.add_argument("--seed", type=int, default=0, help="seed of the first simulation (default 0)")
    pre.add_argument("--fit", choices=["empirical", "lognormal"], default="empirical",
                     help="stage distributions: the run's values replayed (shuffled), or lognormal fits")
    pre.add_argument("--cores", type=int, help="the host's cores (default: run.json host.cores; needed for a log)")
    pre.add_argument("--threads", choices=["auto", "measured", "fitted", "table"], default="auto",
                     help="pool stages' effective threads: measured (the run's per-pool CPU time), fitted (from its "
                          "timeline), auto (measured where recorded, else fitted; the default) or the pools' sizes")
    val = sub.add_parser("validate-model", help="calibrate on one arm of a measured experiment, predict all, report errors")
    val.add_argument("experiment", help="experiment directory (index.csv)")
    val.add_argument("--calibrate", required=True, metavar="CELL/VARIANT", help="the arm to calibrate on (its repetitions pooled)")
    val.add_argument("--bandwidth", metavar="CELL/VARIANT", help="an arm at another concurrency (fits beta)")
    val.add_argument("--reps", type=int, default=3,
                     help="simulations per arm (default 3; a multiple of the calibration arm's runs replays each alike)")
    val.add_argument("--threads", choices=["auto", "measured", "fitted", "table"], default="auto",
                     help="pool stages' effective threads of the calibration runs: measured (per-pool CPU time), "
                          "fitted (timeline), auto (measured where recorded, else fitted; the default) or the pools' sizes")
    val.add_argument("--out", metavar="FILE", help="also write the markdown table to FILE")
    args = parser.parse_args(argv)
    if args.command == "predict":
        return _predict(args)
    if args.command == "validate-model":
        return _validate(args)
    try:
        kw = {}
        if args.baseline != "baseline" or args.min_effect != 0.02:
            kw = {"baseline": args.baseline, "min_effect": args.min_effect}
        path = write_report(args.path, args.out, expected_partitions=args.partitions, strict=args.strict,
                            window=args.window, **kw)
    except (RunFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a directory where a file belongs, a file that cannot be read
        print(f"error: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    print(path)
    return 0


def _predict(args: argparse.Namespace) -> int:
    from .model.predict import predict_command

    try:
        print(predict_command(args.path, args.sets, args.axes, waterfall=args.waterfall, runs_dir=args.runs,
                              bandwidth_run=args.bandwidth_run, reps=args.reps, seed=args.seed, fit=args.fit,
                              threads=args.threads, cores=args.cores))
    except (RunFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .model.validation import validate, validation_markdown

    try:
        text = validation_markdown(validate(args.experiment, args.calibrate, args.bandwidth, reps=args.reps,
                                                 threads=args.threads))
    except (RunFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
