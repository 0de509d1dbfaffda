"""The interestingness check ddSMT runs: same kind, same blamed solver, same signature, on
real z3 and the stand-ins that misbehave on a marker."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from campaign_helpers import CRASHER, FIXTURES, LIAR_SAT, LIAR_UNSAT

from sphinxfuzz.oracle import Expected, Judgement, Verdict, VerdictKind, judge
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.same_bug import CheckSpec, check, reproduces
from sphinxfuzz.solvers import Answer, SolverResult, SolverSpec, parse_specs, run_solver

SAT = """(set-option :produce-models true)
(declare-const lie_marker Int)
(declare-const x Int)
(assert (> x (+ lie_marker 3)))
(check-sat)
(get-model)
"""
UNSAT = """(set-option :produce-models true)
(declare-const lie_marker Int)
(assert (> lie_marker 5))
(assert (< lie_marker 2))
(check-sat)
(get-model)
"""


def run(spec: SolverSpec, text: str) -> SolverResult:
    return run_solver(spec, for_family(text, spec.family), timeout=10.0)


def verdict_of(solvers: str, text: str) -> tuple[Verdict, list[str]]:
    specs = parse_specs(solvers)
    verdicts = judge(text, [run(spec, text) for spec in specs], run).verdicts
    assert len(verdicts) == 1, verdicts
    return verdicts[0], [s.text for s in specs]


def test_soundness_needs_the_same_disagreement_and_the_same_blame() -> None:
    verdict, solvers = verdict_of(f"z3;{LIAR_UNSAT}", SAT)
    assert verdict.kind == VerdictKind.SOUNDNESS
    spec = CheckSpec.for_verdict(verdict, solvers, timeout=10.0)
    assert spec.run == ("z3", "liar_unsat.py")  # a disagreement needs every solver
    found, results = check(spec, SAT)
    assert found is not None and found.evidence["model_from"] == "z3"
    assert [r.answers for r in results] == [["sat"], ["unsat"]]
    # without the marker both answer sat; on an unsat formula both answer unsat
    assert check(spec, SAT.replace("lie_marker", "m"))[0] is None
    assert check(spec, UNSAT)[0] is None
    # what ddSMT may produce on the way: a formula the solvers reject is not the bug
    assert check(spec, SAT.replace("(> x", "(> undeclared_z"))[0] is None


def test_invalid_model_needs_a_model_that_fails_again() -> None:
    verdict, solvers = verdict_of(f"z3;{LIAR_SAT}", UNSAT)
    assert (verdict.kind, verdict.solver) == (VerdictKind.INVALID_MODEL, "liar_sat.py")
    spec = CheckSpec.for_verdict(verdict, solvers, timeout=10.0)
    assert check(spec, UNSAT)[0] is not None
    # the liar's default model (lie_marker = 0) satisfies this one: no disagreement at all
    assert check(spec, SAT.replace("(+ lie_marker 3)", "-1"))[0] is None


def test_own_model_check_runs_only_the_blamed_solver() -> None:
    formula = SAT.replace("lie_marker", "check_marker")
    verdict, solvers = verdict_of(f"z3;{FIXTURES / 'own_check_fails.py'}", formula)
    spec = CheckSpec.for_verdict(verdict, solvers, timeout=10.0)
    assert spec.run == ("own_check_fails.py",)
    found, results = check(spec, formula)
    assert found is not None and [r.spec.name for r in results] == ["own_check_fails.py"]
    assert check(spec, formula.replace("check_marker", "m"))[0] is None


def test_crash_needs_the_same_signature_and_the_script_says_so_by_exit_code(
    tmp_path: Path,
) -> None:
    formula = SAT.replace("lie_marker", "crash_marker")
    verdict, solvers = verdict_of(f"z3;{CRASHER}", formula)
    spec = CheckSpec.for_verdict(verdict, solvers, timeout=10.0)
    assert spec.run == ("crash_on_marker.py",)
    other = CheckSpec(**{**spec.__dict__, "signature": "other: some other assertion"})
    assert check(other, formula)[0] is None
    # the same crash blamed on another solver is not the bug either
    assert check(replace(spec, solver="z3"), formula)[0] is None
    spec_file = tmp_path / "check.json"
    spec_file.write_text(json.dumps(spec.to_json()))
    codes = []
    for name, text in (("crash.smt2", formula), ("quiet.smt2", SAT)):
        (tmp_path / name).write_text(text)
        codes.append(subprocess.run(
            [sys.executable, "-m", "sphinxfuzz.oracle.same_bug", str(spec_file),
             str(tmp_path / name)], capture_output=True, text=True,
        ))  # fmt: skip
    assert [c.returncode for c in codes] == [0, 1], codes
    assert all(c.stdout == "" for c in codes)  # ddSMT compares exit codes only


# z3 4.12.2 leaves 0^0 open and answers sat with a model that defines `^` there; the newest z3
# and cvc5 answer unsat (z3 5.x fixed it). A fusion-style verdict: unsat expected.
POWER_AT_ZERO = """(set-option :produce-models true)
(set-logic ALL)
(declare-const x Real)
(assert (= x 0.0))
(assert (distinct (^ x 0.0) 1.0))
(check-sat)
(get-model)
"""


def test_a_model_only_its_maker_believes_still_is_the_bug(z3_4_12_2: None) -> None:
    """A reduction keeps this soundness bug: the model check runs on the reference too, so
    the blamed solver vouching for its own model does not refute the expectation (it did:
    reduce, refresh and bisect lost every such bug)."""
    expected = Expected(Answer.UNSAT, "fusion", "fused seeds of the same label")
    verdict = Verdict(
        VerdictKind.SOUNDNESS, "z3@4.12.2", "z3: sat where fusion expects unsat",
        {"reference": "cvc5"}, expected,
    )  # fmt: skip
    spec = CheckSpec.for_verdict(verdict, ["z3@4.12.2", "cvc5"], timeout=10.0)
    found, results = check(spec, POWER_AT_ZERO)
    assert [r.first for r in results] == [Answer.SAT, Answer.UNSAT]
    assert found is not None and found.evidence["model_check"] == "undecided"
    # a candidate the reference also calls sat is no longer the bug
    found, _ = check(spec, POWER_AT_ZERO.replace("distinct", "="))
    assert found is None


def test_replay_reproduces_by_kind_and_blame_and_a_crash_by_its_signature_too() -> None:
    """`reproduces`, replay's question to the same-bug home, over the oracle's judgement of
    every stored solver: a crash elsewhere in the same solver is another bug; a wrong answer
    reproduces whatever the wording of its signature; a disagreement whose model check decided
    nothing again reproduces, nothing else does by that alone."""
    formula = SAT.replace("lie_marker", "crash_marker")
    crash, solvers = verdict_of(f"z3;{CRASHER}", formula)
    specs = parse_specs(";".join(solvers))
    crashed = judge(formula, [run(s, formula) for s in specs], run)
    assert reproduces(crash, crashed)
    assert not reproduces(replace(crash, signature="other: some other assertion"), crashed)
    assert not reproduces(replace(crash, solver="z3"), crashed)
    lie, solvers = verdict_of(f"z3;{LIAR_UNSAT}", SAT)
    specs = parse_specs(";".join(solvers))
    lied = judge(SAT, [run(s, SAT) for s in specs], run)
    assert reproduces(replace(lie, signature="reworded"), lied)
    assert not reproduces(replace(lie, kind=VerdictKind.INVALID_MODEL), lied)
    assert not reproduces(lie, judge(UNSAT, [run(s, UNSAT) for s in specs], run))
    undecided = Judgement(unconfirmed=True)
    assert reproduces(replace(lie, kind=VerdictKind.DISAGREEMENT, solver=None), undecided)
    assert not reproduces(lie, undecided)
