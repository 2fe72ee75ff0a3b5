""".ci/install-deps keeps apt's and pip's output in .install-deps.log and prints one line per
step; a failing step shows the log's tail; without root or sudo it says what to run as root.

The script runs in a scratch copy of the repository layout with stand-ins for dpkg-query,
apt-get, sudo and id first on PATH (they print what the real tools print and record how
they were called), so nothing is installed.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APT_NOISE = ["Reading package lists... Done", "Building dependency tree... Done",
             "Setting up ccache (4.8+really4.7.5-1) ...", "Processing triggers for man-db (2.11.2-2) ..."]


def tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def scratch_repo(tmp_path: Path, *, missing: list[str], uid: int, sudo: bool, apt_fails: bool = False) -> tuple[Path, dict]:
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "install-deps", repo / ".ci" / "install-deps")
    (repo / ".venv" / "bin").mkdir(parents=True)
    tool(repo / ".venv" / "bin", "python", "exit 0\n")  # an existing venv; no analysis/ here
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    missing_re = "|".join(missing) or "^$"
    tool(bin_dir, "dpkg-query", f'p="${{@: -1}}"; [[ "$p" =~ ^({missing_re})$ ]] && exit 1; echo -n "install ok installed"\n')
    noise = "\n".join(f"echo '{line}'" for line in APT_NOISE)
    fail = "[ \"$1\" = install ] && { echo 'E: Unable to locate package ccache' >&2; exit 100; }; exit 0\n" if apt_fails else ""
    tool(bin_dir, "apt-get", f'echo "apt-get $*" >>{calls}\n{noise}\n{fail}')
    tool(bin_dir, "id", f'[ "$1" = -u ] && echo {uid} || /usr/bin/id "$@"\n')
    if sudo:
        tool(bin_dir, "sudo", f'echo "sudo $1" >>{calls}; "$@"\n')
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    return repo, env


def run(repo: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(repo / ".ci" / "install-deps")], capture_output=True, text=True, env=env, timeout=60)


def test_apt_output_goes_to_the_log_and_one_line_per_step_to_the_terminal(tmp_path: Path) -> None:
    repo, env = scratch_repo(tmp_path, missing=["ccache", "likwid"], uid=0, sudo=False)
    done = run(repo, env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "install-deps: apt-get install 2 packages (ccache likwid) ..."
    assert lines[1].startswith("install-deps: apt-get done in ") and lines[1].endswith("(output in .install-deps.log)")
    assert len(lines) == 2 and done.stderr == ""
    log = (repo / ".install-deps.log").read_text()
    assert all(line in log for line in APT_NOISE)
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["apt-get update", "apt-get install -y ccache likwid"]


def test_nothing_missing_prints_nothing(tmp_path: Path) -> None:
    repo, env = scratch_repo(tmp_path, missing=[], uid=0, sudo=False)
    done = run(repo, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not (tmp_path / "calls").exists()


def test_a_user_with_sudo_gets_apt_through_sudo(tmp_path: Path) -> None:
    repo, env = scratch_repo(tmp_path, missing=["ccache"], uid=1000, sudo=True)
    done = run(repo, env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "calls").read_text().splitlines() == [
        "sudo apt-get", "apt-get update", "sudo env", "apt-get install -y ccache"]


def test_without_root_or_sudo_it_says_what_to_run_as_root(tmp_path: Path) -> None:
    repo, env = scratch_repo(tmp_path, missing=["ccache", "valgrind"], uid=1000, sudo=False)
    done = run(repo, env)
    assert done.returncode == 1
    assert "apt-get needs root and there is no sudo" in done.stderr
    assert "  apt-get install ccache valgrind" in done.stderr
    assert not (tmp_path / "calls").exists()


def test_a_failing_step_shows_the_tail_of_the_log(tmp_path: Path) -> None:
    repo, env = scratch_repo(tmp_path, missing=["ccache"], uid=0, sudo=False, apt_fails=True)
    done = run(repo, env)
    assert done.returncode == 1
    assert "install-deps: apt-get install failed; the last lines of .install-deps.log:" in done.stderr
    assert "E: Unable to locate package ccache" in done.stderr
