"""What `prooflab` guarantees under faults and bad input (docs/faults.md), checked through the
binary that `make test` builds (build/bin/prooflab; PROOFLAB_BIN overrides it), with the
parameter cache in a temporary directory. They skip, saying why, when the binary is missing.

Each test is named for the guarantee it checks; docs/faults.md lists them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first (make test builds it)")

TINY = ["--set", "circuit=tiny", "--set", "partitions=2"]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    e = dict(os.environ)
    e["PROOFLAB_PARAM_DIR"] = str(tmp_path_factory.mktemp("params"))
    e.pop("TERM", None)
    return e


def prooflab(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The one `prooflab: error:` line of a failed command."""
    lines = [line for line in proc.stderr.splitlines() if line.startswith("prooflab: error: ")]
    assert len(lines) == 1, proc.stdout + proc.stderr
    return lines[0].removeprefix("prooflab: error: ")


# ------------------------------------------------------------------ proofs (item 6)


def test_batch_written_proofs_verify_with_the_cli(tmp_path: Path, env: dict[str, str]) -> None:
    proc = prooflab(["batch", "--count", "2", *TINY, "--out", str(tmp_path), "--run-id", "r"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    jobs = sorted((tmp_path / "r" / "proofs").iterdir())
    assert [j.name for j in jobs] == ["job_0", "job_1"]
    for job in jobs:
        inputs = json.loads((job / "public_inputs.json").read_text())
        assert inputs["shape_hash"] != 0
        check = prooflab(["verify", "--proof", str(job / "proof.bin"), "--inputs", str(job / "public_inputs.json")],
                         env, cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "verify: all 2 partition proofs valid" in check.stdout
    # A flipped byte in a batch-written proof is still refused.
    proof = jobs[0] / "proof.bin"
    data = bytearray(proof.read_bytes())
    data[200] ^= 0x01
    proof.write_bytes(bytes(data))
    check = prooflab(["verify", "--proof", str(proof), "--inputs", str(jobs[0] / "public_inputs.json")], env, cwd=tmp_path)
    assert check.returncode != 0
