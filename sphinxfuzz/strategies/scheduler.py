"""Choosing a strategy (or a theory) per seed position: fixed weights, or a bandit.

The campaign loop asks `choose(rng, position)` with the position's own generator
(`campaign.rngs.rng_for(seed, position, "strategy")`) and, once the position's test cases are
judged, calls `reward(name, counters, position)`. The bandit's weights for position p come only from the
positions of earlier epochs (`epoch` positions each), folded in position order, and its cost
is the number of solver calls, never seconds: so a fixed campaign seed gives the same choices
as long as those results are in when p is chosen. When they are not (workers far behind), the
scheduler uses the newest weights it has and `reproducible` turns False, for the summary to
say. `use_seconds=True` divides by solver-seconds instead (rewards per solver-second), which
is not reproducible either and says so the same way.

The reward of a position is new crash signatures, verdicts and newly covered operator pairs
(parent operator, child operator; `PairCoverage`), weighted by `RewardWeights`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib import Script, SList, walk


class SchedulerError(InputError):
    """Weights that cannot be used (unknown name, negative, all zero)."""


@dataclass
class Counters:
    """What one seed position's test cases did: the loop fills it in."""

    cases: int = 0
    accepted: int = 0  # no solver rejected the case
    solver_calls: int = 0
    solver_seconds: float = 0.0
    new_crash_signatures: int = 0
    verdicts: int = 0
    new_operator_pairs: int = 0

    def add(self, other: Counters) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class RewardWeights:
    crash: float = 10.0  # a new crash signature
    verdict: float = 3.0  # any other verdict
    pair: float = 0.2  # a newly covered (parent, child) operator pair

    def of(self, counters: Counters) -> float:
        return (
            self.crash * counters.new_crash_signatures
            + self.verdict * counters.verdicts
            + self.pair * counters.new_operator_pairs
        )


@dataclass
class ArmStats:
    pulls: int = 0
    totals: Counters = field(default_factory=Counters)


