"""Solver runners on real z3, cvc5 and yices, and on stand-in scripts for crashes."""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import fields
from pathlib import Path

import pytest

from sphinxfuzz.oracle.backtrace import gdb_backtrace
from sphinxfuzz.oracle.crash import crash_signature
from sphinxfuzz.solvers import Outcome, SolverSpecError, parse_specs, run_solver
from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.persistent import PersistentSolver
from sphinxfuzz.solvers.result import Classified, SolverResult

FAKES = Path(__file__).resolve().parent.parent / "fixtures" / "fake_solvers"
SAT = "(set-option :produce-models true)(set-logic QF_LIA)\n(declare-const x Int)(assert (> x 41))(check-sat)(get-model)\n"
UNSAT = "(declare-const x Int)(assert (> x 0))(assert (< x 0))(check-sat)(get-model)\n"
# Sum of three cubes equal to 33: no solver finds the (huge) solution quickly.
HARD = (
    "(set-logic QF_NIA)(declare-const x Int)(declare-const y Int)(declare-const z Int)"
    "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))"
    "(assert (> (* x x) 1000000))(check-sat)\n"
)
SYNTAX_ERROR = "(declare-const x Int)(assert (> x 0)\n(check-sat)\n"
UNKNOWN_SYMBOL = "(declare-const x Int)(assert (> y 0))(check-sat)\n"


@pytest.fixture(scope="module", params=["z3", "cvc5", "yices"])
def solver(request):
    return parse_specs(request.param)[0]


def test_sat_with_model(solver) -> None:
    result = run_solver(solver, SAT, timeout=30)
    assert result.outcome is Outcome.SAT, result.stdout + result.stderr
    assert result.answers == ["sat"]
    assert result.model is not None and "x" in result.model
    assert result.version and result.version != "unknown"


def test_unsat_and_get_model_after_unsat_is_not_an_error(solver) -> None:
    result = run_solver(solver, "(set-logic QF_LIA)" + UNSAT, timeout=30)
    assert result.outcome is Outcome.UNSAT, result.stdout + result.stderr
    assert result.model is None


@pytest.mark.parametrize("script", [SYNTAX_ERROR, UNKNOWN_SYMBOL])
def test_rejected_input_is_an_error(solver, script: str) -> None:
    result = run_solver(solver, "(set-logic QF_LIA)" + script, timeout=30)
    assert result.outcome is Outcome.ERROR, result.stdout + result.stderr
    assert result.failure_line


def test_unknown_when_the_solver_gives_up() -> None:
    z3 = parse_specs("z3")[0]
    result = run_solver(z3, "(set-option :timeout 200)" + HARD, timeout=30)
    assert result.outcome is Outcome.UNKNOWN
    cvc5 = parse_specs("cvc5 --tlimit-per=300")[0]
    result = run_solver(cvc5, HARD, timeout=30)
    assert result.outcome is Outcome.UNKNOWN, result.stdout + result.stderr


@pytest.mark.parametrize("name", ["z3", "cvc5"])
def test_timeout_is_enforced_and_the_group_killed(name: str) -> None:
    spec = parse_specs(name)[0]
    started = time.perf_counter()
    result = run_solver(spec, HARD, timeout=1.5)
    assert time.perf_counter() - started < 1.5 + 1.0
    assert result.outcome is Outcome.TIMEOUT
    assert result.failure_line == "time limit"


def test_crash_by_signal_is_a_crash() -> None:
    spec = parse_specs(str(FAKES / "abort_solver.py"))[0]
    result = run_solver(spec, "(assert CRASH-ME)(check-sat)")
    assert result.outcome is Outcome.CRASH
    assert result.exit_code == -6  # SIGABRT
    assert "Assertion" in (result.failure_line or "")
    assert run_solver(spec, "(assert true)(check-sat)").outcome is Outcome.SAT
    # two crashes at one place are one signature, a crash elsewhere is another
    again = run_solver(spec, "(assert CRASH-ME)(check-sat)")
    elsewhere = run_solver(spec, "(assert (* CRASH-ME 2))(check-sat)")
    assert (
        crash_signature(result)
        == crash_signature(again)
        == ("other: Assertion failed at arith.cpp:42: x != 0")
    )
    assert crash_signature(elsewhere) == "other: Assertion failed at mul.cpp:88: k > 0"


def test_assertion_text_is_a_crash() -> None:
    spec = parse_specs(str(FAKES / "assert_solver.py"))[0]
    result = run_solver(spec, "(check-sat)")
    assert result.outcome is Outcome.CRASH
    assert result.failure_line == "ASSERTION VIOLATION"
    # the whole message is the signature: file, line and condition, not the build folder
    assert (
        crash_signature(result)
        == crash_signature(run_solver(spec, "(check-sat)"))
        == ("other: ASSERTION VIOLATION theory_lra.cpp:1234 UNEXPECTED CODE WAS REACHED.")
    )
    pushed = run_solver(spec, "(push 1)(check-sat)")
    assert crash_signature(pushed).startswith("other: ASSERTION VIOLATION theory_lra.cpp:1240 ")


