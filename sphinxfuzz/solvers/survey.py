"""What sphinxfuzz learns of a command line before it fuzzes it (`solvers check`): its
version, the family its name and its `--version` say, its answers on a sat and an unsat
script, whether it gives a model, how it says an error, its option table, and the theories
it accepts. Any program is asked the same way: a solver of no known family too.

A theory counts as accepted when the solver answers its script's expected answer; the scripts
are tiny, each with its logic first (yices needs one), then without (a solver that does not
know the logic's name).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sphinxfuzz.solvers.families import BUILTINS, Family, program_argv
from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.options.table import table_summary
from sphinxfuzz.solvers.result import Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.vanished import SolverVanished
from sphinxfuzz.solvers.versions import solver_version

SAT_SCRIPT = (
    "(set-option :produce-models true)\n(declare-const p Bool)\n(declare-const q Bool)\n"
    "(assert (and p (not q)))\n(check-sat)\n(get-model)\n"
)
UNSAT_SCRIPT = "(declare-const p Bool)\n(assert (and p (not p)))\n(check-sat)\n"
# an undeclared name: how the solver says an error
ERROR_SCRIPT = "(assert sphinxfuzz_undeclared)\n(check-sat)\n"
# theory -> (logic, script, the answer that shows the solver reads the theory)
THEORIES: dict[str, tuple[str, str, Outcome]] = {
    "bit-vectors": ("QF_BV", "(declare-const x (_ BitVec 8))\n"
                    "(assert (= (bvadd x #x01) #x00))\n", Outcome.SAT),
    "floating point": ("QF_FP", "(declare-const f (_ FloatingPoint 8 24))\n"
                       "(assert (fp.isNaN (fp.add RNE f f)))\n", Outcome.SAT),
    "arrays": ("QF_ABV", "(declare-const a (Array (_ BitVec 4) (_ BitVec 4)))\n"
               "(assert (not (= (select (store a #x1 #x2) #x1) #x2)))\n", Outcome.UNSAT),
    "uninterpreted functions": ("QF_UF", "(declare-sort U 0)\n(declare-fun f (U) U)\n"
                                "(declare-const u U)\n(assert (not (= (f u) (f u))))\n",
                                Outcome.UNSAT),
    "quantifiers": ("UF", "(declare-fun g (Bool) Bool)\n"
                    "(assert (forall ((b Bool)) (g b)))\n(assert (not (g true)))\n",
                    Outcome.UNSAT),
    "integers": ("QF_LIA", "(declare-const i Int)\n(assert (< 2 i 4))\n", Outcome.SAT),
    "reals": ("QF_LRA", "(declare-const r Real)\n(assert (< 0.5 r 0.75))\n", Outcome.SAT),
    "strings": ("QF_S", "(declare-const s String)\n(assert (= (str.len s) 2))\n", Outcome.SAT),
}  # fmt: skip
TIMEOUT = 10.0  # seconds per script: each is tiny


@dataclass
class Survey:
    text: str
    argv: tuple[str, ...]
    version: str
    family: str | None  # the family it runs as (by name); None: no known family
    family_by_version: str | None  # the family its `--version` line says, if any
    sat: str  # the outcome on a satisfiable script
    unsat: str
    model: bool  # it printed a model after sat
    errors: str  # how it said an error (the error convention detected)
    option_table: str  # what sphinxfuzz draws from, or why nothing
    theories: dict[str, str] = field(default_factory=dict)  # theory -> accepted, or why not

    @property
    def accepted(self) -> list[str]:
        return [t for t, said in self.theories.items() if said == "accepted"]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "argv": list(self.argv), "accepted": self.accepted}


def family_by_version(line: str) -> Family | None:
    """The family whose record's `version_line` opens `line` (case aside)."""
    for family in BUILTINS:
        mark = family.record.version_line
        if mark and line.lower().startswith(mark.lower()):
            return family
    return None


def _version_line(spec: SolverSpec) -> str:
    from sphinxfuzz.solvers.reaper import run_bounded

    try:
        done = run_bounded([*program_argv(spec.argv), "--version"], timeout=TIMEOUT, memory_mb=4096)
    except OSError:
        return ""
    text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""


def _run(spec: SolverSpec, script: str) -> SolverResult | str:
    try:
        return run_solver(spec, script, timeout=TIMEOUT)
    except SolverVanished as exc:
        return f"cannot be started: {exc.reason}"


# the script's temporary file, as a solver names it in its messages
_SCRIPT_PATH = re.compile(r"/\S*?\.smt2\b")


def _said(result: SolverResult | str) -> str:
    if isinstance(result, str):
        return result
    if result.outcome in (Outcome.SAT, Outcome.UNSAT):
        return str(result.outcome)
    why = result.failure_line or (result.stderr.strip() or result.stdout.strip())[:200]
    why = _SCRIPT_PATH.sub("<script>", why)
    return f"{result.outcome}: {why}" if why else str(result.outcome)


def error_convention(result: SolverResult | str) -> str:
    """Where and how a run that should be refused said so."""
    if isinstance(result, str):
        return result
    channel = (
        "(error ...) on stdout"
        if "(error" in result.stdout
        else "a message on stderr"
        if result.stderr.strip()
        else "a message on stdout"
        if result.stdout.strip()
        else "nothing"
    )
    return f"{channel}, exit {result.exit_code}: read as {result.outcome}"


def theory_support(spec: SolverSpec) -> dict[str, str]:
    """Theory -> "accepted", or what the solver said to its script."""
    found: dict[str, str] = {}
    for theory, (logic, body, expected) in THEORIES.items():
        said = ""
        for head in (f"(set-logic {logic})\n", ""):
            result = _run(spec, head + body + "(check-sat)\n")
            if not isinstance(result, str) and result.outcome == expected:
                said = "accepted"
                break
            said = said or _said(result)
        found[theory] = said
    return found


def survey(spec: SolverSpec, say: Callable[[str], None] | None = None) -> Survey:
    """What `spec` shows on the scripts above, and its option table (built when missing,
    which `say` hears of)."""
    sat = _run(spec, SAT_SCRIPT)
    by_version = family_by_version(_version_line(spec))
    return Survey(
        text=spec.text,
        argv=spec.argv,
        version=solver_version(spec),
        family=None if spec.family is Family.OTHER else str(spec.family),
        family_by_version=None if by_version is None else str(by_version),
        sat=_said(sat),
        unsat=_said(_run(spec, UNSAT_SCRIPT)),
        model=not isinstance(sat, str) and sat.model is not None,
        errors=error_convention(_run(spec, ERROR_SCRIPT)),
        option_table=table_summary(spec, say),
        theories=theory_support(spec),
    )
