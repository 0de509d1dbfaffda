"""What a campaign is (stored, and checked again on resume), its resolved form, and how long
this run lasts.

`CampaignConfig` is the one owner of the campaign's settings and their defaults: the CLI
takes its defaults from here. `CampaignConfig.resolve()` turns its strings (solver specs,
options, strategies, seed paths, the generators folder) into typed values once, through
`config_text`; workers use those values.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import MISSING, asdict, dataclass, fields, replace
from typing import Any

from sphinxfuzz.bugs.option_use import sets_options
from sphinxfuzz.campaign.config_text import (
    read_folder,
    read_options,
    read_seeds,
    read_solvers,
    read_strategies,
    read_trusted,
)
from sphinxfuzz.campaign.position_options import OptionPlan, PositionOptions
from sphinxfuzz.campaign.seeds import SeedsError, seed_paths
from sphinxfuzz.campaign.strategy_bench import StrategyMix
from sphinxfuzz.campaign.targets import CampaignError, generator_entries, theory_options
from sphinxfuzz.campaign.values import check_values
from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.generators.catalogue import CatalogueEntry, default_generators_dir
from sphinxfuzz.mutate.seed import MAX_SEED_BYTES
from sphinxfuzz.solvers import Family, SolverSpec
from sphinxfuzz.solvers.options.table import OptionTable
from sphinxfuzz.strategies import DEFAULT as DEFAULT_STRATEGY

# A mutant answered by all target solvers within this many seconds counts as fast: the wall
# time some solver ran (they run at once, `SolverCalls.run_together`), what a case costs.
FAST_MUTANT_SECONDS = 0.25

DEFAULT_SOLVERS = "z3 model_validate=true;cvc5 --check-models"


def _spec_list(text: str) -> str:
    """A spec list as `solvers.parse_specs` splits it, spaced one way."""
    return ";".join(part.strip() for part in text.split(";") if part.strip())


@dataclass(frozen=True)
class CampaignConfig:
    """Everything that decides which mutants are made and how they are judged."""

    seeds: tuple[str, ...]
    solvers: str
    generators: str
    campaign_seed: int
    mutants_per_seed: int = 10
    rename_prob: float = 0.8
    timeout: float = 10.0
    memory_mb: int = 4096
    # A seed is checked once, unmutated, with this limit (capped at `timeout`): a seed that
    # needs longer makes slow mutants, and the time is better spent on other seeds.
    seed_timeout: float = 2.0
    # A seed is left after this many of its mutants timed out (the rest of its sequence is
    # skipped; the mutants made so far are the same for a given campaign seed).
    max_mutant_timeouts: int = 1
    # A seed whose mutants keep answering fast (all solvers of a mutant done within
    # FAST_MUTANT_SECONDS a mutant on average, no timeout) gets up to this many times
    # `mutants_per_seed`: its mutants are the cheapest tests there are, as AFL gives fast
    # inputs more energy. 1 turns it off.
    fast_seed_factor: int = 3
    # Calibrated limits, as AFL derives its timeout from the input's own run time: a mutant
    # gets `timeout_factor` times the time its seed's slowest solver needed (at least a
    # floor, at most `timeout`). A mutant ten times slower than its seed is
    # most likely a time-out, and time-outs decide nothing. 0 gives every call `timeout`.
    timeout_factor: float = 10.0
    # The floor of those limits is learnt (`campaign.case_limits`): the shortest limit that
    # leaves at most this share of the cases it bounds undecided. 0 keeps it at
    # MIN_MUTANT_TIMEOUT.
    undecided_budget: float = 0.04
    # Theories are drawn in proportion to the share of a few sampled terms every solver
    # accepts (campaign/theory_probe.py): an older release that lacks an operator, or a
    # theory one solver lacks, then costs few mutants that test only a parser. False draws
    # every theory evenly.
    adapt_theories: bool = True
    # Seeds larger than this are skipped (counted as malformed, with a message): a 50 MB
    # seed took minutes and gigabytes to parse and mutate.
    max_seed_bytes: int = MAX_SEED_BYTES
    # Strategies with weights (`campaign/strategy_bench.py`): "sphinx,fusion=2,storm" mixes the seed
    # papers' strategies into sphinx's skeleton filling.
    strategies: str = DEFAULT_STRATEGY
    scheduler: str = "fixed"  # "bandit": choose strategies by what they found
    # Solver options per seed position (campaign/position_options.py): "random" or "random:K" draws
    # from each target's option table ("compare[:K]": each target plain and with those);
    # "z3: smt.arith.solver=2; cvc5: --nl-ext-tplanes" fixes them; "none" (or "") sets none.
    # They go on the targets' command lines, so stored bugs carry them. Drawn by default:
    # an hour of z3 4.12.2 reached 38.5% of its lines with them, 32.1% without
    # (docs/benchmarks.md).
    options: str = "random"
    # The solvers that label seeds sat/unsat (fusion, sae, janus), give STORM its models and
    # re-run a verdict's formula against its construction (doubts); not targets. The newest z3
    # by default: a release under test must not vouch for itself. "z3;cvc5" names two.
    trusted: str = Family.Z3
    # The newest release of each family a stored bug is replayed on (alive or fixed today,
    # `bugs.refresh`): "" is the newest installed wheel of each; "z3@5.4.1;cvc5" names some.
    newest: str = ""
    # A folder of upstream bug reproducers named `<tracker>_<issue>_<n>.smt2`: a stored crash
    # in the place of one of them on the same release is marked likely known (`bugs.known`,
    # run only when a finding is stored). "": our own docs/bugs-found.json and seed names only.
    known: str = ""
    # A folder of historical bug triggers (`<tracker>_<issue>_<n>.smt2`) whose sub-terms a
    # strategy may insert into seeds (`strategies.histfuzz`). "": none, and it applies to none.
    history: str = ""
    # Every stored bug and seed finding is reduced with ddSMT after the fuzzing ends
    # (`campaign.reduction`), each for at most `reduce_time` seconds (ddSMT's best so far is
    # kept). After, not beside: on two cores a ddSMT beside the fuzzer takes its solvers'
    # CPU. Neither decides a mutant, so a resumed run may change both (`RUN_SETTINGS`).
    reduce: bool = True
    reduce_time: float = 120.0

    @property
    def sets_options(self) -> bool:
        """Whether the targets run with options of the campaign's (`options` is not none)."""
        return sets_options(self.options)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["seeds"] = list(self.seeds)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> CampaignConfig:
        """A stored config; a setting stored before it existed gets its default."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        values.setdefault("options", "")  # stored before options existed: it ran with none
        stored_seeds = values.get("seeds")
        if isinstance(stored_seeds, list | tuple):
            values["seeds"] = tuple(str(s) for s in stored_seeds)
        try:
            return cls(**values)
        except TypeError as exc:  # a required setting is missing
            raise CampaignError(f"the stored campaign config is incomplete: {exc}") from None

    @classmethod
    def from_settings(cls, given: Mapping[str, object | None]) -> CampaignConfig:
        """A new campaign's config: the settings given (None: not given) over the defaults.
        The shipped seeds and generators, `DEFAULT_SOLVERS` and a campaign seed from the
        clock stand in for the settings that have no fixed default."""
        chosen: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        unknown = set(chosen) - {f.name for f in fields(cls)}
        if unknown:
            raise CampaignError(f"no such campaign setting: {', '.join(sorted(unknown))}")
        chosen.setdefault("seeds", (str(data_dir("skeletons")),))
        chosen.setdefault("solvers", DEFAULT_SOLVERS)
        chosen.setdefault("generators", str(default_generators_dir()))
        chosen.setdefault("campaign_seed", time.time_ns() % 2**31)
        chosen.setdefault("options", default_of("options"))
        try:
            chosen["seeds"] = seed_paths(chosen["seeds"])
        except SeedsError as exc:
            raise CampaignError(str(exc), setting="seeds") from None
        config = cls.from_json(chosen)
        check_values(config)  # the API takes any object: refused here, not mid-run
        return config

    def differences(self, given: Mapping[str, object | None]) -> list[str]:
        """The settings in `given` (None: not given) that differ from this config, each as
        `name: stored X, given Y`; a resumed campaign must have none."""
        mine = self.to_json()
        wanted: dict[str, Any] = {
            k: v for k, v in given.items() if v is not None and k not in RUN_SETTINGS
        }
        if wanted.get("seeds") is not None:  # compared absolute (older stores: as typed)
            wanted["seeds"] = list(seed_paths(wanted["seeds"]))
            mine["seeds"] = list(seed_paths(mine["seeds"]))
        for key in ("solvers", "trusted"):  # "z3; cvc5" is "z3;cvc5"
            given_specs, stored_specs = wanted.get(key), mine.get(key)
            if isinstance(given_specs, str) and isinstance(stored_specs, str):
                wanted[key], mine[key] = _spec_list(given_specs), _spec_list(stored_specs)
        return [
            f"{k}: stored {mine.get(k)!r}, given {wanted[k]!r}"
            for k in sorted(wanted)
            if mine.get(k) != wanted[k]
        ]

    def resolve(self) -> Campaign:
        """The solver specs, seed files and generators this config names, resolved once
        (`campaign.config_text` reads every text); a CampaignError (with `setting` naming
        the culprit) when one is unusable."""
        check_values(self)
        specs = read_solvers(self.solvers)
        options = read_options(self.options)
        mix = read_strategies(self.strategies, self.scheduler)
        trusted = read_trusted(self.trusted, specs) if mix.needs_trusted else ()
        read_folder("known", self.known)
        read_folder("history", self.history)
        seed_files = read_seeds(self.seeds)
        # a mix whose strategies draw no generated terms needs no generator
        entries = generator_entries(self.generators, specs) if mix.needs_generators else []
        return Campaign(
            self,
            tuple(specs),
            seed_files,
            tuple(entries),
            theory_options(self.generators, entries),
            mix,
            trusted,
            options,
        )


# Settings of what a run does after its fuzzing, not of its mutants: a resumed campaign takes
# them as given this time (`with_run_settings`), never refuses them as differences.
RUN_SETTINGS = ("reduce", "reduce_time")


def with_run_settings(config: CampaignConfig, given: Mapping[str, object | None]) -> CampaignConfig:
    """`config` with the `RUN_SETTINGS` that `given` holds (None: not given) in place."""
    chosen = {k: given[k] for k in RUN_SETTINGS if given.get(k) is not None}
    return replace(config, **chosen) if chosen else config  # type: ignore[arg-type]


def default_of(setting: str) -> object:
    """The default value of one of `CampaignConfig`'s settings (for help texts)."""
    for field in fields(CampaignConfig):
        if field.name == setting and field.default is not MISSING:
            return field.default
    raise KeyError(setting)


