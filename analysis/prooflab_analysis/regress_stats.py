"""Wall-clock statistics for `prooflab regress`: abtest.compare over JSON.

The C++ command line measures; the statistics (percentile bootstrap CI of the relative
change, Mann-Whitney U, minimum effect, verdicts) live once, in stats.py and abtest.py, and this module
only moves numbers in and out:

    python -m prooflab_analysis.regress_stats < request.json > response.json

request:  {"comparisons": [{"metric": str, "baseline": [float], "current": [float],
                            "higher_is_better": bool, "min_effect": float,
                            "statistic": "mean" | "median", "seed": int (optional)}]}
response: {"results": [abtest.Comparison as an object, NaN as null]}

Exit status 2 with the error on stderr when the request is malformed.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict
from typing import Any

from .abtest import compare


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def run_request(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one request (see the module docstring)."""
    if not isinstance(request, dict) or not isinstance(request.get("comparisons"), list):
        raise ValueError('request must be an object with a "comparisons" list')
    results = []
    for i, c in enumerate(request["comparisons"]):
        for key in ("metric", "baseline", "current", "higher_is_better", "min_effect"):
            if key not in c:
                raise ValueError(f"comparison {i} lacks {key!r}")
        cmp = compare(
            [float(x) for x in c["baseline"]],
            [float(x) for x in c["current"]],
            metric=str(c["metric"]),
            higher_is_better=bool(c["higher_is_better"]),
            min_effect=float(c["min_effect"]),
            statistic=str(c.get("statistic", "mean")),
            seed=int(c.get("seed", 0)),
        )
        results.append({k: _clean(v) for k, v in asdict(cmp).items()})
    return {"results": results}


def main() -> int:
    try:
        response = run_request(json.load(sys.stdin))
    except (ValueError, TypeError, json.JSONDecodeError) as exc:
        print(f"regress_stats: error: {exc}", file=sys.stderr)
        return 2
    json.dump(response, sys.stdout, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
