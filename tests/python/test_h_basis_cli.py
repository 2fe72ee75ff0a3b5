"""h_basis = coset end to end through the binary (core/groth16/h_basis.hpp, issue 24): a batch on
the CPU backend with the H query in the coset's Lagrange basis proves, verifies in-process and
with `prooflab verify` (which reads the basis from public_inputs.json), and keeps its key in a
parameter file of its own beside the monomial one; a bad value names the key."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from prooflab_cli import BIN, prooflab

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first (make test builds it)")

TINY = ["--set", "circuit=tiny", "--set", "partitions=2"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """conftest's environment with a parameter cache of each test's own (these count its files)."""
    e = dict(os.environ)
    e["PROOFLAB_PARAM_DIR"] = str(tmp_path / "params")
    e.pop("TERM", None)
    return e


def test_a_coset_key_proves_verifies_and_has_its_own_file(tmp_path: Path, env: dict[str, str]) -> None:
    params = Path(env["PROOFLAB_PARAM_DIR"])
    proc = prooflab(["batch", "--count", "2", *TINY, "--set", "h_basis=coset", "--out", str(tmp_path),
                     "--run-id", "coset"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "H coset" in proc.stdout
    files = sorted(p.name for p in params.iterdir())
    assert len(files) == 1 and files[0].endswith("-coset.params"), files
    run = tmp_path / "coset"
    assert json.loads((run / "run.json").read_text())["config"]["h_basis"] == "coset"
    for job in sorted((run / "proofs").iterdir()):
        inputs = json.loads((job / "public_inputs.json").read_text())
        assert inputs["h_basis"] == "coset"
        check = prooflab(["verify", "--proof", str(job / "proof.bin"), "--inputs", str(job / "public_inputs.json")],
                         env, cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "verify: all 2 partition proofs valid" in check.stdout

    # The monomial batch gets a file of its own and proofs without the key.
    proc = prooflab(["batch", "--count", "1", *TINY, "--out", str(tmp_path), "--run-id", "mono"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(list(params.iterdir())) == 2
    job = next((tmp_path / "mono" / "proofs").iterdir())
    assert "h_basis" not in json.loads((job / "public_inputs.json").read_text())

    # A coset key file renamed to the monomial name is refused, naming the file and both bases.
    coset_file = next(p for p in params.iterdir() if p.name.endswith("-coset.params"))
    mono_file = next(p for p in params.iterdir() if not p.name.endswith("-coset.params"))
    os.replace(coset_file, mono_file)
    proc = prooflab(["batch", "--count", "1", *TINY, "--out", str(tmp_path), "--run-id", "renamed"], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert f"parameter file {mono_file}: its H query is in the coset basis, expected monomial" in proc.stderr


def test_a_key_with_c_folded_in_proves_and_verifies_without_c(tmp_path: Path, env: dict[str, str]) -> None:
    params = Path(env["PROOFLAB_PARAM_DIR"])
    proc = prooflab(["batch", "--count", "2", "--set", "circuit=porep-like", "--set", "constraints=4096",
                     "--set", "partitions=2", "--set", "h_basis=coset_fold_c", "--out", str(tmp_path),
                     "--run-id", "fold"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [p.name.endswith("-coset_fold_c.params") for p in params.iterdir()] == [True]
    for job in sorted((tmp_path / "fold" / "proofs").iterdir()):
        assert json.loads((job / "public_inputs.json").read_text())["h_basis"] == "coset_fold_c"
        check = prooflab(["verify", "--proof", str(job / "proof.bin"), "--inputs", str(job / "public_inputs.json")],
                         env, cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
    # The partitions' host buffers hold a and b only: two thirds of the coset key's.
    def abc_bytes(run: str) -> int:
        with (tmp_path / run / "stages.csv").open() as f:
            return sum(int(row["abc_bytes"]) for row in csv.DictReader(f))
    proc = prooflab(["batch", "--count", "2", "--set", "circuit=porep-like", "--set", "constraints=4096",
                     "--set", "partitions=2", "--set", "h_basis=coset", "--out", str(tmp_path),
                     "--run-id", "coset"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert abc_bytes("fold") * 3 == abc_bytes("coset") * 2


def test_setup_makes_a_coset_key_and_bad_values_name_the_key(tmp_path: Path, env: dict[str, str]) -> None:
    params = Path(env["PROOFLAB_PARAM_DIR"])
    proc = prooflab(["setup", "--circuit", "tiny", "--h-basis", "coset"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [p.name.endswith("-coset.params") for p in params.iterdir()] == [True]
    proc = prooflab(["setup", "--circuit", "tiny", "--h-basis", "lagrange"], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert "h_basis" in proc.stderr and "lagrange" in proc.stderr
    proc = prooflab(["batch", "--count", "1", *TINY, "--set", "h_basis=lagrange", "--out", str(tmp_path)],
                    env, cwd=tmp_path)
    assert proc.returncode != 0
    assert "config key 'h_basis': bad value 'lagrange' (accepted: monomial | coset | coset_fold_c)" in proc.stderr