@dataclass(frozen=True)
class Campaign:
    """A config resolved: what every worker works with (picklable, for spawned workers)."""

    config: CampaignConfig
    specs: tuple[SolverSpec, ...]
    seed_files: tuple[str, ...]  # sorted, every `.smt2` file the seed paths name
    generators: tuple[CatalogueEntry, ...]  # the theories every target supports
    theory_options: dict[str, tuple[str, ...]]  # solver options a theory's document asks for
    mix: StrategyMix = StrategyMix(((DEFAULT_STRATEGY, 1.0),))
    # labels, models and doubts (`CampaignConfig.trusted`, "z3;cvc5": several)
    trusted: tuple[SolverSpec, ...] = ()
    options: OptionPlan = (
        OptionPlan()
    )  # the targets' options per position (`campaign.position_options`)
    # the targets' option tables by spec name (`with_option_tables`): built once, before any
    # worker, and carried to every worker (pickled to spawned ones); None: not built yet
    option_tables: dict[str, OptionTable] | None = None

    def with_option_tables(self, say: Callable[[str], None] | None = None) -> Campaign:
        """This campaign with its targets' option tables, read from the cache or built first
        for a release that has none (`PositionOptions.prepare`, which tells `say`)."""
        if self.option_tables is not None:
            return self
        prepared = PositionOptions.prepare(self.options, self.specs, self.config.campaign_seed, say)
        return replace(self, option_tables=prepared.tables)

    def position_options(self) -> PositionOptions:
        """The targets' specs per position, drawn over the option tables this campaign
        carries (`with_option_tables` gives them)."""
        if self.option_tables is None:
            raise ValueError("the campaign's option tables are not built (with_option_tables)")
        return PositionOptions(
            self.options, self.specs, self.config.campaign_seed, self.option_tables
        )


