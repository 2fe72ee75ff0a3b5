"""What `make test-cpp` shows: readable ctest names and the skip reasons grouped.

The summary is tested on a JUnit file in the exact shape ctest 3.25 writes (testcase status
run / fail / notrun / disabled, GoogleTest's output in system-out); the names on the build
tree's own `ctest -N`, when the release build exists.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("ctest_skip_summary", ROOT / ".ci/ctest_skip_summary.py")
summary = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = summary  # dataclasses look their module up there
_spec.loader.exec_module(summary)


def gtest_output(name: str, skip_lines: list[str] | None = None, fail: bool = False) -> str:
    """GoogleTest 1.12's output for one test run with --gtest_filter=name."""
    suite = name.rsplit(".", 1)[0]
    out = [
        "Running main() from ./googletest/src/gtest_main.cc",
        f"Note: Google Test filter = {name}",
        "[==========] Running 1 test from 1 test suite.",
        "[----------] Global test environment set-up.",
        f"[----------] 1 test from {suite}",
        f"[ RUN      ] {name}",
    ]
    if skip_lines is not None:
        out += ["/src/tests/cpp/gpu_msm_test.cpp:179: Skipped", *skip_lines, f"[  SKIPPED ] {name} (0 ms)"]
    elif fail:
        out += ["/src/tests/cpp/engine_test.cpp:40: Failure", "Expected equality", f"[  FAILED  ] {name} (3 ms)"]
    else:
        out += [f"[       OK ] {name} (12 ms)"]
    out += [f"[----------] 1 test from {suite} (0 ms total)", "", "[==========] 1 test from 1 test suite ran."]
    return "\n".join(out) + "\n"


def junit(cases: list[tuple[str, str, str | None, str | None]]) -> str:
    """ctest's JUnit: (name, status, skipped message or None, system-out or None) per case."""
    body = []
    for name, status, skipped, out in cases:
        body.append(f'\t<testcase name="{name}" classname="{name}" time="0.01" status="{status}">')
        if skipped is not None:
            body.append(f'\t\t<skipped message="{escape(skipped)}"/>')
        if out is not None:
            body.append(f"\t\t<system-out>{escape(out)}</system-out>")
        body.append("\t</testcase>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="(empty)" tests="%d">\n%s\n</testsuite>\n'
        % (len(cases), "\n".join(body))
    )


NO_GPU = "no GPU: cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version"


def test_skips_are_grouped_by_the_gtest_message(tmp_path):
    skipped = {  # name -> message lines as GTEST_SKIP printed them
        "GpuMsm.RandomInputsEverySizeClass": [NO_GPU],
        "GpuMsm.SumSelected": [NO_GPU],
        "Circuits/CudaBackendPhase.EqualsTheCpuBackendsSumsExactly/tiny_0": [NO_GPU],
        "FpX8.MatchesScalar": ["this CPU has no AVX-512 IFMA:", "FpX8 is not used here"],
        "GpuObserve.NvtxNamesRanges": [],
    }
    cases = [(n, "notrun", "SKIP_REGULAR_EXPRESSION_MATCHED", gtest_output(n, lines)) for n, lines in skipped.items()]
    cases += [
        ("EngineTest.EveryPartitionProved", "run", None, gtest_output("EngineTest.EveryPartitionProved")),
        ("EngineTest.Broken", "fail", None, gtest_output("EngineTest.Broken", fail=True)),
        ("CircuitsReport.DISABLED_StatsAndTimings", "disabled", "Disabled", None),
        ("msm_cpu_test_NOT_BUILT", "notrun", "Unable to find executable", None),
    ]
    path = tmp_path / "ctest-junit.xml"
    path.write_text(junit(cases))

    s = summary.summarise(str(path))
    expected = Counter(" ".join(lines) if lines else "(GTEST_SKIP without a message)" for lines in skipped.values())
    expected["Unable to find executable"] += 1
    assert {reason: len(names) for reason, names in s.skipped.items()} == dict(expected)
    assert (s.total, s.passed, s.failed, s.disabled) == (9, 1, 1, ["CircuitsReport.DISABLED_StatsAndTimings"])

    text = summary.render(s).splitlines()
    assert text[0] == "ctest: 9 tests: 1 passed, 1 failed, 6 skipped, 1 disabled"
    # The largest group first, its suites with their counts.
    assert text[1] == f"  skipped 3: {NO_GPU}  [GpuMsm (2), Circuits/CudaBackendPhase (1)]"
    assert "  skipped 1: this CPU has no AVX-512 IFMA: FpX8 is not used here  [FpX8 (1)]" in text
    assert text[-1] == "  disabled 1: CircuitsReport.DISABLED_StatsAndTimings"


def test_many_suites_are_cut_short():
    names = [f"Suite{i}.T{j}" for i in range(6) for j in range(i + 1)]
    assert summary.suites_text(names, shown=2) == "Suite5 (6), Suite4 (5), and 4 more suites"


def test_unreadable_junit_names_the_file(tmp_path):
    bad = tmp_path / "ctest-junit.xml"
    bad.write_text("<testsuite><testcase")
    with pytest.raises(SystemExit, match=re.escape(str(bad))):
        summary.summarise(str(bad))


@pytest.mark.skipif(not (ROOT / "build/CTestTestfile.cmake").exists(), reason="no release build in build/")
@pytest.mark.skipif(shutil.which("ctest") is None, reason="ctest is not on PATH")
def test_ctest_names_are_googletest_names():
    listing = subprocess.run(["ctest", "--test-dir", str(ROOT / "build"), "-N"], capture_output=True, text=True, check=True).stdout
    names = re.findall(r"^\s*Test\s+#\d+: (.*)$", listing, flags=re.M)
    assert len(names) > 100, listing[-2000:]
    # Suite.Test, Prefix/Suite.Test/param, Suite/Type.Test: no printed parameter bytes, no
    # "# TypeParam = ..." comments, nothing a --gtest_filter would not take as it is. Tests
    # that are not GoogleTest cases (add_test in tests/CMakeLists.txt, e.g. the fuzz smoke run)
    # are plain identifiers.
    gtest = r"[A-Za-z0-9_]+(/[A-Za-z0-9_]+)?\.[A-Za-z0-9_]+(/[A-Za-z0-9_]+)?( \(Disabled\))?"
    unreadable = [n for n in names if not (re.fullmatch(gtest, n) or re.fullmatch(r"[a-z0-9_]+", n))]
    assert unreadable == []
