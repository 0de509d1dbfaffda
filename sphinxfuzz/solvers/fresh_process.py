"""Running one solver on one script, with a wall-clock, a memory and an output limit.

The solver runs in its own session (process group), so a timeout kills it together with
anything it started (the cvc5 shim is a Python process; a solver may fork portfolio workers);
descendants that left the group are killed too (`reaper`). A solver that prints more than
`OUTPUT_LIMIT` bytes on a stream is killed: a resource limit (outcome unknown, "output
limit"), never a verdict, like running out of memory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sphinxfuzz.solvers import scratch
from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.reaper import OUTPUT_LIMIT, run_bounded
from sphinxfuzz.solvers.result import Classified, Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.string_escapes import misread
from sphinxfuzz.solvers.vanished import SolverVanished, check_started
from sphinxfuzz.solvers.versions import solver_version

_SCRATCH: Path | None = None


def _scratch_dir() -> Path:
    """One folder per process for the scripts handed to solvers, removed at exit (and after
    a kill: `scratch`)."""
    global _SCRATCH
    if _SCRATCH is None or not _SCRATCH.is_dir():
        _SCRATCH = scratch.make("run")
    return _SCRATCH


def remove_scratch_dir() -> None:
    """Remove this process's scratch folder now (a worker that the coordinator may kill once
    it has reported does not wait for atexit)."""
    global _SCRATCH
    if _SCRATCH is not None:
        scratch.remove(_SCRATCH)
        _SCRATCH = None


def run_command(
    argv: list[str] | tuple[str, ...], *, timeout: float, memory_mb: int, stdin: bytes | None = None
) -> tuple[str, str, int, float, bool]:
    """(stdout, stderr, exit code, seconds, timed out) of a command run under the limits
    (time, memory, output; every descendant killed at the end: see `reaper`)."""
    done = run_bounded(argv, timeout=timeout, memory_mb=memory_mb, stdin=stdin)
    return (
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        done.exit_code,
        done.elapsed,
        done.timed_out,
    )


def read_output(
    spec: SolverSpec, stdout: str, stderr: str, exit_code: int, *, timed_out: bool,
    over_limit: bool,
) -> Classified:  # fmt: skip
    """What a run of `spec` that ended answered, fresh or persistent: `SolverVanished` when
    its program never started; nothing that counts when it was killed for printing too much
    (its output is not even read: scanning 64 MB for answers would take longer than the
    run); else its output as `solvers.classify` reads it."""
    check_started(spec, exit_code, stderr)
    if over_limit:
        line = f"output limit ({OUTPUT_LIMIT // (1024 * 1024)} MB per stream)"
        return Classified(Outcome.UNKNOWN, [], None, line, False)
    return classify(stdout, stderr, exit_code, timed_out, spec.family)


def run_solver(
    spec: SolverSpec, script_text: str, *, timeout: float = 10.0, memory_mb: int = 4096
) -> SolverResult:
    """Run `spec` on `script_text` and classify what it printed."""
    rejected = misread(spec, script_text)
    if rejected is not None:
        return rejected
    with tempfile.NamedTemporaryFile(
        "w", suffix=".smt2", dir=_scratch_dir(), delete=False, encoding="utf-8"
    ) as handle:
        handle.write(script_text)
        path = handle.name
    try:
        done = run_bounded((*spec.argv, path), timeout=timeout, memory_mb=memory_mb)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:  # no `setpriv`
        raise SolverVanished(spec, str(exc)) from exc
    finally:
        os.unlink(path)
    stdout, stderr = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    code, elapsed = done.exit_code, done.elapsed
    found = read_output(
        spec, stdout, stderr, code, timed_out=done.timed_out, over_limit=done.over_limit
    )
    return SolverResult.classified(
        spec, found, stdout=stdout, stderr=stderr, exit_code=code, elapsed=elapsed,
        version=solver_version(spec),
    )  # fmt: skip
