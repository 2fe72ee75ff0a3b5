"""Waterfall: what the figure shows (lanes, legend, bar positions, colours by stage, marks,
the dense view's shading), checked on the matplotlib artists and the SVG text.

The 1 M-event drawing time is a benchmark (results/scripts/bench_waterfall.py), not a test.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba

import cuzk_logs
from builders import (
    REFERENCE_LOG, RICH_GPU, RICH_STREAMS, known_counters, known_cupti, known_timeline, rich_cupti,
    rich_sub_stages, rich_timeline, run_meta, synthetic_timeline, write_run,
)
from prooflab_analysis.figures import DPI, save_figure
from prooflab_analysis.loaders import load_run
from prooflab_analysis.metrics import pair_intervals
from prooflab_analysis.reflog import parse_reference_log
from prooflab_analysis.waterfall import (
    DENSITY_LEVELS, FAMILY_COLORS, MARK_STYLES, WIDTH_IN, covered_per_bin, parse_window, run_title, run_waterfall,
    waterfall_figure,
)
from prooflab_analysis.waterfall_lanes import pack_rows, waterfall_layout

RICH_LANES = [
    "jobs [3]", "", "", "synthesis [2]", "", "queue wait [1]", "dev0 w0 emulated", "dev0 w1 emulated",
    *[f"dev0 s{s} kernels" for s in range(10, 16)], "dev0 s15 copies", "dev0 3 other streams kernels", "dev0 sync",
    "prep_msm [2]", "", "b_g2_msm [1]", "dealloc [1]", "throttle",
]


@pytest.fixture
def rich_fig():
    fig = waterfall_figure(rich_timeline(), rich_cupti(), title="rich\nlock=two_lock", device_kind="emulated",
                           excluded_jobs=[1])
    yield fig
    plt.close(fig)


def lanes(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_yticklabels()]


def collections(fig, label: str) -> list[PolyCollection]:
    return [c for c in fig.axes[0].collections if c.get_label() == label]


def bars_of(coll: PolyCollection) -> list[tuple[float, float, float, float]]:
    """(x0, x1, y0, y1) of each rectangle of a broken_barh collection."""
    out = []
    for path in coll.get_paths():
        v = path.vertices
        out.append((float(v[:, 0].min()), float(v[:, 0].max()), float(v[:, 1].min()), float(v[:, 1].max())))
    return sorted(out)


def bars_on_lane(fig, label: str, lane: int) -> list[tuple[float, float, float, float]]:
    return sorted(b for c in collections(fig, label) for b in bars_of(c) if b[2] < lane < b[3])


def spans(bars: list[tuple[float, ...]]) -> list[float]:
    """x0, x1 of each bar, flattened (pytest.approx compares flat sequences)."""
    return [x for b in bars for x in b[:2]]


def legend_texts(fig) -> list[str]:
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_lanes_top_to_bottom(rich_fig) -> None:
    # Jobs overlap 3 deep (100-340 ms), synthesis and prep_msm 2 deep; the queue wait of
    # j2p1 (never picked up) and zero-length waits are not drawn; 9 CUDA streams are
    # bounded to the 6 busiest and one merged lane.
    assert lanes(rich_fig) == RICH_LANES


def test_every_mark_has_a_legend_entry(rich_fig) -> None:
    families = {"job lifetime", "synthesis", "queue wait", "lock wait", "prestage", "gpu (lock held)", "ntt_h",
                "batch_add", "tail_msm", "b_g2_msm", "prep_msm", "dealloc", "throttle", "kernel", "memcpy", "sync"}
    drawn = {c.get_label() for c in rich_fig.axes[0].collections}
    assert drawn == families | {"failed", "excluded"}
    texts = legend_texts(rich_fig)
    assert set(texts) == families | {"jobs 0, 4, ... (hatch)", "jobs 1, 5, ... (hatch)", "jobs 2, 6, ... (hatch)",
                                     MARK_STYLES["failed"][2], MARK_STYLES["excluded"][2]}
    assert len(texts) == len(set(texts))


def test_colour_is_the_stage_not_the_job(rich_fig) -> None:
    for coll in rich_fig.axes[0].collections:
        label = coll.get_label()
        if label in FAMILY_COLORS:
            faces = coll.get_facecolor()
            assert np.allclose(faces, to_rgba(FAMILY_COLORS[label])), label
    # the GPU bars of jobs 0, 1, 2 share a colour and differ by hatch
    gpu = collections(rich_fig, "gpu (lock held)")
    assert {c.get_hatch() for c in gpu} == {None, "///", "..."}


def test_known_bars_sit_where_the_timeline_puts_them(rich_fig) -> None:
    w0, w1 = RICH_LANES.index("dev0 w0 emulated"), RICH_LANES.index("dev0 w1 emulated")
    gpu_w1 = bars_on_lane(rich_fig, "gpu (lock held)", w1)
    expected = sorted((RICH_GPU[k][0] / 1e3, RICH_GPU[k][1] / 1e3) for k in ((0, 1), (1, 1)))
    assert spans(gpu_w1) == pytest.approx(spans(expected))
    assert gpu_w1[0][2] == pytest.approx(w1 - 0.4) and gpu_w1[0][3] == pytest.approx(w1 + 0.4)
    # j0p1 waited for the lock from its pickup (150 ms) until w0 released it (210 ms)
    assert spans(bars_on_lane(rich_fig, "lock wait", w1)) == pytest.approx([0.15, 0.21])
    # the sub-stages sit inside their GPU bar, thinner than it
    ntt = bars_on_lane(rich_fig, "ntt_h", w0)
    expected_ntt = sorted((s / 1e3, e / 1e3) for k in ((0, 0), (1, 0), (2, 0))
                          for s, e in [rich_sub_stages(*k)["NTT_H"]])
    assert spans(ntt) == pytest.approx(spans(expected_ntt), abs=1e-6)
    gpu_w0 = bars_on_lane(rich_fig, "gpu (lock held)", w0)
    for (x0, x1, y0, y1), (g0, g1, gy0, gy1) in zip(ntt, gpu_w0):
        assert g0 <= x0 < x1 <= g1 and gy0 < y0 < y1 < gy1


def test_failed_and_excluded_jobs_are_marked(rich_fig) -> None:
    failed = [b[:2] for c in collections(rich_fig, "failed") for b in bars_of(c)]
    excluded = [b[:2] for c in collections(rich_fig, "excluded") for b in bars_of(c)]
    layout = waterfall_layout(rich_timeline(), rich_cupti(), excluded_jobs=[1])
    assert len(failed) == int((layout.bars["job"] == 2).sum())
    assert len(excluded) == int((layout.bars["job"] == 1).sum())
    j2_lane = int(layout.bars.loc[(layout.bars["family"] == "job lifetime") & (layout.bars["job"] == 2), "lane"].iloc[0])
    assert j2_lane < 3  # in the jobs group
    assert spans(bars_on_lane(rich_fig, "failed", j2_lane)) == pytest.approx([0.1, 0.6])  # JOB_SUBMIT..JOB_FAILED


def test_job_labels_name_job_and_partition(rich_fig) -> None:
    texts = {t.get_text() for t in rich_fig.axes[0].texts}
    assert {"0", "1", "2", "0 p0", "1 p1", "2 p0"} <= texts


def test_reference_log_keeps_its_job_ids_and_marks_reference_spans(tmp_path: Path) -> None:
    alpha = parse_reference_log(REFERENCE_LOG.splitlines())[0]
    fig = run_waterfall(alpha)
    try:
        # no JOB_SUBMIT/JOB_DONE in a reference log: a job spans its first to its last event
        tl = alpha.timeline
        n_jobs = int(tl["job"].nunique())
        # synthesis lanes: as many as syntheses overlap at most (interval packing)
        starts = tl.loc[tl["event"] == "SYNTH_START", "t_us"].to_numpy()
        ends = tl.loc[tl["event"] == "SYNTH_END", "t_us"].to_numpy()
        edges = sorted([(t, 1) for t in starts] + [(t, -1) for t in ends], key=lambda e: (e[0], e[1]))
        depth = overlap = 0
        for _, d in edges:
            depth += d
            overlap = max(overlap, depth)
        shown = [name for name in lanes(fig) if name]
        assert shown[:2] == [f"jobs [{n_jobs}]", f"synthesis [{overlap}]"]
        assert "dev0 w0 GPU (ref. span)" in lanes(fig) and "dev0 w1 GPU (ref. span)" in lanes(fig)
        first_id = str(alpha.extras["jobs"].sort_values("job")["job_id"].iloc[0])
        texts = {t.get_text() for t in fig.axes[0].texts}
        assert first_id[:8] in texts and "0" not in texts  # the log's id (unique prefix), not the number 0
    finally:
        plt.close(fig)


def _group_lanes(layout) -> dict[str, list[str]]:
    """Each lane group's lane labels."""
    starts = [first for first, _ in layout.groups] + [len(layout.lanes)]
    return {name: layout.lanes[first:nxt] for (first, name), nxt in zip(layout.groups, starts[1:])}


