"""Running a script on a solver in that solver's dialect (fresh process)."""

from __future__ import annotations

from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.solvers import SolverResult, SolverSpec, run_solver


def run_in_dialect(
    spec: SolverSpec, script: str, *, timeout: float, memory_mb: int = 4096
) -> SolverResult:
    """`script` without the lines only other solver families understand, run by `spec`."""
    return run_solver(spec, for_family(script, spec.family), timeout=timeout, memory_mb=memory_mb)
