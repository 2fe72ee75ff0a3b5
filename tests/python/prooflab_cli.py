"""The prooflab binary as the CLI tests run it: where it is (build/bin/prooflab; PROOFLAB_BIN
overrides it) and one call of it. The `env` fixture these calls take (a parameter cache per
test module, no TERM) is in conftest.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()


def prooflab(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
