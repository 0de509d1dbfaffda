"""The learnt floor of a case's limit (`campaign.case_limits`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.case_limits import LEARNT_AFTER, LOWEST_FLOOR, CaseLimits, still_running_at
from sphinxfuzz.campaign.config import MIN_MUTANT_TIMEOUT, SeedCheck
from sphinxfuzz.solvers import Outcome, SolverResult, parse_specs
from tests.campaign_helpers import SEEDS, config_for


def test_the_limit_leaves_the_budgeted_share_of_cases_running() -> None:
    answered = [(i / 1000, False) for i in range(1, 97)]  # 1 to 96 ms
    timed_out = [(1.0, True)] * 4
    assert still_running_at(answered + timed_out, 0.04) == 0.096
    assert still_running_at(answered + timed_out, 0.10) == 0.090  # 10 of 100 still running
    assert still_running_at(answered + timed_out, 0.03) is None  # 4% ran past every answer


def test_a_time_out_tells_only_that_its_case_ran_longer_than_its_limit() -> None:
    # 10 cases cut at 50 ms when the floor was low, then 90 with a longer limit that all
    # answered by 90 ms: counting the cut ones as slower than everything would keep 10%
    # running forever; they only say "longer than 50 ms", like 40 of the others
    cut = [(0.05, True)] * 10
    answered = [(i / 1000, False) for i in range(1, 91)]
    assert still_running_at(cut + answered, 0.05) is not None
    assert sum(1 for case in cut + answered if case[0] > 0.09 or case[1]) / 100 > 0.05


def test_a_floor_is_given_only_to_seeds_faster_than_it() -> None:
    config = config_for([SEEDS / "plain.smt2"], "z3", timeout=10.0, timeout_factor=10)
    limits = CaseLimits(config)
    assert limits.limit(SeedCheck(0.01)) == (MIN_MUTANT_TIMEOUT, True)
    assert limits.limit(SeedCheck(0.5)) == (5.0, False)
    assert limits.limit(SeedCheck(1.5)) == (10.0, False)
    assert limits.limit(SeedCheck(None)) == (10.0, False)  # a store from before calibration
    uncalibrated = CaseLimits(replace(config, timeout_factor=0))
    assert uncalibrated.limit(SeedCheck(0.01)) == (10.0, False)
    short = CaseLimits(replace(config, timeout=0.5))
    assert short.limit(SeedCheck(0.01)) == (0.5, False)  # --timeout is the last word


def test_slow_cases_bring_the_floor_back_but_never_above_where_it_started() -> None:
    # the README's slow mutants mostly do not answer in 2 s either: a higher floor only cost
    # time, so time-outs beyond the budget raise it back towards MIN_MUTANT_TIMEOUT alone
    config = config_for([SEEDS / "plain.smt2"], "z3", timeout=10.0, timeout_factor=10)
    limits, (z3,) = CaseLimits(config), parse_specs("z3")
    fast = [SolverResult(z3, Outcome.SAT, elapsed=0.01)]
    for _ in range(2 * LEARNT_AFTER):
        limits.heard(limits.floor, fast)
    assert limits.floor == LOWEST_FLOOR
    for _ in range(2 * LEARNT_AFTER):
        limits.heard(limits.floor, [SolverResult(z3, Outcome.TIMEOUT, elapsed=limits.floor)])
    assert limits.floor == MIN_MUTANT_TIMEOUT


def test_a_campaign_of_fast_mutants_learns_a_lower_floor(tmp_path: Path) -> None:
    # z3 answers plain.smt2's mutants in milliseconds: once LEARNT_AFTER of them answered,
    # the floor sinks towards LOWEST_FLOOR, by at most a tenth a mutant (a mean of about
    # 0.77 s over 80 mutants). A small factor keeps the seed's own limit under the floor
    # however slow a loaded machine makes its check, so the floor limits every mutant.
    mutants = LEARNT_AFTER + 30
    config = config_for([SEEDS / "plain.smt2"], "z3", per_seed=mutants, timeout_factor=0.01)
    config = replace(config, max_mutant_timeouts=mutants)  # one mutant in 80 may time out
    stats = run_campaign(config, tmp_path / "learnt", Budget())
    assert stats.floor_cases == stats.mutants == mutants
    assert LOWEST_FLOOR < stats.mean_floor < 0.9 * MIN_MUTANT_TIMEOUT
    fixed = replace(config, undecided_budget=0.0)
    stats = run_campaign(fixed, tmp_path / "fixed", Budget())
    assert stats.floor_cases == mutants and stats.mean_floor == MIN_MUTANT_TIMEOUT
