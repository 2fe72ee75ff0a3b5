"""The C++ `prooflab` Python module (build/python): the engine config, batch runs into run
directories, the fast CSV reader, and prooflab_analysis giving the same frames and the same
errors whether it reads through the module or with pandas.

Skipped where the module is not built (a Python-only checkout, a sanitizer build).
PROOFLAB_BUILD_DIR selects another build directory than build/.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from builders import synthetic_timeline, write_known_run, write_run
from native_module import BUILD_DIR, MODULE_DIR, REPO, load_module, module_path
from prooflab_analysis import loaders
from prooflab_analysis.loaders import RunFormatError

REFERENCE = REPO / "results" / "reference-runs"

prooflab = load_module()
if prooflab is None:
    pytest.skip(
        f"the prooflab Python module is not built in {MODULE_DIR} (make build builds it; a Python-only "
        "checkout or a sanitizer build has none)",
        allow_module_level=True,
    )


# ----------------------------------------------------------------------- config


def test_config_defaults_cover_every_key() -> None:
    cfg = prooflab.EngineConfig()
    assert set(cfg.to_dict()) == set(prooflab.EngineConfig.keys())
    assert cfg["lock_policy"] == "single" and cfg["vram_limit"] is None
    assert json.loads(cfg.to_json()) == cfg.to_dict()


def test_config_set_get_and_python_values() -> None:
    cfg = prooflab.EngineConfig(constraints=4096, partitions=10, count=6, concurrency=3, throttle=True)
    cfg["lock_policy"] = "two_lock"
    cfg.set("vram_limit", "16GiB")
    cfg.update(dealloc_policy="serialized", gpu_threads=4)
    cfg.update({"gpu_workers_per_device": 3})
    d = cfg.to_dict()
    assert (d["constraints"], d["count"], d["concurrency"], d["throttle"]) == (4096, 6, 3, True)
    assert (d["lock_policy"], d["vram_limit"], d["dealloc_policy"], d["gpu_threads"]) == ("two_lock", 16 << 30,
                                                                                           "serialized", 4)
    assert d["gpu_workers_per_device"] == 3
    copy = cfg.copy()
    assert copy == cfg
    copy["count"] = 7
    assert copy != cfg and cfg["count"] == 6
    assert "lock_policy='two_lock'" in repr(cfg)


def test_config_errors_are_python_exceptions_with_the_cpp_message() -> None:
    assert issubclass(prooflab.ConfigError, ValueError)
    with pytest.raises(prooflab.ConfigError, match=r"config key 'lock_policy': bad value 'three' "
                                                   r"\(accepted: single \| two_lock \| none\)"):
        prooflab.EngineConfig(lock_policy="three")
    with pytest.raises(prooflab.ConfigError, match=r"unknown config key 'colour' \(known keys: circuit, "):
        prooflab.EngineConfig().set("colour", "red")
    with pytest.raises(prooflab.ConfigError, match=r"'partitions': bad value '0'"):
        prooflab.EngineConfig(partitions=0)
    with pytest.raises(prooflab.ConfigError, match="non-negative"):
        prooflab.EngineConfig(count=-1)
    with pytest.raises(prooflab.ConfigError, match="a float is not accepted"):
        prooflab.EngineConfig(count=1.5)
    with pytest.raises(prooflab.ConfigError, match=r"concurrency \(3\) must not exceed count \(2\)"):
        prooflab.EngineConfig(count=2, concurrency=3).validate()
    with pytest.raises(KeyError):
        prooflab.EngineConfig()["colour"]


def test_config_from_toml_matches_the_command_line(tmp_path: Path) -> None:
    cfg = prooflab.EngineConfig.from_toml(str(REPO / "experiments" / "default-cpu.toml"))
    assert cfg["constraints"] == 8192 and cfg["count"] == 4 and cfg["concurrency"] == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[engine]\nlock_policy = \"three\"\n")
    with pytest.raises(prooflab.ConfigError, match=r"bad.toml:2: config key 'lock_policy'"):
        prooflab.EngineConfig.from_toml(str(bad))


# -------------------------------------------------------------------- run_batch


@pytest.fixture(scope="module")
def param_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("params"))


def test_run_batch_writes_a_complete_run_directory(tmp_path: Path, param_dir: str) -> None:
    cfg = prooflab.EngineConfig(constraints=1024, partitions=2, count=2, concurrency=2)
    result = prooflab.run_batch(cfg, out=str(tmp_path), run_id="nb", param_dir=param_dir)
    assert result["status"] == "complete" and result["run_dir"] == str(tmp_path / "nb")
    assert result["summary"]["completed"] == 2
    run = loaders.load_run(result["run_dir"])
    assert run.status == "complete" and run.config == cfg.to_dict()
    assert run.meta["command"].startswith("python: prooflab.run_batch(")
    assert set(run.stages["partition"]) == {0, 1} and len(run.stages) == 4
    # The module's own readers see the same rows.
    tl = prooflab.read_timeline(result["run_dir"])
    assert len(tl["t_us"]) == len(run.timeline)
    assert list(tl["event"]) == list(run.timeline["event"])


def test_run_batch_config_error_raises_before_running(tmp_path: Path, param_dir: str) -> None:
    cfg = prooflab.EngineConfig(count=1)
    cfg["concurrency"] = 2
    with pytest.raises(prooflab.ConfigError, match="must not exceed count"):
        prooflab.run_batch(cfg, out=str(tmp_path), run_id="bad", param_dir=param_dir)
    assert not (tmp_path / "bad").exists()


def test_keyboard_interrupt_marks_the_run_interrupted(tmp_path: Path, param_dir: str) -> None:
    # In a child process, so that a missed interrupt cannot stop this test session. Ctrl-C
    # comes once the first proof is done (its JOB_DONE row in the timeline, which the recorder
    # flushes every 20 ms), not after a fixed time: parameters made under load can take
    # longer than any fixed delay, and a quiet machine proves all 200 in seconds.
    script = f"""
