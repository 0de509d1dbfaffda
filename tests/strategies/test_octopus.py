"""Octopus: several models by blocking, cases sat under each, unsat cores kept around mutated
rests; every case keeps its seed's label in z3 and cvc5."""

from __future__ import annotations

import random
from pathlib import Path

from sphinxfuzz.generators.catalogue import load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import parse_script, print_node
from sphinxfuzz.solvers import SolverResult, run_solver
from sphinxfuzz.strategies import StrategyContext, get
from sphinxfuzz.strategies.octopus import OctopusStrategy, conjuncts, several_models, unsat_core
from sphinxfuzz.strategies.storm import fragments

from .batching import assert_expected
from .seeds import SOLVERS, fast

GENERATORS = Path(__file__).resolve().parents[1] / "fixtures" / "generators"


def _z3(text: str) -> SolverResult:
    return run_solver(SOLVERS[0], text, timeout=10)


def test_each_model_gives_the_fragments_another_valuation() -> None:
    script = parse_script(
        "(declare-const p Bool)(declare-const q Bool)(declare-const x Int)"
        "(assert (or p q))(assert (=> p (> x 2)))(check-sat)"
    )
    found = fragments(script)
    valuations = several_models(script, script, found, _z3, 4)
    assert len(valuations) == 4 and len({tuple(v) for v in valuations}) == 4
    for valuation in valuations:  # each is a model's: both assertions hold in it
        assert valuation[0] and valuation[[print_node(f) for f in found].index("(=> p (> x 2))")]
    # (or p q) with p => x > 2: four valuations of p, q and x > 2 in all, so a fifth is refused
    assert len(several_models(script, script, found, _z3, 6)) == 4


def test_an_unsat_core_is_kept_and_the_rest_replaced() -> None:
    text = (
        "(declare-const x Int)(declare-const y Int)"
        "(assert (and (> x 5) (< y 0)))(assert (or (= y 1) (< x 3)))(assert (< x 3))(check-sat)"
    )
    seed = Seed("core.smt2", text, parse_script(text))
    assert [print_node(c) for c in conjuncts(seed.script)] == [
        "(> x 5)", "(< y 0)", "(or (= y 1) (< x 3))", "(< x 3)",
    ]  # fmt: skip
    assert unsat_core(seed.script, _z3) == [0, 3]
    strategy = OctopusStrategy(run=_z3, per_seed=5)
    strategy.add(seed, "unsat")  # type: ignore[arg-type]
    cases = list(strategy.mutants(seed, random.Random(1)))
    assert len(cases) == 5 and all(c.expected == "unsat" for c in cases)
    for case in cases:
        assert "(> x 5)" in case.text() and "(< x 3)" in case.text()
    assert len({c.text() for c in cases}) == 5


def test_100_cases_keep_the_seed_label_with_generated_snippets() -> None:
    # every fourth fast seed with generated snippets: its models and core cost a z3 run or
    # three each (bench/strategies.py counts the doubts of whole campaigns)
    chosen = fast()[::4]
    with GeneratorPool(load_catalogue(GENERATORS).entries) as pool:
        strategy = OctopusStrategy(per_seed=12)
        strategy.setup(StrategyContext(specs=SOLVERS, trusted=[_z3], pool=pool))
        for seed, answer in chosen:
            strategy.add(seed, answer)  # type: ignore[arg-type]
        rng = random.Random(7)
        cases = [c for s, _ in chosen if strategy.applies(s) for c in strategy.mutants(s, rng)]
    cases = [cases[i * len(cases) // 100] for i in range(100)]
    assert len({id(c) for c in cases}) == 100
    kinds = {(c.expected, c.provenance.get("snippets")) for c in cases}
    assert kinds == {("sat", True), ("unsat", True)}, kinds
    assert max(int(c.provenance.get("model", 0)) for c in cases) >= 1  # not only the first
    assert_expected(SOLVERS, [c.script for c in cases], [c.expected for c in cases], 0.1)


def test_octopus_is_registered_and_needs_generators_and_labels() -> None:
    octopus = get("octopus")
    assert octopus.needs.generators and octopus.needs.label and octopus.oracle == "expected"


def test_a_seed_that_names_terms_is_not_taken() -> None:
    # `gap` is defined by `(! ... :named gap)` in one assertion and used in another: a case
    # with the use and without the definition is rejected by both solvers
    text = "(declare-const x Int)(assert (= (! (- x 1) :named gap) 4))(assert (> gap 0))(check-sat)"
    strategy = OctopusStrategy(run=_z3)
    strategy.add(Seed("named.smt2", text, parse_script(text)), "sat")  # type: ignore[arg-type]
    assert strategy.labelled == {}
