"""Loading run directories and experiment indexes: columns, dtypes, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from builders import known_timeline, run_meta, write_known_run, write_run
from prooflab_analysis import schema
from prooflab_analysis.loaders import RunFormatError, load_experiment, load_run


def test_known_run_loads_with_documented_columns_and_dtypes(tmp_path: Path) -> None:
    run = load_run(write_known_run(tmp_path / "run"))
    assert list(run.timeline.columns) == schema.TIMELINE_COLUMNS
    assert len(run.timeline) == len(known_timeline())
    assert str(run.timeline["t_us"].dtype) == "int64"
    for col in ("job", "partition", "worker", "device"):
        assert str(run.timeline[col].dtype) == "Int64"
    assert list(run.stages.columns)[: len(schema.STAGES_COLUMNS)] == schema.STAGES_COLUMNS
    assert len(run.stages) == 6
    assert list(run.cupti.columns) == schema.CUPTI_COLUMNS
    assert run.cupti["name"].iloc[0] == "msm_kernel<int, 3>"  # a quoted field with a comma
    assert list(run.counters.columns) == schema.COUNTERS_COLUMNS
    assert run.run_id == "known"
    assert run.expected_partitions == 2
    assert run.summary["s_per_proof"] == 0.4
    # Job-level events have no partition: the nullable column keeps them as NA.
    submit = run.timeline[run.timeline["event"] == "JOB_SUBMIT"]
    assert submit["partition"].isna().all()


def test_missing_optional_files_give_empty_frames_with_columns(tmp_path: Path) -> None:
    path = write_run(tmp_path / "run", known_timeline(), meta=run_meta())
    run = load_run(path)
    assert run.stages.empty and list(run.stages.columns)[:21] == schema.STAGES_COLUMNS
    assert run.cupti.empty and list(run.cupti.columns) == schema.CUPTI_COLUMNS
    assert run.counters.empty and list(run.counters.columns) == schema.COUNTERS_COLUMNS
    assert run.summary == {}


def test_directory_without_run_files_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFormatError, match="not a run directory"):
        load_run(tmp_path / "empty")


def _corrupt(path: Path, line_no: int, new_line: str) -> None:
    lines = path.read_text().split("\n")
    lines[line_no - 1] = new_line
    path.write_text("\n".join(lines))


@pytest.mark.parametrize(
    "bad_line, reason",
    [
        ("12x,GPU_START,0,0,0,0,", "'t_us' value '12x' is not an integer"),
        ("1.5,GPU_START,0,0,0,0,", "'t_us' value '1.5' is not an integer"),
        ("100,gpu start,0,0,0,0,", "'event' value 'gpu start' does not match"),
        ("100,GPU_START,0,0,0,0", "expected 7 fields, found 6"),
        ("100,GPU_START,0,0,0,0,,extra", "expected 7 fields, found 8"),
        ("100,GPU_START,0,-1,0,0,", "'partition' value '-1' is below 0"),
        ("", "blank line inside the data"),
    ],
)
def test_malformed_timeline_line_names_file_line_and_content(tmp_path: Path, bad_line: str, reason: str) -> None:
    path = write_known_run(tmp_path / "run")
    _corrupt(path / "timeline.csv", 5, bad_line)
    with pytest.raises(RunFormatError) as info:
        load_run(path)
    err = info.value
    assert err.line == 5
    assert err.content == bad_line
    assert err.path.endswith("timeline.csv")
    assert reason in str(err)
    assert "timeline.csv:5" in str(err)


def test_header_must_name_the_documented_columns(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run")
    _corrupt(path / "timeline.csv", 1, "t_us,event,job,partition,worker,detail")
    with pytest.raises(RunFormatError, match=r"lacks column\(s\) \['device'\]"):
        load_run(path)


def test_cupti_end_before_start_is_an_error(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run")
    _corrupt(path / "cupti.csv", 3, "KERNEL,0,7,k,500.0,400.0,,9")
    with pytest.raises(RunFormatError, match="end_us is before start_us") as info:
        load_run(path)
    assert info.value.line == 3


def test_invalid_run_json_reports_line(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run")
    (path / "run.json").write_text('{\n  "run_id": "x",\n  "status": complete\n}\n')
    with pytest.raises(RunFormatError, match="invalid JSON") as info:
        load_run(path)
    assert info.value.line == 3


def test_unknown_status_is_an_error(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run", status="done")
    with pytest.raises(RunFormatError, match="status 'done'"):
        load_run(path)


def test_interrupted_run_drops_a_cut_off_last_line_and_says_so(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run", status="interrupted")
    text = (path / "timeline.csv").read_text()
    (path / "timeline.csv").write_text(text + "1300000,DEALL")  # killed mid-write
    run = load_run(path)
    assert len(run.timeline) == len(known_timeline())
    assert len(run.notes) == 1 and "dropped partial last line" in run.notes[0]


def test_complete_run_with_a_cut_off_last_line_is_an_error(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run", status="complete")
    text = (path / "timeline.csv").read_text()
    (path / "timeline.csv").write_text(text + "1300000,DEALL")
    n_lines = text.count("\n") + 1
    with pytest.raises(RunFormatError) as info:
        load_run(path)
    assert info.value.line == n_lines


def test_experiment_index_joins_run_summaries(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    write_run(exp / "runs/a", meta=run_meta("a"), summary={"s_per_proof": 38.0, "wall_s": {"avg": 61.0}})
    write_run(exp / "runs/b", meta=run_meta("b"))
    pd.DataFrame(
        [
            {"experiment": "e", "cell": "c20_j15", "variant": "baseline", "rep": 0, "order": 0,
             "run_dir": "runs/a", "status": "complete", "concurrency": 15, "dealloc_policy": "async"},
            {"experiment": "e", "cell": "c20_j15", "variant": "serialized", "rep": 0, "order": 1,
             "run_dir": "runs/b", "status": "failed", "concurrency": 15, "dealloc_policy": "serialized"},
        ]
    ).to_csv(exp / "index.csv", index=False)
    frame = load_experiment(exp)
    assert list(frame.columns[:7]) == schema.INDEX_COLUMNS
    assert frame["concurrency"].tolist() == [15, 15]  # numeric axis
    assert frame["dealloc_policy"].tolist() == ["async", "serialized"]
    assert frame["summary.s_per_proof"].iloc[0] == 38.0
    assert frame["summary.wall_s.avg"].iloc[0] == 61.0
    assert pd.isna(frame["summary.s_per_proof"].iloc[1])
    assert frame["run_path"].iloc[0] == str((exp / "runs/a").resolve())
    assert frame.attrs["experiment_dir"] == str(exp.resolve())


def test_experiment_index_missing_column_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "index.csv").write_text("experiment,cell,variant,rep,run_dir,status\ne,c,v,0,r,complete\n")
    with pytest.raises(RunFormatError, match="order"):
        load_experiment(tmp_path)


def test_experiment_index_status_outside_the_three_is_an_error(tmp_path: Path) -> None:
    header = "experiment,cell,variant,rep,order,run_dir,status\n"
    (tmp_path / "index.csv").write_text(header + "e,c,v,0,0,r,complete\ne,c,v,1,1,s,COMPLETE\n")
    with pytest.raises(RunFormatError, match="COMPLETE") as info:
        load_experiment(tmp_path)
    assert info.value.line == 3
    assert "index.csv" in str(info.value)


def test_run_json_roundtrip_keeps_config(tmp_path: Path) -> None:
    path = write_known_run(tmp_path / "run")
    run = load_run(path)
    assert run.config == json.loads((path / "run.json").read_text())["config"]


def test_a_format_error_quotes_at_most_200_characters_of_the_line(tmp_path: Path) -> None:
    # issue 17 item 8: a garbled megabyte-long line must not become a megabyte-long message
    from prooflab_analysis.loaders import RunFormatError

    line = "x" * 1_000_000
    text = str(RunFormatError(tmp_path / "timeline.csv", "bad row", line=7, content=line))
    assert len(text) < 400
    assert f"{1_000_000 - 200} more characters" in text
