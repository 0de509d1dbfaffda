"""Running one solver on one script, with a wall-clock and a memory limit.

The solver runs in its own session (process group), so a timeout kills it together with
anything it started (the cvc5 shim is a Python process; a solver may fork portfolio workers).
"""

from __future__ import annotations

import atexit
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.result import SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.versions import solver_version

_SCRATCH: Path | None = None


def _scratch_dir() -> Path:
    """One folder per process for the scripts handed to solvers, removed at exit."""
    global _SCRATCH
    if _SCRATCH is None or not _SCRATCH.is_dir():
        _SCRATCH = Path(tempfile.mkdtemp(prefix="sphinxfuzz-run-"))
        atexit.register(shutil.rmtree, _SCRATCH, True)
    return _SCRATCH


def remove_scratch_dir() -> None:
    """Remove this process's scratch folder now (a worker that the coordinator may kill once
    it has reported does not wait for atexit)."""
    global _SCRATCH
    if _SCRATCH is not None:
        shutil.rmtree(_SCRATCH, ignore_errors=True)
        _SCRATCH = None


def limit_memory(megabytes: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files from crashing solvers

    return apply


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_command(
    argv: list[str] | tuple[str, ...], *, timeout: float, memory_mb: int, stdin: bytes | None = None
) -> tuple[str, str, int, float, bool]:
    """(stdout, stderr, exit code, seconds, timed out) of a command run under the limits."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=limit_memory(memory_mb),
    )
    timed_out = False
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        out, err = proc.communicate()
    except BaseException:
        # interrupted (Ctrl-C, a SIGTERM turned into an exit): never leave the solver running
        kill_group(proc)
        proc.wait()
        raise
    else:
        kill_group(proc)  # children the solver left behind
    elapsed = time.perf_counter() - started
    return (
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        proc.returncode,
        elapsed,
        timed_out,
    )


def run_solver(
    spec: SolverSpec, script_text: str, *, timeout: float = 10.0, memory_mb: int = 4096
) -> SolverResult:
    """Run `spec` on `script_text` and classify what it printed."""
    with tempfile.NamedTemporaryFile(
        "w", suffix=".smt2", dir=_scratch_dir(), delete=False, encoding="utf-8"
    ) as handle:
        handle.write(script_text)
        path = handle.name
    try:
        stdout, stderr, code, elapsed, timed_out = run_command(
            (*spec.argv, path), timeout=timeout, memory_mb=memory_mb
        )
    finally:
        os.unlink(path)
    found = classify(stdout, stderr, code, timed_out)
    return SolverResult(
        spec=spec,
        outcome=found.outcome,
        answers=found.answers,
        stdout=stdout,
        stderr=stderr,
        exit_code=code,
        elapsed=elapsed,
        model=found.model,
        version=solver_version(spec),
        failure_line=found.failure_line,
        model_check_failed=found.model_check_failed,
        annotation_conflict=found.annotation_conflict,
    )