import importlib.machinery, importlib.util, pathlib, signal, threading, time
loader = importlib.machinery.ExtensionFileLoader("prooflab", {str(module_path())!r})
spec = importlib.util.spec_from_file_location("prooflab", {str(module_path())!r}, loader=loader)
prooflab = importlib.util.module_from_spec(spec); loader.exec_module(prooflab)
cfg = prooflab.EngineConfig(constraints=1024, partitions=4, count=200, concurrency=1)
# Python installs KeyboardInterrupt's handler only where SIGINT was not ignored at start-up,
# and a background job of a shell (`make test &`) starts with it ignored: install it here.
signal.signal(signal.SIGINT, signal.default_int_handler)
def interrupt_after_the_first_proof():
    timeline = pathlib.Path({str(tmp_path / "stopped" / "timeline.csv")!r})
    deadline = time.monotonic() + 100
    while time.monotonic() < deadline:
        if timeline.exists() and ",JOB_DONE," in timeline.read_text():
            break
        time.sleep(0.005)
    signal.raise_signal(signal.SIGINT)
threading.Thread(target=interrupt_after_the_first_proof, daemon=True).start()
try:
    prooflab.run_batch(cfg, out={str(tmp_path)!r}, run_id="stopped", param_dir={param_dir!r})
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "KeyboardInterrupt" in done.stdout, done.stderr
    run = loaders.load_run(tmp_path / "stopped")
    assert run.status == "interrupted"
    assert 0 < run.summary["completed"] < 200


# ------------------------------------------------------------------ fast reader


