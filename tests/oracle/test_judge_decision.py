"""Who decides a model check (`oracle.judge`): the solvers that took no side first, the
parties only when none of those decided. The outputs are written the way the solvers print
them (our own text); the campaign tests show the rule on real runs."""

from __future__ import annotations

from sphinxfuzz.oracle import VerdictKind, judge
from sphinxfuzz.solvers import Family, Outcome, SolverResult, SolverSpec
from sphinxfuzz.solvers.classify import classify

Z3 = SolverSpec("z3", "z3", Family.Z3, ("z3",))
CVC5 = SolverSpec("cvc5", "cvc5", Family.CVC5, ("cvc5",))
YICES = SolverSpec("yices", "yices", Family.YICES, ("yices-smt2",))
OLD_Z3 = SolverSpec("z3@4.8.7", "z3#2", Family.Z3, ("z3",))
FORMULA = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n(get-model)\n"
MODEL = "(\n  (define-fun x () Int 2)\n)"


def _result(spec: SolverSpec, stdout: str) -> SolverResult:
    found = classify(stdout, "", 0, False)
    return SolverResult(spec, found.outcome, found.answers, stdout, "", 0, 0.1, found.model)


def _checks(answers: dict[str, str]):  # noqa: ANN202 - a CheckRunner
    def run(spec: SolverSpec, script: str) -> SolverResult:
        return _result(spec, answers[spec.name] + "\n")

    return run


def test_bystanders_that_split_leave_the_parties_no_say() -> None:
    sat, unsat = _result(Z3, f"sat\n{MODEL}\n"), _result(CVC5, "unsat\n")
    bystanders = [
        SolverResult(spec, Outcome.UNKNOWN, ["unknown"], "unknown\n") for spec in (YICES, OLD_Z3)
    ]
    results = [sat, unsat, *bystanders]
    # the two that took no side split on the check: the parties agreeing decides nothing
    split = {"z3": "sat", "cvc5": "sat", "yices": "sat", "z3#2": "unsat"}
    judgement = judge(FORMULA, results, _checks(split))
    assert judgement.verdicts == [] and judgement.unconfirmed
    # bystanders that decide nothing leave it to the parties, who then agree
    undecided = {**split, "yices": "unknown", "z3#2": "unknown"}
    judgement = judge(FORMULA, results, _checks(undecided))
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]
