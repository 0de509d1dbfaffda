"""Which strategy each seed position uses, and what the strategies need from a campaign.

`--strategies "sphinx,fusion=2,storm"` names the mix of registered strategies
(strategies/). A position draws one strategy with its own `rng_for(campaign_seed, position,
"strategy")`, among those that apply to its seed, so the position's test cases (drawn from
`rng_for(campaign_seed, position)`) do not depend on the mix: a campaign of one strategy
makes the cases that strategy alone always made, and draws nothing.

What a strategy needs it declares (`strategies.Needs`); the bench gives it, never by name.
Two kinds of help come from the trusted solvers (`--trusted`, default the newest z3; several
as "z3;cvc5"), never from a target: labels (`Needs.label`: seeds whose answer is known;
`oracle.trusted.agreed_label`: clean runs only, every trusted solver that accepts the seed
agrees, and the seed's own `:status` confirms it) and models (`Needs.model`: the first
trusted solver, given in `setup`, of a seed labelled sat). Labels are computed once per seed
and worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.mutate import Seed
from sphinxfuzz.solvers import Answer
from sphinxfuzz.strategies import (
    OracleKind,
    Strategy,
    StrategyContext,
    StrategyError,
    TakesLabels,
    TrustedRun,
    fresh,
    get,
)
from sphinxfuzz.strategies.fusion import label
from sphinxfuzz.strategies.scheduler import Scheduler, SchedulerError

SCHEDULERS = ("fixed", "bandit")


@dataclass(frozen=True)
class StrategyMix:
    """The strategies of a campaign with their weights, and how positions choose (the
    `strategies` and `scheduler` settings, read by `config_text.read_strategies`)."""

    weights: tuple[tuple[str, float], ...]
    scheduler: str = "fixed"

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.weights]

    @property
    def needs_trusted(self) -> bool:
        """Labels, models, or a reference for verdicts against an expected answer."""
        return any(get(name).oracle == OracleKind.EXPECTED for name in self.names)

    @property
    def needs_generators(self) -> bool:
        """A strategy of the mix draws generated terms: the campaign opens its generators."""
        return any(get(name).needs.generators for name in self.names)

    def differential(self) -> list[str]:
        """The strategies whose cases are judged by comparing solvers."""
        return [name for name in self.names if get(name).oracle == OracleKind.DIFFERENTIAL]


def _applies(strategy: Strategy, seed: Seed) -> bool:
    """A seed nested too deeply for a strategy's recursive walk is one it does not apply to
    (a campaign stopped by one regression seed of 50,000 nested terms tests nothing)."""
    try:
        return strategy.applies(seed)
    except RecursionError:
        return False


class StrategyBench:
    """One worker's strategy instances, the labels they asked for, and the scheduler that
    chooses between them (per worker: positions of one worker only)."""

    def __init__(
        self,
        mix: StrategyMix,
        trusted: Sequence[TrustedRun],
        partners: Callable[[int], list[Seed]] = lambda position: [],
    ) -> None:
        self.mix = mix
        self.trusted = list(trusted)
        # the partners drawn for a position (`Needs.partners`): from the position's own
        # generator, so they do not depend on which seeds this worker (or an earlier run) visited
        self.partners = partners
        self.instances: dict[str, Strategy] = {}
        for name in mix.names:
            try:
                self.instances[name] = fresh(name)
            except StrategyError as exc:
                raise CampaignError(str(exc), setting="strategies") from None
        weights = None if mix.scheduler == "bandit" else dict(mix.weights)
        self.scheduler = Scheduler(mix.names, weights)
        self.labels: dict[str, Answer | None] = {}

    def setup(self, context: StrategyContext) -> None:
        """Give every strategy what it declared it needs (once, before the first seed)."""
        for strategy in self.instances.values():
            strategy.setup(context)

    def label(self, seed: Seed) -> Answer | None:
        """The seed's answer by the trusted solvers (and its `:status`), asked once."""
        if seed.path not in self.labels:
            self.labels[seed.path] = label(seed, self.trusted)
        return self.labels[seed.path]

    def applicable(self, seed: Seed, position: int, *, compares: bool = True) -> list[str]:
        """The mix's strategies that can make test cases from `seed` at `position`. Without
        `compares` (a seed one target alone serves) those whose cases carry their expected
        answer come first; a differential one is drawn only when none of them applies, and
        its cases are judged on what one solver shows alone (`oracle.judge`: crashes and
        models that fail the formula, never a soundness verdict)."""
        found = self._applicable(seed, position)
        if compares:
            return found
        expected = [n for n in found if self.instances[n].oracle == OracleKind.EXPECTED]
        return expected or found

    def _applicable(self, seed: Seed, position: int) -> list[str]:
        found = []
        for name, strategy in self.instances.items():
            needs = strategy.needs
            if needs.label or needs.model:
                answer = self.label(seed)
                if answer is None or needs.model and answer != Answer.SAT:
                    continue  # a model only of a seed every trusted solver calls sat
                if needs.label:
                    self._offer(strategy, seed, answer, position)
            if _applies(strategy, seed):
                found.append(name)
        return found

    def _offer(self, strategy: Strategy, seed: Seed, answer: Answer, position: int) -> None:
        """A labelled seed for `strategy`; with `Needs.partners`, it has the position's
        partners of the same label beside it (none: the seed alone), and no other."""
        labelled = cast(TakesLabels, strategy)
        if not strategy.needs.partners:
            labelled.add(seed, answer)
            return
        labelled.forget()
        labelled.add(seed, answer)
        for partner in self.partners(position):
            if partner.path != seed.path and self.label(partner) == answer:
                labelled.add(partner, answer)

    def choose(
        self, seed: Seed, campaign_seed: int, position: int, index: int, *, compares: bool = True
    ) -> str | None:
        """The strategy for `position` (the worker's `index`-th), None when none applies."""
        allowed = self.applicable(seed, position, compares=compares)
        if not allowed:
            return None
        if len(self.mix.names) == 1:
            return allowed[0]  # no draw: a campaign of one strategy draws only its cases
        try:
            rng = rng_for(campaign_seed, position, "strategy")
            return self.scheduler.choose(rng, index, allowed=allowed)
        except SchedulerError:  # only strategies of weight 0 apply
            return None

    def get(self, name: str) -> Strategy:
        return self.instances[name]