def test_read_csv_columns_types(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("t_us,event,job,partition,extra\n5,JOB_SUBMIT,0,,x\n7,SYNTH_START,0,3,\n")
    cols = prooflab.read_csv_columns(str(path), ["t_us", "job", "partition"])
    assert list(cols) == ["t_us", "event", "job", "partition", "extra"]
    assert isinstance(cols["partition"], np.ma.MaskedArray) and cols["partition"].dtype == np.int64
    assert list(np.ma.getmaskarray(cols["partition"])) == [True, False] and cols["partition"][1] == 3
    assert list(np.ma.getdata(cols["t_us"])) == [5, 7]
    assert cols["event"].dtype == object and list(cols["event"]) == ["JOB_SUBMIT", "SYNTH_START"]
    assert list(cols["extra"]) == ["x", ""]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('a,b\n1,"x,y"\n', "quoted"),
        ("a,b\n1,2\n3,4", "no newline at the end"),
        ("a,b\n1,2\n3\n", "field count"),
        ("a,b\n1.5,2\n", "plain integer"),
        ("a,b\n+1,2\n", "plain integer"),
        (f"a,b\n{2**53 + 1},2\n", "plain integer"),
        ("a,b\n", "no data rows"),
        ("a,a\n1,2\n", "repeated header"),
        ("a,b\n1,2\n\n3,4\n", "blank line"),
    ],
)
def test_read_csv_columns_declines_anything_but_the_plain_form(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(prooflab.CsvDeclined, match=reason):
        prooflab.read_csv_columns(str(path), ["a"])


def test_the_committed_reference_run_takes_the_fast_path() -> None:
    run_dir = REFERENCE / "porep-c6-j3"
    timeline = prooflab.read_timeline(str(run_dir))
    stages = prooflab.read_stages(str(run_dir))
    assert len(stages["job"]) == 60 and set(np.ma.getdata(stages["partition"])) == set(range(10))
    assert timeline["event"][0] == "JOB_SUBMIT"


# ------------------------------------- prooflab_analysis: fast path == pandas path


def _read_both(monkeypatch: pytest.MonkeyPatch, read: Any, *args: Any) -> tuple[Any, Any, list[str]]:
    """`read(*args)` through pandas and through the module; the files the module accepted."""
    monkeypatch.setattr(loaders, "_fast_reader", lambda: None)
    slow = read(*args)
    accepted: list[str] = []

    def reader(path: str, int_columns: list[str]) -> Any:
        columns = prooflab.read_csv_columns(path, int_columns)
        accepted.append(Path(path).name)
        return columns

    monkeypatch.setattr(loaders, "_fast_reader", lambda: reader)
    fast = read(*args)
    return slow, fast, accepted


def _assert_same_run(slow: loaders.Run, fast: loaders.Run) -> None:
    for name in ("timeline", "stages", "cupti", "counters"):
        pd.testing.assert_frame_equal(getattr(fast, name), getattr(slow, name), check_exact=True, obj=name)
    assert fast.meta == slow.meta and fast.summary == slow.summary and fast.notes == slow.notes


def _reference_runs() -> list[Path]:
    runs = [REFERENCE / "porep-c6-j3"]
    runs += sorted((REFERENCE / "two-lock-ab" / "runs").iterdir())
    return runs


@pytest.mark.parametrize("run_dir", _reference_runs(), ids=lambda p: p.name)
def test_fast_and_pandas_loaders_agree_on_the_reference_runs(monkeypatch: pytest.MonkeyPatch, run_dir: Path) -> None:
    slow, fast, accepted = _read_both(monkeypatch, loaders.load_run, run_dir)
    _assert_same_run(slow, fast)
    assert {"timeline.csv", "stages.csv"} <= set(accepted)


def test_fast_and_pandas_loaders_agree_on_the_fixture_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    known = write_known_run(tmp_path / "known", drop={(1, 1)})
    slow, fast, accepted = _read_both(monkeypatch, loaders.load_run, known)
    _assert_same_run(slow, fast)
    assert "timeline.csv" in accepted
    big = write_run(tmp_path / "big", synthetic_timeline(200_000))
    slow, fast, accepted = _read_both(monkeypatch, loaders.load_run, big)
    _assert_same_run(slow, fast)
    assert accepted == ["timeline.csv"]


def test_fast_and_pandas_loaders_agree_on_an_experiment(monkeypatch: pytest.MonkeyPatch) -> None:
    slow, fast, accepted = _read_both(monkeypatch, loaders.load_experiment, REFERENCE / "two-lock-ab")
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert accepted == ["index.csv"]


def test_a_cut_off_last_line_goes_to_the_pandas_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    run = write_known_run(tmp_path / "run", status="interrupted")
    timeline = run / "timeline.csv"
    timeline.write_text(timeline.read_text() + "123,GPU_ST")
    slow, fast, accepted = _read_both(monkeypatch, loaders.load_run, run)
    _assert_same_run(slow, fast)
    assert fast.notes and "dropped partial last line" in fast.notes[0]
    assert "timeline.csv" not in accepted


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (",GPU_START,", ",gpu_start,"),  # bad event name
        (",SYNTH_START,0,0,", ",SYNTH_START,0,1.5,"),  # non-integer partition
        (",SYNTH_START,0,0,", ",SYNTH_START,0,-1,"),  # below the minimum
        (",SYNTH_START,0,0,", ",SYNTH_START,0,0,,,,"),  # too many fields
        ("t_us,event,", "time,event,"),  # missing column
    ],
)
def test_malformed_files_give_the_same_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, old: str,
                                             new: str) -> None:
    run = write_known_run(tmp_path / "run")
    timeline = run / "timeline.csv"
    text = timeline.read_text()
    assert old in text
    timeline.write_text(text.replace(old, new, 1))
    errors = []
    for reader in (lambda: None, lambda: prooflab.read_csv_columns):
        monkeypatch.setattr(loaders, "_fast_reader", reader)
        with pytest.raises(RunFormatError) as caught:
            loaders.load_run(run)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_the_environment_can_turn_the_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROOFLAB_FAST_LOADER", "0")
    assert not loaders.fast_loader_active()
    loaders.use_fast_loader(False)
    try:
        monkeypatch.delenv("PROOFLAB_FAST_LOADER")
        assert not loaders.fast_loader_active()
    finally:
        loaders.use_fast_loader(None)


