"""A solver spec that cannot answer `(check-sat)` on an empty problem is misconfigured.

A mistyped option (`z3 modelvalidate=true`) makes the solver reject every script; run as a
campaign target, every seed would turn into a stored "crash" seed finding. The campaign asks
each spec first and refuses to start, naming the spec and the solver's own words.
"""

from __future__ import annotations

from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.result import Answer, Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.vanished import SolverVanished

# With a logic first (yices needs one), then without (a solver that lacks QF_UF).
TRIVIAL_SCRIPTS = ("(set-logic QF_UF)\n(check-sat)\n", "(check-sat)\n")


def _why(result: SolverResult) -> str:
    if result.outcome == Outcome.TIMEOUT:
        return "no answer within the time limit"
    said = result.failure_line or (result.stderr.strip() or result.stdout.strip())[:300]
    answered = f"answered {' '.join(result.answers)}" if result.answers else "gave no answer"
    return f"{result.outcome}: {said}" if said else f"{result.outcome}: {answered}"


def smoke_test(spec: SolverSpec, *, timeout: float = 10.0, memory_mb: int = 4096) -> str | None:
    """None when `spec` answers sat on the empty problem, else why not (its first words)."""
    first: SolverResult | None = None
    for script in TRIVIAL_SCRIPTS:
        try:
            result = run_solver(spec, script, timeout=timeout, memory_mb=memory_mb)
        except SolverVanished as exc:  # no program to run at all
            return f"cannot be started: {exc.reason}"
        if result.outcome == Outcome.SAT and result.answers == [Answer.SAT]:
            return None
        first = first or result
    assert first is not None
    return _why(first)
