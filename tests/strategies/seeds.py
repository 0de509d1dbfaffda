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


# logics whose seeds (and their mutants) the solvers decide in well under a second; mutants
# of quantified, non-linear or floating-point seeds often end `unknown` at the per-query limit
FAST_LOGICS = {
    "QF_LIA",
    "QF_LRA",
    "QF_SLIA",
    "QF_LIRA",
    "QF_UFLIA",
    "QF_ALIA",
    "QF_AUFLIA",
    "QF_BV",
    "QF_UF",
    "QF_ABV",
}


def logic(seed: Seed) -> str:
    heads = [c for c in seed.script.commands if c.head_name() == "set-logic"]
    return heads[0].items[1].text if heads else "ALL"  # type: ignore[union-attr]


def fast() -> list[tuple[Seed, str]]:
    return [(seed, answer) for seed, answer in labelled() if logic(seed) in FAST_LOGICS]
