"""What a strategy is, what it produces, and the one registry of strategies.

A strategy turns a seed into test cases and says how they are judged: DIFFERENTIAL (compare
two or more solvers) or EXPECTED (the answer is known by construction, so one solver will
do). Strategies register themselves here by name; the campaign asks `get(name)`.

The campaign loop knows no strategy by name. A strategy declares what it needs (`Needs`:
generated terms, labelled seeds, a model, partner seeds), receives it once per worker
(`setup` with a `StrategyContext`) and per seed (`add` for labelled seeds), and tells the
loop about failures by raising a `StrategyError` kind from its iterator of cases.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol, runtime_checkable

from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.mutate.mutant import NeededOptions
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Script, print_script
from sphinxfuzz.solvers import Answer, SolverResult, SolverSpec


class OracleKind(StrEnum):
    DIFFERENTIAL = "differential"  # compares solvers (one alone: crashes, models)
    EXPECTED = "expected"  # the test case carries its expected answer


@dataclass(frozen=True)
class TestCase:
    """One script to run, with what is known about its answer."""

    __test__ = False  # not a pytest class despite the name

    script: Script
    expected: Answer | None = None  # sat or unsat
    # Janus: the formula whose answer implies this one's (an `unknown` here where the
    # related one was solved is an incompleteness)
    related: TestCase | None = None
    # strategy name, rules used, seed path(s) and whatever explains how the case was built;
    # "theories": the theories of the terms it inserted (stored with a bug, counted)
    provenance: dict[str, object] = field(default_factory=dict)
    # the script is as the oracle needs it already (models on, the options the targets
    # need: `mutate.ready_to_run`), so the loop runs it as it is
    ready: bool = False

    def text(self) -> str:
        return print_script(self.script)

    @property
    def theories(self) -> tuple[str, ...]:
        found = self.provenance.get("theories", ())
        return tuple(str(t) for t in found) if isinstance(found, list | tuple) else ()


# one trusted solver: script text -> its result
TrustedRun = Callable[[str], SolverResult]


@dataclass(frozen=True)
class Needs:
    """What a strategy needs from its campaign beyond the seed."""

    # terms from the campaign's generators (`StrategyContext.pool`): a campaign opens its
    # generator pool only when a strategy of its mix needs it
    generators: bool = False
    # the seed's answer by the trusted solvers: a seed without one is not offered, a seed
    # with one is given to `add(seed, answer)` before `applies` (`TakesLabels`)
    label: bool = False
    # a trusted solver to ask for models (`StrategyContext.trusted`): only seeds labelled
    # sat are offered
    model: bool = False
    # other labelled seeds drawn for the position: `forget` before each position, then
    # `add` of the seed and of every partner with its label
    partners: bool = False


@dataclass(frozen=True)
class StrategyContext:
    """What a campaign worker gives its strategies once, before the first seed."""

    specs: Sequence[SolverSpec]  # the targets
    trusted: Sequence[TrustedRun] = ()  # labels and models; never a target
    pool: GeneratorPool | None = None  # open while the worker runs (`Needs.generators`)
    theory_weights: Mapping[str, float] | None = None  # from the campaign's theory probe
    theory_options: Mapping[str, Sequence[str]] = field(default_factory=dict)
    needed_options: NeededOptions | None = None  # what the target releases need set
    rename_prob: float = 0.8
    generators: str = ""  # where the generators come from (for messages)
    # a solver a strategy ran making cases (capability probes), from start to end
    # (`time.perf_counter`), and what it left out so far because a target lacks it: both go
    # into the campaign's statistics
    spent: Callable[[float, float], None] = lambda start, end: None
    left_out: Callable[[Mapping[str, int]], None] = lambda counts: None
    # how many terms a mutant gets ("1", "2", ...) -> draw weight (`mutate`'s `count_weights`)
    count_weights: Mapping[str, float] | None = None
    # a folder of historical bug triggers (the campaign's `history` setting), or ""
    history: str = ""


@runtime_checkable
class Strategy(Protocol):
    name: str
    summary: str
    oracle: OracleKind
    needs: ClassVar[Needs]
    # the loop may make up to `fast_seed_factor` times `mutants_per_seed` cases of a seed
    # whose cases all answer fast (cheap tests first): only for a strategy whose cases are
    # an endless stream of independent draws
    extends_fast_seeds: ClassVar[bool]

    def setup(self, context: StrategyContext) -> None: ...

    def applies(self, seed: Seed) -> bool: ...

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]: ...


@runtime_checkable
class HearsAnswers(Protocol):
    """A stream of cases (`Strategy.mutants`) that is told, after each of its cases ran,
    whether some target left it undecided (answered unknown or timed out): a case built on
    top of an undecided one would most likely be undecided too."""

    def answered(self, undecided: bool) -> None: ...


@runtime_checkable
class DrawsAhead(Protocol):
    """A stream of cases (`Strategy.mutants`) whose next case the loop may draw while the
    solvers of the case before still run: drawing runs none of the loop's solver calls (a
    capability probe is a fresh process, reported through `StrategyContext.spent`). `mark`
    is its state before such a draw, `rewind` drops the draw as if never made (state kept
    across seeds too): the seed's budget did not want the case, or the draw is `stale`."""

    def mark(self) -> object: ...

    def rewind(self, mark: object) -> None: ...

    def stale(self) -> bool:
        """The last draw read an answer (`HearsAnswers`) other than the one heard since."""
        ...


class StrategyBase:
    """The defaults of `Strategy`: a strategy that needs nothing but its seeds."""

    needs: ClassVar[Needs] = Needs()
    extends_fast_seeds: ClassVar[bool] = False

    def setup(self, context: StrategyContext) -> None:
        """Take what `needs` asks for from the campaign (nothing here)."""


class TakesLabels(Protocol):
    """A strategy with `Needs.label`: it rewrites seeds whose answer is known."""

    def add(self, seed: Seed, answer: Answer) -> None: ...

    def forget(self) -> None: ...


class StrategyError(InputError):
    """An unknown strategy name, a second strategy under a name already taken, or a strategy
    that cannot make a case (the kinds below tell the loop what to do about it)."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0])


class CaseFailed(StrategyError):
    """One case could not be made; the strategy's iterator goes on with the next one (the
    attempt still takes its number in the seed's sequence)."""


class SourceFailed(CaseFailed):
    """One case could not be made because its source of terms failed (a generator)."""


class SeedUnusable(StrategyError):
    """The seed gives this strategy nothing at all: `cause` is what the statistics count,
    and a campaign whose only strategy this is sets the seed aside."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


class NoWorkingSource(StrategyError):
    """The strategy cannot make cases any more (its generators keep failing): the campaign
    stops with this message."""


_REGISTRY: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add `strategy` under its name; a name is registered once."""
    if strategy.name in _REGISTRY and _REGISTRY[strategy.name] is not strategy:
        raise StrategyError(f"strategy {strategy.name!r} is already registered")
    _REGISTRY[strategy.name] = strategy
    return strategy


def get(name: str) -> Strategy:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise StrategyError(
            f"unknown strategy {name!r} (known: {', '.join(names()) or 'none'})"
        ) from None


def fresh(name: str) -> Strategy:
    """A new instance of the strategy `name`: a campaign worker keeps its own, because
    strategies hold state (labelled seeds, models, a trusted solver)."""
    return type(get(name))()


def names() -> list[str]:
    return sorted(_REGISTRY)
