"""`prooflab --version` names the commit, build type, compiler, CUDA and Python state of the
binary `make test` built (build/bin/prooflab; PROOFLAB_BIN overrides it), each checked
against what git and the build's CMakeCache.txt say independently."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()
CACHE = BIN.parent.parent / "CMakeCache.txt"

pytestmark = pytest.mark.skipif(not BIN.exists() or not CACHE.exists(),
                                reason=f"{BIN} or its CMakeCache.txt is missing (make build builds it)")


def cache_value(name: str) -> str:
    m = re.search(rf"^{name}:[A-Z]+=(.*)$", CACHE.read_text(), flags=re.M)
    return m.group(1) if m else ""


def version_lines() -> dict[str, str]:
    out = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert re.fullmatch(r"prooflab \d+\.\d+\.\d+", lines[0]), out
    return dict(re.split(r"\s+", line, maxsplit=1) for line in lines[1:])


def test_version_names_the_commit_it_was_built_from() -> None:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    commit = version_lines()["commit"].split()[0]
    assert commit == head, "the binary is older than the checkout: rebuild (make build)"


def test_version_names_build_type_compiler_cuda_and_python() -> None:
    v = version_lines()
    assert v["build"].startswith(cache_value("CMAKE_BUILD_TYPE") + ", ")
    compiler = Path(cache_value("CMAKE_CXX_COMPILER")).name
    assert ("clang" in v["build"]) == ("clang" in compiler), (v["build"], compiler)
    nvcc = cache_value("CMAKE_CUDA_COMPILER")
    cuda_built = cache_value("PROOFLAB_CUDA") in ("ON", "TRUE", "1") and nvcc not in ("", "CMAKE_CUDA_COMPILER-NOTFOUND")
    assert v["cuda"].startswith("on (nvcc " if cuda_built else "off ("), v["cuda"]
    module_built = any((BIN.parent.parent / "python").glob("prooflab*.so"))
    assert v["python"].startswith("embedded Python" if module_built else "off ("), v["python"]


def test_version_needs_no_subcommand() -> None:
    done = subprocess.run([str(BIN), "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""
