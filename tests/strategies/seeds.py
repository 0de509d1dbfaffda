"""Shipped seeds for the strategy tests, labelled by z3 and cvc5 in two batched runs."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from sphinxfuzz.mutate.seed import Seed, load_seed
from sphinxfuzz.solvers import parse_specs

from .batching import answers, scoped

SKELETONS = Path(__file__).resolve().parents[2] / "skeletons"
SOLVERS = parse_specs("z3;cvc5")


@cache
def shipped() -> tuple[Seed, ...]:
    return tuple(load_seed(path) for path in sorted(SKELETONS.glob("*.smt2")))


@cache
def labelled() -> tuple[tuple[Seed, str], ...]:
    """The single-query seeds with z3's answer as label. The label is solver-checked twice
    over: tests/test_shipped_seeds.py asserts cvc5 answers every shipped seed as z3 does."""
    from sphinxfuzz.strategies.seedparts import single_query

    seeds = [s for s in shipped() if single_query(s.script)]
    z3 = SOLVERS[0]
    got = answers(z3, scoped([s.script for s in seeds], family=z3.family))
    return tuple((seed, a) for seed, a in zip(seeds, got, strict=False) if a in ("sat", "unsat"))
