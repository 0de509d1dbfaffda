"""A fuzzer killed with SIGKILL leaves no solver and no scratch folder behind (issue 29)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from campaign_helpers import SEEDS, TESTS

from sphinxfuzz.solvers.reaper import MARKER
from sphinxfuzz.solvers.reaper import running as sleeping

HANG = str(TESTS / "fixtures" / "hostile" / "solvers" / "hang_after_smoke.sh")


def marked(pid: int) -> list[int]:
    """Processes carrying the solver marker of fuzzer `pid` (its solvers, persistent z3 too)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"{MARKER}={pid}".encode() in environ:
                found.append(int(entry.name))
    return found


def test_sigkill_of_fuzz_leaves_no_solver_and_no_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [
        sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz",
        "--seeds", str(SEEDS / "plain.smt2"),
        "--solvers", f"z3;{HANG}", "--generators", str(TESTS / "fixtures" / "generators"),
        "--timeout", "60", "--time", "10m", "--out", str(tmp_path / "c"),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent), "TMPDIR": str(scratch)}
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    deadline = time.monotonic() + 90
    while not sleeping("sleep 793") and time.monotonic() < deadline:
        time.sleep(0.2)  # wait until the solver hangs
    assert sleeping("sleep 793") and marked(process.pid)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("sphinxfuzz-run-")]
    process.send_signal(signal.SIGKILL)
    process.wait()
    time.sleep(5)
    assert sleeping("sleep 79[123]") == []
    assert marked(process.pid) == []  # the persistent z3 included
    assert [p.name for p in scratch.iterdir() if p.name.startswith("sphinxfuzz-")] == []
