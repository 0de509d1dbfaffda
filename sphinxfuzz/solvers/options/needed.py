"""Options a formula needs on a solver release, from the table in `needed_options.json`.

A rule names a family, optionally a release range (`below`: releases older than that,
`from`: that release and newer, for an option a release renamed), and
what triggers it: operators (by prefix or name), commands, or commands that occur more than
once. The options are `name=value` strings, written into the formula as `set-option`
commands of that family (other families never see them, see `oracle.dialect`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.solvers.families import Family, parse_version

TABLE = Path(__file__).with_name("needed_options.json")


@dataclass(frozen=True)
class Rule:
    family: Family
    below: tuple[int, ...] | None
    since: tuple[int, ...] | None  # the table's `from`
    operator_prefixes: tuple[str, ...]
    operators: frozenset[str]
    commands: frozenset[str]
    repeated_commands: frozenset[str]
    options: tuple[str, ...]

    def applies(self, family: str, version: str) -> bool:
        if family != self.family:
            return False
        if self.below is None and self.since is None:
            return True
        parsed = parse_version(version)
        if not parsed:
            return False
        return (self.below is None or parsed < self.below) and (
            self.since is None or parsed >= self.since
        )

    def triggered(self, operators: Iterable[str], commands: Mapping[str, int]) -> bool:
        if any(commands.get(c, 0) > 0 for c in self.commands):
            return True
        if any(commands.get(c, 0) > 1 for c in self.repeated_commands):
            return True
        return any(
            op in self.operators or op.startswith(self.operator_prefixes) for op in operators
        )


@lru_cache(maxsize=4)
def load_rules(path: Path = TABLE) -> tuple[Rule, ...]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rules = []
        for index, raw in enumerate(data["rules"]):
            below, since = (_version(raw, key, index) for key in ("below", "from"))
            rules.append(
                Rule(
                    Family(raw["family"]),
                    below,
                    since,
                    tuple(raw.get("operator_prefixes", ())),
                    frozenset(raw.get("operators", ())),
                    frozenset(raw.get("commands", ())),
                    frozenset(raw.get("repeated_commands", ())),
                    tuple(raw["options"]),
                )
            )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: unusable options table: {exc}") from None
    return tuple(rules)


def _version(raw: dict[str, object], key: str, index: int) -> tuple[int, ...] | None:
    text = raw.get(key)
    parsed = parse_version(str(text)) if text else None
    if text and not parsed:
        raise ValueError(f"rule {index}: {key!r} must be a version, not {text!r}")
    return parsed


def needed_options(
    targets: Sequence[tuple[str, str]],
    operators: Iterable[str] = (),
    commands: Mapping[str, int] | None = None,
) -> list[str]:
    """Options (`name=value`, in table order, no repeats) the formula needs for any of the
    `targets` (family, version) given the operators and command counts it holds."""
    ops = set(operators)
    counts = commands or {}
    found: list[str] = []
    for rule in load_rules():
        if any(rule.applies(f, v) for f, v in targets) and rule.triggered(ops, counts):
            found.extend(o for o in rule.options if o not in found)
    return found
