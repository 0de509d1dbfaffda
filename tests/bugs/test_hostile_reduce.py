"""SIGTERM during `reduce` leaves no ddSMT running and no scratch folder (issue 52, defect 7)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from sphinxfuzz.bugs import Store
from sphinxfuzz.solvers.scratch import TOOL_MARKER

REPO = Path(__file__).resolve().parents[2]


def _marked(owner: int) -> list[int]:
    """Processes carrying the tool mark of `owner` (ddSMT and what it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes() if entry.name.isdigit() else b""
        except OSError:
            continue
        if f"{TOOL_MARKER}={owner}".encode() in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def test_sigterm_during_reduce_leaves_no_orphan_and_no_scratch(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root = tmp_path / "c"
    shutil.copytree(crash_campaign[0], root)
    with Store(root) as store:
        bug = next(b.id for b in store.bugs() if b.kind == "crash")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "sphinxfuzz", "reduce", bug, "-c", str(root), "--trust-folder"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _marked(process.pid) and time.monotonic() < deadline:
            assert process.poll() is None, "reduce ended before ddSMT started"
            time.sleep(0.2)
        assert _marked(process.pid), "ddSMT never started"
        assert list(scratch.glob("sphinxfuzz-reduce-*"))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        deadline = time.monotonic() + 15  # the janitor's turn
        while (_marked(process.pid) or list(scratch.glob("sphinxfuzz-*"))) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.2)
        assert _marked(process.pid) == []
        assert list(scratch.glob("sphinxfuzz-*")) == []
    finally:
        if process.poll() is None:
            process.kill()
        for pid in _marked(process.pid):
            os.kill(pid, signal.SIGKILL)
