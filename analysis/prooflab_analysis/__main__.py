"""Command line: `python -m prooflab_analysis report PATH [--out DIR] [--window START:END]`.

PATH is a run directory, an experiment directory (index.csv) or a reference-format log.
Prints the path of the written report.md; exits 2 with the error on malformed input.
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
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
