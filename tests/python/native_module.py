"""The C++ `prooflab` Python module of the build (build/python, or PROOFLAB_BUILD_DIR/python),
for the tests that compare its fast paths with the pure-Python ones."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("PROOFLAB_BUILD_DIR", REPO / "build"))
MODULE_DIR = BUILD_DIR / "python"


def module_path() -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = MODULE_DIR / f"prooflab{suffix}"
        if path.exists():
            return path
    return None


def load_module() -> ModuleType | None:
    """The module from MODULE_DIR, without putting it on sys.path: the other test files
    keep reading with pandas unless they choose otherwise. None when it is not built."""
    path = module_path()
    if path is None:
        return None
    if "prooflab" in sys.modules:
        return sys.modules["prooflab"]
    loader = importlib.machinery.ExtensionFileLoader("prooflab", str(path))
    spec = importlib.util.spec_from_file_location("prooflab", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
