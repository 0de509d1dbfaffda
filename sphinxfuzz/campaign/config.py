"""What a campaign is (stored, and checked again on `--resume`) and how long this run lasts."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields

from sphinxfuzz.mutate.seed import MAX_SEED_BYTES

# A mutant answered by all target solvers within this many seconds counts as fast.
FAST_MUTANT_SECONDS = 0.25


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
    # A seed whose mutants keep answering fast (all solvers together under
    # FAST_MUTANT_SECONDS a mutant on average, no timeout) gets up to this many times
    # `mutants_per_seed`: its mutants are the cheapest tests there are, as AFL gives fast
    # inputs more energy. 1 turns it off.
    fast_seed_factor: int = 3
    # Calibrated limits, as AFL derives its timeout from the input's own run time: a mutant
    # gets `timeout_factor` times the time its seed's slowest solver needed (at least
    # MIN_MUTANT_TIMEOUT, at most `timeout`). A mutant ten times slower than its seed is
    # most likely a time-out, and time-outs decide nothing. 0 gives every call `timeout`.
    timeout_factor: float = 10.0
    # Theories are drawn in proportion to the share of a few sampled terms every solver
    # accepts (campaign/theory_probe.py): an older release that lacks an operator, or a
    # theory one solver lacks, then costs few mutants that test only a parser. False draws
    # every theory evenly.
    adapt_theories: bool = True
    # Seeds larger than this are skipped (counted as malformed, with a message): a 50 MB
    # seed took minutes and gigabytes to parse and mutate.
    max_seed_bytes: int = MAX_SEED_BYTES

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["seeds"] = list(self.seeds)
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> CampaignConfig:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["seeds"] = tuple(values["seeds"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


MIN_MUTANT_TIMEOUT = 0.5
_SLOWEST = re.compile(r"slowest solver ([0-9.]+) s")


def seed_check_detail(slowest: float) -> str:
    """What the store keeps of a usable seed's check: its slowest solver's time."""
    return f"slowest solver {slowest:.3f} s"


def calibrated_timeout(config: CampaignConfig, detail: str) -> float:
    """The limit for a seed's mutants, from the detail its check stored."""
    found = _SLOWEST.search(detail)
    if not config.timeout_factor or found is None:  # not calibrated (or an older store)
        return config.timeout
    wanted = max(MIN_MUTANT_TIMEOUT, config.timeout_factor * float(found.group(1)))
    return min(config.timeout, wanted)


@dataclass(frozen=True)
class Budget:
    """When this run stops; with neither limit the run makes one pass over the seeds."""

    seconds: float | None = None
    mutants: int | None = None

    @property
    def unlimited(self) -> bool:
        return self.seconds is None and self.mutants is None


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """`90`, `90s`, `10m`, `2h`, `1d` -> seconds."""
    match = _DURATION.match(text)
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"{text!r} is not a duration (examples: 90s, 10m, 2h)")
    return float(match.group(1)) * _UNIT[match.group(2)]
