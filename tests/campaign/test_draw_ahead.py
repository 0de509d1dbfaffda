"""A sphinx case is drawn while the case before runs its solvers (`strategies.DrawsAhead`,
`campaign.tester`): the campaign tests the cases it would have drawn at their turn, a
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
from sphinxfuzz.generators.pool import GeneratorFailure
from sphinxfuzz.mutate import Mutant, Seed
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


def _campaign(
    root: Path, *, learn: bool, mutants: int = 15
) -> tuple[Stats, list[tuple[int, int, str]]]:
    seeds = [SEEDS / "plain.smt2", SEEDS / "crash.smt2", SEEDS / "plain.smt2"]
    per_seed = mutants // 3
    config = replace(
        config_for(seeds, f"z3;{SLOW}", seed=8, per_seed=per_seed), adapt_theories=learn
    )
    stats = run_campaign(config, root, Budget(mutants=mutants))
    with Store(root) as store:
        return stats, store.mutant_log()


def test_cases_drawn_ahead_are_the_cases_drawn_at_their_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With learnt draw weights: they change between seed positions, never while a
    position's cases are drawn ahead of their turn (`LearntWeights.learn`)."""
    monkeypatch.setenv("SLOW_UNDECIDED_SECONDS", "0")  # its Python start: longer than a draw
    ahead, ahead_log = _campaign(tmp_path / "ahead", learn=True)
    mutants = SphinxStrategy.mutants

    def at_turn(self: SphinxStrategy, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        return _AtTurn(mutants(self, seed, rng))

    monkeypatch.setattr(SphinxStrategy, "mutants", at_turn)
    turn, turn_log = _campaign(tmp_path / "at-turn", learn=True)
    assert turn.drawn_ahead == 0
    assert ahead.undecided > 0 and ahead.undecided == turn.undecided
    assert ahead_log == turn_log and len(ahead_log) == ahead.mutants == turn.mutants
    # cases drew the next ones while their solvers ran (up to `tester.DRAWN_AHEAD`); some
    # of those were chained on a case that turned out undecided (drawn again), and the
    # run's budget ended before the last ones
    assert ahead.drawn_ahead > ahead.mutants
    assert ahead.drawn_again > 0
    assert ahead.dropped_ahead >= 1


def test_a_case_drawn_ahead_after_a_failed_draw_reads_the_answer_heard_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A draw that fails tests nothing and is answered nothing: the case drawn after it,
    ahead of its turn, must have read the answer of the case before the failed one."""
    mutate = SphinxStrategy.mutate

    def failing(self: SphinxStrategy, base: Seed | Mutant, rng: random.Random) -> Mutant:
        if rng.random() < 0.4:  # the stream's own rng: drawn alike ahead and at its turn
            raise GeneratorFailure("Ints", "exception", "a failure of this test", 0)
        return mutate(self, base, rng)

    monkeypatch.setattr(SphinxStrategy, "mutate", failing)
    monkeypatch.setenv("SLOW_UNDECIDED_SECONDS", "0")
    ahead, ahead_log = _campaign(tmp_path / "ahead", learn=False, mutants=45)
    mutants = SphinxStrategy.mutants

    def at_turn(self: SphinxStrategy, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        return _AtTurn(mutants(self, seed, rng))

    monkeypatch.setattr(SphinxStrategy, "mutants", at_turn)
    turn, turn_log = _campaign(tmp_path / "at-turn", learn=False, mutants=45)
    assert ahead.generator_failures > 0 and ahead.generator_failures == turn.generator_failures
    assert ahead_log == turn_log and ahead.undecided == turn.undecided > 0