def test_a_silent_segfault_is_signed_by_its_stack() -> None:
    if shutil.which("gdb") is None:
        pytest.skip("needs gdb (apt-get install gdb)")
    spec = parse_specs(f"{sys.executable} {FAKES / 'segfault_solver.py'}")[0]
    null, other = "(assert (* 2 x))(check-sat)", "(assert x)(check-sat)"
    results = [run_solver(spec, text) for text in (null, other)]
    assert [r.exit_code for r in results] == [-11, -11]
    assert {crash_signature(r) for r in results} == {"other: killed by signal 11"}
    traces = [gdb_backtrace(spec, text, timeout=10) for text in (null, other)]
    signatures = [t.signature("other") if t else None for t in traces]
    # frames are symbols where the binary has them (string_at, faulthandler_...), else
    # module+offset (a distribution's stripped interpreter: _ctypes...so+0x.., python3.11+0x..)
    assert signatures[0] is not None and signatures[0].startswith("other: SIGSEGV in ")
    assert "string_at" in signatures[0] or "_ctypes" in signatures[0]
    assert signatures[1] is not None and signatures[1].startswith("other: SIGSEGV in ")
    assert "faulthandler" in signatures[1] or "python3" in signatures[1]
    assert signatures[0] != signatures[1]


def test_model_check_failure_keeps_the_answer_and_flags_it() -> None:
    spec = parse_specs(str(FAKES / "bad_model_solver.py"))[0]
    result = run_solver(spec, "(check-sat)")
    assert result.outcome is Outcome.SAT
    assert result.model_check_failed
    assert "invalid model" in (result.failure_line or "")


def test_a_model_check_the_solver_calls_advisory_is_no_failure() -> None:
    # cvc5 --fmf-fun: its check of the recursive definition fails, and it says beforehand
    # that the check does not hold under that option (a false invalid-model otherwise)
    script = "(define-fun-rec f ((a Int)) Int a)\n(check-sat)\n"
    result = run_solver(parse_specs("cvc5 --check-models --fmf-fun")[0], script)
    assert "ERRORS SATISFYING ASSERTIONS WITH MODEL" in result.stderr
    assert result.outcome is Outcome.SAT
    assert not result.model_check_failed and result.failure_line is None


def test_memory_limit_is_enforced_and_reported_not_crashed() -> None:
    spec = parse_specs(str(FAKES / "hungry_solver.py"))[0]
    result = run_solver(spec, SAT, memory_mb=256)
    assert result.outcome is Outcome.UNKNOWN
    assert result.failure_line == "memory limit"


def test_specs_parse_like_command_lines() -> None:
    specs = parse_specs("z3 model_validate=true; cvc5 --check-models --strings-exp ;z3")
    assert [s.name for s in specs] == ["z3", "cvc5", "z3#2"]
    assert [s.family for s in specs] == ["z3", "cvc5", "z3"]
    assert specs[0].argv[-1] == "model_validate=true"
    assert specs[1].argv[-2:] == ("--check-models", "--strings-exp")
    assert os.access(specs[0].argv[0], os.X_OK)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "no solver"), ("no-such-solver-xyz", "neither a built-in"), ("z3 'open", "No closing")],
)
def test_bad_specs_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(SolverSpecError, match=message):
        parse_specs(text)


def test_cvc5_shim_maps_options() -> None:
    # strings-exp off is fine here; check-models and produce-models reach the solver
    spec = parse_specs("cvc5 --check-models --produce-models -q")[0]
    result = run_solver(spec, "(declare-const x Int)(assert (> x 1))(check-sat)(get-model)")
    assert result.outcome is Outcome.SAT and result.model is not None
    bad = parse_specs("cvc5 --no-such-option=1")[0]
    result = run_solver(bad, SAT)
    assert result.outcome is Outcome.ERROR
    assert "no-such-option" in (result.failure_line or "")


def test_a_problem_the_build_cannot_solve_is_unknown_not_rejected() -> None:
    # the cvc5 wheel is built without CoCoA: finite-field constraints parse, then check-sat
    # declines; that is no rejected input (and no verdict)
    script = (
        "(set-logic QF_FF)\n(declare-const a (_ FiniteField 7))\n(declare-const b (_ FiniteField 7))\n"
        "(assert (= (ff.mul a b) (as ff3 (_ FiniteField 7))))\n(assert (= (ff.add a b) #f1m7))\n(check-sat)\n"
    )
    result = run_solver(parse_specs("cvc5")[0], script, timeout=30)
    if result.outcome in (Outcome.SAT, Outcome.UNSAT):  # a cvc5 built with CoCoA just answers
        return
    assert result.outcome == Outcome.UNKNOWN and "cocoa" in (result.failure_line or "").lower()


def test_a_fresh_and_a_persistent_result_carry_all_that_classify_read() -> None:
    # one constructor for both runners (`SolverResult.classified`): every field of
    # `Classified`, a field added there later included, reaches the result of either; z3's
    # answer against the script's `:status`, with a model, sets the rarer ones
    spec = parse_specs("z3")[0]
    script = "(set-info :status unsat)\n" + SAT
    fresh = run_solver(spec, script, timeout=30)
    with PersistentSolver(spec) as persistent:
        kept = persistent.run(script, timeout=30)
    assert fresh.annotation_conflict and fresh.model and fresh.outcome is Outcome.SAT
    for result in (fresh, kept):
        found = classify(result.stdout, result.stderr, result.exit_code, False, spec.family)
        made = SolverResult.classified(
            spec, found, stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code,
            elapsed=result.elapsed, version=result.version, starting=result.starting,
        )  # fmt: skip
        assert made == result
        for field in fields(Classified):
            assert getattr(result, field.name) == getattr(found, field.name), field.name
