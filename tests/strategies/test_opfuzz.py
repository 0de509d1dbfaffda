"""OpFuzz: replacements fit their signature; 500 mutants of the shipped seeds are well-sorted
for z3 and cvc5; a fixed seed gives the same mutants."""

from __future__ import annotations

import random

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import infer_sorts, parse_script, print_node, print_script
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.opfuzz import OpfuzzStrategy, families, occurrences

from .acceptance import real_only_rejections, rejected_by_each
from .seeds import SOLVERS, shipped


def _replacements(text: str) -> dict[str, list[str]]:
    script = parse_script(text)
    info = infer_sorts(script, collect_sites=True)
    return {
        print_node(occ.parent.items[occ.index]): occ.replacements()
        for occ in occurrences(script, info)
    }


def test_replacements_respect_arity_and_sorts() -> None:
    found = _replacements(
        "(declare-const a Int)(declare-const r Real)(declare-const b (_ BitVec 8))"
        "(declare-const f Float32)(declare-const s String)"
        "(assert (and (< a 1 2) (= (mod a 3) 0) (= (+ a a a) (- a)) (> r 1.0) (bvult b (bvsub b b))"
        " (fp.lt (fp.add RNE f f) f) (str.prefixof s s) (= ((_ zero_extend 2) b) #b0000000000)))"
    )
    assert found["(< a 1 2)"] == ["<=", ">=", ">"]  # chainable order, still three arguments
    assert found["(mod a 3)"] == ["div"]  # mod becomes div, never the reverse
    assert found["(+ a a a)"] == ["-", "*"]  # n-ary: div takes two only
    assert found["(- a)"] == ["abs"]
    assert found["(> r 1.0)"] == ["<=", ">=", "<"]
    assert "bvudiv" in found["(bvsub b b)"] and "bvult" not in found["(bvsub b b)"]
    assert found["(bvult b (bvsub b b))"][:2] == ["bvule", "bvugt"]
    assert found["RNE"] == ["RNA", "RTP", "RTN", "RTZ"]
    assert found["(fp.add RNE f f)"] == ["fp.sub", "fp.mul", "fp.div"]
    assert "str.contains" in found["(str.prefixof s s)"]
    assert found["((_ zero_extend 2) b)"] == ["sign_extend"]
    # `and` with 8 conjuncts: only the n-ary connectives
    assert found[next(k for k in found if k.startswith("(and"))] == ["or", "=>"]


def test_shadowed_and_mixed_sorts_are_left_alone() -> None:
    found = _replacements(
        "(declare-const a Int)(declare-const r Real)"
        "(assert (forall ((abs Int)) (< (+ a r) abs)))"  # a mixed Int/Real sum (z3's reading)
    )
    assert found["(+ a r)"] == [] and found["(< (+ a r) abs)"] == []
    assert found["(forall ((abs Int)) (< (+ a r) abs))"] == ["exists"]


def test_families_are_data_with_known_operators() -> None:
    from sphinxfuzz.smtlib.theories import CONSTANTS, RULES

    names = {n for f in families() for n in (*f.sources, *f.targets)}
    assert len(families()) >= 30
    assert names - set(RULES) - set(CONSTANTS) == {"forall", "exists"}


def _mutants(count: int, rng: random.Random) -> list:
    strategy = OpfuzzStrategy()
    seeds = [seed for seed in shipped() if strategy.applies(seed)]
    cases: list = []
    while len(cases) < count:
        seed = rng.choice(seeds)
        cases += list(strategy.mutants(seed, rng))[: count - len(cases)]
    return cases


def test_500_mutants_are_accepted_by_z3_and_cvc5() -> None:
    cases = _mutants(500, random.Random(18))
    assert len({print_script(c.script) for c in cases}) > 450
    assert all(c.provenance["replacements"] for c in cases)
    for name, errors in rejected_by_each(SOLVERS, [c.script for c in cases]).items():
        assert len(errors) <= 10, (name, list(errors.items())[:5])  # 98% accepted


def test_a_fixed_seed_gives_the_same_mutants() -> None:
    first = [print_script(c.script) for c in _mutants(40, random.Random(7))]
    again = [print_script(c.script) for c in _mutants(40, random.Random(7))]
    other = [print_script(c.script) for c in _mutants(40, random.Random(8))]
    assert first == again and first != other
    assert get("opfuzz").oracle.value == "differential"


def test_numerals_of_a_real_only_logic_stay_reals() -> None:
    assert real_only_rejections(OpfuzzStrategy(per_seed=40)) == {}


def test_a_difference_logic_is_widened_for_a_product() -> None:
    # `-` becoming `*` leaves difference logic: z3 says "logic only supports difference
    # arithmetic" unless the logic is widened
    text = (
        "(set-logic QF_IDL)(declare-const a Int)(declare-const b Int)"
        "(assert (= (- a 7) b))(assert (< (- b a) 3))(check-sat)"
    )
    seed = Seed("idl.smt2", text, parse_script(text))
    cases = list(OpfuzzStrategy(per_seed=40).mutants(seed, random.Random(4)))
    assert any("-->*" in c.provenance["replacements"] for c in cases)
    z3 = [spec for spec in SOLVERS if spec.family == "z3"]
    assert rejected_by_each(z3, [c.script for c in cases]) == {"z3": {}}