class Scheduler:
    """Fixed weights when given (never re-weighed), else a bandit: each arm is drawn in
    proportion to its smoothed reward per cost, mixed with an even share `explore`."""

    def __init__(
        self,
        arms: Sequence[str],
        weights: Mapping[str, float] | None = None,
        *,
        explore: float = 0.2,
        epoch: int = 20,
        rewards: RewardWeights | None = None,
        use_seconds: bool = False,
    ) -> None:
        if not arms:
            raise SchedulerError("nothing to schedule")
        self.arms = list(dict.fromkeys(arms))
        self.fixed = _check_weights(self.arms, weights) if weights is not None else None
        self.explore = explore
        self.epoch = max(1, epoch)
        self.rewards = rewards or RewardWeights()
        self.use_seconds = use_seconds
        self.stats = {arm: ArmStats() for arm in self.arms}
        self._pending: dict[int, tuple[str, Counters]] = {}
        self._history: list[tuple[str, Counters]] = []  # positions 0, 1, ... in order
        self._epoch_weights: dict[int, list[float]] = {}
        self.reproducible = weights is not None or not use_seconds

    def choose(
        self,
        rng: random.Random,
        position: int | None = None,
        allowed: Collection[str] | None = None,
    ) -> str:
        """An arm for `position`; with `allowed`, one of those (their weights renormalised).
        An arm of weight 0 is never drawn: SchedulerError when no allowed arm is left."""
        weights = self.weights(position)
        if allowed is None:
            return rng.choices(self.arms, weights)[0]
        pairs = [(a, w) for a, w in zip(self.arms, weights, strict=True) if a in allowed and w > 0]
        if not pairs:
            raise SchedulerError(f"no arm of positive weight among {sorted(allowed)}")
        return rng.choices([a for a, _ in pairs], [w for _, w in pairs])[0]

    def reward(self, name: str, counters: Counters, position: int | None = None) -> None:
        """Record what an arm's position found; positions are learnt from in their order."""
        if name not in self.stats:
            raise SchedulerError(f"unknown arm {name!r} (known: {', '.join(self.arms)})")
        self.stats[name].pulls += 1
        self.stats[name].totals.add(counters)
        key = len(self._history) + len(self._pending) if position is None else position
        self._pending[key] = (name, counters)
        while len(self._history) in self._pending:
            self._history.append(self._pending.pop(len(self._history)))

    def weights(self, position: int | None = None) -> list[float]:
        """The draw weights for `position` (None: from everything learnt so far)."""
        if self.fixed is not None:
            return self.fixed
        if position is None:
            return self._bandit_weights()
        epoch = position // self.epoch
        if epoch not in self._epoch_weights:
            cutoff = max(0, (epoch - 1) * self.epoch)  # one epoch of slack for the workers
            if len(self._history) < cutoff:
                self.reproducible = False  # results of earlier positions are not in yet
                return self._bandit_weights()
            self._epoch_weights[epoch] = self._bandit_weights(upto=cutoff)
        return self._epoch_weights[epoch]

    def _bandit_weights(self, upto: int | None = None) -> list[float]:
        """From the positions before `upto` (None: all in order so far)."""
        learnt = {arm: Counters() for arm in self.arms}
        for arm, found in self._history[:upto]:
            learnt[arm].add(found)
        scores = []
        for arm in self.arms:
            stats = learnt[arm]
            cost = stats.solver_seconds if self.use_seconds else stats.solver_calls
            # one imagined pull of reward 1 at cost 1: untried arms look promising
            scores.append((1.0 + self.rewards.of(stats)) / (1.0 + cost))
        total = sum(scores)
        even = 1.0 / len(self.arms)
        return [(1 - self.explore) * score / total + self.explore * even for score in scores]

    def shares(self) -> dict[str, float]:
        """Each arm's share of the positions rewarded so far (for the summary)."""
        pulls = sum(s.pulls for s in self.stats.values()) or 1
        return {arm: self.stats[arm].pulls / pulls for arm in self.arms}

    def acceptance(self) -> dict[str, float | None]:
        return {
            arm: (s.totals.accepted / s.totals.cases if s.totals.cases else None)
            for arm, s in self.stats.items()
        }


def check_weights(weights: Mapping[str, float]) -> None:
    """Weights a draw can use, else SchedulerError saying what is wrong: each a finite
    number, 0 or more (0: never drawn), their total finite and more than 0 (the one home of
    the rule; the campaign's `strategies` setting is checked with it before anything runs)."""
    for arm, weight in weights.items():
        if not 0 <= weight < math.inf:  # NaN too
            raise SchedulerError(
                f"weight of {arm!r} is {weight:g}: a weight is a finite number, 0 or more"
            )
    total = sum(weights.values())
    if not math.isfinite(total):  # drawing needs a finite total
        raise SchedulerError("the weights add up past the largest number")
    if total == 0:
        raise SchedulerError("the weights are all 0: nothing would be drawn")


def _check_weights(arms: list[str], weights: Mapping[str, float]) -> list[float]:
    unknown = sorted(set(weights) - set(arms))
    if unknown:
        raise SchedulerError(f"weights for unknown arms: {', '.join(unknown)}")
    values = {arm: float(weights.get(arm, 0.0)) for arm in arms}
    check_weights(values)
    return list(values.values())


class PairCoverage:
    """(parent operator, child operator) pairs seen so far; `new_pairs` counts and adds."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()

    def new_pairs(self, scripts: Iterable[Script]) -> int:
        before = len(self.seen)
        for script in scripts:
            self.seen.update(operator_pairs(script))
        return len(self.seen) - before


def operator_pairs(script: Script) -> set[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for command in script.commands:
        if command.head_name() != "assert":
            continue
        for node in walk(command.items[1]) if len(command.items) > 1 else ():
            if not isinstance(node, SList):
                continue
            parent = node.operator_name()
            for child in node.items[1:]:
                if parent and isinstance(child, SList) and child.operator_name():
                    pairs.add((parent, child.operator_name() or ""))
    return pairs
