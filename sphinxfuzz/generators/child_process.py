"""Starting and stopping the sandbox child process (parent side).

The child is `sandbox_child.py` run by the same interpreter with `-S -s -B`: no site
packages, no user site, no bytecode writes, a fixed hash seed (so set iteration order, and
with it a generator's output, does not vary between runs) and a minimal environment.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from sphinxfuzz.generators.static_check import ALLOWED_MODULES, FORBIDDEN_NAMES

CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")


def child_argv() -> list[str]:
    return [sys.executable, "-S", "-s", "-B", str(CHILD_SCRIPT)]


def child_env() -> dict[str, str]:
    return {
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "LC_ALL": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


def header(mode: str, memory_mb: int, cpu_seconds: int | None, **fields: Any) -> dict[str, Any]:
    """The first line the child reads: limits, allow-lists and the mode's own fields."""
    return {
        "mode": mode,
        "memory_mb": memory_mb,
        "cpu_seconds": cpu_seconds,
        "allowed_modules": sorted(ALLOWED_MODULES),
        "forbidden_names": sorted(FORBIDDEN_NAMES),
        **fields,
    }


def spawn(stderr: int | IO[bytes]) -> subprocess.Popen[bytes]:
    """Start a child in its own session so a kill reaches everything it started."""
    return subprocess.Popen(
        child_argv(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=child_env(),
        start_new_session=True,
        close_fds=True,
    )


def kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the child's process group and reap it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exited with code {returncode}"