def test_a_lane_group_per_device_with_the_workers_the_log_puts_there() -> None:
    log = cuzk_logs.generate([cuzk_logs.Options(jobs=2, partitions=4, monolithic_jobs=0, devices=2,
                                                workers_per_device=2, seed=21)])
    run, truth = parse_reference_log(log.text.splitlines())[0], log.runs[0]
    groups = _group_lanes(waterfall_layout(run.timeline, device_kind="GPU"))
    for dev in (0, 1):
        busy_workers = {p.worker for p in truth.partitions if p.device == dev}
        assert busy_workers and {w for w, d in truth.worker_gpu.items() if d == dev} >= busy_workers
        assert groups[f"device {dev}"] == [f"dev{dev} w{w} GPU" for w in sorted(busy_workers)]
    assert "device unknown" not in groups


def test_workers_whose_device_the_log_does_not_say_get_a_device_unknown_group() -> None:
    log = cuzk_logs.generate([cuzk_logs.Options(jobs=2, partitions=4, monolithic_jobs=0, devices=2, workers_per_device=2,
                                                worker_lines=False, worker_spans=False, seed=21)])
    run, truth = parse_reference_log(log.text.splitlines())[0], log.runs[0]
    layout = waterfall_layout(run.timeline, device_kind="GPU")
    groups = _group_lanes(layout)
    assert [name for name in groups if name.startswith("device")] == ["device unknown"]
    assert groups["device unknown"] == [f"dev? w{w} GPU" for w in sorted({p.worker for p in truth.partitions})]
    gpu_bars = layout.bars[layout.bars["family"] == "gpu (lock held)"]
    assert len(gpu_bars) == sum(1 for p in truth.partitions if p.ended)  # none dropped for want of a device


