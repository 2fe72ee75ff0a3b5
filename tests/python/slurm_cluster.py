"""A real one-node Slurm cluster on this machine, for tests of the Slurm executor.

Everything lives under one temporary directory and runs as the current user: munged with a
generated key, MariaDB (accounting's database) with its own data directory, slurmdbd,
slurmctld and slurmd, all in the foreground as children of the test process, on free
ports, with a slurm.conf generated from this machine's CPUs and memory (`slurmd -C`).
The Slurm client commands find the cluster through SLURM_CONF (`cluster.env`).

`start(root)` returns the running cluster or raises `ClusterUnavailable` saying what is
missing or which daemon did not come up (with the end of its log); `stop()` cancels what
is left in the queue and ends every daemon it started, by its process id. A daemon also
gets SIGTERM should the test process die first.

Debian's packages (slurm-wlm, munge, slurmdbd, mariadb-server; .ci/install-deps installs
them) are what this was written against: Slurm 22.05, MariaDB 10.11.
"""
from __future__ import annotations

import ctypes
import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ["munged", "mariadb-install-db", "mariadbd", "slurmdbd", "slurmctld", "slurmd"]
CLIENTS = ["sbatch", "squeue", "sacct", "scancel", "sinfo", "sacctmgr", "scontrol"]


class ClusterUnavailable(RuntimeError):
    """The cluster cannot run here; the message says why."""


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _end_with_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies, so that a killed pytest
    leaves no daemon behind (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def node_resources() -> tuple[str, int, int]:
    """(CPUs, RealMemory in MiB) as slurmd detects them, and the short host name."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30).stdout
    cpus = re.search(r"\bCPUs=(\d+)", out)
    mem = re.search(r"\bRealMemory=(\d+)", out)
    if not cpus or not mem:
        raise ClusterUnavailable(f"slurmd -C printed no CPUs/RealMemory: {out!r}")
    return socket.gethostname().split(".")[0], int(cpus.group(1)), int(mem.group(1))


@dataclass
class SlurmCluster:
    root: Path
    node: str
    cpus: int
    env: dict[str, str]
    procs: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def run(self, *args: str, timeout: float = 30, check: bool = True) -> subprocess.CompletedProcess:
        """A Slurm client command against this cluster."""
        proc = subprocess.run(list(args), capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and proc.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.root / "log" / f"{name}.out", "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.root,
                                start_new_session=True, preexec_fn=_end_with_parent)
        log.close()
        self.procs.append((name, proc))
        return proc

    def _wait_for(self, what: str, name: str, ok, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        proc = dict(self.procs)[name]
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ClusterUnavailable(
                    f"{name} exited ({proc.returncode}) before {what}:\n{_tail(self.root / 'log' / f'{name}.out')}")
            if ok():
                return
            time.sleep(0.2)
        raise ClusterUnavailable(f"{name}: no {what} after {timeout:.0f} s:\n{_tail(self.root / 'log' / f'{name}.out')}")

    def _answers(self, *args: str) -> bool:
        try:
            return self.run(*args, timeout=5, check=False).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def node_state(self) -> str:
        proc = self.run("sinfo", "-h", "-N", "-o", "%T", timeout=5, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    def stop(self) -> None:
        """Cancels the queue's jobs, then ends the daemons in reverse order of start."""
        if any(name == "slurmctld" and p.poll() is None for name, p in self.procs):
            try:
                self.run("scancel", "--user", getpass.getuser(), timeout=10, check=False)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and self.run("squeue", "-h", timeout=5, check=False).stdout.strip():
                    time.sleep(0.5)
            except subprocess.TimeoutExpired:
                pass
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        self.procs.clear()


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.write_text(text)
    path.chmod(mode)


def start(root: Path) -> SlurmCluster:
    missing = [t for t in DAEMONS + CLIENTS if shutil.which(t) is None]
    if missing:
        raise ClusterUnavailable(
            f"not installed: {', '.join(missing)} (Debian: slurm-wlm munge slurmdbd mariadb-server; .ci/install-deps)")
    root = root.resolve()
    for d in ("munge", "state", "spool", "log", "db"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "munge").chmod(0o700)
    root.chmod(0o755)  # munged wants every directory above its socket reachable
    user = getpass.getuser()
    node, cpus, mem = node_resources()
    ctld_port, slurmd_port, dbd_port, db_port = _free_ports(4)
    sock = root / "munge" / "munge.socket"
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    _write(root / "slurm.conf", f"""\
ClusterName=prooflab-test
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={root / 'state'}
SlurmdSpoolDir={root / 'spool'}
SlurmctldPidFile={root / 'slurmctld.pid'}
SlurmdPidFile={root / 'slurmd.pid'}
SlurmctldLogFile={root / 'log' / 'slurmctld.log'}
SlurmdLogFile={root / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={dbd_port}
AccountingStoragePass={sock}
ReturnToService=2
MinJobAge=5
KillWait=5
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP
""")
    _write(root / "slurmdbd.conf", f"""\
AuthType=auth/munge
AuthInfo=socket={sock}
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={dbd_port}
SlurmUser={user}
LogFile={root / 'log' / 'slurmdbd.log'}
PidFile={root / 'slurmdbd.pid'}
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={db_port}
StorageUser={user}
StorageLoc=slurm_acct_prooflab_test
""", 0o600)
    env = dict(os.environ)
    env["SLURM_CONF"] = str(root / "slurm.conf")
    for var in [v for v in env if v.startswith("SLURM_") and v != "SLURM_CONF"]:
        del env[var]  # an enclosing Slurm job's variables would leak into ours
    cluster = SlurmCluster(root, node, cpus, env)
    try:
        cluster._spawn("munged", ["munged", "-F", "-f", f"--key-file={key}", f"--socket={sock}",
                                  f"--pid-file={root / 'munge' / 'munged.pid'}", f"--log-file={root / 'log' / 'munged.log'}",
                                  f"--seed-file={root / 'munge' / 'munged.seed'}"])
        cluster._wait_for("socket", "munged", sock.exists, 10)
        install = subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={root / 'db'}", f"--user={user}",
                                  "--auth-root-authentication-method=normal", "--skip-test-db"],
                                 capture_output=True, text=True, timeout=120)
        if install.returncode != 0:
            raise ClusterUnavailable(f"mariadb-install-db failed: {install.stdout[-800:]}{install.stderr[-800:]}")
        # The database is the cluster's alone, reachable only from here, without grant tables
        # (slurmdbd needs no password then).
        cluster._spawn("mariadbd", ["mariadbd", "--no-defaults", f"--datadir={root / 'db'}", f"--user={user}",
                                    f"--socket={root / 'db' / 'mysqld.sock'}", f"--port={db_port}",
                                    "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-log-bin",
                                    "--innodb-buffer-pool-size=16M", f"--pid-file={root / 'db' / 'mysqld.pid'}"])
        cluster._wait_for("port", "mariadbd", lambda: _port_open(db_port), 60)
        cluster._spawn("slurmdbd", ["slurmdbd", "-D"])
        cluster._wait_for("answer to sacctmgr", "slurmdbd", lambda: cluster._answers("sacctmgr", "-n", "list", "cluster"), 60)
        cluster._spawn("slurmctld", ["slurmctld", "-D", "-i"])
        cluster._spawn("slurmd", ["slurmd", "-D", "-N", node])
        cluster._wait_for("idle node", "slurmctld", lambda: cluster.node_state() == "idle", 60)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0
