"""The oracle on real solvers: signatures, model-check scripts, both disagreement directions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import FIXTURES, LIAR_SAT, LIAR_UNSAT

from sphinxfuzz.bugs import Origin, Store
from sphinxfuzz.bugs.issue_text import issue_text, load_facts
from sphinxfuzz.oracle import (
    ModelCheckError,
    VerdictKind,
    build_model_check,
    judge,
    normalise_failure,
)
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Answer, Outcome, SolverResult, SolverSpec, parse_specs, run_solver

SAT_FORMULA = """(set-option :produce-models true)
(declare-const lie_marker Int)
(declare-const x Int)
(declare-const y Int)
(assert (> x (+ y 3)))
(assert (= lie_marker (* 2 y)))
(check-sat)
(get-model)
"""

UNSAT_FORMULA = """(set-option :produce-models true)
(declare-const lie_marker Int)
(declare-const x Int)
(assert (> x 5))
(assert (< x (- lie_marker 1)))
(assert (< lie_marker 3))
(check-sat)
(get-model)
"""

UNINTERPRETED = """(set-option :produce-models true)
(declare-sort U 0)
(declare-const a U)
(declare-const b U)
(declare-fun f (U) Int)
(declare-const arr (Array Int Int))
(declare-const r Real)
(assert (distinct a b))
(assert (> (f a) (f b)))
(assert (= (select arr 3) 7))
(assert (= (* 3.0 r) 1.0))
(check-sat)
(get-model)
"""


def run(spec: SolverSpec, text: str) -> SolverResult:
    return run_solver(spec, for_family(text, spec.family), timeout=10.0)


def test_failure_lines_normalise_to_one_signature() -> None:
    one = normalise_failure("ASSERTION VIOLATION File: /tmp/b1/src/theory.cpp Line: 12 at 0x7f00ab")
    two = normalise_failure("ASSERTION VIOLATION File: /home/u/z3/src/theory.cpp Line: 977 at 0x1")
    assert one == two
    assert "12" not in one and "/tmp" not in one
    assert normalise_failure("Fatal failure within void foo()") != one


@pytest.mark.parametrize("family", ["z3", "cvc5"])
def test_model_check_pins_every_model_format(family: str) -> None:
    """z3 and cvc5 models (uninterpreted universes, arrays, reals, functions) become a
    check script that z3 finds sat, and that turns unsat once an assertion contradicts it."""
    spec = parse_specs(family)[0]
    result = run(spec, UNINTERPRETED)
    assert result.outcome == Outcome.SAT, result.stderr
    # the model as printed (after the `sat` line), read here independently of the runner
    model = result.stdout.split("sat", 1)[1]
    check = build_model_check(UNINTERPRETED, model)
    assert "(check-sat)" in check and "get-model" not in check
    assert "declare-const a " not in check  # pinned by its definition
    z3 = parse_specs("z3")[0]
    assert run(z3, check).answers == ["sat"]
    # the same model against a formula that forbids it: the check says unsat
    contradicting = UNINTERPRETED.replace("(check-sat)", "(assert (= a b))\n(check-sat)")
    wrong = build_model_check(contradicting, model)
    assert run(z3, wrong).answers == ["unsat"]


# what was asserted before (reset-assertions) or (reset) no longer binds the model
FORGETTING = """(set-option :produce-models true)
(set-option :incremental true)
(set-option :global-declarations true)
(declare-const x Int)
(assert (> x 0))
(push 1)
(assert (> x 5))
(reset-assertions)
(assert (< x 0))
(check-sat)
(get-model)
"""


@pytest.mark.parametrize(
    "forget",
    ["(reset-assertions)", "(reset)\n(set-option :produce-models true)\n(declare-const x Int)"],
)
def test_forgotten_assertions_do_not_bind_the_model(forget: str) -> None:
    formula = FORGETTING.replace("(reset-assertions)", forget)
    specs = parse_specs("z3;cvc5")
    results = [run(spec, formula) for spec in specs]
    assert [r.answers[:1] for r in results] == [["sat"], ["sat"]]
    check = build_model_check(formula, results[0].stdout.split("sat", 1)[1])
    assert "(> x 0)" not in check and "(push" not in check
    assert run(specs[0], check).answers == ["sat"]
    judgement = judge(formula, results, run)
    assert judgement.verdicts == [] and not judgement.unconfirmed
    # an assertion after the forgetting one still binds it
    wrong = formula.replace("(check-sat)", "(assert (> x 0))\n(check-sat)", 1)
    assert run(
        specs[0], build_model_check(wrong, results[0].stdout.split("sat", 1)[1])
    ).answers == ["unsat"]


def test_model_check_rejects_unreadable_models() -> None:
    with pytest.raises(ModelCheckError):
        build_model_check(SAT_FORMULA, "sat (")


def test_model_that_holds_blames_the_unsat_solver() -> None:
    specs = parse_specs(f"z3;{LIAR_UNSAT}")
    results = [run(spec, SAT_FORMULA) for spec in specs]
    assert [r.answers[:1] for r in results] == [["sat"], ["unsat"]]
    judgement = judge(SAT_FORMULA, results, run)
    verdict = judgement.verdict
    assert verdict.kind == VerdictKind.SOUNDNESS
    assert verdict.solver == specs[1].name
    assert judgement.check_script is not None and not judgement.unconfirmed
    assert {r.spec.name for r in judgement.check_results} == {s.name for s in specs}


def test_model_that_fails_blames_the_sat_solver() -> None:
    specs = parse_specs(f"z3;{LIAR_SAT}")
    results = [run(spec, UNSAT_FORMULA) for spec in specs]
    assert [r.answers[:1] for r in results] == [["unsat"], ["sat"]]
    verdict = judge(UNSAT_FORMULA, results, run).verdict
    assert verdict.kind == VerdictKind.INVALID_MODEL
    assert verdict.solver == specs[1].name


def test_agreement_and_unknown_make_no_verdict() -> None:
    specs = parse_specs(f"z3;{LIAR_UNSAT}")
    plain = SAT_FORMULA.replace("lie_marker", "m")  # no marker: the stand-in is z3
    results = [run(spec, plain) for spec in specs]
    judgement = judge(plain, results, run)
    assert judgement.verdicts == [] and not judgement.unconfirmed


def test_own_model_check_failure_is_an_invalid_model() -> None:
    specs = parse_specs(f"z3;{FIXTURES / 'own_check_fails.py'}")
    formula = SAT_FORMULA.replace("lie_marker", "check_marker")
    results = [run(spec, formula) for spec in specs]
    assert results[1].model_check_failed
    judgement = judge(formula, results, run)
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [
        (VerdictKind.INVALID_MODEL, "own_check_fails.py")
    ]


def test_a_check_starts_from_the_callers_parse_of_the_formula() -> None:
    """A campaign hands `judge` the script it printed the formula from: the check is the one
    the text gives, built without parsing the text again."""
    specs = parse_specs(f"z3;{LIAR_UNSAT}")
    results = [run(spec, SAT_FORMULA) for spec in specs]
    from_text = judge(SAT_FORMULA, results, run)
    parsed = judge(SAT_FORMULA, results, run, parse_script(SAT_FORMULA))
    assert parsed.check_script == from_text.check_script and parsed.check_script
    assert [(v.kind, v.solver) for v in parsed.verdicts] == [
        (v.kind, v.solver) for v in from_text.verdicts
    ]
    [liar] = parse_specs(LIAR_SAT)
    lying = run(liar, UNSAT_FORMULA)
    alone = judge(UNSAT_FORMULA, [lying], run, parse_script(UNSAT_FORMULA))
    assert alone.check_script == judge(UNSAT_FORMULA, [lying], run).check_script
    assert [v.kind for v in alone.verdicts] == [VerdictKind.INVALID_MODEL]
    # the parse is what the check is built from (the text is not read again)
    marked = parse_script(UNSAT_FORMULA.replace("(check-sat)", "(assert (= x 77))\n(check-sat)"))
    assert "(= x 77)" in (judge(UNSAT_FORMULA, [lying], run, marked).check_script or "")


def test_a_lone_solver_is_judged_on_its_own_model_only(tmp_path: Path) -> None:
    """One result (a seed one target alone accepts): its sat model is checked on that solver,
    never on another; a wrong one is an invalid model, anything else decides nothing."""
    checked: list[str] = []

    def check_on(spec: SolverSpec, text: str) -> SolverResult:
        checked.append(spec.name)
        return run(spec, text)

    [liar] = parse_specs(LIAR_SAT)
    lying = run(liar, UNSAT_FORMULA)
    judgement = judge(UNSAT_FORMULA, [lying], check_on)
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [
        (VerdictKind.INVALID_MODEL, liar.name)
    ]
    assert checked == [liar.name] and not judgement.unconfirmed
    # its report says what is known: its two answers disagree, not which one is wrong
    with Store(tmp_path, create=True) as store:
        store.save_config({"timeout": 10.0, "memory_mb": 4096})
        ident = store.record_bug(
            judgement.verdicts[0], Origin(1, "seed.smt2", 0, 0, "sphinx", ("Ints",)),
            UNSAT_FORMULA, [lying],
        )  # fmt: skip
    text = issue_text(load_facts(tmp_path / "bugs" / str(ident)))
    assert "then unsat for the formula under that model" in text
    assert "one of the two answers is wrong" in text and "other solvers" not in text
    [z3] = parse_specs("z3")
    checked.clear()
    right = run(z3, SAT_FORMULA)
    judgement = judge(SAT_FORMULA, [right], check_on)
    assert judgement.verdicts == [] and checked == [z3.name] and not judgement.unconfirmed
    # unsat, unknown and a time-out alone: nothing to check, nothing to compare
    checked.clear()
    [liar_unsat] = parse_specs(LIAR_UNSAT)
    for result in (
        run(liar_unsat, SAT_FORMULA),
        replace(right, outcome=Outcome.UNKNOWN, answers=[Answer.UNKNOWN]),
        replace(right, outcome=Outcome.TIMEOUT, answers=[]),
    ):
        judgement = judge(SAT_FORMULA, [result], check_on)
        assert judgement.verdicts == [] and not judgement.unconfirmed
    assert checked == []


# z3 4.12.2's model of a formula over an uninterpreted sort that constrains only functions:
# its elements (U!val!0, U!val!1) are used but declared nowhere in the model
UNDECLARED_ELEMENTS = """(
  (define-fun a () U
    U!val!0)
  (define-fun b () U
    U!val!1)
  (define-fun f ((x!0 U)) Int
    (ite (= x!0 U!val!0) 1
      0))
  (define-fun r () Real
    (/ 1.0 3.0))
)"""


@pytest.mark.parametrize("family", ["z3", "cvc5"])
def test_a_model_check_declares_z3_elements_the_model_left_undeclared(family: str) -> None:
    formula = UNINTERPRETED.replace("(assert (= (select arr 3) 7))\n", "")
    check = build_model_check(formula, UNDECLARED_ELEMENTS)
    assert "(declare-fun U!val!0 () U)" in check and "(distinct U!val!0 U!val!1)" in check
    result = run(parse_specs(family)[0], check)
    assert result.outcome == Outcome.SAT and result.first == Answer.SAT


def test_a_check_that_rejects_part_of_its_input_answers_nothing() -> None:
    # z3 reads on after an error: the answer is that of a script without the rejected part
    result = run(parse_specs("z3")[0], "(assert undeclared)\n(check-sat)\n")
    assert result.answers == [Answer.SAT] and result.outcome == Outcome.ERROR
    assert result.first == Outcome.ERROR


def test_a_party_alone_never_vouches_for_its_own_model() -> None:
    # the unsat side cannot read the check (here: a symbol it rejects), the sat side's own
    # check says its model holds: that is the sat solver judging itself, no verdict
    specs = parse_specs(f"z3;{LIAR_UNSAT}")
    results = [run(spec, SAT_FORMULA) for spec in specs]

    def unreadable_for_the_liar(spec: SolverSpec, text: str) -> SolverResult:
        return run(spec, text if spec == specs[0] else f"(assert undeclared)\n{text}")

    judgement = judge(SAT_FORMULA, results, unreadable_for_the_liar)
    assert judgement.verdicts == [] and judgement.unconfirmed
    assert [r.first for r in judgement.check_results] == [Answer.SAT, Outcome.ERROR]
