"""A process that ends normally removes its own scratch folders (issue 29): a campaign with
spawned workers leaves nothing in the temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from campaign_helpers import CRASHER, GENERATORS, SEEDS, TESTS


def left_in(folder: Path) -> list[str]:
    deadline = time.monotonic() + 3  # the janitors end right after their owners
    while any(folder.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return sorted(p.name for p in folder.iterdir())


def test_fuzz_leaves_no_scratch_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent), "TMPDIR": str(scratch)}

    def sphinxfuzz(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", *argv],
            capture_output=True, text=True, timeout=600, env=env,
        )  # fmt: skip

    root = tmp_path / "c"
    done = sphinxfuzz(
        "fuzz", "--seeds", str(SEEDS), "--solvers", f"z3;{CRASHER}", "--generators",
        str(GENERATORS), "--mutants", "12", "--jobs", "2", "--seed", "3", "-c", str(root),
        "--no-reduce",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert left_in(scratch) == []
