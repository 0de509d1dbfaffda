"""The scheduler: fixed weights hold, the bandit follows rewards, and choices depend only on
the campaign seed and timing-free counters."""

from __future__ import annotations

import random

import pytest

from sphinxfuzz.smtlib import parse_script, print_script
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.scheduler import (
    Counters,
    PairCoverage,
    Scheduler,
    SchedulerError,
    operator_pairs,
)

from .seeds import shipped


def test_fixed_weights_are_kept_whatever_is_found() -> None:
    scheduler = Scheduler(["fusion", "opfuzz", "storm"], {"fusion": 3.0, "opfuzz": 1.0})
    picks = []
    for position in range(3000):
        name = scheduler.choose(random.Random(f"1:{position}"), position)
        picks.append(name)
        scheduler.reward(name, Counters(cases=4, verdicts=5 if name == "opfuzz" else 0), position)
    assert "storm" not in picks  # weight 0: never drawn
    assert 0.7 < picks.count("fusion") / len(picks) < 0.8
    assert scheduler.reproducible
    with pytest.raises(SchedulerError, match="unknown arms: sae"):
        Scheduler(["fusion"], {"sae": 1.0})
    with pytest.raises(SchedulerError, match="all 0"):
        Scheduler(["fusion"], {"fusion": 0.0})
    # a weight no draw can use is refused, never drawn on (NaN weighed as if absent, an
    # infinite one a ValueError from `random.choices` mid-campaign)
    for weight in (float("nan"), float("inf"), -1.0):
        with pytest.raises(SchedulerError, match="a finite number, 0 or more"):
            Scheduler(["fusion", "opfuzz"], {"fusion": weight, "opfuzz": 1.0})


def _run(order: list[int], finds: dict[str, int], epoch: int = 10) -> tuple[list[str], Scheduler]:
    """Choose for positions 0.., rewarding them in `order` (a worker's completion order)."""
    scheduler = Scheduler(["a", "b", "c"], epoch=epoch)
    chosen: dict[int, str] = {}
    done = 0
    for position in range(len(order)):
        chosen[position] = scheduler.choose(random.Random(f"7:{position}"), position)
        # results come back in `order`, but never more than one epoch behind
        while done < len(order) and order[done] <= position:
            p = order[done]
            found = finds[chosen[p]]
            scheduler.reward(chosen[p], Counters(cases=4, solver_calls=8, verdicts=found), p)
            done += 1
    return [chosen[p] for p in range(len(order))], scheduler


def test_the_bandit_follows_rewards_and_still_explores() -> None:
    picks, scheduler = _run(list(range(400)), {"a": 2, "b": 0, "c": 0})
    late = picks[200:]
    assert late.count("a") / len(late) > 0.6
    assert late.count("b") > 0 and late.count("c") > 0  # the even share keeps them tried
    assert scheduler.shares()["a"] > 0.5


def test_choices_depend_on_the_seed_and_counters_not_on_completion_order() -> None:
    in_order, first = _run(list(range(300)), {"a": 0, "b": 1, "c": 0})
    shuffled = list(range(300))
    for start in range(0, 300, 10):  # out of order within each block of 10 positions
        block = shuffled[start : start + 10]
        random.Random(start).shuffle(block)
        shuffled[start : start + 10] = sorted(block, key=lambda p: -p)
    late, second = _run(shuffled, {"a": 0, "b": 1, "c": 0})
    assert in_order == late and first.reproducible and second.reproducible
    # a position chosen before the epoch before it is in: said not to be reproducible
    lagging = Scheduler(["a", "b"], epoch=5)
    lagging.choose(random.Random(0), 50)
    assert not lagging.reproducible
    assert not Scheduler(["a"], use_seconds=True).reproducible


def test_operator_pairs() -> None:
    script = parse_script("(declare-const x Int)(assert (and (< x 1) (not (= (+ x 1) 2))))")
    assert operator_pairs(script) == {("and", "<"), ("and", "not"), ("not", "="), ("=", "+")}
    coverage = PairCoverage()
    assert coverage.new_pairs([script]) == 4 and coverage.new_pairs([script]) == 0


def test_a_fixed_seed_gives_the_same_mutants_through_the_scheduler() -> None:
    seeds = [
        s for s in shipped() if s.path.endswith(("lia_unsat_parity.smt2", "bv_bit_tricks.smt2"))
    ]

    def campaign(seed: int) -> list[str]:
        scheduler = Scheduler(["opfuzz", "typefuzz", "grammar"], epoch=2)
        coverage = PairCoverage()
        texts = []
        for position in range(12):
            rng = random.Random(f"{seed}:{position}")
            name = scheduler.choose(rng, position)
            cases = list(get(name).mutants(seeds[position % len(seeds)], rng))[:2]
            texts += [print_script(c.script) for c in cases]
            pairs = coverage.new_pairs([c.script for c in cases])
            found = Counters(
                cases=len(cases), solver_calls=2 * len(cases), new_operator_pairs=pairs
            )
            scheduler.reward(name, found, position)
        return texts

    assert campaign(3) == campaign(3) != campaign(4)
