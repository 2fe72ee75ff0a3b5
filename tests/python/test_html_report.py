"""report.html: self-contained (figures embedded), the same sections and tables as report.md,
and — in a real headless Chromium — loads without errors and shows its figures."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.colors import to_rgb

from builders import REFERENCE_LOG, write_known_run, write_sweep_experiment
from chromium import Chromium, find_chromium
from prooflab_analysis.html_report import markdown_page
from prooflab_analysis.report import write_report
from prooflab_analysis.figures import DPI
from prooflab_analysis.waterfall import STAGE_COLORS, WIDTH_IN

needs_chromium = pytest.mark.skipif(find_chromium() is None,
                                    reason="no chromium on PATH (Debian package `chromium`; .ci/install-deps)")


def markdown_tables(md: str) -> int:
    return sum(1 for line in md.splitlines() if re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", line))


def markdown_headings(md: str) -> list[str]:
    return [line[3:].strip() for line in md.splitlines() if line.startswith("## ")]


def test_run_html_embeds_figures_and_keeps_every_section(tmp_path: Path) -> None:
    run = write_known_run(tmp_path / "run", drop={(1, 1)})
    md_path = write_report(run)
    md = md_path.read_text()
    page = (md_path.parent / "report.html").read_text()
    sources = re.findall(r'<img [^>]*src="([^"]+)"', page)
    assert len(sources) == md.count("![") == 1
    assert sources[0].startswith("data:image/png;base64,")
    png = base64.b64decode(sources[0].split(",", 1)[1])
    assert png == (md_path.parent / "waterfall.png").read_bytes()
    assert page.count("<table>") == markdown_tables(md) >= 5
    assert re.findall(r"<h2>(.*?)</h2>", page) == markdown_headings(md)
    assert "<title>Run report: known</title>" in page
    for fact in ("missing_partition", "0123456789abcdef0123456789abcdef01234567", "lock_policy",
                 "prooflab batch --count 3 --concurrency 2", "host: test, 2 cores, 24 GiB"):
        assert fact in page, fact


def test_log_index_links_the_run_pages(tmp_path: Path) -> None:
    log = tmp_path / "bench.log"
    log.write_text(REFERENCE_LOG)
    index = write_report(log, expected_partitions=2).with_suffix(".html").read_text()
    assert 'href="alpha/report.html"' in index and 'href="beta/report.html"' in index
    assert (tmp_path / "bench-report" / "alpha" / "report.html").exists()


def test_a_missing_figure_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"report.md: image 'nope.png' not found"):
        markdown_page("# r\n\n![x](nope.png)\n", tmp_path, tmp_path / "report.md")


def colour_share(png: bytes, hex_colour: str, tol: float = 0.04) -> float:
    image = mpimg.imread(io.BytesIO(png))[..., :3]
    return float((np.abs(image - np.asarray(to_rgb(hex_colour))).max(axis=-1) < tol).mean())


@needs_chromium
def test_run_html_renders_in_chromium(tmp_path: Path) -> None:
    run = write_known_run(tmp_path / "run", drop={(1, 1)})
    md_path = write_report(run)
    md = md_path.read_text()
    with Chromium(find_chromium()) as browser:
        browser.load((md_path.parent / "report.html").as_uri())
        seen = browser.evaluate("""({
            images: [...document.images].map(i => ({complete: i.complete, width: i.naturalWidth})),
            tables: document.querySelectorAll('table').length,
            headings: [...document.querySelectorAll('h2')].map(h => h.textContent),
            title: document.title})""")
        full = browser.screenshot()
        browser.evaluate("document.images[0].scrollIntoView(); true")
        figure = browser.screenshot()
        errors = list(browser.errors)
    assert errors == []
    assert seen["images"] == [{"complete": True, "width": int(WIDTH_IN * DPI)}]
    assert seen["tables"] == markdown_tables(md)
    assert seen["headings"] == markdown_headings(md)
    assert seen["title"] == "Run report: known"
    top = mpimg.imread(io.BytesIO(full))
    assert top.shape[1] == 1400 and top[..., :3].std() > 0.05  # not blank
    # the waterfall is on screen: its synthesis bars' colour covers part of the viewport
    assert colour_share(figure, STAGE_COLORS["synthesis"]) > 0.002
    assert colour_share(full, STAGE_COLORS["synthesis"]) < colour_share(figure, STAGE_COLORS["synthesis"])


@needs_chromium
def test_experiment_html_with_every_figure_renders_in_chromium(tmp_path: Path) -> None:
    exp = write_sweep_experiment(tmp_path / "exp", [(5, 5, 1.0), (10, 10, 0.8)], reps=4,
                                 variants={"baseline": 1.0, "gw3": 0.9}, rep_jitter=[1.0, 1.03, 0.98, 1.01])
    md_path = write_report(exp)
    md = md_path.read_text()
    names = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert names == ["sweep.png", "ab_s_per_proof.png", "ab_proofs_per_min.png"]
    with Chromium(find_chromium()) as browser:
        browser.load((md_path.parent / "report.html").as_uri())
        images = browser.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.alt])")
        errors = list(browser.errors)
    assert errors == []
    assert [alt for _, _, alt in images] == ["sweep", "A/B s_per_proof", "A/B proofs_per_min"]
    assert all(complete and width == int(16 * DPI) for complete, width, _ in images)
