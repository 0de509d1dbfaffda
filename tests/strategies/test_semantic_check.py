"""Solvers' models of string formulas checked in the executable semantics: real models
hold, a changed value is refuted, and `judge_expected` turns a refuted model into an
invalid-model verdict that needs no other solver."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from sphinxfuzz.mutate.mutant import ready_to_run
from sphinxfuzz.oracle import Expected, ModelChecker, VerdictKind, judge_expected
from sphinxfuzz.oracle.model_check import ModelCheckError, build_model_check, constant_values
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.semantic_check import SEMANTICS, model_holds
from sphinxfuzz.smtlib import print_node, print_script
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs
from sphinxfuzz.strategies.strings import sat_formula

SOLVERS = parse_specs("z3;cvc5")
FORMULAS = [print_script(ready_to_run(sat_formula(random.Random(n)).script())) for n in range(12)]


def _run(spec: SolverSpec, text: str) -> SolverResult:
    return run_in_dialect(spec, text, timeout=10.0)


def _models(spec: SolverSpec) -> list[SolverResult]:
    return [_run(spec, text) for text in FORMULAS]


def test_real_models_hold_and_a_changed_value_is_refuted() -> None:
    with ThreadPoolExecutor(len(SOLVERS)) as pool:
        runs = dict(zip(SOLVERS, pool.map(_models, SOLVERS), strict=True))
    decided = 0
    for spec, results in runs.items():
        for text, result in zip(FORMULAS, results, strict=True):
            if result.answers[:1] != ["sat"] or not result.model:
                continue
            verdict = model_holds(text, result.model)
            assert verdict is not False, (spec.name, text, result.model)
            decided += verdict is True
    assert decided >= len(FORMULAS)  # most models are read and decided, by both solvers
    # one constant's value changed: some changed model breaks an assertion
    text, result = next((t, r) for t, r in zip(FORMULAS, runs[SOLVERS[0]], strict=True) if r.model)
    assert result.model is not None
    assert any(model_holds(text, wrong) is False for wrong in _changed(result.model))


def _changed(model: str) -> list[str]:
    """The model with one constant's value changed, for each constant."""
    values = {name: print_node(node) for name, node in constant_values(model).items()}
    sorts = {name: "String" if value.startswith('"') else "Int" for name, value in values.items()}
    other = {"String": '"\\u{2ffff}zz"', "Int": "7919"}
    found = []
    for name in values:
        changed = {**values, name: other[sorts[name]]}
        body = " ".join(f"(define-fun {n} () {sorts[n]} {v})" for n, v in changed.items())
        found.append(f"({body})")
    return found


def test_undecided_outside_the_fragment() -> None:
    real = "(declare-const x Real)\n(assert (> x 1.5))\n(check-sat)\n"
    assert model_holds(real, "((define-fun x () Real 2.0))") is None
    missing = "(declare-const s String)\n(assert (= (str.len s) 2))\n(check-sat)\n"
    assert model_holds(missing, "()") is None
    assert model_holds(missing, "not a model") is None
    assert model_holds(missing, '((define-fun s () String "ab"))') is True
    # z3 4.8.8's "\\x00" is its character 0 and SMT-LIB 2.6's four characters: undecided,
    # and no model-check script is built from it either
    old_z3 = '(model (define-fun s () String "\\x00\\x01"))'
    assert model_holds(missing, old_z3) is None
    with pytest.raises(ModelCheckError, match="pre-2.6"):
        build_model_check(missing, old_z3)
    assert model_holds(missing, '((define-fun s () String "\\u{5c}b"))') is True


def test_a_refuted_model_is_an_invalid_model_verdict_of_its_solver() -> None:
    z3 = SOLVERS[0]
    text = next(t for t in FORMULAS if "Int" in t)
    result = _run(z3, text)
    assert result.answers[:1] == ["sat"] and result.model
    expected = Expected("sat", "strings", "sat by construction")
    checks = ModelChecker(text, _run)
    assert judge_expected([result], expected, checks) == []
    wrong = next(m for m in _changed(result.model) if model_holds(text, m) is False)
    assert model_holds(text, wrong) is False
    [verdict] = judge_expected([replace(result, model=wrong)], expected, checks)
    assert (verdict.kind, verdict.solver, verdict.evidence["source"]) == (
        VerdictKind.INVALID_MODEL, "z3", SEMANTICS,
    )  # fmt: skip
