"""Make the fixture builders importable whatever pytest's import mode is, and the
environment the CLI tests run prooflab in (prooflab_cli.py)."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """os.environ with a parameter cache of the test module's own and no TERM (no colour,
    no progress bar in the output the tests read)."""
    e = dict(os.environ)
    e["PROOFLAB_PARAM_DIR"] = str(tmp_path_factory.mktemp("params"))
    e.pop("TERM", None)
    return e
