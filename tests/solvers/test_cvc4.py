"""cvc4 1.8 (Debian's binary) as a family: its options come from its help text, its output is
read as cvc5's binary's, and its build without SymFPU answers floating point with nothing
rather than a crash. Skipped only where the binary is absent (`apt-get install cvc4`)."""

from __future__ import annotations

import shutil

import pytest

from sphinxfuzz.solvers import Family, Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.options.declared import Kind, declared_options
from sphinxfuzz.solvers.options.needed import needed_options
from sphinxfuzz.solvers.options.standing import Standing

pytestmark = pytest.mark.skipif(
    shutil.which("cvc4") is None, reason="cvc4 is not installed (apt-get install cvc4)"
)


def test_cvc4_runs_as_its_own_family_with_options_from_its_help() -> None:
    spec = parse_specs("cvc4")[0]
    assert spec.family is Family.CVC4 and not spec.guessed
    assert run_solver(spec, "(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n",
                      timeout=30).outcome == Outcome.SAT  # fmt: skip
    refused = run_solver(spec, "(assert y)\n(check-sat)\n", timeout=30)
    assert refused.outcome == Outcome.ERROR and "not declared" in str(refused.failure_line)
    declared = {d.name: d for d in declared_options(spec)}
    assert declared["produce-models"].kind is Kind.BOOL
    assert declared["arith-prop"].kind is Kind.ENUM and "unate" in declared["arith-prop"].choices
    assert Standing.EXPERT in {d.standing for d in declared.values()}


def test_floating_point_without_symfpu_is_a_build_that_lacks_it_not_a_crash() -> None:
    spec = parse_specs("cvc4")[0]
    script = (
        "(set-logic QF_FP)\n(declare-const f (_ FloatingPoint 8 24))\n"
        "(assert (fp.isNaN (fp.add RNE f f)))\n(check-sat)\n"
    )
    found = run_solver(spec, script, timeout=30)
    if found.outcome != Outcome.SAT:  # Debian's build has no SymFPU; one that has answers sat
        assert found.outcome == Outcome.UNKNOWN, found.stderr
        assert "SymFPU" in str(found.failure_line)


def test_a_script_with_push_or_two_queries_gets_incremental_mode() -> None:
    spec = parse_specs("cvc4")[0]
    script = "(declare-const p Bool)\n(push 1)\n(assert p)\n(check-sat)\n(pop 1)\n(check-sat)\n"
    refused = run_solver(spec, script, timeout=30)
    assert refused.outcome == Outcome.ERROR and "incremental" in str(refused.failure_line)
    needed = needed_options([("cvc4", "1.8")], commands={"push": 1, "check-sat": 2})
    assert needed == ["incremental=true"]
    lines = "".join(f"(set-option :{n} {v})\n" for n, v in (o.split("=") for o in needed))
    answered = run_solver(spec, lines + script, timeout=30)
    assert answered.outcome == Outcome.SAT and answered.answers == ["sat", "sat"]
