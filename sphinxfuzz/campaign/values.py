"""A campaign config's values checked against their types and ranges before anything runs.

The CLI's options hold these bounds already; the Python API (`CampaignConfig(...)`,
`CampaignConfig.from_settings`) takes any object, and a timeout of "abc" or -5 used to fail
mid-run or not at all.
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, get_type_hints

from sphinxfuzz.campaign.targets import CampaignError

# Settings of a number that must be above 0, and those that are shares of 1.
POSITIVE = frozenset(
    {"mutants_per_seed", "timeout", "memory_mb", "seed_timeout", "fast_seed_factor",
     "max_seed_bytes", "reduce_time"}
)  # fmt: skip
SHARES = frozenset({"rename_prob", "undecided_budget"})


def check_values(config: Any) -> None:
    """Raise `CampaignError` naming the first setting of the dataclass `config` whose value
    is not of its declared type (an int is a float too; a bool is neither) or out of range."""
    hints = get_type_hints(type(config))
    for item in fields(config):
        value, kind = getattr(config, item.name), hints[item.name]
        problem = _problem(item.name, value, kind)
        if problem:
            raise CampaignError(f"{item.name} {value!r}: {problem}"[:300], setting=item.name)


def _problem(name: str, value: object, kind: object) -> str | None:
    if kind is bool:
        return None if isinstance(value, bool) else "should be true or false"
    if kind is str:
        return None if isinstance(value, str) else "should be a text"
    if kind not in (int, float):
        return None  # seeds: `campaign.seeds.seed_paths` reads them
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"should be {'a whole number' if kind is int else 'a number'}"
    if kind is int and not isinstance(value, int):
        return "should be a whole number"
    if not math.isfinite(value):
        return "should be a finite number"
    if name in POSITIVE and value <= 0:
        return "should be more than 0"
    if name in SHARES and not 0 <= value <= 1:
        return "should be a share from 0 to 1"
    if value < 0 and name != "campaign_seed":
        return "should be 0 or more"
    return None
