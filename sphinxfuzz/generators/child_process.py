"""Starting and stopping the sandbox child process (parent side).

The child is `sandbox_child.py` run by the same interpreter with `-S -s -B`: no site
packages, no user site, no bytecode writes, a fixed hash seed (so set iteration order, and
with it a generator's output, does not vary between runs) and a minimal environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from sphinxfuzz.generators.confine import VIOLATION_SIGNAL, ConfinementError
from sphinxfuzz.generators.static_check import ALLOWED_BUILTINS, ALLOWED_MODULES, FORBIDDEN_NAMES

CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")
PROBE_TIMEOUT = 20.0
UNCONFINED_HINT = (
    "generator code runs only under kernel confinement unless the caller allows unconfined "
    "runs (only for generators you have read)"
)


def child_argv() -> list[str]:
    return [sys.executable, "-S", "-s", "-B", str(CHILD_SCRIPT)]


def child_env() -> dict[str, str]:
    return {
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "LC_ALL": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


def header(
    mode: str, memory_mb: int, cpu_seconds: int | None, *, unconfined: bool = False, **fields: Any
) -> dict[str, Any]:
    """The first line the child reads: limits, allow-lists and the mode's own fields.
    `unconfined`: run even where the kernel confinement cannot be set up."""
    return {
        "mode": mode,
        "memory_mb": memory_mb,
        "cpu_seconds": cpu_seconds,
        "confine": not unconfined,
        "allowed_modules": sorted(ALLOWED_MODULES),
        "forbidden_names": sorted(FORBIDDEN_NAMES),
        "allowed_builtins": sorted(ALLOWED_BUILTINS),
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


def refused(returncode: int | None) -> bool:
    """Whether the kernel killed the child for a forbidden system call."""
    return returncode == -VIOLATION_SIGNAL


REFUSAL = (
    "refused: the generator attempted a forbidden system call (a file, socket, program or "
    "process); the kernel confinement killed it"
)


def unconfined_error(reason: str) -> ConfinementError:
    return ConfinementError(f"cannot confine generator code: {reason}; {UNCONFINED_HINT}")


def probe_confinement(*, unconfined: bool = False) -> str:
    """Start a child that confines itself and reports; returns what it applied (e.g.
    "seccomp, landlock ABI 7"). Raises `ConfinementError` when it could not confine (and
    `unconfined` is False): commands call this before they run any generator code."""
    process = spawn(subprocess.PIPE)
    request = header("probe", 256, None, unconfined=unconfined)
    try:
        stdout, stderr = process.communicate(json.dumps(request).encode() + b"\n", PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        kill(process)
        raise unconfined_error(f"the probe child gave no answer in {PROBE_TIMEOUT:g} s") from None
    for line in stdout.splitlines():
        answer = json.loads(line)
        if answer.get("kind") == "unconfined":
            raise unconfined_error(str(answer["failure"]))
        if "confinement" in answer:
            return str(answer["confinement"])
    tail = stderr.decode("utf-8", "replace").strip()[-500:]
    raise unconfined_error(f"the probe child {describe_exit(process.returncode)}: {tail}")


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exited with code {returncode}"
