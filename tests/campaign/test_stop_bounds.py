"""Absurd `--jobs` is refused, and a stop request ends any campaign within seconds (issue 29)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from campaign_helpers import GENERATORS, SEEDS, TESTS

from sphinxfuzz.campaign.coordinator import JOBS_PER_CORE, STOP_GRACE, STOPPED_HARD

ENV = {**os.environ, "PYTHONPATH": str(TESTS.parent)}


def test_jobs_over_the_bound_are_refused_with_the_reason(tmp_path: Path) -> None:
    command = [
        sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz",
        "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3",
        "--generators", str(GENERATORS), "--jobs", "10000", "--out", str(tmp_path / "c"),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=ENV)
    assert done.returncode == 2, done.stdout + done.stderr
    output = done.stdout + done.stderr
    limit = JOBS_PER_CORE * (os.cpu_count() or 1)
    assert f"jobs 10000: at most {JOBS_PER_CORE} workers per CPU core" in output
    assert f"at most {limit}" in output and "--jobs" in output
    assert "Traceback" not in output
    assert not (tmp_path / "c").exists()


def test_a_stop_ends_the_process_even_when_the_main_thread_is_blocked(tmp_path: Path) -> None:
    # the main thread blocks in a read nothing will ever satisfy, as a spawn of thousands of
    # workers once blocked on a full pipe
    program = textwrap.dedent(
        """
        import os, threading
        from sphinxfuzz.campaign.coordinator import _StopOnSignal
        read_end, write_end = os.pipe()
        with _StopOnSignal(threading.Event()):
            print("blocked", flush=True)
            os.read(read_end, 1)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    assert process.stdout is not None and process.stdout.readline() == b"blocked\n"
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    _, stderr = process.communicate(timeout=STOP_GRACE + 10)
    assert time.monotonic() - started < STOP_GRACE + 3
    assert process.returncode == STOPPED_HARD
    assert b"did not stop within" in stderr and b"Traceback" not in stderr
