"""A seed's budget: its attempts, more for fast cases, left early after time-outs or more
undecided cases than a campaign may have, and ended by the run's budget."""

from __future__ import annotations

from sphinxfuzz.campaign.budget import KNOWN_IN_A_ROW, UNDECIDED_AT_LEAST, SeedBudget
from sphinxfuzz.campaign.config import FAST_MUTANT_SECONDS
from sphinxfuzz.campaign.learnt_weights import TARGET_UNDECIDED


def _run(
    budget: SeedBudget,
    seconds: float = 0.0,
    timeouts: set[int] = frozenset(),
    undecided: set[int] = frozenset(),
    known: set[int] = frozenset(),
) -> list[int]:
    tested = []
    for number in budget.numbers():
        tested.append(number)
        budget.tested(
            seconds, number in timeouts, undecided=number in undecided, known=number in known
        )
    return tested


def test_a_seed_gets_its_share_of_attempts() -> None:
    budget = SeedBudget(4, max_timeouts=1, out_of_budget=lambda: False)
    assert _run(budget, seconds=0.0) == [0, 1, 2, 3]
    assert not budget.stopped and not budget.left_early


def test_fast_cases_extend_the_seed_up_to_the_factor() -> None:
    fast = SeedBudget(4, max_timeouts=1, out_of_budget=lambda: False, fast_factor=3)
    assert _run(fast, seconds=FAST_MUTANT_SECONDS / 2) == list(range(12))
    slow = SeedBudget(4, max_timeouts=1, out_of_budget=lambda: False, fast_factor=3)
    assert _run(slow, seconds=FAST_MUTANT_SECONDS * 2) == [0, 1, 2, 3]


def test_an_attempt_that_made_no_case_keeps_its_number() -> None:
    budget = SeedBudget(3, max_timeouts=1, out_of_budget=lambda: False)
    numbers = list(budget.numbers())  # nothing tested: every attempt failed
    assert numbers == [0, 1, 2]


def test_time_outs_leave_the_seed_early() -> None:
    budget = SeedBudget(10, max_timeouts=2, out_of_budget=lambda: False, fast_factor=3)
    assert _run(budget, timeouts={1, 4}) == [0, 1, 2, 3, 4]
    assert budget.left_early and not budget.stopped


def test_undecided_cases_over_the_campaigns_share_leave_the_seed_early() -> None:
    # cvc5's unknowns on a quantified seed: one case in four, spread out (never in a row)
    budget = SeedBudget(30, max_timeouts=5, out_of_budget=lambda: False)
    assert _run(budget, undecided={3, 7, 11, 15}) == list(range(8))
    assert budget.left_early and not budget.stopped
    # one undecided case alone does not end a seed that is decided otherwise
    budget = SeedBudget(30, max_timeouts=5, out_of_budget=lambda: False)
    assert _run(budget, undecided={0}) == list(range(30))
    assert not budget.left_early
    # ... nor do two among more cases than the share allows (2 of 41 is under 5%)
    assert UNDECIDED_AT_LEAST / TARGET_UNDECIDED < 41
    budget = SeedBudget(60, max_timeouts=5, out_of_budget=lambda: False)
    assert _run(budget, undecided={5, 40}) == list(range(60))
    assert not budget.left_early


def test_a_time_out_is_an_undecided_case_too() -> None:
    budget = SeedBudget(20, max_timeouts=5, out_of_budget=lambda: False)
    assert _run(budget, timeouts={0}, undecided={4}) == list(range(5))
    assert budget.left_early


def test_the_runs_budget_stops_the_seed() -> None:
    calls = iter([False, False, True])
    budget = SeedBudget(10, max_timeouts=1, out_of_budget=lambda: next(calls))
    assert _run(budget) == [0, 1]
    assert budget.stopped


def test_cases_that_find_only_stored_bugs_in_a_row_leave_the_seed_early() -> None:
    budget = SeedBudget(20, max_timeouts=5, out_of_budget=lambda: False)
    # a case that found nothing, or something new, starts the count again
    scattered = {i for i in range(20) if i % KNOWN_IN_A_ROW}
    assert _run(budget, known=scattered) == list(range(20))
    budget = SeedBudget(20, max_timeouts=5, out_of_budget=lambda: False)
    in_a_row = set(range(1, 1 + KNOWN_IN_A_ROW))
    assert _run(budget, known=in_a_row) == list(range(1 + KNOWN_IN_A_ROW))
    assert budget.left_early and not budget.stopped
