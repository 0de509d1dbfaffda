"""Canary: parts of a bounded exhaustive partition keep the seed's answer in z3 and cvc5, and a
sat formula whose parts a target all answers unsat is a soundness bug on the whole partition."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from campaign_helpers import LIAR_UNSAT, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import SList, parse_script, print_node
from sphinxfuzz.solvers import SolverResult, run_solver
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.canary import CanaryStrategy, Variable, cube, interval, read_value
from sphinxfuzz.strategies.seedparts import is_quantifier_free

from .batching import answers, assert_expected
from .seeds import SOLVERS, fast


def _z3(text: str) -> SolverResult:
    return run_solver(SOLVERS[0], text, timeout=10)


def _valid(variables: list[Variable], parts: list[SList]) -> bool:
    """z3 finds no value outside every part."""
    return _checks(variables, [f"(not (or {' '.join(print_node(p) for p in parts)}))"]) == ["unsat"]


def _checks(variables: list[Variable], formulas: list[str]) -> list[str]:
    """z3's answer on each formula alone, in one run."""
    lines = [f"(declare-const {v.name} {v.sort})" for v in variables]
    for formula in formulas:
        lines += ["(push 1)", f"(assert {formula})", "(check-sat)", "(pop 1)"]
    return answers(SOLVERS[0], "\n".join(lines) + "\n")


def test_families_cover_the_space_and_hold_the_model_in_one_part() -> None:
    variables = [Variable("p", "Bool"), Variable("x", "Int"), Variable("r", "Real"),
                 Variable("b", "(_ BitVec 4)")]  # fmt: skip
    model = {"p": True, "x": Fraction(-3), "r": Fraction(5, 2), "b": Fraction(15)}
    values = "(and p (= x (- 3)) (= r (/ 5.0 2.0)) (= b #b1111))"
    rng = random.Random(3)
    formulas, expected = [], []
    for _ in range(12):
        for family in (
            cube(variables, model, rng),
            interval(rng.choice(variables[1:]), model, rng),
        ):
            assert family.holding is not None
            # the parts cover the space
            formulas.append(f"(not (or {' '.join(print_node(p) for p in family.parts)}))")
            expected.append("unsat")
            # the model's values satisfy the part said to hold them, and no other part
            for number, part in enumerate(family.parts):
                formulas.append(f"(and {values} {print_node(part)})")
                expected.append("sat" if number == family.holding else "unsat")
    assert _checks(variables, formulas) == expected


def test_model_values_are_read_exactly() -> None:
    int_, real, bv = Variable("x", "Int"), Variable("r", "Real"), Variable("b", "(_ BitVec 8)")
    cases = [("(- 7)", int_, Fraction(-7)), ("(/ 1.0 3.0)", real, Fraction(1, 3)),
             ("(- (/ 5.0 2.0))", real, Fraction(-5, 2)), ("#x0a", bv, Fraction(10)),
             ("(_ bv200 8)", bv, Fraction(200)), ("(root-obj (+ (^ x 2) (- 2)) 1)", real, None)]  # fmt: skip
    for text, variable, value in cases:
        node = parse_script(f"(assert {text})").commands[0].items[1]
        assert read_value(node, variable) == value, text


def test_100_parts_keep_the_seed_answer() -> None:
    # every other quantifier-free fast seed: a sat one costs a z3 run for its model
    strategy = CanaryStrategy(run=_z3, per_seed=8, whole_share=0.2, quantified_share=0.3)
    chosen = [(s, a) for s, a in fast() if is_quantifier_free(s.script)][::2]
    for seed, answer in chosen:
        strategy.add(seed, answer)  # type: ignore[arg-type]
    rng = random.Random(5)
    by_seed = [list(strategy.mutants(s, rng)) for s, _ in chosen if s.path in strategy.labelled]
    cases = [case for found in by_seed for case in found]
    # a hundred spread over every seed's, each kind of case among them
    cases = [cases[i * len(cases) // 100] for i in range(100)]
    assert len({id(c) for c in cases}) == 100
    kinds = {(c.expected, c.provenance["part"] == "all", "quantifier" in c.provenance)
             for c in cases}  # fmt: skip
    assert len(kinds) >= 6, kinds
    assert_expected(SOLVERS, [c.script for c in cases], [c.expected for c in cases], 0.1)


def test_canary_is_registered_and_takes_labelled_seeds() -> None:
    text = '(declare-const s String)(assert (= s "a"))(check-sat)'
    strategy = get("canary")
    seed = Seed("s.smt2", text, parse_script(text))
    strategy.add(seed, "sat")  # type: ignore[attr-defined]
    assert not strategy.applies(seed)  # no constant a part can bound


def test_parts_a_target_all_answers_unsat_are_a_soundness_bug_on_the_whole_partition(
    tmp_path: Path,
) -> None:
    """The liar answers unsat on every case with a model request that mentions its marker.
    Only the part holding `lie_marker = 4` is sat: that is the one the liar lies on, and the
    whole partition, one formula, is stored as its soundness bug."""
    seed = tmp_path / "lie.smt2"
    seed.write_text("(declare-const lie_marker Int)\n(assert (= lie_marker 4))\n(check-sat)\n")
    config = replace(config_for([seed], LIAR_UNSAT, seed=2, per_seed=6), strategies="canary")
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert stats.strategies["canary"].cases == 6
    with Store(tmp_path / "c") as store:
        bugs = store.bugs()
    assert bugs and {(b.kind, b.solver) for b in bugs} == {("soundness", "liar_unsat.py")}
    wholes = []
    for bug in bugs:
        script = parse_script((tmp_path / "c" / bug.folder / "mutant.smt2").read_text())
        constraint = [c for c in script.commands if c.head_name() == "assert"][-1].items[1]
        if isinstance(constraint, SList) and constraint.head_name() == "or":
            wholes.append(constraint.items[1:])
    assert wholes, "no whole partition was stored"
    for parts in wholes:
        assert len(parts) >= 2 and _valid([Variable("lie_marker", "Int")], parts)  # type: ignore[arg-type]
