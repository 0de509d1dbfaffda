"""Is a candidate formula still the stored bug? The check ddSMT runs on every candidate.

    python -m sphinxfuzz.interesting CHECK.json CANDIDATE.smt2

exits 0 when the candidate still shows the bug and 1 when it does not, printing nothing, so
ddSMT keeps exactly the candidates whose exit code matches the original's. "Still the bug"
means the oracle, run on the bug's stored command lines, gives a verdict of the same kind,
against the same solver, with the same signature: the same normalised crash line; the same
unsat solver refuted by the same sat solver's model; the same model failing its check.
"""

from __future__ import annotations

import json
import signal
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from sphinxfuzz.mutate.dialect import for_family
from sphinxfuzz.oracle import Verdict, VerdictKind, judge
from sphinxfuzz.smtlib import SmtParseError, parse_script
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs, run_solver

OWN_CHECK = "own model check failed"  # the oracle's signature for a solver's own check


@dataclass(frozen=True)
class CheckSpec:
    """What a candidate must reproduce, and how to run the solvers on it."""

    kind: str
    solver: str  # the blamed solver's display name
    signature: str
    solvers: tuple[str, ...]  # every stored spec text, in the campaign's order (names follow it)
    run: tuple[str, ...]  # names of the solvers to run: only the blamed one when that suffices
    timeout: float
    memory_mb: int = 4096

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["solvers"], data["run"] = list(self.solvers), list(self.run)
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> CheckSpec:
        values = dict(data)
        values["solvers"] = tuple(values["solvers"])  # type: ignore[arg-type]
        values["run"] = tuple(values["run"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def for_verdict(
        cls, verdict: Verdict, solvers: list[str], *, timeout: float, memory_mb: int = 4096
    ) -> CheckSpec:
        if verdict.solver is None:
            raise ValueError(f"a {verdict.kind} verdict names no solver: nothing to reduce")
        alone = verdict.kind == VerdictKind.CRASH or (
            verdict.kind == VerdictKind.INVALID_MODEL and verdict.signature.endswith(OWN_CHECK)
        )
        names = [spec.name for spec in parse_specs(";".join(solvers))]
        if verdict.solver not in names:
            raise ValueError(f"the blamed solver {verdict.solver!r} is not among {names}")
        # a disagreement needs every solver: the ones that took no side settle the model check
        run = (verdict.solver,) if alone else tuple(names)
        return cls(str(verdict.kind), verdict.solver, verdict.signature, tuple(solvers), run,
                   timeout, memory_mb)  # fmt: skip


def check(spec: CheckSpec, text: str) -> tuple[Verdict | None, list[SolverResult]]:
    """(the oracle's verdict that is still the bug, or None; the solver results on `text`)."""
    specs: list[SolverSpec] = [s for s in parse_specs(";".join(spec.solvers)) if s.name in spec.run]

    def run(solver: SolverSpec, script: str) -> SolverResult:
        return run_solver(
            solver, for_family(script, solver.family), timeout=spec.timeout,
            memory_mb=spec.memory_mb,
        )  # fmt: skip

    try:
        parse_script(text)
    except SmtParseError:
        return None, []  # ddSMT keeps candidates well formed; anything else is not the bug
    results = [run(solver, text) for solver in specs]
    judgement = judge(text, results, run)
    found = next(
        (v for v in judgement.verdicts
         if str(v.kind) == spec.kind and v.solver == spec.solver and v.signature == spec.signature),
        None,
    )  # fmt: skip
    return found, results


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m sphinxfuzz.interesting CHECK.json FILE", file=sys.stderr)
        return 2
    # ddSMT (or its time limit) may stop a check: exit so the running solver is killed too
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    spec = CheckSpec.from_json(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    try:
        text = Path(argv[1]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 1
    found, _ = check(spec, text)
    return 0 if found is not None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
