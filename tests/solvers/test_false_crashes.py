"""No false crash (issue 51): a crash is read from how a solver ended and from its failure
channel, never from what a script makes it print, and a refusal in the family's error
status is a rejection whether or not the solver said why.

The real z3 5.4.1 and cvc5 1.4.2 (through the shim) run where the case can be provoked; the
outputs of releases not installed here are written as those releases print them."""

from __future__ import annotations

import pytest

from sphinxfuzz.oracle import VerdictKind, judge
from sphinxfuzz.solvers import Family, Outcome, SolverResult, SolverSpec, parse_specs
from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver

ABORTED_MODEL = """(set-option :produce-models true)
(declare-const Aborted Int)
(declare-const y Int)
(assert (> Aborted y))
(check-sat)
(get-model)
"""
# words of the crash patterns, said by the script itself
ECHOED = '(echo "terminate called after throwing")\n' + ABORTED_MODEL
HIGHER_ORDER = "(set-logic HO_UFIDL) (declare-const p Bool) (assert p) (check-sat)\n"


def _both_ways(spec: SolverSpec, script: str) -> list[SolverResult]:
    """`script` run in a fresh process and by a persistent one."""
    with PersistentSolver(spec) as solver:
        return [run_solver(spec, script, timeout=30), solver.run(script, timeout=30)]


def _result(spec_text: str, stdout: str, stderr: str, code: int) -> SolverResult:
    """A result classified as the runner classifies a run of `spec_text`."""
    (spec,) = parse_specs(spec_text)
    found = classify(stdout, stderr, code, False, spec.family)
    return SolverResult(
        spec, found.outcome, found.answers, stdout, stderr, code, 0.1, found.model,
        failure_line=found.failure_line, model_check_failed=found.model_check_failed,
    )  # fmt: skip


@pytest.mark.parametrize("name", ["z3", "cvc5"])
@pytest.mark.parametrize("script", [ABORTED_MODEL, ECHOED], ids=["model", "echo"])
def test_words_in_a_model_or_an_echo_are_no_crash(name: str, script: str) -> None:
    (spec,) = parse_specs(name)
    for result in _both_ways(spec, script):
        assert result.outcome is Outcome.SAT, (result.failure_line, result.stdout)
        assert result.failure_line is None and "Aborted" in (result.model or "")


def test_a_model_sent_to_stderr_is_no_crash() -> None:
    """z3 writes answers and models where `:regular-output-channel` says: on stderr they
    are read past as on stdout."""
    (z3,) = parse_specs("z3")
    script = '(set-option :regular-output-channel "stderr")\n' + ABORTED_MODEL
    result = run_solver(z3, script, timeout=30)
    assert "define-fun Aborted" in result.stderr
    assert result.outcome is not Outcome.CRASH, result.failure_line


def test_crash_words_on_stdout_count_only_where_the_family_prints_them() -> None:
    # z3 prints `echo` text unquoted: after its error exit (a failed `:status` check exits 1)
    # the words are still no crash message, for z3 prints those on stderr
    echoed = "terminate called after throwing\nAborted\n"
    assert classify(echoed, "", 1, False, Family.Z3).outcome is Outcome.ERROR
    # a program of no known family may print them on stdout, after a non-zero exit, but not
    # inside a string or a list
    assert classify(echoed, "", 1, False).outcome is Outcome.CRASH
    quoted = '"terminate called after throwing"\nsat\n((define-fun Aborted () Int 1))\n'
    assert classify(quoted, "", 0, False).outcome is Outcome.SAT
    assert classify("sat\n" + echoed, "", 0, False).outcome is Outcome.SAT
    # a list is read past to its closing parenthesis, whatever its lines start with (z3
    # breaks a definition before its value: a datatype value named Aborted), and one cut
    # short hides its own line alone
    for model in ("(\n  (define-fun x () T\n    Aborted)\n)\n", "(model\n Aborted)\n"):
        assert classify("sat\n" + model, "", 1, False).outcome is Outcome.SAT, model
    cut = classify("sat\n(model (define-fun\nASSERTION VIOLATION\n", "", 1, False)
    assert cut.outcome is Outcome.CRASH and cut.failure_line == "ASSERTION VIOLATION"
    # on stderr a crash message counts whatever else was printed, past an answer list
    stderr = "(\n  (define-fun Aborted () Int 1)\n)\nSegmentation fault\n"
    found = classify("sat\n", stderr, 0, False, Family.Z3)
    assert found.outcome is Outcome.CRASH and found.failure_line == "Segmentation fault"