# The floor of a calibrated limit before the campaign's answers move it (`case_limits`): at
# 0.5 s, one README mutant in 40 that z3 or cvc5 decides in 0.5 to 1 s (on two busy cores)
# came back undecided.
MIN_MUTANT_TIMEOUT = 1.0


@dataclass(frozen=True)
class SeedCheck:
    """What the store keeps of a usable seed's check: its slowest solver's time, whether
    the form used is trimmed (`mutate.trim`), upgraded to today's operator names
    (`mutate.upgrade`) and given the declarations it lacks (`mutate.declare`), and which
    targets it serves."""

    slowest: float | None  # seconds; None: not known (a store from before calibration)
    trimmed: bool = False
    # the names of the targets that accept it; None: every target (stores before it too)
    serves: tuple[str, ...] | None = None
    upgraded: bool = False
    declared: bool = False

    def to_detail(self) -> str:
        slowest = None if self.slowest is None else round(self.slowest, 3)
        data: dict[str, object] = {"slowest_seconds": slowest, "trimmed": self.trimmed}
        if self.serves is not None:
            data["serves"] = list(self.serves)
        if self.upgraded:  # absent in stores from before the upgrade
            data["upgraded"] = True
        if self.declared:  # absent in stores from before declarations were inferred
            data["declared"] = True
        return json.dumps(data)

    @classmethod
    def from_detail(cls, detail: str) -> SeedCheck:
        """Read `to_detail`'s JSON, or the sentence earlier versions stored
        (`slowest solver 0.123 s`, ending in `; trimmed` for a trimmed seed)."""
        try:
            data = json.loads(detail)
        except ValueError:
            data = None
        if isinstance(data, dict):
            slowest = data.get("slowest_seconds")
            number = float(slowest) if isinstance(slowest, int | float) else None
            serves = data.get("serves")
            names = tuple(str(n) for n in serves) if isinstance(serves, list) else None
            trimmed, upgraded = bool(data.get("trimmed")), bool(data.get("upgraded"))
            return cls(number, trimmed, names, upgraded, bool(data.get("declared")))
        found = _OLD_SLOWEST.search(detail)
        return cls(None if found is None else float(found.group(1)), detail.endswith(_OLD_TRIMMED))


# The sentence of stores written before `SeedCheck`: read, never written.
_OLD_SLOWEST = re.compile(r"slowest solver ([0-9.]+) s")
_OLD_TRIMMED = "; trimmed"


@dataclass(frozen=True)
class Budget:
    """When this run stops; with neither limit the run makes one pass over the seeds."""

    seconds: float | None = None
    mutants: int | None = None

    @property
    def unlimited(self) -> bool:
        return self.seconds is None and self.mutants is None


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_PARTS = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd])")
_COMPOUND = re.compile(rf"(?:{_PARTS.pattern})+\s*")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """`90`, `90s`, `10m`, `2h`, `1d`, `1h30m` -> seconds."""
    match = _DURATION.match(text)
    if match:
        seconds = float(match.group(1)) * _UNIT[match.group(2)]
    elif _COMPOUND.fullmatch(text):
        seconds = sum(float(n) * _UNIT[unit] for n, unit in _PARTS.findall(text))
    else:
        seconds = 0
    if not 0 < seconds < math.inf:
        raise ValueError(f"{text!r} is not a duration (examples: 90s, 10m, 2h, 1h30m)")
    return seconds