# ----------------------------------------------------------------------- API surface


def _documentation(obj: Any) -> str:
    """A pybind11 docstring without its generated signature lines ("name(args) -> ret")."""
    lines = (obj.__doc__ or "").splitlines()
    return "\n".join(line for line in lines if not re.match(r"^\s*(\d+\. )?\w+\(.*\)( -> .*)?$", line) and line.strip() != "Overloaded function.").strip()


def test_every_public_function_and_method_has_a_docstring() -> None:
    assert _documentation(prooflab), "module docstring"
    undocumented = [name for name in dir(prooflab) if not name.startswith("_") and callable(getattr(prooflab, name))
                    and not _documentation(getattr(prooflab, name))]
    undocumented += [f"EngineConfig.{name}" for name in dir(prooflab.EngineConfig) if not name.startswith("_")
                     and not _documentation(getattr(prooflab.EngineConfig, name))]
    assert undocumented == []


BIN = BUILD_DIR / "bin" / "prooflab"


@pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is not built")
def test_export_trace_writes_what_prooflab_trace_writes(tmp_path: Path) -> None:
    ours = tmp_path / "module.json"
    got = prooflab.export_trace(str(REFERENCE / "porep-c6-j3"), str(ours))
    cli = subprocess.run([str(BIN), "trace", str(REFERENCE / "porep-c6-j3"), "--out", str(tmp_path / "cli.json")],
                         capture_output=True, text=True, check=True)
    assert json.loads(ours.read_text()) == json.loads((tmp_path / "cli.json").read_text())
    m = re.search(r": (\d+) slices on (\d+) tracks, (\d+) counter points", cli.stdout)
    assert m, cli.stdout
    assert (got["path"], got["slices"], got["tracks"], got["counter_points"]) == (str(ours), *map(int, m.groups()))
    assert not (tmp_path / "module.json.tmp").exists()


