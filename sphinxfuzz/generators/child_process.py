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
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from sphinxfuzz.generators.confine import VIOLATION_SIGNAL, ConfinementError
from sphinxfuzz.generators.protocol import (
    DEFAULT_LIMITS,
    FAILURE_CHARS,
    Limits,
    ProtocolViolation,
    Reader,
)
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
    mode: str,
    memory_mb: int,
    cpu_seconds: int | None,
    *,
    unconfined: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    **fields: Any,
) -> dict[str, Any]:
    """The first line the child reads: limits, allow-lists and the mode's own fields.
    `unconfined`: run even where the kernel confinement cannot be set up."""
    return {
        "mode": mode,
        "term_chars": limits.term_chars,
        "sample_chars": limits.sample_chars,
        "failure_chars": FAILURE_CHARS,
        "parent": os.getpid(),
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


PROTOCOL_REFUSAL = "refused: the generator child broke the protocol"


def unconfined_error(reason: str) -> ConfinementError:
    return ConfinementError(f"cannot confine generator code: {reason}; {UNCONFINED_HINT}")


def probe_confinement(*, unconfined: bool = False) -> str:
    """Start a child that confines itself and reports; returns what it applied (e.g.
    "seccomp, landlock ABI 7"). Raises `ConfinementError` when it could not confine (and
    `unconfined` is False): commands call this before they run any generator code."""
    with tempfile.TemporaryFile() as stderr:
        process = spawn(stderr)
        try:
            send_header(process, header("probe", 256, None, unconfined=unconfined))
            assert process.stdout is not None
            reader = Reader(process.stdout.fileno(), DEFAULT_LIMITS)
            answer = reader.receive(PROBE_ANSWERS, time.monotonic() + PROBE_TIMEOUT)
        except TimeoutError:
            raise unconfined_error(
                f"the probe child gave no answer in {PROBE_TIMEOUT:g} s"
            ) from None
        except ProtocolViolation as exc:
            raise unconfined_error(f"the probe child broke the protocol: {exc.cause}") from None
        finally:
            close(process)
        if answer is not None and answer.kind == "unconfined":
            raise unconfined_error(answer.failure)
        if answer is not None and answer.shape == "probe":
            return answer.confinement
        raise unconfined_error(
            f"the probe child {describe_exit(process.returncode)}: {stderr_tail(stderr, 500)}"
        )


PROBE_ANSWERS = frozenset({"probe", "end"})


def send_header(process: subprocess.Popen[bytes], first: dict[str, Any]) -> None:
    """Write the header line; a child that died first is found out by the reads."""
    assert process.stdin is not None
    try:
        process.stdin.write(json.dumps(first).encode() + b"\n")
        process.stdin.flush()
    except BrokenPipeError:
        pass


def close(process: subprocess.Popen[bytes]) -> None:
    """Close the pipes and kill the child's group (it may have started nothing, or hang)."""
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            try:
                stream.close()
            except BrokenPipeError:
                pass
    kill(process)


def stderr_tail(stderr: IO[bytes], size: int) -> str:
    """The last `size` bytes of the child's stderr file, as text."""
    stderr.seek(0, os.SEEK_END)
    stderr.seek(max(0, stderr.tell() - size))
    return stderr.read().decode("utf-8", "replace").strip()


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exited with code {returncode}"
