#!/usr/bin/env python3
"""Why ctest skipped what it skipped: one line per reason, read from ctest's JUnit file.

`make test-cpp` runs ctest with `--output-junit` and then this script, so that a run without
a GPU says "skipped 58: no GPU: …" once instead of leaving 58 silent "Skipped" lines. The
reason is GoogleTest's own skip message (the text after `file:line: Skipped`, up to
`[  SKIPPED ]`); a test ctest did not run for another reason keeps ctest's message.

usage: ctest_skip_summary.py JUNIT_XML
"""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field

GTEST_SKIPPED_AT = ": Skipped"
GTEST_SKIPPED_END = "[  SKIPPED ]"


@dataclass
class Summary:
    total: int = 0
    passed: int = 0
    failed: int = 0
    disabled: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def gtest_skip_reason(output: str) -> str | None:
    """The message a GTEST_SKIP() printed, lines joined by ' '; None if there is none."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(GTEST_SKIPPED_AT):
            reason = []
            for text in lines[i + 1 :]:
                if text.startswith(GTEST_SKIPPED_END):
                    break
                if text.strip():
                    reason.append(text.strip())
            return " ".join(reason) or "(GTEST_SKIP without a message)"
    return None


def summarise(junit_path: str) -> Summary:
    try:
        root = ET.parse(junit_path).getroot()
    except (OSError, ET.ParseError) as e:
        raise SystemExit(f"ctest_skip_summary: cannot read {junit_path}: {e}") from None
    s = Summary()
    for case in root.iter("testcase"):
        s.total += 1
        name = case.get("name", "?")
        status = case.get("status", "")
        if status == "run":
            s.passed += 1
        elif status == "fail":
            s.failed += 1
        elif status == "disabled":
            s.disabled.append(name)
        else:  # notrun: SKIP_REGULAR_EXPRESSION matched, or ctest could not start it
            out = case.findtext("system-out") or ""
            reason = gtest_skip_reason(out)
            if reason is None:
                skipped = case.find("skipped")
                reason = (skipped.get("message") if skipped is not None else None) or status
            s.skipped[reason].append(name)
    return s


def suites_text(names: list[str], shown: int = 4) -> str:
    """'GpuMsm (9), CudaBackend (4), … and 3 more suites' from full test names."""
    counts = Counter(n.rsplit(".", 1)[0] for n in names)
    parts = [f"{suite} ({k})" for suite, k in counts.most_common(shown)]
    if len(counts) > shown:
        parts.append(f"and {len(counts) - shown} more suites")
    return ", ".join(parts)


def render(s: Summary) -> str:
    skipped = sum(len(v) for v in s.skipped.values())
    head = f"ctest: {s.total} tests: {s.passed} passed, {s.failed} failed, {skipped} skipped"
    if s.disabled:
        head += f", {len(s.disabled)} disabled"
    lines = [head]
    for reason, names in sorted(s.skipped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"  skipped {len(names)}: {reason}  [{suites_text(names)}]")
    if s.disabled:
        lines.append(f"  disabled {len(s.disabled)}: {', '.join(sorted(s.disabled))}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print(render(summarise(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
