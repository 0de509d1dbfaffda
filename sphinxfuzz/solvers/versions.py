"""Solver versions, asked once per command line."""

from __future__ import annotations

from functools import lru_cache

from sphinxfuzz.solvers.families import UNKNOWN_VERSION, printed_version, program_argv
from sphinxfuzz.solvers.reaper import run_bounded
from sphinxfuzz.solvers.spec import SolverSpec

VERSION_TIMEOUT = 5.0  # seconds; a solver that hangs on --version has UNKNOWN_VERSION


@lru_cache(maxsize=64)
def _version_of(program: tuple[str, ...]) -> str:
    try:
        done = run_bounded([*program, "--version"], timeout=VERSION_TIMEOUT, memory_mb=4096)
    except OSError:
        return UNKNOWN_VERSION
    if done.timed_out:
        return UNKNOWN_VERSION
    text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
    first = text.splitlines()[0] if text else ""
    return printed_version(first) or first or UNKNOWN_VERSION


def solver_version(spec: SolverSpec) -> str:
    """The version number the solver reports (options of the spec are left out: they can
    change nothing about the version, and `--version` must come alone)."""
    return _version_of(program_argv(spec.argv))
