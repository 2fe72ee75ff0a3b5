"""`prooflab matrix --executor slurm` against a real one-node Slurm cluster started on this
machine (slurm_cluster.py: munged, MariaDB, slurmdbd, slurmctld, slurmd), nothing mocked.

The ci-smoke matrix (experiments/ci-smoke-slurm.toml: ci-smoke's 10 runs, each run's proofs
one after another so that a cancelled run stops early) goes in as one job array; one task
is cancelled with scancel while it runs; a plain `prooflab matrix` then resubmits that run alone (sacct says
CANCELLED), and the experiment ends with every run complete exactly once, each run
directory whole and recording its job, task and node. With --no-wait the command returns at
once and a second one follows the queued tasks without submitting them again.

Skips, saying why, when the binary is missing or the daemons cannot start here.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

import slurm_cluster
from test_experiments_cli import BIN, EXPERIMENTS, _why_unusable, prooflab

SMOKE = str(EXPERIMENTS / "ci-smoke-slurm.toml")
RUN_FILES = ["run.json", "summary.json", "timeline.csv", "stages.csv"]

_WHY = _why_unusable()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    try:
        c = slurm_cluster.start(tmp_path_factory.mktemp("slurm"))
    except slurm_cluster.ClusterUnavailable as e:
        pytest.skip(f"no Slurm cluster on this machine: {e}")
    yield c
    c.stop()


@pytest.fixture(scope="module")
def env(cluster: slurm_cluster.SlurmCluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    e = dict(cluster.env)
    e["PROOFLAB_PARAM_DIR"] = str(tmp_path_factory.mktemp("params"))
    e.pop("TERM", None)
    return e


PROOFS_PER_RUN = 6  # experiments/ci-smoke-slurm.toml's count


def proofs_done(run_dir: Path) -> int:
    """Proofs a run has finished, from its timeline (JOB_DONE rows; the recorder flushes every
    20 ms, so this may lag by what a stopped process had not yet written)."""
    meta = run_dir / "run.json"
    if meta.exists() and json.loads(meta.read_text())["status"] != "running":
        return PROOFS_PER_RUN
    timeline = run_dir / "timeline.csv"
    if not timeline.exists():
        return 0
    return sum(1 for line in timeline.read_text().splitlines() if ",JOB_DONE," in line)


def task_pids(job: str, task: int) -> list[int]:
    """The processes of array task `job`_`task` on this (the only) node, found by the
    environment slurmd gives them."""
    want = {f"SLURM_ARRAY_JOB_ID={job}".encode(), f"SLURM_ARRAY_TASK_ID={task}".encode()}
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if want <= set((entry / "environ").read_bytes().split(b"\0")):
                pids.append(int(entry.name))
        except OSError:
            continue  # gone, or not ours to read
    return pids


def thread_states(job: str, task: int) -> list[str]:
    """The /proc state letter of every thread of the task's processes (empty once it has none)."""
    states = []
    for pid in task_pids(job, task):
        try:
            states += [(t / "stat").read_text().rsplit(")", 1)[1].split()[0]
                       for t in Path(f"/proc/{pid}/task").iterdir()]
        except OSError:
            continue
    return states


def all_stopped(states: list[str]) -> bool:
    return all(st in ("T", "t", "Z", "X") for st in states)


