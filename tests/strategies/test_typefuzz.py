"""TypeFuzz: signatures from the theory documents, bound variables kept in scope, 500 mutants
of the shipped seeds well-sorted for z3 and cvc5, and the same mutants for a fixed seed."""

from __future__ import annotations

import random

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Atom, SList, infer_sorts, parse_script, print_script, walk
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.typefuzz import TypefuzzStrategy, operators

from .acceptance import real_only_rejections, rejected_by_each
from .seeds import SOLVERS, shipped


def test_signatures_come_from_the_theory_documents() -> None:
    table = {(op.name, str(op.signature.args), op.theory) for op in operators()}
    assert ("str.at", "('S', 'Int')", "Strings") in table
    assert ("fp.add", "('RM', 'F', 'F')", "FloatingPoint") in table
    assert ("select", "(('Array', ('I', 'E')), 'I')", "ArraysEx") in table
    names = {op.name for op in operators()}
    assert not names & {"extract", "to_fp", "divisible", "true", "re.none"}  # indexed, constants


def test_bound_variables_stay_under_their_binder() -> None:
    text = (
        "(declare-const a Int)(declare-const b Int)"
        "(assert (and (> a b) (forall ((q Int)) (=> (> q a) (> (* 2 q) b)))))"
    )
    seed = Seed("t.smt2", text, parse_script(text))
    cases = list(TypefuzzStrategy(per_seed=60).mutants(seed, random.Random(3)))
    assert len(cases) >= 40
    for case in cases:
        infer = infer_sorts(case.script)
        assert infer.fully_sorted, print_script(case.script)
        for node in walk(case.script.commands[-1]):
            # q appears only inside the forall
            if isinstance(node, SList) and node.head_name() == "forall":
                inside = {id(n) for n in walk(node)}
        uses = [n for n in walk(case.script.commands[-1]) if isinstance(n, Atom) and n.text == "q"]
        assert all(id(n) in inside for n in uses), print_script(case.script)


def _mutants(count: int, rng: random.Random) -> list:
    strategy = TypefuzzStrategy()
    seeds = [seed for seed in shipped() if strategy.applies(seed)]
    cases: list = []
    while len(cases) < count:
        seed = rng.choice(seeds)
        cases += list(strategy.mutants(seed, rng))[: count - len(cases)]
    return cases


def test_500_mutants_are_accepted_by_z3_and_cvc5() -> None:
    cases = _mutants(500, random.Random(18))
    assert len({print_script(c.script) for c in cases}) > 450
    assert len({op for c in cases for op in c.provenance["operators"]}) > 60
    for name, errors in rejected_by_each(SOLVERS, [c.script for c in cases]).items():
        assert len(errors) <= 10, (name, list(errors.items())[:5])  # 98% accepted


def test_a_fixed_seed_gives_the_same_mutants() -> None:
    first = [print_script(c.script) for c in _mutants(40, random.Random(7))]
    again = [print_script(c.script) for c in _mutants(40, random.Random(7))]
    other = [print_script(c.script) for c in _mutants(40, random.Random(8))]
    assert first == again and first != other
    assert get("typefuzz").oracle.value == "differential"


def test_no_ite_of_regular_expressions_which_cvc5_rejects() -> None:
    # cvc5 says "ITE branches of type RegLan are currently not supported" at check-sat
    text = (
        "(declare-const w String)(declare-const v String)"
        '(assert (str.in_re w (re.comp (re.++ re.all (str.to_re "cc") re.all))))'
        '(assert (and (str.in_re v (re.union (str.to_re "ab") re.allchar))'
        " (= (str.len w) (str.len v))))(check-sat)"
    )
    seed = Seed("t.smt2", text, parse_script(text))
    cases = list(TypefuzzStrategy(per_seed=40).mutants(seed, random.Random(1)))
    assert len(cases) == 40
    regexes = {"re.comp", "re.++", "re.union", "str.to_re", "re.all", "re.allchar"}
    assert any(op in regexes for c in cases for op in c.provenance["operators"])
    cvc5 = [spec for spec in SOLVERS if spec.family == "cvc5"]
    assert rejected_by_each(cvc5, [c.script for c in cases]) == {"cvc5": {}}


def test_numerals_of_a_real_only_logic_stay_reals() -> None:
    assert real_only_rejections(TypefuzzStrategy(per_seed=40)) == {}
