"""STORM: fragments valued by z3's model; every instance is sat in z3 and cvc5."""

from __future__ import annotations

import random

from sphinxfuzz.smtlib import parse_script, print_node
from sphinxfuzz.solvers import SolverResult, run_solver
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.seedparts import is_quantifier_free
from sphinxfuzz.strategies.storm import StormStrategy, fragments

from .batching import answers, assert_expected, scoped
from .seeds import SOLVERS, fast, labelled


def _z3(text: str) -> SolverResult:
    return run_solver(SOLVERS[0], text, timeout=10)


def test_fragments_are_boolean_subformulas() -> None:
    script = parse_script(
        "(declare-const a Int)(declare-const p Bool)(assert (or p (and (< a 2) (let ((b a)) (> b 0)))))"
    )
    assert [print_node(f) for f in fragments(script)] == [
        "(or p (and (< a 2) (let ((b a)) (> b 0))))",
        "p",
        "(and (< a 2) (let ((b a)) (> b 0)))",
        "(< a 2)",
        "(let ((b a)) (> b 0))",
    ]


def test_100_instances_are_sat_and_incremental_ones_too() -> None:
    strategy = StormStrategy(run=_z3, per_seed=10)
    seeds = [s for s, a in fast() if a == "sat" and strategy.applies(s)]
    assert len(seeds) >= 10
    rng = random.Random(11)
    cases = [case for seed in seeds for case in strategy.mutants(seed, rng)]
    # a hundred instances spread over every seed's (bench/strategies.py counts the wrong
    # models of whole campaigns: its construction doubts)
    plain = [c for c in cases if not c.provenance["incremental"]]
    plain = [plain[i * len(plain) // 100] for i in range(100)]
    stepwise = [c for c in cases if c.provenance["incremental"]][:20]
    assert len({id(c) for c in plain}) == 100 and len(stepwise) == 20
    assert_expected(SOLVERS, [c.script for c in plain], ["sat"] * 100)
    checks = sum(
        sum(1 for c in case.script.commands if c.head_name() == "check-sat") for case in stepwise
    )
    for spec in SOLVERS:
        got = answers(spec, scoped([c.script for c in stepwise], family=spec.family))
        assert len(got) == checks and "unsat" not in got, (spec.name, got)
        assert got.count("sat") >= 0.9 * checks, (spec.name, got)


def test_storm_is_registered_and_needs_a_trusted_solver() -> None:
    seed = labelled()[0][0]
    assert not get("storm").applies(seed)  # no runner plugged in yet
    assert StormStrategy(run=_z3).pool(seed) is not None or not is_quantifier_free(seed.script)