def test_a_higher_order_logic_refused_under_an_option_is_a_rejection() -> None:
    """cvc5 1.4.2 under --no-uf-ho-exp: `(error "Higher-order logic not available in this
    configuration, try --uf-ho-exp.")`, exit 1; "not available" is no benign model error
    in a run that answered nothing."""
    (cvc5,) = parse_specs("cvc5 --check-models --no-uf-ho-exp")
    for result in _both_ways(cvc5, HIGHER_ORDER):
        assert result.exit_code == 1, result.stdout + result.stderr
        assert result.outcome is Outcome.ERROR, result.failure_line
        assert "Higher-order logic not available" in (result.failure_line or "")
    # the same run without the option answers
    (plain,) = parse_specs("cvc5 --check-models")
    assert run_solver(plain, HIGHER_ORDER, timeout=30).outcome is Outcome.SAT


def test_a_silent_exit_in_the_family_error_status_is_a_rejection() -> None:
    """Debian's cvc5 1.0.3 with --use-portfolio prints nothing and exits 1."""
    found = classify("", "", 1, False, Family.CVC5)
    assert found.outcome is Outcome.ERROR and found.failure_line == "exit code 1"
    # a status the family does not use for errors, or a program of no known family, crashed
    assert classify("", "", 3, False, Family.CVC5).outcome is Outcome.CRASH
    assert classify("", "", 1, False).outcome is Outcome.CRASH
    for signal in (1, 6, 11):  # any signal, in any family
        killed = classify("", "", -signal, False, Family.CVC5)
        assert killed.outcome is Outcome.CRASH
        assert killed.failure_line == f"killed by signal {signal}"
    # the family's error status after a crash message stays a crash (a z3 assertion build
    # exits 110 after ASSERTION VIOLATION, like an unknown parameter)
    violation = "ASSERTION VIOLATION\nFile: ../src/smt/smt_context.cpp\nLine: 4021\nfalse\n"
    assert classify("", violation, 110, False, Family.Z3).outcome is Outcome.CRASH
    assert classify("", "", 110, False, Family.Z3).outcome is Outcome.ERROR


# cvc5 --check-models finding its own model wrong: a fatal failure on stderr, an abort
# (SIGABRT) before the sat answer is printed; the lines ending in a backslash go on
CVC5_MODEL_REFUTED = """Fatal failure within void cvc5::internal::smt::CheckModels::checkModel(\
TheoryModel*, const context::CDList<Node>&, bool) at /project/src/smt/check_models.cpp:279
Internal error detected SolverEngine::checkModel(): ERRORS SATISFYING ASSERTIONS WITH MODEL \
{ THEORY_ARITH }:
assertion:     (> x 1)
simplifies to: false
expected `true'.
Run with `--check-models -v' for additional diagnostics.
"""
FORMULA = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n(get-model)\n"


def test_a_failed_own_model_check_is_a_bad_model_not_a_crash() -> None:
    refuted = _result("cvc5 --check-models", "", CVC5_MODEL_REFUTED, -6)
    assert refuted.outcome is Outcome.SAT and refuted.model_check_failed
    assert "ERRORS SATISFYING ASSERTIONS WITH MODEL" in (refuted.failure_line or "")
    # z3 model_validate=true says it after the answer, exit 0
    invalid = '(error "line 4 column 10: an invalid model was generated")\n'
    z3 = _result("z3 model_validate=true", "sat\n" + invalid, "", 0)
    assert z3.outcome is Outcome.SAT and z3.model_check_failed
    other = _result("yices", "sat\n((define-fun x () Int 2))\n", "", 0)
    for result in (refuted, z3):
        verdicts = judge(FORMULA, [result, other], lambda spec, text: other).verdicts
        assert [(v.kind, v.solver) for v in verdicts] == [
            (VerdictKind.INVALID_MODEL, result.spec.name)
        ]
    # the second of two queries failed its check: the answer it never printed was sat
    second = _result("cvc5 --check-models", "unsat\n", CVC5_MODEL_REFUTED, -6)
    assert second.answers == ["unsat", "sat"] and second.model_check_failed
    # another fatal failure of the same run stays a crash
    crashed = CVC5_MODEL_REFUTED.replace("ERRORS SATISFYING ASSERTIONS WITH MODEL", "bad node")
    assert _result("cvc5 --check-models", "", crashed, -6).outcome is Outcome.CRASH
