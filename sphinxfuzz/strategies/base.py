"""What a strategy is, what it produces, and the one registry of strategies.

A strategy turns a seed into test cases and says how they are judged: DIFFERENTIAL (compare
two or more solvers) or EXPECTED (the answer is known by construction, so one solver will
do). Strategies register themselves here by name; the campaign asks `get(name)`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from sphinxfuzz.errors import InputError
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Script, print_script
from sphinxfuzz.solvers import Answer


class OracleKind(StrEnum):
    DIFFERENTIAL = "differential"  # needs two or more solvers to compare
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
    # strategy name, rules used, seed path(s) and whatever explains how the case was built
    provenance: dict[str, object] = field(default_factory=dict)

    def text(self) -> str:
        return print_script(self.script)


@runtime_checkable
class Strategy(Protocol):
    name: str
    summary: str
    oracle: OracleKind

    def applies(self, seed: Seed) -> bool: ...

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]: ...


class StrategyError(InputError):
    """An unknown strategy name, or a second strategy under a name already taken."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0])


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
