"""The engine's table of knobs (core/engine/knobs.hpp) against everything that lists knobs
outside C++: the model's settings (analysis/prooflab_analysis/model/settings.py), the knob
table of docs/engine.md, the Python module's EngineConfig, and the config of every run.json
committed under results/ (old runs must still load). The table is read from the binary
(`prooflab knobs --format json`), so prooflab_analysis never needs it at import time."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from native_module import load_module
from prooflab_cli import BIN, ROOT

from prooflab_analysis.model import settings


def _why_not() -> str | None:
    if not BIN.exists():
        return f"{BIN} is missing: build it first (make test builds build/bin/prooflab)"
    if subprocess.run([str(BIN), "knobs", "--help"], capture_output=True).returncode != 0:
        return f"{BIN} predates `prooflab knobs`: rebuild it (make test does)"
    return None


_WHY = _why_not()
needs_binary = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _knobs(fmt: str) -> str:
    proc = subprocess.run([str(BIN), "knobs", "--format", fmt], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def table() -> list[dict]:
    return json.loads(_knobs("json"))


@needs_binary
def test_settings_cover_every_engine_knob(table: list[dict]) -> None:
    engine = {row["name"] for row in table}
    modelled = {name for name, knob in settings.KNOBS.items() if knob.status != "model-only"}
    unmodelled = set(settings.UNMODELLED)
    assert not modelled & unmodelled, f"both modelled and unmodelled: {sorted(modelled & unmodelled)}"
    assert engine - modelled - unmodelled == set(), "engine knobs neither in settings.KNOBS nor settings.UNMODELLED"
    assert (modelled | unmodelled) - engine == set(), "settings lists knobs the engine does not have"
    for name, knob in settings.KNOBS.items():
        if knob.status == "model-only":
            assert name not in engine, f"{name} is an engine knob, not model-only"


@needs_binary
def test_settings_accept_what_the_engine_accepts(table: list[dict]) -> None:
    for row in table:
        name = row["name"]
        if name not in settings.KNOBS:
            continue
        if row["kind"] == "enum":
            for value in row["values"]:
                assert settings.parse_knob(name, value) == value
            with pytest.raises(settings.KnobError, match=name):
                settings.parse_knob(name, row["values"][0] + "x")
        elif row["kind"] == "uint":
            lo, hi = row["lo"], row["hi"]
            assert settings.parse_knob(name, str(hi)) == hi, name
            with pytest.raises(settings.KnobError, match=name):
                settings.parse_knob(name, str(hi + 1))
            if lo > 0:
                with pytest.raises(settings.KnobError, match=name):
                    settings.parse_knob(name, str(lo - 1))
            assert settings.parse_knob(name, str(lo)) == lo, name
        elif row["kind"] == "bool":
            assert settings.parse_knob(name, "on") is True
            assert settings.parse_knob(name, "off") is False
        elif row["kind"] == "bytes":
            assert settings.parse_knob(name, "16GiB") == 16 << 30
        # the engine's default, as text, is a value the model reads
        settings.parse_knob(name, row["default"])


def _docs_table(text: str) -> str:
    begin = "<!-- knob table: `prooflab knobs --format markdown` writes it; tests/python/test_knobs.py checks it -->\n"
    end = "<!-- end of knob table -->"
    assert begin in text and end in text, "docs/engine.md has lost its knob-table markers"
    return text[text.index(begin) + len(begin):text.index(end)]


@needs_binary
def test_docs_knob_table_is_the_engine_table() -> None:
    docs = (ROOT / "docs" / "engine.md").read_text()
    assert _docs_table(docs) == _knobs("markdown"), (
        "docs/engine.md's knob table differs from the engine's: regenerate it with "
        "`build/bin/prooflab knobs --format markdown`")


@needs_binary
def test_knobs_outputs_agree(table: list[dict]) -> None:
    names = _knobs("names").splitlines()
    assert names == [row["name"] for row in table]
    rows = _knobs("markdown").splitlines()[2:]
    assert [r.split(" | ")[0].removeprefix("| ") for r in rows] == names
    text = _knobs("text")
    for row in table:
        assert f"{row['name']} ({row['kind']}: " in text
        assert f"cuzk: {row['cuzk']}" in text
        assert f"cell id: {row['cell_prefix']}<value>" in text
    count = next(row for row in table if row["name"] == "count")
    assert count == {"name": "count", "kind": "uint", "accepted": "an integer from 1 to 1000000", "default": "1",
                     "lo": 1, "hi": 1000000, "doc": "proofs in the batch (c)",
                     "cuzk": "cuzk-bench batch -c / --count", "cell_prefix": "c"}
    b_g2 = next(row for row in table if row["name"] == "b_g2_msm")
    assert (b_g2["values"], b_g2["default"], b_g2["doc"], b_g2["cuzk"]) == (
        ["cpu", "gpu"], "cpu", "where the G2 tail MSM of B runs", "none: supraseal runs it on the CPU")


def _module():
    module = load_module()
    if module is None:
        pytest.skip("the prooflab Python module is not built (build/python)")
    return module


@needs_binary
def test_module_knobs_are_the_binary_table(table: list[dict]) -> None:
    prooflab = _module()
    assert prooflab.EngineConfig.knobs() == table
    assert prooflab.EngineConfig.keys() == [row["name"] for row in table]
    doc = prooflab.EngineConfig.__doc__
    for row in table:
        assert f"\n  {row['name']} ({row['accepted']}; default {row['default']}): {row['doc']}" in doc
    cfg = prooflab.EngineConfig(vram_limit=None, b_g2_msm="gpu", backend="cuda")
    assert cfg["vram_limit"] is None and cfg["b_g2_msm"] == "gpu"
    with pytest.raises(KeyError, match=r"unknown config key 'colour' \(known keys: circuit, "):
        cfg["colour"]


def _committed_configs() -> list[Path]:
    return sorted((ROOT / "results").glob("**/run.json"))


def test_committed_runs_have_configs() -> None:
    runs = _committed_configs()
    assert len(runs) > 100, "results/ should hold the committed campaigns' run.json files"


def test_committed_run_configs_still_load() -> None:
    """Every committed run's recorded config sets, key by key, through the module's
    EngineConfig, and reads back as recorded (keys it lacks, such as b_g2_msm, keep their
    defaults)."""
    prooflab = _module()
    for path in _committed_configs():
        config = json.loads(path.read_text())["config"]
        cfg = prooflab.EngineConfig(**config)
        back = cfg.to_dict()
        for key, value in config.items():
            assert back[key] == value, f"{path}: {key} = {value!r} reads back as {back[key]!r}"
        for key in set(back) - set(config):
            assert back[key] == prooflab.EngineConfig()[key], f"{path}: {key}"
        settings.settings_from_config(config, host_cores=8)
