"""The reproducibility contract: `rng_for` draws what the campaign's seeded generators drew
before it was their one home, so a campaign seed keeps making the same test cases."""

from __future__ import annotations

import random

from sphinxfuzz.campaign.rngs import rng_for


def _draws(rng: random.Random) -> tuple[float, int, int]:
    return rng.random(), rng.getrandbits(32), rng.randint(1, 100)


def test_rng_for_pins_the_mutants_of_campaign_seed_15() -> None:
    # the draws of `Random(f"{seed}:{position}")` and of its ":strategy" and ":partners"
    # purposes in campaign seed 15 at position 3, as the loop made them before `rng_for`
    assert _draws(rng_for(15, 3)) == (0.7801206633035699, 2979542028, 43)
    assert _draws(rng_for(15, 3, "strategy")) == (0.8912030424569966, 32718489, 9)
    assert _draws(rng_for(15, 3, "partners")) == (0.47755748298881295, 3532316723, 62)
    # the seed order's shuffle of round 1 and the theory probe
    assert _draws(rng_for(15, "order", 1)) == (0.5522461964037129, 341511280, 91)
    assert _draws(rng_for(15, "probe")) == (0.4929530917848114, 3916917886, 12)


def test_purposes_do_not_share_state() -> None:
    first = rng_for(15, 3)
    first.random()  # another purpose's draws never move this one
    assert _draws(rng_for(15, 3, "strategy")) == _draws(rng_for(15, 3, "strategy"))
    assert _draws(rng_for(15, 3)) != _draws(rng_for(15, 4))
