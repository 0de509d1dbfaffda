"""Solvers die with the fuzzer, and scratch folders of dead fuzzers are removed (issue 29)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from sphinxfuzz.solvers import reaper, scratch

ROOT = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_solver_dies_with_a_fuzzer_killed_by_sigkill(tmp_path: Path) -> None:
    # a process that starts a solver from a worker thread, reports its pid and waits
    program = textwrap.dedent(
        """
        import subprocess, sys, threading, time
        from sphinxfuzz.solvers import reaper
        def work():
            process = reaper.start(["sleep", "794"], 256, subprocess.DEVNULL)
            print(process.pid, flush=True)
        threading.Thread(target=work).start()
        time.sleep(600)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fuzzer = subprocess.Popen(
        [sys.executable, "-c", program], stdout=subprocess.PIPE, text=True, env=env
    )
    assert fuzzer.stdout is not None
    solver = int(fuzzer.stdout.readline())
    time.sleep(0.5)
    assert alive(solver)  # the worker thread has ended: the solver lives on
    fuzzer.send_signal(signal.SIGKILL)
    fuzzer.wait()
    deadline = time.monotonic() + 5
    while alive(solver) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(solver)


def test_a_solver_outlives_the_thread_that_started_it() -> None:
    started: list[subprocess.Popen[bytes]] = []
    thread = threading.Thread(
        target=lambda: started.append(reaper.start(["sleep", "795"], 256, subprocess.DEVNULL))
    )
    thread.start()
    thread.join()
    time.sleep(0.3)
    (process,) = started
    try:
        assert process.poll() is None  # PR_SET_PDEATHSIG follows the forking thread
    finally:
        reaper.end(process)
    assert process.returncode == -signal.SIGKILL


def test_a_solver_runs_nicer_than_the_campaign_with_its_limits() -> None:
    """A solver yields its core to the campaign's own drawing (`reaper.SOLVER_NICENESS`)
    and runs under its memory limit, whichever way it was started."""
    process = reaper.start(["sleep", "796"], 256, subprocess.DEVNULL)
    try:
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(
            19, ours + reaper.SOLVER_NICENESS
        )
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        assert f"{256 * 1024 * 1024}" in next(
            line for line in limits.splitlines() if line.startswith("Max address space")
        )
    finally:
        reaper.end(process)


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_scratch_folders_of_dead_owners_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    mine = tmp_path / f"sphinxfuzz-run-{scratch.owner_tag()}-abc"
    gone = tmp_path / f"sphinxfuzz-run-{dead_pid()}-12345-abc"
    reused = tmp_path / f"sphinxfuzz-actor-{os.getpid()}-1-abc"  # the pid, another start
    parent = tmp_path / f"sphinxfuzz-run-{scratch.owner_tag(os.getppid())}-abc"
    other = tmp_path / "sphinxfuzz-run-notapid"
    for folder in (mine, gone, reused, parent, other):
        folder.mkdir()
        (folder / "mutant.smt2").write_text("(check-sat)\n")
    removed = scratch.remove_dead(tmp_path)
    assert sorted(removed) == sorted([gone, reused])
    assert mine.is_dir() and parent.is_dir() and other.is_dir()
    assert not gone.exists() and not reused.exists()


def test_a_scratch_folder_is_named_for_its_owner_and_removed_when_done(tmp_path: Path) -> None:
    folder = scratch.make("run", tmp_path)
    assert folder.parent == tmp_path
    assert folder.name.startswith(f"sphinxfuzz-run-{scratch.owner_tag()}-")
    assert scratch.remove_dead(tmp_path) == []  # its owner runs
    scratch.remove(folder)
    assert not folder.exists()


def test_the_janitor_removes_the_folders_of_a_killed_owner(tmp_path: Path) -> None:
    program = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from sphinxfuzz.solvers import scratch
        folder = scratch.make("run", Path({str(tmp_path)!r}))
        (folder / "mutant.smt2").write_text("(check-sat)")
        print(folder, flush=True)
        time.sleep(600)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen(
        [sys.executable, "-c", program], stdout=subprocess.PIPE, text=True, env=env
    )
    assert owner.stdout is not None
    folder = Path(owner.stdout.readline().strip())
    assert folder.is_dir()
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + 5
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not folder.exists()
