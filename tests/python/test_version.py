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


def test_a_run_names_the_commit_its_binary_was_built_from_not_the_checkouts(tmp_path: Path) -> None:
    """run.json's git_commit / git_dirty are the binary's own (those `--version` prints), read
    at build time: a binary carried to a device machine, or run after the checkout moved on,
    still names the commit it was built from. The run starts outside the checkout."""
    v = version_lines()["commit"]
    proc = subprocess.run([str(BIN), "batch", "--count", "1", "--set", "circuit=tiny", "--counters", "off",
                           "--out", str(tmp_path), "--run-id", "r", "--param-dir", str(tmp_path / "params")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import json
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["git_commit"] == v.split()[0]
    assert meta["git_dirty"] == v.endswith("(built with uncommitted changes)")
