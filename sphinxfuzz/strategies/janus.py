"""Weakening and strengthening (Janus, ASE'22): the SAE rewrite (`sae.py`), with each case
related to its seed.

`related` is the seed's case, so a solver that answered the seed but says `unknown` (or times
out) on the case is incomplete, and a contradicting answer is unsound.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.strategies.base import TestCase, register
from sphinxfuzz.strategies.sae import SaeStrategy


class JanusStrategy(SaeStrategy):
    name = "janus"
    summary = (
        "weaken sat / strengthen unsat seeds; unknown where the seed was solved is incompleteness"
    )

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        answer = self.labels.get(seed.path)
        original = TestCase(
            seed.script, answer, provenance={"strategy": self.name, "seed": seed.path}
        )
        for case in super().mutants(seed, rng):
            provenance = {**case.provenance, "strategy": self.name}
            yield TestCase(case.script, case.expected, related=original, provenance=provenance)


register(JanusStrategy())
