"""Running SMT solvers: specs (command lines), limits, and the classification of answers."""

from sphinxfuzz.solvers.families import BUILTINS, Family, parse_version
from sphinxfuzz.solvers.fresh_process import run_command, run_solver
from sphinxfuzz.solvers.result import DECIDED, Answer, Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec, SolverSpecError, parse_specs
from sphinxfuzz.solvers.versions import solver_version

__all__ = [
    "BUILTINS",
    "DECIDED",
    "Answer",
    "Family",
    "Outcome",
    "SolverResult",
    "SolverSpec",
    "SolverSpecError",
    "parse_version",
    "parse_specs",
    "run_command",
    "run_solver",
    "solver_version",
]
