"""Skeletal approximation (SAE, FSE'21): over-approximate a sat seed, under-approximate an
unsat one, so the case keeps the seed's answer (`literals.rewrite`).

A case is judged by that expected answer: the seed's label by the trusted solvers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.solvers import Answer
from sphinxfuzz.strategies.base import Needs, OracleKind, StrategyBase, TestCase, register
from sphinxfuzz.strategies.literals import literals, rewrite
from sphinxfuzz.strategies.seedparts import single_query


class SaeStrategy(StrategyBase):
    name = "sae"
    summary = "over-approximate sat seeds, under-approximate unsat ones (skeletal approximation)"
    oracle = OracleKind.EXPECTED
    needs = Needs(label=True)

    def __init__(self, per_seed: int = 4) -> None:
        self.per_seed = per_seed
        self.labels: dict[str, Answer] = {}  # the labelled seeds it may rewrite

    def add(self, seed: Seed, answer: Answer) -> None:
        if single_query(seed.script):
            self.labels[seed.path] = answer

    def forget(self) -> None:
        self.labels = {}

    def applies(self, seed: Seed) -> bool:
        return seed.path in self.labels and bool(literals(seed.script))

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        answer = self.labels.get(seed.path)
        for number in range(self.per_seed if answer else 0):
            done = rewrite(seed.script, answer == Answer.SAT, rng)
            if done is not None:
                script, used = done
                provenance = {
                    "strategy": self.name,
                    "seed": seed.path,
                    "mutant": number,
                    "rules": used,
                }
                yield TestCase(script, answer, provenance=provenance)


register(SaeStrategy())
