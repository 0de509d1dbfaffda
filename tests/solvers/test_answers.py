"""Answers are typed from the line a solver prints to the JSON a campaign stores."""

from __future__ import annotations

import json

import pytest

from sphinxfuzz.oracle import Expected
from sphinxfuzz.solvers import DECIDED, Answer, Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.classify import classify

# sat, then unsat under one more assertion (yices takes one query unless run incrementally)
TWO_QUERIES = (
    "(set-logic QF_LIA)(declare-const x Int)(assert (> x 1))(check-sat)\n"
    "(assert (< x 0))(check-sat)\n"
)


def test_answer_words_and_nothing_else_are_answers() -> None:
    assert [Answer.read(w) for w in ("sat", "unsat", "unknown")] == list(Answer)
    for word in ("SAT", "satisfiable", "timeout", "(error", ""):
        assert Answer.read(word) is None
    assert DECIDED == (Answer.SAT, Answer.UNSAT)
    assert [a.decided for a in Answer] == [True, True, False]


def test_solver_output_lines_become_answers() -> None:
    stdout = (
        'sat\n(\n  (define-fun x () Int 2)\n)\nunsat\n(error "model is not available")\nunknown\n'
    )
    found = classify(stdout, "", 0, False)
    assert found.answers == [Answer.SAT, Answer.UNSAT, Answer.UNKNOWN]
    assert all(type(a) is Answer for a in found.answers)
    assert found.outcome is Outcome.UNKNOWN and found.model is not None
    # a crash dump is read line by line: only whole-line answers count
    dump = "sat\nunsat (oops\nSegmentation fault\n"
    assert classify(dump, "", -11, False).answers == [Answer.SAT]


@pytest.mark.parametrize("name", ["z3", "cvc5"])
def test_real_solvers_answer_in_answers(name: str) -> None:
    result = run_solver(parse_specs(name)[0], TWO_QUERIES, timeout=30)
    assert result.answers == [Answer.SAT, Answer.UNSAT], result.stdout + result.stderr
    assert all(type(a) is Answer for a in result.answers)
    assert result.first is Answer.SAT and result.outcome is Outcome.UNSAT
    # stored as the plain strings older campaign folders hold
    assert json.loads(json.dumps(result.answers)) == ["sat", "unsat"]


def test_a_run_without_answers_reads_as_its_outcome() -> None:
    result = run_solver(parse_specs("yices")[0], TWO_QUERIES, timeout=30)
    assert result.outcome is Outcome.ERROR and result.answers == [Answer.SAT]
    empty = run_solver(parse_specs("z3")[0], "(declare-const x Int)\n", timeout=30)
    assert empty.answers == [] and empty.first is Outcome.UNKNOWN


def test_stored_answers_read_back_typed() -> None:
    stored = {"answer": "unsat", "strategy": "fusion", "why": "two unsat seeds"}
    expected = Expected.from_json(json.loads(json.dumps(stored)))
    assert expected.answer is Answer.UNSAT
    assert json.loads(json.dumps(expected.to_json())) == stored
    with pytest.raises(ValueError, match="neither sat nor unsat"):
        Expected.from_json({**stored, "answer": "unknown"})


def test_an_option_the_release_lacks_is_refused_not_a_crash() -> None:
    """z3 5.4.1 no longer has `solver.enforce_model_conversion` (4.8.11 had it): it prints
    an error and exits 110, as it exits on a failed assertion."""
    (z3,) = parse_specs("z3 solver.enforce_model_conversion=true")
    result = run_solver(z3, "(declare-const x Int)\n(assert (> x 0))\n(check-sat)\n", timeout=10)
    assert result.exit_code != 0
    assert result.outcome == Outcome.ERROR and "unknown parameter" in (result.failure_line or "")


# cvc5 1.4.2's whole output for `(set-logic QF_BV) (declare-const x (_ BitVec 4))
# (assert (bvnego (bvsmod (_ bv7 4) x))) (check-sat)` under --bv-rw-extend-eq (exit code 1)
INTERNAL_CHECK = """(error "Illegal argument detected
cvc5::internal::theory::TheoryId cvc5::internal::theory::kindToTheoryId(cvc5::internal::Kind)

  `k' is a bad argument
bad kind")
"""


def test_an_internal_argument_check_of_cvc5_is_a_crash_not_a_rejection() -> None:
    found = classify(INTERNAL_CHECK, "", 1, False)
    assert found.outcome is Outcome.CRASH
    assert found.failure_line == (
        "Illegal argument detected cvc5::internal::theory::TheoryId "
        "cvc5::internal::theory::kindToTheoryId(cvc5::internal::Kind) `k' is a bad argument "
        "bad kind"
    )
    # the API's own check of a caller's argument stays a rejection
    (cvc5,) = parse_specs("cvc5")
    refused = run_solver(
        cvc5, "(declare-const x Int)\n(assert (bvnego x))\n(check-sat)\n", timeout=30
    )
    assert refused.outcome is Outcome.ERROR, refused.stdout + refused.stderr


# Debian's cvc5 1.0.3 on `(set-logic QF_FFA) (declare-fun a () (_ FiniteField 5))
# (assert (= a a)) (check-sat)`, in a.smt2: its whole stdout (exit code 1; the quotes around
# "A" are cvc5's own, unescaped)
OLD_RELEASE_LOGIC = """(error "Parse Error: a.smt2:1.16: Illegal argument detected

  (set-logic QF_FFA)
             ^

void cvc5::internal::LogicInfo::setLogicString(std::string)

  `logicString' is a bad argument
LogicInfo::setLogicString(): junk ("A") at end of logic string: QF_FFA")
"""


def test_an_internal_check_the_parser_reports_is_a_rejection() -> None:
    """A release refusing a logic newer than itself: a parse error, though raised by an
    internal argument check; a maintainer would not take it as a crash."""
    found = classify(OLD_RELEASE_LOGIC, "", 1, False)
    assert found.outcome is Outcome.ERROR
    assert "junk" in (found.failure_line or "")
    # the same check outside the parser stays a crash
    outside = OLD_RELEASE_LOGIC.replace("Parse Error: a.smt2:1.16: ", "")
    assert classify(outside, "", 1, False).outcome is Outcome.CRASH


# Debian's cvc5 1.0.3 (built without LibPoly) on `(set-logic QF_NRA) (declare-const x Real)
# (declare-const y Real) (assert (> (* x y) 1.0)) (assert (< (* x x) 0.5)) (check-sat)` under
# --nl-icp: its stderr, and it aborts (SIGABRT); the lines ending in a backslash go on
WITHOUT_LIBPOLY = """Fatal failure within void cvc5::internal::theory::arith::nl::icp::ICPSolver::\
reset(const std::vector<cvc5::internal::NodeTemplate<true> >&) at ./src/theory/arith/nl/icp/\
icp_solver.cpp:375
Unimplemented code encountered ICPSolver requires cvc5 to be configured with LibPoly
"""


def test_an_option_that_needs_a_library_the_build_lacks_is_no_crash() -> None:
    found = classify("", WITHOUT_LIBPOLY, -6, False)
    assert found.outcome is Outcome.UNKNOWN
    assert found.failure_line == (
        "Unimplemented code encountered ICPSolver requires cvc5 to be configured with LibPoly"
    )
    # the same abort without the build's excuse stays a crash
    other = WITHOUT_LIBPOLY.replace("requires cvc5 to be configured with LibPoly", "")
    assert classify("", other, -6, False).outcome is Outcome.CRASH
