"""What `prooflab` guarantees under faults and bad input (docs/faults.md), checked through the
binary that `make test` builds (build/bin/prooflab; PROOFLAB_BIN overrides it), with the
parameter cache in a temporary directory. They skip, saying why, when the binary is missing.

Each test is named for the guarantee it checks; docs/faults.md lists them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from prooflab_cli import BIN, prooflab

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"{BIN} is missing: build it first (make test builds it)")

TINY = ["--set", "circuit=tiny", "--set", "partitions=2"]


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The one `prooflab: error:` line of a failed command."""
    lines = [line for line in proc.stderr.splitlines() if line.startswith("prooflab: error: ")]
    assert len(lines) == 1, proc.stdout + proc.stderr
    return lines[0].removeprefix("prooflab: error: ")


# ------------------------------------------------------------------ proofs (item 6)


def test_batch_written_proofs_verify_with_the_cli(tmp_path: Path, env: dict[str, str]) -> None:
    proc = prooflab(["batch", "--count", "2", *TINY, "--out", str(tmp_path), "--run-id", "r"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    jobs = sorted((tmp_path / "r" / "proofs").iterdir())
    assert [j.name for j in jobs] == ["job_0", "job_1"]
    for job in jobs:
        inputs = json.loads((job / "public_inputs.json").read_text())
        assert inputs["shape_hash"] != 0
        check = prooflab(["verify", "--proof", str(job / "proof.bin"), "--inputs", str(job / "public_inputs.json")],
                         env, cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "verify: all 2 partition proofs valid" in check.stdout
    # A flipped byte in a batch-written proof is still refused.
    proof = jobs[0] / "proof.bin"
    data = bytearray(proof.read_bytes())
    data[200] ^= 0x01
    proof.write_bytes(bytes(data))
    check = prooflab(["verify", "--proof", str(proof), "--inputs", str(jobs[0] / "public_inputs.json")], env, cwd=tmp_path)
    assert check.returncode != 0


# ------------------------------------------------------- silently accepted input (item 7)


def test_keys_outside_engine_and_misspelt_tables_are_errors(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('count = 2\n[engine]\ncircuit = "tiny"\npartitions = 1\n')
    proc = prooflab(["batch", "--config", str(config), "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert error_line(proc) == f"{config}:1: key 'count' outside [engine] (a config with an [engine] table holds every key in it)"

    config.write_text('[engine]\ncircuit = "tiny"\npartitions = 1\n[engin]\ncount = 2\n')
    proc = prooflab(["batch", "--config", str(config), "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert error_line(proc).startswith(f"{config}:4: unexpected table [engin]")
    assert not list(tmp_path.glob("*/run.json")), "nothing may run on a refused config"


@pytest.mark.parametrize("command", ["batch", "run"])
def test_a_directory_or_a_device_as_config_is_refused(tmp_path: Path, env: dict[str, str], command: str) -> None:
    (tmp_path / "confdir").mkdir()
    for path, why in [(tmp_path / "confdir", "is a directory, not a file"),
                      (Path("/dev/urandom"), "not a regular file"),
                      (Path("/dev/zero"), "not a regular file"),
                      (tmp_path / "missing.toml", "no such file")]:
        args = ["--config", str(path)] if command == "batch" else [str(path)]
        proc = prooflab([command, *args, "--out", str(tmp_path / "out")], env, cwd=tmp_path, timeout=20)
        assert proc.returncode != 0, f"{path} was accepted as a config"
        assert error_line(proc).startswith(f"engine config {path}: {why}"), proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("run_id", ["../escaped", "a/../../escaped", "/abs/escaped", "..", "a//b", "two words"])
def test_run_ids_cannot_leave_out(tmp_path: Path, env: dict[str, str], run_id: str) -> None:
    out = tmp_path / "a" / "out"
    proc = prooflab(["batch", *TINY, "--out", str(out), "--run-id", run_id], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert error_line(proc).startswith(f"run id '{run_id}': ")
    assert not out.exists() and not (tmp_path / "a" / "escaped").exists() and not (tmp_path / "escaped").exists()


def test_reusing_a_run_id_is_refused_unless_forced(tmp_path: Path, env: dict[str, str]) -> None:
    first = prooflab(["batch", "--count", "2", *TINY, "--out", str(tmp_path), "--run-id", "r"], env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    run = tmp_path / "r"
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}

    again = prooflab(["batch", *TINY, "--out", str(tmp_path), "--run-id", "r"], env, cwd=tmp_path)
    assert again.returncode != 0
    assert error_line(again) == (f"run directory {run} already holds a run (status complete); "
                                 "choose another --run-id, or pass --force to replace it")
    assert {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()} == before

    forced = prooflab(["batch", *TINY, "--out", str(tmp_path), "--run-id", "r", "--force"], env, cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    # Replaced, not mixed: the one-proof run left no second job of the first run behind.
    assert sorted(p.name for p in (run / "proofs").iterdir()) == ["job_0"]
    assert json.loads((run / "run.json").read_text())["config"]["count"] == 1


def test_a_dropped_unit_is_out_of_range_not_another_number(tmp_path: Path, env: dict[str, str]) -> None:
    proc = prooflab(["batch", *TINY, "--set", "host_mem_budget=99999999999TiB", "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode != 0
    most = (2**64 - 1) // 2**40
    assert error_line(proc) == (f"--set: config key 'host_mem_budget': '99999999999TiB' is out of range "
                                f"(at most {most}TiB, 2^64 - 1 bytes)")


def test_an_error_quotes_at_most_200_characters_of_the_input(tmp_path: Path, env: dict[str, str]) -> None:
    long_value = "x" * 5000
    config = tmp_path / "c.toml"
    config.write_text(f'circuit = "{long_value}"\n')
    proc = prooflab(["batch", "--config", str(config), "--out", str(tmp_path)], env, cwd=tmp_path)
    assert proc.returncode != 0
    message = error_line(proc)
    assert "x" * 200 in message and "x" * 201 not in message
    assert "5000 characters in all" in message
    assert message.startswith(f"{config}:1: config key 'circuit': bad value ")


# ------------------------------------------------------- hangs and unbounded resources (item 5)


@pytest.mark.parametrize(("args", "message"), [
    (["batch", "--concurrency", "0", *TINY], "--concurrency: config key 'concurrency': bad value '0' (accepted: an integer from 1 to 10000)"),
    (["batch", "--count", "0", *TINY], "--count: config key 'count': bad value '0' (accepted: an integer from 1 to 1000000)"),
    (["batch", "--count", "99999999999", *TINY], "--count: config key 'count': bad value '99999999999'"),
    (["setup", "--circuit", "tiny", "--threads", "100000"], "--threads: Value 100000 not in range 0 to 4096"),
    (["prove", "--circuit", "tiny", "--gpu-threads", "100000"], "--gpu-threads: Value 100000 not in range 0 to 4096"),
    (["prove", "--circuit", "bogus"], "--circuit: config key 'circuit': bad value 'bogus'"),
    (["sweep", "--c", "2,0", "--j", "1"], "--c: config key 'count': bad value '0'"),
    (["sweep", "--c", "2", "--j", "1", "--warmup", "4000000000"], "--warmup: Value 4000000000 not in range 0 to 1000"),
    (["matrix", "/dev/zero"], "prooflab: error: experiment file /dev/zero: not a regular file"),
    (["gpu-phase", "--vram-limit", "12parsecs"],
     "--vram-limit: bad value '12parsecs' (accepted: a byte count such as 1048576, 512MiB, 16GiB (binary units))"),
    # gpu-phase takes an option's last value: the second --reps is the one checked.
    (["gpu-phase", "--reps", "5", "--reps", "0"], "--reps: Value 0 not in range 1 to 1000"),
])
def test_options_are_validated_like_config_keys_before_any_work(
    tmp_path: Path, env: dict[str, str], args: list[str], message: str
) -> None:
    params = tmp_path / "params"
    proc = prooflab([*args, "--param-dir", str(params)], env, cwd=tmp_path, timeout=20)
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
    assert not any(tmp_path.iterdir()), "work started before the options were checked"


# ----------------------------------------------------------- a full disk (item 2)


@pytest.fixture
def small_tmpfs(tmp_path: Path, request: pytest.FixtureRequest):
    """A mounted tmpfs of the given options (`size=160k` or `nr_inodes=30`), unmounted after."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    options = request.param
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount_point)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {proc.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


@pytest.mark.parametrize("small_tmpfs", ["size=20m"], indirect=True)
def test_run_json_keeps_room_to_record_the_end_on_a_full_disk(tmp_path: Path, env: dict[str, str],
                                                               small_tmpfs: Path) -> None:
    # The final run.json (end time, status, every write error) is rewritten in place when the
    # disk has no room for a new file: each run.json keeps 16 KiB allocated past its text for
    # that (fallocate, KEEP_SIZE), whatever its length; without it a run.json whose final text
    # crossed a block boundary failed the run with "cannot write run.json" instead of its own error.
    proc = prooflab(["batch", "--count", "1", "--set", "circuit=tiny", "--set", "partitions=1",
                     "--out", str(small_tmpfs), "--run-id", "r"], env, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    st = (small_tmpfs / "r" / "run.json").stat()
    assert st.st_blocks * 512 >= st.st_size + 16 * 1024


def csv_rows_are_whole(path: Path) -> int:
    text = path.read_text()
    assert text.endswith("\n"), f"{path} ends mid-row"
    lines = text.splitlines()
    fields = lines[0].count(",")
    for n, line in enumerate(lines[1:], start=2):
        assert line.count(",") == fields, f"{path}:{n}: {line!r}"
    return len(lines) - 1


@pytest.mark.parametrize("small_tmpfs", ["size=160k", "size=20m,nr_inodes=30"], indirect=True, ids=["no-space", "no-inodes"])
def test_a_full_disk_fails_the_run_and_keeps_what_it_wrote(tmp_path: Path, env: dict[str, str], small_tmpfs: Path) -> None:
    proc = prooflab(["batch", "--count", "60", "--concurrency", "2", "--set", "circuit=tiny", "--set", "partitions=1",
                     "--out", str(small_tmpfs), "--run-id", "r"], env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # an error, not a crash or an abort
    assert "terminate called" not in proc.stderr
    assert error_line(proc).startswith(f"{60 - proc.stdout.count(' COMPLETED ')} proofs failed")
    run = small_tmpfs / "r"
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "failed"
    # What else could not be written (timeline rows, summary.json) is named in run.json.
    assert "error" not in meta or "No space left on device" in meta["error"]
    assert not [p for p in small_tmpfs.rglob("*") if ".tmp" in p.name], "a temporary file was left behind"

    # Every proof reported COMPLETED is on disk whole and verifies; no other job directory exists.
    completed = proc.stdout.count(" COMPLETED ")
    failed_lines = [line for line in proc.stdout.splitlines() if " FAILED " in line]
    assert completed + len(failed_lines) == 60
    assert completed > 0 and failed_lines, "the disk was meant to fill up part-way"
    assert all("writing the proofs: " in line and "No space left on device" in line for line in failed_lines)
    jobs = sorted((run / "proofs").iterdir())
    assert len(jobs) == completed
    for job in jobs:
        assert (job / "proof.bin").stat().st_size == 192
        check = prooflab(["verify", "--proof", str(job / "proof.bin"), "--inputs", str(job / "public_inputs.json")],
                         env, cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr

    # The CSVs end in whole rows and the analysis reads them.
    assert csv_rows_are_whole(run / "stages.csv") >= completed
    csv_rows_are_whole(run / "timeline.csv")
    from prooflab_analysis.loaders import load_run

    loaded = load_run(run)
    assert loaded.status == "failed"


# ------------------------------------------- concurrent parameter generation (item 3)


def test_processes_sharing_an_empty_parameter_cache_prove_with_the_key_on_disk(tmp_path: Path, env: dict[str, str]) -> None:
    cache = tmp_path / "cache"
    # Setup of this shape takes ~1 s, so every process generates its own key at the same time.
    procs = [subprocess.Popen([str(BIN), "prove", "--circuit", "porep-like", "--constraints", "4096", "--partitions", "1",
                               "--param-dir", str(cache), "--out", str(tmp_path / f"proof{i}")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
             for i in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, out + err
        assert "all verified" in out
    assert sum("setup: wrote " in out for out, _ in outputs) == 1, "exactly one key is published"
    assert [p.name for p in cache.iterdir()] == [next(cache.iterdir()).name]
    assert next(cache.iterdir()).name.endswith(".params"), "no temporary file is left behind"
    for i in range(4):
        check = prooflab(["verify", "--proof", str(tmp_path / f"proof{i}" / "proof.bin"),
                          "--inputs", str(tmp_path / f"proof{i}" / "public_inputs.json"), "--param-dir", str(cache)],
                         env, cwd=tmp_path)
        assert check.returncode == 0, f"process {i} proved with a key other than the cached one: {check.stdout}"


# ----------------------------------------------------------------- messages (item 8)


def test_a_closed_stdout_ends_the_run_interrupted(tmp_path: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen([str(BIN), "batch", "--count", "5000", "--concurrency", "2", "--set", "circuit=tiny",
                             "--set", "partitions=1", "--out", str(tmp_path), "--run-id", "r"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    while b"COMPLETED" not in proc.stdout.readline():
        pass
    proc.stdout.close()  # what `prooflab batch ... | head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1, err
    assert "prooflab: error: interrupted: the run directory is marked interrupted" in err
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["status"] == "interrupted"
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert 0 < summary["completed"] < 5000 and summary["interrupted"] is True


def test_proof_files_of_the_wrong_kind_are_named(tmp_path: Path, env: dict[str, str]) -> None:
    proof, inputs = tmp_path / "proof.bin", tmp_path / "inputs.json"
    proof.write_bytes(bytes(192))
    cases = [
        ('{"circuit": 5}', f"{inputs}: key 'circuit' must be a string"),
        ('{"circuit": "tiny", "constraints": -1}', f"{inputs}: key 'constraints' must be an unsigned integer"),
        ('{"circuit": "tiny", "constraints": 4, "shape_hash": 1, "public_inputs": "x"}',
         f"{inputs}: key 'public_inputs' must be an array (one list per partition)"),
        ("\x89PNG not json", f"{inputs}: not JSON (syntax error at byte 1)"),
    ]
    for text, message in cases:
        inputs.write_text(text)
        proc = prooflab(["verify", "--proof", str(proof), "--inputs", str(inputs)], env, cwd=tmp_path)
        assert proc.returncode != 0
        assert error_line(proc) == message
    proc = prooflab(["verify", "--proof", str(tmp_path), "--inputs", str(inputs)], env, cwd=tmp_path)
    assert error_line(proc).startswith(f"public inputs {inputs}") or "not JSON" in error_line(proc)
    proc = prooflab(["verify", "--proof", str(proof), "--inputs", str(tmp_path)], env, cwd=tmp_path)
    assert error_line(proc) == f"public inputs {tmp_path}: is a directory, not a file"


def test_kill_9_keeps_every_row_written(tmp_path: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen([str(BIN), "batch", "--count", "5000", "--concurrency", "2", "--set", "circuit=tiny",
                             "--set", "partitions=1", "--out", str(tmp_path), "--run-id", "r"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    assert proc.stdout is not None
    completed = 0
    while completed < 50:
        completed += b"COMPLETED" in proc.stdout.readline()
    proc.kill()
    proc.wait(timeout=30)
    run = tmp_path / "r"
    assert json.loads((run / "run.json").read_text())["status"] == "running"  # read as interrupted
    assert csv_rows_are_whole(run / "stages.csv") >= completed
    assert csv_rows_are_whole(run / "timeline.csv") > 0
    assert len(list((run / "proofs").iterdir())) >= completed
    from prooflab_analysis.loaders import load_run

    assert load_run(run).status == "running"
