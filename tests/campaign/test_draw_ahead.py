"""A sphinx case is drawn while the case before runs its solvers (`strategies.DrawsAhead`,
`campaign.case_tester`): the campaign tests the cases it would have drawn at their turn, a
drawn-ahead case chained on one that turned out undecided is drawn again, and one the seed's
budget does not want is dropped."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import FIXTURES, SEEDS, config_for

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.mutate import Seed
from sphinxfuzz.strategies import HearsAnswers, TestCase
from sphinxfuzz.strategies.sphinx import SphinxStrategy

# 0.3 s a mutant, a third of them unknown (`slow_undecided.py`)
SLOW = str(FIXTURES / "slow_undecided.py")


class _AtTurn(Iterator[TestCase]):
    """Sphinx's stream without `DrawsAhead`: every case drawn at its turn."""

    def __init__(self, cases: Iterator[TestCase]) -> None:
        self.cases = cases

    def __next__(self) -> TestCase:
        return next(self.cases)

    def answered(self, undecided: bool) -> None:
        assert isinstance(self.cases, HearsAnswers)
        self.cases.answered(undecided)


def _campaign(root: Path) -> tuple[Stats, list[tuple[int, int, str]]]:
    seeds = [SEEDS / "plain.smt2", SEEDS / "crash.smt2"]
    config = replace(config_for(seeds, f"z3;{SLOW}", seed=8, per_seed=5), adapt_theories=False)
    stats = run_campaign(config, root, Budget(mutants=10))
    with Store(root) as store:
        return stats, store.mutant_log()


def test_cases_drawn_ahead_are_the_cases_drawn_at_their_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, ahead_log = _campaign(tmp_path / "ahead")
    mutants = SphinxStrategy.mutants

    def at_turn(self: SphinxStrategy, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        return _AtTurn(mutants(self, seed, rng))

    monkeypatch.setattr(SphinxStrategy, "mutants", at_turn)
    turn, turn_log = _campaign(tmp_path / "at-turn")
    assert turn.drawn_ahead == 0
    assert ahead.undecided > 0 and ahead.undecided == turn.undecided
    assert ahead_log == turn_log and len(ahead_log) == ahead.mutants == turn.mutants
    # every tested case drew the next one while its solvers ran; some of those were chained
    # on it when it turned out undecided (drawn again), and every seed's last one was unwanted
    assert ahead.drawn_ahead == ahead.mutants
    assert ahead.drawn_again > 0
    assert ahead.dropped_ahead >= 1