def test_export_trace_of_a_malformed_run_names_the_file(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "timeline.csv").write_text("t_us,event,job\n12,SYNTH_START\n")
    with pytest.raises(RuntimeError, match=re.escape(str(run / "timeline.csv"))):
        prooflab.export_trace(str(run))
    assert not (run / "trace.json").exists()


@pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is not built")
def test_version_is_the_command_lines() -> None:
    cli = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, check=True)
    assert prooflab.version() == cli.stdout.strip()


def test_the_module_runs_the_cuda_backend_where_the_build_has_it(tmp_path: Path) -> None:
    """The module links the harness library, CUDA backend included where nvcc built it
    (issue 23 item 2): backend=cuda then reaches the CUDA runtime — a run on a machine with a
    GPU, the runtime's own reason without one — and only a build without CUDA says so."""
    built_with_cuda = "cuda    on" in prooflab.version()
    cfg = prooflab.EngineConfig(backend="cuda", constraints=1024, partitions=2, count=1)
    try:
        outcome = prooflab.run_batch(cfg, out=str(tmp_path), run_id="cuda")
    except RuntimeError as e:
        if built_with_cuda:
            assert "no usable CUDA device" in str(e), e
        else:
            assert "CUDA" in str(e) and "usable" not in str(e), e
        return
    assert built_with_cuda
    meta = json.loads((tmp_path / "cuda" / "run.json").read_text())
    assert meta["config"]["backend"] == "cuda" and meta["status"] == "complete", outcome


# ----------------------------------------------------------------------- the command line


def test_matrix_sweep_and_regress_run_in_process_and_return_what_the_cli_would(tmp_path: Path) -> None:
    """prooflab.matrix / sweep / regress / cli are the command line in this process (issue 23
    item 8): the same directories, the same statuses, and the Python process survives a
    command that exits non-zero (regress used to call exit)."""
    exp_dir = prooflab.matrix(str(REPO / "experiments" / "ci-smoke.toml"), out=str(tmp_path / "m"), reps=1)
    experiment = loaders.load_experiment(exp_dir)
    assert Path(exp_dir) == tmp_path / "m" / "ci-smoke" and set(experiment["status"]) == {"complete"}

    sweep_dir = prooflab.sweep([2], [1, 2], sets=["circuit=tiny", "partitions=2"], out=str(tmp_path / "s"))
    swept = loaders.load_experiment(sweep_dir)
    assert Path(sweep_dir) == tmp_path / "s" / "sweep-c2-j1-2"
    assert sorted(zip(swept["count"], swept["concurrency"])) == [(2, 1), (2, 2)]
    assert set(swept["status"]) == {"complete"}

    # Nothing compared is exit status 3, returned, not exited with.
    assert prooflab.regress(str(REPO / "results" / "baselines" / "cpu.json"), [str(exp_dir)]) == 3
    report = tmp_path / "r.json"
    status = prooflab.regress(str(REPO / "results" / "baselines" / "gpu-h200.json"),
                              [str(REPO / "results" / "2026-12-02-h200-campaign" / "h200-pw-sweep")], json=str(report))
    assert status == 0 and json.loads(report.read_text())["exit_status"] == 0

    with pytest.raises(ValueError, match="bogus"):
        prooflab.cli(["matrix", "x.toml", "--bogus"])
    with pytest.raises(prooflab.ConfigError, match="unknown config key 'nope'"):
        prooflab.cli(["batch", "--set", "nope=1", "--out", str(tmp_path)])
    assert prooflab.cli(["--version"]) == 0
    for fn in (prooflab.cli, prooflab.matrix, prooflab.sweep, prooflab.regress, prooflab.export_trace):
        assert fn.__doc__ and len(fn.__doc__) > 80, fn
