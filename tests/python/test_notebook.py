"""notebooks/postmortem.ipynb runs headless on the committed reference runs: every code cell
gives output, the waterfall is a real image, the sweep and A/B tables are there, and the
whole notebook takes well under a minute on 2 cores. It runs with its working directory
outside the repository, as a Jupyter started elsewhere would run it."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "postmortem.ipynb"


def test_postmortem_notebook_executes_from_any_directory(tmp_path: Path) -> None:
    assert REPO not in tmp_path.resolve().parents
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    start = time.monotonic()
    client.execute()  # raises CellExecutionError, naming the cell, on any exception
    elapsed = time.monotonic() - start

    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for cell in code:
        assert cell.outputs, f"no output from cell:\n{cell.source}"
        assert all(out.output_type != "error" for out in cell.outputs)
    outputs = [out for cell in code for out in cell.outputs]
    images = [base64.b64decode(out["data"]["image/png"]) for out in outputs if "image/png" in out.get("data", {})]
    assert len(images) == 1 and len(images[0]) > 10_000  # the waterfall
    text = "\n".join(out.get("text", "") + out.get("data", {}).get("text/plain", "") for out in outputs)
    assert "integrity: no issues" in text
    assert "s_per_proof" in text and "proofs_per_min" in text and "two_lock" in text  # sweep + A/B tables
    assert any(verdict in text for verdict in ("improved", "regressed", "no detectable change", "inconclusive"))
    assert elapsed < 60, f"the notebook took {elapsed:.1f} s"


CAMPAIGN_NOTEBOOK = REPO / "notebooks" / "h200-campaign.ipynb"
CAMPAIGN = REPO / "results" / "2026-12-02-h200-campaign"


def _summary_mean(experiment: str, variant: str) -> float:
    import json

    values = [json.loads(p.read_text())["s_per_proof"]
              for p in sorted((CAMPAIGN / experiment / "base" / variant).glob("[0-9]*/summary.json"))]
    assert values, (experiment, variant)
    return sum(values) / len(values)


def _skip_vram_partitions(variant_suffix: str, experiment: str = "h200-phase10") -> tuple[int, int]:
    import csv

    skipped = total = 0
    for stages in (CAMPAIGN / experiment / "base").glob(f"two_lock*{variant_suffix}/[0-9]*/stages.csv"):
        with open(stages, newline="") as f:
            rows = list(csv.DictReader(f))
        total += len(rows)
        skipped += sum(r["prestage"] == "skip_vram" for r in rows)
    return skipped, total


def test_h200_campaign_notebook_executes_and_prints_what_the_runs_say(tmp_path: Path) -> None:
    """notebooks/h200-campaign.ipynb on the committed H200 runs (issue 25's post-mortem): it
    runs from outside the checkout, draws the fallback waterfall, and its printed figures
    agree with what this test reads from the run directories itself (summary.json's engine
    figures and stages.csv with the csv module)."""
    import re

    sizes = sum(p.stat().st_size for p in CAMPAIGN.rglob("*")
                if p.is_file() and (p.parent.name.isdigit() or p.parent.name.startswith("warmup-")))
    assert sizes <= 5 * 2**20, f"the committed run directories hold {sizes / 2**20:.1f} MiB (issue 25: <= 5 MB)"
    nb = nbformat.read(CAMPAIGN_NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    start = time.monotonic()
    client.execute()
    elapsed = time.monotonic() - start

    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for cell in code:
        assert cell.outputs, f"no output from cell:\n{cell.source}"
    outputs = [out for cell in code for out in cell.outputs]
    images = [base64.b64decode(out["data"]["image/png"]) for out in outputs if "image/png" in out.get("data", {})]
    assert len(images) == 1 and len(images[0]) > 10_000  # the fallback waterfall
    text = "\n".join(out.get("text", "") + out.get("data", {}).get("text/plain", "") for out in outputs)

    skipped, total = _skip_vram_partitions("_2g")
    assert f"{skipped} of {total} partitions could not pre-stage" in text
    for n, variant in ((4, "pw4"), (8, "pw8"), (12, "pw12")):
        got = re.search(rf"pw={n}: (\d+\.\d\d) s/proof vs (\d+\.\d\d) at pw=2", text)
        assert got, f"pw={n} line missing"
        assert float(got.group(1)) == pytest.approx(_summary_mean("h200-pw-sweep", variant), abs=0.02)
        assert float(got.group(2)) == pytest.approx(_summary_mean("h200-pw-sweep", "baseline"), abs=0.02)
    # Phase 10 where the GPU binds (10 x 2^24, pw=8): the fallback count and each arm's change
    skipped, total = _skip_vram_partitions("_8g", "h200-phase10-2e24")
    assert f"at 2^24 with room for one partition: {skipped} of {total} partitions could not pre-stage" in text
    single = _summary_mean("h200-phase10-2e24", "baseline")
    for variant in ("two_lock_gw3_8g", "two_lock_gw3_16g"):
        got = re.search(rf"at 2\^24 {variant}: ([+-]\d+\.\d)% s/proof vs single", text)
        assert got, f"{variant} line missing"
        expected = 100 * (_summary_mean("h200-phase10-2e24", variant) / single - 1)
        assert float(got.group(1)) == pytest.approx(expected, abs=0.06)
    for sitting, reps in ((1, "01"), (2, "23")):  # the two leases' repetitions, compared within each
        def mean(variant: str) -> float:
            import json
            return sum(json.loads((CAMPAIGN / "h200-phase10-2e24" / "base" / variant / r / "summary.json").read_text())
                       ["s_per_proof"] for r in reps) / len(reps)
        got = re.search(rf"sitting {sitting}: two_lock_gw3_8g ([+-]\d+\.\d)%, two_lock_gw3_16g ([+-]\d+\.\d)%", text)
        assert got, f"sitting {sitting} line missing"
        assert float(got.group(1)) == pytest.approx(100 * (mean("two_lock_gw3_8g") / mean("baseline") - 1), abs=0.06)
        assert float(got.group(2)) == pytest.approx(100 * (mean("two_lock_gw3_16g") / mean("baseline") - 1), abs=0.06)
    assert "-> improved" in text and "synthesis lanes" in text and "cpu cores" in text
    assert "kernel busy nan" not in text and "nan%" not in text
    assert elapsed < 90, f"the notebook took {elapsed:.1f} s"
