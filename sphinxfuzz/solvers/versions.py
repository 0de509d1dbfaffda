"""Solver versions, asked once per command line."""

from __future__ import annotations

import re
from functools import lru_cache

from sphinxfuzz.solvers.reaper import run_bounded
from sphinxfuzz.solvers.spec import SolverSpec

VERSION_TIMEOUT = 5.0  # seconds; a solver that hangs on --version has version "unknown"
_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?(?:[-.][0-9A-Za-z]+)*)")


@lru_cache(maxsize=64)
def _version_of(program: tuple[str, ...]) -> str:
    try:
        done = run_bounded([*program, "--version"], timeout=VERSION_TIMEOUT, memory_mb=4096)
    except OSError:
        return "unknown"
    if done.timed_out:
        return "unknown"
    text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
    first = text.splitlines()[0] if text else ""
    found = _VERSION.search(first)
    return found.group(1) if found else (first or "unknown")


def solver_version(spec: SolverSpec) -> str:
    """The version number the solver reports (options of the spec are left out: they can
    change nothing about the version, and `--version` must come alone)."""
    if spec.family == "cvc5" and "sphinxfuzz.solvers.cvc5_shim" in spec.argv:
        return _version_of(tuple(spec.argv[:3]))
    if len(spec.argv) > 1 and spec.argv[1].endswith("cvc5_shim.py"):  # an installed release
        return _version_of(tuple(spec.argv[:2]))
    return _version_of((spec.argv[0],))