def test_run_title_and_cpu_backend_is_not_called_gpu(tmp_path: Path) -> None:
    meta = run_meta(run_id="rich")
    meta["config"].update({"lock_policy": "two_lock", "gpu_workers_per_device": 2, "partition_workers": 4})
    run = load_run(write_run(tmp_path / "rich", rich_timeline(), cupti=rich_cupti(), meta=meta))
    assert run_title(run) == ("rich\nlock=two_lock  dealloc=async  c=3  j=2  gw=2  pw=4  backend=cpu  "
                              "device: CPU backend's emulated device")
    fig = run_waterfall(run)
    try:
        assert not [label for label in lanes(fig) if "GPU" in label]
        paths = save_figure(fig, tmp_path / "wf")
    finally:
        plt.close(fig)
    png, svg = paths
    assert mpimg.imread(png).shape[1] == int(WIDTH_IN * DPI)  # 200 dpi
    text = svg.read_text()
    # real text, not glyph outlines
    assert "<text" in text and "dev0 w0 emulated" in text and "synthesis [2]" in text
    assert "device: CPU backend&#39;s emulated device" in text or "device: CPU backend's emulated device" in text
    assert 'id="DejaVuSans-' not in text


def test_window_zooms_and_clips(tmp_path: Path) -> None:
    fig = waterfall_figure(rich_timeline(), rich_cupti(), device_kind="emulated", window=(0.2, 0.35), title="rich")
    try:
        assert fig.axes[0].get_xlim() == pytest.approx((0.2, 0.35))
        w0 = lanes(fig).index("dev0 w0 emulated")
        # j0p0's GPU bar (110-210 ms) is clipped to the window's start, j1p0 (300-400) to its end
        assert spans(bars_on_lane(fig, "gpu (lock held)", w0)) == pytest.approx([0.2, 0.21, 0.3, 0.35])
        # lanes with nothing in the window are gone: no sync (400 ms), no streams 7-9 (before 200 ms)
        assert "dev0 sync" not in lanes(fig) and "dev0 3 other streams kernels" not in lanes(fig)
        assert any("window 0.2..0.35 s" in t.get_text() for t in fig.texts)
    finally:
        plt.close(fig)


