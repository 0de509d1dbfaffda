"""Sphinx's skeleton filling as a strategy: cases from the generator pool with their
theories, reproducible in the position's generator, and its failures as StrategyErrors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sphinxfuzz.generators.catalogue import load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.mutate import load_seed
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import print_script
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver
from sphinxfuzz.strategies import (
    DrawsAhead,
    HearsAnswers,
    NoWorkingSource,
    SeedUnusable,
    StrategyContext,
    fresh,
    get,
)
from sphinxfuzz.strategies.sphinx import NAME

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GENERATORS = FIXTURES / "generators"
PLAIN = FIXTURES / "campaign" / "seeds" / "plain.smt2"
SPECS = parse_specs("z3;cvc5")


def test_sphinx_is_registered_as_a_differential_strategy_that_needs_generators() -> None:
    sphinx = get(NAME)
    assert sphinx.needs.generators and not sphinx.needs.label and sphinx.extends_fast_seeds


def test_cases_carry_their_theories_and_repeat_in_the_same_generator() -> None:
    seed = load_seed(str(PLAIN))
    with GeneratorPool(load_catalogue(GENERATORS).entries) as pool:
        strategy = fresh(NAME)
        strategy.setup(StrategyContext(SPECS, pool=pool))
        cases = strategy.mutants(seed, random.Random("1:0"))
        first = [next(cases) for _ in range(6)]
        again = strategy.mutants(seed, random.Random("1:0"))
        assert [c.text() for c in first] == [next(again).text() for _ in range(6)]
    assert all(c.ready and c.expected is None for c in first)
    assert all(c.provenance["strategy"] == NAME for c in first)
    theories = {t for case in first for t in case.theories}
    assert theories and theories <= set(pool.theories)
    # every case is ready to run: z3 answers it (a get-model follows its check-sat)
    z3 = SPECS[0]
    answered = [run_solver(z3, for_family(c.script, z3.family), timeout=10.0) for c in first]
    assert any(r.outcome in (Outcome.SAT, Outcome.UNSAT) for r in answered)
    assert all("(get-model)" in c.text() for c in first)


def test_a_seed_without_atoms_is_unusable_and_no_pool_is_no_source(tmp_path: Path) -> None:
    unusable = tmp_path / "unusable.smt2"
    # its one atom names a term: replacing it would drop the name, so nothing is replaceable
    unusable.write_text("(declare-const a Int)\n(assert (< (! a :named n) 1))\n(check-sat)\n")
    with GeneratorPool(load_catalogue(GENERATORS).entries) as pool:
        strategy = fresh(NAME)
        strategy.setup(StrategyContext(SPECS, pool=pool))
        with pytest.raises(SeedUnusable, match="no atomic formula") as caught:
            next(strategy.mutants(load_seed(str(unusable)), random.Random(0)))
    assert caught.value.cause == "nothing to mutate"
    unset = fresh(NAME)
    unset.setup(StrategyContext(SPECS))  # a campaign that opened no pool
    with pytest.raises(NoWorkingSource):
        next(unset.mutants(load_seed(str(PLAIN)), random.Random(0)))


def test_a_case_is_never_chained_on_one_a_target_left_undecided() -> None:
    seed, draws = load_seed(str(PLAIN)), 12
    with GeneratorPool(load_catalogue(GENERATORS).entries) as pool:
        strategy = fresh(NAME)
        strategy.setup(StrategyContext(SPECS, pool=pool))

        def told(undecided: bool | None) -> list[str]:
            cases = strategy.mutants(seed, random.Random("1:0"))
            assert isinstance(cases, HearsAnswers)
            texts = []
            for _ in range(draws):
                texts.append(next(cases).text())
                if undecided is not None:
                    cases.answered(undecided)
            return texts

        untold, decided, undecided = told(None), told(False), told(True)
        # the same draws, each from the seed itself: the mutants made after undecided ones
        rng = random.Random("1:0")
        from_seed = [print_script(strategy.mutate(seed, rng).script)]
        for _ in range(draws - 1):
            rng.random()  # chain or not: drawn either way
            from_seed.append(print_script(strategy.mutate(seed, rng).script))
    assert decided == untold  # decided cases change nothing
    assert undecided == from_seed != untold  # some of the untold cases were chained


def test_a_case_drawn_ahead_is_the_case_drawn_at_its_turn() -> None:
    # the loop draws a case while the one before runs, before its answer is heard
    seed = load_seed(str(PLAIN))
    answers = [False, True, True, False, True, False, False, True, False, True, True, False]
    with GeneratorPool(load_catalogue(GENERATORS).entries) as pool:
        strategy = fresh(NAME)
        strategy.setup(StrategyContext(SPECS, pool=pool))
        at_turn = strategy.mutants(seed, random.Random("2:0"))
        assert isinstance(at_turn, HearsAnswers)
        expected = []
        for undecided in answers:
            expected.append(next(at_turn).text())
            at_turn.answered(undecided)
        cases = strategy.mutants(seed, random.Random("2:0"))
        assert isinstance(cases, HearsAnswers) and isinstance(cases, DrawsAhead)
        texts, drawn_again = [], 0
        case = next(cases)
        for undecided in answers:
            texts.append(case.text())
            strategy.failures_in_row = 3  # as if generator calls of another seed had failed
            mark = cases.mark()
            case = next(cases)  # while `case` runs
            cases.answered(undecided)
            if cases.stale():  # chained on a case now known undecided: drawn again
                cases.rewind(mark)
                drawn_again += 1
                case = next(cases)
        # the last case drawn ahead is dropped: what it changed across seeds is undone
        assert strategy.failures_in_row == 0
        cases.rewind(mark)
        assert strategy.failures_in_row == 3
    assert texts == expected
    assert drawn_again > 0  # the answers made some drawn-ahead case stale
