"""End-to-end tests of `[runner] kind = "command"` (docs/external-runner.md) with real
subprocesses: `prooflab matrix` drives the stand-in cuzk daemon and bench
(tests/standin/cuzk_standin.py) and `prooflab batch` itself, and the analysis reads what it
wrote. They skip, saying why, when the binary is missing.

The stand-in's model (its docstring): with enough proofs in flight the throughput is bound by
the GPU mutex, held GPU_MS x LARGE_POOL_FACTOR per partition when the groth16 pool is large
(gpu_threads 0 or > 64) and GPU_MS when it is small, so an A/B of gpu_threads = 32 against the
default must find s/proof lower by at most 1 - 1/LARGE_POOL_FACTOR (less, by the pipeline's
fill and drain, which both arms pay), and an A/A must find nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from prooflab_analysis import abtest, metrics
from prooflab_analysis.loaders import load_experiment, load_run

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PROOFLAB_BIN", ROOT / "build" / "bin" / "prooflab")).resolve()
STANDIN = ROOT / "tests" / "standin" / "cuzk_standin.py"
sys.path.insert(0, str(STANDIN.parent))
import cuzk_standin  # noqa: E402  (the model's constants, for the expected effect)


def _why_unusable() -> str | None:
    if not BIN.exists():
        return f"{BIN} is missing: build it first (make test builds build/bin/prooflab)"
    return None


_WHY = _why_unusable()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")

PY = sys.executable

BASE_CONFIG = """\
[daemon]
listen = "unix:///nonexistent/overridden-by-listen.sock"
[gpus]
gpu_threads = 0
gpu_workers_per_device = 2
"""


# Real seconds per model second of the stand-in: short runs for tests that check formats and
# faults; the A/B and A/A tests use AB_TIME_SCALE, whose stages (a locked GPU phase of 18 ms)
# stay well above the sleep jitter of a loaded 2-core host (at 0.004, 7 ms stages read
# "inconclusive" and an A/A differ by > 5 % under load).
TIME_SCALE = "0.004"
AB_TIME_SCALE = "0.01"


@pytest.fixture
def out() -> Iterator[Path]:
    """The experiments' output directory, short: the stand-in daemon listens on a Unix socket in
    each run's directory, whose path may not exceed 107 bytes. pytest's tmp_path (deeper under
    pytest-xdist's popen-gwN, or under a long TMPDIR) leaves too little room for
    out/<experiment>/base/<variant>/<rep>/cuzk.sock."""
    path = Path(tempfile.mkdtemp(prefix="pl-ext-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def daemon_experiment(tmp: Path, name: str, variants: str, *, reps: int, count: int = 6, concurrency: int = 3,
                      extra_runner: str = "", base_extra: str = "", time_scale: str = TIME_SCALE) -> Path:
    (tmp / "cuzk.toml").write_text(BASE_CONFIG)
    text = f"""
[experiment]
name = "{name}"
reps = {reps}
seed = 7
[runner]
kind = "command"
config = "{tmp / 'cuzk.toml'}"
setup = "exec {PY} {STANDIN} daemon --config {{config}} --listen unix://{{run_dir}}/cuzk.sock"
ready_log = "{{run_dir}}/setup.stdout"
ready_pattern = "cuzk-daemon ready, serving on"
ready_timeout_s = 30
run = "exec {PY} {STANDIN} bench --addr unix://{{run_dir}}/cuzk.sock batch --type porep --c1 {{c1}} --count {{count}} --concurrency {{concurrency}}"
run_timeout_s = 60
versions = ["{PY} --version"]
{extra_runner}
[base]
count = {count}
concurrency = {concurrency}
c1 = "/data/32gbench/c1.json"
env = {{ STANDIN_PARTITIONS = "4", STANDIN_TIME_SCALE = "{time_scale}" }}
{base_extra}
[variants]
{variants}
"""
    path = tmp / f"{name}.toml"
    path.write_text(text)
    return path


def run_matrix(exp: Path, out: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("TERM", None)
    return subprocess.run([str(BIN), "matrix", str(exp), "--out", str(out)], capture_output=True, text=True,
                          env=env, timeout=timeout)


def processes_mentioning(text: str) -> list[str]:
    """Live (not zombie) processes whose command line contains `text`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            found.append(f"{proc.name}: {cmdline}")
    return found


def ab(exp_dir: Path) -> pd.DataFrame:
    runs = metrics.experiment_metrics(load_experiment(exp_dir))
    return abtest.ab_table(runs, "s_per_proof", n_boot=2000)


def test_ab_over_the_standin_finds_the_effect_of_gpu_threads(tmp_path: Path, out: Path) -> None:
    exp = daemon_experiment(tmp_path, "standin-ab", "baseline = {}\nI2 = { overlay = { gpus.gpu_threads = 32 } }",
                            reps=5, time_scale=AB_TIME_SCALE)
    proc = run_matrix(exp, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    exp_dir = out / "standin-ab"
    index = pd.read_csv(exp_dir / "index.csv", dtype=str, keep_default_na=False)
    assert list(index["status"]) == ["complete"] * 10
    assert set(index["overlay.gpus.gpu_threads"]) == {"", "32"}  # the index shows the knob

    row = ab(exp_dir).iloc[0]
    assert row["verdict"] == "improved", row.to_dict()
    # The locked GPU phase is 1/LARGE_POOL_FACTOR as long; fill and drain dilute the gain.
    bound = 1 - 1 / cuzk_standin.LARGE_POOL_FACTOR
    assert -bound - 0.05 < row["rel_change"] < -0.05, row.to_dict()

    # The I2 run's daemon really got the overlay and the bench the knobs.
    i2 = exp_dir / "base" / "I2" / "0"
    meta = json.loads((i2 / "run.json").read_text())
    assert "gpu_threads = 32" in (i2 / "config.toml").read_text()
    assert meta["runner"]["overlay"] == {"gpus.gpu_threads": "32"}
    assert meta["runner"]["env"] == {"STANDIN_PARTITIONS": "4", "STANDIN_TIME_SCALE": AB_TIME_SCALE}
    assert f"--config {i2}/config.toml" in meta["runner"]["commands"]["setup"]
    assert "--c1 /data/32gbench/c1.json --count 6 --concurrency 3" in meta["runner"]["commands"]["run"]
    assert meta["exits"]["run"] == {"status": "exit 0", "exit_code": 0}
    assert meta["exits"]["setup"]["status"] == "exit 0"  # the daemon ended on SIGTERM, cleanly
    assert meta["tool_versions"][0]["output"].startswith("Python 3")
    assert meta["status"] == "complete"
    # Counters were sampled during the run, the proc source on the daemon's process.
    assert meta["counter_sampling"]["proc_pid"] > 0
    assert meta["counters"]["probe"]["status"] == "used"
    assert (i2 / "counters.csv").stat().st_size > 0

    # The run directory holds the real formats as captured, and the import of them.
    assert "TIMELINE," in (i2 / "setup.stderr").read_text()
    assert "cuzk-daemon ready, serving on" in (i2 / "setup.stdout").read_text()
    assert "CUZK_TIMING: set pool release threshold to MAX on gpu 0" in (i2 / "setup.stderr").read_text()
    # every line of the stand-in is of a format the importer knows
    assert json.loads((i2 / "summary.json").read_text())["malformed_lines"] == 0
    assert "=== Batch Summary ===" in (i2 / "run.stdout").read_text()
    run = load_run(i2)
    spans = run.timeline[run.timeline["event"] == "GPU_END"]
    assert len(spans) == 6 * 4  # every partition of every proof
    assert run.timeline["job"].nunique() == 6
    assert run.summary["completed"] == 6 and run.summary["count"] == 6
    assert not processes_mentioning(str(out))

    # report, trace and the A/B tables read it as they read the engine's runs.
    for args in (["report", str(exp_dir)], ["trace", str(i2)]):
        done = subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert "I2" in (exp_dir / "report" / "ab_s_per_proof.md").read_text()
    assert json.loads((i2 / "trace.json").read_text())


def test_a_daemon_log_shared_by_all_runs_is_split_by_run(tmp_path: Path, out: Path) -> None:
    """The daemon appends to one log that outlives every run (as /var/log/cuzk.log would);
    each run captures only what was written while it ran."""
    shared = tmp_path / "cuzk-daemon.log"
    exp = daemon_experiment(tmp_path, "shared-log", "baseline = {}", reps=3, count=3, concurrency=3,
                            extra_runner=f'logs = ["{shared}"]')
    text = exp.read_text().replace('--listen unix://{run_dir}/cuzk.sock"', f'--listen unix://{{run_dir}}/cuzk.sock >> {shared} 2>&1"')
    # The readiness line too is in the shared log, after every earlier run's.
    text = text.replace('ready_log = "{run_dir}/setup.stdout"', f'ready_log = "{shared}"')
    exp.write_text(text)
    proc = run_matrix(exp, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    whole = shared.read_text()
    assert whole.count("GPU_END") == 3 * 3 * 4  # three runs of 3 proofs x 4 partitions
    for rep in range(3):
        run_dir = out / "shared-log" / "base" / "baseline" / str(rep)
        assert (run_dir / "setup.stderr").read_text() == (run_dir / "setup.stdout").read_text() == ""
        copy = (run_dir / "logs" / "0-cuzk-daemon.log").read_text()
        assert copy in whole
        run = load_run(run_dir)
        assert (run.timeline["event"] == "GPU_END").sum() == 3 * 4
        assert run.timeline["job"].nunique() == 3


def test_aa_over_the_standin_finds_nothing(tmp_path: Path, out: Path) -> None:
    # The same config twice (the variant sets the base's value again).
    exp = daemon_experiment(tmp_path, "standin-aa", "baseline = {}\nsame = { overlay = { gpus.gpu_threads = 0 } }",
                            reps=5, time_scale=AB_TIME_SCALE)
    proc = run_matrix(exp, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = ab(out / "standin-aa").iloc[0]
    assert row["verdict"] in ("no detectable change", "inconclusive"), row.to_dict()
    assert abs(row["rel_change"]) < 0.05, row.to_dict()


def test_faults_fail_their_run_only_and_resume_redoes_them(tmp_path: Path, out: Path) -> None:
    broken = tmp_path / "broken"
    broken.write_text("")
    # Each fault is switched on by the variant's env while the file `broken` exists.
    faults = tmp_path / "faults.sh"
    faults.write_text(f'[ -e {broken} ] || unset STANDIN_FAIL STANDIN_HANG STANDIN_SILENT STANDIN_DAEMON_FAIL\n'
                      'exec "$@"\n')
    variants = (
        'baseline = {}\n'
        'daemon_fail = { env = { STANDIN_DAEMON_FAIL = "1" } }\n'
        'fail = { env = { STANDIN_FAIL = "1" } }\n'
        'hang = { env = { STANDIN_HANG = "1" } }\n'
        'silent = { env = { STANDIN_SILENT = "1" } }\n'
    )
    exp = daemon_experiment(tmp_path, "faults", variants, reps=1, count=4, concurrency=2,
                            extra_runner="")
    text = exp.read_text().replace('run = "exec ', f'run = "exec sh {faults} ').replace(
        'setup = "exec ', f'setup = "exec sh {faults} ').replace(
        "run_timeout_s = 60", "run_timeout_s = 3")
    exp.write_text(text)
    out = out
    proc = run_matrix(exp, out)
    assert proc.returncode != 0
    assert "4 of 5 runs did not complete" in proc.stderr
    exp_dir = out / "faults"
    status = dict(zip(*[pd.read_csv(exp_dir / "index.csv")[c] for c in ("variant", "status")]))
    assert status == {"baseline": "complete", "daemon_fail": "failed", "fail": "failed", "hang": "failed",
                      "silent": "failed"}

    def failure(variant: str) -> dict:
        return json.loads((exp_dir / "base" / variant / "0" / "run.json").read_text())["failure"]

    assert failure("daemon_fail")["reason"] == "setup exited (exit 1) before it was ready"
    assert "failed to load config (STANDIN_DAEMON_FAIL)" in failure("daemon_fail")["output_tail"]
    assert failure("fail")["reason"] == "run command failed (exit 3)"
    assert "transport error (STANDIN_FAIL)" in failure("fail")["output_tail"]
    assert failure("hang")["reason"] == "run timed out after 3 s (run_timeout_s); its process group was killed"
    assert re.search(r"\[\d/4\] COMPLETED", failure("hang")["output_tail"])  # what it said before it hung
    assert failure("silent")["reason"].startswith("import: nothing importable: no '=== Batch Summary ==='")
    assert "nothing to see here" in failure("silent")["output_tail"]
    record = json.loads((exp_dir / "experiment.json").read_text())
    errors = {r["variant"]: r.get("error", "") for r in record["runs"]}
    assert errors["hang"].startswith("run timed out")
    # Every daemon, and the hanging bench with the child it started, are gone.
    assert not processes_mentioning(str(out))

    broken.unlink()
    baseline_started = json.loads((exp_dir / "base" / "baseline" / "0" / "run.json").read_text())["start_time"]
    proc = run_matrix(exp, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(1 were complete before, 4 ran now)" in proc.stdout
    index = pd.read_csv(exp_dir / "index.csv")
    assert list(index["status"]) == ["complete"] * 5
    assert json.loads((exp_dir / "base" / "baseline" / "0" / "run.json").read_text())["start_time"] == baseline_started


def test_ctrl_c_tears_the_daemon_down(tmp_path: Path, out: Path) -> None:
    exp = daemon_experiment(tmp_path, "ctrlc", 'baseline = { env = { STANDIN_HANG = "1" } }', reps=2, count=4,
                            concurrency=2)
    env = dict(os.environ)
    env.pop("TERM", None)
    proc = subprocess.Popen([str(BIN), "matrix", str(exp), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    run_dir = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        hits = list((out / "ctrlc").glob("base/baseline/*/run.stdout"))
        if hits and "COMPLETED" in hits[0].read_text():
            run_dir = hits[0].parent
            break
        time.sleep(0.1)
    assert run_dir is not None, "the bench never printed a completion"
    assert processes_mentioning(str(out))  # the daemon and the bench are running
    proc.send_signal(signal.SIGINT)  # first: stop after this run (which hangs) ...
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)  # ... second: interrupt it
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode != 0
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "interrupted", meta
    assert meta["failure"]["reason"] == "stopped during the run; its process group was ended"
    assert meta["exits"]["setup"]["status"] == "exit 0"  # the daemon's own SIGTERM handling
    assert "received SIGTERM, shutting down" in (run_dir / "setup.stdout").read_text()
    assert "interrupted" in stderr
    assert not processes_mentioning(str(out))


def test_a_killed_prooflab_leaves_no_daemon_behind(tmp_path: Path, out: Path) -> None:
    """kill -9 of prooflab (no teardown can run): the kernel's PR_SET_PDEATHSIG ends the
    exec'd daemon and bench."""
    exp = daemon_experiment(tmp_path, "killed", "baseline = {}", reps=1, count=200, concurrency=2)
    env = dict(os.environ)
    env.pop("TERM", None)
    proc = subprocess.Popen([str(BIN), "matrix", str(exp), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    stdout = out / "killed" / "base" / "baseline" / "0" / "run.stdout"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (stdout.exists() and "COMPLETED" in stdout.read_text()):
        time.sleep(0.1)
    assert len(processes_mentioning(str(out))) >= 2  # the daemon and the bench
    proc.kill()
    proc.wait(timeout=10)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and processes_mentioning(str(out)):
        time.sleep(0.1)
    assert not processes_mentioning(str(out))


def test_prooflab_batch_as_the_external_command(tmp_path: Path) -> None:
    """prooflab's own batch, driven like any prover: its stdout alone is imported, and what
    it says matches the run directory it wrote itself."""
    params = tmp_path / "params"
    exp = tmp_path / "self.toml"
    exp.write_text(f"""
[experiment]
name = "self"
reps = 2
[runner]
kind = "command"
run = "exec {BIN} batch --set circuit=tiny --set dealloc_policy={{dealloc}} --count {{count}} --concurrency {{concurrency}} --out {{run_dir}} --run-id inner --param-dir {params}"
[base]
count = 4
concurrency = 2
dealloc = "async"
[variants]
baseline = {{}}
I1 = {{ dealloc = "serialized" }}
""")
    proc = run_matrix(exp, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    exp_dir = tmp_path / "out" / "self"
    for variant, policy in (("baseline", "async"), ("I1", "serialized")):
        for rep in ("0", "1"):
            outer = exp_dir / "base" / variant / rep
            inner = json.loads((outer / "inner" / "summary.json").read_text())
            inner_cfg = json.loads((outer / "inner" / "run.json").read_text())["config"]
            assert inner_cfg["dealloc_policy"] == policy
            imported = json.loads((outer / "summary.json").read_text())
            assert imported["completed"] == inner["completed"] == 4
            assert imported["failed"] == 0
            # As printed: `throughput: %.2f proofs/min (%.1f s/proof)`, `total time: %.1f s`.
            assert imported["throughput_proofs_per_min"] == pytest.approx(inner["throughput_proofs_per_min"], abs=0.005)
            assert imported["s_per_proof"] == pytest.approx(inner["s_per_proof"], abs=0.05)
            assert imported["total_s"] == pytest.approx(inner["total_s"], abs=0.05)
    # No TIMELINE in prooflab's stdout: the A/B tables take summary.json's throughput.
    runs = metrics.experiment_metrics(load_experiment(exp_dir))
    table = abtest.ab_table(runs, "summary.throughput_proofs_per_min", n_boot=2000, higher_is_better=True)
    assert list(table["variant"]) == ["I1"]
    assert table.iloc[0]["n_baseline"] == 2 and table.iloc[0]["n_variant"] == 2
    done = subprocess.run([str(BIN), "report", str(exp_dir)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "## A/B: proofs_per_min (from `summary.throughput_proofs_per_min`" in (
        exp_dir / "report" / "report.md").read_text()


def test_shipped_phase11_external_experiment_parses_and_dry_runs(tmp_path: Path) -> None:
    exp = ROOT / "experiments" / "cuzk-phase11-external.toml"
    proc = subprocess.run([str(BIN), "matrix", str(exp), "--out", str(tmp_path), "--dry-run"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "runner: command" in out
    for variant in ("baseline", "I1", "I2", "I3", "all"):
        assert f"c20_j15 {variant}:" in out
    assert "CUZK_GPU_THREADS=32" in out or "gpus.gpu_threads = 32" in out
    assert "--count 20 --concurrency 15" in out
    assert not list(tmp_path.iterdir())  # a dry run writes nothing


def test_bad_runner_key_is_an_error_naming_file_line_and_key(tmp_path: Path) -> None:
    exp = daemon_experiment(tmp_path, "bad", "baseline = {}", reps=1, extra_runner='retries = 3')
    proc = run_matrix(exp, tmp_path / "out")
    assert proc.returncode != 0
    line = exp.read_text().splitlines().index("retries = 3") + 1
    assert f"{exp}:{line}: [runner] key 'retries': unknown key" in proc.stderr
    assert not (tmp_path / "out").exists()


def _run_medians(exp_dir: Path) -> float:
    """The median s/proof of an experiment's complete runs, from each run's summary.json."""
    index = pd.read_csv(exp_dir / "index.csv", dtype=str, keep_default_na=False)
    values = [json.loads((exp_dir / d / "summary.json").read_text())["s_per_proof"]
              for d, s in zip(index["run_dir"], index["status"]) if s == "complete"]
    assert len(values) == len(index)
    return float(pd.Series(values).median())


def test_regress_gates_on_external_runs(tmp_path: Path, out: Path) -> None:
    # `regress` reads an external experiment as it reads the engine's: a baseline stored from
    # one experiment over the stand-in, then the same settings again (no regression) and the
    # stand-in with twice the partitions per proof (8 instead of 4: the GPU-bound s/proof
    # about 2x, far past the stored tolerance of 30 %). The stand-in prints model time, so its
    # STANDIN_TIME_SCALE cannot make it slower; its work per proof can.
    dirs = {}
    for name, partitions in (("ext-base", "4"), ("ext-same", "4"), ("ext-slow", "8")):
        exp = daemon_experiment(tmp_path, name, "baseline = {}", reps=4)
        exp.write_text(exp.read_text().replace('STANDIN_PARTITIONS = "4"', f'STANDIN_PARTITIONS = "{partitions}"'))
        proc = run_matrix(exp, out)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        dirs[name] = out / name
    base = tmp_path / "baseline.json"

    def regress(*args: str) -> subprocess.CompletedProcess:
        env = dict(os.environ)
        env.pop("CI", None)
        return subprocess.run([str(BIN), "regress", "--baseline", str(base), *args], capture_output=True,
                              text=True, env=env, timeout=300)

    stored = regress("--update", "--reason", "external baseline", str(dirs["ext-base"]))
    assert stored.returncode == 0, stored.stdout + stored.stderr
    metric = next(m for m in json.loads(base.read_text())["metrics"] if m["metric"] == "runs.s_per_proof")
    assert sorted(metric["values"]) == pytest.approx(sorted(
        json.loads((dirs["ext-base"] / d / "summary.json").read_text())["s_per_proof"]
        for d in pd.read_csv(dirs["ext-base"] / "index.csv", dtype=str)["run_dir"]))

    verdicts = {}
    for name in ("ext-same", "ext-slow"):
        out = tmp_path / f"{name}.json"
        proc = regress("--metric", "runs.s_per_proof", "--json", str(out), str(dirs[name]))
        row = json.loads(out.read_text())["rows"][0]
        assert row["now"] == pytest.approx(_run_medians(dirs[name]), rel=1e-6), row
        verdicts[name] = (proc.returncode, row["verdict"], row["now"] / _run_medians(dirs["ext-base"]))
    assert verdicts["ext-same"][0] == 0 and verdicts["ext-same"][1] != "REGRESSION", verdicts
    assert verdicts["ext-slow"][:2] == (1, "REGRESSION"), verdicts
    assert 1.6 < verdicts["ext-slow"][2] < 2.4, verdicts  # twice the GPU-bound work per proof