def wait_stopped(job: str, task: int, timeout: float = 10) -> bool:
    """True once every thread of the task's processes is stopped (state T), False if the
    task has no processes left; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        states = thread_states(job, task)
        if not states:
            return False
        if all_stopped(states):
            return True
        assert time.monotonic() < deadline, f"task {job}_{task} not stopped {timeout} s after scontrol suspend: {states}"
        time.sleep(0.01)


def jobs_of(exp: Path) -> list[dict]:
    return json.loads((exp / "slurm" / "jobs.json").read_text())["jobs"]


def queue(cluster: slurm_cluster.SlurmCluster, job: str) -> list[tuple[int, str]]:
    out = cluster.run("squeue", "-h", "-r", "-j", job, "-o", "%K|%T").stdout
    return [(int(k), s) for k, s in (line.split("|") for line in out.split())]


def resume_task(cluster: slurm_cluster.SlurmCluster, job: str, task: int, settle: bool = True,
                timeout: float = 30) -> None:
    """Resumes a suspended array task and waits until Slurm no longer lists it SUSPENDED; with
    `settle`, also until none of its threads is stopped, both seen twice 0.3 s apart. A resume
    that did not take is sent again: CI saw squeue list a task SUSPENDED after a resume had
    been answered, and with --array-parallel 1 no other task then starts. Without `settle` (a
    task about to be cancelled) it returns at the first sight of the task not SUSPENDED, so
    that the run gets no time to go on."""
    deadline = time.monotonic() + timeout
    seen_running = 0
    while True:
        if seen_running == 0:
            cluster.run("scontrol", "resume", f"{job}_{task}", check=False)
        states = thread_states(job, task) if settle else []
        listed = dict(queue(cluster, job)).get(task)
        if listed != "SUSPENDED" and not any(st in ("T", "t") for st in states):
            seen_running += 1
            if not settle or seen_running == 2 or listed is None:
                return
        else:
            seen_running = 0
        assert time.monotonic() < deadline, (f"task {job}_{task} still suspended {timeout} s after resuming it "
                                             f"(squeue: {listed}, threads: {states})")
        time.sleep(0.3 if settle else 0.05)


def wait_until_gone(cluster: slurm_cluster.SlurmCluster, job: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while queue(cluster, job):
        assert time.monotonic() < deadline, f"job {job} still queued after {timeout} s"
        time.sleep(0.5)


def accounting(cluster: slurm_cluster.SlurmCluster, jobs: dict[str, int], timeout: float = 60) -> dict[tuple[str, int], str]:
    """(array job, task) -> state for every task of `jobs` (job id -> number of tasks), once
    sacct has an ended record of each (slurmctld reports to slurmdbd a moment after)."""
    deadline = time.monotonic() + timeout
    while True:
        out = cluster.run("sacct", "-n", "-P", "-X", "-j", ",".join(jobs), "-o", "JobID,State").stdout
        states = {}
        for line in out.split("\n"):
            if "_" in line and "[" not in line:
                job_task, state = line.split("|")
                job, task = job_task.split("_")
                states[(job, int(task))] = state.split(" ")[0]
        wanted = {(job, t) for job, n in jobs.items() for t in range(n)}
        if all(states.get(k) not in (None, "RUNNING", "PENDING", "COMPLETING") for k in wanted):
            return states
        assert time.monotonic() < deadline, f"sacct has no ended record of {sorted(wanted - set(states))}: {out}"
        time.sleep(0.5)


def check_complete_once(exp: Path, cluster: slurm_cluster.SlurmCluster) -> None:
    """Every planned run complete, whole, made by the last task submitted for it, and
    sacct's COMPLETED tasks cover each run exactly once."""
    jobs = jobs_of(exp)
    record = json.loads((exp / "experiment.json").read_text())
    assert record["status"] == "complete"
    planned = {r["order"]: r["run_dir"] for r in record["runs"]}
    assert len(planned) == 10
    last_task = {}
    for job in jobs:
        for task, order in enumerate(job["orders"]):
            last_task[order] = (job["job_id"], task)
    assert sorted(last_task) == sorted(planned)
    for order, run_dir in planned.items():
        d = exp / run_dir
        for name in RUN_FILES:
            assert (d / name).is_file(), f"{d / name} missing"
        meta = json.loads((d / "run.json").read_text())
        assert meta["status"] == "complete"
        job, task = last_task[order]
        assert meta["slurm"]["array_job_id"] == job and meta["slurm"]["array_task_id"] == str(task)
        assert meta["slurm"]["node"] == cluster.node
    states = accounting(cluster, {j["job_id"]: len(j["orders"]) for j in jobs})
    completed = [jobs_by_id(jobs)[job][task] for (job, task), s in states.items() if s == "COMPLETED"]
    assert sorted(completed) == sorted(planned), "each run completed by exactly one task"
    index = pd.read_csv(exp / "index.csv")
    assert len(index) == 8 and set(index["status"]) == {"complete"}


def jobs_by_id(jobs: list[dict]) -> dict[str, list[int]]:
    return {j["job_id"]: j["orders"] for j in jobs}