def test_bad_windows_are_errors() -> None:
    assert parse_window("120:180.5") == (120.0, 180.5)
    for text in ("120", "a:b", "5:5", "-1:3", "3:1"):
        with pytest.raises(ValueError, match="window"):
            parse_window(text)
    with pytest.raises(ValueError, match="outside the run"):
        waterfall_layout(rich_timeline(), window=(10.0, 20.0))


def test_dense_view_shades_by_busy_share(tmp_path: Path) -> None:
    timeline = synthetic_timeline(1_000_000)
    fig = waterfall_figure(timeline, title="1M events")
    try:
        labels = lanes(fig)
        assert "dev0 w0 GPU" in labels and "dev0 w1 GPU" in labels
        notes = [t.get_text() for t in fig.axes[0].texts]  # no per-bar labels, one note
        assert len(notes) == 1 and "each pixel column shaded" in notes[0]
        lane = labels.index("dev0 w0 GPU")
        x_lo, x_hi = fig.axes[0].get_xlim()
        shaded = 0.0
        for coll in collections(fig, "gpu (lock held)"):
            for path, face in zip(coll.get_paths(), coll.get_facecolor()):
                x, y = path.vertices[:, 0], path.vertices[:, 1]
                if y.min() < lane < y.max():
                    shaded += (x.max() - x.min()) * face[3]
        gpu = pair_intervals(timeline, "GPU_START", "GPU_END")
        gpu = gpu[gpu["worker"] == 0]
        busy = float((gpu["end_us"] - gpu["start_us"]).sum()) / 1e6 / (x_hi - x_lo)
        share = shaded / (x_hi - x_lo)
        # each column's share is rounded up to the next 1/8
        assert busy <= share + 1e-9 and share <= busy + 1.0 / DENSITY_LEVELS
        save_figure(fig, tmp_path / "big", ("png",))
        assert mpimg.imread(tmp_path / "big.png").std() > 0.05
    finally:
        plt.close(fig)


def test_covered_per_bin_matches_brute_force() -> None:
    rng = np.random.default_rng(5)
    start = rng.uniform(0, 100, 300)
    end = start + rng.uniform(0, 7, 300)
    edges = np.linspace(-5, 110, 47)
    expected = [float(np.clip(np.minimum(end, b) - np.maximum(start, a), 0, None).sum())
                for a, b in zip(edges[:-1], edges[1:])]
    assert covered_per_bin(start, end, edges) == pytest.approx(expected)


def test_known_run_with_counter_strips(tmp_path: Path) -> None:
    fig = waterfall_figure(known_timeline(), known_cupti(), known_counters(), title="known")
    try:
        assert len(fig.axes) == 3  # Gantt + probe bandwidth + TLB shootdowns, each strip with its legend
        assert [a.get_legend().get_texts()[0].get_text() for a in fig.axes[1:]] == [
            "bandwidth (probe) [GB/s]", "tlb_shootdowns (proc) [1/s]"]
        assert lanes(fig)[:7] == ["jobs [3]", "", "", "synthesis [4]", "", "", ""]
        # the known timeline's NTT_H lasts 1 µs: a 1-pixel bar without an outline that would hide its colour
        assert all(np.all(np.asarray(c.get_linewidths()) == 0) for c in collections(fig, "ntt_h"))
        assert all(np.all(np.asarray(c.get_linewidths()) == 0.4) for c in collections(fig, "gpu (lock held)"))
    finally:
        plt.close(fig)


