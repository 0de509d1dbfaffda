"""Reading a campaign config's texts into typed values: the one place that parses them.

`CampaignConfig.resolve` calls these once, before the first phase, and the campaign works on
what they return (`Campaign`): the target and trusted solver specs, the options plan, the
strategy mix with its weights, the seed files. Each refusal is a `CampaignError` whose
`setting` names the setting to change.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from pathlib import Path

from sphinxfuzz.bugs.option_use import sets_options
from sphinxfuzz.campaign.position_options import OptionPlan
from sphinxfuzz.campaign.seeds import SeedsError, collect_seeds, seed_paths
from sphinxfuzz.campaign.strategy_bench import SCHEDULERS, StrategyMix
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.solvers import Family, SolverSpec, parse_specs
from sphinxfuzz.strategies import names
from sphinxfuzz.strategies.scheduler import SchedulerError, check_weights

DEFAULT_DRAWN = 3  # options per target and position with `random`
_DRAWN = re.compile(r"(random|compare)(?::(\d+))?")


def read_solvers(text: str) -> list[SolverSpec]:
    """The target specs of the `solvers` setting (at least one)."""
    try:
        specs = parse_specs(text)
    except ValueError as exc:
        step = exc.step if isinstance(exc, SphinxfuzzError) else None  # an install, say
        raise CampaignError(f"solvers {text!r}: {exc}", setting="solvers", step=step) from None
    if not specs:
        raise CampaignError(f"solvers {text!r}: names no solver", setting="solvers")
    return specs


def read_trusted(text: str, targets: list[SolverSpec]) -> tuple[SolverSpec, ...]:
    """The `trusted` setting's specs (at least one). One named like a different target
    (pip's cvc5 beside /usr/bin/cvc5) gets a name of its own: names tell runs apart, and it
    must never pass for it."""
    try:
        trusted = parse_specs(text)
    except ValueError as exc:
        raise CampaignError(f"trusted {text!r}: {exc}", setting="trusted") from None
    if not trusted:
        raise CampaignError(f"trusted {text!r}: names no solver", setting="trusted")
    named = {spec.name: spec for spec in targets}
    return tuple(
        replace(t, name=f"{t.name} (trusted)")
        if t.name in named and named[t.name].argv != t.argv
        else t
        for t in trusted
    )


def read_options(text: str) -> OptionPlan:
    """The `options` setting: none, random[:K], compare[:K] or FAMILY: OPTIONS; ..."""
    text = text.strip()
    if not sets_options(text):
        return OptionPlan()
    matched = _DRAWN.fullmatch(text)
    if matched is not None:
        drawn = int(matched.group(2) or DEFAULT_DRAWN)
        if drawn < 1:
            raise CampaignError(f"options {text!r}: draw at least one option", setting="options")
        return OptionPlan(drawn=drawn, compare=matched.group(1) == "compare")
    fixed: dict[Family, tuple[str, ...]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, colon, rest = part.partition(":")
        family = Family.read(name.strip())
        words = shlex.split(rest) if colon else []
        if family == Family.OTHER or not words:
            raise CampaignError(
                f"options {text!r}: write random[:K], compare[:K], none or FAMILY: OPTIONS; ... "
                f'(e.g. "z3: smt.arith.solver=2 auto_config=false"), not {part!r}',
                setting="options",
            )
        fixed[family] = (*fixed.get(family, ()), *words)
    return OptionPlan(fixed=fixed)


def read_weights(text: str) -> dict[str, float]:
    """`fusion=2,opfuzz,storm=0.5` -> {fusion: 2, opfuzz: 1, storm: 0.5}, weights a draw can
    use (`strategies.scheduler.check_weights`); {} for a text that names none."""
    weights: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, value = part.partition("=")
        try:
            weights[name.strip()] = float(value) if value else 1.0
        except ValueError:
            raise SchedulerError(f"weight of {name.strip()!r} is not a number: {value!r}") from None
    if weights:
        check_weights(weights)
    return weights


def read_strategies(text: str, scheduler: str = "fixed") -> StrategyMix:
    """The `strategies` setting's registered strategies with their weights, and the
    `scheduler` setting."""
    try:
        weights = read_weights(text)
    except SchedulerError as exc:
        raise CampaignError(f"strategies {text!r}: {exc}", setting="strategies") from None
    known = names()
    unknown = [name for name in weights if name not in known]
    if not weights or unknown:
        what = f"unknown strategy {unknown[0]!r}" if unknown else "names no strategy"
        raise CampaignError(
            f"strategies {text!r}: {what} (known: {', '.join(known)})", setting="strategies"
        )
    if scheduler not in SCHEDULERS:
        raise CampaignError(
            f"scheduler {scheduler!r}: one of {', '.join(SCHEDULERS)}", setting="scheduler"
        )
    return StrategyMix(tuple(weights.items()), scheduler)


def read_seeds(seeds: object) -> tuple[str, ...]:
    """The seed files the `seeds` setting names (`seeds.collect_seeds`)."""
    try:
        return tuple(collect_seeds(list(seed_paths(seeds))))
    except SeedsError as exc:
        raise CampaignError(str(exc), setting="seeds") from None


def read_folder(setting: str, text: str) -> None:
    """A folder setting (`known`, `history`): empty, or a folder."""
    if text and not Path(text).is_dir():
        raise CampaignError(f"{setting} {text!r}: not a folder", setting=setting)
