"""Which options of a release's table can matter to a seed, by the data of `relevance.json`.

A drawn option that acts on a theory the seed does not use changes nothing but the command
line: it takes the place of one that could reach new code, and (the draw being per seed
position) costs the same process start. So a seed's features are read from its text once,
and each table option whose rule needs features the seed lacks is left out of the draw. The
features over-approximate (a `(* 2 x)` counts as nonlinear): an option is only ever left out
where it cannot act.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.options.table import OptionTable, TableOption

RULES = Path(__file__).with_name("relevance.json")


@dataclass(frozen=True)
class Needs:
    pattern: str
    features: frozenset[str] | None  # None: acts everywhere
    older: bool = False  # names options that older releases alone declare
    avoids: frozenset[str] = frozenset()  # features beside which the release refuses it
    gives: frozenset[str] = frozenset()  # features it turns on itself (unsat cores)


@dataclass(frozen=True)
class Relevance:
    features: dict[str, re.Pattern[str]]
    rules: dict[Family, tuple[Needs, ...]]
    # (family, option) -> its first matching rule: a campaign asks for every option of two
    # tables at every seed position, and matching ~100 patterns each took milliseconds
    _first: dict[tuple[Family, str], Needs | None] = field(default_factory=dict, compare=False)

    def seed_features(self, text: str) -> frozenset[str]:
        return frozenset(name for name, found in self.features.items() if found.search(text))

    def rule_for(self, family: Family, option: str) -> Needs | None:
        key = (family, option)
        if key not in self._first:
            self._first[key] = next(
                (r for r in self.rules.get(family, ()) if fnmatchcase(option, r.pattern)), None
            )
        return self._first[key]

    def acts(self, family: Family, option: str, features: frozenset[str]) -> bool:
        """Whether `option` may change a run on a seed showing `features` (and the release
        takes it there)."""
        rule = self.rule_for(family, option)
        if rule is None:
            return True
        if rule.avoids & features:
            return False
        return rule.features is None or bool(rule.features & features)

    def compatible(self, family: Family, options: Sequence[str]) -> list[str]:
        """`options` (drawn in this order) without each one that avoids a feature an
        earlier one gives, or gives one an earlier one avoids: a release refuses the pair
        (cvc5: `--unsat-cores-mode` beside `--deep-restart`)."""
        kept: list[str] = []
        given: set[str] = set()
        avoided: set[str] = set()
        for option in options:
            rule = self.rule_for(family, option)
            gives = rule.gives if rule else frozenset()
            avoids = rule.avoids if rule else frozenset()
            if avoids & given or gives & avoided:
                continue
            kept.append(option)
            given |= gives
            avoided |= avoids
        return kept


@lru_cache(maxsize=2)
def load_relevance(path: Path = RULES) -> Relevance:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        features = {str(k): re.compile(str(v)) for k, v in data["features"].items()}
        rules: dict[Family, tuple[Needs, ...]] = {}
        for family, entries in data["options"].items():
            needs = []
            for entry in entries:
                wanted, avoided = entry.get("needs"), entry.get("avoids", [])
                given = entry.get("gives", [])
                unknown = (set(wanted or ()) | set(avoided) | set(given)) - features.keys()
                if unknown:
                    raise ValueError(f"{entry['pattern']}: no feature {', '.join(sorted(unknown))}")
                if (wanted == [] or avoided or given) and not entry.get("why"):
                    raise ValueError(
                        f"{entry['pattern']}: say why it acts nowhere, is avoided or gives a feature"
                    )
                chosen = None if wanted is None else frozenset(str(w) for w in wanted)
                needs.append(Needs(str(entry["pattern"]), chosen, bool(entry.get("older")),
                                   frozenset(str(a) for a in avoided),
                                   frozenset(str(g) for g in given)))  # fmt: skip
            rules[Family(family)] = tuple(needs)
        return Relevance(features, rules)
    except (OSError, ValueError, KeyError, TypeError, re.error) as exc:
        raise ValueError(f"{path}: unusable option relevance rules: {exc}") from None


def relevant(table: OptionTable, text: str | None) -> tuple[TableOption, ...]:
    """The options of `table` that can act on a seed of `text`; all of them when the seed is
    not known (None)."""
    if text is None:
        return table.options
    rules = load_relevance()
    features = _features_of(text)
    return tuple(o for o in table.options if rules.acts(table.family, o.name, features))


@lru_cache(maxsize=4)
def _features_of(text: str) -> frozenset[str]:
    """The seed's features, read once for all its targets' tables and for the position's
    second draw (a str keeps its hash, so a seed of a megabyte is not read again)."""
    return load_relevance().seed_features(text)
