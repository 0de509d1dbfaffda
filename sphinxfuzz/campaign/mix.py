"""Which strategy each seed position uses, and what the strategies need from a campaign.

`--strategies "sphinx,fusion=2,storm"` names the mix: `sphinx` is the loop's own skeleton
filling (mutate/), every other name a registered strategy (strategies/). A position draws
one strategy with its own `random.Random(f"{campaign_seed}:{position}:strategy")`, among
those that apply to its seed, so the position's mutants (drawn from
`Random(f"{campaign_seed}:{position}")` as before) do not depend on the mix: a sphinx-only
campaign makes the mutants it always made.

Two kinds of help come from the trusted solvers (`--trusted`, default the newest z3; several
as "z3;cvc5"), never from a target: labels (fusion, sae and janus rewrite seeds whose answer
is known; `oracle.trusted.agreed_label`: clean runs only, every trusted solver that accepts
the seed agrees, and the seed's own `:status` confirms it) and STORM's model (its fragments
are evaluated under the first trusted solver's model, of a seed labelled sat, from a clean
run). Labels and models are computed once per seed and worker.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.mutate import Seed
from sphinxfuzz.solvers import Answer, SolverResult
from sphinxfuzz.strategies import OracleKind, Strategy, StrategyError, fresh, get, names
from sphinxfuzz.strategies.fusion import label
from sphinxfuzz.strategies.scheduler import Scheduler, SchedulerError, parse_weights

SPHINX = "sphinx"  # fill skeletons with generated terms (the loop's own mutation)
SCHEDULERS = ("fixed", "bandit")
# strategies that rewrite labelled seeds (they have `add(seed, answer)`), and STORM,
# which evaluates fragments under a model
LABELLED = ("fusion", "sae", "janus")
MODELLED = ("storm",)

# one trusted solver: script text -> its result
TrustedRun = Callable[[str], SolverResult]


@dataclass(frozen=True)
class StrategyMix:
    """The strategies of a campaign with their weights, and how positions choose."""

    weights: tuple[tuple[str, float], ...]
    scheduler: str = "fixed"

    @classmethod
    def parse(cls, text: str, scheduler: str = "fixed") -> StrategyMix:
        try:
            weights = parse_weights(text)
        except SchedulerError as exc:
            raise CampaignError(f"strategies {text!r}: {exc}", setting="strategies") from None
        known = [SPHINX, *names()]
        unknown = [name for name in weights if name not in known]
        if not weights or unknown:
            what = f"unknown strategy {unknown[0]!r}" if unknown else "names no strategy"
            raise CampaignError(
                f"strategies {text!r}: {what} (known: {', '.join(known)})", setting="strategies"
            )
        try:
            Scheduler(list(weights), weights)
        except SchedulerError as exc:
            raise CampaignError(f"strategies {text!r}: {exc}", setting="strategies") from None
        if scheduler not in SCHEDULERS:
            raise CampaignError(
                f"scheduler {scheduler!r}: one of {', '.join(SCHEDULERS)}", setting="scheduler"
            )
        return cls(tuple(weights.items()), scheduler)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.weights]

    @property
    def needs_trusted(self) -> bool:
        """Labels, models, or a reference for verdicts against an expected answer."""
        return any(
            name != SPHINX and get(name).oracle == OracleKind.EXPECTED for name in self.names
        )

    def differential(self) -> list[str]:
        """The strategies whose cases are judged by comparing solvers."""
        return [
            name
            for name in self.names
            if name == SPHINX or get(name).oracle == OracleKind.DIFFERENTIAL
        ]


def _applies(strategy: Strategy, seed: Seed) -> bool:
    """A seed nested too deeply for a strategy's recursive walk is one it does not apply to
    (a campaign stopped by one regression seed of 50,000 nested terms tests nothing)."""
    try:
        return strategy.applies(seed)
    except RecursionError:
        return False


class Strategies:
    """One worker's strategy instances, the labels and models they asked for, and the
    scheduler that chooses between them (per worker: positions of one worker only)."""

    def __init__(
        self,
        mix: StrategyMix,
        trusted: Sequence[TrustedRun],
        partners: Callable[[int], list[Seed]] = lambda position: [],
    ) -> None:
        self.mix = mix
        self.trusted = list(trusted)
        # fusion's partners for a position: drawn from the position's own generator, so
        # they do not depend on which seeds this worker (or an earlier run) visited
        self.partners = partners
        self.instances: dict[str, Strategy] = {}
        for name in mix.names:
            if name == SPHINX:
                continue
            try:
                self.instances[name] = fresh(name)
            except StrategyError as exc:
                raise CampaignError(str(exc), setting="strategies") from None
        storm = self.instances.get("storm")
        if storm is not None and self.trusted:
            storm.run = self.trusted[0]  # type: ignore[attr-defined]
        weights = None if mix.scheduler == "bandit" else dict(mix.weights)
        self.scheduler = Scheduler(mix.names, weights)
        self.labels: dict[str, Answer | None] = {}

    @property
    def only_sphinx(self) -> bool:
        return self.mix.names == [SPHINX]

    def label(self, seed: Seed) -> Answer | None:
        """The seed's answer by the trusted solvers (and its `:status`), asked once."""
        if seed.path not in self.labels:
            self.labels[seed.path] = label(seed, self.trusted)
        return self.labels[seed.path]

    def applicable(self, seed: Seed, position: int) -> list[str]:
        """The mix's strategies that can make test cases from `seed` at `position`."""
        found = []
        for name in self.mix.names:
            strategy = self.instances.get(name)
            if strategy is None:
                found.append(name)  # sphinx: the loop decides (a seed with no atom fails)
                continue
            if name in MODELLED and self.label(seed) != Answer.SAT:
                continue  # a model only of a seed every trusted solver calls sat
            if name in LABELLED:
                answer = self.label(seed)
                if answer is None:
                    continue
                if name == "fusion":
                    self._fusion_partners(strategy, seed, answer, position)
                else:
                    strategy.add(seed, answer)  # type: ignore[attr-defined]
            if _applies(strategy, seed):
                found.append(name)
        return found

    def _fusion_partners(self, fusion: Strategy, seed: Seed, answer: Answer, position: int) -> None:
        """Fusion fuses `seed` with the position's partners of the same label (itself,
        renamed apart, when none has it)."""
        fusion.labelled = {}  # type: ignore[attr-defined]
        fusion.add(seed, answer)  # type: ignore[attr-defined]
        for partner in self.partners(position):
            if partner.path != seed.path and self.label(partner) == answer:
                fusion.add(partner, answer)  # type: ignore[attr-defined]

    def choose(self, seed: Seed, campaign_seed: int, position: int, index: int) -> str | None:
        """The strategy for `position` (the worker's `index`-th), None when none applies."""
        if self.only_sphinx:
            return SPHINX  # no draw, no trusted run: the sphinx-only campaign of old
        allowed = self.applicable(seed, position)
        if not allowed:
            return None
        rng = random.Random(f"{campaign_seed}:{position}:strategy")
        try:
            return self.scheduler.choose(rng, index, allowed=allowed)
        except SchedulerError:  # only strategies of weight 0 apply
            return None

    def get(self, name: str) -> Strategy:
        return self.instances[name]
