"""Sphinx's own strategy: fill a seed's skeleton with generated terms (`mutate`).

Each case is one `mutate` step of the seed, or, half of the time, of the previous case
(mutant chaining, as long as the previous one could be made and no target left it
undecided: `HearsAnswers`; the draw is made either way, so the cases after a decided one
stay the same); the loop may draw a case while the one before runs (`DrawsAhead`). Its
terms come from the campaign's generator pool, minus the features a target lacks
(`CapableTerms`), and the theories of the inserted terms are in the case's provenance. The
stream of cases never ends: the campaign's budget decides how many a seed gets
(`extends_fast_seeds`: more for a seed whose cases answer fast).

Failures reach the loop as `StrategyError` kinds: a failed generator call is a
`SourceFailed`, a chained mutant with nothing left to replace a `CaseFailed` (both cost the
attempt its number, so the cases after it stay the same), a seed with nothing to replace a
`SeedUnusable`, and MAX_GENERATOR_FAILURES failed generator calls in a row (across seeds) a
`NoWorkingSource`: no generator works.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sphinxfuzz.errors import Step, StepKind
from sphinxfuzz.generators.capabilities import Capabilities, CapableTerms
from sphinxfuzz.generators.pool import GeneratorFailure
from sphinxfuzz.mutate import Mutant, MutationError, Seed, mutate
from sphinxfuzz.strategies.base import (
    CaseFailed,
    Needs,
    NoWorkingSource,
    OracleKind,
    SeedUnusable,
    SourceFailed,
    StrategyBase,
    StrategyContext,
    TestCase,
    register,
)

NAME = "sphinx"
# A worker stops when this many generator calls in a row failed: no generator works.
MAX_GENERATOR_FAILURES = 50


class SphinxStrategy(StrategyBase):
    name = NAME
    summary = "fill the seed's skeleton with generated terms (the solvers are compared)"
    oracle = OracleKind.DIFFERENTIAL
    needs = Needs(generators=True)
    extends_fast_seeds = True

    def __init__(self) -> None:
        self.context = StrategyContext(specs=())
        self.terms: CapableTerms | None = None
        self.failures_in_row = 0  # generator calls, across seeds

    def setup(self, context: StrategyContext) -> None:
        self.context = context
        if context.pool is not None:
            capabilities = Capabilities(list(context.specs), spent=context.spent)
            self.terms = CapableTerms(context.pool, capabilities)

    def applies(self, seed: Seed) -> bool:
        return True  # a seed with no atom to replace says so when mutated (`SeedUnusable`)

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        return _Mutants(self, seed, rng)

    def mutate(self, base: Seed | Mutant, rng: random.Random) -> Mutant:
        """One mutant of `base`; the capability probes count as solver time (`setup`)."""
        terms, context = self.terms, self.context
        if terms is None:
            raise NoWorkingSource("no generator pool was given to the sphinx strategy")
        try:
            return mutate(
                base, rng, terms, rename_prob=context.rename_prob,
                theory_options=context.theory_options, theory_weights=context.theory_weights,
                needed_options=context.needed_options, count_weights=context.count_weights,
            )  # fmt: skip
        finally:  # what was left out
            context.left_out(terms.left_out)


@dataclass(frozen=True)
class _Mark:
    """What a draw changes (`DrawsAhead.mark`): the stream's and the strategy's state."""

    rng: tuple[Any, ...]
    previous: Mutant | None
    failures_in_row: int
    left_out: Counter[str]


class _Mutants(Iterator[TestCase]):
    """A seed's endless stream of mutants; a failure raises, and the stream goes on. It
    `HearsAnswers` and `DrawsAhead`: a draw reads the last answer heard only when it chains
    (then its base is the seed after an undecided mutant), so a draw made before the answer
    is `stale` only when it chained and the answer turned out otherwise."""

    def __init__(self, strategy: SphinxStrategy, seed: Seed, rng: random.Random) -> None:
        self.strategy, self.seed, self.rng = strategy, seed, rng
        self.previous: Mutant | None = None
        # a target left the previous mutant undecided: its terms would stay in a chained one
        self.previous_undecided = False
        self.read_answer: bool | None = None  # what the last draw read of it, if it did

    def answered(self, undecided: bool) -> None:
        self.previous_undecided = undecided

    def mark(self) -> _Mark:
        terms, strategy = self.strategy.terms, self.strategy
        left_out = Counter(terms.left_out) if terms is not None else Counter[str]()
        return _Mark(self.rng.getstate(), self.previous, strategy.failures_in_row, left_out)

    def rewind(self, mark: object) -> None:
        assert isinstance(mark, _Mark)
        strategy, terms = self.strategy, self.strategy.terms
        self.rng.setstate(mark.rng)
        self.previous, strategy.failures_in_row = mark.previous, mark.failures_in_row
        self.read_answer = None
        if terms is not None:  # what a dropped draw left out was never left out
            terms.left_out.clear()
            terms.left_out.update(mark.left_out)
            strategy.context.left_out(terms.left_out)

    def stale(self) -> bool:
        return self.read_answer is not None and self.read_answer != self.previous_undecided

    def __next__(self) -> TestCase:
        strategy, seed = self.strategy, self.seed
        base: Seed | Mutant = seed
        self.read_answer = None
        if self.previous is not None and self.rng.random() < 0.5:
            self.read_answer = self.previous_undecided
            base = seed if self.previous_undecided else self.previous
        try:
            mutant = strategy.mutate(base, self.rng)
        except GeneratorFailure as exc:
            strategy.failures_in_row += 1
            if strategy.failures_in_row >= MAX_GENERATOR_FAILURES:
                folder = str(strategy.context.generators)
                raise NoWorkingSource(
                    f"no working generator: the last {MAX_GENERATOR_FAILURES} generator calls "
                    f"all failed (last: {exc}); the generators in {folder} need validating",
                    setting="generators",
                    step=Step(StepKind.VALIDATE_GENERATORS, {"folder": folder}),
                ) from None
            raise SourceFailed(str(exc)) from None
        except MutationError as exc:
            if base is seed:  # nothing to gain from more attempts on this seed
                raise SeedUnusable(str(exc), exc.cause) from None
            self.previous = None
            raise CaseFailed(str(exc)) from None
        self.previous = mutant
        strategy.failures_in_row = 0
        provenance: dict[str, object] = {
            "strategy": NAME,
            "seed": seed.path,
            "theories": list(mutant.theories),
        }
        return TestCase(mutant.script, provenance=provenance, ready=True)


register(SphinxStrategy())