def test_a_cancelled_task_is_resubmitted_alone(cluster: slurm_cluster.SlurmCluster, env: dict[str, str],
                                               tmp_path: Path) -> None:
    out = tmp_path / "results"
    sub = prooflab(["matrix", SMOKE, "--out", str(out), "--executor", "slurm", "--array-parallel", "1",
                    "--no-wait"], env, cwd=tmp_path)
    assert sub.returncode == 0, sub.stdout + sub.stderr
    exp = out / "ci-smoke-slurm"
    (first,) = jobs_of(exp)
    job = first["job_id"]
    # One task per run, in the experiment's schedule order (experiment.json's `order`).
    assert first["orders"] == list(range(10))
    assert f"submitted job {job}: 10 runs (array 0-9%1)" in sub.stdout + sub.stderr
    assert "10 runs are queued or running in Slurm" in sub.stdout

    # Cancel a task after task 0 while its run is still early. squeue says RUNNING also
    # while a task is past its run (run.json written "complete", the process exiting), and a
    # cancel landing there is a cancelled task with a complete run (CI saw it once), so the
    # task is first stopped (scontrol suspend: slurmd sends its processes SIGSTOP, after
    # scontrol has returned, so the test waits for /proc to show every thread stopped), its
    # run read while it cannot move, and it is cancelled only when at most one of its six
    # proofs is done (Slurm's SIGTERM can take a few hundred ms to arrive on a loaded
    # machine); a task seen later than that is resumed and the next one tried.
    runs = json.loads((exp / "experiment.json").read_text())["runs"]
    victim, passed = None, set()
    deadline = time.monotonic() + 240
    while victim is None:
        assert time.monotonic() < deadline, (f"no task after the first was seen early in its run (late: {passed}; "
                                             f"queue now: {queue(cluster, job)})")
        listed = queue(cluster, job)
        for k in [k for k, s in listed if s == "SUSPENDED" and k in passed]:
            resume_task(cluster, job, k)  # a task let go that Slurm lists suspended again
        running = [k for k, s in listed if s == "RUNNING" and k >= 1 and k not in passed]
        if not running:
            time.sleep(0.05)
            continue
        k = running[0]
        if cluster.run("scontrol", "suspend", f"{job}_{k}", check=False).returncode != 0:
            continue  # it ended between squeue and the suspend
        # slurmd stops the processes after scontrol returns: read the run only once they are.
        if not wait_stopped(job, k):
            passed.add(k)  # it ended first
            continue
        if proofs_done(exp / runs[k]["run_dir"]) <= 1:
            victim = k
            # Resumed, then cancelled at once: scancel of a task still suspended was seen to
            # let the run go on to the end (its SIGTERM late or lost).
            resume_task(cluster, job, victim, settle=False)
            cluster.run("scancel", f"{job}_{victim}")
        else:
            passed.add(k)
            resume_task(cluster, job, k)
    wait_until_gone(cluster, job)
    states = accounting(cluster, {job: 10})
    assert states[(job, victim)] == "CANCELLED"
    victim_dir = exp / json.loads((exp / "experiment.json").read_text())["runs"][victim]["run_dir"]
    victim_meta = victim_dir / "run.json"
    assert not victim_meta.exists() or json.loads(victim_meta.read_text())["status"] != "complete"
    others = {k: (exp / r["run_dir"] / "run.json").stat().st_mtime_ns
              for k, r in enumerate(json.loads((exp / "experiment.json").read_text())["runs"]) if k != victim}

    # A plain `prooflab matrix` resumes on Slurm: the cancelled run alone goes in again.
    resume = prooflab(["matrix", SMOKE, "--out", str(out), "--poll", "0.5"], env, cwd=tmp_path, timeout=300)
    assert resume.returncode == 0, resume.stdout + resume.stderr
    jobs = jobs_of(exp)
    assert len(jobs) == 2 and jobs[1]["orders"] == [victim]
    text = resume.stdout + resume.stderr
    assert f"submitted job {jobs[1]['job_id']}: 1 runs (array 0-0%1); submitted again: 1 CANCELLED" in text
    assert "9 of 10 runs already complete" in text
    for k, mtime in others.items():
        run = json.loads((exp / "experiment.json").read_text())["runs"][k]
        assert (exp / run["run_dir"] / "run.json").stat().st_mtime_ns == mtime, f"{run['run_dir']} was redone"
    check_complete_once(exp, cluster)

    # Once complete, nothing more is submitted.
    again = prooflab(["matrix", SMOKE, "--out", str(out)], env, cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(jobs_of(exp)) == 2
    assert "submitted" not in again.stdout + again.stderr


def test_no_wait_then_a_second_command_follows_without_resubmitting(
        cluster: slurm_cluster.SlurmCluster, env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "results"
    sub = prooflab(["matrix", SMOKE, "--out", str(out), "--executor", "slurm", "--array-parallel", "1",
                    "--no-wait", "--pin-node", cluster.node, "--time", "10:00"], env, cwd=tmp_path)
    assert sub.returncode == 0, sub.stdout + sub.stderr
    exp = out / "ci-smoke-slurm"
    (job,) = [j["job_id"] for j in jobs_of(exp)]
    assert queue(cluster, job), "--no-wait returned after the tasks had run"
    # What sbatch was asked for is what slurmctld holds.
    shown = cluster.run("scontrol", "show", "job", job).stdout
    assert "TimeLimit=00:10:00" in shown and f"ReqNodeList={cluster.node}" in shown
    # Ctrl-C while following stops the waiting, not the tasks.
    waiting = subprocess.Popen([str(BIN), "matrix", SMOKE, "--out", str(out), "--poll", "0.5"], env=env, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    waiting.send_signal(signal.SIGINT)
    stdout, stderr = waiting.communicate(timeout=30)
    assert waiting.returncode == 0, stdout + stderr
    assert "stopped waiting after" in stdout and "runs are queued or running in Slurm" in stdout
    assert queue(cluster, job), "the tasks were stopped with the waiting"
    follow = prooflab(["matrix", SMOKE, "--out", str(out), "--executor", "slurm", "--poll", "0.5"], env, cwd=tmp_path,
                      timeout=300)
    assert follow.returncode == 0, follow.stdout + follow.stderr
    assert "runs still queued or running from earlier submissions" in follow.stdout + follow.stderr
    assert [j["job_id"] for j in jobs_of(exp)] == [job]
    assert "[10/10]" in follow.stdout  # each run reported as its task left the queue
    check_complete_once(exp, cluster)


def test_without_slurm_on_path_the_error_names_sbatch(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TERM"}
    env["PATH"] = "/nonexistent"
    env["PROOFLAB_PARAM_DIR"] = str(tmp_path / "params")
    proc = prooflab(["matrix", SMOKE, "--out", str(tmp_path), "--executor", "slurm"], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert "sbatch failed (exit 127)" in proc.stderr
    assert not (tmp_path / "ci-smoke-slurm" / "slurm" / "jobs.json").exists()


def test_slurm_options_need_the_slurm_executor(tmp_path: Path) -> None:
    for option in (["--partition", "gpu"], ["--no-wait"], ["--array-parallel", "2"]):
        proc = prooflab(["matrix", SMOKE, "--out", str(tmp_path), "--dry-run", *option], dict(os.environ), cwd=tmp_path)
        assert proc.returncode != 0
        assert f"{option[0]}: only with the Slurm executor (--executor slurm)" in proc.stderr


def no_slurm_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TERM" and not k.startswith("SLURM_")}
    env["PATH"] = "/nonexistent"
    env["PROOFLAB_PARAM_DIR"] = str(tmp_path / "params")
    return env


def test_a_task_runs_its_run_and_refuses_one_the_file_no_longer_plans(tmp_path: Path) -> None:
    env = no_slurm_env(tmp_path)
    # The failed submission has written its task file (before sbatch): run task 3 by hand.
    proc = prooflab(["matrix", SMOKE, "--out", str(tmp_path), "--executor", "slurm"], env, cwd=tmp_path)
    assert "sbatch failed" in proc.stderr
    tasks_file = tmp_path / "ci-smoke-slurm" / "slurm" / "tasks-1.json"
    tasks = json.loads(tasks_file.read_text())
    assert [r["order"] for r in tasks["runs"]] == list(range(10))
    run = tasks["runs"][3]
    task = prooflab(["slurm-task", str(tasks_file), "--index", "3"], env, cwd=tmp_path)
    assert task.returncode == 0, task.stdout + task.stderr
    meta = json.loads((tmp_path / "ci-smoke-slurm" / run["run_dir"] / "run.json").read_text())
    assert meta["status"] == "complete" and meta["config"]["dealloc_policy"] == run["config"]["dealloc_policy"]
    assert "slurm" not in meta  # not inside a Slurm job

    # Without --index it is SLURM_ARRAY_TASK_ID's; outside Slurm that is an error.
    bare = prooflab(["slurm-task", str(tasks_file)], env, cwd=tmp_path)
    assert bare.returncode != 0 and "SLURM_ARRAY_TASK_ID is not set" in bare.stderr
    beyond = prooflab(["slurm-task", str(tasks_file), "--index", "10"], env, cwd=tmp_path)
    assert beyond.returncode != 0 and f"{tasks_file}: task 10 but the file has 10 runs" in beyond.stderr

    # A run whose config differs from the file's plan now is not run.
    tasks["runs"][3]["config"]["dealloc_policy"] = "inline"
    tasks_file.write_text(json.dumps(tasks))
    changed = prooflab(["slurm-task", str(tasks_file), "--index", "3"], env, cwd=tmp_path)
    assert changed.returncode != 0
    assert f"{tasks_file}: runs[3]: run {run['run_dir']} is not in" in changed.stderr
    assert "the experiment file changed since" in changed.stderr


def test_a_damaged_slurm_record_is_an_error_naming_it(tmp_path: Path) -> None:
    env = no_slurm_env(tmp_path)
    record = tmp_path / "ci-smoke-slurm" / "slurm" / "jobs.json"
    record.parent.mkdir(parents=True)
    for text, message in (("{", "not JSON"), ('{"jobs": 3}', "no 'jobs' array"),
                          ('{"jobs": [{"job_id": "7", "tasks_file": "t.json", "orders": [12]}]}',
                           "jobs[0]: orders: 12 is not a run of the plan (0..9)"),
                          ('{"jobs": [{"job_id": 7}]}', "jobs[0]: key 'job_id' missing or not a string")):
        record.write_text(text)
        # A plain `prooflab matrix` resumes with the Slurm executor because the record is there.
        proc = prooflab(["matrix", SMOKE, "--out", str(tmp_path)], env, cwd=tmp_path)
        assert proc.returncode != 0
        assert f"{record}: {message}" in proc.stderr, proc.stderr