def test_cupti_stream_lanes_are_bounded() -> None:
    layout = waterfall_layout(rich_timeline(), rich_cupti(), max_streams=2)
    cuda = [label for label in layout.lanes if label.endswith(("kernels", "copies"))]
    assert cuda == ["dev0 s14 kernels", "dev0 s15 kernels", "dev0 s15 copies", "dev0 7 other streams kernels"]
    merged = layout.bars[layout.bars["lane"] == layout.lane_of("dev0 7 other streams kernels")]
    assert len(merged) == len(RICH_STREAMS) - 2


def test_pack_rows_never_overlaps_and_uses_max_overlap_rows() -> None:
    rng = np.random.default_rng(3)
    start = rng.uniform(0, 100, 500)
    end = start + rng.uniform(0.1, 10, 500)
    rows = pack_rows(start, end)
    for r in np.unique(rows):
        s, e = start[rows == r], end[rows == r]
        order = np.argsort(s)
        assert np.all(s[order][1:] >= e[order][:-1])
    points = np.concatenate([start, end])
    depth = max(int(((start <= p) & (end > p)).sum()) for p in points)
    assert rows.max() + 1 == depth
    assert pack_rows(np.array([0.0, 1.0]), np.array([1.0, 2.0])).tolist() == [0, 0]  # touching share a row


def test_empty_input_is_an_error() -> None:
    with pytest.raises(ValueError, match="nothing to draw"):
        waterfall_figure(known_timeline().iloc[0:0])


def test_sub_stage_durations_come_from_the_detail_column() -> None:
    from prooflab_analysis.schema import detail_value

    frame = pd.DataFrame({"detail": ["dur_us=5", "a=1;dur_us=7;b=2", "", "x=1", None, "dur_usx=3", "dur_us=9;a=1"]})
    assert detail_value(frame, "dur_us").tolist() == ["5", "7", pd.NA, pd.NA, pd.NA, pd.NA, "9"]


H200_TWO_LOCK = (Path(__file__).resolve().parents[2] / "results" / "2026-12-02-h200-campaign" / "h200-phase10"
                 / "base" / "two_lock_gw2_2g" / "0")


def test_the_two_lock_fallback_sync_is_drawn_from_gpu_start_on_the_worker_that_ran_it() -> None:
    """The committed H200 Phase 10 run: 13 partitions could not pre-stage and ran the
    fallback's device-wide sync inside the lock (stages.csv pre_destructor_us). Each gets one
    'fallback sync' bar on its worker's lane, from its GPU_START for that long; expected
    values read here with the csv module, not through the loaders."""
    import csv

    with open(H200_TWO_LOCK / "stages.csv", newline="") as f:
        ran = {(int(r["job"]), int(r["partition"])): int(r["pre_destructor_us"])
               for r in csv.DictReader(f) if r["pre_destructor_us"] not in ("", "0")}
    gpu_start: dict[tuple[int, int], tuple[int, int]] = {}
    first_submit = None
    with open(H200_TWO_LOCK / "timeline.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["event"] == "JOB_SUBMIT" and first_submit is None:
                first_submit = int(r["t_us"])
            if r["event"] == "GPU_START":
                gpu_start.setdefault((int(r["job"]), int(r["partition"])), (int(r["t_us"]), int(r["worker"])))
    assert len(ran) == 13 and first_submit is not None

    run = load_run(H200_TWO_LOCK)
    layout = waterfall_layout(run.timeline, stages=run.stages)
    bars = layout.bars[layout.bars["family"] == "fallback sync"]
    assert len(bars) == len(ran)
    for _, bar in bars.iterrows():
        key = (int(bar["job"]), int(bar["partition"]))
        t, worker = gpu_start[key]
        assert bar["start_s"] == pytest.approx((t - first_submit) / 1e6, abs=1e-9)
        assert bar["end_s"] - bar["start_s"] == pytest.approx(ran[key] / 1e6, abs=1e-9)
        assert layout.lanes[int(bar["lane"])] == f"dev0 w{worker} GPU"
    # without stages.csv, no such bars (and a run whose stages carry none draws none)
    assert not (waterfall_layout(run.timeline).bars["family"] == "fallback sync").any()
    fig = run_waterfall(run)
    try:
        assert "fallback sync" in legend_texts(fig)
    finally:
        plt.close(fig)
