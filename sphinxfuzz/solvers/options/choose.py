"""Which declared options a campaign may draw, by the rules of `fuzzable.json`: Booleans,
small enums and integers with a small declared range, minus the exclusions (each with its
reason; an exclusion `name=value` leaves out one value). The result is a list of candidates
with the non-default values to try; the probe (`probe.py`) keeps those the release
accepts."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.options.declared import Declared, Kind

RULES = Path(__file__).with_name("fuzzable.json")
DELIVERIES = ("argv", "set-option")


@dataclass(frozen=True)
class Exclusion:
    pattern: str
    why: str
    family: Family | None  # None: every family


@dataclass(frozen=True)
class Rules:
    max_choices: int
    max_int_span: int
    delivery: dict[Family, tuple[str, ...]]
    excluded: tuple[Exclusion, ...]
    digest: str  # of the file: a cached table made under other rules is made again

    def exclusion(self, family: Family, name: str) -> Exclusion | None:
        """The rule excluding option `name`, or one value of it when `name` is `name=value`
        (a rule whose pattern has a `=` names values; the others, options)."""
        for rule in self.excluded:
            if (
                rule.family in (None, family)
                and ("=" in rule.pattern) == ("=" in name)
                and fnmatchcase(name, rule.pattern)
            ):
                return rule
        return None


@lru_cache(maxsize=4)
def load_rules(path: Path = RULES) -> Rules:
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        delivery = {Family(f): tuple(ways) for f, ways in data["delivery"].items()}
        if any(w not in DELIVERIES for ways in delivery.values() for w in ways):
            raise ValueError(f"a delivery is one of {', '.join(DELIVERIES)}")
        excluded = tuple(
            Exclusion(
                str(r["pattern"]), str(r["why"]), Family(r["family"]) if "family" in r else None
            )
            for r in data["excluded"]
        )
        return Rules(
            int(data["max_choices"]), int(data["max_int_span"]), delivery, excluded,
            hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: unusable option rules: {exc}") from None


@dataclass(frozen=True)
class Candidate:
    name: str
    kind: Kind
    default: str | None
    values: tuple[str, ...]  # the values to try, the default left out when known


def _values(option: Declared, rules: Rules) -> tuple[str, ...] | str:
    """The values worth trying, or why there are none."""
    if option.kind == Kind.BOOL:
        return tuple(v for v in ("true", "false") if v != option.default)
    if option.kind == Kind.ENUM:
        if len(option.choices) > rules.max_choices:
            return f"{len(option.choices)} choices: more than {rules.max_choices}"
        return tuple(c for c in option.choices if c != option.default)
    if option.kind == Kind.INT:
        low, high = option.minimum, option.maximum
        if low is None or high is None or high - low > rules.max_int_span:
            return f"an integer without a declared range of at most {rules.max_int_span + 1} values"
        return tuple(str(v) for v in range(low, high + 1) if str(v) != option.default)
    return f"a {option.type_name or 'non-scalar'} option has no small set of values"


def choose(
    family: Family, declared: list[Declared], rules: Rules | None = None
) -> tuple[list[Candidate], dict[str, str]]:
    """(candidates, option -> why it is left out) for one release's declared options."""
    rules = rules or load_rules()
    chosen: list[Candidate] = []
    left_out: dict[str, str] = {}
    for option in declared:
        rule = rules.exclusion(family, option.name)
        if rule is not None:
            left_out[option.name] = f"excluded ({rule.pattern}): {rule.why}"
            continue
        values = _values(option, rules)
        if not isinstance(values, str):
            kept = []
            for value in values:
                setting = f"{option.name}={value}"
                if (rule := rules.exclusion(family, setting)) is None:
                    kept.append(value)
                else:
                    left_out[setting] = f"excluded ({rule.pattern}): {rule.why}"
            values = tuple(kept)
        if isinstance(values, str):
            left_out[option.name] = values
        elif values:
            chosen.append(Candidate(option.name, option.kind, option.default, values))
        else:
            left_out[option.name] = "no value but its default"
    return chosen, left_out
