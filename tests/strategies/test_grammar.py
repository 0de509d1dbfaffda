"""Grammar enumeration: every enumerated term is derived by the grammar, smallest first; the
mutants are mostly accepted; a fixed seed gives the same mutants."""

from __future__ import annotations

import random

from sphinxfuzz.smtlib import parse_script, print_script
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.base import StrategyContext
from sphinxfuzz.strategies.grammar import GrammarStrategy, grammar_terms, parser

from .acceptance import rejected_by_each
from .seeds import SOLVERS, shipped


def test_every_enumerated_term_is_derived_by_the_grammar() -> None:
    for theory in ("Core", "Ints", "FixedSizeBitVectors"):
        terms = grammar_terms(theory)
        lark = parser(theory)
        assert len(terms.raw) >= 50, theory
        sample = terms.raw[:: max(1, len(terms.raw) // 400)]
        for tokens in sample:
            text = " ".join(t.split("\x00")[1] if t.startswith("\x00") else t for t in tokens)
            lark.parse(text)  # raises when the grammar does not derive it
        for item in terms.usable(0, 40):
            lark.parse(item.derived)
        sizes = [sum(len(t) + 1 for t in tokens) for tokens in terms.raw]
        assert sizes == sorted(sizes), theory  # smallest first


def test_small_corner_cases_come_first() -> None:
    ints = [item.term for item in grammar_terms("Ints").usable(0, 200)]
    assert ints[0] == "( = 0 0 )" and "( = x_Int 0 )" in ints
    strings = [item.term for item in grammar_terms("Strings").usable(0, 50)]
    assert '( = "" "" )' in strings


def test_bit_vector_literals_fit_their_width() -> None:
    # the grammar pairs any bvN with any width; cvc5 rejects (_ bv8 1) as an overflow
    terms = [i for i in grammar_terms("FixedSizeBitVectors").usable(0, 1000) if "( _ bv" in i.term]
    assert len(terms) >= 50
    scripts = [
        parse_script(f"(set-logic ALL)\n{i.declarations}\n(assert {i.term})", "<t>") for i in terms
    ]
    for name, errors in rejected_by_each(SOLVERS, scripts).items():
        assert not errors, (name, [(terms[k].term, e) for k, e in list(errors.items())[:3]])


def _mutants(count: int, rng: random.Random, strategy: GrammarStrategy | None = None) -> list:
    strategy = strategy or GrammarStrategy()
    seeds = [seed for seed in shipped() if strategy.applies(seed)]
    cases: list = []
    while len(cases) < count:
        cases += list(strategy.mutants(rng.choice(seeds), rng))[: count - len(cases)]
    return cases


def test_mutants_are_mostly_accepted() -> None:
    cases = _mutants(200, random.Random(4))
    assert {c.provenance["theory"] for c in cases} >= {"Ints", "Strings"}
    for name, errors in rejected_by_each(SOLVERS, [c.script for c in cases]).items():
        assert len(errors) <= 10, (name, list(errors.items())[:5])


def test_only_what_every_target_takes_is_drawn() -> None:
    # z3 4.8.8 has no bvnego, bvsaddo, int_to_bv or (_ char #x41): the grammars have them
    specs = parse_specs("z3@4.8.8;cvc5")
    strategy = GrammarStrategy(theories=("FixedSizeBitVectors", "Strings"))
    strategy.setup(StrategyContext(specs=specs))
    cases = _mutants(60, random.Random(3), strategy)
    for name, errors in rejected_by_each(specs, [c.script for c in cases]).items():
        assert not errors, (name, list(errors.values())[:3])


def test_a_fixed_seed_gives_the_same_mutants() -> None:
    first = [print_script(c.script) for c in _mutants(30, random.Random(7))]
    again = [print_script(c.script) for c in _mutants(30, random.Random(7))]
    other = [print_script(c.script) for c in _mutants(30, random.Random(8))]
    assert first == again and first != other
    assert get("grammar").oracle.value == "differential"
