"""Solver versions, asked once per command line."""

from __future__ import annotations

import re
import subprocess
from functools import lru_cache

from sphinxfuzz.solvers.spec import SolverSpec

_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?(?:[-.][0-9A-Za-z]+)*)")


@lru_cache(maxsize=64)
def _version_of(program: tuple[str, ...]) -> str:
    try:
        proc = subprocess.run(
            [*program, "--version"], capture_output=True, text=True, timeout=20, errors="replace"
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    text = (proc.stdout or proc.stderr).strip()
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
