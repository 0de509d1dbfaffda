"""The campaign's reproducibility contract: every seeded random choice of a campaign draws
from `rng_for(campaign_seed, *purpose)`, a generator of its own for each purpose.

A purpose is a path such as `(position,)` for a position's test cases or
`(position, "strategy")` for its strategy draw: generators of different purposes never share
state, so what one of them draws (or whether it is asked at all) cannot change another's.
Solver answers, timing and the worker count never reach them, which is why a campaign seed
gives the same test cases on any machine. The seeding string is part of the contract: a
change makes every campaign draw different test cases than before.
"""

from __future__ import annotations

import random


def rng_for(seed: int, *purpose: object) -> random.Random:
    """The generator of `purpose` in the campaign of `seed`."""
    return random.Random(":".join(str(part) for part in (seed, *purpose)))
